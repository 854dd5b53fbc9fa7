/* spank_step_leave.c — the step a run ended with must give its CPUs back before the next run.
 *
 * Why a step can outlive every process of it (Slurm 22.05, a --no-kill job,
 * Open MPI over TCP): when a node dies under a running step, the MPI ranks
 * on the other nodes may notice first (a failed connection) and abort,
 * which cancels the step. srun then waits KillWait + 2 s for the dead
 * node's tasks, gives up ("Timed out waiting for job step to complete") and
 * leaves, and the surviving nodes report their part of the step done. Only
 * later does slurmctld declare the node down; under --no-kill it removes
 * the node from the job, a resize ("Removing failed node n2 from JobId=N"),
 * and ends the dead node's part of the step for it ("Killing JobId=N
 * StepId=0 due to failed node n2"). The parts reported before the resize
 * are not counted with that one: the step stays listed as RUNNING on its
 * old nodes, holding their CPUs, until the job ends, while no node runs
 * anything of it. So a signal (scancel, slurm_kill_job_step,
 * slurm_terminate_job_step) finds nobody to answer and clears nothing. The
 * next step can only share those CPUs, which srun --overlap asks for.
 * When slurmctld declares the node down while srun still waits, the step
 * ends normally and none of this is needed. */
#include "spank_step_leave.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/spank.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STUCK_VAR "SCR_RELAUNCH_STUCK_STEPS"
/* a step that ended normally leaves within a second; a node slurmctld has
 * not yet declared down can hold it for up to about SlurmdTimeout */
#define LEAVE_BY_ITSELF_SECONDS 10
#define POLL_USEC (250 * 1000)

enum step_presence { STEP_GONE, STEP_LISTED, STEP_UNKNOWN };

/* Whether slurmctld lists the step; its nodes go to nodes when it does. */
static enum step_presence step_presence(uint32_t job_id, uint32_t step_id, char *nodes,
                                        size_t nodes_len)
{
    job_step_info_response_msg_t *msg = NULL;
    if (slurm_get_job_steps(0, job_id, step_id, &msg, SHOW_ALL) != SLURM_SUCCESS)
        return slurm_get_errno() == ESLURM_INVALID_JOB_ID ? STEP_GONE : STEP_UNKNOWN;
    enum step_presence p = STEP_GONE;
    for (uint32_t i = 0; msg != NULL && i < msg->job_step_count; i++) {
        if (msg->job_steps[i].step_id.step_id != step_id) continue;
        p = STEP_LISTED;
        if (nodes != NULL)
            snprintf(nodes, nodes_len, "%s",
                     msg->job_steps[i].nodes ? msg->job_steps[i].nodes : "?");
    }
    slurm_free_job_step_info_response_msg(msg);
    return p;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Poll until the step has left or `seconds` have passed; 1 when it left. */
static int wait_gone(uint32_t job_id, uint32_t step_id, double seconds, char *nodes,
                     size_t nodes_len)
{
    double until = seconds_now() + seconds;
    for (;;) {
        if (step_presence(job_id, step_id, nodes, nodes_len) == STEP_GONE) return 1;
        if (seconds_now() >= until) return 0;
        usleep(POLL_USEC);
    }
}

/* KillWait + MessageTimeout: how long slurmctld may take to see a
 * cancelled step's nodes answer (defaults 30 + 10 when it cannot tell). */
static int cancel_grace_seconds(void)
{
    slurm_conf_t *conf = NULL;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || conf == NULL) return 40;
    int s = (int)conf->kill_wait + (int)conf->msg_timeout;
    slurm_free_ctl_conf(conf);
    return s;
}

/* The steps remembered as stuck that slurmctld still lists, with step_id
 * added when stuck; written back to STUCK_VAR. Returns 0, or -1 (logged). */
static int remember_stuck(uint32_t job_id, uint32_t step_id, int stuck, int *out_any)
{
    char kept[1024] = "";
    size_t used = 0;
    const char *old = getenv(STUCK_VAR);
    *out_any = 0;
    for (const char *p = old; p != NULL && *p != '\0';) {
        char *end = NULL;
        unsigned long id = strtoul(p, &end, 10);
        if (end == p) break;
        if (id != step_id && step_presence(job_id, (uint32_t)id, NULL, 0) != STEP_GONE &&
            used + 16 < sizeof(kept)) {
            used +=
                (size_t)snprintf(kept + used, sizeof(kept) - used, "%s%lu", used ? "," : "", id);
            *out_any = 1;
        }
        p = *end == ',' ? end + 1 : end;
    }
    if (stuck && used + 16 < sizeof(kept)) {
        used += (size_t)snprintf(kept + used, sizeof(kept) - used, "%s%lu", used ? "," : "",
                                 (unsigned long)step_id);
        *out_any = 1;
    }
    if (setenv(STUCK_VAR, kept, 1) != 0) {
        slurm_error("scr: cannot set %s for the next run: %s", STUCK_VAR, strerror(errno));
        return -1;
    }
    return 0;
}

int scr_spank_step_leave(uint32_t job_id, uint32_t step_id, int *out_overlap)
{
    char nodes[1024] = "?";
    int stuck = 0;
    *out_overlap = 0;
    if (step_id != NO_VAL) {
        double start = seconds_now();
        if (wait_gone(job_id, step_id, LEAVE_BY_ITSELF_SECONDS, nodes, sizeof(nodes))) {
            slurm_info("scr: waited %.1f s for step %lu.%lu to leave slurmctld",
                       seconds_now() - start, (unsigned long)job_id, (unsigned long)step_id);
        } else {
            int grace = cancel_grace_seconds();
            slurm_info("scr: step %lu.%lu still holds %s %d s after its srun ended; cancelling it "
                       "and waiting "
                       "up to %d s more (KillWait + MessageTimeout)",
                       (unsigned long)job_id, (unsigned long)step_id, nodes,
                       LEAVE_BY_ITSELF_SECONDS, grace);
            if (slurm_kill_job_step(job_id, step_id, SIGKILL) != SLURM_SUCCESS)
                slurm_info("scr: cancelling step %lu.%lu: %s", (unsigned long)job_id,
                           (unsigned long)step_id, slurm_strerror(slurm_get_errno()));
            if (wait_gone(job_id, step_id, grace, nodes, sizeof(nodes))) {
                slurm_info("scr: step %lu.%lu left slurmctld %.1f s after its srun ended",
                           (unsigned long)job_id, (unsigned long)step_id, seconds_now() - start);
            } else {
                stuck = 1;
                slurm_info("scr: step %lu.%lu is still listed on %s %.1f s after its srun ended, "
                           "with no task "
                           "left (slurmctld keeps such a step after a --no-kill job loses a node); "
                           "the next run "
                           "shares its CPUs (--overlap)",
                           (unsigned long)job_id, (unsigned long)step_id, nodes,
                           seconds_now() - start);
            }
        }
    }
    return remember_stuck(job_id, step_id, stuck, out_overlap);
}
