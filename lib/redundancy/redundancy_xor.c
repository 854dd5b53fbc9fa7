/* redundancy_xor.c — XOR: one lost member of a set rebuilt from the others.
 *
 * A rank's files are one logical file (util_padfile.h) cut into N-1 chunks
 * of c bytes (c = the largest member's data / (N-1), rounded up); in N
 * slots, rank i's own slot i holds no data. Rank i's XOR file holds the XOR
 * of every other member's chunk in slot i. It is computed as a ring
 * reduce-scatter: in step t each rank adds its chunk of slot (i-t-1) to what
 * came from the left and passes it right; after N-1 steps each rank holds
 * its own slot. Work proceeds in pieces of the file buffer, so memory does
 * not grow with the data. The XOR file is <set rank+1>_of_<N>_in_<set id>.xor:
 * a header (redundancy_file.h) with DSET, CHUNK, GROUP, CURRENT (this rank's
 * file metas) and PARTNER (the left neighbour's), then the chunk. A lost
 * member is rebuilt by a pipelined reduction along the same ring to it.
 *
 * The ring computes the CRC-32 of each file from the bytes it reads
 * (util_crc_parts.h). The header is written before the ring, with CRC fields
 * of fixed width, and again in place once the ring has read every byte and
 * each rank has its left neighbour's CRCs. A rebuilt member's files are
 * checked against the CRCs its neighbours kept, as they are written. With
 * SCR_CRC_ON_COPY the XOR file is read back after its fsync and checked. */
#include "erasure_xor.h"
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

#define TAG_XOR 4902
#define TAG_HEADER 4903
#define TAG_CRC 4904

/* Offset in a member's logical file of its chunk in slot s (member i skips slot i). */
static uint64_t slot_offset(int member, int slot, uint64_t chunk)
{
    int idx = slot < member ? slot : slot - 1;
    return (uint64_t)idx * chunk;
}

static int wait_for(MPI_Request *req, const char *what)
{
    return scr_mpi_wait(req, what);
}

/* An XOR file being written: where, its descriptor, its header's length. */
struct xor_file {
    char *path;
    int fd;
    uint64_t hlen;
};

/* The XOR file's descriptor, opened again when it was let go. */
static int xor_file_fd(struct xor_file *x)
{
    if (x->fd >= 0) return SCR_SUCCESS;
    int rc = scr_open_regular(x->path, O_RDWR, 0, &x->fd);
    if (rc != SCR_SUCCESS) x->fd = -1;
    return rc;
}

/* Let the descriptor go and keep the file. */
static void xor_file_release(struct xor_file *x)
{
    if (x->fd >= 0) close(x->fd);
    x->fd = -1;
}

static void xor_file_close(struct xor_file *x)
{
    if (x->fd >= 0) close(x->fd);
    free(x->path);
    x->path = NULL;
    x->fd = -1;
}

/* Create the XOR file of this rank with header (listed before it exists). */
static int create_xor_file(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                           int id, const scr_kvtree *header, uint64_t chunk, struct xor_file *x,
                           uint32_t *out_header_crc)
{
    void *image = NULL;
    size_t image_len = 0;
    int rc = scr_kvtree_file_image(header, &image, &image_len);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_redundancy_file_path(ctx, d, 0, &x->path)) != SCR_SUCCESS) goto out;
    rc = scr_redundancy_register_file(ctx, id, x->path, SCR_META_TYPE_XOR, image_len + chunk, 0, 0,
                                      0);
    if (rc != SCR_SUCCESS) goto out;
    if ((rc = scr_redundancy_file_create(x->path, image, image_len, chunk, &x->fd)) != SCR_SUCCESS)
        goto out;
    x->hlen = image_len;
    if (out_header_crc) *out_header_crc = scr_crc32(0, image, image_len);
out:
    free(image);
    return rc;
}

/* Sync the XOR file, read it back with SCR_CRC_ON_COPY, and list it complete
 * with its CRC (crc: of what was written, known with ctx->crc_in_cache). */
static int finish_xor_file(const struct scr_redundancy_ctx *ctx, int id, struct xor_file *x,
                           uint64_t chunk, uint32_t crc)
{
    int rc = xor_file_fd(x);
    if (rc == SCR_SUCCESS) rc = scr_fsync_fd(x->fd, x->path);
    if (rc != SCR_SUCCESS) return rc;
    if (ctx->crc_on_copy) {
        rc = scr_redundancy_read_back(x->fd, x->path, ctx->bufs[0], ctx->buf_size,
                                      ctx->crc_in_cache, &crc);
        if (rc != SCR_SUCCESS) return rc;
    }
    return scr_redundancy_register_file(ctx, id, x->path, SCR_META_TYPE_XOR, x->hlen + chunk,
                                        ctx->crc_in_cache || ctx->crc_on_copy, crc, 1);
}

/* --- apply ---------------------------------------------------------------------------- */

/* What a ring or chain works on for this rank: its files and XOR file, the
 * chunk, and what its reads and writes came to so far. */
struct xor_pass {
    const struct scr_redundancy_ctx *ctx;
    const struct scr_redundancy_files *fs;
    struct xor_file *x;
    uint64_t chunk;
    int rc;            /* the first failed read or write; zeros are sent on after it */
    uint32_t slot_crc; /* of this rank's XOR slot, as written */
};

/* The length of the piece at off of a chunk cut in pieces of piece bytes. */
static size_t piece_len(uint64_t chunk, uint64_t off, size_t piece)
{
    return chunk - off < piece ? (size_t)(chunk - off) : piece;
}

/* Step t of the ring for the len bytes at off of slot: this rank's part of
 * the slot, added to what came from the left (from step 1 on), is sent right
 * from sb, and the next receive from the left is posted into rb. Returns the
 * MPI status; a failed read (in p->rc) sends zeros. */
static int ring_step_piece(struct xor_pass *p, const struct scr_reddesc *d, int t, int slot,
                           uint64_t off, size_t len, char *sb, char *rb, MPI_Request *sreq,
                           MPI_Request *rreq)
{
    const struct scr_redundancy_ctx *ctx = p->ctx;
    uint64_t at = slot_offset(d->set_rank, slot, p->chunk) + off;
    int mrc = wait_for(sreq, "computing XOR data (MPI_Wait)");
    if (mrc != SCR_SUCCESS) return mrc;
    if (p->rc == SCR_SUCCESS)
        p->rc = scr_padfile_read(p->fs->set.parts, (size_t)p->fs->set.count, at, sb, len);
    if (p->rc == SCR_SUCCESS) scr_crc_parts_add(p->fs->crc, at, sb, len);
    if (p->rc != SCR_SUCCESS) memset(sb, 0, len);
    if (t > 0) {
        mrc = wait_for(rreq, "computing XOR data (MPI_Wait)");
        if (mrc == SCR_SUCCESS) scr_xor_accumulate(sb, rb, len);
    }
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(
            MPI_Irecv(rb, (int)len, MPI_BYTE, scr_reddesc_lhs(d), TAG_XOR, ctx->world, rreq),
            "computing XOR data (MPI_Irecv)");
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(
            MPI_Isend(sb, (int)len, MPI_BYTE, scr_reddesc_rhs(d), TAG_XOR, ctx->world, sreq),
            "computing XOR data (MPI_Isend)");
    return mrc;
}

/* The n pieces from p0 that came last from the left, this rank's own slot,
 * written to its XOR file and added to p->slot_crc. Returns the MPI status;
 * a failed write is in p->rc. */
static int ring_write_slot(struct xor_pass *p, uint64_t p0, int n, MPI_Request *rreq)
{
    size_t piece = p->ctx->piece;
    const char *recvbuf = p->ctx->bufs[1];
    int mrc = SCR_SUCCESS;
    if (p->rc == SCR_SUCCESS) p->rc = xor_file_fd(p->x);
    for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
        uint64_t off = p0 + (uint64_t)g * piece;
        size_t len = piece_len(p->chunk, off, piece);
        mrc = wait_for(&rreq[g], "computing XOR data (MPI_Wait)");
        if (mrc == SCR_SUCCESS && p->rc == SCR_SUCCESS)
            p->rc = scr_pwrite_full(p->x->fd, recvbuf + (size_t)g * piece, len, p->x->hlen + off,
                                    p->x->path);
        if (mrc == SCR_SUCCESS && p->rc == SCR_SUCCESS && p->fs->crc != NULL)
            p->slot_crc = scr_crc32(p->slot_crc, recvbuf + (size_t)g * piece, len);
    }
    return mrc;
}

/* The reduce-scatter of apply, writing this rank's slot at x->hlen in its
 * XOR file. Pieces go in groups of as many as stay in flight: step t of every
 * piece of a group is sent before step t+1 of any, so a rank has a group's
 * worth of slack before it waits for its left neighbour, and its reads and
 * writes overlap the transfers. Every byte read passes through fs->crc
 * (when set), and *out_slot_crc is the CRC of this rank's slot as written.
 * Returns the MPI status; a failed read or write (in *io_rc) sends zeros
 * on, so that the ring completes. */
static int xor_ring(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                    struct scr_redundancy_files *fs, uint64_t chunk, struct xor_file *x,
                    uint32_t *out_slot_crc, int *io_rc)
{
    struct xor_pass p = {ctx, fs, x, chunk, *io_rc, 0};
    int N = d->set_size, me = d->set_rank;
    size_t piece = ctx->piece;
    char *sendbuf = ctx->bufs[0], *recvbuf = ctx->bufs[1];
    int depth = scr_stream_depth(ctx->buf_size, piece), mrc = SCR_SUCCESS;
    MPI_Request reqs[2 * SCR_STREAM_MAX_DEPTH];
    MPI_Request *sreq = reqs, *rreq = reqs + SCR_STREAM_MAX_DEPTH;
    for (int j = 0; j < 2 * SCR_STREAM_MAX_DEPTH; j++) reqs[j] = MPI_REQUEST_NULL;
    for (uint64_t p0 = 0; mrc == SCR_SUCCESS && p0 < chunk; p0 += (uint64_t)depth * piece) {
        int n = (int)((chunk - p0 + piece - 1) / piece);
        if (n > depth) n = depth;
        for (int t = 0; mrc == SCR_SUCCESS && t < N - 1; t++) {
            int slot = scr_redundancy_mod(me - t - 1, N);
            for (int g = 0; mrc == SCR_SUCCESS && g < n; g++) {
                uint64_t off = p0 + (uint64_t)g * piece;
                mrc = ring_step_piece(&p, d, t, slot, off, piece_len(chunk, off, piece),
                                      sendbuf + (size_t)g * piece, recvbuf + (size_t)g * piece,
                                      &sreq[g], &rreq[g]);
            }
        }
        /* every byte of this rank's files is read once the last group's
         * steps are sent: their descriptors go before the XOR file's is
         * taken again (under SMPI every rank of the job shares one table
         * of descriptors, and holds them through the ring) */
        if (p0 + (uint64_t)depth * piece >= chunk) scr_padset_release(&fs->set);
        /* what came last is this rank's own slot */
        if (mrc == SCR_SUCCESS) mrc = ring_write_slot(&p, p0, n, rreq);
    }
    if (mrc == SCR_SUCCESS) mrc = scr_mpi_waitall(depth, sreq, "computing XOR data (MPI_Waitall)");
    if (mrc != SCR_SUCCESS) scr_stream_abandon(reqs, 2 * SCR_STREAM_MAX_DEPTH);
    *out_slot_crc = p.slot_crc;
    *io_rc = p.rc;
    return mrc;
}

/* The CRCs the ring computed, in the filemap and in CURRENT of header. */
static int my_crcs_into(const struct scr_redundancy_ctx *ctx, int id,
                        const struct scr_redundancy_files *fs, scr_kvtree *current)
{
    uint32_t *crcs = calloc((size_t)fs->set.count + 1, sizeof(uint32_t));
    if (crcs == NULL) return SCR_ERR_NOMEM;
    int rc = scr_redundancy_record_read(ctx, id, fs, crcs);
    if (rc == SCR_SUCCESS) rc = scr_redundancy_fix_width(current, crcs);
    free(crcs);
    return rc;
}

/* The header with its left neighbour's metas (left, taken) as PARTNER,
 * written again in place. */
static int rewrite_header(scr_kvtree *header, scr_kvtree *left, struct xor_file *x,
                          uint32_t *out_header_crc)
{
    /* set() takes ownership, also when it fails */
    if (scr_kvtree_set(header, "PARTNER", left) == NULL) return SCR_ERR_NOMEM;
    int rc = xor_file_fd(x);
    if (rc != SCR_SUCCESS) return rc;
    return scr_redundancy_file_write_header(x->fd, x->path, header, x->hlen, out_header_crc);
}

/* After the ring: this rank's files' CRCs go into the filemap and into its
 * header as CURRENT, travel right, and the left neighbour's come back as
 * PARTNER; the header is then written again in place (its CRC fields have
 * a fixed width), and *out_header_crc is its CRC. Every rank of the set
 * calls it; the outcome is in *io_rc, the MPI status is returned. */
static int settle_crcs(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                       const struct scr_redundancy_files *fs, scr_kvtree *header,
                       struct xor_file *x, uint32_t *out_header_crc, int *io_rc)
{
    int rc = *io_rc;
    scr_kvtree *current = scr_kvtree_get(header, "CURRENT"), *left = NULL;
    if (rc == SCR_SUCCESS) rc = my_crcs_into(ctx, id, fs, current);
    /* a rank that failed still takes part, with an empty description */
    int mrc = scr_comm_sendrecv_kvtree(rc == SCR_SUCCESS ? current : NULL, scr_reddesc_rhs(d),
                                       scr_reddesc_lhs(d), TAG_CRC, ctx->world, &left);
    if (rc == SCR_SUCCESS)
        rc = mrc != SCR_SUCCESS ? mrc : rewrite_header(header, left, x, out_header_crc);
    else
        scr_kvtree_delete(left);
    *io_rc = rc;
    return mrc;
}

/* This rank's header (CURRENT a copy of its description, PARTNER the left
 * neighbour's, which it takes) and XOR file, created. */
static int start_xor_file(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                          const struct scr_redundancy_files *fs, scr_kvtree *partner,
                          uint64_t chunk, scr_kvtree **out_header, struct xor_file *x)
{
    const scr_dataset *desc = NULL;
    scr_kvtree *current = scr_kvtree_dup(fs->desc);
    int rc = current ? scr_filemap_get_dataset(ctx->map, id, ctx->rank, &desc) : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(current);
        scr_kvtree_delete(partner);
        return rc;
    }
    rc = scr_redundancy_file_xor_header(desc, ctx->ranks, chunk, d->members, d->set_size, current,
                                        partner, out_header);
    if (rc != SCR_SUCCESS) return rc;
    return create_xor_file(ctx, d, id, *out_header, chunk, x, NULL);
}

/* This rank's files, opened and described for the XOR file. */
static int open_mine(const struct scr_redundancy_ctx *ctx, int id, struct scr_redundancy_files *fs)
{
    int rc = scr_redundancy_files_mine(ctx, id, O_RDONLY, fs);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_redundancy_files_track(ctx, fs)) != SCR_SUCCESS) return rc;
    /* the header is written before the CRCs are known, and again after */
    return ctx->crc_in_cache ? scr_redundancy_fix_width(fs->desc, NULL) : SCR_SUCCESS;
}

int scr_redundancy_xor_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                             int id)
{
    int N = d->set_size, ok = 0;
    struct scr_redundancy_files fs = {0};
    struct xor_file x = {NULL, -1, 0};
    scr_kvtree *partner = NULL, *header = NULL;
    uint32_t slot_crc = 0, header_crc = 0;
    int rc = open_mine(ctx, id, &fs);

    /* the chunk size fits the largest member's data into N-1 chunks */
    unsigned long long most = 0;
    /* all ranks of the set agree: */
    int mrc = scr_comm_most_and_all_true(fs.set.total, rc == SCR_SUCCESS, d->set, &most, &ok);
    uint64_t chunk = (most + (uint64_t)(N - 2)) / (uint64_t)(N - 1);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* my file metas travel right, so that two XOR files hold each rank's metas */
    rc = scr_comm_sendrecv_kvtree(fs.desc, scr_reddesc_rhs(d), scr_reddesc_lhs(d), TAG_HEADER,
                                  ctx->world, &partner);
    if (rc == SCR_SUCCESS)
        rc = start_xor_file(ctx, d, id, &fs, partner, chunk, &header, &x);
    else
        scr_kvtree_delete(partner);
    /* not held while the set agrees and its ring turns: taken again to write */
    xor_file_release(&x);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* the ring reduce-scatter */
    mrc = xor_ring(ctx, d, &fs, chunk, &x, &slot_crc, &rc);
    if (mrc == SCR_SUCCESS && ctx->crc_in_cache)
        mrc = settle_crcs(ctx, d, id, &fs, header, &x, &header_crc, &rc);
    if (mrc != SCR_SUCCESS) goto done;
    uint32_t crc = ctx->crc_in_cache ? scr_crc32_combine(header_crc, slot_crc, chunk) : 0;
    if (rc == SCR_SUCCESS) rc = finish_xor_file(ctx, id, &x, chunk, crc);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    xor_file_close(&x);
    scr_redundancy_files_close(&fs);
    scr_kvtree_delete(header);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* --- rebuild -------------------------------------------------------------------------- */

/* A surviving member's side: its files and its XOR file (open for reading,
 * its header read), and the chunk size. */
static int open_survivor(const struct scr_redundancy_ctx *ctx, int id,
                         struct scr_redundancy_files *fs, struct xor_file *x,
                         scr_kvtree **out_header, uint64_t *out_chunk)
{
    int rc = scr_redundancy_files_mine(ctx, id, O_RDONLY, fs);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_redundancy_find_file(ctx, id, SCR_META_TYPE_XOR, &x->path);
    if (rc == SCR_ERR_NOTFOUND) scr_err("rank %d has no XOR file for dataset %d", ctx->rank, id);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_open_regular(x->path, O_RDONLY, 0, &x->fd)) != SCR_SUCCESS) {
        x->fd = -1;
        if (rc == SCR_ERR_NOTFOUND) scr_err("cannot open %s: %s", x->path, strerror(ENOENT));
        return SCR_ERR_IO;
    }
    rc = scr_redundancy_file_read_header(x->fd, x->path, out_header, &x->hlen);
    if (rc != SCR_SUCCESS) return rc;
    return scr_kvtree_util_get_uint64(*out_header, "CHUNK", out_chunk);
}

/* The lost member's new header: its right neighbour's, with its own files
 * (PARTNER there) as CURRENT and its left neighbour's (CURRENT there) as
 * PARTNER. */
static int root_header(const struct scr_redundancy_ctx *ctx, const scr_kvtree *from_rhs,
                       const scr_kvtree *from_lhs, scr_kvtree **out_header, uint64_t *out_chunk)
{
    const scr_kvtree *mine = scr_kvtree_get(from_rhs, "PARTNER");
    int n = 0, rank = -1;
    if (scr_kvtree_util_get_int(mine, "FILES", &n) != SCR_SUCCESS ||
        scr_kvtree_util_get_int(mine, "RANK", &rank) != SCR_SUCCESS || rank != ctx->rank ||
        scr_kvtree_util_get_uint64(from_rhs, "CHUNK", out_chunk) != SCR_SUCCESS) {
        scr_err("rank %d: the XOR header of its neighbour does not describe its files", ctx->rank);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *h = scr_kvtree_dup(from_rhs);
    if (h == NULL) return SCR_ERR_NOMEM;
    scr_kvtree_unset(h, "CURRENT");
    scr_kvtree_unset(h, "PARTNER");
    if (scr_kvtree_set(h, "CURRENT", scr_kvtree_dup(mine)) == NULL ||
        scr_kvtree_set(h, "PARTNER", scr_kvtree_dup(scr_kvtree_get(from_lhs, "CURRENT"))) == NULL) {
        scr_kvtree_delete(h);
        return SCR_ERR_NOMEM;
    }
    *out_header = h;
    return SCR_SUCCESS;
}

/* The lost member's side: its files and XOR file, registered and created
 * from the metas its neighbours kept. */
static int prepare_root(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                        const scr_kvtree *from_rhs, const scr_kvtree *from_lhs,
                        struct scr_redundancy_files *fs, struct xor_file *x, uint64_t *out_chunk,
                        uint32_t *out_header_crc)
{
    scr_kvtree *header = NULL;
    int rc = root_header(ctx, from_rhs, from_lhs, &header, out_chunk);
    if (rc != SCR_SUCCESS) return rc;
    /* a rank without files of its own still needs the directory for its XOR file */
    if ((rc = scr_mkdir_p(ctx->dsdir, 0700)) != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_dataset(ctx->map, id, ctx->rank, scr_kvtree_get(from_rhs, "DSET"));
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_files_register(ctx, id, ctx->rank, scr_kvtree_get(header, "CURRENT"), NULL,
                                       fs);
    if (rc != SCR_SUCCESS) goto out;
    if ((rc = create_xor_file(ctx, d, id, header, *out_chunk, x, out_header_crc)) != SCR_SUCCESS)
        goto out;
    /* every file gets its full length, even where the rebuilt bytes are zeros */
    if ((rc = scr_padset_open(&fs->set, O_WRONLY | O_CREAT | O_TRUNC)) != SCR_SUCCESS) goto out;
    if ((rc = scr_padset_truncate(&fs->set)) != SCR_SUCCESS) goto out;
    /* the rebuilt files are checked against the CRCs the neighbours kept as they are written */
    rc = scr_redundancy_files_track(ctx, fs);
out:
    scr_kvtree_delete(header);
    return rc;
}

/* The root's part of the len bytes at off of slot s: what came from the left
 * into rb is its rebuilt data, written to its XOR file (its own slot) or to
 * its files, and through the CRCs. Returns the MPI status; a failed write
 * is in p->rc. */
static int chain_root_take(struct xor_pass *p, int me, int s, uint64_t off, size_t len,
                           const char *rb, MPI_Request *rreq)
{
    const struct scr_redundancy_files *fs = p->fs;
    uint64_t at = slot_offset(me, s, p->chunk) + off;
    int mrc = wait_for(rreq, "rebuilding from XOR data (MPI_Wait)");
    if (mrc == SCR_SUCCESS && p->rc == SCR_SUCCESS)
        p->rc = s == me ? scr_pwrite_full(p->x->fd, rb, len, p->x->hlen + off, p->x->path)
                        : scr_padfile_write(fs->set.parts, (size_t)fs->set.count, at, rb, len);
    if (mrc == SCR_SUCCESS && p->rc == SCR_SUCCESS && fs->crc != NULL) {
        if (s == me)
            p->slot_crc = scr_crc32(p->slot_crc, rb, len);
        else
            scr_crc_parts_add(fs->crc, at, rb, len);
    }
    return mrc;
}

/* A member's part of the len bytes at off of slot s (its XOR chunk in its
 * own slot, its data elsewhere), added to what came from the left into rb
 * unless it heads the chain (dist 1), and sent right from sb. Returns the
 * MPI status; a failed read (in p->rc) sends zeros. */
static int chain_member_pass(struct xor_pass *p, const struct scr_reddesc *d, int dist, int s,
                             uint64_t off, size_t len, char *sb, const char *rb, MPI_Request *sreq,
                             MPI_Request *rreq)
{
    const struct scr_redundancy_files *fs = p->fs;
    int me = d->set_rank;
    uint64_t at = slot_offset(me, s, p->chunk) + off;
    int mrc = wait_for(sreq, "rebuilding from XOR data (MPI_Wait)");
    if (mrc != SCR_SUCCESS) return mrc;
    if (p->rc == SCR_SUCCESS)
        p->rc = s == me ? scr_pread_full(p->x->fd, sb, len, p->x->hlen + off, p->x->path)
                        : scr_padfile_read(fs->set.parts, (size_t)fs->set.count, at, sb, len);
    if (p->rc != SCR_SUCCESS) memset(sb, 0, len);
    if (dist > 1) {
        mrc = wait_for(rreq, "rebuilding from XOR data (MPI_Wait)");
        if (mrc == SCR_SUCCESS) scr_xor_accumulate(sb, rb, len);
    }
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(
            MPI_Isend(sb, (int)len, MPI_BYTE, scr_reddesc_rhs(d), TAG_XOR, p->ctx->world, sreq),
            "rebuilding from XOR data (MPI_Isend)");
    return mrc;
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
static int xor_chain(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int root,
                     const struct scr_redundancy_files *fs, uint64_t chunk, struct xor_file *x,
                     uint32_t *out_slot_crc, int *io_rc)
{
    struct xor_pass p = {ctx, fs, x, chunk, *io_rc, 0};
    int N = d->set_size, me = d->set_rank, dist = scr_redundancy_mod(me - root, N);
    int lhs = scr_reddesc_lhs(d);
    size_t piece = ctx->piece;
    char *sendbuf = ctx->bufs[0], *recvbuf = ctx->bufs[1];
    int depth = scr_stream_depth(ctx->buf_size, piece), mrc = SCR_SUCCESS;
    uint64_t ops = (chunk + piece - 1) / piece * (uint64_t)N; /* (piece, slot), piece by piece */
    MPI_Request reqs[2 * SCR_STREAM_MAX_DEPTH];
    MPI_Request *sreq = reqs, *rreq = reqs + SCR_STREAM_MAX_DEPTH;
    for (int j = 0; j < 2 * SCR_STREAM_MAX_DEPTH; j++) reqs[j] = MPI_REQUEST_NULL;
#define OP_OFF(k) ((k) / (uint64_t)N * piece)
#define OP_LEN(k) piece_len(chunk, OP_OFF(k), piece)
    /* everyone but the head of the chain takes from the left */
    for (uint64_t k = 0; dist != 1 && mrc == SCR_SUCCESS && k < ops && k < (uint64_t)depth; k++)
        mrc = scr_mpi_check(MPI_Irecv(recvbuf + k * piece, (int)OP_LEN(k), MPI_BYTE, lhs, TAG_XOR,
                                      ctx->world, &rreq[k]),
                            "rebuilding from XOR data (MPI_Irecv)");
    for (uint64_t k = 0; mrc == SCR_SUCCESS && k < ops; k++) {
        int j = (int)(k % (uint64_t)depth), s = (int)(k % (uint64_t)N);
        char *sb = sendbuf + (size_t)j * piece, *rb = recvbuf + (size_t)j * piece;
        if (dist == 0)
            mrc = chain_root_take(&p, me, s, OP_OFF(k), OP_LEN(k), rb, &rreq[j]);
        else
            mrc =
                chain_member_pass(&p, d, dist, s, OP_OFF(k), OP_LEN(k), sb, rb, &sreq[j], &rreq[j]);
        uint64_t next = k + (uint64_t)depth;
        if (mrc == SCR_SUCCESS && dist != 1 && next < ops)
            mrc = scr_mpi_check(
                MPI_Irecv(rb, (int)OP_LEN(next), MPI_BYTE, lhs, TAG_XOR, ctx->world, &rreq[j]),
                "rebuilding from XOR data (MPI_Irecv)");
    }
#undef OP_OFF
#undef OP_LEN
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Waitall(depth, sreq, MPI_STATUSES_IGNORE),
                            "rebuilding from XOR data (MPI_Waitall)");
    if (mrc != SCR_SUCCESS) scr_stream_abandon(reqs, 2 * SCR_STREAM_MAX_DEPTH);
    *out_slot_crc = p.slot_crc;
    *io_rc = p.rc;
    return mrc;
}

/* The neighbours of the lost member send it their headers; it prepares its
 * files. Returns the MPI status, the outcome in *io_rc. */
static int meet_root(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                     int root, const scr_kvtree *header, struct scr_redundancy_files *fs,
                     struct xor_file *x, uint64_t *io_chunk, uint32_t *out_header_crc, int *io_rc)
{
    int N = d->set_size, dist = scr_redundancy_mod(d->set_rank - root, N);
    scr_kvtree *from_rhs = NULL, *from_lhs = NULL;
    int mrc = SCR_SUCCESS;
    if (dist == 1) mrc = scr_comm_send_kvtree(header, d->members[root], TAG_HEADER, ctx->world);
    if (mrc == SCR_SUCCESS && dist == N - 1)
        mrc = scr_comm_send_kvtree(header, d->members[root], TAG_HEADER + 1, ctx->world);
    if (mrc == SCR_SUCCESS && dist == 0) {
        mrc = scr_comm_recv_kvtree(d->members[(root + 1) % N], TAG_HEADER, ctx->world, &from_rhs);
        if (mrc == SCR_SUCCESS)
            mrc = scr_comm_recv_kvtree(d->members[(root + N - 1) % N], TAG_HEADER + 1, ctx->world,
                                       &from_lhs);
        if (mrc == SCR_SUCCESS)
            *io_rc = prepare_root(ctx, d, id, from_rhs, from_lhs, fs, x, io_chunk, out_header_crc);
    }
    scr_kvtree_delete(from_rhs);
    scr_kvtree_delete(from_lhs);
    return mrc;
}

/* The root's files once every byte arrived: synced, checked, listed complete. */
static int finish_root(const struct scr_redundancy_ctx *ctx, int id,
                       const struct scr_redundancy_files *fs, struct xor_file *x, uint64_t chunk,
                       uint32_t header_crc, uint32_t slot_crc)
{
    int rc = scr_padset_sync(&fs->set);
    if (rc != SCR_SUCCESS) return rc;
    if (ctx->crc_in_cache &&
        (rc = scr_redundancy_check_rebuilt(ctx, id, fs, " rebuilt from XOR")) != SCR_SUCCESS)
        return rc;
    uint32_t crc = ctx->crc_in_cache ? scr_crc32_combine(header_crc, slot_crc, chunk) : 0;
    if ((rc = finish_xor_file(ctx, id, x, chunk, crc)) != SCR_SUCCESS) return rc;
    if ((rc = scr_filemap_set_expected_files(ctx->map, id, ctx->rank, fs->set.count + 1)) !=
        SCR_SUCCESS)
        return rc;
    return scr_redundancy_save_filemap(ctx);
}

/* Rebuild the files of set rank root from the rest of its set. */
static int rebuild_root(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                        int root)
{
    int is_root = d->set_rank == root, ok = 0, rc = SCR_SUCCESS;
    struct scr_redundancy_files fs = {0};
    struct xor_file x = {NULL, -1, 0};
    scr_kvtree *header = NULL;
    uint64_t chunk = 0;
    uint32_t header_crc = 0, slot_crc = 0;
    if (!is_root) rc = open_survivor(ctx, id, &fs, &x, &header, &chunk);
    /* all ranks of the set agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;
    mrc = meet_root(ctx, d, id, root, header, &fs, &x, &chunk, &header_crc, &rc);
    /* all ranks of the set agree (the buffers too): */
    if (mrc == SCR_SUCCESS)
        mrc = scr_comm_all_true(rc == SCR_SUCCESS && ctx->bufs[0] && ctx->bufs[1], d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* for every piece of every slot: a reduction along the chain to the root */
    mrc = xor_chain(ctx, d, root, &fs, chunk, &x, &slot_crc, &rc);
    if (mrc != SCR_SUCCESS) goto done;
    if (is_root && rc == SCR_SUCCESS)
        rc = finish_root(ctx, id, &fs, &x, chunk, header_crc, slot_crc);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    xor_file_close(&x);
    scr_redundancy_files_close(&fs);
    scr_kvtree_delete(header);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

int scr_redundancy_xor_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                               int id, int lost)
{
    /* the lost member (XOR rebuilds one) is known to the whole set */
    int mine = lost ? d->set_rank : -1, root = -1;
    int rc = scr_mpi_check(MPI_Allreduce(&mine, &root, 1, MPI_INT, MPI_MAX, d->set),
                           "finding the lost member");
    if (rc != SCR_SUCCESS || root < 0) return rc;
    return rebuild_root(ctx, d, id, root);
}
