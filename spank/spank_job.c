/* spank_job.c — the job a root hook (job prolog, job epilog) works for. */
#include "spank_job.h"

#include "job_env.h"
#include "scr_err.h"
#include "spank_options.h"
#include "util_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --scr-prefix made absolute against the job's working directory, else
 * that directory; NULL when neither is known. *out_origin says which. */
static char *job_prefix(const char **out_origin, int *out_named)
{
    const char *given = scr_spank_options_job_value("SCR_PREFIX");
    const char *workdir = getenv("SLURM_JOB_WORK_DIR");
    char *out = NULL;
    *out_origin = given != NULL ? "from --scr-prefix" : "the job's working directory";
    *out_named = given != NULL;
    if (given != NULL && given[0] == '/')
        scr_path_normalize(given, &out);
    else if (workdir != NULL && workdir[0] == '/')
        scr_path_join(workdir, given ? given : "", &out);
    return out;
}

int scr_spank_job_load(spank_t sp, const struct spank_scr_site *site, struct spank_scr_job *out,
                       char *why, size_t why_len)
{
    memset(out, 0, sizeof(*out));
    uid_t uid;
    gid_t gid;
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_ID, &out->id) != ESPANK_SUCCESS) {
        snprintf(why, why_len, "Slurm does not give the job's id, uid and gid");
        return -1;
    }
    snprintf(out->id_text, sizeof(out->id_text), "%lu", (unsigned long)out->id);
    if (scr_spank_user_lookup(uid, gid, &out->user, why, why_len) != 0) return -1;
    /* both become directory levels below the bases */
    const char *bad = scr_job_env_name_problem(out->user.name);
    if (bad != NULL) {
        snprintf(why, why_len, "user name '%s' of uid %lu cannot name a directory: %s",
                 out->user.name, (unsigned long)uid, bad);
        return -1;
    }
    const char *node = getenv("SLURMD_NODENAME");
    if (node == NULL || node[0] == '\0' || strlen(node) >= sizeof(out->node)) {
        snprintf(why, why_len, "SLURMD_NODENAME is not set to a node name");
        return -1;
    }
    if ((bad = scr_job_env_name_problem(node)) != NULL) {
        snprintf(why, why_len, "SLURMD_NODENAME='%s' cannot name a directory: %s", node, bad);
        return -1;
    }
    snprintf(out->node, sizeof(out->node), "%s", node);
    out->cntl_base = site->cntl_base;
    out->cache_base = scr_spank_options_job_value("SCR_CACHE_BASE");
    if (out->cache_base == NULL) {
        out->cache_base = site->cache_base;
    } else if (!scr_spank_site_allows_store(site, out->cache_base)) {
        snprintf(why, why_len, "cache base %s is not one of the site's stores (%s)",
                 out->cache_base, site->stores);
        return -1;
    }
    out->prefix = job_prefix(&out->prefix_origin, &out->prefix_named);
    if (out->prefix == NULL) {
        snprintf(why, why_len, "SLURM_JOB_WORK_DIR is not set to an absolute path");
        return -1;
    }
    return 0;
}

void scr_spank_job_free(struct spank_scr_job *job)
{
    free(job->prefix);
    job->prefix = NULL;
}
