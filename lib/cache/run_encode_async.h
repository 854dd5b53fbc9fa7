/* run_encode_async.h — PARTNER, XOR and RS applied in a library thread.
 *
 * The encoder belongs to the run (run->encoder, made at SCR_Init after the
 * descriptors, freed at its end); its state is its own. With
 * SCR_ENCODE_ASYNC=1, a scheme that moves data and MPI_THREAD_MULTIPLE it
 * works in the background, on a duplicate of the run's world with the same
 * descriptors over it; otherwise every encode runs in the foreground
 * (scr_run_apply_redundancy). The calls that take the run are collective
 * over run->world unless they say otherwise, and all ranks agree on their
 * outcome. */
#ifndef SCR_RUN_ENCODE_ASYNC_H
#define SCR_RUN_ENCODE_ASYNC_H

#include "reddesc.h"
#include "scr_run.h"

struct scr_encoder;

/* The run's encoder in *out (its descriptors must be made): it works in
 * the background when it can; otherwise rank 0 says why not, once at
 * SCR_DEBUG >= 1. Collective. */
int scr_encoder_new(const struct scr_run *run, struct scr_encoder **out);

/* Forget the encoder (an encode still running was waited for). NULL is fine. */
void scr_encoder_free(struct scr_encoder *enc);

/* 1 when encodes may go to the background in this run. */
int scr_encoder_in_background(const struct scr_encoder *enc);

/* Start applying desc (one of run->reddescs) to dataset id in each rank's
 * encode thread and return; an encode still running is concluded first.
 * Until the ranks agree that it finished, the dataset is recorded as
 * SINGLE. Collective; all ranks agree on the outcome. */
int scr_encoder_start(struct scr_run *run, const struct scr_reddesc *desc, int id);

/* Conclude the encode when every rank's thread is done (else return at
 * once): the dataset is then protected, or, when an encode failed, it
 * stays SINGLE and rank 0 says so. Collective. */
int scr_encoder_poll(struct scr_run *run);

/* As poll, waiting for every thread first. */
int scr_encoder_wait(struct scr_run *run);

/* The dataset being encoded in the background, 0 when none (the same on every rank). */
int scr_encoder_id(const struct scr_run *run);

/* The application's work begins (at the end of SCR_Init and of the
 * SCR_Complete_* calls) and ends (SCR_Start_output): at the end, this
 * rank's cores count as busy (scr_encoder_cores_busy) when, over a stretch
 * of 0.1 s or more, the calling thread was runnable three quarters of the
 * time or more and its cores had less than a quarter of a core to spare
 * (util_cpu_spare.h). Local; nothing is measured without the background,
 * nor with SCR_ENCODE_ASYNC_BUSY=1. */
void scr_encoder_work_begins(struct scr_run *run);
void scr_encoder_work_ends(struct scr_run *run);

/* 1 when this rank's cores were busy over the last stretch of work. */
int scr_encoder_cores_busy(const struct scr_encoder *enc);

/* Whether the encode of dataset id goes to the background, given that
 * busy_ranks ranks (the sum of scr_encoder_cores_busy, the same on every
 * rank) found their cores busy: only when none did (as with
 * SCR_ENCODE_ASYNC_BUSY=1, where none measures), since the encode would
 * take its cycles from the computation and cost more than in the
 * foreground. Rank 0 says at SCR_DEBUG >= 1 when the choice changes. */
int scr_encoder_goes_to_background(struct scr_run *run, int id, int busy_ranks);

#endif
