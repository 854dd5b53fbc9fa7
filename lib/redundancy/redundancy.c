/* redundancy.c — the dispatcher of redundancy.h: it records a dataset's
 * scheme in the filemap and calls the scheme's apply, rebuild or forget
 * (redundancy_schemes.h). What the schemes share is below them, in
 * redundancy_shared.c, so that no scheme calls back into this file. */
#include "redundancy.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "redundancy_file.h"
#include "redundancy_schemes.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the dispatcher -------------------------------------------------------------- */

/* Keep the records of the left neighbours this rank helps rebuild (one for
 * XOR, k for RS), so that a member whose node is lost learns its own. */
static int keep_neighbour_records(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                  int id, const scr_kvtree *record)
{
    int keep = d->type == SCR_COPY_XOR ? 1 : d->type == SCR_COPY_RS ? d->failures : 0;
    const scr_dataset *desc = NULL;
    int rc = scr_filemap_get_dataset(ctx->map, id, ctx->rank, &desc);
    if (rc != SCR_SUCCESS) return rc;
    for (int j = 1; j <= keep && j < d->set_size; j++) {
        int their_rank = scr_redundancy_mod(d->set_rank - j, d->set_size);
        int owner = d->members[their_rank];
        scr_kvtree *theirs = scr_kvtree_dup(record);
        if (theirs == NULL) return SCR_ERR_NOMEM;
        rc = scr_kvtree_util_set_int(theirs, "SET_RANK", their_rank);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(ctx->map, id, owner, theirs);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_dataset(ctx->map, id, owner, desc);
        scr_kvtree_delete(theirs);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* This rank's record of d in the filemap, and the copies its neighbours need. */
static int write_records(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id)
{
    scr_kvtree *record = NULL;
    int rc = scr_reddesc_to_record(d, &record);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_reddesc(ctx->map, id, ctx->rank, record);
    if (rc != SCR_SUCCESS) goto out;
    rc = keep_neighbour_records(ctx, d, id, record);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_save_filemap(ctx);
out:
    scr_kvtree_delete(record);
    return rc;
}

/* write_records on every rank, which then agree. */
static int record_scheme(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id)
{
    int rc = write_records(ctx, d, id), ok = 0;
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, ctx->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

static int apply_scheme(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                        int have_left_copy)
{
    switch (d->type) {
    case SCR_COPY_PARTNER: return scr_redundancy_partner_apply(ctx, d, id, have_left_copy);
    case SCR_COPY_XOR: return scr_redundancy_xor_apply(ctx, d, id);
    case SCR_COPY_RS: return scr_redundancy_rs_apply(ctx, d, id);
    case SCR_COPY_SINGLE: return SCR_SUCCESS;
    }
    return SCR_ERR_ARG;
}

/* Stream d's redundancy data (every rank, collective over the world; a set
 * of one member, SINGLE while other sets are not, still takes part in the
 * agreements). */
static int run_scheme(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id,
                      int have_left_copy)
{
    int single = d->type == SCR_COPY_SINGLE, ok = 0;
    int rc = single || (ctx->bufs[0] != NULL && ctx->bufs[1] != NULL) ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS)
        scr_err("out of memory for redundancy buffers of %zu bytes", ctx->buf_size);
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, ctx->world, &ok);
    double t0 = MPI_Wtime();
    if (mrc == SCR_SUCCESS && ok) {
        rc = apply_scheme(ctx, d, id, have_left_copy);
        /* all ranks agree: */
        mrc = scr_comm_all_true(rc == SCR_SUCCESS, ctx->world, &ok);
    }
    if (mrc != SCR_SUCCESS) return mrc;
    if (!ok) {
        if (ctx->rank == 0)
            scr_err("could not apply %s to dataset %d", scr_copy_type_name(d->type), id);
        return SCR_FAILURE;
    }
    if (ctx->rank == 0)
        scr_dbg(1, "dataset %d protected by %s in %.3f s", id, scr_copy_type_name(d->type),
                MPI_Wtime() - t0);
    return SCR_SUCCESS;
}

int scr_redundancy_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id)
{
    int rc = record_scheme(ctx, d, id);
    if (rc != SCR_SUCCESS) return rc;
    rc = run_scheme(ctx, d, id, 0);
    if (rc != SCR_SUCCESS) return rc;
    /* the expected count now includes the redundancy file */
    int expected = scr_filemap_num_files(ctx->map, id, ctx->rank);
    rc = scr_filemap_set_expected_files(ctx->map, id, ctx->rank, expected);
    if (rc != SCR_SUCCESS) return rc;
    return scr_redundancy_save_filemap(ctx);
}

int scr_redundancy_protect_again(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                 int id, int have_left_copy)
{
    /* a rebuilt member's XOR or RS file came back with its data; what its
     * lost node also held were the records of its left neighbours, and,
     * with PARTNER, the copy of its left neighbour's files */
    int rc = record_scheme(ctx, d, id);
    if (rc != SCR_SUCCESS) return rc;
    /* sets of one member are SINGLE beside PARTNER sets, and the copying is
     * collective: every rank asks whether any set is PARTNER */
    int partner = d->type == SCR_COPY_PARTNER, any_partner = 0;
    rc = scr_mpi_allreduce(&partner, &any_partner, 1, MPI_INT, MPI_MAX, ctx->world,
                           "agreeing on the scheme");
    if (rc != SCR_SUCCESS || !any_partner) return rc;
    rc = run_scheme(ctx, d, id, have_left_copy);
    if (rc == SCR_SUCCESS && ctx->rank == 0)
        scr_dbg(1, "dataset %d is protected by %s again after its rebuild", id,
                scr_copy_type_name(d->type));
    return rc;
}

int scr_redundancy_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                           int id, int lost)
{
    int ok = 0;
    switch (d->type) {
    case SCR_COPY_PARTNER: return scr_redundancy_partner_rebuild(ctx, d, id, lost);
    case SCR_COPY_XOR: return scr_redundancy_xor_rebuild(ctx, d, id, lost);
    case SCR_COPY_RS: return scr_redundancy_rs_rebuild(ctx, d, id, lost);
    case SCR_COPY_SINGLE: break;
    }
    /* SINGLE keeps nothing to rebuild from; all ranks of the set agree: */
    int mrc = scr_comm_all_true(!lost, d->set, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

int scr_redundancy_forget(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id)
{
    switch (d->type) {
    case SCR_COPY_PARTNER: return scr_redundancy_partner_forget(ctx, d, id);
    case SCR_COPY_XOR: return scr_redundancy_forget_file(ctx, id, SCR_META_TYPE_XOR);
    case SCR_COPY_RS: return scr_redundancy_forget_file(ctx, id, SCR_META_TYPE_RS);
    case SCR_COPY_SINGLE: break;
    }
    return SCR_SUCCESS;
}
