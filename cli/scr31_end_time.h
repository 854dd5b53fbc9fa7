/* scr31_end_time.h — the allocation's end as slurmctld knows it, for SCR
 * 3.1's command names run without the Slurm plugin.
 *
 * The plugin gives every step SCR_END_TIME; without it, nothing does, and
 * SCR_HALT_SECONDS (stop before the allocation ends) would have no end to
 * count from, in scr-run and in the job's tasks alike. scr_srun therefore
 * exports SCR_END_TIME, asked of slurmctld, before it starts scr-run, and
 * scr_env --endtime asks the same when the variable is unset. Links
 * libslurm (through libscr-slurm), never MPI. */
#ifndef SCR_SCR31_END_TIME_H
#define SCR_SCR31_END_TIME_H
#include <stddef.h>
#include <stdint.h>

/* The end of job $SLURM_JOB_ID in *out_end (seconds since the epoch).
 * SCR_ERR_NOTFOUND with why (why_len bytes) set when it cannot be told:
 * no job, no Slurm configuration here, slurmctld does not answer or does
 * not know the job, or the job has no time limit. Nothing is logged: the
 * caller says whether it matters. */
int scr31_end_time(int64_t *out_end, char *why, size_t why_len);

/* Export SCR_END_TIME from scr31_end_time when it is unset; an end that
 * cannot be told leaves it unset and is reported once, as a warning, when
 * SCR_HALT_SECONDS asks for it. SCR_ERR_NOMEM when setenv fails. */
int scr31_export_end_time(void);

#endif
