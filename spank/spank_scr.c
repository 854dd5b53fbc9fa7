/* spank_scr.c — the SPANK plugin spank_scr.so: Slurm's hooks, each handed to
 * the module that does its work.
 *
 *   slurm_spank_init           parse the site's plugin arguments, register
 *                              the --scr options (spank_options.h)
 *   slurm_spank_init_post_opt  local/allocator: hand the options to the job
 *                              (prolog, epilog); remote: set SCR_* for the
 *                              step's tasks, and SCR_END_TIME for a batch script
 *   slurm_spank_local_user_init  srun: SCR_END_TIME for the step's tasks
 *   slurm_spank_job_prolog     node set-up as root (spank_prolog.h)
 *   slurm_spank_job_epilog     scavenge, index and purge as the job ends
 *                              (spank_epilog.h)
 *   slurm_spank_task_exit      slurmstepd, a task ended: the node's health
 *                              record goes to the job's prefix once it is
 *                              known (spank_health.h)
 *   slurm_spank_exit           srun: run a failed step again (spank_relaunch.h)
 *
 * SCR_END_TIME: the prolog cannot set a task's environment, and a job's
 * time limit may change while it runs, so each step asks slurmctld for the
 * job's end time when it starts. srun asks, once per step, after the
 * allocation (local_user_init), and its environment goes to every task; the
 * batch script, which no srun starts, asks from the one slurmstepd that runs
 * it. So a step costs slurmctld one query, whatever its node count. A job
 * without a time limit gets no SCR_END_TIME, and a step whose query fails
 * runs without it (srun or the slurmd log says why). */
#include <stdint.h>
#include <slurm/spank.h>

#include "spank_end_time.h"
#include "spank_epilog.h"
#include "spank_health.h"
#include "spank_options.h"
#include "spank_prolog.h"
#include "spank_relaunch.h"
#include "spank_site.h"

#include "scr_err.h"

#include <slurm/slurm.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

SPANK_PLUGIN(scr, 1);

static struct spank_scr_site site;

/* Parse the plugin arguments into site; -1 (logged) when they are wrong. */
static int load_site(int ac, char **av)
{
    char why[512];
    if (scr_spank_site_parse(ac, av, &site, why, sizeof(why)) != SCR_SUCCESS) {
        slurm_error("scr: %s", why);
        return -1;
    }
    scr_spank_options_set_site(&site);
    return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    if (load_site(ac, av) != 0) return -1;
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL) scr_spank_relaunch_init(site.cntl_base);
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE)
        return scr_spank_options_register(sp);
    return 0;
}

/* The step's tasks learn when the allocation ends. */
static int export_end_time(spank_t sp)
{
    uint32_t jobid;
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
        slurm_error("scr: cannot get the job id for SCR_END_TIME");
        return -1;
    }
    long long end = 0;
    char why[300];
    int found = scr_spank_end_time(jobid, &end, why, sizeof(why));
    if (found < 0) {
        slurm_error("scr: SCR_END_TIME not set: %s", why);
        return -1;
    }
    if (found == 0) return 0;
    char text[32];
    snprintf(text, sizeof(text), "%lld", end);
    /* srun hands its own environment to the tasks; spank_setenv is for slurmstepd */
    if (spank_context() == S_CTX_LOCAL) {
        if (setenv("SCR_END_TIME", text, 1) != 0) {
            slurm_error("scr: cannot set SCR_END_TIME: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    spank_err_t err = spank_setenv(sp, "SCR_END_TIME", text, 1);
    if (err != ESPANK_SUCCESS) {
        slurm_error("scr: cannot set SCR_END_TIME: %s", spank_strerror(err));
        return -1;
    }
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    if (!scr_spank_options_enabled()) return 0;
    int rc = scr_spank_options_export(sp);
    uint32_t step;
    /* without an end time the tasks still run; they only cannot halt in time */
    if (spank_context() == S_CTX_REMOTE &&
        spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS && step == SLURM_BATCH_SCRIPT)
        export_end_time(sp);
    return rc;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
    if (!scr_spank_options_enabled()) return 0;
    export_end_time(sp);
    scr_spank_relaunch_note_step(sp);
    return 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    if (scr_spank_options_enabled()) scr_spank_health_task_exit(sp, &site);
    return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_LOCAL || !scr_spank_options_enabled()) return 0;
    return scr_spank_relaunch();
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    /* slurm_spank_init does not run in the prolog's process */
    if (load_site(ac, av) != 0) return -1;
    return scr_spank_prolog(sp, &site);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    if (load_site(ac, av) != 0) return 0; /* logged; a failing epilog would drain the node */
    return scr_spank_epilog(sp, &site);
}
