/* dataset.c — typed fields of a dataset descriptor. */
#include "dataset.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int text_nonempty(const char *s)
{
    return s[0] != '\0';
}

enum kind { TEXT, INT, TIME64, SIZE64 };

struct field {
    const char *key;
    enum kind kind;
    int min, max;         /* INT */
    const char *expected; /* for messages */
};

enum {
    F_ID,
    F_NAME,
    F_FLAGS,
    F_CREATED,
    F_USER,
    F_JOBNAME,
    F_JOBID,
    F_CKPT,
    F_SIZE,
    F_FILES,
    F_COMPLETE,
    F_CLUSTER,
    F_FLAG_CKPT,
    F_FLAG_OUTPUT,
    F_SHARED_NAMES
};

static const struct field fields[] = {
    [F_ID] = {"ID", INT, 1, INT_MAX, "a dataset id (an integer >= 1)"},
    [F_NAME] = {"NAME", TEXT, 0, 0, "a non-empty dataset name"},
    [F_FLAGS] = {"FLAGS", INT, 0, SCR_DATASET_FLAG_CHECKPOINT | SCR_DATASET_FLAG_OUTPUT,
                 "flags 0 to 3 (1 checkpoint, 2 output)"},
    [F_CREATED] = {"CREATED", TIME64, 0, 0, "microseconds since the epoch"},
    [F_USER] = {"USER", TEXT, 0, 0, "a non-empty user name"},
    [F_JOBNAME] = {"JOBNAME", TEXT, 0, 0, "a non-empty job name"},
    [F_JOBID] = {"JOBID", TEXT, 0, 0, "a non-empty job id"},
    [F_CKPT] = {"CKPT", INT, 1, INT_MAX, "a checkpoint id (an integer >= 1)"},
    [F_SIZE] = {"SIZE", SIZE64, 0, 0, "a size in bytes"},
    [F_FILES] = {"FILES", INT, 0, INT_MAX, "a number of files (an integer >= 0)"},
    [F_COMPLETE] = {"COMPLETE", INT, 0, 1, "0 or 1"},
    [F_CLUSTER] = {"CLUSTER", TEXT, 0, 0, "a non-empty cluster name"},
    /* SCR 3.1 writes these two instead of FLAGS */
    [F_FLAG_CKPT] = {"FLAG_CKPT", INT, 0, 1, "0 or 1"},
    [F_FLAG_OUTPUT] = {"FLAG_OUTPUT", INT, 0, 1, "0 or 1"},
    /* ours: how many names of a dataset on the prefix several ranks list */
    [F_SHARED_NAMES] = {"SHARED_NAMES", INT, 0, INT_MAX, "a number of names (an integer >= 0)"},
};
#define NFIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

static int get_text(const scr_dataset *dset, int f, const char **out)
{
    const char *s;
    if (out == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_str(dset, fields[f].key, &s);
    if (rc != SCR_SUCCESS) return rc;
    if (!text_nonempty(s)) return SCR_ERR_TYPE;
    *out = s;
    return SCR_SUCCESS;
}

static int get_int(const scr_dataset *dset, int f, int *out)
{
    int v;
    if (out == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int(dset, fields[f].key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < fields[f].min || v > fields[f].max) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

static int check_field(const scr_dataset *dset, int f)
{
    const char *s;
    int i;
    int64_t t;
    uint64_t u;
    switch (fields[f].kind) {
    case TEXT: return get_text(dset, f, &s);
    case INT: return get_int(dset, f, &i);
    case TIME64: return scr_dataset_get_created(dset, &t);
    case SIZE64: return scr_kvtree_util_get_uint64(dset, fields[f].key, &u);
    }
    return SCR_ERR_TYPE;
}

/* --- allocation -------------------------------------------------------------- */

scr_dataset *scr_dataset_new(void)
{
    return scr_kvtree_new();
}

void scr_dataset_delete(scr_dataset *dset)
{
    scr_kvtree_delete(dset);
}

int scr_dataset_copy(scr_dataset *dst, const scr_dataset *src)
{
    if (dst == NULL) return SCR_ERR_ARG;
    if (dst == src) return SCR_SUCCESS;
    scr_kvtree_unset_all(dst);
    return scr_kvtree_copy(dst, src);
}

/* --- setters ------------------------------------------------------------------ */

static int set_text(scr_dataset *dset, int f, const char *value)
{
    if (dset == NULL || value == NULL || !text_nonempty(value)) {
        scr_err("dataset: refusing %s '%s', expected %s", fields[f].key, value ? value : "(null)",
                fields[f].expected);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_str(dset, fields[f].key, value);
}

static int set_int(scr_dataset *dset, int f, int value)
{
    if (dset == NULL || value < fields[f].min || value > fields[f].max) {
        scr_err("dataset: refusing %s %d, expected %s", fields[f].key, value, fields[f].expected);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_int(dset, fields[f].key, value);
}

int scr_dataset_set_id(scr_dataset *dset, int id)
{
    return set_int(dset, F_ID, id);
}

int scr_dataset_set_name(scr_dataset *dset, const char *name)
{
    return set_text(dset, F_NAME, name);
}

int scr_dataset_set_flags(scr_dataset *dset, int flags)
{
    return set_int(dset, F_FLAGS, flags);
}

int scr_dataset_set_username(scr_dataset *dset, const char *user)
{
    return set_text(dset, F_USER, user);
}

int scr_dataset_set_jobname(scr_dataset *dset, const char *name)
{
    return set_text(dset, F_JOBNAME, name);
}

int scr_dataset_set_cluster(scr_dataset *dset, const char *cluster)
{
    return set_text(dset, F_CLUSTER, cluster);
}

int scr_dataset_set_jobid(scr_dataset *dset, const char *jobid)
{
    return set_text(dset, F_JOBID, jobid);
}

int scr_dataset_set_ckpt(scr_dataset *dset, int ckpt_id)
{
    return set_int(dset, F_CKPT, ckpt_id);
}

int scr_dataset_set_files(scr_dataset *dset, int files)
{
    return set_int(dset, F_FILES, files);
}

int scr_dataset_set_complete(scr_dataset *dset, int complete)
{
    return set_int(dset, F_COMPLETE, complete);
}

int scr_dataset_set_shared_names(scr_dataset *dset, int names)
{
    return set_int(dset, F_SHARED_NAMES, names);
}

int scr_dataset_set_created(scr_dataset *dset, int64_t usecs)
{
    if (dset == NULL || usecs < 0) {
        scr_err("dataset: refusing CREATED %lld, expected %s", (long long)usecs,
                fields[F_CREATED].expected);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_int64(dset, fields[F_CREATED].key, usecs);
}

int scr_dataset_set_size(scr_dataset *dset, uint64_t bytes)
{
    if (dset == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_set_uint64(dset, fields[F_SIZE].key, bytes);
}

/* --- getters ------------------------------------------------------------------ */

int scr_dataset_get_id(const scr_dataset *dset, int *out)
{
    return get_int(dset, F_ID, out);
}

int scr_dataset_get_name(const scr_dataset *dset, const char **out)
{
    return get_text(dset, F_NAME, out);
}

int scr_dataset_get_flags(const scr_dataset *dset, int *out)
{
    int rc = get_int(dset, F_FLAGS, out);
    if (rc != SCR_ERR_NOTFOUND) return rc;
    /* a descriptor SCR 3.1 wrote: one key per flag */
    int ckpt = 0, output = 0;
    int crc = get_int(dset, F_FLAG_CKPT, &ckpt), orc = get_int(dset, F_FLAG_OUTPUT, &output);
    if (crc == SCR_ERR_NOTFOUND && orc == SCR_ERR_NOTFOUND) return SCR_ERR_NOTFOUND;
    if ((crc != SCR_SUCCESS && crc != SCR_ERR_NOTFOUND) ||
        (orc != SCR_SUCCESS && orc != SCR_ERR_NOTFOUND))
        return SCR_ERR_TYPE;
    *out = (ckpt ? SCR_DATASET_FLAG_CHECKPOINT : 0) | (output ? SCR_DATASET_FLAG_OUTPUT : 0);
    return SCR_SUCCESS;
}

int scr_dataset_set_scr31_flags(scr_dataset *dset)
{
    int flags;
    int rc = scr_dataset_get_flags(dset, &flags);
    if (rc == SCR_ERR_NOTFOUND)
        flags = scr_dataset_is_checkpoint(dset) ? SCR_DATASET_FLAG_CHECKPOINT : 0;
    else if (rc != SCR_SUCCESS)
        return rc;
    rc = set_int(dset, F_FLAG_CKPT, (flags & SCR_DATASET_FLAG_CHECKPOINT) != 0);
    if (rc == SCR_SUCCESS)
        rc = set_int(dset, F_FLAG_OUTPUT, (flags & SCR_DATASET_FLAG_OUTPUT) != 0);
    return rc;
}

int scr_dataset_get_username(const scr_dataset *dset, const char **out)
{
    return get_text(dset, F_USER, out);
}

int scr_dataset_get_jobname(const scr_dataset *dset, const char **out)
{
    return get_text(dset, F_JOBNAME, out);
}

int scr_dataset_get_cluster(const scr_dataset *dset, const char **out)
{
    return get_text(dset, F_CLUSTER, out);
}

int scr_dataset_get_jobid(const scr_dataset *dset, const char **out)
{
    return get_text(dset, F_JOBID, out);
}

int scr_dataset_get_ckpt(const scr_dataset *dset, int *out)
{
    return get_int(dset, F_CKPT, out);
}

int scr_dataset_get_files(const scr_dataset *dset, int *out)
{
    return get_int(dset, F_FILES, out);
}

int scr_dataset_get_complete(const scr_dataset *dset, int *out)
{
    return get_int(dset, F_COMPLETE, out);
}

int scr_dataset_get_shared_names(const scr_dataset *dset, int *out)
{
    return get_int(dset, F_SHARED_NAMES, out);
}

int scr_dataset_get_created(const scr_dataset *dset, int64_t *out)
{
    int64_t v;
    if (out == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int64(dset, fields[F_CREATED].key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < 0) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

int scr_dataset_get_size(const scr_dataset *dset, uint64_t *out)
{
    if (out == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_get_uint64(dset, fields[F_SIZE].key, out);
}

/* --- questions ---------------------------------------------------------------- */

int scr_dataset_is_checkpoint(const scr_dataset *dset)
{
    int flags, ckpt;
    int rc = scr_dataset_get_flags(dset, &flags);
    if (rc == SCR_SUCCESS) return (flags & SCR_DATASET_FLAG_CHECKPOINT) != 0;
    if (rc == SCR_ERR_NOTFOUND) return scr_dataset_get_ckpt(dset, &ckpt) == SCR_SUCCESS;
    return 0;
}

int scr_dataset_is_output(const scr_dataset *dset)
{
    int flags;
    if (scr_dataset_get_flags(dset, &flags) != SCR_SUCCESS) return 0;
    return (flags & SCR_DATASET_FLAG_OUTPUT) != 0;
}

/* --- validation ---------------------------------------------------------------- */

int scr_dataset_validate(const scr_dataset *dset, const char *file, const char *where)
{
    char key[4352];
    for (int f = 0; f < NFIELDS; f++) {
        if (check_field(dset, f) != SCR_ERR_TYPE) continue;
        if (where != NULL && where[0] != '\0')
            snprintf(key, sizeof(key), "%s %s", where, fields[f].key);
        else
            snprintf(key, sizeof(key), "%s", fields[f].key);
        return scr_record_bad_value(file, key, scr_kvtree_get(dset, fields[f].key),
                                    fields[f].expected);
    }
    return SCR_SUCCESS;
}
