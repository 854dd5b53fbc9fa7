/* scr31_end_time.c — the allocation's end from slurmctld. */
#include "scr31_end_time.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <inttypes.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A client configuration to read, or NULL: slurm_init() exits the process
 * when it finds none, which a command must not do. */
static const char *slurm_conf_file(void)
{
    const char *env = getenv("SLURM_CONF");
    if (env != NULL && env[0] != '\0') return access(env, R_OK) == 0 ? env : NULL;
    return access("/etc/slurm/slurm.conf", R_OK) == 0 ? "/etc/slurm/slurm.conf" : NULL;
}

int scr31_end_time(int64_t *out_end, char *why, size_t why_len)
{
    const char *id = getenv("SLURM_JOB_ID");
    char *end = NULL;
    errno = 0;
    unsigned long jobid = id != NULL ? strtoul(id, &end, 10) : 0;
    if (id == NULL || id[0] == '\0' || errno != 0 || *end != '\0' || jobid == 0 ||
        jobid > UINT32_MAX) {
        snprintf(why, why_len, "not inside a Slurm job (SLURM_JOB_ID is %s)", id ? id : "unset");
        return SCR_ERR_NOTFOUND;
    }
    const char *conf = slurm_conf_file();
    if (conf == NULL) {
        snprintf(why, why_len, "no Slurm configuration here");
        return SCR_ERR_NOTFOUND;
    }
    slurm_init(conf);
    job_info_msg_t *msg = NULL;
    if (slurm_load_job(&msg, (uint32_t)jobid, SHOW_ALL) != SLURM_SUCCESS || msg == NULL ||
        msg->record_count < 1) {
        snprintf(why, why_len, "slurmctld cannot tell job %lu's end: %s", jobid,
                 msg == NULL ? slurm_strerror(slurm_get_errno()) : "it does not know the job");
        slurm_free_job_info_msg(msg);
        return SCR_ERR_NOTFOUND;
    }
    int rc = SCR_SUCCESS;
    if (msg->job_array[0].time_limit == INFINITE || msg->job_array[0].end_time == 0) {
        snprintf(why, why_len, "job %lu has no time limit", jobid);
        rc = SCR_ERR_NOTFOUND;
    } else {
        *out_end = (int64_t)msg->job_array[0].end_time;
    }
    slurm_free_job_info_msg(msg);
    return rc;
}

int scr31_export_end_time(void)
{
    const char *set = getenv("SCR_END_TIME");
    if (set != NULL && set[0] != '\0') return SCR_SUCCESS;
    int64_t end = 0;
    char why[300], text[32];
    if (scr31_end_time(&end, why, sizeof(why)) != SCR_SUCCESS) {
        const char *hs = getenv("SCR_HALT_SECONDS");
        if (hs != NULL && hs[0] != '\0' && strcmp(hs, "0") != 0)
            scr_warn("SCR_HALT_SECONDS has no allocation end to count from: %s", why);
        return SCR_SUCCESS;
    }
    snprintf(text, sizeof(text), "%" PRId64, end);
    if (setenv("SCR_END_TIME", text, 1) != 0) {
        scr_err("cannot set SCR_END_TIME: %s", strerror(errno));
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}
