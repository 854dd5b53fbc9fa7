/* run_halt.h — when a run must stop (the halt conditions of the prefix's
 * halt file and SCR_HALT_SECONDS) and when it should checkpoint
 * (SCR_CHECKPOINT_INTERVAL, _SECONDS, _OVERHEAD): run_halt.c.
 *
 * Collective over run->world unless a function says "Rank 0"; every rank
 * returns the same status. Internal to libscr. */
#ifndef SCR_RUN_HALT_H
#define SCR_RUN_HALT_H

#include "api_state.h"
#include "scr_run.h"

/* --- run_halt.c: when to stop and when to checkpoint -------------------------------- */

/* *out_halt = 1 on every rank when a halt condition holds. */
int scr_run_halt_check(struct scr_api *api, int *out_halt);

/* scr_run_halt_check at SCR_Init: a condition that holds already is reported once
 * (rank 0, a warning naming it), since the run should not go on. */
int scr_run_halt_check_at_start(struct scr_api *api, int *out_halt);

/* After a completed checkpoint: count down CheckpointsLeft. */
int scr_run_halt_count_checkpoint(struct scr_run *run);

/* scr-drill's stop (scr-drill(1)): with SCR_DRILL_STOP_AFTER=K in the
 * environment (api->drill_stop_after), once the run's K-th checkpoint has
 * completed on every rank, it waits for that checkpoint's encode and flush
 * in the background (if any), rank 0 records a halt event saying so, every
 * rank waits for the others, and each kills itself with SIGKILL: the job
 * dies at a known point, the checkpoint protected and flushed as SCR_FLUSH
 * asks, as it would if all its nodes failed there, with no flush at exit.
 * Collective: call it on every rank after each checkpoint every rank
 * completed; it returns only when there is nothing to do (or the barrier
 * failed, said). */
void scr_run_halt_drill_stop(struct scr_api *api);

/* Rank 0: a new run is not finished, so an ExitReason of SCR_FINALIZE_CALLED
 * left by the last one goes (a relaunch reads it to tell a finished job
 * from one that died). Other reasons stay. */
int scr_run_halt_clear_finalized(struct scr_run *run);

/* SCR_Finalize's mark: ExitReason SCR_FINALIZE_CALLED. */
int scr_run_halt_mark_finalized(struct scr_run *run);

/* *out_need = 1 on every rank when the policy asks for a checkpoint. */
int scr_run_halt_need_checkpoint(struct scr_api *api, int *out_need);

#endif
