/* flush_async.h — the flush of a dataset in one thread per node (SCR_FLUSH_ASYNC=1).
 *
 * A flusher holds the flush that goes on in the background, at most one.
 * Whoever runs the API keeps it (lib/api), from SCR_Init to SCR_Finalize,
 * and hands it to each call; the run (scr_run.h) knows nothing of it. The
 * calls that take the run are collective over run->world, and all ranks
 * agree on their outcome. */
#ifndef SCR_FLUSH_ASYNC_H
#define SCR_FLUSH_ASYNC_H

#include "scr_run.h"

struct scr_flusher;

/* A flusher with no flush running, in *out. Not collective. */
int scr_flusher_new(struct scr_flusher **out);

/* Forget the flusher (a flush still running must be waited for first). NULL is fine. */
void scr_flusher_free(struct scr_flusher *f);

/* Begin the flush of dataset id (in_cache: in cache, else written in
 * place) and return while the node's flush thread copies it; a flush
 * still running is finished first. When the start fails, the flush is
 * concluded as failed before returning. */
int scr_flusher_start(struct scr_run *run, struct scr_flusher *f, int id, int in_cache);

/* Conclude the background flush when every node's thread is done with it
 * (else return at once): CRCs recorded, rank filemaps, summary, index, and
 * the dataset marked flushed; an output-only dataset then leaves the
 * cache. A flush that failed is reported and leaves the dataset in cache, not
 * flushed; that is no error of the caller's. Call at every API call. */
int scr_flusher_poll(struct scr_run *run, struct scr_flusher *f);

/* As poll, but wait for every node's thread first. */
int scr_flusher_wait(struct scr_run *run, struct scr_flusher *f);

/* The dataset whose flush runs in the background, 0 when none (the same on
 * every rank). Not collective. */
int scr_flusher_id(const struct scr_flusher *f);

#endif
