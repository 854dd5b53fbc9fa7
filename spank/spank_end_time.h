/* spank_end_time.h — when the job's allocation ends, as slurmctld knows it.
 *
 * Asked at the start of each step, so a time limit changed while the job
 * runs (scontrol update) reaches the next step. A job without a time limit
 * has no end to report. */
#ifndef SPANK_END_TIME_H
#define SPANK_END_TIME_H

#include <stddef.h>
#include <stdint.h>
#include <slurm/slurm.h>

/* The job's record from slurmctld in *out_msg (free it with
 * slurm_free_job_info_msg), holding at least one entry; -1 with why set
 * when slurmctld cannot tell or does not know the job. */
int scr_spank_load_job(uint32_t jobid, job_info_msg_t **out_msg, char *why, size_t why_len);

/* 1 with *out_end (seconds since the epoch) when the job has a time limit,
 * 0 when it has none, -1 with why set when slurmctld could not tell. */
int scr_spank_end_time(uint32_t jobid, long long *out_end, char *why, size_t why_len);

#endif
