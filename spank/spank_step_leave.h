/* spank_step_leave.h — the step a run ended with must give its CPUs back before the next run.
 *
 * A relaunched run asks slurmctld for a new step on the job's nodes. While
 * the step of the run that just ended is still listed, slurmctld counts its
 * CPUs as taken and the new srun waits, possibly forever ("Requested nodes
 * are busy"). scr_spank_step_leave() waits for the step to leave, within
 * bounds: first a few seconds for it to go by itself, then it cancels the
 * step (slurm_kill_job_step, SIGKILL) and waits KillWait plus
 * MessageTimeout more. A step still listed after that is one slurmctld
 * keeps with no process left (see the .c file for when that happens): the
 * caller is told so, and the next run shares its CPUs (srun --overlap).
 * Each outcome is one line on srun's standard error naming the step, what
 * was waited for and for how long.
 *
 * Steps found stuck are remembered in the environment the next run
 * inherits (SCR_RELAUNCH_STUCK_STEPS), so that every later run of the job
 * also overlaps them for as long as slurmctld lists them. */
#ifndef SPANK_STEP_LEAVE_H
#define SPANK_STEP_LEAVE_H

#include <stdint.h>

/* Wait for step_id of job_id to leave slurmctld, cancelling it if it
 * lingers. *out_overlap is 1 when this step or one remembered from an
 * earlier run is still listed and the next run must share its CPUs.
 * Returns 0; -1 (logged) only when the environment cannot be updated. */
int scr_spank_step_leave(uint32_t job_id, uint32_t step_id, int *out_overlap);

#endif
