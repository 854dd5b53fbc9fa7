/* spank_prolog.c — a node's set-up for an SCR job (slurm_spank_job_prolog). */
#include "spank_prolog.h"

#include "health_file.h"
#include "job_dir.h"
#include "node_health.h"
#include "scr_err.h"
#include "spank_as_user.h"
#include "spank_health.h"
#include "spank_job.h"
#include "spank_options.h"
#include "util_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What the child working as the user needs, all resolved by the parent. */
struct node_setup {
    const struct spank_scr_job *job;
    uint64_t min_free;
};

/* The last libscr-core error, or text when there is none. */
static const char *last_error_or(const char *text)
{
    const char *e = scr_last_error();
    return e != NULL && e[0] != '\0' ? e : text;
}

/* Both job directories created; on failure the reason is in rec. Returns
 * how many were made (the control directory first). */
static int create_dirs(const struct spank_scr_job *job, char **dirs, struct scr_health *rec)
{
    const char *what[2] = {"SCR_CNTL_BASE", "SCR_CACHE_BASE"};
    const char *base[2] = {job->cntl_base, job->cache_base};
    for (int i = 0; i < 2; i++) {
        if (scr_job_dir_path(what[i], base[i], job->node, job->user.name, job->id_text, &dirs[i]) !=
                SCR_SUCCESS ||
            scr_job_dir_create(dirs[i]) != SCR_SUCCESS) {
            rec->healthy = 0;
            snprintf(rec->reason, sizeof(rec->reason), "%s",
                     last_error_or("cannot create the job directory"));
            return i;
        }
    }
    return 2;
}

/* The child's work: directories, health check, the record kept in the
 * control directory until the job's prefix is known (spank_health.h). */
static int set_up_node(void *arg, char *msg, size_t msg_len)
{
    const struct node_setup *s = arg;
    const struct spank_scr_job *job = s->job;
    char *dirs[2] = {NULL, NULL}, *record = NULL;
    struct scr_health rec;
    memset(&rec, 0, sizeof(rec));
    snprintf(rec.node, sizeof(rec.node), "%s", job->node);
    rec.healthy = 1;
    rec.checked = time(NULL);
    int made = create_dirs(job, dirs, &rec);
    if (rec.healthy && scr_node_health_check(job->node, (const char *const *)dirs, 2, s->min_free,
                                             &rec) != SCR_SUCCESS) {
        rec.healthy = 0;
        snprintf(rec.reason, sizeof(rec.reason), "the health check could not run");
    }
    /* a refused control directory keeps nothing: the delivery makes its record again */
    int rc = made > 0 ? scr_spank_health_keep(dirs[0], &rec, &record) : SCR_SUCCESS;
    if (rc != SCR_SUCCESS)
        snprintf(msg, msg_len, "node %s %s%s; health record not kept: %s", job->node,
                 rec.healthy ? "healthy" : "unhealthy: ", rec.reason,
                 last_error_or("unknown error"));
    else if (rec.healthy)
        snprintf(
            msg, msg_len,
            "node %s healthy: control directory %s, cache directory %s; record kept in %s until "
            "the job's prefix is known",
            job->node, dirs[0], dirs[1], record);
    else if (record != NULL)
        snprintf(msg, msg_len,
                 "node %s unhealthy: %s; record kept in %s until the job's prefix is known",
                 job->node, rec.reason, record);
    else
        snprintf(msg, msg_len, "node %s unhealthy: %s", job->node, rec.reason);
    free(dirs[0]);
    free(dirs[1]);
    free(record);
    return rc == SCR_SUCCESS && rec.healthy ? 0 : -1;
}

int scr_spank_prolog(spank_t sp, const struct spank_scr_site *site)
{
    if (!scr_spank_options_job_enabled()) return 0;
    struct spank_scr_job job;
    char why[2048];
    if (scr_spank_job_load(sp, site, &job, why, sizeof(why)) != 0) {
        slurm_error("scr: prolog: %s", why);
        scr_spank_job_free(&job);
        return -1;
    }
    struct node_setup s = {.job = &job, .min_free = site->min_free};
    if (scr_spank_as_user(&job.user, set_up_node, &s, why, sizeof(why)) == 0)
        slurm_info("scr: prolog of job %s for %s: %s", job.id_text, job.user.name, why);
    else
        slurm_error("scr: prolog of job %s for %s: %s", job.id_text, job.user.name, why);
    scr_spank_job_free(&job);
    return 0;
}
