/* spank_options.h — the --scr and --scr-* options of srun, sbatch and salloc.
 *
 * Each --scr-X option sets one SCR parameter (--scr-copy-type sets
 * SCR_COPY_TYPE, --scr-conf sets SCR_CONF_FILE, ...); giving any of them
 * turns SCR on, as --scr alone does. A value is checked in the option's
 * callback against libscr's parameter catalogue (config_params.h), so a bad
 * one stops the submission with a message naming the option, the value and
 * what was expected; --scr-cache-base must also be one of the site's stores.
 *
 * Where the values go:
 *   - local (srun) and allocator (sbatch, salloc): into the job-control
 *     environment (the prolog and epilog see SPANK_SCR=1, SPANK_SCR_PREFIX,
 *     ...); Slurm also hands the options on to every srun inside the job;
 *   - remote (slurmstepd of each step): into the tasks' environment as
 *     SCR_* variables, overriding what the user exported, with
 *     SCR_EPILOG_SCAVENGE=1 (scavenge_job.h) telling libscr that the
 *     epilog will scavenge.
 * A job or step without any of these options is left untouched. */
#ifndef SPANK_OPTIONS_H
#define SPANK_OPTIONS_H

#include <stdint.h>
#include <slurm/spank.h>

#include "spank_site.h"

/* Register every option with Slurm (from slurm_spank_init). */
int scr_spank_options_register(spank_t sp);

/* Remember the site's defaults (the stores --scr-cache-base may name). */
void scr_spank_options_set_site(const struct spank_scr_site *site);

/* 1 when --scr or any --scr-* option was given. */
int scr_spank_options_enabled(void);

/* Hand the values on: job-control environment in local and allocator
 * context, task environment (spank_setenv) in remote context. 0 or -1. */
int scr_spank_options_export(spank_t sp);

/* The value of SCR parameter param (e.g. "SCR_RUNS") for this srun: its
 * --scr-* option's, else the environment's; NULL when neither is set. */
const char *scr_spank_options_param(const char *param);

/* The value given for SCR parameter param (e.g. "SCR_PREFIX"), read back
 * from the job-control environment in prolog and epilog (SPANK_<param>);
 * NULL when not given. */
const char *scr_spank_options_job_value(const char *param);

/* 1 when the job was submitted with SCR on (prolog and epilog). */
int scr_spank_options_job_enabled(void);

#endif
