/* run_redundancy.c — apply a redundancy scheme to a dataset in cache, and
 * rebuild a member's files from the rest of its set.
 *
 * PARTNER: each rank streams its files to its right neighbour, which keeps
 * them under the owner's rank in its filemap (tags HOLDER=PARTNER and
 * NODE=<the owner's node>), so that a restart can hand them back like any
 * other copy and a scavenge can find the copies of a failed node's ranks.
 *
 * XOR: a rank's files are one logical file (util_padfile.h) cut into N-1
 * chunks of c bytes (c = the largest member's data / (N-1), rounded up); in
 * N slots, rank i's own slot i holds no data. Rank i's XOR file holds the XOR
 * of every other member's chunk in slot i. It is computed as a ring
 * reduce-scatter: in step t each rank adds its chunk of slot (i-t-1) to what
 * came from the left and passes it right; after N-1 steps each rank holds
 * its own slot. Work proceeds in pieces of the file buffer, so memory does
 * not grow with the data. The XOR file is <set rank+1>_of_<N>_in_<set id>.xor:
 * a hash (kvtree file image) with DSET, CHUNK, GROUP, CURRENT (this rank's
 * file metas) and PARTNER (the left neighbour's), then the chunk. A lost
 * member is rebuilt by a pipelined reduction along the same ring to it.
 *
 * Every scheme computes the CRC-32 of each file it streams from the bytes
 * it reads, in the same pass (util_crc_parts.h), and records it in the
 * filemap (run_crc.c): PARTNER's holder checks the copy it wrote against
 * the sender's CRCs and keeps them; XOR writes its header before the ring,
 * with CRC fields of fixed width, and writes it again in place once the
 * ring has read every byte and each rank has its left neighbour's CRCs. A
 * rebuilt member's files are checked against the CRCs its neighbours kept,
 * as they are written. With SCR_CRC_ON_COPY the copies and XOR files are
 * also read back after their fsync and checked. */
#include "erasure_xor.h"
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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_PARTNER 4901
#define TAG_XOR 4902
#define TAG_HEADER 4903
#define TAG_CRC 4904

/* This rank's application files of dataset id, in path order, opened, and
 * the CRCs of what passes through them. */
struct file_set {
    int count;
    char **paths;
    scr_meta **metas;
    scr_padfile_part *parts;
    uint64_t total;
    scr_crc_parts *crc;
};

static void file_set_close(struct file_set *fs)
{
    for (int i = 0; i < fs->count; i++) {
        if (fs->parts && fs->parts[i].fd >= 0) close(fs->parts[i].fd);
        if (fs->paths) free(fs->paths[i]);
        if (fs->metas) scr_meta_delete(fs->metas[i]);
    }
    free(fs->paths);
    free(fs->metas);
    free(fs->parts);
    scr_crc_parts_free(fs->crc);
    memset(fs, 0, sizeof(*fs));
}

/* List (and, with flags >= 0, open) this rank's FULL files of dataset id. */
static int file_set_mine(struct scr_run *run, int id, int flags, struct file_set *fs)
{
    memset(fs, 0, sizeof(*fs));
    const char **files = NULL;
    int n = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    if (rc == SCR_SUCCESS && n > 0) {
        fs->paths = calloc((size_t)n, sizeof(char *));
        fs->metas = calloc((size_t)n, sizeof(scr_meta *));
        fs->parts = calloc((size_t)n, sizeof(scr_padfile_part));
        if (fs->paths == NULL || fs->metas == NULL || fs->parts == NULL) rc = SCR_ERR_NOMEM;
    }
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        const scr_meta *m = NULL;
        uint64_t size = 0;
        rc = scr_filemap_get_meta(run->map, id, run->rank, files[i], &m);
        if (rc != SCR_SUCCESS || scr_meta_check_filetype(m, SCR_META_TYPE_FULL) != SCR_SUCCESS) continue;
        int k = fs->count;
        fs->parts[k].fd = -1;
        fs->paths[k] = strdup(files[i]);
        fs->metas[k] = scr_meta_new();
        if (fs->paths[k] == NULL || fs->metas[k] == NULL) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_meta_copy(fs->metas[k], m);
        if (rc == SCR_SUCCESS) rc = scr_meta_get_filesize(m, &size);
        fs->count++;
        fs->parts[k].path = fs->paths[k];
        fs->parts[k].size = size;
        fs->total += size;
        if (rc == SCR_SUCCESS && flags >= 0) {
            fs->parts[k].fd = open(files[i], flags | O_CLOEXEC, 0600);
            if (fs->parts[k].fd < 0) {
                scr_err("cannot open %s: %s", files[i], strerror(errno));
                rc = SCR_ERR_IO;
            }
        }
    }
    free(files);
    if (rc != SCR_SUCCESS) file_set_close(fs);
    return rc;
}

/* Track the CRCs of the files of fs from here on, when files in cache get CRCs. */
static int track_crcs(const struct scr_run *run, struct file_set *fs)
{
    if (!run->crc_in_cache) return SCR_SUCCESS;
    fs->crc = scr_crc_parts_new(fs->parts, (size_t)fs->count);
    return fs->crc ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

/* CRC-32 of a whole open file. */
static int crc_of_fd(int fd, const char *path, char *buf, size_t bufsize, uint32_t *out)
{
    uint32_t crc = 0;
    uint64_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, bufsize, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            scr_err("read of %s failed: %s", path, strerror(errno));
            return SCR_ERR_IO;
        }
        if (n == 0) break;
        crc = scr_crc32(crc, buf, (size_t)n);
        off += (uint64_t)n;
    }
    *out = crc;
    return SCR_SUCCESS;
}

/* SCR_CRC_ON_COPY: read back a copy SCR wrote and synced, and compare it
 * with the CRC of the bytes that were written (when known); *io_crc is the
 * CRC of the file as read. */
static int read_back(int fd, const char *path, char *buf, size_t bufsize, int known, uint32_t *io_crc)
{
    uint32_t got = 0;
    int rc = crc_of_fd(fd, path, buf, bufsize, &got);
    if (rc == SCR_SUCCESS && known && got != *io_crc) {
        scr_err("%s reads back with CRC32 0x%08x, 0x%08x written", path, got, *io_crc);
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) *io_crc = got;
    return rc;
}

/* The metas of a file set as FILES n, FILE i {meta}, RANK r. */
static int describe_files(const struct file_set *fs, int rank, scr_kvtree **out)
{
    scr_kvtree *t = scr_kvtree_new();
    int rc = t ? scr_kvtree_util_set_int(t, "RANK", rank) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(t, "FILES", fs->count);
    for (int i = 0; rc == SCR_SUCCESS && i < fs->count; i++) {
        scr_kvtree *slot = scr_kvtree_set_kv_int(t, "FILE", i);
        if (slot == NULL || scr_kvtree_copy(slot, fs->metas[i]) != SCR_SUCCESS) rc = SCR_ERR_NOMEM;
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(t);
        return rc == SCR_ERR_NOMEM ? rc : SCR_FAILURE;
    }
    *out = t;
    return SCR_SUCCESS;
}

static int dataset_dir(struct scr_run *run, int id, char **out)
{
    return scr_cache_dataset_dir(run, id, out);
}

/* --- PARTNER ------------------------------------------------------------------- */

/* The holder's path for file meta of rank owner: under partner.<owner>/. */
static int partner_path(const char *dsdir, int owner, const scr_meta *meta, char **out)
{
    const char *rel = NULL;
    char sub[64], *dir = NULL;
    if (scr_meta_get_filename(meta, &rel) != SCR_SUCCESS) {
        scr_err("a file of rank %d has no name to keep its copy under", owner);
        return SCR_ERR_FORMAT;
    }
    snprintf(sub, sizeof(sub), "partner.%d", owner);
    int rc = scr_path_join(dsdir, sub, &dir);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dir, rel, out);
    free(dir);
    return rc;
}

/* Record (before the data arrives) the left neighbour's files as held here. */
static int register_partner_files(struct scr_run *run, int id, int owner, const scr_kvtree *info,
                                  const char *dsdir, struct file_set *in)
{
    int n = 0;
    int rc = scr_kvtree_util_get_int(info, "FILES", &n);
    memset(in, 0, sizeof(*in));
    if (rc == SCR_SUCCESS && n > 0) {
        in->paths = calloc((size_t)n, sizeof(char *));
        in->metas = calloc((size_t)n, sizeof(scr_meta *));
        in->parts = calloc((size_t)n, sizeof(scr_padfile_part));
        if (in->paths == NULL || in->metas == NULL || in->parts == NULL) rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_dataset(run->map, id, owner, scr_kvtree_get(info, "DSETDESC"));
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(run->map, id, owner, scr_kvtree_get(info, "REDDESC"));
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_tag(run->map, id, owner, "HOLDER", "PARTNER");
    /* the owner's node, so that a scavenge told that node failed finds its copies */
    const char *node = NULL;
    if (rc == SCR_SUCCESS && scr_kvtree_util_get_str(info, "NODE", &node) == SCR_SUCCESS)
        rc = scr_filemap_set_tag(run->map, id, owner, "NODE", node);
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_expected_files(run->map, id, owner, n);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        const scr_meta *m = scr_kvtree_get_kv_int(info, "FILE", i);
        uint64_t size = 0;
        in->parts[i].fd = -1;
        in->count++;
        rc = m ? scr_meta_get_filesize(m, &size) : SCR_ERR_FORMAT;
        if (rc == SCR_SUCCESS) rc = partner_path(dsdir, owner, m, &in->paths[i]);
        if (rc == SCR_SUCCESS) rc = scr_filemap_add_file(run->map, id, owner, in->paths[i]);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(run->map, id, owner, in->paths[i], m);
        in->parts[i].path = in->paths[i];
        in->parts[i].size = size;
        in->total += size;
    }
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    if (rc == SCR_SUCCESS) rc = track_crcs(run, in);
    for (int i = 0; rc == SCR_SUCCESS && i < in->count; i++) {
        char *dir = NULL;
        rc = scr_path_dirname(in->paths[i], &dir);
        if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0700);
        free(dir);
        if (rc == SCR_SUCCESS) {
            /* readable too: SCR_CRC_ON_COPY reads the copy back */
            in->parts[i].fd = open(in->paths[i], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (in->parts[i].fd < 0) {
                scr_err("cannot create partner copy %s: %s", in->paths[i], strerror(errno));
                rc = SCR_ERR_IO;
            }
        }
    }
    return rc;
}

/* Send my bytes right while the left neighbour's arrive, then sync them. */
static int stream_ring(struct scr_run *run, const struct scr_reddesc *d, struct file_set *out,
                       struct file_set *in, char *sendbuf, char *recvbuf)
{
    struct scr_stream_side to = {out->parts, (size_t)out->count, out->total, scr_reddesc_rhs(d), out->crc};
    struct scr_stream_side from = {in->parts, (size_t)in->count, in->total, scr_reddesc_lhs(d), in->crc};
    int read_rc = SCR_SUCCESS, write_rc = SCR_SUCCESS;
    int depth = scr_stream_depth(run->file_buf_size, run->mpi_buf_size);
    int rc = scr_stream_exchange(&to, &from, run->world, TAG_PARTNER, sendbuf, recvbuf, run->mpi_buf_size, depth,
                                 &read_rc, &write_rc);
    if (rc == SCR_SUCCESS) rc = read_rc != SCR_SUCCESS ? read_rc : write_rc;
    for (int i = 0; rc == SCR_SUCCESS && i < in->count; i++) {
        if (in->parts[i].fd >= 0 && fsync(in->parts[i].fd) != 0) {
            scr_err("fsync of %s failed: %s", in->paths[i], strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    return rc;
}

/* CRCs as FILES n, FILE i {CRC}, as a description of files holds them. */
static int crc_list(const uint32_t *crcs, int n, scr_kvtree **out)
{
    scr_kvtree *t = scr_kvtree_new();
    int rc = t ? scr_kvtree_util_set_int(t, "FILES", n) : SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        scr_kvtree *slot = scr_kvtree_set_kv_int(t, "FILE", i);
        rc = slot ? scr_meta_set_crc32(slot, crcs[i]) : SCR_ERR_NOMEM;
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(t);
        return rc;
    }
    *out = t;
    return SCR_SUCCESS;
}

/* After the PARTNER stream: this rank records the CRCs of the files it sent
 * (when it sent them) and passes them right; the holder checks the copy it
 * wrote of its left neighbour's files against them (and, with
 * SCR_CRC_ON_COPY, the copy as read back) and records them. Every rank of
 * the set calls it; the outcome is in *io_rc. */
static int settle_partner_crcs(struct scr_run *run, const struct scr_reddesc *d, int id, const struct file_set *out,
                               const struct file_set *in, int sent, int received, char *buf, int *io_rc)
{
    int rc = *io_rc, lhs = scr_reddesc_lhs(d);
    uint32_t *crcs = calloc((size_t)out->count + 1, sizeof(uint32_t));
    scr_kvtree *mine = NULL, *theirs = NULL;
    if (rc == SCR_SUCCESS && crcs == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && sent) rc = scr_crc_record_read(run, id, out->paths, out->count, out->crc, crcs);
    if (rc == SCR_SUCCESS) rc = crc_list(crcs, sent ? out->count : 0, &mine);
    int mrc = scr_comm_sendrecv_kvtree(rc == SCR_SUCCESS ? mine : NULL, scr_reddesc_rhs(d), lhs, TAG_CRC,
                                       run->world, &theirs);
    if (rc == SCR_SUCCESS) rc = mrc;
    for (int i = 0; rc == SCR_SUCCESS && received && i < in->count; i++) {
        uint32_t got = 0, want = 0;
        if (scr_crc_parts_get(in->crc, (size_t)i, &got) != SCR_SUCCESS ||
            scr_meta_get_crc32(scr_kvtree_get_kv_int(theirs, "FILE", i), &want) != SCR_SUCCESS) {
            scr_err("the copy %s of rank %d's file: its CRC32 is not known", in->paths[i], lhs);
            rc = SCR_FAILURE;
        } else if (got != want) {
            scr_err("the copy %s of rank %d's file differs from what it sent: CRC32 0x%08x, 0x%08x sent",
                    in->paths[i], lhs, got, want);
            rc = SCR_ERR_IO;
        }
        if (rc == SCR_SUCCESS && run->crc_on_copy)
            rc = read_back(in->parts[i].fd, in->paths[i], buf, run->file_buf_size, 1, &got);
        if (rc == SCR_SUCCESS) rc = scr_crc_record(run, id, lhs, in->paths[i], got, 1);
    }
    if (rc == SCR_SUCCESS && received && in->count > 0) rc = scr_cache_save_filemap(run);
    scr_kvtree_delete(mine);
    scr_kvtree_delete(theirs);
    free(crcs);
    *io_rc = rc;
    return mrc;
}

/* Copy every rank's files to its right neighbour, except where that
 * neighbour says it holds an intact copy already (have_left_copy: this rank
 * holds one of its left neighbour's files), as after a restart that rebuilt
 * only some members. */
static int apply_partner(struct scr_run *run, const struct scr_reddesc *d, int id, char *bufs[2],
                         int have_left_copy)
{
    struct file_set out = {0}, in = {0};
    char *dsdir = NULL;
    scr_kvtree *mine = NULL, *theirs = NULL;
    int rhs_has_copy = 0;
    int rc = scr_mpi_check(MPI_Sendrecv(&have_left_copy, 1, MPI_INT, scr_reddesc_lhs(d), TAG_HEADER,
                                        &rhs_has_copy, 1, MPI_INT, scr_reddesc_rhs(d), TAG_HEADER, run->world,
                                        MPI_STATUS_IGNORE),
                           "asking partners which copies they hold");
    /* the description still travels (the holder checks who sent it), the bytes do not */
    if (rc == SCR_SUCCESS) rc = file_set_mine(run, id, rhs_has_copy ? -1 : O_RDONLY, &out);
    if (rc == SCR_SUCCESS && !rhs_has_copy) rc = track_crcs(run, &out);
    if (rc == SCR_SUCCESS) rc = describe_files(&out, run->rank, &mine);
    if (rc == SCR_SUCCESS && rhs_has_copy) out.total = 0;
    const scr_dataset *desc = NULL;
    const scr_kvtree *red = NULL;
    if (rc == SCR_SUCCESS) rc = scr_filemap_get_dataset(run->map, id, run->rank, &desc);
    if (rc == SCR_SUCCESS) rc = scr_filemap_get_reddesc(run->map, id, run->rank, &red);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_str(mine, "NODE", run->node_name);
    if (rc == SCR_SUCCESS && (scr_kvtree_set(mine, "DSETDESC", scr_kvtree_dup(desc)) == NULL ||
                              scr_kvtree_set(mine, "REDDESC", scr_kvtree_dup(red)) == NULL))
        rc = SCR_ERR_NOMEM;
    /* who holds what must be known on both sides before any byte moves */
    int ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    mrc = scr_comm_sendrecv_kvtree(mine, scr_reddesc_rhs(d), scr_reddesc_lhs(d), TAG_HEADER, run->world,
                                   &theirs);
    if (mrc == SCR_SUCCESS) mrc = dataset_dir(run, id, &dsdir);
    int lhs = scr_reddesc_lhs(d), lhs_rank = -1;
    scr_kvtree_util_get_int(theirs, "RANK", &lhs_rank);
    if (mrc == SCR_SUCCESS && lhs_rank != lhs) {
        scr_err("partner data came from rank %d, expected %d", lhs_rank, lhs);
        mrc = SCR_ERR_FORMAT;
    }
    if (mrc == SCR_SUCCESS && !have_left_copy) mrc = register_partner_files(run, id, lhs, theirs, dsdir, &in);
    rc = mrc;
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    rc = stream_ring(run, d, &out, &in, bufs[0], bufs[1]);
    if (run->crc_in_cache)
        mrc = settle_partner_crcs(run, d, id, &out, &in, !rhs_has_copy, !have_left_copy, bufs[0], &rc);
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    file_set_close(&out);
    file_set_close(&in);
    scr_kvtree_delete(mine);
    scr_kvtree_delete(theirs);
    free(dsdir);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? rc : SCR_FAILURE;
}

/* --- XOR ----------------------------------------------------------------------- */

static int xor_file_path(struct scr_run *run, const struct scr_reddesc *d, int id, char **out)
{
    char *dsdir = NULL, name[96];
    snprintf(name, sizeof(name), "%d_of_%d_in_%d.xor", d->set_rank + 1, d->set_size, d->set_id);
    int rc = dataset_dir(run, id, &dsdir);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, name, out);
    free(dsdir);
    return rc;
}


/* Offset in a member's logical file of its chunk in slot s (member i skips slot i). */
static uint64_t slot_offset(int member, int slot, uint64_t chunk)
{
    int idx = slot < member ? slot : slot - 1;
    return (uint64_t)idx * chunk;
}

/* The header bytes of an XOR file: a kvtree file image. */
static int header_image(const scr_kvtree *header, void **out_buf, size_t *out_len)
{
    return scr_kvtree_file_image(header, out_buf, out_len);
}

int scr_redundancy_register_file(struct scr_run *run, int id, const char *path, const char *type,
                                 uint64_t size, int with_crc, uint32_t crc, int complete)
{
    scr_meta *m = scr_meta_new();
    char *name = NULL;
    int rc = m ? scr_path_basename(path, &name) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_meta_set_filename(m, name);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_filetype(m, type);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_filesize(m, size);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_rank(m, run->rank);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_ranks(m, run->ranks);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_complete(m, complete);
    if (rc == SCR_SUCCESS && with_crc) rc = scr_meta_set_crc32(m, crc);
    if (rc == SCR_SUCCESS && !scr_filemap_have_file(run->map, id, run->rank, path))
        rc = scr_filemap_add_file(run->map, id, run->rank, path);
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(run->map, id, run->rank, path, m);
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    free(name);
    scr_meta_delete(m);
    return rc;
}

static int mod(int a, int n) { return ((a % n) + n) % n; }

static int wait_for(MPI_Request *req, const char *what)
{
    return scr_mpi_check(MPI_Wait(req, MPI_STATUS_IGNORE), what);
}

/* The reduce-scatter of apply_xor, writing this rank's slot at hlen in its
 * XOR file. Pieces go in groups of as many as stay in flight: step t of every
 * piece of a group is sent before step t+1 of any, so a rank has a group's
 * worth of slack before it waits for its left neighbour, and its reads and
 * writes overlap the transfers. Every byte read passes through fs->crc
 * (when set), and *out_slot_crc is the CRC of this rank's slot as written.
 * Returns the MPI status; a failed read or write (in *io_rc) sends zeros
 * on, so that the ring completes. */
static int xor_ring(struct scr_run *run, const struct scr_reddesc *d, const struct file_set *fs, uint64_t chunk,
                    int fd, const char *xpath, uint64_t hlen, char *sendbuf, char *recvbuf, uint32_t *out_slot_crc,
                    int *io_rc)
{
    uint32_t slot_crc = 0;
    int N = d->set_size, me = d->set_rank, rhs = scr_reddesc_rhs(d), lhs = scr_reddesc_lhs(d);
    size_t piece = run->mpi_buf_size;
    int depth = scr_stream_depth(run->file_buf_size, piece), rc = *io_rc, mrc = SCR_SUCCESS;
    MPI_Request reqs[2 * SCR_STREAM_MAX_DEPTH];
    MPI_Request *sreq = reqs, *rreq = reqs + SCR_STREAM_MAX_DEPTH;
    for (int j = 0; j < 2 * SCR_STREAM_MAX_DEPTH; j++) reqs[j] = MPI_REQUEST_NULL;
    for (uint64_t p0 = 0; mrc == SCR_SUCCESS && p0 < chunk; p0 += (uint64_t)depth * piece) {
        int n = (int)((chunk - p0 + piece - 1) / piece);
        if (n > depth) n = depth;
        for (int t = 0; mrc == SCR_SUCCESS && t < N - 1; t++) {
            int slot = mod(me - t - 1, N);
            for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
                uint64_t off = p0 + (uint64_t)g * piece;
                size_t len = chunk - off < piece ? (size_t)(chunk - off) : piece;
                char *sb = sendbuf + (size_t)g * piece, *rb = recvbuf + (size_t)g * piece;
                mrc = wait_for(&sreq[g], "computing XOR data (MPI_Wait)");
                if (mrc != SCR_SUCCESS) break;
                if (rc == SCR_SUCCESS)
                    rc = scr_padfile_read(fs->parts, (size_t)fs->count, slot_offset(me, slot, chunk) + off, sb, len);
                if (rc == SCR_SUCCESS) scr_crc_parts_add(fs->crc, slot_offset(me, slot, chunk) + off, sb, len);
                if (rc != SCR_SUCCESS) memset(sb, 0, len);
                if (t > 0) {
                    mrc = wait_for(&rreq[g], "computing XOR data (MPI_Wait)");
                    if (mrc == SCR_SUCCESS) scr_xor_accumulate(sb, rb, len);
                }
                if (mrc == SCR_SUCCESS)
                    mrc = scr_mpi_check(MPI_Irecv(rb, (int)len, MPI_BYTE, lhs, TAG_XOR, run->world, &rreq[g]),
                                        "computing XOR data (MPI_Irecv)");
                if (mrc == SCR_SUCCESS)
                    mrc = scr_mpi_check(MPI_Isend(sb, (int)len, MPI_BYTE, rhs, TAG_XOR, run->world, &sreq[g]),
                                        "computing XOR data (MPI_Isend)");
            }
        }
        /* what came last is this rank's own slot */
        for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
            uint64_t off = p0 + (uint64_t)g * piece;
            size_t len = chunk - off < piece ? (size_t)(chunk - off) : piece;
            mrc = wait_for(&rreq[g], "computing XOR data (MPI_Wait)");
            if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
                rc = scr_pwrite_full(fd, recvbuf + (size_t)g * piece, len, hlen + off, xpath);
            if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS && fs->crc != NULL)
                slot_crc = scr_crc32(slot_crc, recvbuf + (size_t)g * piece, len);
        }
    }
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Waitall(depth, sreq, MPI_STATUSES_IGNORE), "computing XOR data (MPI_Waitall)");
    if (mrc != SCR_SUCCESS) scr_stream_abandon(reqs, 2 * SCR_STREAM_MAX_DEPTH);
    *out_slot_crc = slot_crc;
    *io_rc = rc;
    return mrc;
}

/* After the XOR ring: this rank's files' CRCs (from the bytes the ring read)
 * go into the filemap and into its header as CURRENT, travel right, and the
 * left neighbour's come back as PARTNER; the header is then written again in
 * place (its CRC fields have a fixed width), and *out_header_crc is its
 * CRC. Every rank of the set calls it; the outcome is in *io_rc. */
static int settle_xor_crcs(struct scr_run *run, const struct scr_reddesc *d, int id, const struct file_set *fs,
                           scr_kvtree *header, int fd, const char *xpath, uint64_t hlen, uint32_t *out_header_crc,
                           int *io_rc)
{
    int rc = *io_rc;
    uint32_t *crcs = calloc((size_t)fs->count + 1, sizeof(uint32_t));
    scr_kvtree *current = scr_kvtree_get(header, "CURRENT"), *left = NULL;
    if (rc == SCR_SUCCESS && crcs == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_crc_record_read(run, id, fs->paths, fs->count, fs->crc, crcs);
    if (rc == SCR_SUCCESS) rc = scr_crc_fix_width(current, crcs);
    int mrc = scr_comm_sendrecv_kvtree(rc == SCR_SUCCESS ? current : NULL, scr_reddesc_rhs(d), scr_reddesc_lhs(d),
                                       TAG_CRC, run->world, &left);
    if (rc == SCR_SUCCESS) rc = mrc;
    /* set() takes ownership, also when it fails */
    if (rc == SCR_SUCCESS && scr_kvtree_set(header, "PARTNER", left) == NULL) rc = SCR_ERR_NOMEM;
    else if (rc != SCR_SUCCESS) scr_kvtree_delete(left);
    if (rc == SCR_SUCCESS) rc = scr_redundancy_file_write_header(fd, xpath, header, hlen, out_header_crc);
    free(crcs);
    *io_rc = rc;
    return mrc;
}

static int apply_xor(struct scr_run *run, const struct scr_reddesc *d, int id, char *bufs[2])
{
    int N = d->set_size, ok = 0;
    struct file_set fs = {0};
    scr_kvtree *current = NULL, *partner = NULL, *header = NULL;
    char *xpath = NULL;
    void *image = NULL;
    size_t image_len = 0;
    int fd = -1;
    int rc = file_set_mine(run, id, O_RDONLY, &fs);
    if (rc == SCR_SUCCESS) rc = track_crcs(run, &fs);
    if (rc == SCR_SUCCESS) rc = describe_files(&fs, run->rank, &current);
    /* the header is written before the CRCs are known, and again after */
    if (rc == SCR_SUCCESS && run->crc_in_cache) rc = scr_crc_fix_width(current, NULL);

    /* the chunk size fits the largest member's data into N-1 chunks */
    unsigned long long mine_total = fs.total, most = 0;
    int mrc = scr_mpi_check(MPI_Allreduce(&mine_total, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, d->set),
                            "finding the largest member of an XOR set");
    uint64_t chunk = (most + (uint64_t)(N - 2)) / (uint64_t)(N - 1);

    /* my file metas travel right, so that two XOR files hold each rank's metas */
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    rc = scr_comm_sendrecv_kvtree(current, scr_reddesc_rhs(d), scr_reddesc_lhs(d), TAG_HEADER, run->world,
                                  &partner);

    header = scr_kvtree_new();
    const scr_dataset *desc = NULL;
    if (rc == SCR_SUCCESS && header == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_filemap_get_dataset(run->map, id, run->rank, &desc);
    if (rc == SCR_SUCCESS && scr_kvtree_set(header, "DSET", scr_kvtree_dup(desc)) == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(header, "RANKS", run->ranks);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_uint64(header, "CHUNK", chunk);
    if (rc == SCR_SUCCESS) {
        scr_kvtree *group = scr_kvtree_set(header, "GROUP", scr_kvtree_new());
        rc = group ? scr_kvtree_util_set_int(group, "RANKS", N) : SCR_ERR_NOMEM;
        for (int i = 0; rc == SCR_SUCCESS && i < N; i++) {
            char key[16];
            snprintf(key, sizeof(key), "%d", i);
            scr_kvtree *ranks = scr_kvtree_get(group, "RANK");
            if (ranks == NULL) ranks = scr_kvtree_set(group, "RANK", scr_kvtree_new());
            rc = ranks ? scr_kvtree_util_set_int(ranks, key, d->members[i]) : SCR_ERR_NOMEM;
        }
    }
    if (rc == SCR_SUCCESS) {
        /* set() takes ownership, also when it fails */
        scr_kvtree *c = current, *pt = partner;
        current = partner = NULL;
        if (scr_kvtree_set(header, "CURRENT", c) == NULL) {
            scr_kvtree_delete(pt);
            rc = SCR_ERR_NOMEM;
        } else if (scr_kvtree_set(header, "PARTNER", pt) == NULL) {
            rc = SCR_ERR_NOMEM;
        }
    }
    if (rc == SCR_SUCCESS) rc = header_image(header, &image, &image_len);
    if (rc == SCR_SUCCESS) rc = xor_file_path(run, d, id, &xpath);
    /* listed before it exists */
    if (rc == SCR_SUCCESS)
        rc = scr_redundancy_register_file(run, id, xpath, SCR_META_TYPE_XOR, image_len + chunk, 0, 0, 0);
    if (rc == SCR_SUCCESS) {
        fd = open(xpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            scr_err("cannot create %s: %s", xpath, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    if (rc == SCR_SUCCESS) rc = scr_write_full(fd, image, image_len, xpath);
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* the ring reduce-scatter */
    uint32_t slot_crc = 0, header_crc = 0;
    mrc = xor_ring(run, d, &fs, chunk, fd, xpath, image_len, bufs[0], bufs[1], &slot_crc, &rc);
    if (mrc == SCR_SUCCESS && run->crc_in_cache)
        mrc = settle_xor_crcs(run, d, id, &fs, header, fd, xpath, image_len, &header_crc, &rc);
    if (mrc != SCR_SUCCESS) goto done;
    if (rc == SCR_SUCCESS && fsync(fd) != 0) {
        scr_err("fsync of %s failed: %s", xpath, strerror(errno));
        rc = SCR_ERR_IO;
    }
    uint32_t crc = run->crc_in_cache ? scr_crc32_combine(header_crc, slot_crc, chunk) : 0;
    if (rc == SCR_SUCCESS && run->crc_on_copy)
        rc = read_back(fd, xpath, bufs[0], run->file_buf_size, run->crc_in_cache, &crc);
    if (rc == SCR_SUCCESS)
        rc = scr_redundancy_register_file(run, id, xpath, SCR_META_TYPE_XOR, image_len + chunk,
                                          run->crc_in_cache || run->crc_on_copy, crc, 1);
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    if (fd >= 0) close(fd);
    file_set_close(&fs);
    scr_kvtree_delete(current);
    scr_kvtree_delete(partner);
    scr_kvtree_delete(header);
    free(image);
    free(xpath);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* --- entry points ---------------------------------------------------------------- */

/* Keep the records of the left neighbours this rank helps rebuild (one for
 * XOR, k for RS), so that a member whose node is lost learns its own. */
static int keep_neighbour_records(struct scr_run *run, const struct scr_reddesc *d, int id,
                                  const scr_kvtree *record)
{
    int keep = d->type == SCR_COPY_XOR ? 1 : d->type == SCR_COPY_RS ? d->failures : 0;
    const scr_dataset *desc = NULL;
    int rc = scr_filemap_get_dataset(run->map, id, run->rank, &desc);
    for (int j = 1; rc == SCR_SUCCESS && j <= keep && j < d->set_size; j++) {
        int their_rank = (d->set_rank - j + d->set_size) % d->set_size;
        int owner = d->members[their_rank];
        scr_kvtree *theirs = scr_kvtree_dup(record);
        rc = theirs ? scr_kvtree_util_set_int(theirs, "SET_RANK", their_rank) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(run->map, id, owner, theirs);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_dataset(run->map, id, owner, desc);
        scr_kvtree_delete(theirs);
    }
    return rc;
}

/* Stream d's redundancy data (every rank, collective over the world; a set
 * of one member, SINGLE while other sets are not, still takes part in the
 * agreements). have_left_copy as for apply_partner. */
static int run_scheme(struct scr_run *run, const struct scr_reddesc *d, int id, int have_left_copy)
{
    int single = d->type == SCR_COPY_SINGLE, ok = 0;
    char *bufs[2] = {NULL, NULL};
    if (!single) {
        bufs[0] = malloc(run->file_buf_size);
        bufs[1] = malloc(run->file_buf_size);
    }
    int rc = (single || (bufs[0] && bufs[1])) ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory for redundancy buffers of %zu bytes", run->file_buf_size);
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    double t0 = scr_run_now();
    if (mrc == SCR_SUCCESS && ok) {
        if (single) rc = SCR_SUCCESS;
        else if (d->type == SCR_COPY_PARTNER) rc = apply_partner(run, d, id, bufs, have_left_copy);
        else if (d->type == SCR_COPY_XOR) rc = apply_xor(run, d, id, bufs);
        else rc = scr_redundancy_apply_rs(run, d, id, bufs);
        mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    }
    free(bufs[0]);
    free(bufs[1]);
    if (mrc == SCR_SUCCESS && ok && run->rank == 0)
        scr_dbg(1, "dataset %d protected by %s in %.3f s", id, scr_copy_type_name(d->type), scr_run_now() - t0);
    if (mrc != SCR_SUCCESS) return mrc;
    if (!ok) {
        if (run->rank == 0) scr_err("could not apply %s to dataset %d", scr_copy_type_name(d->type), id);
        return SCR_FAILURE;
    }
    return SCR_SUCCESS;
}

/* This rank's record of d in the filemap, and the copies its neighbours need. */
static int record_scheme(struct scr_run *run, const struct scr_reddesc *d, int id)
{
    scr_kvtree *record = NULL;
    int rc = scr_reddesc_to_record(d, &record);
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(run->map, id, run->rank, record);
    if (rc == SCR_SUCCESS) rc = keep_neighbour_records(run, d, id, record);
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    scr_kvtree_delete(record);
    int ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS || !ok) return mrc != SCR_SUCCESS ? mrc : SCR_FAILURE;
    return SCR_SUCCESS;
}

/* Rank 0's encode event: the dataset's size and how long the scheme took. */
static void log_encode(struct scr_run *run, const struct scr_reddesc *d, int id, double t0, int rc)
{
    const scr_dataset *desc = NULL;
    uint64_t bytes = 0;
    int have_bytes = run->rank == 0 && scr_filemap_get_dataset(run->map, id, run->rank, &desc) == SCR_SUCCESS &&
                     scr_dataset_get_size(desc, &bytes) == SCR_SUCCESS;
    struct scr_event_field fields[] = {SCR_EVENT_STR("scheme", scr_copy_type_name(d->type)),
                                       SCR_EVENT_INT("set_size", d->set_size)};
    scr_run_event(run, SCR_EVENT_ENCODE, rc == SCR_SUCCESS ? SCR_EVENT_OK : SCR_EVENT_FAILED, id, NULL,
                  have_bytes ? (long long)bytes : -1, scr_run_now() - t0,
                  rc == SCR_SUCCESS ? NULL : "the redundancy scheme failed", fields, 2);
}

int scr_redundancy_apply(struct scr_run *run, const struct scr_reddesc *d, int id)
{
    double t0 = scr_run_now();
    int rc = record_scheme(run, d, id);
    if (rc == SCR_SUCCESS) rc = run_scheme(run, d, id, 0);
    log_encode(run, d, id, t0, rc);
    if (rc != SCR_SUCCESS) return rc;
    /* the expected count now includes the redundancy file */
    int expected = scr_filemap_num_files(run->map, id, run->rank);
    rc = scr_filemap_set_expected_files(run->map, id, run->rank, expected);
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    return rc;
}

int scr_redundancy_protect_again(struct scr_run *run, const struct scr_reddesc *d, int id, int have_left_copy)
{
    /* a rebuilt member's XOR or RS file came back with its data; what its
     * lost node also held were the records of its left neighbours, and,
     * with PARTNER, the copy of its left neighbour's files */
    int rc = record_scheme(run, d, id);
    /* sets of one member are SINGLE beside PARTNER sets, and the copying is
     * collective: every rank asks whether any set is PARTNER */
    int partner = d->type == SCR_COPY_PARTNER, any_partner = 0;
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Allreduce(&partner, &any_partner, 1, MPI_INT, MPI_MAX, run->world),
                           "agreeing on the scheme");
    if (rc == SCR_SUCCESS && any_partner) rc = run_scheme(run, d, id, have_left_copy);
    if (rc == SCR_SUCCESS && run->rank == 0)
        scr_dbg(1, "dataset %d is protected by %s again after its rebuild", id, scr_copy_type_name(d->type));
    return rc;
}

/* --- XOR recovery ------------------------------------------------------------------ */

/* This rank's XOR file of dataset id (path, open for reading, header length, header). */
static int open_my_xor(struct scr_run *run, int id, char **out_path, int *out_fd, uint64_t *out_hlen,
                       scr_kvtree **out_header)
{
    const char **files = NULL;
    int n = 0;
    *out_path = NULL;
    *out_fd = -1;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    for (int f = 0; rc == SCR_SUCCESS && f < n && *out_path == NULL; f++) {
        const scr_meta *m = NULL;
        if (scr_filemap_get_meta(run->map, id, run->rank, files[f], &m) == SCR_SUCCESS &&
            scr_meta_check_filetype(m, SCR_META_TYPE_XOR) == SCR_SUCCESS &&
            (*out_path = strdup(files[f])) == NULL)
            rc = SCR_ERR_NOMEM;
    }
    free(files);
    if (rc == SCR_SUCCESS && *out_path == NULL) {
        scr_err("rank %d has no XOR file for dataset %d", run->rank, id);
        rc = SCR_ERR_NOTFOUND;
    }
    if (rc == SCR_SUCCESS) {
        *out_fd = open(*out_path, O_RDONLY | O_CLOEXEC);
        if (*out_fd < 0) {
            scr_err("cannot open %s: %s", *out_path, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    if (rc == SCR_SUCCESS) rc = scr_redundancy_file_read_header(*out_fd, *out_path, out_header, out_hlen);
    return rc;
}

/* The lost member's side: its files and XOR file, registered and created
 * from the metas its neighbours kept. */
static int prepare_root(struct scr_run *run, const struct scr_reddesc *d, int id, scr_kvtree *from_rhs,
                        scr_kvtree *from_lhs, struct file_set *fs, char **xpath, int *xfd, uint64_t *hlen,
                        uint64_t *chunk, uint32_t *out_header_crc)
{
    scr_kvtree *header = scr_kvtree_new(), *mine = scr_kvtree_get(from_rhs, "PARTNER");
    char *dsdir = NULL;
    void *image = NULL;
    size_t image_len = 0;
    int n = 0, rank = -1;
    int rc = header ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && (scr_kvtree_util_get_int(mine, "FILES", &n) != SCR_SUCCESS ||
                              scr_kvtree_util_get_int(mine, "RANK", &rank) != SCR_SUCCESS || rank != run->rank ||
                              scr_kvtree_util_get_uint64(from_rhs, "CHUNK", chunk) != SCR_SUCCESS)) {
        scr_err("rank %d: the XOR header of its neighbour does not describe its files", run->rank);
        rc = SCR_ERR_FORMAT;
    }
    /* the new header: the neighbour's, with our files as CURRENT and the left one's as PARTNER */
    if (rc == SCR_SUCCESS) {
        rc = scr_kvtree_copy(header, from_rhs);
        scr_kvtree_unset(header, "CURRENT");
        scr_kvtree_unset(header, "PARTNER");
        if (rc == SCR_SUCCESS && (scr_kvtree_set(header, "CURRENT", scr_kvtree_dup(mine)) == NULL ||
                                  scr_kvtree_set(header, "PARTNER", scr_kvtree_dup(scr_kvtree_get(from_lhs, "CURRENT"))) == NULL))
            rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = dataset_dir(run, id, &dsdir);
    /* a rank without files of its own still needs the directory for its XOR file */
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dsdir, 0700);
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_dataset(run->map, id, run->rank, scr_kvtree_get(from_rhs, "DSET"));
    memset(fs, 0, sizeof(*fs));
    if (rc == SCR_SUCCESS && n > 0) {
        fs->paths = calloc((size_t)n, sizeof(char *));
        fs->metas = calloc((size_t)n, sizeof(scr_meta *));
        fs->parts = calloc((size_t)n, sizeof(scr_padfile_part));
        if (fs->paths == NULL || fs->metas == NULL || fs->parts == NULL) rc = SCR_ERR_NOMEM;
    }
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        const scr_meta *m = scr_kvtree_get_kv_int(mine, "FILE", i);
        const char *rel = NULL;
        uint64_t size = 0;
        fs->parts[i].fd = -1;
        fs->count++;
        rc = (m && scr_meta_get_filename(m, &rel) == SCR_SUCCESS && scr_meta_get_filesize(m, &size) == SCR_SUCCESS)
                 ? SCR_SUCCESS : SCR_ERR_FORMAT;
        if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, rel, &fs->paths[i]);
        fs->metas[i] = scr_meta_new();
        if (rc == SCR_SUCCESS && fs->metas[i] == NULL) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_meta_copy(fs->metas[i], m);
        if (rc == SCR_SUCCESS) rc = scr_filemap_add_file(run->map, id, run->rank, fs->paths[i]);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(run->map, id, run->rank, fs->paths[i], m);
        fs->parts[i].path = fs->paths[i];
        fs->parts[i].size = size;
        fs->total += size;
    }
    if (rc == SCR_SUCCESS) rc = header_image(header, &image, &image_len);
    if (rc == SCR_SUCCESS) rc = xor_file_path(run, d, id, xpath);
    if (rc == SCR_SUCCESS) rc = scr_redundancy_register_file(run, id, *xpath, SCR_META_TYPE_XOR, image_len + *chunk, 0, 0, 0);
    for (int i = 0; rc == SCR_SUCCESS && i < fs->count; i++) {
        char *dir = NULL;
        rc = scr_path_dirname(fs->paths[i], &dir);
        if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0700);
        free(dir);
        if (rc == SCR_SUCCESS && (fs->parts[i].fd = open(fs->paths[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
            scr_err("cannot create %s: %s", fs->paths[i], strerror(errno));
            rc = SCR_ERR_IO;
        }
        /* every file gets its full length, even where the rebuilt bytes are zeros */
        if (rc == SCR_SUCCESS && ftruncate(fs->parts[i].fd, (off_t)fs->parts[i].size) != 0) {
            scr_err("cannot size %s: %s", fs->paths[i], strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    if (rc == SCR_SUCCESS && (*xfd = open(*xpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
        scr_err("cannot create %s: %s", *xpath, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) rc = scr_write_full(*xfd, image, image_len, *xpath);
    /* the rebuilt files are checked against the CRCs the neighbours kept as they are written */
    if (rc == SCR_SUCCESS) rc = track_crcs(run, fs);
    if (rc == SCR_SUCCESS) *out_header_crc = scr_crc32(0, image, image_len);
    *hlen = image_len;
    free(image);
    free(dsdir);
    scr_kvtree_delete(header);
    return rc;
}

/* The rebuild of the lost member root: for every piece of every slot, a
 * reduction along the chain root+1 -> ... -> root-1 -> root, each member
 * adding its part (its XOR chunk in its own slot, its data elsewhere). Up to
 * a handful of pieces are in flight along the chain, so a member reads the
 * next piece while the last one travels and never waits piece by piece for
 * the members before it. What the root writes passes through fs->crc (when
 * set), and *out_slot_crc is the CRC of the root's XOR slot. Returns the MPI
 * status; a failed read or write (in *io_rc) sends zeros on, so that the
 * chain completes. */
static int xor_chain(struct scr_run *run, const struct scr_reddesc *d, int root, const struct file_set *fs,
                     uint64_t chunk, int xfd, const char *xpath, uint64_t hlen, char *sendbuf, char *recvbuf,
                     uint32_t *out_slot_crc, int *io_rc)
{
    uint32_t slot_crc = 0;
    int N = d->set_size, me = d->set_rank, dist = mod(me - root, N);
    int lhs = scr_reddesc_lhs(d), rhs = scr_reddesc_rhs(d);
    size_t piece = run->mpi_buf_size;
    int depth = scr_stream_depth(run->file_buf_size, piece), rc = *io_rc, mrc = SCR_SUCCESS;
    uint64_t ops = (chunk + piece - 1) / piece * (uint64_t)N; /* (piece, slot), piece by piece */
    MPI_Request reqs[2 * SCR_STREAM_MAX_DEPTH];
    MPI_Request *sreq = reqs, *rreq = reqs + SCR_STREAM_MAX_DEPTH;
    for (int j = 0; j < 2 * SCR_STREAM_MAX_DEPTH; j++) reqs[j] = MPI_REQUEST_NULL;
#define OP_OFF(k) ((k) / (uint64_t)N * piece)
#define OP_LEN(k) (chunk - OP_OFF(k) < piece ? (size_t)(chunk - OP_OFF(k)) : piece)
    /* everyone but the head of the chain takes from the left */
    for (uint64_t k = 0; dist != 1 && mrc == SCR_SUCCESS && k < ops && k < (uint64_t)depth; k++)
        mrc = scr_mpi_check(MPI_Irecv(recvbuf + k * piece, (int)OP_LEN(k), MPI_BYTE, lhs, TAG_XOR, run->world,
                                      &rreq[k]), "rebuilding from XOR data (MPI_Irecv)");
    for (uint64_t k = 0; mrc == SCR_SUCCESS && k < ops; k++) {
        int j = (int)(k % (uint64_t)depth), s = (int)(k % (uint64_t)N);
        uint64_t off = OP_OFF(k);
        size_t len = OP_LEN(k);
        char *sb = sendbuf + (size_t)j * piece, *rb = recvbuf + (size_t)j * piece;
        if (dist == 0) {
            mrc = wait_for(&rreq[j], "rebuilding from XOR data (MPI_Wait)");
            if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS)
                rc = s == me ? scr_pwrite_full(xfd, rb, len, hlen + off, xpath)
                             : scr_padfile_write(fs->parts, (size_t)fs->count, slot_offset(me, s, chunk) + off, rb, len);
            if (mrc == SCR_SUCCESS && rc == SCR_SUCCESS && fs->crc != NULL) {
                if (s == me) slot_crc = scr_crc32(slot_crc, rb, len);
                else scr_crc_parts_add(fs->crc, slot_offset(me, s, chunk) + off, rb, len);
            }
        } else {
            mrc = wait_for(&sreq[j], "rebuilding from XOR data (MPI_Wait)");
            if (mrc != SCR_SUCCESS) break;
            if (rc == SCR_SUCCESS)
                rc = s == me ? scr_pread_full(xfd, sb, len, hlen + off, xpath)
                             : scr_padfile_read(fs->parts, (size_t)fs->count, slot_offset(me, s, chunk) + off, sb, len);
            if (rc != SCR_SUCCESS) memset(sb, 0, len);
            if (dist > 1) {
                mrc = wait_for(&rreq[j], "rebuilding from XOR data (MPI_Wait)");
                if (mrc == SCR_SUCCESS) scr_xor_accumulate(sb, rb, len);
            }
            if (mrc == SCR_SUCCESS)
                mrc = scr_mpi_check(MPI_Isend(sb, (int)len, MPI_BYTE, rhs, TAG_XOR, run->world, &sreq[j]),
                                    "rebuilding from XOR data (MPI_Isend)");
        }
        uint64_t next = k + (uint64_t)depth;
        if (mrc == SCR_SUCCESS && dist != 1 && next < ops)
            mrc = scr_mpi_check(MPI_Irecv(rb, (int)OP_LEN(next), MPI_BYTE, lhs, TAG_XOR, run->world, &rreq[j]),
                                "rebuilding from XOR data (MPI_Irecv)");
    }
#undef OP_OFF
#undef OP_LEN
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Waitall(depth, sreq, MPI_STATUSES_IGNORE), "rebuilding from XOR data (MPI_Waitall)");
    if (mrc != SCR_SUCCESS) scr_stream_abandon(reqs, 2 * SCR_STREAM_MAX_DEPTH);
    *out_slot_crc = slot_crc;
    *io_rc = rc;
    return mrc;
}

int scr_redundancy_recover_xor(struct scr_run *run, const struct scr_reddesc *d, int id, int root)
{
    int N = d->set_size, me = d->set_rank, is_root = me == root, ok = 0;
    int dist = (me - root + N) % N; /* the chain runs root+1 -> ... -> root-1 -> root */
    struct file_set fs = {0};
    scr_kvtree *header = NULL, *from_rhs = NULL, *from_lhs = NULL;
    char *xpath = NULL;
    int xfd = -1;
    uint64_t hlen = 0, chunk = 0;
    uint32_t header_crc = 0, slot_crc = 0;
    int rc = SCR_SUCCESS;

    /* the neighbours of the lost member send what it needs to know */
    if (!is_root) {
        rc = file_set_mine(run, id, O_RDONLY, &fs);
        if (rc == SCR_SUCCESS) rc = open_my_xor(run, id, &xpath, &xfd, &hlen, &header);
        if (rc == SCR_SUCCESS) rc = scr_kvtree_util_get_uint64(header, "CHUNK", &chunk);
    }
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    if (dist == 1) mrc = scr_comm_send_kvtree(header, d->members[root], TAG_HEADER, run->world);
    if (mrc == SCR_SUCCESS && dist == N - 1) mrc = scr_comm_send_kvtree(header, d->members[root], TAG_HEADER + 1, run->world);
    if (mrc == SCR_SUCCESS && is_root) {
        mrc = scr_comm_recv_kvtree(d->members[(root + 1) % N], TAG_HEADER, run->world, &from_rhs);
        if (mrc == SCR_SUCCESS)
            mrc = scr_comm_recv_kvtree(d->members[(root + N - 1) % N], TAG_HEADER + 1, run->world, &from_lhs);
        if (mrc == SCR_SUCCESS)
            rc = prepare_root(run, d, id, from_rhs, from_lhs, &fs, &xpath, &xfd, &hlen, &chunk, &header_crc);
    }
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* for every piece of every slot: a reduction along the chain to the root */
    size_t bufsize = run->file_buf_size;
    char *bufs[2] = {malloc(bufsize), malloc(bufsize)};
    if (bufs[0] == NULL || bufs[1] == NULL) rc = SCR_ERR_NOMEM;
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc == SCR_SUCCESS && ok)
        mrc = xor_chain(run, d, root, &fs, chunk, xfd, xpath, hlen, bufs[0], bufs[1], &slot_crc, &rc);
    free(bufs[0]);
    free(bufs[1]);
    if (mrc != SCR_SUCCESS) goto done;
    if (is_root && rc == SCR_SUCCESS) {
        for (int i = 0; rc == SCR_SUCCESS && i < fs.count; i++) {
            if (fsync(fs.parts[i].fd) != 0) {
                scr_err("fsync of %s failed: %s", fs.paths[i], strerror(errno));
                rc = SCR_ERR_IO;
            }
        }
        if (rc == SCR_SUCCESS && fsync(xfd) != 0) {
            scr_err("fsync of %s failed: %s", xpath, strerror(errno));
            rc = SCR_ERR_IO;
        }
        if (rc == SCR_SUCCESS && run->crc_in_cache)
            rc = scr_crc_check_rebuilt(run, id, fs.paths, fs.count, fs.crc, " rebuilt from XOR");
        char *cbuf = malloc(run->mpi_buf_size);
        uint32_t crc = run->crc_in_cache ? scr_crc32_combine(header_crc, slot_crc, chunk) : 0;
        if (rc == SCR_SUCCESS && run->crc_on_copy)
            rc = cbuf ? read_back(xfd, xpath, cbuf, run->mpi_buf_size, run->crc_in_cache, &crc) : SCR_ERR_NOMEM;
        free(cbuf);
        if (rc == SCR_SUCCESS)
            rc = scr_redundancy_register_file(run, id, xpath, SCR_META_TYPE_XOR, hlen + chunk,
                                              run->crc_in_cache || run->crc_on_copy, crc, 1);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_expected_files(run->map, id, run->rank, fs.count + 1);
        if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    }
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    if (xfd >= 0) close(xfd);
    file_set_close(&fs);
    scr_kvtree_delete(header);
    scr_kvtree_delete(from_rhs);
    scr_kvtree_delete(from_lhs);
    free(xpath);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}
