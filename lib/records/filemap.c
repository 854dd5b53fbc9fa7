/* filemap.c — files by rank and dataset, with the DSET index kept in step. */
#include "filemap.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_DSET SCR_FILEMAP_KEY_DSET
#define KEY_RANK SCR_FILEMAP_KEY_RANK
#define KEY_DSETDESC SCR_FILEMAP_KEY_DSETDESC
#define KEY_REDDESC SCR_FILEMAP_KEY_REDDESC
#define KEY_FILES SCR_FILEMAP_KEY_FILES
#define KEY_FILE SCR_FILEMAP_KEY_FILE
#define KEY_META SCR_FILEMAP_KEY_META

/* Room for a key path in messages: a file path and a few keys. */
#define WHERE_MAX 4400

/* --- entries ------------------------------------------------------------------ */

static scr_kvtree *entry_of(const scr_filemap *map, int id, int rank)
{
    return scr_kvtree_get_kv_int(scr_kvtree_get_kv_int(map, KEY_RANK, rank), KEY_DSET, id);
}

/* The entry of rank in dataset id and its index entry, created when missing;
 * NULL only when out of memory. */
static scr_kvtree *entry_make(scr_filemap *map, int id, int rank)
{
    scr_kvtree *index = scr_kvtree_set_kv_int(map, KEY_DSET, id);
    if (index == NULL || scr_kvtree_set_kv_int(index, KEY_RANK, rank) == NULL) return NULL;
    scr_kvtree *data = scr_kvtree_set_kv_int(map, KEY_RANK, rank);
    if (data == NULL) return NULL;
    return scr_kvtree_set_kv_int(data, KEY_DSET, id);
}

/* Remove the entry and its index entry, and the levels they leave empty. */
static void entry_drop(scr_filemap *map, int id, int rank)
{
    scr_kvtree *data = scr_kvtree_get_kv_int(map, KEY_RANK, rank);
    scr_kvtree_unset_kv_int(data, KEY_DSET, id);
    if (data != NULL && scr_kvtree_size(data) == 0) scr_kvtree_unset_kv_int(map, KEY_RANK, rank);
    scr_kvtree *index = scr_kvtree_get_kv_int(map, KEY_DSET, id);
    scr_kvtree_unset_kv_int(index, KEY_RANK, rank);
    if (index != NULL && scr_kvtree_size(index) == 0) scr_kvtree_unset_kv_int(map, KEY_DSET, id);
}

/* An entry that holds nothing more is not kept. */
static void entry_prune(scr_filemap *map, int id, int rank)
{
    scr_kvtree *entry = entry_of(map, id, rank);
    if (entry != NULL && scr_kvtree_size(entry) == 0) entry_drop(map, id, rank);
}

static int check_args(const char *what, const scr_filemap *map, int id, int rank)
{
    if (map == NULL) {
        scr_err("filemap: %s without a map", what);
        return SCR_ERR_ARG;
    }
    if (id < 1 || rank < 0) {
        scr_err("filemap: %s for dataset %d rank %d (ids start at 1, ranks at 0)", what, id, rank);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

static int check_file_arg(const char *what, const char *file)
{
    if (file == NULL || file[0] == '\0') {
        scr_err("filemap: %s without a file name", what);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* --- maps as a whole --------------------------------------------------------- */

scr_filemap *scr_filemap_new(void)
{
    return scr_kvtree_new();
}

void scr_filemap_delete(scr_filemap *map)
{
    scr_kvtree_delete(map);
}

static int is_reserved(const char *key);

/* A tag holds one value: where both maps tag an entry, src's value stands
 * (a merge of kvtrees would keep both and make the entry unreadable). */
static int replace_tags(scr_filemap *dst, const scr_filemap *src)
{
    for (scr_kvtree_elem *d = scr_filemap_first_dataset(src); d; d = scr_kvtree_elem_next(d)) {
        int id = atoi(scr_kvtree_elem_key(d));
        for (scr_kvtree_elem *r = scr_filemap_first_rank_by_dataset(src, id); r;
             r = scr_kvtree_elem_next(r)) {
            int rank = atoi(scr_kvtree_elem_key(r));
            const scr_kvtree *from = entry_of(src, id, rank);
            scr_kvtree *to = entry_of(dst, id, rank);
            for (scr_kvtree_elem *k = scr_kvtree_elem_first(from); to && k;
                 k = scr_kvtree_elem_next(k)) {
                const char *key = scr_kvtree_elem_key(k);
                const scr_kvtree *values = scr_kvtree_elem_hash(k);
                if (is_reserved(key) || scr_kvtree_size(values) != 1) continue;
                int rc = scr_kvtree_util_set_str(
                    to, key, scr_kvtree_elem_key(scr_kvtree_elem_first(values)));
                if (rc != SCR_SUCCESS) return rc;
            }
        }
    }
    return SCR_SUCCESS;
}

int scr_filemap_merge(scr_filemap *dst, const scr_filemap *src)
{
    if (dst == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_merge(dst, src);
    if (rc != SCR_SUCCESS || src == NULL) return rc;
    return replace_tags(dst, src);
}

void scr_filemap_clear(scr_filemap *map)
{
    scr_kvtree_unset_all(map);
}

/* --- adding and removing ------------------------------------------------------ */

int scr_filemap_add_file(scr_filemap *map, int id, int rank, const char *file)
{
    int rc = check_args("adding a file", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_file_arg("adding a file", file);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *entry = entry_make(map, id, rank);
    if (entry == NULL || scr_kvtree_set_kv(entry, KEY_FILE, file) == NULL) return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

int scr_filemap_remove_file(scr_filemap *map, int id, int rank, const char *file)
{
    int rc = check_args("removing a file", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_file_arg("removing a file", file);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset_kv(entry_of(map, id, rank), KEY_FILE, file);
    entry_prune(map, id, rank);
    return SCR_SUCCESS;
}

int scr_filemap_remove_rank_by_dataset(scr_filemap *map, int id, int rank)
{
    int rc = check_args("removing a rank of a dataset", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    entry_drop(map, id, rank);
    return SCR_SUCCESS;
}

int scr_filemap_remove_dataset(scr_filemap *map, int id)
{
    int rc = check_args("removing a dataset", map, id, 0);
    if (rc != SCR_SUCCESS) return rc;
    /* walk the data rather than the index, so nothing of id can stay behind */
    scr_kvtree *ranks = scr_kvtree_get(map, KEY_RANK);
    scr_kvtree_elem *e = scr_kvtree_elem_first(ranks);
    while (e != NULL) {
        scr_kvtree_elem *next = scr_kvtree_elem_next(e);
        scr_kvtree *data = scr_kvtree_elem_hash(e);
        scr_kvtree_unset_kv_int(data, KEY_DSET, id);
        if (scr_kvtree_size(data) == 0) scr_kvtree_unset(ranks, scr_kvtree_elem_key(e));
        e = next;
    }
    if (scr_kvtree_size(ranks) == 0) scr_kvtree_unset(map, KEY_RANK);
    scr_kvtree_unset_kv_int(map, KEY_DSET, id);
    return SCR_SUCCESS;
}

int scr_filemap_remove_rank(scr_filemap *map, int rank)
{
    int rc = check_args("removing a rank", map, 1, rank);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *index = scr_kvtree_get(map, KEY_DSET);
    scr_kvtree_elem *e = scr_kvtree_elem_first(index);
    while (e != NULL) {
        scr_kvtree_elem *next = scr_kvtree_elem_next(e);
        scr_kvtree *dset = scr_kvtree_elem_hash(e);
        scr_kvtree_unset_kv_int(dset, KEY_RANK, rank);
        if (scr_kvtree_size(dset) == 0) scr_kvtree_unset(index, scr_kvtree_elem_key(e));
        e = next;
    }
    if (scr_kvtree_size(index) == 0) scr_kvtree_unset(map, KEY_DSET);
    scr_kvtree_unset_kv_int(map, KEY_RANK, rank);
    return SCR_SUCCESS;
}

int scr_filemap_extract_rank(scr_filemap *map, int rank, scr_filemap **out_map)
{
    int rc = check_args("extracting a rank", map, 1, rank);
    if (rc != SCR_SUCCESS) return rc;
    if (out_map == NULL) return SCR_ERR_ARG;
    scr_filemap *out = scr_filemap_new();
    if (out == NULL) return SCR_ERR_NOMEM;
    const scr_kvtree *data = scr_kvtree_get_kv_int(map, KEY_RANK, rank);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(data, KEY_DSET)); e;
         e = scr_kvtree_elem_next(e)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS) {
            scr_filemap_delete(out);
            return SCR_ERR_TYPE;
        }
        scr_kvtree *entry = entry_make(out, id, rank);
        if (entry == NULL || scr_kvtree_copy(entry, scr_kvtree_elem_hash(e)) != SCR_SUCCESS) {
            scr_err("filemap: out of memory extracting rank %d", rank);
            scr_filemap_delete(out);
            return SCR_ERR_NOMEM;
        }
    }
    scr_filemap_remove_rank(map, rank);
    *out_map = out;
    return SCR_SUCCESS;
}

/* --- questions ---------------------------------------------------------------- */

int scr_filemap_num_datasets(const scr_filemap *map)
{
    return scr_kvtree_size(scr_kvtree_get(map, KEY_DSET));
}

int scr_filemap_num_ranks(const scr_filemap *map)
{
    return scr_kvtree_size(scr_kvtree_get(map, KEY_RANK));
}

int scr_filemap_num_ranks_by_dataset(const scr_filemap *map, int id)
{
    return scr_kvtree_size(scr_kvtree_get(scr_kvtree_get_kv_int(map, KEY_DSET, id), KEY_RANK));
}

int scr_filemap_num_files(const scr_filemap *map, int id, int rank)
{
    return scr_kvtree_size(scr_kvtree_get(entry_of(map, id, rank), KEY_FILE));
}

/* The highest (sign 1) or lowest (sign -1) dataset id of the index. */
static int extreme_dataset(const scr_filemap *map, int sign, int *out_id)
{
    if (out_id == NULL) return SCR_ERR_ARG;
    int found = 0, best = 0;
    for (scr_kvtree_elem *e = scr_filemap_first_dataset(map); e; e = scr_kvtree_elem_next(e)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS) return SCR_ERR_TYPE;
        if (!found || (sign > 0 ? id > best : id < best)) best = id;
        found = 1;
    }
    if (!found) return SCR_ERR_NOTFOUND;
    *out_id = best;
    return SCR_SUCCESS;
}

int scr_filemap_latest_dataset(const scr_filemap *map, int *out_id)
{
    return extreme_dataset(map, 1, out_id);
}

int scr_filemap_oldest_dataset(const scr_filemap *map, int *out_id)
{
    return extreme_dataset(map, -1, out_id);
}

int scr_filemap_have_rank(const scr_filemap *map, int rank)
{
    return scr_kvtree_get_kv_int(map, KEY_RANK, rank) != NULL;
}

int scr_filemap_have_rank_by_dataset(const scr_filemap *map, int id, int rank)
{
    return entry_of(map, id, rank) != NULL;
}

int scr_filemap_have_file(const scr_filemap *map, int id, int rank, const char *file)
{
    return file != NULL && scr_kvtree_get_kv(entry_of(map, id, rank), KEY_FILE, file) != NULL;
}

int scr_filemap_set_expected_files(scr_filemap *map, int id, int rank, int count)
{
    int rc = check_args("setting the expected files", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    if (count < 0) {
        scr_err("filemap: %d expected files for rank %d in dataset %d", count, rank, id);
        return SCR_ERR_ARG;
    }
    scr_kvtree *entry = entry_make(map, id, rank);
    if (entry == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_int(entry, KEY_FILES, count);
}

int scr_filemap_get_expected_files(const scr_filemap *map, int id, int rank, int *out_count)
{
    int v;
    if (out_count == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int(entry_of(map, id, rank), KEY_FILES, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < 0) return SCR_ERR_TYPE;
    *out_count = v;
    return SCR_SUCCESS;
}

int scr_filemap_unset_expected_files(scr_filemap *map, int id, int rank)
{
    int rc = check_args("unsetting the expected files", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset(entry_of(map, id, rank), KEY_FILES);
    entry_prune(map, id, rank);
    return SCR_SUCCESS;
}

/* --- lists ---------------------------------------------------------------------- */

/* The keys of level as integers >= min, ascending, in a new array. */
static int list_ints(const scr_kvtree *level, int min, int **out, int *out_count)
{
    return scr_record_list_int_keys(level, min, "filemap", "keys", out, out_count);
}

int scr_filemap_list_datasets(const scr_filemap *map, int **out_ids, int *out_count)
{
    return list_ints(scr_kvtree_get(map, KEY_DSET), 1, out_ids, out_count);
}

int scr_filemap_list_ranks(const scr_filemap *map, int **out_ranks, int *out_count)
{
    return list_ints(scr_kvtree_get(map, KEY_RANK), 0, out_ranks, out_count);
}

int scr_filemap_list_ranks_by_dataset(const scr_filemap *map, int id, int **out_ranks,
                                      int *out_count)
{
    return list_ints(scr_kvtree_get(scr_kvtree_get_kv_int(map, KEY_DSET, id), KEY_RANK), 0,
                     out_ranks, out_count);
}

int scr_filemap_list_files(const scr_filemap *map, int id, int rank, const char ***out_files,
                           int *out_count)
{
    return scr_record_list_keys(scr_kvtree_get(entry_of(map, id, rank), KEY_FILE), "filemap",
                                "files", out_files, out_count);
}

/* --- iterators -------------------------------------------------------------------- */

scr_kvtree_elem *scr_filemap_first_dataset(const scr_filemap *map)
{
    return scr_kvtree_elem_first(scr_kvtree_get(map, KEY_DSET));
}

scr_kvtree_elem *scr_filemap_first_rank(const scr_filemap *map)
{
    return scr_kvtree_elem_first(scr_kvtree_get(map, KEY_RANK));
}

scr_kvtree_elem *scr_filemap_first_rank_by_dataset(const scr_filemap *map, int id)
{
    const scr_kvtree *dset = scr_kvtree_get_kv_int(map, KEY_DSET, id);
    return scr_kvtree_elem_first(scr_kvtree_get(dset, KEY_RANK));
}

scr_kvtree_elem *scr_filemap_first_file(const scr_filemap *map, int id, int rank)
{
    return scr_kvtree_elem_first(scr_kvtree_get(entry_of(map, id, rank), KEY_FILE));
}

/* --- descriptors -------------------------------------------------------------------- */

/* Store a copy of value under key in the entry of rank in dataset id. */
static int set_copy(scr_filemap *map, int id, int rank, const char *key, const scr_kvtree *value)
{
    char what[64];
    snprintf(what, sizeof(what), "setting %s", key);
    int rc = check_args(what, map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    if (value == NULL) {
        scr_err("filemap: %s of rank %d in dataset %d without a value", what, rank, id);
        return SCR_ERR_ARG;
    }
    scr_kvtree *copy = scr_kvtree_dup(value);
    if (copy == NULL) return SCR_ERR_NOMEM;
    scr_kvtree *entry = entry_make(map, id, rank);
    if (entry == NULL) {
        scr_kvtree_delete(copy);
        return SCR_ERR_NOMEM;
    }
    return scr_kvtree_set(entry, key, copy) != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

static int get_sub(const scr_filemap *map, int id, int rank, const char *key,
                   const scr_kvtree **out)
{
    if (out == NULL) return SCR_ERR_ARG;
    const scr_kvtree *value = scr_kvtree_get(entry_of(map, id, rank), key);
    if (value == NULL) return SCR_ERR_NOTFOUND;
    *out = value;
    return SCR_SUCCESS;
}

static int unset_key(scr_filemap *map, int id, int rank, const char *key)
{
    int rc = check_args("unsetting a key", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset(entry_of(map, id, rank), key);
    entry_prune(map, id, rank);
    return SCR_SUCCESS;
}

int scr_filemap_set_dataset(scr_filemap *map, int id, int rank, const scr_dataset *desc)
{
    return set_copy(map, id, rank, KEY_DSETDESC, desc);
}

int scr_filemap_get_dataset(const scr_filemap *map, int id, int rank, const scr_dataset **out_desc)
{
    return get_sub(map, id, rank, KEY_DSETDESC, out_desc);
}

int scr_filemap_unset_dataset(scr_filemap *map, int id, int rank)
{
    return unset_key(map, id, rank, KEY_DSETDESC);
}

int scr_filemap_set_reddesc(scr_filemap *map, int id, int rank, const scr_kvtree *desc)
{
    return set_copy(map, id, rank, KEY_REDDESC, desc);
}

int scr_filemap_get_reddesc(const scr_filemap *map, int id, int rank, const scr_kvtree **out_desc)
{
    return get_sub(map, id, rank, KEY_REDDESC, out_desc);
}

int scr_filemap_unset_reddesc(scr_filemap *map, int id, int rank)
{
    return unset_key(map, id, rank, KEY_REDDESC);
}

/* --- per-file meta ------------------------------------------------------------------- */

int scr_filemap_set_meta(scr_filemap *map, int id, int rank, const char *file, const scr_meta *meta)
{
    int rc = check_args("setting meta data", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_file_arg("setting meta data", file);
    if (rc != SCR_SUCCESS) return rc;
    if (meta == NULL) {
        scr_err("filemap: setting meta data of %s without meta data", file);
        return SCR_ERR_ARG;
    }
    scr_kvtree *copy = scr_kvtree_dup(meta);
    if (copy == NULL) return SCR_ERR_NOMEM;
    scr_kvtree *entry = entry_make(map, id, rank);
    scr_kvtree *slot = entry ? scr_kvtree_set_kv(entry, KEY_FILE, file) : NULL;
    if (slot == NULL) {
        scr_kvtree_delete(copy);
        return SCR_ERR_NOMEM;
    }
    return scr_kvtree_set(slot, KEY_META, copy) != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

int scr_filemap_get_meta(const scr_filemap *map, int id, int rank, const char *file,
                         const scr_meta **out_meta)
{
    if (out_meta == NULL || file == NULL) return SCR_ERR_ARG;
    const scr_kvtree *meta =
        scr_kvtree_get(scr_kvtree_get_kv(entry_of(map, id, rank), KEY_FILE, file), KEY_META);
    if (meta == NULL) return SCR_ERR_NOTFOUND;
    *out_meta = meta;
    return SCR_SUCCESS;
}

int scr_filemap_unset_meta(scr_filemap *map, int id, int rank, const char *file)
{
    int rc = check_args("unsetting meta data", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_file_arg("unsetting meta data", file);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset(scr_kvtree_get_kv(entry_of(map, id, rank), KEY_FILE, file), KEY_META);
    return SCR_SUCCESS;
}

/* --- tags ------------------------------------------------------------------------------ */

static int is_reserved(const char *key)
{
    return strcmp(key, KEY_DSETDESC) == 0 || strcmp(key, KEY_REDDESC) == 0 ||
           strcmp(key, KEY_FILES) == 0 || strcmp(key, KEY_FILE) == 0;
}

static int check_tag(const char *tag)
{
    if (tag == NULL || tag[0] == '\0' || is_reserved(tag)) {
        scr_err("filemap: '%s' cannot be a tag (empty, or a key of the filemap itself)",
                tag ? tag : "(null)");
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

int scr_filemap_set_tag(scr_filemap *map, int id, int rank, const char *tag, const char *value)
{
    int rc = check_args("setting a tag", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_tag(tag);
    if (rc != SCR_SUCCESS) return rc;
    if (value == NULL || value[0] == '\0') {
        scr_err("filemap: tag %s of rank %d in dataset %d without a value", tag, rank, id);
        return SCR_ERR_ARG;
    }
    scr_kvtree *entry = entry_make(map, id, rank);
    if (entry == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_str(entry, tag, value);
}

int scr_filemap_get_tag(const scr_filemap *map, int id, int rank, const char *tag,
                        const char **out_value)
{
    if (out_value == NULL || tag == NULL || is_reserved(tag)) return SCR_ERR_ARG;
    return scr_kvtree_util_get_str(entry_of(map, id, rank), tag, out_value);
}

int scr_filemap_unset_tag(scr_filemap *map, int id, int rank, const char *tag)
{
    int rc = check_args("unsetting a tag", map, id, rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_tag(tag);
    if (rc != SCR_SUCCESS) return rc;
    return unset_key(map, id, rank, tag);
}

/* --- checking a map as a reader ----------------------------------------------------------- */

static const char *kind_name(enum scr_filemap_kind kind)
{
    return kind == SCR_FILEMAP_RANK ? "rank filemap" : "filemap";
}

static int validate_file_entry(const char *file, const char *where, const char *path,
                               const scr_kvtree *entry, enum scr_filemap_kind kind)
{
    char here[WHERE_MAX];
    scr_record_key_path(here, sizeof(here), "%s %s", where, KEY_FILE);
    if (kind == SCR_FILEMAP_CACHE && path[0] != '/')
        return scr_record_bad_key(file, here, path, "absolute file paths");
    if (kind == SCR_FILEMAP_RANK && (path[0] == '/' || path[0] == '\0'))
        return scr_record_bad_key(file, here, path, "paths relative to the dataset directory");
    scr_record_key_path(here, sizeof(here), "%s %s %s", where, KEY_FILE, path);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(entry); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), KEY_META) != 0)
            return scr_record_bad_key(file, here, scr_kvtree_elem_key(e), KEY_META);
    scr_record_key_path(here, sizeof(here), "%s %s %s %s", where, KEY_FILE, path, KEY_META);
    return scr_meta_validate(scr_kvtree_get(entry, KEY_META), file, here);
}

/* The DSETDESC of entry id (value; here names it): a descriptor with that id. */
static int validate_desc(const char *file, const char *where, char *here, size_t here_len, int id,
                         const scr_kvtree *value)
{
    int desc_id;
    int rc = scr_dataset_validate(value, file, here);
    if (rc != SCR_SUCCESS) return rc;
    if (scr_dataset_get_id(value, &desc_id) == SCR_SUCCESS && desc_id != id) {
        char expected[64];
        snprintf(expected, sizeof(expected), "%d, the id of its entry", id);
        scr_record_key_path(here, here_len, "%s %s ID", where, KEY_DSETDESC);
        return scr_record_bad_value(file, here, scr_kvtree_get(value, "ID"), expected);
    }
    return SCR_SUCCESS;
}

/* Each file of an entry's FILE (value). */
static int validate_files(const char *file, const char *where, const scr_kvtree *value,
                          enum scr_filemap_kind kind)
{
    for (scr_kvtree_elem *f = scr_kvtree_elem_first(value); f; f = scr_kvtree_elem_next(f)) {
        int rc =
            validate_file_entry(file, where, scr_kvtree_elem_key(f), scr_kvtree_elem_hash(f), kind);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

static int validate_entry(const char *file, int id, int rank, const scr_kvtree *entry,
                          enum scr_filemap_kind kind)
{
    char where[WHERE_MAX], here[WHERE_MAX];
    scr_record_key_path(where, sizeof(where), "%s %d %s %d", KEY_RANK, rank, KEY_DSET, id);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(entry); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        const scr_kvtree *value = scr_kvtree_elem_hash(e);
        scr_record_key_path(here, sizeof(here), "%s %s", where, key);
        int rc = SCR_SUCCESS;
        if (strcmp(key, KEY_DSETDESC) == 0) {
            rc = validate_desc(file, where, here, sizeof(here), id, value);
        } else if (strcmp(key, KEY_REDDESC) == 0 && kind == SCR_FILEMAP_CACHE) {
            /* the redundancy layer owns its descriptor's contents */
        } else if (strcmp(key, KEY_FILES) == 0) {
            int n;
            if (scr_kvtree_util_get_int(entry, KEY_FILES, &n) != SCR_SUCCESS || n < 0)
                rc = scr_record_bad_value(file, here, value, "a number of files (>= 0)");
        } else if (strcmp(key, KEY_FILE) == 0) {
            rc = validate_files(file, where, value, kind);
        } else if (kind == SCR_FILEMAP_RANK) {
            rc = scr_record_bad_key(file, where, key,
                                    "DSETDESC, FILES or FILE (a rank filemap has no "
                                    "redundancy descriptor or tags)");
        } else {
            const char *tag;
            if (scr_kvtree_util_get_str(entry, key, &tag) != SCR_SUCCESS)
                rc = scr_record_bad_value(file, here, value, "a single tag value");
        }
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* The DSET index: ids, each with ranks that have an entry under RANK. */
static int validate_index(const char *file, const scr_filemap *map)
{
    char where[WHERE_MAX];
    for (scr_kvtree_elem *d = scr_filemap_first_dataset(map); d; d = scr_kvtree_elem_next(d)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(d), 1, &id) != SCR_SUCCESS)
            return scr_record_bad_key(file, KEY_DSET, scr_kvtree_elem_key(d),
                                      "dataset ids (integers >= 1)");
        scr_record_key_path(where, sizeof(where), "%s %d", KEY_DSET, id);
        const scr_kvtree *dset = scr_kvtree_elem_hash(d);
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(dset); e; e = scr_kvtree_elem_next(e))
            if (strcmp(scr_kvtree_elem_key(e), KEY_RANK) != 0)
                return scr_record_bad_key(file, where, scr_kvtree_elem_key(e), KEY_RANK);
        scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_DSET, id, KEY_RANK);
        for (scr_kvtree_elem *r = scr_kvtree_elem_first(scr_kvtree_get(dset, KEY_RANK)); r;
             r = scr_kvtree_elem_next(r)) {
            int rank;
            if (scr_record_key_int(scr_kvtree_elem_key(r), 0, &rank) != SCR_SUCCESS)
                return scr_record_bad_key(file, where, scr_kvtree_elem_key(r),
                                          "ranks (integers >= 0)");
            if (scr_kvtree_size(scr_kvtree_elem_hash(r)) != 0) {
                char here[WHERE_MAX];
                scr_record_key_path(here, sizeof(here), "%s %d", where, rank);
                return scr_record_bad_key(file, here, scr_kvtree_first_key(scr_kvtree_elem_hash(r)),
                                          "nothing (the index only names ranks)");
            }
            if (entry_of(map, id, rank) == NULL) {
                scr_err("%s: index entry %s %d %s %d has no data under %s %d %s %d", file, KEY_DSET,
                        id, KEY_RANK, rank, KEY_RANK, rank, KEY_DSET, id);
                return SCR_ERR_FORMAT;
            }
        }
    }
    return SCR_SUCCESS;
}

static int validate_data(const char *file, const scr_filemap *map, enum scr_filemap_kind kind)
{
    char where[WHERE_MAX];
    for (scr_kvtree_elem *r = scr_filemap_first_rank(map); r; r = scr_kvtree_elem_next(r)) {
        int rank;
        if (scr_record_key_int(scr_kvtree_elem_key(r), 0, &rank) != SCR_SUCCESS)
            return scr_record_bad_key(file, KEY_RANK, scr_kvtree_elem_key(r),
                                      "ranks (integers >= 0)");
        scr_record_key_path(where, sizeof(where), "%s %d", KEY_RANK, rank);
        const scr_kvtree *data = scr_kvtree_elem_hash(r);
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(data); e; e = scr_kvtree_elem_next(e))
            if (strcmp(scr_kvtree_elem_key(e), KEY_DSET) != 0)
                return scr_record_bad_key(file, where, scr_kvtree_elem_key(e), KEY_DSET);
        scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_RANK, rank, KEY_DSET);
        for (scr_kvtree_elem *d = scr_kvtree_elem_first(scr_kvtree_get(data, KEY_DSET)); d;
             d = scr_kvtree_elem_next(d)) {
            int id;
            if (scr_record_key_int(scr_kvtree_elem_key(d), 1, &id) != SCR_SUCCESS)
                return scr_record_bad_key(file, where, scr_kvtree_elem_key(d),
                                          "dataset ids (integers >= 1)");
            if (scr_kvtree_get_kv_int(scr_kvtree_get_kv_int(map, KEY_DSET, id), KEY_RANK, rank) ==
                NULL) {
                scr_err("%s: %s %d %s %d is missing from the index %s %d %s %d", file, KEY_RANK,
                        rank, KEY_DSET, id, KEY_DSET, id, KEY_RANK, rank);
                return SCR_ERR_FORMAT;
            }
            int rc = validate_entry(file, id, rank, scr_kvtree_elem_hash(d), kind);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    return SCR_SUCCESS;
}

static int validate(const char *file, const scr_filemap *map, enum scr_filemap_kind kind)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(map); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_DSET) != 0 && strcmp(key, KEY_RANK) != 0 &&
            strcmp(key, SCR_RECORD_KEY_VERSION) != 0) {
            scr_err("%s: unexpected key '%s' at the top of a %s, expected %s and %s", file, key,
                    kind_name(kind), KEY_DSET, KEY_RANK);
            return SCR_ERR_FORMAT;
        }
    }
    int rc = validate_index(file, map);
    if (rc != SCR_SUCCESS) return rc;
    return validate_data(file, map, kind);
}

/* --- files ---------------------------------------------------------------------------------- */

static int validate_cache(const char *file, const scr_kvtree *map)
{
    return validate(file, map, SCR_FILEMAP_CACHE);
}

static int validate_rank(const char *file, const scr_kvtree *map)
{
    return validate(file, map, SCR_FILEMAP_RANK);
}

/* What the file holds: VERSION, then DSET and RANK, each sorted. */
static const char *const file_keys[] = {KEY_DSET, KEY_RANK};
#define NFILE_KEYS (sizeof(file_keys) / sizeof(file_keys[0]))

static const struct scr_record_kind cache_kind = {
    .name = "filemap",
    .version = SCR_FILEMAP_VERSION,
    .validate = validate_cache,
    .keys = file_keys,
    .nkeys = NFILE_KEYS,
};

static const struct scr_record_kind rank_kind = {
    .name = "rank filemap",
    .version = SCR_FILEMAP_VERSION,
    .validate = validate_rank,
    .keys = file_keys,
    .nkeys = NFILE_KEYS,
};

static const struct scr_record_kind *record_kind(enum scr_filemap_kind kind)
{
    return kind == SCR_FILEMAP_RANK ? &rank_kind : &cache_kind;
}

int scr_filemap_read_kind(const char *path, enum scr_filemap_kind kind, scr_filemap *map)
{
    if (path == NULL || map == NULL) {
        scr_err("%s: read called without a path or a map", kind_name(kind));
        return SCR_ERR_ARG;
    }
    return scr_record_read(record_kind(kind), path, map);
}

int scr_filemap_write_kind(const char *path, enum scr_filemap_kind kind, const scr_filemap *map)
{
    if (path == NULL) {
        scr_err("%s: write called without a path", kind_name(kind));
        return SCR_ERR_ARG;
    }
    return scr_record_write(record_kind(kind), path, map);
}

int scr_filemap_read(const char *path, scr_filemap *map)
{
    return scr_filemap_read_kind(path, SCR_FILEMAP_CACHE, map);
}

int scr_filemap_write(const char *path, const scr_filemap *map)
{
    return scr_filemap_write_kind(path, SCR_FILEMAP_CACHE, map);
}
