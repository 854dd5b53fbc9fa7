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
#define KEY_CACHE "CACHE"

int scr_job_file_set_prefix(scr_kvtree *job, const char *prefix)
{
    if (job == NULL || prefix == NULL || prefix[0] != '/') {
        scr_err("job file: the prefix must be an absolute path, not '%s'",
                prefix ? prefix : "(none)");
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

int scr_job_file_add_cache_dir(scr_kvtree *job, const char *dir)
{
    if (job == NULL || dir == NULL || dir[0] != '/') {
        scr_err("job file: a cache directory must be an absolute path, not '%s'",
                dir ? dir : "(none)");
        return SCR_ERR_ARG;
    }
    scr_kvtree *set = scr_kvtree_set_kv(job, KEY_CACHE, dir);
    if (set == NULL) {
        scr_err("out of memory recording the cache directory %s", dir);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

static int validate(const char *origin, const scr_kvtree *tree)
{
    const char *prefix;
    int rc = scr_job_file_get_prefix(tree, &prefix);
    if (rc != SCR_SUCCESS && !(rc == SCR_ERR_NOTFOUND && scr_kvtree_get(tree, KEY_PREFIX) == NULL))
        return scr_record_bad_value(origin, KEY_PREFIX, scr_kvtree_get(tree, KEY_PREFIX),
                                    "an absolute path");
    const scr_kvtree *dirs = scr_kvtree_get(tree, KEY_CACHE);
    for (const scr_kvtree_elem *e = dirs ? scr_kvtree_elem_first(dirs) : NULL; e;
         e = scr_kvtree_elem_next(e))
        if (scr_kvtree_elem_key(e)[0] != '/')
            return scr_record_bad_value(origin, KEY_CACHE, dirs, "absolute paths");
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

void scr_job_file_free_dirs(char **dirs)
{
    for (char **d = dirs; d != NULL && *d != NULL; d++) free(*d);
    free(dirs);
}

int scr_job_file_cache_dirs_of(const char *cntl_dir, char ***out_dirs)
{
    char *path = NULL;
    char **dirs = NULL;
    scr_kvtree *job = scr_kvtree_new();
    int rc = job != NULL ? scr_path_join(cntl_dir, SCR_JOB_FILE_NAME, &path) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_job_file_read(path, job);
    const scr_kvtree *set = rc == SCR_SUCCESS ? scr_kvtree_get(job, KEY_CACHE) : NULL;
    size_t n = 0;
    if (rc == SCR_SUCCESS) {
        n = set != NULL ? (size_t)scr_kvtree_size(set) : 0;
        dirs = calloc(n + 1, sizeof(char *));
        if (dirs == NULL) rc = SCR_ERR_NOMEM;
    }
    size_t i = 0;
    for (const scr_kvtree_elem *e = set ? scr_kvtree_elem_first(set) : NULL;
         rc == SCR_SUCCESS && e && i < n; e = scr_kvtree_elem_next(e), i++) {
        dirs[i] = strdup(scr_kvtree_elem_key(e));
        if (dirs[i] == NULL) rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory reading %s", path ? path : cntl_dir);
    if (rc != SCR_SUCCESS) {
        scr_job_file_free_dirs(dirs);
        dirs = NULL;
    }
    *out_dirs = dirs;
    free(path);
    scr_kvtree_delete(job);
    return rc;
}
