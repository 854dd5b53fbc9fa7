/* run_redundancy_ctx.c — the run layer's way into redundancy.h: the narrow
 * context of one dataset made from struct scr_run, in one place, and the
 * protection of a new dataset with its encode event.
 *
 * What needs struct scr_run (events, the parameters) stays here; the
 * redundancy layer sees only the context. */
#include "run_redundancy_ctx.h"
#include "redundancy.h"
#include "mpi_comm.h"
#include "run_cache.h"
#include "run_events.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

int scr_run_redundancy_ctx(const struct scr_run *run, int id, int with_buffers,
                           struct scr_redundancy_ctx *out)
{
    char *dsdir = NULL;
    memset(out, 0, sizeof(*out));
    int rc = scr_cache_dataset_dir(run, id, &dsdir);
    if (rc != SCR_SUCCESS) return rc;
    out->world = run->world;
    out->rank = run->rank;
    out->ranks = run->ranks;
    out->node_name = run->node_name;
    out->map = run->map;
    out->filemap_path = run->filemap_path;
    out->dsdir = dsdir;
    /* a buffer that cannot be had is NULL: the redundancy layer says so and
     * every rank agrees, where it needs one */
    if (with_buffers) {
        out->bufs[0] = malloc(run->params->file_buf_size);
        out->bufs[1] = malloc(run->params->file_buf_size);
    }
    out->buf_size = run->params->file_buf_size;
    out->piece = run->params->mpi_buf_size;
    out->crc_in_cache = run->params->crc_in_cache;
    out->crc_on_copy = run->params->crc_on_copy;
    return SCR_SUCCESS;
}

void scr_run_redundancy_ctx_free(struct scr_redundancy_ctx *ctx)
{
    free((void *)ctx->dsdir);
    free(ctx->bufs[0]);
    free(ctx->bufs[1]);
    memset(ctx, 0, sizeof(*ctx));
}

/* Rank 0's encode event: the dataset's size and how long the scheme took. */
static void log_encode(struct scr_run *run, const struct scr_reddesc *d, int id, double t0, int rc)
{
    const scr_dataset *desc = NULL;
    uint64_t bytes = 0;
    int have_bytes = run->rank == 0 &&
                     scr_filemap_get_dataset(run->map, id, run->rank, &desc) == SCR_SUCCESS &&
                     scr_dataset_get_size(desc, &bytes) == SCR_SUCCESS;
    struct scr_event_field fields[] = {SCR_EVENT_STR("scheme", scr_copy_type_name(d->type)),
                                       SCR_EVENT_INT("set_size", d->set_size)};
    scr_run_event(run, SCR_EVENT_ENCODE, rc == SCR_SUCCESS ? SCR_EVENT_OK : SCR_EVENT_FAILED, id,
                  NULL, have_bytes ? (long long)bytes : -1, scr_run_now() - t0,
                  rc == SCR_SUCCESS ? NULL : "the redundancy scheme failed", fields, 2);
}

int scr_run_apply_redundancy(struct scr_run *run, const struct scr_reddesc *d, int id)
{
    struct scr_redundancy_ctx ctx;
    double t0 = scr_run_now();
    int ok = 0;
    /* SINGLE moves no data: no buffers */
    int rc = scr_run_redundancy_ctx(run, id, d->type != SCR_COPY_SINGLE, &ctx);
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && ok)
        rc = scr_redundancy_apply(&ctx, d, id);
    else
        rc = mrc != SCR_SUCCESS ? mrc : SCR_FAILURE;
    log_encode(run, d, id, t0, rc);
    scr_run_redundancy_ctx_free(&ctx);
    return rc;
}
