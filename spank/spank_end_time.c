/* spank_end_time.c — when the job's allocation ends, as slurmctld knows it. */
#include "spank_end_time.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>

int scr_spank_load_job(uint32_t jobid, job_info_msg_t **out_msg, char *why, size_t why_len)
{
    job_info_msg_t *msg = NULL;
    if (slurm_load_job(&msg, jobid, SHOW_ALL) != SLURM_SUCCESS) {
        snprintf(why, why_len, "cannot load job %lu from slurmctld: %s", (unsigned long)jobid,
                 slurm_strerror(slurm_get_errno()));
        return -1;
    }
    if (msg == NULL || msg->record_count < 1) {
        snprintf(why, why_len, "slurmctld does not know job %lu", (unsigned long)jobid);
        slurm_free_job_info_msg(msg);
        return -1;
    }
    *out_msg = msg;
    return 0;
}

int scr_spank_end_time(uint32_t jobid, long long *out_end, char *why, size_t why_len)
{
    job_info_msg_t *msg = NULL;
    if (scr_spank_load_job(jobid, &msg, why, why_len) != 0) return -1;
    int rc = 0;
    if (msg->job_array[0].time_limit != INFINITE && msg->job_array[0].end_time != 0) {
        *out_end = (long long)msg->job_array[0].end_time;
        rc = 1;
    }
    slurm_free_job_info_msg(msg);
    return rc;
}
