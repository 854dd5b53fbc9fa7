/* run_rs.c — the Reed-Solomon scheme: any k lost members of a set rebuilt.
 *
 * A set of N members tolerates k = FAILURES losses; d = N - k. Each member's
 * files, as one zero-padded logical file, are cut into d chunks of c bytes
 * (c = the largest member's data / d, rounded up). There are N stripes; in
 * stripe s the k parity blocks are held by members s, s+1, ..., s+k-1 and
 * the d data blocks come from members s+k+i (i = 0..d-1), whose chunk i is
 * data block i (indices mod N). So member m gives its chunk i to stripe
 * m-k-i, and keeps parity block j of stripe m-j in its RS file, at j·c after
 * the header: storage per member is c·k, the data's k/(N-k).
 *
 * Encoding is a ring like XOR's: at step t a member adds the share of its
 * chunk t to the k accumulators that came from the left and passes them on;
 * after d steps each member holds the parity of its own stripe and sends
 * parity j to member m+j. Work is done in pieces of the file buffer.
 *
 * The RS file <set rank+1>_of_<N>_in_<set id>.rs starts with a hash (DSET,
 * CHUNK, FAILURES, GROUP, CURRENT: this member's file metas, PARTNERS: those
 * of its k left neighbours), so the metas of a lost member survive in a
 * member to its right whenever at most k are lost. To rebuild, for each
 * stripe that lost blocks, the d lowest-numbered surviving blocks go to the
 * first lost member of the stripe, which decodes and sends each lost block
 * to its owner.
 *
 * The ring computes the CRC-32 of each member's files from the bytes it
 * reads (util_crc_parts.h), and of the RS file from the bytes it writes.
 * The header goes out before the CRCs are known, with CRC fields of fixed
 * width; once the ring is done the members share their metas again and
 * each writes its header anew in place. A lost member's rebuilt files are
 * checked against the CRCs its neighbours kept, as they are written. */
#include "erasure_rs.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_stream.h"
#include "reddesc.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"
#include "util_padfile.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_RS 5101
#define TAG_RS_SPREAD 5102
#define TAG_RS_REBUILD 5103

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* This member's application files of dataset id, as padded parts. */
struct rs_files {
    int count;
    char **paths;
    scr_padfile_part *parts;
    uint64_t total;
    scr_kvtree *metas;  /* RANK, FILES, FILE i {meta} */
    scr_crc_parts *crc; /* the CRCs of what passes through the files, when tracked */
};

static void rs_files_close(struct rs_files *f)
{
    for (int i = 0; i < f->count; i++) {
        if (f->parts && f->parts[i].fd >= 0) close(f->parts[i].fd);
        if (f->paths) free(f->paths[i]);
    }
    free(f->paths);
    free(f->parts);
    scr_kvtree_delete(f->metas);
    scr_crc_parts_free(f->crc);
    memset(f, 0, sizeof(*f));
}

static int rs_files_alloc(struct rs_files *f, int n)
{
    f->paths = calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
    f->parts = calloc((size_t)(n > 0 ? n : 1), sizeof(scr_padfile_part));
    if (f->paths == NULL || f->parts == NULL) return SCR_ERR_NOMEM;
    for (int i = 0; i < n; i++) f->parts[i].fd = -1;
    return SCR_SUCCESS;
}

/* Open this member's FULL files of dataset id for reading, with their metas. */
static int rs_files_mine(struct scr_run *run, int id, struct rs_files *f)
{
    memset(f, 0, sizeof(*f));
    const char **files = NULL;
    int n = 0, k = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    f->metas = scr_kvtree_new();
    if (rc == SCR_SUCCESS && f->metas == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = rs_files_alloc(f, n);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        const scr_meta *m = NULL;
        uint64_t size = 0;
        if (scr_filemap_get_meta(run->map, id, run->rank, files[i], &m) != SCR_SUCCESS ||
            scr_meta_check_filetype(m, SCR_META_TYPE_FULL) != SCR_SUCCESS)
            continue;
        rc = scr_meta_get_filesize(m, &size);
        scr_kvtree *slot = rc == SCR_SUCCESS ? scr_kvtree_set_kv_int(f->metas, "FILE", k) : NULL;
        if (rc == SCR_SUCCESS && (slot == NULL || scr_kvtree_copy(slot, m) != SCR_SUCCESS)) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS && (f->paths[k] = strdup(files[i])) == NULL) rc = SCR_ERR_NOMEM;
        f->count = k + 1;
        if (rc == SCR_SUCCESS && (f->parts[k].fd = open(files[i], O_RDONLY | O_CLOEXEC)) < 0) {
            scr_err("cannot open %s: %s", files[i], strerror(errno));
            rc = SCR_ERR_IO;
        }
        f->parts[k].path = f->paths[k];
        f->parts[k].size = size;
        f->total += size;
        k++;
    }
    free(files);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(f->metas, "RANK", run->rank);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(f->metas, "FILES", f->count);
    if (rc != SCR_SUCCESS) rs_files_close(f);
    return rc;
}

static int rs_path(struct scr_run *run, const struct scr_reddesc *d, int id, char **out)
{
    char *dsdir = NULL, name[96];
    snprintf(name, sizeof(name), "%d_of_%d_in_%d.rs", d->set_rank + 1, d->set_size, d->set_id);
    int rc = scr_cache_dataset_dir(run, id, &dsdir);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, name, out);
    free(dsdir);
    return rc;
}

/* Record the RS file in the filemap (before it exists, then complete). */
static int register_rs(struct scr_run *run, int id, const char *path, uint64_t size, int with_crc,
                       uint32_t crc, int complete)
{
    return scr_redundancy_register_file(run, id, path, SCR_META_TYPE_RS, size, with_crc, crc, complete);
}

/* Every member's file metas, gathered within the set: MEMBER <set rank> {metas}. */
static int share_metas(const struct scr_reddesc *d, const scr_kvtree *known, scr_kvtree **out_all)
{
    scr_kvtree **trees = NULL, *all = NULL;
    int rc = scr_comm_gather_kvtree(known, 0, d->set, &trees);
    if (rc == SCR_SUCCESS && d->set_rank == 0) {
        all = scr_kvtree_new();
        for (int i = 0; all && i < d->set_size; i++) scr_kvtree_merge(all, trees[i]);
        if (all == NULL) rc = SCR_ERR_NOMEM;
    }
    scr_comm_free_trees(trees, d->set_rank == 0 ? d->set_size : 0);
    int brc = scr_comm_bcast_kvtree(&all, 0, d->set);
    if (rc == SCR_SUCCESS) rc = brc;
    if (rc == SCR_SUCCESS) *out_all = all;
    else scr_kvtree_delete(all);
    return rc;
}

/* Member x's entry of the gathered metas (a scr_redundancy_metas_fn). */
static const scr_kvtree *member_metas(void *members, int x)
{
    return scr_kvtree_get_kv_int(members, "MEMBER", x);
}

/* The header of member m's RS file. */
static int build_header(struct scr_run *run, const struct scr_reddesc *d, const scr_kvtree *dset,
                        const scr_kvtree *members, int m, uint64_t chunk, scr_kvtree **out)
{
    int N = d->set_size, k = d->failures;
    scr_kvtree *h = scr_kvtree_new();
    int rc = h ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && scr_kvtree_set(h, "DSET", scr_kvtree_dup(dset)) == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(h, "RANKS", run->ranks);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_uint64(h, "CHUNK", chunk);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(h, "FAILURES", k);
    scr_kvtree *group = rc == SCR_SUCCESS ? scr_kvtree_set(h, "GROUP", scr_kvtree_new()) : NULL;
    if (rc == SCR_SUCCESS) rc = group ? scr_kvtree_util_set_int(group, "RANKS", N) : SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < N; i++) {
        scr_kvtree *slot = scr_kvtree_set_kv_int(group, "RANK", i);
        if (slot == NULL || scr_kvtree_util_set_int(slot, "WORLD", d->members[i]) != SCR_SUCCESS) rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = scr_redundancy_file_set_rs_metas(h, m, N, k, member_metas, (void *)members);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(h);
        return rc;
    }
    *out = h;
    return SCR_SUCCESS;
}

/* Create the RS file with its header; *out_hlen is the header's size. */
static int create_rs_file(struct scr_run *run, int id, const char *path, const scr_kvtree *header,
                          uint64_t chunk, int k, int *out_fd, uint64_t *out_hlen, uint32_t *out_header_crc)
{
    void *image = NULL;
    size_t len = 0;
    int rc = scr_kvtree_file_image(header, &image, &len);
    if (rc == SCR_SUCCESS) rc = register_rs(run, id, path, len + chunk * (uint64_t)k, 0, 0, 0);
    if (rc == SCR_SUCCESS && (*out_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
        scr_err("cannot create %s: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) rc = scr_write_full(*out_fd, image, len, path);
    if (rc == SCR_SUCCESS && ftruncate(*out_fd, (off_t)(len + chunk * (uint64_t)k)) != 0) {
        scr_err("cannot size %s: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    *out_hlen = len;
    if (rc == SCR_SUCCESS) *out_header_crc = scr_crc32(0, image, len);
    free(image);
    return rc;
}

/* Track the CRCs of f's files and of the blocks of an RS file of k chunks,
 * when files in cache get CRCs. */
static int track_crcs(const struct scr_run *run, struct rs_files *f, uint64_t chunk, int k, scr_crc_parts **out_blocks)
{
    if (!run->crc_in_cache) return SCR_SUCCESS;
    scr_padfile_part blocks = {-1, "RS data", chunk * (uint64_t)k};
    f->crc = scr_crc_parts_new(f->parts, (size_t)f->count);
    *out_blocks = scr_crc_parts_new(&blocks, 1);
    return f->crc && *out_blocks ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

/* Sync the RS file, checksum it if asked, and mark it complete. known: crc
 * is the CRC of what was written, which SCR_CRC_ON_COPY checks the file as
 * read back against. */
static int finish_rs_file(struct scr_run *run, int id, const char *path, int fd, uint64_t size, int known,
                          uint32_t crc, char *buf, size_t bufsize)
{
    int rc = fsync(fd) == 0 ? SCR_SUCCESS : SCR_ERR_IO;
    if (rc != SCR_SUCCESS) scr_err("fsync of %s failed: %s", path, strerror(errno));
    uint32_t got = 0;
    for (uint64_t off = 0; rc == SCR_SUCCESS && run->crc_on_copy && off < size;) {
        size_t n = size - off < bufsize ? (size_t)(size - off) : bufsize;
        rc = scr_pread_full(fd, buf, n, off, path);
        if (rc == SCR_SUCCESS) got = scr_crc32(got, buf, n);
        off += n;
    }
    if (rc == SCR_SUCCESS && run->crc_on_copy && known && got != crc) {
        scr_err("%s reads back with CRC32 0x%08x, 0x%08x written", path, got, crc);
        rc = SCR_ERR_IO;
    }
    if (run->crc_on_copy) crc = got;
    if (rc == SCR_SUCCESS) rc = register_rs(run, id, path, size, known || run->crc_on_copy, crc, 1);
    return rc;
}

/* The encoding ring of one member. */
struct rs_ring {
    struct scr_run *run;
    const struct scr_reddesc *d;
    const scr_rs_code *code;
    const struct rs_files *f;
    uint64_t chunk;
    int fd;             /* the RS file, its blocks at hlen */
    const char *path;
    uint64_t hlen;
    char *acc;          /* 2 sets x group pieces x k accumulators, a piece each */
    int group;          /* pieces in flight */
    char *readbuf;      /* group pieces */
    MPI_Request *reqs;  /* 2 x group x k */
    scr_crc_parts *blocks; /* the CRC of the RS file's blocks as written, when tracked */
};

/* Accumulator j of piece g in set s (0 or 1). */
static char *acc_of(const struct rs_ring *r, int s, int g, int j)
{
    int k = r->d->failures;
    return r->acc + ((size_t)(s * r->group + g) * (size_t)k + (size_t)j) * r->run->mpi_buf_size;
}

/* Wait for n requests. */
static int wait_all(int n, MPI_Request *reqs, const char *what)
{
    return scr_mpi_check(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), what);
}

/* The ring of scr_redundancy_apply_rs. Pieces go in groups: step t of every
 * piece of a group is sent before step t+1 of any, so a member has a group's
 * worth of slack before it waits for its left neighbour, and its reads and
 * writes overlap the transfers. Every piece of a group has two sets of k
 * accumulators: one that arrived and is added to and sent, one that the next
 * step arrives in. Returns the MPI status; a failed read or write (in *io_rc)
 * lets the ring complete. */
static int rs_ring_encode(const struct rs_ring *r, int *io_rc)
{
    const struct scr_reddesc *d = r->d;
    int N = d->set_size, k = d->failures, dd = N - k, me = d->set_rank, G = r->group;
    int rhs = scr_reddesc_rhs(d), lhs = scr_reddesc_lhs(d), rc = *io_rc, mrc = SCR_SUCCESS;
    size_t piece = r->run->mpi_buf_size;
    MPI_Comm comm = r->run->world;
    int nreq = 2 * G * k; /* piece g: sends at g*k, receives at (G+g)*k */
    MPI_Request *reqs = r->reqs;
    for (int i = 0; i < nreq; i++) reqs[i] = MPI_REQUEST_NULL;
    for (uint64_t p0 = 0; mrc == SCR_SUCCESS && p0 < r->chunk; p0 += (uint64_t)G * piece) {
        int n = (int)((r->chunk - p0 + piece - 1) / piece);
        if (n > G) n = G;
        for (int t = 0; mrc == SCR_SUCCESS && t < dd; t++) {
            /* step t: my chunk t is data block t of stripe me-k-t */
            for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
                uint64_t off = p0 + (uint64_t)g * piece;
                size_t len = r->chunk - off < piece ? (size_t)(r->chunk - off) : piece;
                MPI_Request *sreq = reqs + g * k, *rreq = reqs + (G + g) * k;
                char *work[SCR_RS_MAX_BLOCKS], *in = r->readbuf + (size_t)g * piece;
                for (int j = 0; j < k; j++) work[j] = acc_of(r, t % 2, g, j);
                if (rc == SCR_SUCCESS)
                    rc = scr_padfile_read(r->f->parts, (size_t)r->f->count, (uint64_t)t * r->chunk + off, in, len);
                if (rc == SCR_SUCCESS) scr_crc_parts_add(r->f->crc, (uint64_t)t * r->chunk + off, in, len);
                if (t == 0) {
                    for (int j = 0; j < k; j++) memset(work[j], 0, len);
                } else {
                    mrc = wait_all(k, rreq, "computing Reed-Solomon data (MPI_Waitall)");
                }
                if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
                    rc = scr_rs_encode_update(r->code, len, t, in, (void *const *)work);
                /* the other set was sent last step: once it has gone, the next step arrives in it */
                if (mrc == SCR_SUCCESS) mrc = wait_all(k, sreq, "computing Reed-Solomon data (MPI_Waitall)");
                for (int j = 0; mrc == SCR_SUCCESS && j < k; j++)
                    mrc = scr_mpi_check(MPI_Irecv(acc_of(r, (t + 1) % 2, g, j), (int)len, MPI_BYTE, lhs, TAG_RS + j,
                                                  comm, &rreq[j]), "computing Reed-Solomon data (MPI_Irecv)");
                for (int j = 0; mrc == SCR_SUCCESS && j < k; j++)
                    mrc = scr_mpi_check(MPI_Isend(work[j], (int)len, MPI_BYTE, rhs, TAG_RS + j, comm, &sreq[j]),
                                        "computing Reed-Solomon data (MPI_Isend)");
            }
        }
        /* the last arrivals are my own stripe's parity: keep block 0, spread the others */
        for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
            uint64_t off = p0 + (uint64_t)g * piece;
            size_t len = r->chunk - off < piece ? (size_t)(r->chunk - off) : piece;
            MPI_Request *sreq = reqs + g * k, *rreq = reqs + (G + g) * k;
            mrc = wait_all(k, rreq, "computing Reed-Solomon data (MPI_Waitall)");
            if (mrc == SCR_SUCCESS) mrc = wait_all(k, sreq, "computing Reed-Solomon data (MPI_Waitall)");
            if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
                rc = scr_pwrite_full(r->fd, acc_of(r, dd % 2, g, 0), len, r->hlen + off, r->path);
            if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
                scr_crc_parts_add(r->blocks, off, acc_of(r, dd % 2, g, 0), len);
            for (int j = 1; mrc == SCR_SUCCESS && j < k; j++)
                mrc = scr_mpi_check(MPI_Irecv(acc_of(r, (dd + 1) % 2, g, j), (int)len, MPI_BYTE,
                                              d->members[mod(me - j, N)], TAG_RS_SPREAD, comm, &rreq[j]),
                                    "spreading Reed-Solomon data (MPI_Irecv)");
            for (int j = 1; mrc == SCR_SUCCESS && j < k; j++)
                mrc = scr_mpi_check(MPI_Isend(acc_of(r, dd % 2, g, j), (int)len, MPI_BYTE, d->members[mod(me + j, N)],
                                              TAG_RS_SPREAD, comm, &sreq[j]), "spreading Reed-Solomon data (MPI_Isend)");
        }
        for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
            uint64_t off = p0 + (uint64_t)g * piece;
            size_t len = r->chunk - off < piece ? (size_t)(r->chunk - off) : piece;
            MPI_Request *sreq = reqs + g * k, *rreq = reqs + (G + g) * k;
            mrc = wait_all(k, rreq, "spreading Reed-Solomon data (MPI_Waitall)");
            for (int j = 1; mrc == SCR_SUCCESS && rc == SCR_SUCCESS && j < k; j++) {
                rc = scr_pwrite_full(r->fd, acc_of(r, (dd + 1) % 2, g, j), len, r->hlen + (uint64_t)j * r->chunk + off,
                                     r->path);
                if (rc == SCR_SUCCESS)
                    scr_crc_parts_add(r->blocks, (uint64_t)j * r->chunk + off, acc_of(r, (dd + 1) % 2, g, j), len);
            }
            if (mrc == SCR_SUCCESS) mrc = wait_all(k, sreq, "spreading Reed-Solomon data (MPI_Waitall)");
        }
    }
    if (mrc != SCR_SUCCESS) scr_stream_abandon(reqs, nreq);
    *io_rc = rc;
    return mrc;
}

/* After the ring: this member's files' CRCs (from the bytes the ring read)
 * go into the filemap and into its metas, the members share their metas
 * again, and the header is written anew in place (its CRC fields have a
 * fixed width); *out_header_crc is its CRC. Every member of the set calls
 * it; the outcome is in *io_rc. */
static int settle_rs_crcs(struct scr_run *run, const struct scr_reddesc *d, int id, const scr_dataset *dset,
                          struct rs_files *f, uint64_t chunk, int fd, const char *path, uint64_t hlen,
                          uint32_t *out_header_crc, int *io_rc)
{
    int rc = *io_rc;
    uint32_t *crcs = calloc((size_t)f->count + 1, sizeof(uint32_t));
    scr_kvtree *known = scr_kvtree_new(), *members = NULL, *header = NULL;
    if (rc == SCR_SUCCESS && (crcs == NULL || known == NULL)) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_crc_record_read(run, id, f->paths, f->count, f->crc, crcs);
    if (rc == SCR_SUCCESS) rc = scr_crc_fix_width(f->metas, crcs);
    scr_kvtree *slot = rc == SCR_SUCCESS ? scr_kvtree_set_kv_int(known, "MEMBER", d->set_rank) : NULL;
    if (rc == SCR_SUCCESS && (slot == NULL || scr_kvtree_copy(slot, f->metas) != SCR_SUCCESS)) rc = SCR_ERR_NOMEM;
    /* a member that failed still takes part, with what it knows */
    int mrc = share_metas(d, known, &members);
    if (rc == SCR_SUCCESS) rc = mrc;
    if (rc == SCR_SUCCESS) rc = build_header(run, d, dset, members, d->set_rank, chunk, &header);
    if (rc == SCR_SUCCESS) rc = scr_redundancy_file_write_header(fd, path, header, hlen, out_header_crc);
    scr_kvtree_delete(known);
    scr_kvtree_delete(members);
    scr_kvtree_delete(header);
    free(crcs);
    *io_rc = rc;
    return mrc;
}

int scr_redundancy_apply_rs(struct scr_run *run, const struct scr_reddesc *d, int id, char *bufs[2])
{
    int N = d->set_size, k = d->failures, dd = N - k, me = d->set_rank, ok = 0, fd = -1;
    struct rs_files f = {0};
    scr_rs_code code = {0};
    scr_kvtree *known = NULL, *members = NULL, *header = NULL;
    char *path = NULL, *acc = NULL;
    MPI_Request *reqs = NULL;
    scr_crc_parts *blocks = NULL;
    uint64_t hlen = 0;
    uint32_t header_crc = 0, blocks_crc = 0;
    const scr_dataset *dset = NULL;
    int rc = rs_files_mine(run, id, &f);
    /* the header is written before the CRCs are known, and again after */
    if (rc == SCR_SUCCESS && run->crc_in_cache) rc = scr_crc_fix_width(f.metas, NULL);
    if (rc == SCR_SUCCESS) rc = scr_rs_init(&code, dd, k);
    if (rc == SCR_SUCCESS) rc = scr_filemap_get_dataset(run->map, id, run->rank, &dset);
    if (rc == SCR_SUCCESS) {
        known = scr_kvtree_new();
        scr_kvtree *slot = known ? scr_kvtree_set_kv_int(known, "MEMBER", me) : NULL;
        if (slot == NULL || scr_kvtree_copy(slot, f.metas) != SCR_SUCCESS) rc = SCR_ERR_NOMEM;
    }
    unsigned long long total = f.total, most = 0;
    int mrc = scr_mpi_check(MPI_Allreduce(&total, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, d->set),
                            "finding the largest member of an RS set");
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    uint64_t chunk = (most + (uint64_t)dd - 1) / (uint64_t)dd;

    rc = track_crcs(run, &f, chunk, k, &blocks);
    if (rc == SCR_SUCCESS) rc = share_metas(d, known, &members);
    if (rc == SCR_SUCCESS) rc = build_header(run, d, dset, members, me, chunk, &header);
    if (rc == SCR_SUCCESS) rc = rs_path(run, d, id, &path);
    if (rc == SCR_SUCCESS) rc = create_rs_file(run, id, path, header, chunk, k, &fd, &hlen, &header_crc);
    /* two sets of k accumulators for every piece in flight */
    size_t piece = run->mpi_buf_size;
    int group = scr_stream_depth(run->file_buf_size, piece);
    while (group > 1 && (size_t)(2 * k * group) * piece > 2 * run->file_buf_size) group--;
    acc = malloc((size_t)(2 * k * group) * piece);
    reqs = malloc((size_t)(2 * k * group) * sizeof(MPI_Request));
    if (rc == SCR_SUCCESS && (acc == NULL || reqs == NULL)) {
        scr_err("out of memory for Reed-Solomon buffers of %zu bytes", (size_t)(2 * k * group) * piece);
        rc = SCR_ERR_NOMEM;
    }
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    struct rs_ring ring = {run, d, &code, &f, chunk, fd, path, hlen, acc, group, bufs[0], reqs, blocks};
    mrc = rs_ring_encode(&ring, &rc);
    if (mrc == SCR_SUCCESS && run->crc_in_cache)
        mrc = settle_rs_crcs(run, d, id, dset, &f, chunk, fd, path, hlen, &header_crc, &rc);
    if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS && run->crc_in_cache &&
        scr_crc_parts_get(blocks, 0, &blocks_crc) != SCR_SUCCESS) {
        scr_err("%s: the CRC32 of its blocks could not be computed while they were written", path);
        rc = SCR_FAILURE;
    }
    uint32_t crc = scr_crc32_combine(header_crc, blocks_crc, chunk * (uint64_t)k);
    if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
        rc = finish_rs_file(run, id, path, fd, hlen + chunk * (uint64_t)k, run->crc_in_cache, crc, bufs[1],
                            run->file_buf_size);
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    if (fd >= 0) close(fd);
    scr_crc_parts_free(blocks);
    free(acc);
    free(reqs);
    rs_files_close(&f);
    scr_rs_free(&code);
    scr_kvtree_delete(known);
    scr_kvtree_delete(members);
    scr_kvtree_delete(header);
    free(path);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* --- recovery ---------------------------------------------------------------------- */

/* The member that holds block b of stripe s (data 0..dd-1, then parity). */
static int block_owner(int s, int b, int N, int k, int dd)
{
    return b < dd ? mod(s + k + b, N) : mod(s + (b - dd), N);
}

/* Where block b of stripe s lives in its owner's data (chunk) or RS file (slot). */
static int block_slot(int s, int b, int N, int k, int dd)
{
    (void)s; (void)N; (void)k;
    return b < dd ? b : b - dd;
}

/* Lost member: register its files and RS file from the shared metas, create them. */
static int prepare_lost(struct scr_run *run, const struct scr_reddesc *d, int id, const scr_kvtree *members,
                        const scr_kvtree *dset, uint64_t chunk, struct rs_files *f, char **path, int *fd,
                        uint64_t *hlen, uint32_t *header_crc)
{
    memset(f, 0, sizeof(*f));
    const scr_kvtree *mine = scr_kvtree_get_kv_int(members, "MEMBER", d->set_rank);
    char *dsdir = NULL;
    scr_kvtree *header = NULL;
    int n = 0;
    int rc = (mine && scr_kvtree_util_get_int(mine, "FILES", &n) == SCR_SUCCESS) ? SCR_SUCCESS : SCR_ERR_FORMAT;
    if (rc != SCR_SUCCESS) scr_err("rank %d: no surviving record of its files", run->rank);
    if (rc == SCR_SUCCESS) rc = rs_files_alloc(f, n);
    if (rc == SCR_SUCCESS) rc = scr_cache_dataset_dir(run, id, &dsdir);
    /* a rank without files of its own still needs the directory for its RS file */
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dsdir, 0700);
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_dataset(run->map, id, run->rank, dset);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        const scr_meta *m = scr_kvtree_get_kv_int(mine, "FILE", i);
        const char *rel = NULL;
        uint64_t size = 0;
        f->count = i + 1;
        rc = (m && scr_meta_get_filename(m, &rel) == SCR_SUCCESS && scr_meta_get_filesize(m, &size) == SCR_SUCCESS)
                 ? SCR_SUCCESS : SCR_ERR_FORMAT;
        if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, rel, &f->paths[i]);
        if (rc == SCR_SUCCESS) rc = scr_filemap_add_file(run->map, id, run->rank, f->paths[i]);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(run->map, id, run->rank, f->paths[i], m);
        f->parts[i].path = f->paths[i];
        f->parts[i].size = size;
        f->total += size;
    }
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    for (int i = 0; rc == SCR_SUCCESS && i < f->count; i++) {
        char *dir = NULL;
        rc = scr_path_dirname(f->paths[i], &dir);
        if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0700);
        free(dir);
        if (rc == SCR_SUCCESS && (f->parts[i].fd = open(f->paths[i], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
            scr_err("cannot create %s: %s", f->paths[i], strerror(errno));
            rc = SCR_ERR_IO;
        }
        if (rc == SCR_SUCCESS && ftruncate(f->parts[i].fd, (off_t)f->parts[i].size) != 0) rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) rc = build_header(run, d, dset, members, d->set_rank, chunk, &header);
    if (rc == SCR_SUCCESS) rc = rs_path(run, d, id, path);
    if (rc == SCR_SUCCESS) rc = create_rs_file(run, id, *path, header, chunk, d->failures, fd, hlen, header_crc);
    scr_kvtree_delete(header);
    free(dsdir);
    return rc;
}

/* Survivor: open its files and RS file; add the metas it keeps of lost members. */
static int prepare_survivor(struct scr_run *run, int id, const unsigned char *lost, int N, struct rs_files *f,
                            char **path, int *fd, uint64_t *hlen, scr_kvtree *known, scr_kvtree **out_header)
{
    int rc = rs_files_mine(run, id, f);
    const char **files = NULL;
    int n = 0;
    if (rc == SCR_SUCCESS) rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    for (int i = 0; rc == SCR_SUCCESS && i < n && *path == NULL; i++) {
        const scr_meta *m = NULL;
        if (scr_filemap_get_meta(run->map, id, run->rank, files[i], &m) == SCR_SUCCESS &&
            scr_meta_check_filetype(m, SCR_META_TYPE_RS) == SCR_SUCCESS && (*path = strdup(files[i])) == NULL)
            rc = SCR_ERR_NOMEM;
    }
    free(files);
    if (rc == SCR_SUCCESS && *path == NULL) rc = SCR_ERR_NOTFOUND;
    if (rc == SCR_SUCCESS && (*fd = open(*path, O_RDONLY | O_CLOEXEC)) < 0) rc = SCR_ERR_IO;
    scr_kvtree *h = NULL;
    if (rc == SCR_SUCCESS) rc = scr_redundancy_file_read_header(*fd, *path, &h, hlen);
    /* the metas this member keeps of lost members to its left */
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(h, "PARTNERS")); rc == SCR_SUCCESS && e;
         e = scr_kvtree_elem_next(e)) {
        int m = atoi(scr_kvtree_elem_key(e));
        if (m >= 0 && m < N && lost[m]) {
            scr_kvtree *slot = scr_kvtree_set_kv_int(known, "MEMBER", m);
            if (slot == NULL || scr_kvtree_merge(slot, scr_kvtree_elem_hash(e)) != SCR_SUCCESS) rc = SCR_ERR_NOMEM;
        }
    }
    if (rc != SCR_SUCCESS) {
        if (*path) scr_err("rank %d: cannot use its RS file %s", run->rank, *path);
        scr_kvtree_delete(h);
        return rc;
    }
    *out_header = h;
    return SCR_SUCCESS;
}

/* A lost member's rebuilt block: data into its files (data), or parity into
 * its RS file at hlen; at is the offset in the files' logical file or among
 * the RS file's blocks. What is written passes through the trackers. */
static int write_block(const struct rs_files *f, int fd, const char *path, uint64_t hlen, scr_crc_parts *parity,
                       int data, uint64_t at, const char *buf, size_t len)
{
    int rc = data ? scr_padfile_write(f->parts, (size_t)f->count, at, buf, len)
                  : scr_pwrite_full(fd, buf, len, hlen + at, path);
    if (rc == SCR_SUCCESS) scr_crc_parts_add(data ? f->crc : parity, at, buf, len);
    return rc;
}

int scr_redundancy_recover_rs(struct scr_run *run, const struct scr_reddesc *d, int id)
{
    int N = d->set_size, k = d->failures, dd = N - k, me = d->set_rank, ok = 0, fd = -1;
    unsigned char *lost = calloc((size_t)N, 1);
    unsigned char am_lost = !scr_cache_rank_is_intact(run, id);
    struct rs_files f = {0};
    scr_rs_code code = {0};
    scr_kvtree *known = scr_kvtree_new(), *members = NULL, *header = NULL, *info = NULL;
    char *path = NULL, *blocks = NULL, **outs = NULL;
    scr_crc_parts *parity = NULL; /* what a lost member writes of its RS file, when tracked */
    uint64_t hlen = 0, chunk = 0;
    uint32_t header_crc = 0, parity_crc = 0;
    int rc = (lost && known) ? SCR_SUCCESS : SCR_ERR_NOMEM;
    int mrc = scr_mpi_check(MPI_Allgather(&am_lost, 1, MPI_UNSIGNED_CHAR, lost, 1, MPI_UNSIGNED_CHAR, d->set),
                            "listing lost members");
    if (mrc != SCR_SUCCESS || lost == NULL) goto done;
    if (rc == SCR_SUCCESS) rc = scr_rs_init(&code, dd, k);
    if (!am_lost && rc == SCR_SUCCESS) {
        rc = prepare_survivor(run, id, lost, N, &f, &path, &fd, &hlen, known, &header);
        scr_kvtree *slot = rc == SCR_SUCCESS ? scr_kvtree_set_kv_int(known, "MEMBER", me) : NULL;
        if (rc == SCR_SUCCESS && (slot == NULL || scr_kvtree_copy(slot, f.metas) != SCR_SUCCESS)) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_kvtree_util_get_uint64(header, "CHUNK", &chunk);
        if (rc == SCR_SUCCESS && (scr_kvtree_util_set_uint64(known, "CHUNK", chunk) != SCR_SUCCESS ||
                                  scr_kvtree_set(known, "DSET", scr_kvtree_dup(scr_kvtree_get(header, "DSET"))) == NULL))
            rc = SCR_ERR_NOMEM;
    }
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc == SCR_SUCCESS && ok) mrc = share_metas(d, known, &members);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    if (am_lost) {
        rc = scr_kvtree_util_get_uint64(members, "CHUNK", &chunk);
        if (rc == SCR_SUCCESS)
            rc = prepare_lost(run, d, id, members, scr_kvtree_get(members, "DSET"), chunk, &f, &path, &fd, &hlen,
                              &header_crc);
        /* the rebuilt files are checked against the CRCs the survivors kept as they are written */
        if (rc == SCR_SUCCESS) rc = track_crcs(run, &f, chunk, k, &parity);
    }
    size_t bufsize = run->mpi_buf_size;
    blocks = malloc(bufsize * (size_t)(dd + k));
    outs = calloc((size_t)k, sizeof(char *));
    if (blocks == NULL || outs == NULL) rc = SCR_ERR_NOMEM;
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* stripe by stripe, piece by piece: survivors send, the first lost member decodes */
    for (uint64_t p = 0; mrc == SCR_SUCCESS && p < chunk; p += bufsize) {
        size_t len = chunk - p < bufsize ? (size_t)(chunk - p) : bufsize;
        for (int s = 0; mrc == SCR_SUCCESS && s < N; s++) {
            int lost_blocks[SCR_RS_MAX_BLOCKS], nlost = 0, surv[SCR_RS_MAX_BLOCKS], nsurv = 0;
            for (int b = 0; b < N; b++) {
                if (lost[block_owner(s, b, N, k, dd)]) lost_blocks[nlost++] = b;
                else if (nsurv < dd) surv[nsurv++] = b;
            }
            if (nlost == 0) continue;
            int rebuilder = block_owner(s, lost_blocks[0], N, k, dd);
            if (me == rebuilder) {
                scr_rs_decoder dec = {0};
                int drc = scr_rs_decoder_init(&code, &dec, lost_blocks, nlost, surv);
                const void *in[SCR_RS_MAX_BLOCKS];
                void *out[SCR_RS_MAX_BLOCKS];
                for (int i = 0; i < nsurv && mrc == SCR_SUCCESS; i++) {
                    in[i] = blocks + (size_t)i * bufsize;
                    mrc = scr_mpi_check(MPI_Recv(blocks + (size_t)i * bufsize, (int)len, MPI_BYTE,
                                                 d->members[block_owner(s, surv[i], N, k, dd)], TAG_RS_REBUILD,
                                                 run->world, MPI_STATUS_IGNORE), "rebuilding with Reed-Solomon");
                }
                for (int r = 0; r < nlost; r++) out[r] = blocks + (size_t)(dd + r) * bufsize;
                if (drc == SCR_SUCCESS) drc = scr_rs_decode(&dec, len, in, out);
                if (rc == SCR_SUCCESS) rc = drc;
                scr_rs_decoder_free(&dec);
                for (int r = 0; r < nlost && mrc == SCR_SUCCESS; r++) {
                    int owner = block_owner(s, lost_blocks[r], N, k, dd), slot = block_slot(s, lost_blocks[r], N, k, dd);
                    if (owner != me) {
                        mrc = scr_mpi_check(MPI_Send(out[r], (int)len, MPI_BYTE, d->members[owner], TAG_RS_REBUILD + 1,
                                                     run->world), "rebuilding with Reed-Solomon");
                    } else if (rc == SCR_SUCCESS) {
                        rc = write_block(&f, fd, path, hlen, parity, lost_blocks[r] < dd, (uint64_t)slot * chunk + p,
                                         out[r], len);
                    }
                }
                continue;
            }
            /* a chosen survivor sends its block; another lost member takes its own */
            for (int i = 0; i < nsurv && mrc == SCR_SUCCESS; i++) {
                if (block_owner(s, surv[i], N, k, dd) != me) continue;
                int slot = block_slot(s, surv[i], N, k, dd);
                if (rc == SCR_SUCCESS && surv[i] < dd)
                    rc = scr_padfile_read(f.parts, (size_t)f.count, (uint64_t)slot * chunk + p, blocks, len);
                else if (rc == SCR_SUCCESS && pread(fd, blocks, len, (off_t)(hlen + (uint64_t)slot * chunk + p)) != (ssize_t)len)
                    rc = SCR_ERR_FORMAT;
                if (rc != SCR_SUCCESS) memset(blocks, 0, len);
                mrc = scr_mpi_check(MPI_Send(blocks, (int)len, MPI_BYTE, d->members[rebuilder], TAG_RS_REBUILD, run->world),
                                    "rebuilding with Reed-Solomon");
            }
            for (int r = 0; r < nlost && mrc == SCR_SUCCESS; r++) {
                if (block_owner(s, lost_blocks[r], N, k, dd) != me) continue;
                int slot = block_slot(s, lost_blocks[r], N, k, dd);
                mrc = scr_mpi_check(MPI_Recv(blocks, (int)len, MPI_BYTE, d->members[rebuilder], TAG_RS_REBUILD + 1,
                                             run->world, MPI_STATUS_IGNORE), "rebuilding with Reed-Solomon");
                if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
                    rc = write_block(&f, fd, path, hlen, parity, lost_blocks[r] < dd, (uint64_t)slot * chunk + p,
                                     blocks, len);
            }
        }
    }
    if (mrc == SCR_SUCCESS && am_lost && rc == SCR_SUCCESS) {
        for (int i = 0; rc == SCR_SUCCESS && i < f.count; i++) {
            if (fsync(f.parts[i].fd) != 0) {
                scr_err("fsync of %s failed: %s", f.paths[i], strerror(errno));
                rc = SCR_ERR_IO;
            }
        }
        if (rc == SCR_SUCCESS && run->crc_in_cache)
            rc = scr_crc_check_rebuilt(run, id, f.paths, f.count, f.crc, " rebuilt from Reed-Solomon");
        if (rc == SCR_SUCCESS && run->crc_in_cache && scr_crc_parts_get(parity, 0, &parity_crc) != SCR_SUCCESS) {
            scr_err("%s: the CRC32 of its blocks could not be computed while they were rebuilt", path);
            rc = SCR_FAILURE;
        }
        uint32_t crc = scr_crc32_combine(header_crc, parity_crc, chunk * (uint64_t)k);
        if (rc == SCR_SUCCESS)
            rc = finish_rs_file(run, id, path, fd, hlen + chunk * (uint64_t)k, run->crc_in_cache, crc, blocks,
                                bufsize * (size_t)(dd + k));
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_expected_files(run->map, id, run->rank, f.count + 1);
        if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    }
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    if (fd >= 0) close(fd);
    rs_files_close(&f);
    scr_crc_parts_free(parity);
    scr_rs_free(&code);
    scr_kvtree_delete(known);
    scr_kvtree_delete(members);
    scr_kvtree_delete(header);
    scr_kvtree_delete(info);
    free(path);
    free(blocks);
    free(outs);
    free(lost);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}
