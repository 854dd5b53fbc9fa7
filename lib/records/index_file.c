/* index_file.c — the index of datasets on the prefix. */
#include "index_file.h"
#include "index_scr31.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_parse.h"
#include "util_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_CURRENT "CURRENT"
#define KEY_DSET "DSET"
#define KEY_NAME "NAME"
#define KEY_DSETDESC "DSETDESC"
#define KEY_COMPLETE "COMPLETE"
#define KEY_FLUSHED "FLUSHED"
#define KEY_FETCHED "FETCHED"
#define KEY_FAILED "FAILED"
#define KEY_MISSING "MISSING"
#define KEY_V1_DIR "DIR"   /* version 1 */
#define KEY_V1_CKPT "CKPT" /* version 1 */

#define WHERE_MAX 512

/* "YYYY-MM-DDTHH:MM:SS" */
static int is_timestamp(const char *s)
{
    static const char form[] = "dddd-dd-ddTdd:dd:dd";
    if (s == NULL || strlen(s) != sizeof(form) - 1) return 0;
    for (size_t i = 0; i < sizeof(form) - 1; i++) {
        if (form[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != form[i]) return 0;
    }
    return 1;
}

int scr_index_file_path(const char *prefix, char **out_path)
{
    if (prefix == NULL || prefix[0] == '\0') {
        scr_err("index: no prefix directory given");
        return SCR_ERR_ARG;
    }
    return scr_path_join(prefix, ".scr/index.scr", out_path);
}

int scr_index_file_format_timestamp(time_t when, char *buf, size_t len)
{
    struct tm tm;
    if (buf == NULL || len < SCR_INDEX_TIMESTAMP_SIZE || localtime_r(&when, &tm) == NULL ||
        strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) != SCR_INDEX_TIMESTAMP_SIZE - 1) {
        scr_err("index: cannot format time %lld as a timestamp", (long long)when);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* --- datasets ------------------------------------------------------------------ */

static scr_kvtree *entry_of(const scr_kvtree *index, int id)
{
    return scr_kvtree_get_kv_int(index, KEY_DSET, id);
}

/* The entry of dataset id for a setter; logs when it is not in the index. */
static int existing_entry(scr_kvtree *index, int id, const char *what, scr_kvtree **out)
{
    if (index == NULL) {
        scr_err("index: %s without an index", what);
        return SCR_ERR_ARG;
    }
    *out = entry_of(index, id);
    if (*out == NULL) {
        scr_err("index: %s: no dataset %d in the index", what, id);
        return SCR_ERR_NOTFOUND;
    }
    return SCR_SUCCESS;
}

int scr_index_file_lookup_id(const scr_kvtree *index, const char *name, int *out_id)
{
    if (name == NULL || out_id == NULL) return SCR_ERR_ARG;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(index, KEY_DSET)); e;
         e = scr_kvtree_elem_next(e)) {
        const char *entry_name;
        int id;
        if (scr_kvtree_util_get_str(scr_kvtree_elem_hash(e), KEY_NAME, &entry_name) ==
                SCR_SUCCESS &&
            strcmp(entry_name, name) == 0 &&
            scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) == SCR_SUCCESS) {
            *out_id = id;
            return SCR_SUCCESS;
        }
    }
    return SCR_ERR_NOTFOUND;
}

int scr_index_file_set_dataset(scr_kvtree *index, const scr_dataset *desc, int complete)
{
    int id, other;
    const char *name;
    if (index == NULL || scr_dataset_get_id(desc, &id) != SCR_SUCCESS ||
        scr_dataset_get_name(desc, &name) != SCR_SUCCESS || (complete != 0 && complete != 1)) {
        scr_err("index: adding a dataset needs an index, a descriptor with ID and NAME, and "
                "COMPLETE 0 or 1 (got %d)",
                complete);
        return SCR_ERR_ARG;
    }
    if (scr_index_file_lookup_id(index, name, &other) == SCR_SUCCESS && other != id) {
        scr_err("index: dataset %d cannot be called '%s': dataset %d has that name", id, name,
                other);
        return SCR_ERR_ARG;
    }
    /* a renamed dataset that was current stays current */
    const char *old_name, *current;
    if (scr_index_file_get_name(index, id, &old_name) == SCR_SUCCESS &&
        scr_index_file_get_current(index, &current) == SCR_SUCCESS &&
        strcmp(old_name, current) == 0 && strcmp(old_name, name) != 0 &&
        scr_kvtree_util_set_str(index, KEY_CURRENT, name) != SCR_SUCCESS)
        return SCR_ERR_NOMEM;
    scr_kvtree *copy = scr_kvtree_dup(desc);
    if (copy == NULL) return SCR_ERR_NOMEM;
    scr_kvtree *entry = scr_kvtree_set_kv_int(index, KEY_DSET, id);
    if (entry == NULL || scr_kvtree_set(entry, KEY_DSETDESC, copy) == NULL) {
        if (entry == NULL) scr_kvtree_delete(copy);
        return SCR_ERR_NOMEM;
    }
    int rc = scr_kvtree_util_set_str(entry, KEY_NAME, name);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(entry, KEY_COMPLETE, complete);
    if (rc == SCR_SUCCESS) rc = scr_index_scr31_note_dataset(index, id, desc);
    return rc;
}

int scr_index_file_get_dataset(const scr_kvtree *index, int id, const scr_dataset **out_desc)
{
    if (out_desc == NULL) return SCR_ERR_ARG;
    const scr_kvtree *desc = scr_kvtree_get(entry_of(index, id), KEY_DSETDESC);
    if (desc == NULL) return SCR_ERR_NOTFOUND;
    *out_desc = desc;
    return SCR_SUCCESS;
}

int scr_index_file_get_name(const scr_kvtree *index, int id, const char **out_name)
{
    if (out_name == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_get_str(entry_of(index, id), KEY_NAME, out_name);
}

int scr_index_file_set_complete(scr_kvtree *index, int id, int complete)
{
    scr_kvtree *entry;
    int rc = existing_entry(index, id, "setting COMPLETE", &entry);
    if (rc != SCR_SUCCESS) return rc;
    if (complete != 0 && complete != 1) {
        scr_err("index: COMPLETE %d for dataset %d, expected 0 or 1", complete, id);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_int(entry, KEY_COMPLETE, complete);
}

int scr_index_file_get_complete(const scr_kvtree *index, int id, int *out_complete)
{
    int v;
    if (out_complete == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int(entry_of(index, id), KEY_COMPLETE, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v != 0 && v != 1) return SCR_ERR_TYPE;
    *out_complete = v;
    return SCR_SUCCESS;
}

int scr_index_file_remove(scr_kvtree *index, int id)
{
    if (index == NULL || id < 1) {
        scr_err("index: removing dataset %d (ids start at 1)", id);
        return SCR_ERR_ARG;
    }
    const char *name, *current;
    if (scr_index_file_get_name(index, id, &name) == SCR_SUCCESS &&
        scr_index_file_get_current(index, &current) == SCR_SUCCESS && strcmp(name, current) == 0)
        scr_kvtree_unset(index, KEY_CURRENT);
    scr_kvtree_unset_kv_int(index, KEY_DSET, id);
    scr_index_scr31_forget(index, id);
    return SCR_SUCCESS;
}

int scr_index_file_list_ids(const scr_kvtree *index, int **out_ids, int *out_count)
{
    int *ids, n;
    if (out_ids == NULL || out_count == NULL) return SCR_ERR_ARG;
    int rc =
        scr_record_list_int_keys(scr_kvtree_get(index, KEY_DSET), 1, "index", "datasets", &ids, &n);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0, j = n - 1; i < j; i++, j--) { /* newest first */
        int t = ids[i];
        ids[i] = ids[j];
        ids[j] = t;
    }
    *out_ids = ids;
    *out_count = n;
    return SCR_SUCCESS;
}

/* --- current -------------------------------------------------------------------- */

int scr_index_file_set_current(scr_kvtree *index, const char *name)
{
    int id;
    if (index == NULL || name == NULL || name[0] == '\0') {
        scr_err("index: setting CURRENT without an index or a name");
        return SCR_ERR_ARG;
    }
    if (scr_index_file_lookup_id(index, name, &id) != SCR_SUCCESS) {
        scr_err("index: cannot make '%s' current: no dataset of that name", name);
        return SCR_ERR_NOTFOUND;
    }
    return scr_kvtree_util_set_str(index, KEY_CURRENT, name);
}

int scr_index_file_get_current(const scr_kvtree *index, const char **out_name)
{
    if (out_name == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_get_str(index, KEY_CURRENT, out_name);
}

int scr_index_file_unset_current(scr_kvtree *index)
{
    if (index == NULL) return SCR_ERR_ARG;
    scr_kvtree_unset(index, KEY_CURRENT);
    return SCR_SUCCESS;
}

/* --- history -------------------------------------------------------------------- */

static int mark(scr_kvtree *index, int id, const char *key, const char *timestamp, int replace)
{
    char what[64];
    scr_kvtree *entry;
    snprintf(what, sizeof(what), "marking %s", key);
    int rc = existing_entry(index, id, what, &entry);
    if (rc != SCR_SUCCESS) return rc;
    if (!is_timestamp(timestamp)) {
        scr_err("index: %s of dataset %d with '%s', expected YYYY-MM-DDTHH:MM:SS", what, id,
                timestamp ? timestamp : "(null)");
        return SCR_ERR_ARG;
    }
    if (replace) return scr_kvtree_util_set_str(entry, key, timestamp);
    return scr_kvtree_set_kv(entry, key, timestamp) ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

int scr_index_file_mark_flushed(scr_kvtree *index, int id, const char *timestamp)
{
    return mark(index, id, KEY_FLUSHED, timestamp, 1);
}

int scr_index_file_mark_fetched(scr_kvtree *index, int id, const char *timestamp)
{
    return mark(index, id, KEY_FETCHED, timestamp, 0);
}

int scr_index_file_mark_failed(scr_kvtree *index, int id, const char *timestamp)
{
    return mark(index, id, KEY_FAILED, timestamp, 0);
}

int scr_index_file_get_flushed(const scr_kvtree *index, int id, const char **out_timestamp)
{
    const char *s;
    if (out_timestamp == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_str(entry_of(index, id), KEY_FLUSHED, &s);
    if (rc != SCR_SUCCESS) return rc;
    if (!is_timestamp(s)) return SCR_ERR_TYPE;
    *out_timestamp = s;
    return SCR_SUCCESS;
}

static int list_times(const scr_kvtree *index, int id, const char *key, const char ***out,
                      int *out_count)
{
    if (out == NULL || out_count == NULL) return SCR_ERR_ARG;
    const scr_kvtree *entry = entry_of(index, id);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    /* timestamps of this form sort by bytes in time order */
    return scr_record_list_keys(scr_kvtree_get(entry, key), "index", "times", out, out_count);
}

int scr_index_file_list_fetched(const scr_kvtree *index, int id, const char ***out_times,
                                int *out_count)
{
    return list_times(index, id, KEY_FETCHED, out_times, out_count);
}

int scr_index_file_list_failed(const scr_kvtree *index, int id, const char ***out_times,
                               int *out_count)
{
    return list_times(index, id, KEY_FAILED, out_times, out_count);
}

/* --- missing ranks -------------------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int scr_index_file_set_missing(scr_kvtree *index, int id, const int *ranks, int count)
{
    scr_kvtree *entry;
    int rc = existing_entry(index, id, "recording missing ranks", &entry);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset(entry, KEY_MISSING);
    for (int i = 0; i < count; i++) {
        if (ranks[i] < 0) {
            scr_err("index: %d is not a rank (missing from dataset %d)", ranks[i], id);
            return SCR_ERR_ARG;
        }
        if (scr_kvtree_set_kv_int(entry, KEY_MISSING, ranks[i]) == NULL) return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

int scr_index_file_list_missing(const scr_kvtree *index, int id, int **out_ranks, int *out_count)
{
    if (out_ranks == NULL || out_count == NULL) return SCR_ERR_ARG;
    const scr_kvtree *entry = entry_of(index, id);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    const scr_kvtree *missing = scr_kvtree_get(entry, KEY_MISSING);
    int n = scr_kvtree_size(missing), k = 0;
    int *ranks = n ? malloc(sizeof(int) * (size_t)n) : NULL;
    if (n && ranks == NULL) return SCR_ERR_NOMEM;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(missing); e; e = scr_kvtree_elem_next(e)) {
        int64_t v = -1;
        if (scr_parse_int64(scr_kvtree_elem_key(e), &v) != SCR_SUCCESS || v < 0 || v > INT_MAX) {
            free(ranks);
            return SCR_ERR_TYPE;
        }
        ranks[k++] = (int)v;
    }
    if (k > 1)
        qsort(ranks, (size_t)k, sizeof(int), compare_ints); /* no array when none are missing */
    *out_ranks = ranks;
    *out_count = k;
    return SCR_SUCCESS;
}

/* --- restart ---------------------------------------------------------------------- */

int scr_index_file_restartable(const scr_kvtree *index, int id, const char **out_why)
{
    if (out_why == NULL) return SCR_ERR_ARG;
    const scr_kvtree *entry = entry_of(index, id);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    int complete = 0;
    const scr_dataset *desc = NULL;
    *out_why = NULL;
    if (scr_index_file_get_dataset(index, id, &desc) != SCR_SUCCESS)
        *out_why = "has no dataset description, so it is not known to be a checkpoint";
    else if (!scr_dataset_is_checkpoint(desc))
        *out_why = "is output, not a checkpoint";
    else if (scr_index_file_get_complete(index, id, &complete) != SCR_SUCCESS || !complete)
        *out_why = "is not complete (some of its files are missing or invalid)";
    else if (scr_kvtree_get(entry, KEY_FAILED) != NULL)
        *out_why = "failed to load in an earlier restart (FAILED is set)";
    return SCR_SUCCESS;
}

int scr_index_file_restart_candidate(const scr_kvtree *index, int *out_id)
{
    return scr_index_file_restart_candidate_below(index, INT_MAX, out_id);
}

int scr_index_file_restart_candidate_below(const scr_kvtree *index, int below, int *out_id)
{
    if (out_id == NULL) return SCR_ERR_ARG;
    int newest_allowed = INT_MAX;
    const char *current;
    if (scr_index_file_get_current(index, &current) == SCR_SUCCESS &&
        scr_index_file_lookup_id(index, current, &newest_allowed) != SCR_SUCCESS) {
        scr_warn("index: current dataset '%s' is not in the index; starting from the newest",
                 current);
        newest_allowed = INT_MAX;
    }
    int best = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(index, KEY_DSET)); e;
         e = scr_kvtree_elem_next(e)) {
        int id;
        const char *why;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS ||
            id > newest_allowed || id >= below || id <= best)
            continue;
        if (scr_index_file_restartable(index, id, &why) == SCR_SUCCESS && why == NULL) best = id;
    }
    if (best == 0) return SCR_ERR_NOTFOUND;
    *out_id = best;
    return SCR_SUCCESS;
}

/* --- checking an index as a reader ------------------------------------------------------ */

/* A key holding a set of timestamps (FETCHED, FAILED). */
static int validate_times(const char *file, const char *where, const scr_kvtree *times)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(times); e; e = scr_kvtree_elem_next(e))
        if (!is_timestamp(scr_kvtree_elem_key(e)) || scr_kvtree_size(scr_kvtree_elem_hash(e)))
            return scr_record_bad_key(file, where, scr_kvtree_elem_key(e),
                                      "times YYYY-MM-DDTHH:MM:SS");
    return SCR_SUCCESS;
}

static int validate_ranks(const char *file, const char *where, const scr_kvtree *ranks)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(ranks); e; e = scr_kvtree_elem_next(e)) {
        int64_t v = -1;
        if (scr_parse_int64(scr_kvtree_elem_key(e), &v) != SCR_SUCCESS || v < 0 || v > INT_MAX ||
            scr_kvtree_size(scr_kvtree_elem_hash(e)))
            return scr_record_bad_key(file, where, scr_kvtree_elem_key(e), "ranks (integers >= 0)");
    }
    return SCR_SUCCESS;
}

static int validate_entry(const char *file, int id, const scr_kvtree *entry)
{
    char where[WHERE_MAX], here[WHERE_MAX];
    scr_record_key_path(where, sizeof(where), "%s %d", KEY_DSET, id);
    const char *name = NULL, *text;
    int v, rc = SCR_SUCCESS;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(entry); e && rc == SCR_SUCCESS;
         e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        const scr_kvtree *value = scr_kvtree_elem_hash(e);
        scr_record_key_path(here, sizeof(here), "%s %s", where, key);
        if (strcmp(key, KEY_NAME) == 0) {
            if (scr_kvtree_util_get_str(entry, key, &name) != SCR_SUCCESS || name[0] == '\0')
                rc = scr_record_bad_value(file, here, value, "one non-empty dataset name");
        } else if (strcmp(key, KEY_DSETDESC) == 0) {
            rc = scr_dataset_validate(value, file, here);
            if (rc == SCR_SUCCESS && scr_dataset_get_id(value, &v) == SCR_SUCCESS && v != id) {
                char expected[64];
                snprintf(expected, sizeof(expected), "%d, the id of its entry", id);
                scr_record_key_path(here, sizeof(here), "%s %s ID", where, key);
                rc = scr_record_bad_value(file, here, scr_kvtree_get(value, "ID"), expected);
            }
        } else if (strcmp(key, KEY_COMPLETE) == 0) {
            if (scr_kvtree_util_get_int(entry, key, &v) != SCR_SUCCESS || (v != 0 && v != 1))
                rc = scr_record_bad_value(file, here, value, "0 or 1");
        } else if (strcmp(key, KEY_FLUSHED) == 0) {
            if (scr_kvtree_util_get_str(entry, key, &text) != SCR_SUCCESS || !is_timestamp(text))
                rc = scr_record_bad_value(file, here, value, "one time YYYY-MM-DDTHH:MM:SS");
        } else if (strcmp(key, KEY_FETCHED) == 0 || strcmp(key, KEY_FAILED) == 0) {
            rc = validate_times(file, here, value);
        } else if (strcmp(key, KEY_MISSING) == 0) {
            rc = validate_ranks(file, here, value);
        } else if (strcmp(key, SCR_INDEX_SCR31_KEY_DESC) == 0) {
            rc = scr_index_scr31_validate_desc(file, here, id, value);
        } else {
            rc = scr_record_bad_key(file, where, key,
                                    "NAME, DSETDESC, COMPLETE, FLUSHED, FETCHED, FAILED, MISSING "
                                    "or SCR 3.1's DSET");
        }
    }
    if (rc == SCR_SUCCESS && name == NULL) {
        scr_err("%s: key %s has no NAME", file, where);
        rc = SCR_ERR_FORMAT;
    }
    return rc;
}

static int validate(const char *file, const scr_kvtree *index)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(index); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_V1_DIR) == 0 || strcmp(key, KEY_V1_CKPT) == 0) {
            scr_err("%s: an index of checkpoint directories (version 1, key %s), which this "
                    "build does not read; index the datasets again with scr-index",
                    file, key);
            return SCR_ERR_FORMAT;
        }
        if (strcmp(key, KEY_CURRENT) != 0 && strcmp(key, KEY_DSET) != 0 &&
            strcmp(key, SCR_INDEX_SCR31_KEY_NAMES) != 0 &&
            strcmp(key, SCR_RECORD_KEY_VERSION) != 0) {
            scr_err(
                "%s: unexpected key '%s' at the top of an index, expected %s, %s and SCR 3.1's %s",
                file, key, KEY_CURRENT, KEY_DSET, SCR_INDEX_SCR31_KEY_NAMES);
            return SCR_ERR_FORMAT;
        }
    }
    const char *current;
    if (scr_kvtree_get(index, KEY_CURRENT) != NULL &&
        (scr_kvtree_util_get_str(index, KEY_CURRENT, &current) != SCR_SUCCESS ||
         current[0] == '\0'))
        return scr_record_bad_value(file, KEY_CURRENT, scr_kvtree_get(index, KEY_CURRENT),
                                    "one dataset name");

    /* names must be unique, or lookups by name would be ambiguous */
    scr_kvtree *names = scr_kvtree_new();
    if (names == NULL) return SCR_ERR_NOMEM;
    int rc = SCR_SUCCESS;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(index, KEY_DSET));
         e && rc == SCR_SUCCESS; e = scr_kvtree_elem_next(e)) {
        int id;
        const char *name;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS) {
            rc = scr_record_bad_key(file, KEY_DSET, scr_kvtree_elem_key(e),
                                    "dataset ids (integers >= 1)");
            break;
        }
        rc = validate_entry(file, id, scr_kvtree_elem_hash(e));
        if (rc != SCR_SUCCESS) break;
        scr_kvtree_util_get_str(scr_kvtree_elem_hash(e), KEY_NAME, &name);
        const char *other;
        if (scr_kvtree_util_get_str(names, name, &other) == SCR_SUCCESS) {
            scr_err("%s: datasets %s and %d are both called '%s'", file, other, id, name);
            rc = SCR_ERR_FORMAT;
        } else if (scr_kvtree_set_kv(names, name, scr_kvtree_elem_key(e)) == NULL) {
            rc = SCR_ERR_NOMEM;
        }
    }
    scr_kvtree_delete(names);
    if (rc == SCR_SUCCESS) rc = scr_index_scr31_validate_names(file, index);
    return rc;
}

/* --- files ---------------------------------------------------------------------------- */

/* What the file holds: VERSION, CURRENT, SCR 3.1's name map when the index
 * has one, then the datasets, sorted. */
static const char *const file_keys[] = {KEY_CURRENT, SCR_INDEX_SCR31_KEY_NAMES, KEY_DSET};

static const struct scr_record_kind index_kind = {
    .name = "index",
    .version = SCR_INDEX_FILE_VERSION,
    .validate = validate,
    .upgrade = scr_index_scr31_upgrade,
    .keys = file_keys,
    .nkeys = sizeof(file_keys) / sizeof(file_keys[0]),
    .lock_creates_dir = 1,
};

int scr_index_file_read(const char *path, scr_kvtree *index)
{
    struct stat st;
    if (path == NULL || index == NULL) {
        scr_err("index: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    /* the locked read takes a missing file for one without datasets; say which it is */
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) return SCR_ERR_NOTFOUND;
    return scr_record_read_locked(&index_kind, path, index);
}

int scr_index_file_parse(const char *path, const void *buf, size_t len, scr_kvtree *index)
{
    if (path == NULL || (buf == NULL && len > 0) || index == NULL) {
        scr_err("index: parse called without a path, bytes or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_parse(&index_kind, path, buf, len, index);
}

int scr_index_file_lock_read(const char *path, int *out_fd, scr_kvtree *index)
{
    if (path == NULL || out_fd == NULL || index == NULL) {
        scr_err("index: lock_read called without a path, a descriptor or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_lock_read(&index_kind, path, out_fd, index);
}

int scr_index_file_write_unlock(const char *path, int *fd, const scr_kvtree *index)
{
    if (path == NULL || fd == NULL) {
        scr_err("index: write_unlock called without a path or a descriptor");
        scr_kvtree_close_unlock(fd);
        return SCR_ERR_ARG;
    }
    return scr_record_write_unlock(&index_kind, path, fd, index);
}

void scr_index_file_unlock(int *fd)
{
    scr_kvtree_close_unlock(fd);
}

int scr_index_file_update(const char *path, int (*change)(scr_kvtree *index, void *ctx), void *ctx)
{
    scr_kvtree *index = scr_kvtree_new();
    if (index == NULL) return SCR_ERR_NOMEM;
    int fd = -1;
    int rc = scr_index_file_lock_read(path, &fd, index);
    if (rc == SCR_SUCCESS) {
        rc = change(index, ctx);
        if (rc == SCR_SUCCESS)
            rc = scr_index_file_write_unlock(path, &fd, index);
        else
            scr_index_file_unlock(&fd);
    }
    scr_kvtree_delete(index);
    return rc;
}
