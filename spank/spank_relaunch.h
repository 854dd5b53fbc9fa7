/* spank_relaunch.h — srun starts a failed SCR step again inside its allocation.
 *
 * A user who adds --scr --scr-runs=N to an srun inside sbatch or salloc gets
 * the relaunch without a wrapper: when that srun's step ends
 * (slurm_spank_exit, local context), relaunch_plan.h decides, from the
 * prefix's halt file (the prefix SCR_Init recorded on this node, else
 * --scr-prefix, SCR_PREFIX or the working directory), the runs made,
 * --scr-min-nodes, the allocation's end and the nodes Slurm,
 * SCR_EXCLUDE_NODES, a probe of their slurmd and this job's health records
 * call down, whether to run the step again. The nodes are judged as the
 * step ends, and again seconds later, just before the next run starts: a
 * node dying as the step ended may still have answered the first probe,
 * and slurmctld still counts it up for a while. To run again, srun
 * replaces itself with the same
 * command line (its own /proc/self/cmdline), preceded by --exclude=<down
 * nodes>, and with SCR_RUN_NUMBER one higher in the environment; the new
 * step restarts from the cache (rebuilt onto a spare node) or the prefix.
 * The exec keeps one srun in the batch script's place, so the script sees
 * the last run's exit status and the relaunch costs no extra process.
 * Between the two judgments, the step that ended must leave slurmctld
 * (spank_step_leave.h): srun waits for it within bounds, cancels it, and
 * when slurmctld keeps it with nothing left running, the next run shares
 * its CPUs (--overlap); each wait is reported on srun's standard error.
 *
 * A run is never repeated when the job ended through SCR_Finalize, when the
 * job is no longer running (cancelled, timed out), or when srun made its
 * own allocation (it is released before srun ends; such an srun is told
 * so once, at its start, if it asked for more than one run). The verdict
 * is printed on srun's standard error whenever more than one run was
 * asked for. An --exclude on the user's own command line comes after ours
 * and replaces it; SCR_EXCLUDE_NODES is the way to add nodes. */
#ifndef SPANK_RELAUNCH_H
#define SPANK_RELAUNCH_H

#include <stdint.h>
#include <slurm/spank.h>

/* srun's start (slurm_spank_init, local context): whether an allocation
 * exists already; cntl_base (the site's, kept) locates the prefix a run
 * recorded on this node. */
void scr_spank_relaunch_init(const char *cntl_base);

/* The step has its allocation (slurm_spank_local_user_init): remember the
 * job id and the step's node count, and warn about runs that cannot be made. */
void scr_spank_relaunch_note_step(spank_t sp);

/* srun's end (slurm_spank_exit, local context, SCR on): returns when the
 * step is not run again (0) and when the exec failed (-1, logged); on
 * success it does not return. */
int scr_spank_relaunch(void);

#endif
