/* job_file.c — the prefix a job's runs really used, in its control directory. */
#include "job_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <stdlib.h>
#include <string.h>

#define KEY_PREFIX "PREFIX"

int scr_job_file_set_prefix(scr_kvtree *job, const char *prefix)
{
    if (job == NULL || prefix == NULL || prefix[0] != '/') {
        scr_err("job file: the prefix must be an absolute path, not '%s'", prefix ? prefix : "(none)");
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_str(job, KEY_PREFIX, prefix);
}

int scr_job_file_get_prefix(const scr_kvtree *job, const char **out_prefix)
{
    const char *prefix = NULL;
    if (out_prefix == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_str(job, KEY_PREFIX, &prefix);
    if (rc != SCR_SUCCESS) return rc;
    if (prefix[0] != '/') return SCR_ERR_TYPE;
    *out_prefix = prefix;
    return SCR_SUCCESS;
}

static int validate(const char *origin, const scr_kvtree *tree)
{
    const char *prefix;
    int rc = scr_job_file_get_prefix(tree, &prefix);
    if (rc == SCR_ERR_NOTFOUND && scr_kvtree_get(tree, KEY_PREFIX) == NULL) return SCR_SUCCESS;
    if (rc != SCR_SUCCESS)
        return scr_record_bad_value(origin, KEY_PREFIX, scr_kvtree_get(tree, KEY_PREFIX), "an absolute path");
    return SCR_SUCCESS;
}

static const struct scr_record_kind job_kind = {
    .name = "job file",
    .version = SCR_JOB_FILE_VERSION,
    .validate = validate,
};

int scr_job_file_read(const char *path, scr_kvtree *job)
{
    if (path == NULL || job == NULL) {
        scr_err("job file: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_read(&job_kind, path, job);
}

int scr_job_file_write(const char *path, const scr_kvtree *job)
{
    if (path == NULL) {
        scr_err("job file: write called without a path");
        return SCR_ERR_ARG;
    }
    return scr_record_write(&job_kind, path, job);
}

int scr_job_file_prefix_of(const char *cntl_dir, char **out_prefix)
{
    char *path = NULL;
    const char *prefix = NULL;
    scr_kvtree *job = scr_kvtree_new();
    int rc = job != NULL ? scr_path_join(cntl_dir, SCR_JOB_FILE_NAME, &path) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_job_file_read(path, job);
    if (rc == SCR_SUCCESS && scr_job_file_get_prefix(job, &prefix) != SCR_SUCCESS) {
        scr_err("%s: no PREFIX recorded", path);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS) {
        *out_prefix = strdup(prefix);
        if (*out_prefix == NULL) {
            scr_err("out of memory reading %s", path);
            rc = SCR_ERR_NOMEM;
        }
    }
    free(path);
    scr_kvtree_delete(job);
    return rc;
}
