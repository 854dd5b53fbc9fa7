/* run_halt.c — halt conditions and the Need_checkpoint policy.
 *
 * Rank 0 decides and broadcasts, so every rank gives the same answer. A
 * halt holds when the halt file (<prefix>/.scr/halt.scr) says so —
 * CheckpointsLeft reached 0, ExitAfter has passed, ExitBefore is less than
 * the margin away, or an ExitReason other than SCR_FINALIZE_CALLED is set —
 * or when the allocation ends (SCR_END_TIME) within the margin. The margin
 * is the halt file's HaltSeconds (scr-halt --seconds) when set, else
 * SCR_HALT_SECONDS. */
#include "halt_file.h"
#include "job_env.h"
#include "mpi_comm.h"
#include "run_events.h"
#include "scr_err.h"
#include "run_halt.h"
#include "run_encode_async.h"
#include "api_state.h"
#include "scr_run.h"
#include "transfer.h"
#include "util_log.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Rank 0: the reason to halt now, NULL when there is none (static text). */
static const char *halt_reason(struct scr_run *run)
{
    static char why[256];
    int64_t end = 0;
    int halt = 0;
    scr_kvtree *file = scr_kvtree_new();
    if (file == NULL) return NULL;
    if (scr_halt_file_read(run->halt_path, file) != SCR_SUCCESS) {
        scr_warn("cannot read the halt file %s; assuming no halt condition", run->halt_path);
        scr_kvtree_unset_all(file);
    }
    if (scr_job_env_end_time(&end) != SCR_SUCCESS) end = 0;
    int rc = scr_halt_file_explain(file, (int64_t)time(NULL), run->params->halt_seconds, end, &halt,
                                   why, sizeof(why));
    scr_kvtree_delete(file);
    return rc == SCR_SUCCESS && halt ? why : NULL;
}

/* Rank 0 decides, everyone learns; *out_why is rank 0's reason (else NULL). */
static int decide(struct scr_api *api, int *out_halt, const char **out_why)
{
    struct scr_run *run = api->run;
    int halt = 0;
    *out_why = NULL;
    if (run->rank == 0 && run->params->halt_enabled) {
        *out_why = halt_reason(run);
        halt = *out_why != NULL;
    }
    if (halt && !api->halt_logged) {
        scr_run_event(run, SCR_EVENT_HALT, NULL, 0, NULL, -1, -1, *out_why, NULL, 0);
        api->halt_logged = 1;
    }
    int rc =
        scr_mpi_check(MPI_Bcast(&halt, 1, MPI_INT, 0, run->world), "sharing the halt decision");
    if (rc == SCR_SUCCESS) *out_halt = halt;
    return rc;
}

int scr_run_halt_check(struct scr_api *api, int *out_halt)
{
    const char *why;
    int rc = decide(api, out_halt, &why);
    if (why != NULL) scr_dbg(1, "halt: %s", why);
    return rc;
}

int scr_run_halt_check_at_start(struct scr_api *api, int *out_halt)
{
    struct scr_run *run = api->run;
    const char *why;
    int rc = decide(api, out_halt, &why);
    if (why != NULL)
        scr_warn("a halt condition holds already at SCR_Init (%s; see %s): %s", why, run->halt_path,
                 run->params->halt_exit ? "SCR_HALT_EXIT=1, so the job ends now"
                                        : "SCR_Should_exit reports it, and the run should stop");
    return rc;
}

int scr_run_halt_count_checkpoint(struct scr_run *run)
{
    if (run->rank != 0) return SCR_SUCCESS;
    int left = -1;
    return scr_halt_file_decrement_checkpoints_left(run->halt_path, &left);
}

void scr_run_halt_drill_stop(struct scr_api *api)
{
    struct scr_run *run = api->run;
    if (api->drill_stop_after <= 0 || ++api->drill_checkpoints != api->drill_stop_after) return;
    /* the checkpoint is protected and flushed as SCR_FLUSH asks before the
     * job dies, also when that goes on in the background */
    if (scr_encoder_wait(run) != SCR_SUCCESS || scr_flusher_wait(run, api->flusher) != SCR_SUCCESS)
        scr_warn("SCR_DRILL_STOP_AFTER=%d: the checkpoint's encode or flush in the background "
                 "failed (said above); "
                 "the run is stopped anyway",
                 api->drill_stop_after);
    char why[96];
    snprintf(why, sizeof(why), "SCR_DRILL_STOP_AFTER=%d: every rank is killed now",
             api->drill_stop_after);
    scr_run_event(run, SCR_EVENT_HALT, NULL, 0, NULL, -1, -1, why, NULL, 0);
    /* no rank dies while another is still inside the checkpoint's collectives */
    if (scr_mpi_check(MPI_Barrier(run->world), "waiting for every rank before the drill's stop") !=
        SCR_SUCCESS)
        return;
    raise(SIGKILL);
}

int scr_run_halt_mark_finalized(struct scr_run *run)
{
    if (run->rank != 0) return SCR_SUCCESS;
    scr_kvtree *halt = scr_kvtree_new();
    if (halt == NULL) return SCR_ERR_NOMEM;
    int fd = -1;
    int rc = scr_halt_file_lock_read(run->halt_path, &fd, halt);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_halt_file_set_exit_reason(halt, SCR_HALT_REASON_FINALIZE);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_halt_file_write_unlock(run->halt_path, &fd,
                                    halt); /* unlocks even when the write fails */
out:
    if (fd >= 0) scr_halt_file_unlock(&fd);
    scr_kvtree_delete(halt);
    return rc;
}

int scr_run_halt_clear_finalized(struct scr_run *run)
{
    if (run->rank != 0 || access(run->halt_path, F_OK) != 0) return SCR_SUCCESS;
    scr_kvtree *halt = scr_kvtree_new();
    if (halt == NULL) return SCR_ERR_NOMEM;
    int fd = -1, finished = 0;
    int rc = scr_halt_file_lock_read(run->halt_path, &fd, halt);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_halt_file_finalize_called(halt, &finished) != SCR_SUCCESS || !finished) goto out;
    rc = scr_halt_file_unset_exit_reason(halt);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_halt_file_write_unlock(run->halt_path, &fd,
                                    halt); /* unlocks even when the write fails */
out:
    if (fd >= 0) scr_halt_file_unlock(&fd);
    scr_kvtree_delete(halt);
    return rc;
}

int scr_run_halt_need_checkpoint(struct scr_api *api, int *out_need)
{
    struct scr_run *run = api->run;
    api->need_calls++;
    int need = 0;
    if (run->rank == 0) {
        double now = scr_run_now();
        double since = now - api->time_last_ckpt_end;
        double elapsed = now - api->time_start;
        if (run->params->ckpt_interval > 0 && api->need_calls % run->params->ckpt_interval == 0)
            need = 1;
        if (run->params->ckpt_seconds > 0 && since >= run->params->ckpt_seconds) need = 1;
        /* checkpoint while the time spent checkpointing stays under the share asked for */
        if (run->params->ckpt_overhead > 0 && elapsed > 0 &&
            100.0 * api->time_in_ckpt / elapsed < run->params->ckpt_overhead)
            need = 1;
    }
    int rc = scr_mpi_check(MPI_Bcast(&need, 1, MPI_INT, 0, run->world),
                           "sharing the checkpoint decision");
    if (rc != SCR_SUCCESS) return rc;
    if (!need) {
        int halt = 0;
        rc = scr_run_halt_check(api, &halt);
        need = halt;
    }
    if (rc == SCR_SUCCESS) *out_need = need;
    return rc;
}
