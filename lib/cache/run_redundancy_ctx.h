/* run_redundancy_ctx.h — the way from the run into the redundancy layer.
 *
 * redundancy.h acts on a narrow context (communicators, rank, filemap,
 * directory, buffers), never on the whole run; this makes one from the
 * run for a dataset, and applies a descriptor's scheme in the foreground. */
#ifndef SCR_RUN_REDUNDANCY_CTX_H
#define SCR_RUN_REDUNDANCY_CTX_H

#include "reddesc.h"
#include "scr_run.h"

struct scr_redundancy_ctx;

/* The context of dataset id for the redundancy layer (redundancy.h), made
 * from run: its directory in cache and, with_buffers, two buffers of
 * SCR_FILE_BUF_SIZE (NULL when memory ran out; the redundancy layer says so
 * and every rank agrees where one is needed). Not collective; free with
 * scr_run_redundancy_ctx_free. */
int scr_run_redundancy_ctx(const struct scr_run *run, int id, int with_buffers,
                           struct scr_redundancy_ctx *out);
void scr_run_redundancy_ctx_free(struct scr_redundancy_ctx *ctx);

/* Apply desc's scheme to dataset id (every rank, collective;
 * scr_redundancy_apply) and log the encode event. */
int scr_run_apply_redundancy(struct scr_run *run, const struct scr_reddesc *desc, int id);

#endif
