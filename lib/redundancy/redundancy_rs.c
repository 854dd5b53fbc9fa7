/* redundancy_rs.c — Reed-Solomon: any k lost members of a set rebuilt.
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
 * The RS file <set rank+1>_of_<N>_in_<set id>.rs starts with a header
 * (redundancy_file.h: DSET, CHUNK, FAILURES, GROUP, CURRENT: this member's
 * file metas, PARTNERS: those of its k left neighbours), so the metas of a
 * lost member survive in a member to its right whenever at most k are lost.
 * To rebuild, for each stripe that lost blocks, the d lowest-numbered
 * surviving blocks go to the first lost member of the stripe, which decodes
 * and sends each lost block to its owner.
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
#include "redundancy_file.h"
#include "redundancy_schemes.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_RS 5101
#define TAG_RS_SPREAD 5102
#define TAG_RS_REBUILD 5103

/* An RS file being written or read: where, its descriptor, its header's length. */
struct rs_file {
    char *path;
    int fd;
    uint64_t hlen;
};

static void rs_file_close(struct rs_file *r)
{
    if (r->fd >= 0) close(r->fd);
    free(r->path);
    r->path = NULL;
    r->fd = -1;
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
    if (rc == SCR_SUCCESS)
        *out_all = all;
    else
        scr_kvtree_delete(all);
    return rc;
}

/* Member x's entry of the gathered metas (a scr_redundancy_metas_fn). */
static const scr_kvtree *member_metas(void *members, int x)
{
    return scr_kvtree_get_kv_int(members, "MEMBER", x);
}

/* A tree MEMBER <set rank> {desc}, to share. */
static int known_of(const struct scr_reddesc *d, const scr_kvtree *desc, scr_kvtree **out)
{
    scr_kvtree *known = scr_kvtree_new();
    scr_kvtree *slot = known ? scr_kvtree_set_kv_int(known, "MEMBER", d->set_rank) : NULL;
    if (slot == NULL || scr_kvtree_copy(slot, desc) != SCR_SUCCESS) {
        scr_kvtree_delete(known);
        return SCR_ERR_NOMEM;
    }
    *out = known;
    return SCR_SUCCESS;
}

/* The header of member m's RS file. */
static int build_header(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                        const scr_kvtree *dset, const scr_kvtree *members, int m, uint64_t chunk,
                        scr_kvtree **out)
{
    return scr_redundancy_file_rs_header(dset, ctx->ranks, chunk, d->failures, d->members,
                                         d->set_size, m, member_metas, (void *)members, out);
}

/* Create this member's RS file with its header (listed before it exists). */
static int create_rs_file(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                          const scr_kvtree *header, uint64_t chunk, struct rs_file *r,
                          uint32_t *out_header_crc)
{
    void *image = NULL;
    size_t len = 0;
    uint64_t data_len = chunk * (uint64_t)d->failures;
    int rc = scr_kvtree_file_image(header, &image, &len);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_redundancy_file_path(ctx, d, 1, &r->path)) != SCR_SUCCESS) goto out;
    rc = scr_redundancy_register_file(ctx, id, r->path, SCR_META_TYPE_RS, len + data_len, 0, 0, 0);
    if (rc != SCR_SUCCESS) goto out;
    if ((rc = scr_redundancy_file_create(r->path, image, len, data_len, &r->fd)) != SCR_SUCCESS)
        goto out;
    r->hlen = len;
    *out_header_crc = scr_crc32(0, image, len);
out:
    free(image);
    return rc;
}

/* Track the CRCs of f's files and of the blocks of an RS file of k chunks,
 * when files in cache get CRCs. */
static int track_crcs(const struct scr_redundancy_ctx *ctx, struct scr_redundancy_files *f,
                      uint64_t chunk, int k, scr_crc_parts **out_blocks)
{
    if (!ctx->crc_in_cache) return SCR_SUCCESS;
    scr_padfile_part blocks = {-1, "RS data", chunk * (uint64_t)k};
    int rc = scr_redundancy_files_track(ctx, f);
    if (rc != SCR_SUCCESS) return rc;
    *out_blocks = scr_crc_parts_new(&blocks, 1);
    return *out_blocks ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

/* Sync the RS file, read it back with SCR_CRC_ON_COPY, and mark it complete.
 * known: crc is the CRC of what was written. */
static int finish_rs_file(const struct scr_redundancy_ctx *ctx, int id, const struct rs_file *r,
                          uint64_t size, int known, uint32_t crc, char *buf, size_t bufsize)
{
    int rc = scr_fsync_fd(r->fd, r->path);
    if (rc != SCR_SUCCESS) return rc;
    if (ctx->crc_on_copy &&
        (rc = scr_redundancy_read_back(r->fd, r->path, buf, bufsize, known, &crc)) != SCR_SUCCESS)
        return rc;
    return scr_redundancy_register_file(ctx, id, r->path, SCR_META_TYPE_RS, size,
                                        known || ctx->crc_on_copy, crc, 1);
}

/* --- apply ---------------------------------------------------------------------------- */

/* The encoding ring of one member. */
struct rs_ring {
    const struct scr_redundancy_ctx *ctx;
    const struct scr_reddesc *d;
    const scr_rs_code *code;
    const struct scr_redundancy_files *f;
    uint64_t chunk;
    const struct rs_file *file; /* the RS file, its blocks at hlen */
    char *acc;                  /* 2 sets x group pieces x k accumulators, a piece each */
    int group;                  /* pieces in flight */
    char *readbuf;              /* group pieces */
    MPI_Request *reqs;          /* 2 x group x k */
    scr_crc_parts *blocks;      /* the CRC of the RS file's blocks as written, when tracked */
};

/* Accumulator j of piece g in set s (0 or 1). */
static char *acc_of(const struct rs_ring *r, int s, int g, int j)
{
    int k = r->d->failures;
    return r->acc + ((size_t)(s * r->group + g) * (size_t)k + (size_t)j) * r->ctx->piece;
}

/* Wait for n requests. */
static int wait_all(int n, MPI_Request *reqs, const char *what)
{
    return scr_mpi_waitall(n, reqs, what);
}

/* Step t of the ring for the n pieces of a group starting at p0: my chunk
 * t is data block t of stripe me-k-t. */
static int ring_step(const struct rs_ring *r, uint64_t p0, int n, int t, int *io_rc)
{
    const struct scr_reddesc *d = r->d;
    int k = d->failures, G = r->group, rc = *io_rc, mrc = SCR_SUCCESS;
    int rhs = scr_reddesc_rhs(d), lhs = scr_reddesc_lhs(d);
    size_t piece = r->ctx->piece;
    const struct scr_padset *set = &r->f->set;
    for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
        uint64_t off = p0 + (uint64_t)g * piece;
        size_t len = r->chunk - off < piece ? (size_t)(r->chunk - off) : piece;
        MPI_Request *sreq = r->reqs + g * k, *rreq = r->reqs + (G + g) * k;
        char *work[SCR_RS_MAX_BLOCKS], *in = r->readbuf + (size_t)g * piece;
        for (int j = 0; j < k; j++) work[j] = acc_of(r, t % 2, g, j);
        if (rc == SCR_SUCCESS)
            rc = scr_padfile_read(set->parts, (size_t)set->count, (uint64_t)t * r->chunk + off, in,
                                  len);
        if (rc == SCR_SUCCESS) scr_crc_parts_add(r->f->crc, (uint64_t)t * r->chunk + off, in, len);
        if (t == 0) {
            for (int j = 0; j < k; j++) memset(work[j], 0, len);
        } else {
            mrc = wait_all(k, rreq, "computing Reed-Solomon data (MPI_Waitall)");
        }
        if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
            rc = scr_rs_encode_update(r->code, len, t, in, (void *const *)work);
        /* the other set was sent last step: once it has gone, the next step arrives in it */
        if (mrc == SCR_SUCCESS)
            mrc = wait_all(k, sreq, "computing Reed-Solomon data (MPI_Waitall)");
        for (int j = 0; mrc == SCR_SUCCESS && j < k; j++)
            mrc = scr_mpi_check(MPI_Irecv(acc_of(r, (t + 1) % 2, g, j), (int)len, MPI_BYTE, lhs,
                                          TAG_RS + j, r->ctx->world, &rreq[j]),
                                "computing Reed-Solomon data (MPI_Irecv)");
        for (int j = 0; mrc == SCR_SUCCESS && j < k; j++)
            mrc = scr_mpi_check(
                MPI_Isend(work[j], (int)len, MPI_BYTE, rhs, TAG_RS + j, r->ctx->world, &sreq[j]),
                "computing Reed-Solomon data (MPI_Isend)");
    }
    *io_rc = rc;
    return mrc;
}

/* After the last step of a group: the arrivals are my own stripe's parity;
 * block 0 is kept, the others spread to the members that keep them. */
static int ring_spread(const struct rs_ring *r, uint64_t p0, int n, int *io_rc)
{
    const struct scr_reddesc *d = r->d;
    int N = d->set_size, k = d->failures, dd = N - k, me = d->set_rank, G = r->group, rc = *io_rc;
    int mrc = SCR_SUCCESS;
    size_t piece = r->ctx->piece;
    MPI_Comm comm = r->ctx->world;
    const struct rs_file *file = r->file;
    for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
        uint64_t off = p0 + (uint64_t)g * piece;
        size_t len = r->chunk - off < piece ? (size_t)(r->chunk - off) : piece;
        MPI_Request *sreq = r->reqs + g * k, *rreq = r->reqs + (G + g) * k;
        mrc = wait_all(k, rreq, "computing Reed-Solomon data (MPI_Waitall)");
        if (mrc == SCR_SUCCESS)
            mrc = wait_all(k, sreq, "computing Reed-Solomon data (MPI_Waitall)");
        if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
            rc = scr_pwrite_full(file->fd, acc_of(r, dd % 2, g, 0), len, file->hlen + off,
                                 file->path);
        if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
            scr_crc_parts_add(r->blocks, off, acc_of(r, dd % 2, g, 0), len);
        for (int j = 1; mrc == SCR_SUCCESS && j < k; j++)
            mrc = scr_mpi_check(MPI_Irecv(acc_of(r, (dd + 1) % 2, g, j), (int)len, MPI_BYTE,
                                          d->members[scr_redundancy_mod(me - j, N)], TAG_RS_SPREAD,
                                          comm, &rreq[j]),
                                "spreading Reed-Solomon data (MPI_Irecv)");
        for (int j = 1; mrc == SCR_SUCCESS && j < k; j++)
            mrc = scr_mpi_check(MPI_Isend(acc_of(r, dd % 2, g, j), (int)len, MPI_BYTE,
                                          d->members[scr_redundancy_mod(me + j, N)], TAG_RS_SPREAD,
                                          comm, &sreq[j]),
                                "spreading Reed-Solomon data (MPI_Isend)");
    }
    for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
        uint64_t off = p0 + (uint64_t)g * piece;
        size_t len = r->chunk - off < piece ? (size_t)(r->chunk - off) : piece;
        MPI_Request *sreq = r->reqs + g * k, *rreq = r->reqs + (G + g) * k;
        mrc = wait_all(k, rreq, "spreading Reed-Solomon data (MPI_Waitall)");
        for (int j = 1; mrc == SCR_SUCCESS && rc == SCR_SUCCESS && j < k; j++) {
            uint64_t at = (uint64_t)j * r->chunk + off;
            rc = scr_pwrite_full(file->fd, acc_of(r, (dd + 1) % 2, g, j), len, file->hlen + at,
                                 file->path);
            if (rc == SCR_SUCCESS)
                scr_crc_parts_add(r->blocks, at, acc_of(r, (dd + 1) % 2, g, j), len);
        }
        if (mrc == SCR_SUCCESS)
            mrc = wait_all(k, sreq, "spreading Reed-Solomon data (MPI_Waitall)");
    }
    *io_rc = rc;
    return mrc;
}

/* The ring of apply. Pieces go in groups: step t of every piece of a group
 * is sent before step t+1 of any, so a member has a group's worth of slack
 * before it waits for its left neighbour, and its reads and writes overlap
 * the transfers. Every piece of a group has two sets of k accumulators: one
 * that arrived and is added to and sent, one that the next step arrives in.
 * Returns the MPI status; a failed read or write (in *io_rc) lets the ring
 * complete. */
static int rs_ring_encode(const struct rs_ring *r, int *io_rc)
{
    int k = r->d->failures, dd = r->d->set_size - k, G = r->group, mrc = SCR_SUCCESS;
    size_t piece = r->ctx->piece;
    int nreq = 2 * G * k; /* piece g: sends at g*k, receives at (G+g)*k */
    for (int i = 0; i < nreq; i++) r->reqs[i] = MPI_REQUEST_NULL;
    for (uint64_t p0 = 0; mrc == SCR_SUCCESS && p0 < r->chunk; p0 += (uint64_t)G * piece) {
        int n = (int)((r->chunk - p0 + piece - 1) / piece);
        if (n > G) n = G;
        for (int t = 0; mrc == SCR_SUCCESS && t < dd; t++) mrc = ring_step(r, p0, n, t, io_rc);
        if (mrc == SCR_SUCCESS) mrc = ring_spread(r, p0, n, io_rc);
    }
    if (mrc != SCR_SUCCESS) scr_stream_abandon(r->reqs, nreq);
    return mrc;
}

/* This member's CRCs (from the bytes the ring read) in the filemap and in
 * its metas, as a tree to share. */
static int known_crcs(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                      struct scr_redundancy_files *f, scr_kvtree **out_known)
{
    uint32_t *crcs = calloc((size_t)f->set.count + 1, sizeof(uint32_t));
    if (crcs == NULL) return SCR_ERR_NOMEM;
    int rc = scr_redundancy_record_read(ctx, id, f, crcs);
    if (rc == SCR_SUCCESS) rc = scr_redundancy_fix_width(f->desc, crcs);
    if (rc == SCR_SUCCESS) rc = known_of(d, f->desc, out_known);
    free(crcs);
    return rc;
}

/* The header of this member's RS file built again from the shared metas
 * and written in place. */
static int rewrite_header(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                          const scr_dataset *dset, const scr_kvtree *members, uint64_t chunk,
                          const struct rs_file *r, uint32_t *out_header_crc)
{
    scr_kvtree *header = NULL;
    int rc = build_header(ctx, d, dset, members, d->set_rank, chunk, &header);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_redundancy_file_write_header(r->fd, r->path, header, r->hlen, out_header_crc);
    scr_kvtree_delete(header);
    return rc;
}

/* After the ring: this member's files' CRCs go into the filemap and into
 * its metas, the members share their metas again, and the header is written
 * anew in place (its CRC fields have a fixed width); *out_header_crc is its
 * CRC. Every member of the set calls it; the outcome is in *io_rc. */
static int settle_crcs(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                       const scr_dataset *dset, struct scr_redundancy_files *f, uint64_t chunk,
                       const struct rs_file *r, uint32_t *out_header_crc, int *io_rc)
{
    int rc = *io_rc;
    scr_kvtree *known = NULL, *members = NULL;
    if (rc == SCR_SUCCESS) rc = known_crcs(ctx, d, id, f, &known);
    /* a member that failed still takes part, with what it knows */
    int mrc = share_metas(d, known, &members);
    if (rc == SCR_SUCCESS)
        rc = mrc != SCR_SUCCESS ? mrc
                                : rewrite_header(ctx, d, dset, members, chunk, r, out_header_crc);
    scr_kvtree_delete(known);
    scr_kvtree_delete(members);
    *io_rc = rc;
    return mrc;
}

/* This member's files, opened and described (CRC fields of fixed width:
 * the header is written before the CRCs are known, and again after). */
static int open_mine(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                     struct scr_redundancy_files *f, scr_kvtree **out_known,
                     const scr_dataset **out_dset)
{
    int rc = scr_redundancy_files_mine(ctx, id, O_RDONLY, f);
    if (rc != SCR_SUCCESS) return rc;
    if (ctx->crc_in_cache && (rc = scr_redundancy_fix_width(f->desc, NULL)) != SCR_SUCCESS)
        return rc;
    if ((rc = scr_filemap_get_dataset(ctx->map, id, ctx->rank, out_dset)) != SCR_SUCCESS) return rc;
    return known_of(d, f->desc, out_known);
}

/* This member's header from the shared metas, and its RS file created with it. */
static int start_rs_file(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                         const scr_dataset *dset, const scr_kvtree *members, uint64_t chunk,
                         struct rs_file *r, uint32_t *out_header_crc)
{
    scr_kvtree *header = NULL;
    int rc = build_header(ctx, d, dset, members, d->set_rank, chunk, &header);
    if (rc != SCR_SUCCESS) return rc;
    rc = create_rs_file(ctx, d, id, header, chunk, r, out_header_crc);
    scr_kvtree_delete(header);
    return rc;
}

/* The buffers of the ring: two sets of k accumulators for every piece in
 * flight, as many as fit in the file buffers. */
static int ring_buffers(const struct scr_redundancy_ctx *ctx, int k, char **out_acc,
                        MPI_Request **out_reqs, int *out_group)
{
    int group = scr_stream_depth(ctx->buf_size, ctx->piece);
    while (group > 1 && (size_t)(2 * k * group) * ctx->piece > 2 * ctx->buf_size) group--;
    *out_acc = malloc((size_t)(2 * k * group) * ctx->piece);
    *out_reqs = malloc((size_t)(2 * k * group) * sizeof(MPI_Request));
    *out_group = group;
    if (*out_acc == NULL || *out_reqs == NULL) {
        scr_err("out of memory for Reed-Solomon buffers of %zu bytes",
                (size_t)(2 * k * group) * ctx->piece);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* The RS file r, its header and k blocks of chunk bytes written, synced and
 * listed complete; with CRCs in cache, listed with its CRC: header_crc
 * combined with that of the blocks, which blocks computed as they were
 * written. */
static int complete_rs_file(const struct scr_redundancy_ctx *ctx, int id, const struct rs_file *r,
                            uint64_t chunk, int k, uint32_t header_crc, const scr_crc_parts *blocks)
{
    uint32_t blocks_crc = 0;
    if (ctx->crc_in_cache && scr_crc_parts_get(blocks, 0, &blocks_crc) != SCR_SUCCESS) {
        scr_err("%s: the CRC32 of its blocks could not be computed while they were written",
                r->path);
        return SCR_FAILURE;
    }
    uint32_t crc = scr_crc32_combine(header_crc, blocks_crc, chunk * (uint64_t)k);
    return finish_rs_file(ctx, id, r, r->hlen + chunk * (uint64_t)k, ctx->crc_in_cache, crc,
                          ctx->bufs[1], ctx->buf_size);
}

int scr_redundancy_rs_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                            int id)
{
    int N = d->set_size, k = d->failures, dd = N - k, ok = 0, group = 0;
    struct scr_redundancy_files f = {0};
    struct rs_file file = {NULL, -1, 0};
    scr_rs_code code = {0};
    scr_kvtree *known = NULL, *members = NULL;
    char *acc = NULL;
    MPI_Request *reqs = NULL;
    scr_crc_parts *blocks = NULL;
    uint32_t header_crc = 0;
    const scr_dataset *dset = NULL;
    int rc = open_mine(ctx, d, id, &f, &known, &dset);
    if (rc == SCR_SUCCESS) rc = scr_rs_init(&code, dd, k);
    unsigned long long most = 0;
    /* all ranks of the set agree, and size the chunks by the largest member: */
    int mrc = scr_comm_most_and_all_true(f.set.total, rc == SCR_SUCCESS, d->set, &most, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    uint64_t chunk = (most + (uint64_t)dd - 1) / (uint64_t)dd;

    rc = track_crcs(ctx, &f, chunk, k, &blocks);
    /* a member that failed still takes part in the sharing */
    int src = share_metas(d, rc == SCR_SUCCESS ? known : NULL, &members);
    if (rc == SCR_SUCCESS)
        rc = src != SCR_SUCCESS
                 ? src
                 : start_rs_file(ctx, d, id, dset, members, chunk, &file, &header_crc);
    if (rc == SCR_SUCCESS) rc = ring_buffers(ctx, k, &acc, &reqs, &group);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    struct rs_ring ring = {ctx, d, &code, &f, chunk, &file, acc, group, ctx->bufs[0], reqs, blocks};
    mrc = rs_ring_encode(&ring, &rc);
    if (mrc == SCR_SUCCESS && ctx->crc_in_cache)
        mrc = settle_crcs(ctx, d, id, dset, &f, chunk, &file, &header_crc, &rc);
    if (mrc != SCR_SUCCESS) goto done;
    if (rc == SCR_SUCCESS) rc = complete_rs_file(ctx, id, &file, chunk, k, header_crc, blocks);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    rs_file_close(&file);
    scr_crc_parts_free(blocks);
    free(acc);
    free(reqs);
    scr_redundancy_files_close(&f);
    scr_rs_free(&code);
    scr_kvtree_delete(known);
    scr_kvtree_delete(members);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* --- rebuild -------------------------------------------------------------------------- */

/* The member that holds block b of stripe s (data 0..dd-1, then parity). */
static int block_owner(int s, int b, int N, int k, int dd)
{
    return b < dd ? scr_redundancy_mod(s + k + b, N) : scr_redundancy_mod(s + (b - dd), N);
}

/* Where block b lives in its owner's data (chunk) or RS file (slot). */
static int block_slot(int b, int dd)
{
    return b < dd ? b : b - dd;
}

/* Lost member: register its files and RS file from the shared metas (with
 * the chunk size), create them, and track what is written into them. */
static int prepare_lost(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                        const scr_kvtree *members, struct scr_redundancy_files *f,
                        struct rs_file *r, uint64_t *out_chunk, scr_crc_parts **out_parity,
                        uint32_t *out_header_crc)
{
    const scr_kvtree *mine = scr_kvtree_get_kv_int(members, "MEMBER", d->set_rank);
    const scr_kvtree *dset = scr_kvtree_get(members, "DSET");
    uint64_t chunk = 0;
    int n = 0;
    if (mine == NULL || scr_kvtree_util_get_int(mine, "FILES", &n) != SCR_SUCCESS ||
        scr_kvtree_util_get_uint64(members, "CHUNK", &chunk) != SCR_SUCCESS) {
        scr_err("rank %d: no surviving record of its files", ctx->rank);
        return SCR_ERR_FORMAT;
    }
    /* a rank without files of its own still needs the directory for its RS file */
    int rc = scr_mkdir_p(ctx->dsdir, 0700);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_filemap_set_dataset(ctx->map, id, ctx->rank, dset)) != SCR_SUCCESS) return rc;
    if ((rc = scr_redundancy_files_register(ctx, id, ctx->rank, mine, NULL, f)) != SCR_SUCCESS)
        return rc;
    if ((rc = scr_redundancy_save_filemap(ctx)) != SCR_SUCCESS) return rc;
    if ((rc = scr_padset_open(&f->set, O_RDWR | O_CREAT | O_TRUNC)) != SCR_SUCCESS) return rc;
    if ((rc = scr_padset_truncate(&f->set)) != SCR_SUCCESS) return rc;
    if ((rc = start_rs_file(ctx, d, id, dset, members, chunk, r, out_header_crc)) != SCR_SUCCESS)
        return rc;
    *out_chunk = chunk;
    /* the rebuilt files are checked against the CRCs the survivors kept as they are written */
    return track_crcs(ctx, f, chunk, d->failures, out_parity);
}

/* The metas a survivor keeps of lost members to its left (PARTNERS of its
 * header), added to known. */
static int add_kept_metas(const scr_kvtree *header, const unsigned char *lost, int N,
                          scr_kvtree *known)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(header, "PARTNERS")); e;
         e = scr_kvtree_elem_next(e)) {
        int m = atoi(scr_kvtree_elem_key(e));
        if (m < 0 || m >= N || !lost[m]) continue;
        scr_kvtree *slot = scr_kvtree_set_kv_int(known, "MEMBER", m);
        if (slot == NULL || scr_kvtree_merge(slot, scr_kvtree_elem_hash(e)) != SCR_SUCCESS)
            return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* Survivor: open its files and RS file; add to known its own metas, those
 * it keeps of lost members, the chunk size (also in *out_chunk) and the
 * dataset. */
static int prepare_survivor(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                            int id, const unsigned char *lost, struct scr_redundancy_files *f,
                            struct rs_file *r, scr_kvtree *known, uint64_t *out_chunk)
{
    scr_kvtree *h = NULL;
    uint64_t chunk = 0;
    int rc = scr_redundancy_files_mine(ctx, id, O_RDONLY, f);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_redundancy_find_file(ctx, id, SCR_META_TYPE_RS, &r->path);
    if (rc == SCR_ERR_NOTFOUND) scr_err("rank %d has no RS file for dataset %d", ctx->rank, id);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_open_regular(r->path, O_RDONLY, 0, &r->fd)) != SCR_SUCCESS) {
        r->fd = -1;
        if (rc == SCR_ERR_NOTFOUND) scr_err("cannot open %s: %s", r->path, strerror(ENOENT));
        return SCR_ERR_IO;
    }
    if ((rc = scr_redundancy_file_read_header(r->fd, r->path, &h, &r->hlen)) != SCR_SUCCESS)
        return rc;
    rc = add_kept_metas(h, lost, d->set_size, known);
    scr_kvtree *slot =
        rc == SCR_SUCCESS ? scr_kvtree_set_kv_int(known, "MEMBER", d->set_rank) : NULL;
    if (rc == SCR_SUCCESS && (slot == NULL || scr_kvtree_copy(slot, f->desc) != SCR_SUCCESS))
        rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_get_uint64(h, "CHUNK", &chunk);
    if (rc == SCR_SUCCESS &&
        (scr_kvtree_util_set_uint64(known, "CHUNK", chunk) != SCR_SUCCESS ||
         scr_kvtree_set(known, "DSET", scr_kvtree_dup(scr_kvtree_get(h, "DSET"))) == NULL))
        rc = SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) scr_err("rank %d: cannot use its RS file %s", ctx->rank, r->path);
    *out_chunk = chunk;
    scr_kvtree_delete(h);
    return rc;
}

/* A lost member's rebuilt block: data into its files (data), or parity into
 * its RS file; at is the offset in the files' logical file or among the RS
 * file's blocks. What is written passes through the trackers. */
static int write_block(const struct scr_redundancy_files *f, const struct rs_file *r,
                       scr_crc_parts *parity, int data, uint64_t at, const char *buf, size_t len)
{
    int rc = data ? scr_padfile_write(f->set.parts, (size_t)f->set.count, at, buf, len)
                  : scr_pwrite_full(r->fd, buf, len, r->hlen + at, r->path);
    if (rc == SCR_SUCCESS) scr_crc_parts_add(data ? f->crc : parity, at, buf, len);
    return rc;
}

/* One rebuild: what every member knows and holds. */
struct rs_rebuild {
    const struct scr_redundancy_ctx *ctx;
    const struct scr_reddesc *d;
    const unsigned char *lost; /* by set rank */
    const scr_rs_code *code;
    const struct scr_redundancy_files *f;
    const struct rs_file *file;
    scr_crc_parts *parity; /* what a lost member writes of its RS file, when tracked */
    uint64_t chunk;
    char *blocks; /* dd + k pieces */
};

/* The first lost member of stripe s: receive the surviving blocks, decode,
 * keep its own and send the others' lost blocks to them. */
static int decode_stripe(const struct rs_rebuild *b, int s, uint64_t p, size_t len,
                         const int *lost_blocks, int nlost, const int *surv, int nsurv, int *io_rc)
{
    const struct scr_reddesc *d = b->d;
    int N = d->set_size, k = d->failures, dd = N - k, me = d->set_rank, mrc = SCR_SUCCESS;
    size_t bufsize = b->ctx->piece;
    scr_rs_decoder dec = {0};
    int drc = scr_rs_decoder_init(b->code, &dec, lost_blocks, nlost, surv);
    const void *in[SCR_RS_MAX_BLOCKS];
    void *out[SCR_RS_MAX_BLOCKS];
    for (int i = 0; i < nsurv && mrc == SCR_SUCCESS; i++) {
        in[i] = b->blocks + (size_t)i * bufsize;
        mrc = scr_mpi_check(MPI_Recv(b->blocks + (size_t)i * bufsize, (int)len, MPI_BYTE,
                                     d->members[block_owner(s, surv[i], N, k, dd)], TAG_RS_REBUILD,
                                     b->ctx->world, MPI_STATUS_IGNORE),
                            "rebuilding with Reed-Solomon");
    }
    for (int r = 0; r < nlost; r++) out[r] = b->blocks + (size_t)(dd + r) * bufsize;
    if (drc == SCR_SUCCESS && mrc == SCR_SUCCESS) drc = scr_rs_decode(&dec, len, in, out);
    if (*io_rc == SCR_SUCCESS) *io_rc = drc;
    scr_rs_decoder_free(&dec);
    for (int r = 0; r < nlost && mrc == SCR_SUCCESS; r++) {
        int owner = block_owner(s, lost_blocks[r], N, k, dd), slot = block_slot(lost_blocks[r], dd);
        if (owner != me)
            mrc = scr_mpi_check(MPI_Send(out[r], (int)len, MPI_BYTE, d->members[owner],
                                         TAG_RS_REBUILD + 1, b->ctx->world),
                                "rebuilding with Reed-Solomon");
        else if (*io_rc == SCR_SUCCESS)
            *io_rc = write_block(b->f, b->file, b->parity, lost_blocks[r] < dd,
                                 (uint64_t)slot * b->chunk + p, out[r], len);
    }
    return mrc;
}

/* Any other member of stripe s: a chosen survivor sends its block, another
 * lost member takes its own. */
static int serve_stripe(const struct rs_rebuild *b, int s, uint64_t p, size_t len, int rebuilder,
                        const int *lost_blocks, int nlost, const int *surv, int nsurv, int *io_rc)
{
    const struct scr_reddesc *d = b->d;
    int N = d->set_size, k = d->failures, dd = N - k, me = d->set_rank, mrc = SCR_SUCCESS;
    for (int i = 0; i < nsurv && mrc == SCR_SUCCESS; i++) {
        if (block_owner(s, surv[i], N, k, dd) != me) continue;
        uint64_t at = (uint64_t)block_slot(surv[i], dd) * b->chunk + p;
        if (*io_rc == SCR_SUCCESS)
            *io_rc = surv[i] < dd ? scr_padfile_read(b->f->set.parts, (size_t)b->f->set.count, at,
                                                     b->blocks, len)
                                  : scr_pread_full(b->file->fd, b->blocks, len, b->file->hlen + at,
                                                   b->file->path);
        if (*io_rc != SCR_SUCCESS) memset(b->blocks, 0, len);
        mrc = scr_mpi_check(MPI_Send(b->blocks, (int)len, MPI_BYTE, d->members[rebuilder],
                                     TAG_RS_REBUILD, b->ctx->world),
                            "rebuilding with Reed-Solomon");
    }
    for (int r = 0; r < nlost && mrc == SCR_SUCCESS; r++) {
        if (block_owner(s, lost_blocks[r], N, k, dd) != me) continue;
        uint64_t at = (uint64_t)block_slot(lost_blocks[r], dd) * b->chunk + p;
        mrc = scr_mpi_check(MPI_Recv(b->blocks, (int)len, MPI_BYTE, d->members[rebuilder],
                                     TAG_RS_REBUILD + 1, b->ctx->world, MPI_STATUS_IGNORE),
                            "rebuilding with Reed-Solomon");
        if (mrc == SCR_SUCCESS && *io_rc == SCR_SUCCESS)
            *io_rc = write_block(b->f, b->file, b->parity, lost_blocks[r] < dd, at, b->blocks, len);
    }
    return mrc;
}

/* Stripe by stripe, piece by piece: survivors send, the first lost member
 * of each stripe decodes. Returns the MPI status, the outcome in *io_rc. */
static int rebuild_stripes(const struct rs_rebuild *b, int *io_rc)
{
    int N = b->d->set_size, k = b->d->failures, dd = N - k, mrc = SCR_SUCCESS;
    size_t bufsize = b->ctx->piece;
    for (uint64_t p = 0; mrc == SCR_SUCCESS && p < b->chunk; p += bufsize) {
        size_t len = b->chunk - p < bufsize ? (size_t)(b->chunk - p) : bufsize;
        for (int s = 0; mrc == SCR_SUCCESS && s < N; s++) {
            int lost_blocks[SCR_RS_MAX_BLOCKS], nlost = 0, surv[SCR_RS_MAX_BLOCKS], nsurv = 0;
            for (int bl = 0; bl < N; bl++) {
                if (b->lost[block_owner(s, bl, N, k, dd)])
                    lost_blocks[nlost++] = bl;
                else if (nsurv < dd)
                    surv[nsurv++] = bl;
            }
            if (nlost == 0) continue;
            int rebuilder = block_owner(s, lost_blocks[0], N, k, dd);
            if (b->d->set_rank == rebuilder)
                mrc = decode_stripe(b, s, p, len, lost_blocks, nlost, surv, nsurv, io_rc);
            else
                mrc = serve_stripe(b, s, p, len, rebuilder, lost_blocks, nlost, surv, nsurv, io_rc);
        }
    }
    return mrc;
}

/* A lost member's files once every block arrived: synced, checked, listed complete. */
static int finish_lost(const struct rs_rebuild *b, int id, uint32_t header_crc)
{
    const struct scr_redundancy_ctx *ctx = b->ctx;
    int k = b->d->failures, dd = b->d->set_size - k;
    uint32_t parity_crc = 0;
    int rc = scr_padset_sync(&b->f->set);
    if (rc != SCR_SUCCESS) return rc;
    if (ctx->crc_in_cache) {
        rc = scr_redundancy_check_rebuilt(ctx, id, b->f, " rebuilt from Reed-Solomon");
        if (rc != SCR_SUCCESS) return rc;
        if (scr_crc_parts_get(b->parity, 0, &parity_crc) != SCR_SUCCESS) {
            scr_err("%s: the CRC32 of its blocks could not be computed while they were rebuilt",
                    b->file->path);
            return SCR_FAILURE;
        }
    }
    uint32_t crc = scr_crc32_combine(header_crc, parity_crc, b->chunk * (uint64_t)k);
    rc = finish_rs_file(ctx, id, b->file, b->file->hlen + b->chunk * (uint64_t)k, ctx->crc_in_cache,
                        crc, b->blocks, ctx->piece * (size_t)(dd + k));
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_filemap_set_expected_files(ctx->map, id, ctx->rank, b->f->set.count + 1)) !=
        SCR_SUCCESS)
        return rc;
    return scr_redundancy_save_filemap(ctx);
}

int scr_redundancy_rs_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                              int id, int lost)
{
    int N = d->set_size, k = d->failures, dd = N - k, ok = 0;
    unsigned char *lost_by_rank = calloc((size_t)N, 1), am_lost = lost != 0;
    struct scr_redundancy_files f = {0};
    struct rs_file file = {NULL, -1, 0};
    scr_rs_code code = {0};
    scr_kvtree *known = scr_kvtree_new(), *members = NULL;
    scr_crc_parts *parity = NULL;
    char *blocks = NULL;
    uint64_t chunk = 0;
    uint32_t header_crc = 0;
    int rc = lost_by_rank && known ? scr_rs_init(&code, dd, k) : SCR_ERR_NOMEM;
    /* all ranks of the set agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    mrc = scr_mpi_check(
        MPI_Allgather(&am_lost, 1, MPI_UNSIGNED_CHAR, lost_by_rank, 1, MPI_UNSIGNED_CHAR, d->set),
        "listing lost members");
    if (mrc != SCR_SUCCESS) goto done;
    if (!am_lost) rc = prepare_survivor(ctx, d, id, lost_by_rank, &f, &file, known, &chunk);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    rc = share_metas(d, known, &members);
    if (rc == SCR_SUCCESS && am_lost)
        rc = prepare_lost(ctx, d, id, members, &f, &file, &chunk, &parity, &header_crc);
    blocks = malloc(ctx->piece * (size_t)(dd + k));
    if (rc == SCR_SUCCESS && blocks == NULL) rc = SCR_ERR_NOMEM;
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    struct rs_rebuild b = {ctx, d, lost_by_rank, &code, &f, &file, parity, chunk, blocks};
    mrc = rebuild_stripes(&b, &rc);
    if (mrc != SCR_SUCCESS) goto done;
    if (am_lost && rc == SCR_SUCCESS) rc = finish_lost(&b, id, header_crc);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    rs_file_close(&file);
    scr_redundancy_files_close(&f);
    scr_crc_parts_free(parity);
    scr_rs_free(&code);
    scr_kvtree_delete(known);
    scr_kvtree_delete(members);
    free(blocks);
    free(lost_by_rank);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}
