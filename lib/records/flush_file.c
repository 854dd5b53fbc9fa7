/* flush_file.c — the flush file: locations, names and kinds of cached datasets. */
#include "flush_file.h"
#include "dataset.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdio.h>
#include <string.h>

#define KEY_DSET "DSET"
#define KEY_LOCATION "LOCATION"
#define KEY_NAME "NAME"
#define KEY_CKPT "CKPT"
#define KEY_OUTPUT "OUTPUT"

static const char *const location_names[] = {"CACHE", "PFS", "FLUSHING"};
#define NLOCATIONS ((int)(sizeof(location_names) / sizeof(location_names[0])))

const char *scr_flush_location_name(enum scr_flush_location loc)
{
    if ((int)loc < 0 || (int)loc >= NLOCATIONS) return NULL;
    return location_names[loc];
}

static int is_location_name(const char *name)
{
    for (int i = 0; i < NLOCATIONS; i++)
        if (strcmp(name, location_names[i]) == 0) return 1;
    return 0;
}

/* --- single values of a dataset ------------------------------------------- */

static int get_ckpt(const scr_kvtree *dset, int *out)
{
    const char *text;
    int rc = scr_kvtree_util_get_str(dset, KEY_CKPT, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_record_key_int(text, 1, out);
}

static int get_output(const scr_kvtree *dset, int *out)
{
    int v;
    int rc = scr_kvtree_util_get_int(dset, KEY_OUTPUT, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v != 0 && v != 1) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

/* --- checks shared by read and write ------------------------------------ */

/* Check one dataset entry as read from file. */
static int validate_dataset(const char *file, const char *id, const scr_kvtree *dset)
{
    char key[128];
    const scr_kvtree *locs = scr_kvtree_get(dset, KEY_LOCATION);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(locs); e; e = scr_kvtree_elem_next(e)) {
        if (!is_location_name(scr_kvtree_elem_key(e))) {
            snprintf(key, sizeof(key), "%s %s %s", KEY_DSET, id, KEY_LOCATION);
            return scr_record_bad_key(file, key, scr_kvtree_elem_key(e), "CACHE, PFS or FLUSHING");
        }
    }
    const char *name;
    int v;
    if (scr_kvtree_util_get_str(dset, KEY_NAME, &name) == SCR_ERR_TYPE) {
        snprintf(key, sizeof(key), "%s %s %s", KEY_DSET, id, KEY_NAME);
        return scr_record_bad_value(file, key, scr_kvtree_get(dset, KEY_NAME),
                                    "a single dataset name");
    }
    if (get_ckpt(dset, &v) == SCR_ERR_TYPE) {
        snprintf(key, sizeof(key), "%s %s %s", KEY_DSET, id, KEY_CKPT);
        return scr_record_bad_value(file, key, scr_kvtree_get(dset, KEY_CKPT),
                                    "a checkpoint id (a positive integer)");
    }
    if (get_output(dset, &v) == SCR_ERR_TYPE) {
        snprintf(key, sizeof(key), "%s %s %s", KEY_DSET, id, KEY_OUTPUT);
        return scr_record_bad_value(file, key, scr_kvtree_get(dset, KEY_OUTPUT), "0 or 1");
    }
    return SCR_SUCCESS;
}

static int validate(const char *file, const scr_kvtree *tree)
{
    const scr_kvtree *dsets = scr_kvtree_get(tree, KEY_DSET);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(dsets); e; e = scr_kvtree_elem_next(e)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS)
            return scr_record_bad_key(file, KEY_DSET, scr_kvtree_elem_key(e),
                                      "dataset ids (positive integers)");
        int rc = validate_dataset(file, scr_kvtree_elem_key(e), scr_kvtree_elem_hash(e));
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* --- SCR 3.1's layout -------------------------------------------------------- */

#define KEY_SCR31_DATASET "DATASET"
#define KEY_SCR31_DSETDESC "DSETDESC"

/* SCR 3.1's entry id (DSETDESC {descriptor}, CKPT 1 for a checkpoint,
 * OUTPUT 1 for output, LOCATION, NAME) as this build's entry in out. */
static int upgrade_scr31_entry(const char *file, int id, const scr_kvtree *old, scr_kvtree *out)
{
    char where[256];
    const scr_dataset *desc = scr_kvtree_get(old, KEY_SCR31_DSETDESC);
    snprintf(where, sizeof(where), "%s %d %s", KEY_SCR31_DATASET, id, KEY_SCR31_DSETDESC);
    int rc = scr_dataset_validate(desc, file, where);
    if (rc != SCR_SUCCESS) return rc;
    int is_ckpt = 0, is_output = 0, ckpt_id;
    const char *name;
    snprintf(where, sizeof(where), "%s %d %s", KEY_SCR31_DATASET, id, KEY_CKPT);
    if (scr_kvtree_get(old, KEY_CKPT) != NULL &&
        (scr_kvtree_util_get_int(old, KEY_CKPT, &is_ckpt) != SCR_SUCCESS ||
         (is_ckpt != 0 && is_ckpt != 1)))
        return scr_record_bad_value(file, where, scr_kvtree_get(old, KEY_CKPT),
                                    "0 or 1 (SCR 3.1's checkpoint flag)");
    snprintf(where, sizeof(where), "%s %d %s", KEY_SCR31_DATASET, id, KEY_OUTPUT);
    if (scr_kvtree_get(old, KEY_OUTPUT) != NULL &&
        (scr_kvtree_util_get_int(old, KEY_OUTPUT, &is_output) != SCR_SUCCESS ||
         (is_output != 0 && is_output != 1)))
        return scr_record_bad_value(file, where, scr_kvtree_get(old, KEY_OUTPUT), "0 or 1");
    scr_kvtree *entry = scr_kvtree_set_kv_int(out, KEY_DSET, id);
    if (entry == NULL) return SCR_ERR_NOMEM;
    for (scr_kvtree_elem *l = scr_kvtree_elem_first(scr_kvtree_get(old, KEY_LOCATION)); l;
         l = scr_kvtree_elem_next(l))
        if (scr_kvtree_set_kv(entry, KEY_LOCATION, scr_kvtree_elem_key(l)) == NULL)
            return SCR_ERR_NOMEM;
    if (scr_kvtree_util_get_str(old, KEY_NAME, &name) == SCR_SUCCESS &&
        scr_kvtree_util_set_str(entry, KEY_NAME, name) != SCR_SUCCESS)
        return SCR_ERR_NOMEM;
    /* SCR 3.1's CKPT is a flag; this build keeps the checkpoint id there */
    if (is_ckpt) {
        if (scr_dataset_get_ckpt(desc, &ckpt_id) != SCR_SUCCESS) {
            scr_err("%s: key %s %d marks a checkpoint whose %s has no CKPT id", file,
                    KEY_SCR31_DATASET, id, KEY_SCR31_DSETDESC);
            return SCR_ERR_FORMAT;
        }
        rc = scr_kvtree_util_set_int(entry, KEY_CKPT, ckpt_id);
    }
    if (rc == SCR_SUCCESS && is_output) rc = scr_kvtree_util_set_int(entry, KEY_OUTPUT, 1);
    return rc;
}

/* A flush file SCR 3.1 wrote keeps its datasets under DATASET: they become
 * this build's DSET entries (an id listed under both keeps this build's). */
static int upgrade_scr31(const char *file, scr_kvtree *tree)
{
    const scr_kvtree *old = scr_kvtree_get(tree, KEY_SCR31_DATASET);
    if (old == NULL) return SCR_SUCCESS;
    scr_kvtree *out = scr_kvtree_new();
    int rc = out ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(old); rc == SCR_SUCCESS && e;
         e = scr_kvtree_elem_next(e)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS)
            rc = scr_record_bad_key(file, KEY_SCR31_DATASET, scr_kvtree_elem_key(e),
                                    "dataset ids (positive integers)");
        else if (scr_kvtree_get_kv_int(tree, KEY_DSET, id) == NULL)
            rc = upgrade_scr31_entry(file, id, scr_kvtree_elem_hash(e), out);
    }
    scr_kvtree *dsets = rc == SCR_SUCCESS ? scr_kvtree_get(out, KEY_DSET) : NULL;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(dsets); rc == SCR_SUCCESS && e;
         e = scr_kvtree_elem_next(e)) {
        scr_kvtree *mine = scr_kvtree_set_kv(tree, KEY_DSET, scr_kvtree_elem_key(e));
        if (mine == NULL || scr_kvtree_copy(mine, scr_kvtree_elem_hash(e)) != SCR_SUCCESS)
            rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) scr_kvtree_unset(tree, KEY_SCR31_DATASET);
    if (rc == SCR_ERR_NOMEM) scr_err("%s: out of memory reading SCR 3.1's datasets", file);
    scr_kvtree_delete(out);
    return rc;
}

/* --- files ---------------------------------------------------------------- */

static const struct scr_record_kind flush_kind = {
    .name = "flush file",
    .version = SCR_FLUSH_FILE_VERSION,
    .validate = validate,
    .upgrade = upgrade_scr31,
};

int scr_flush_file_read(const char *path, scr_kvtree *flush)
{
    if (path == NULL || flush == NULL) {
        scr_err("flush file: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_read(&flush_kind, path, flush);
}

int scr_flush_file_write(const char *path, const scr_kvtree *flush)
{
    if (path == NULL) {
        scr_err("flush file: write called without a path");
        return SCR_ERR_ARG;
    }
    return scr_record_write(&flush_kind, path, flush);
}

/* --- setters and getters --------------------------------------------------- */

static int check_args(const char *what, const scr_kvtree *flush, int id)
{
    if (flush == NULL) {
        scr_err("flush file: %s without a tree", what);
        return SCR_ERR_ARG;
    }
    if (id < 1) {
        scr_err("flush file: %s for dataset id %d (ids start at 1)", what, id);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* The dataset's entry, created when missing; NULL only when out of memory. */
static scr_kvtree *dataset_entry(scr_kvtree *flush, int id)
{
    return scr_kvtree_set_kv_int(flush, KEY_DSET, id);
}

int scr_flush_file_set_location(scr_kvtree *flush, int id, enum scr_flush_location loc)
{
    int rc = check_args("setting a location", flush, id);
    if (rc != SCR_SUCCESS) return rc;
    const char *name = scr_flush_location_name(loc);
    if (name == NULL) {
        scr_err("flush file: unknown location %d for dataset %d", (int)loc, id);
        return SCR_ERR_ARG;
    }
    scr_kvtree *dset = dataset_entry(flush, id);
    if (dset == NULL || scr_kvtree_set_kv(dset, KEY_LOCATION, name) == NULL) return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

int scr_flush_file_unset_location(scr_kvtree *flush, int id, enum scr_flush_location loc)
{
    int rc = check_args("clearing a location", flush, id);
    if (rc != SCR_SUCCESS) return rc;
    const char *name = scr_flush_location_name(loc);
    if (name == NULL) {
        scr_err("flush file: unknown location %d for dataset %d", (int)loc, id);
        return SCR_ERR_ARG;
    }
    scr_kvtree_unset_kv(scr_kvtree_get_kv_int(flush, KEY_DSET, id), KEY_LOCATION, name);
    return SCR_SUCCESS;
}

int scr_flush_file_has_location(const scr_kvtree *flush, int id, enum scr_flush_location loc,
                                int *out_flag)
{
    const char *name = scr_flush_location_name(loc);
    if (name == NULL || out_flag == NULL) return SCR_ERR_ARG;
    const scr_kvtree *dset = scr_kvtree_get_kv_int(flush, KEY_DSET, id);
    if (dset == NULL) return SCR_ERR_NOTFOUND;
    *out_flag = scr_kvtree_get_kv(dset, KEY_LOCATION, name) != NULL;
    return SCR_SUCCESS;
}

int scr_flush_file_set_name(scr_kvtree *flush, int id, const char *name)
{
    int rc = check_args("setting a name", flush, id);
    if (rc != SCR_SUCCESS) return rc;
    if (name == NULL || name[0] == '\0') {
        scr_err("flush file: empty name for dataset %d", id);
        return SCR_ERR_ARG;
    }
    scr_kvtree *dset = dataset_entry(flush, id);
    if (dset == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_str(dset, KEY_NAME, name);
}

int scr_flush_file_get_name(const scr_kvtree *flush, int id, const char **out_name)
{
    if (out_name == NULL) return SCR_ERR_ARG;
    const scr_kvtree *dset = scr_kvtree_get_kv_int(flush, KEY_DSET, id);
    if (dset == NULL) return SCR_ERR_NOTFOUND;
    return scr_kvtree_util_get_str(dset, KEY_NAME, out_name);
}

int scr_flush_file_set_checkpoint_id(scr_kvtree *flush, int id, int ckpt_id)
{
    int rc = check_args("setting a checkpoint id", flush, id);
    if (rc != SCR_SUCCESS) return rc;
    if (ckpt_id < 1) {
        scr_err("flush file: checkpoint id %d for dataset %d (ids start at 1)", ckpt_id, id);
        return SCR_ERR_ARG;
    }
    scr_kvtree *dset = dataset_entry(flush, id);
    if (dset == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_int(dset, KEY_CKPT, ckpt_id);
}

int scr_flush_file_get_checkpoint_id(const scr_kvtree *flush, int id, int *out_ckpt_id)
{
    if (out_ckpt_id == NULL) return SCR_ERR_ARG;
    const scr_kvtree *dset = scr_kvtree_get_kv_int(flush, KEY_DSET, id);
    if (dset == NULL) return SCR_ERR_NOTFOUND;
    return get_ckpt(dset, out_ckpt_id);
}

int scr_flush_file_set_output(scr_kvtree *flush, int id, int is_output)
{
    int rc = check_args("marking an output dataset", flush, id);
    if (rc != SCR_SUCCESS) return rc;
    if (!is_output) {
        scr_kvtree_unset(scr_kvtree_get_kv_int(flush, KEY_DSET, id), KEY_OUTPUT);
        return SCR_SUCCESS;
    }
    scr_kvtree *dset = dataset_entry(flush, id);
    if (dset == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_int(dset, KEY_OUTPUT, 1);
}

int scr_flush_file_is_output(const scr_kvtree *flush, int id, int *out_flag)
{
    if (out_flag == NULL) return SCR_ERR_ARG;
    const scr_kvtree *dset = scr_kvtree_get_kv_int(flush, KEY_DSET, id);
    if (dset == NULL) return SCR_ERR_NOTFOUND;
    int rc = get_output(dset, out_flag);
    if (rc == SCR_ERR_NOTFOUND) {
        *out_flag = 0;
        return SCR_SUCCESS;
    }
    return rc;
}

int scr_flush_file_remove_dataset(scr_kvtree *flush, int id)
{
    int rc = check_args("removing a dataset", flush, id);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset_kv_int(flush, KEY_DSET, id);
    return SCR_SUCCESS;
}

int scr_flush_file_list_datasets(const scr_kvtree *flush, int **out_ids, int *out_count)
{
    return scr_record_list_int_keys(scr_kvtree_get(flush, KEY_DSET), 1, "flush file", "datasets",
                                    out_ids, out_count);
}

int scr_flush_file_newest_cached_is_flushed(const scr_kvtree *flush, int *out_id, int *out_flushed)
{
    if (out_id == NULL || out_flushed == NULL) return SCR_ERR_ARG;
    const scr_kvtree *dsets = scr_kvtree_get(flush, KEY_DSET);
    int newest = 0, flushed = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(dsets); e; e = scr_kvtree_elem_next(e)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS) return SCR_ERR_TYPE;
        const scr_kvtree *dset = scr_kvtree_elem_hash(e);
        if (id > newest && scr_kvtree_get_kv(dset, KEY_LOCATION, "CACHE") != NULL) {
            newest = id;
            flushed = scr_kvtree_get_kv(dset, KEY_LOCATION, "PFS") != NULL;
        }
    }
    if (newest == 0) return SCR_ERR_NOTFOUND;
    *out_id = newest;
    *out_flushed = flushed;
    return SCR_SUCCESS;
}
