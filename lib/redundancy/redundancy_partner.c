/* redundancy_partner.c — PARTNER: every rank's files copied to its right
 * neighbour in its set (HOP places away).
 *
 * Apply: each rank streams its files to its right neighbour, which keeps
 * them under the owner's rank in its filemap (tags HOLDER=PARTNER and
 * NODE=<the owner's node>), at <dsdir>/partner.<owner>/<name>, so that a
 * restart can hand them back like any other copy and a scavenge can find
 * the copies of a failed node's ranks. A right neighbour that says it holds
 * an intact copy already (after a restart that rebuilt only some members)
 * gets the description again but not the bytes.
 *
 * The CRC-32 of each file comes from the bytes the stream reads
 * (util_crc_parts.h), one pass on each side: the sender records its own and
 * passes them right, and the holder keeps them for its copy without
 * computing them again (MPI delivers what was sent; the copy is checked
 * when a rebuild reads it back). With SCR_CRC_ON_COPY the holder reads its
 * copy back after its fsync and checks it against them.
 *
 * Rebuild: a rank that lost its files gets them back from the copy its
 * right neighbour holds, checked against the CRCs recorded with the copy as
 * they are written. Forget: the copy this rank holds of its left
 * neighbour's files, and its filemap entries. */
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_stream.h"
#include "redundancy_schemes.h"
#include "scr_err.h"
#include "util_crc_parts.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_PARTNER 4901
#define TAG_HEADER 4903
#define TAG_CRC 4904

/* partner.<owner>: where a holder keeps owner's files, under the dataset's directory. */
static void copy_dir_name(int owner, char *buf, size_t len)
{
    snprintf(buf, len, "partner.%d", owner);
}

/* --- apply ---------------------------------------------------------------------------- */

/* This rank's files (opened unless rhs_has_copy: then only described) and
 * their description for the holder: the metas, NODE, DSETDESC, REDDESC. */
static int describe_mine(const struct scr_redundancy_ctx *ctx, int id, int rhs_has_copy,
                         struct scr_redundancy_files *out)
{
    const scr_dataset *desc = NULL;
    const scr_kvtree *red = NULL;
    int rc = scr_redundancy_files_mine(ctx, id, rhs_has_copy ? -1 : O_RDONLY, out);
    if (rc != SCR_SUCCESS) return rc;
    /* the description still travels (the holder checks who sent it), the bytes do not */
    if (rhs_has_copy)
        out->set.total = 0;
    else if ((rc = scr_redundancy_files_track(ctx, out)) != SCR_SUCCESS)
        return rc;
    if ((rc = scr_filemap_get_dataset(ctx->map, id, ctx->rank, &desc)) != SCR_SUCCESS) return rc;
    if ((rc = scr_filemap_get_reddesc(ctx->map, id, ctx->rank, &red)) != SCR_SUCCESS) return rc;
    if ((rc = scr_kvtree_util_set_str(out->desc, "NODE", ctx->node_name)) != SCR_SUCCESS) return rc;
    if (scr_kvtree_set(out->desc, "DSETDESC", scr_kvtree_dup(desc)) == NULL ||
        scr_kvtree_set(out->desc, "REDDESC", scr_kvtree_dup(red)) == NULL)
        return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* Record (before the data arrives) the left neighbour's files as held
 * here, and create them. */
static int hold_left_files(const struct scr_redundancy_ctx *ctx, int id, int owner,
                           const scr_kvtree *info, struct scr_redundancy_files *in)
{
    char sub[64];
    const char *node = NULL;
    int n = 0;
    int rc = scr_kvtree_util_get_int(info, "FILES", &n);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_filemap_set_dataset(ctx->map, id, owner, scr_kvtree_get(info, "DSETDESC"))) !=
            SCR_SUCCESS ||
        (rc = scr_filemap_set_reddesc(ctx->map, id, owner, scr_kvtree_get(info, "REDDESC"))) !=
            SCR_SUCCESS ||
        (rc = scr_filemap_set_tag(ctx->map, id, owner, "HOLDER", "PARTNER")) != SCR_SUCCESS)
        return rc;
    /* the owner's node, so that a scavenge told that node failed finds its copies */
    if (scr_kvtree_util_get_str(info, "NODE", &node) == SCR_SUCCESS &&
        (rc = scr_filemap_set_tag(ctx->map, id, owner, "NODE", node)) != SCR_SUCCESS)
        return rc;
    if ((rc = scr_filemap_set_expected_files(ctx->map, id, owner, n)) != SCR_SUCCESS) return rc;
    copy_dir_name(owner, sub, sizeof(sub));
    if ((rc = scr_redundancy_files_register(ctx, id, owner, info, sub, in)) != SCR_SUCCESS)
        return rc;
    if ((rc = scr_redundancy_save_filemap(ctx)) != SCR_SUCCESS) return rc;
    /* no CRC of what arrives: the sender's, of the bytes it read, is the
     * copy's, checked when a rebuild reads the copy (and here with
     * SCR_CRC_ON_COPY, which reads the copy back; hence readable too) */
    return scr_padset_open(&in->set, O_RDWR | O_CREAT | O_TRUNC);
}

/* CRCs as FILES n, FILE i {CRC}, as a description of files holds them. */
static int crc_list(const uint32_t *crcs, int n, scr_kvtree **out)
{
    scr_kvtree *t = scr_kvtree_new();
    if (t == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_util_set_int(t, "FILES", n);
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

/* The CRCs of the files this rank sent (recorded in its filemap), or an
 * empty list when it sent none. */
static int sent_crcs(const struct scr_redundancy_ctx *ctx, int id,
                     const struct scr_redundancy_files *out, int sent, scr_kvtree **out_list)
{
    uint32_t *crcs = calloc((size_t)out->set.count + 1, sizeof(uint32_t));
    if (crcs == NULL) return SCR_ERR_NOMEM;
    int rc = sent ? scr_redundancy_record_read(ctx, id, out, crcs) : SCR_SUCCESS;
    if (rc == SCR_SUCCESS) rc = crc_list(crcs, sent ? out->set.count : 0, out_list);
    free(crcs);
    return rc;
}

/* The holder's side: the copy of owner's files gets the CRCs owner sent
 * (theirs), of the bytes it read; with SCR_CRC_ON_COPY the copy is read
 * back after its sync and checked against them. */
static int check_copy(const struct scr_redundancy_ctx *ctx, int id, int owner,
                      const struct scr_redundancy_files *in, const scr_kvtree *theirs, char *buf)
{
    for (int i = 0; i < in->set.count; i++) {
        const char *path = in->set.paths[i];
        uint32_t want = 0;
        if (scr_meta_get_crc32(scr_kvtree_get_kv_int(theirs, "FILE", i), &want) != SCR_SUCCESS) {
            scr_err("the copy %s of rank %d's file: its CRC32 is not known", path, owner);
            return SCR_FAILURE;
        }
        int rc = ctx->crc_on_copy ? scr_redundancy_read_back(in->set.parts[i].fd, path, buf,
                                                             ctx->buf_size, 1, &want)
                                  : SCR_SUCCESS;
        if (rc == SCR_SUCCESS) rc = scr_redundancy_record_crc(ctx->map, id, owner, path, want, 1);
        if (rc != SCR_SUCCESS) return rc;
    }
    return in->set.count > 0 ? scr_redundancy_save_filemap(ctx) : SCR_SUCCESS;
}

/* After the stream: each rank records the CRCs of the files it sent (when
 * it sent them) and passes them right; the holder checks its copy against
 * them. Every rank of the set calls it; the outcome is in *io_rc, the MPI
 * status is returned. */
static int settle_crcs(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                       const struct scr_redundancy_files *out,
                       const struct scr_redundancy_files *in, int sent, int received, int *io_rc)
{
    int rc = *io_rc, lhs = scr_reddesc_lhs(d);
    scr_kvtree *mine = NULL, *theirs = NULL;
    if (rc == SCR_SUCCESS) rc = sent_crcs(ctx, id, out, sent, &mine);
    /* a rank that failed still takes part, with an empty list */
    int mrc = scr_comm_sendrecv_kvtree(rc == SCR_SUCCESS ? mine : NULL, scr_reddesc_rhs(d), lhs,
                                       TAG_CRC, ctx->world, &theirs);
    if (rc == SCR_SUCCESS) rc = mrc;
    if (rc == SCR_SUCCESS && received) rc = check_copy(ctx, id, lhs, in, theirs, ctx->bufs[0]);
    scr_kvtree_delete(mine);
    scr_kvtree_delete(theirs);
    *io_rc = rc;
    return mrc;
}

/* Send my bytes right while the left neighbour's arrive, then sync them.
 * An MPI error (logged) is SCR_FAILURE like a failed read or write: the
 * agreement that follows tells every rank. */
static int stream_ring(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                       const struct scr_redundancy_files *out,
                       const struct scr_redundancy_files *in)
{
    struct scr_stream_side to = {out->set.parts, (size_t)out->set.count, out->set.total,
                                 scr_reddesc_rhs(d), out->crc};
    struct scr_stream_side from = {in->set.parts, (size_t)in->set.count, in->set.total,
                                   scr_reddesc_lhs(d), in->crc};
    int read_rc = SCR_SUCCESS, write_rc = SCR_SUCCESS;
    int rc = scr_stream_exchange(&to, &from, ctx->world, TAG_PARTNER, ctx->bufs[0], ctx->bufs[1],
                                 ctx->piece, scr_stream_depth(ctx->buf_size, ctx->piece), &read_rc,
                                 &write_rc);
    if (rc != SCR_SUCCESS) return rc;
    if (read_rc != SCR_SUCCESS) return read_rc;
    if (write_rc != SCR_SUCCESS) return write_rc;
    return scr_padset_sync(&in->set);
}

/* Who holds the copies must be known on both sides before any byte moves:
 * the left neighbour's description arrives, and is checked and held. */
static int take_description(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                            int id, const struct scr_redundancy_files *out, int have_left_copy,
                            struct scr_redundancy_files *in)
{
    scr_kvtree *theirs = NULL;
    int lhs = scr_reddesc_lhs(d), lhs_rank = -1;
    int rc = scr_comm_sendrecv_kvtree(out->desc, scr_reddesc_rhs(d), lhs, TAG_HEADER, ctx->world,
                                      &theirs);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_util_get_int(theirs, "RANK", &lhs_rank);
    if (lhs_rank != lhs) {
        scr_err("partner data came from rank %d, expected %d", lhs_rank, lhs);
        rc = SCR_ERR_FORMAT;
    } else if (!have_left_copy) {
        rc = hold_left_files(ctx, id, lhs, theirs, in);
    }
    scr_kvtree_delete(theirs);
    return rc;
}

int scr_redundancy_partner_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                 int id, int have_left_copy)
{
    struct scr_redundancy_files out = {0}, in = {0};
    int rhs_has_copy = 0, ok = 0;
    int rc = scr_mpi_check(MPI_Sendrecv(&have_left_copy, 1, MPI_INT, scr_reddesc_lhs(d), TAG_HEADER,
                                        &rhs_has_copy, 1, MPI_INT, scr_reddesc_rhs(d), TAG_HEADER,
                                        ctx->world, MPI_STATUS_IGNORE),
                           "asking partners which copies they hold");
    if (rc == SCR_SUCCESS) rc = describe_mine(ctx, id, rhs_has_copy, &out);
    /* all ranks of the set agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    rc = take_description(ctx, d, id, &out, have_left_copy, &in);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    rc = stream_ring(ctx, d, &out, &in);
    if (ctx->crc_in_cache)
        mrc = settle_crcs(ctx, d, id, &out, &in, !rhs_has_copy, !have_left_copy, &rc);
    /* all ranks of the set agree: */
    if (mrc == SCR_SUCCESS) mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    scr_redundancy_files_close(&out);
    scr_redundancy_files_close(&in);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* --- rebuild -------------------------------------------------------------------------- */

/* The holder's side: the copy this rank keeps of owner's files, opened for
 * reading, described with the dataset (DSETDESC) for the owner. */
static int open_copy(const struct scr_redundancy_ctx *ctx, int id, int owner,
                     struct scr_redundancy_files *out)
{
    const char *holder = NULL;
    const char **files = NULL;
    const scr_dataset *dset = NULL;
    int n = 0;
    memset(out, 0, sizeof(*out));
    if (scr_filemap_get_tag(ctx->map, id, owner, "HOLDER", &holder) != SCR_SUCCESS ||
        strcmp(holder, "PARTNER") != 0 ||
        scr_filemap_get_dataset(ctx->map, id, owner, &dset) != SCR_SUCCESS) {
        scr_err("rank %d holds no copy of rank %d's files of dataset %d", ctx->rank, owner, id);
        return SCR_ERR_NOTFOUND;
    }
    int rc = scr_filemap_list_files(ctx->map, id, owner, &files, &n);
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_padset_init(&out->set, n)) != SCR_SUCCESS) goto out;
    if ((out->desc = scr_kvtree_new()) == NULL ||
        scr_kvtree_set(out->desc, "DSETDESC", scr_kvtree_dup(dset)) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    if ((rc = scr_kvtree_util_set_int(out->desc, "RANK", owner)) != SCR_SUCCESS ||
        (rc = scr_kvtree_util_set_int(out->desc, "FILES", n)) != SCR_SUCCESS)
        goto out;
    for (int i = 0; i < n; i++) {
        const scr_meta *m = NULL;
        uint64_t size = 0;
        scr_kvtree *slot = scr_kvtree_set_kv_int(out->desc, "FILE", i);
        if ((rc = scr_filemap_get_meta(ctx->map, id, owner, files[i], &m)) != SCR_SUCCESS) goto out;
        if (slot == NULL || scr_kvtree_copy(slot, m) != SCR_SUCCESS) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
        if ((rc = scr_meta_get_filesize(m, &size)) != SCR_SUCCESS) goto out;
        if ((rc = scr_padset_add(&out->set, files[i], size)) != SCR_SUCCESS) goto out;
    }
    rc = scr_padset_open(&out->set, O_RDONLY);
out:
    free(files);
    if (rc != SCR_SUCCESS) scr_redundancy_files_close(out);
    return rc;
}

/* The owner's side: its files as the holder described them, listed (before
 * they exist) and created under the dataset's directory. */
static int take_back(const struct scr_redundancy_ctx *ctx, int id, const scr_kvtree *desc,
                     struct scr_redundancy_files *in)
{
    int n = 0;
    int rc = scr_kvtree_util_get_int(desc, "FILES", &n);
    if (rc != SCR_SUCCESS) {
        scr_err("rank %d: its partner sent no description of its files", ctx->rank);
        return SCR_ERR_FORMAT;
    }
    if ((rc = scr_filemap_set_dataset(ctx->map, id, ctx->rank, scr_kvtree_get(desc, "DSETDESC"))) !=
        SCR_SUCCESS)
        return rc;
    if ((rc = scr_redundancy_files_register(ctx, id, ctx->rank, desc, NULL, in)) != SCR_SUCCESS)
        return rc;
    if ((rc = scr_filemap_set_expected_files(ctx->map, id, ctx->rank, n)) != SCR_SUCCESS) return rc;
    if ((rc = scr_redundancy_save_filemap(ctx)) != SCR_SUCCESS) return rc;
    if ((rc = scr_redundancy_files_track(ctx, in)) != SCR_SUCCESS) return rc;
    return scr_padset_open(&in->set, O_WRONLY | O_CREAT | O_TRUNC);
}

/* The owner's files once every byte arrived: synced and checked. */
static int finish_taken(const struct scr_redundancy_ctx *ctx, int id,
                        const struct scr_redundancy_files *in)
{
    int rc = scr_padset_sync(&in->set);
    if (rc != SCR_SUCCESS) return rc;
    if (ctx->crc_in_cache)
        return scr_redundancy_check_rebuilt(ctx, id, in, " rebuilt from its PARTNER copy");
    return scr_redundancy_save_filemap(ctx);
}

int scr_redundancy_partner_rebuild(const struct scr_redundancy_ctx *ctx,
                                   const struct scr_reddesc *d, int id, int lost)
{
    struct scr_redundancy_files out = {0}, in = {0};
    scr_kvtree *mine = NULL;
    int lhs = scr_reddesc_lhs(d), rhs = scr_reddesc_rhs(d), lhs_lost = 0, ok = 0, rc = SCR_SUCCESS;
    /* each rank tells the holder of its copy whether it needs it */
    int mrc = scr_mpi_check(MPI_Sendrecv(&lost, 1, MPI_INT, rhs, TAG_HEADER, &lhs_lost, 1, MPI_INT,
                                         lhs, TAG_HEADER, ctx->world, MPI_STATUS_IGNORE),
                            "asking partners which copies are needed");
    if (mrc != SCR_SUCCESS) return mrc;
    if (lhs_lost) rc = open_copy(ctx, id, lhs, &out);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    mrc = scr_comm_sendrecv_kvtree(lhs_lost ? out.desc : NULL, lhs, rhs, TAG_HEADER + 1, ctx->world,
                                   &mine);
    if (mrc != SCR_SUCCESS) goto done;
    if (lost) rc = take_back(ctx, id, mine, &in);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto done;

    /* the copy streams back left, checked against its CRCs as it is written */
    struct scr_stream_side to = {out.set.parts, (size_t)out.set.count, out.set.total,
                                 lhs_lost ? lhs : MPI_PROC_NULL, NULL};
    struct scr_stream_side from = {in.set.parts, (size_t)in.set.count, in.set.total,
                                   lost ? rhs : MPI_PROC_NULL, in.crc};
    int read_rc = SCR_SUCCESS, write_rc = SCR_SUCCESS;
    mrc = scr_stream_exchange(&to, &from, ctx->world, TAG_PARTNER, ctx->bufs[0], ctx->bufs[1],
                              ctx->piece, scr_stream_depth(ctx->buf_size, ctx->piece), &read_rc,
                              &write_rc);
    if (mrc != SCR_SUCCESS) goto done;
    rc = read_rc != SCR_SUCCESS ? read_rc : write_rc;
    if (rc == SCR_SUCCESS && lost) rc = finish_taken(ctx, id, &in);
    /* all ranks of the set agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, d->set, &ok);
done:
    scr_redundancy_files_close(&out);
    scr_redundancy_files_close(&in);
    scr_kvtree_delete(mine);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* --- forget --------------------------------------------------------------------------- */

int scr_redundancy_partner_forget(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                  int id)
{
    const char *holder = NULL;
    const char **files = NULL;
    char sub[64], *dir = NULL;
    int lhs = scr_reddesc_lhs(d), n = 0;
    if (lhs == ctx->rank ||
        scr_filemap_get_tag(ctx->map, id, lhs, "HOLDER", &holder) != SCR_SUCCESS ||
        strcmp(holder, "PARTNER") != 0)
        return SCR_SUCCESS;
    int rc = scr_filemap_list_files(ctx->map, id, lhs, &files, &n);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0; i < n; i++) {
        if (unlink(files[i]) != 0 && errno != ENOENT) {
            scr_err("cannot delete %s: %s", files[i], strerror(errno));
            rc = SCR_ERR_IO;
            goto out;
        }
    }
    /* the directory goes when it is empty; a copy of a file in a subdirectory leaves it */
    copy_dir_name(lhs, sub, sizeof(sub));
    if (scr_path_join(ctx->dsdir, sub, &dir) == SCR_SUCCESS) rmdir(dir);
    rc = scr_filemap_remove_rank_by_dataset(ctx->map, id, lhs);
    if (rc == SCR_SUCCESS) rc = scr_redundancy_save_filemap(ctx);
out:
    free(dir);
    free(files);
    return rc;
}
