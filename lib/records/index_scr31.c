/* index_scr31.c — SCR 3.1's name map and descriptors in index.scr. */
#include "index_scr31.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdio.h>
#include <string.h>

#define KEY_DSET "DSET"
#define KEY_NAME "NAME"
#define KEY_DSETDESC "DSETDESC"
#define WHERE_MAX 512

int scr_index_scr31_validate_desc(const char *file, const char *where, int id,
                                  const scr_dataset *desc)
{
    int rc = scr_dataset_validate(desc, file, where);
    if (rc != SCR_SUCCESS) return rc;
    int v;
    if (scr_dataset_get_id(desc, &v) == SCR_SUCCESS && v != id) {
        char key[WHERE_MAX], expected[64];
        scr_record_key_path(key, sizeof(key), "%s ID", where);
        snprintf(expected, sizeof(expected), "%d, the id of its entry", id);
        return scr_record_bad_value(file, key, scr_kvtree_get(desc, "ID"), expected);
    }
    return SCR_SUCCESS;
}

/* The entry id of SCR 3.1 gets this build's NAME and DSETDESC from its descriptor. */
static int upgrade_entry(const char *file, int id, scr_kvtree *entry)
{
    const scr_dataset *desc = scr_kvtree_get(entry, SCR_INDEX_SCR31_KEY_DESC);
    if (desc == NULL) return SCR_SUCCESS; /* this build's entry */
    char where[WHERE_MAX];
    scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_DSET, id, SCR_INDEX_SCR31_KEY_DESC);
    int rc = scr_index_scr31_validate_desc(file, where, id, desc);
    if (rc != SCR_SUCCESS) return rc;
    const char *name;
    if (scr_kvtree_get(entry, KEY_NAME) == NULL) {
        if (scr_dataset_get_name(desc, &name) != SCR_SUCCESS) {
            scr_err("%s: key %s has no NAME, so dataset %d has no name", file, where, id);
            return SCR_ERR_FORMAT;
        }
        rc = scr_kvtree_util_set_str(entry, KEY_NAME, name);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_kvtree_get(entry, KEY_DSETDESC) == NULL) {
        scr_kvtree *copy = scr_kvtree_dup(desc);
        /* a failed set frees the copy */
        if (copy == NULL || scr_kvtree_set(entry, KEY_DSETDESC, copy) == NULL) {
            scr_err("%s: out of memory reading dataset %d", file, id);
            return SCR_ERR_NOMEM;
        }
    }
    return SCR_SUCCESS;
}

int scr_index_scr31_upgrade(const char *file, scr_kvtree *index)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(index, KEY_DSET)); e;
         e = scr_kvtree_elem_next(e)) {
        int id;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 1, &id) != SCR_SUCCESS)
            continue; /* validate says */
        int rc = upgrade_entry(file, id, scr_kvtree_elem_hash(e));
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_index_scr31_validate_names(const char *file, const scr_kvtree *index)
{
    const scr_kvtree *names = scr_kvtree_get(index, SCR_INDEX_SCR31_KEY_NAMES);
    char where[WHERE_MAX];
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(names); e; e = scr_kvtree_elem_next(e)) {
        const char *name = scr_kvtree_elem_key(e);
        const scr_kvtree *at = scr_kvtree_elem_hash(e);
        const char *text, *entry_name;
        int id;
        scr_record_key_path(where, sizeof(where), "%s %s %s", SCR_INDEX_SCR31_KEY_NAMES, name,
                            KEY_DSET);
        if (scr_kvtree_size(at) != 1 ||
            scr_kvtree_util_get_str(at, KEY_DSET, &text) != SCR_SUCCESS ||
            scr_record_key_int(text, 1, &id) != SCR_SUCCESS)
            return scr_record_bad_value(file, where, scr_kvtree_get(at, KEY_DSET),
                                        "one dataset id (an integer >= 1)");
        const scr_kvtree *entry = scr_kvtree_get_kv_int(index, KEY_DSET, id);
        if (entry == NULL) {
            scr_err("%s: key %s names dataset %d, which the index does not hold", file, where, id);
            return SCR_ERR_FORMAT;
        }
        if (scr_kvtree_util_get_str(entry, KEY_NAME, &entry_name) == SCR_SUCCESS &&
            strcmp(entry_name, name) != 0) {
            scr_err("%s: key %s names dataset %d, which is called '%s'", file, where, id,
                    entry_name);
            return SCR_ERR_FORMAT;
        }
    }
    return SCR_SUCCESS;
}

void scr_index_scr31_forget(scr_kvtree *index, int id)
{
    scr_kvtree *names = scr_kvtree_get(index, SCR_INDEX_SCR31_KEY_NAMES);
    char key[32];
    snprintf(key, sizeof(key), "%d", id);
    scr_kvtree_elem *e = scr_kvtree_elem_first(names);
    while (e != NULL) {
        scr_kvtree_elem *next = scr_kvtree_elem_next(e);
        const char *text;
        if (scr_kvtree_util_get_str(scr_kvtree_elem_hash(e), KEY_DSET, &text) == SCR_SUCCESS &&
            strcmp(text, key) == 0)
            scr_kvtree_unset(names, scr_kvtree_elem_key(e));
        e = next;
    }
}

int scr_index_scr31_note_dataset(scr_kvtree *index, int id, const scr_dataset *desc)
{
    scr_kvtree *names = scr_kvtree_get(index, SCR_INDEX_SCR31_KEY_NAMES);
    scr_kvtree *entry = scr_kvtree_get_kv_int(index, KEY_DSET, id);
    const char *name;
    if (names == NULL) return SCR_SUCCESS; /* an index SCR 3.1 never wrote */
    if (entry == NULL || scr_dataset_get_name(desc, &name) != SCR_SUCCESS) {
        scr_err("index: dataset %d has no entry or no name to enter in SCR 3.1's name map", id);
        return SCR_ERR_ARG;
    }
    scr_index_scr31_forget(index, id);
    scr_kvtree *at = scr_kvtree_set(names, name, NULL);
    scr_kvtree *copy = scr_kvtree_dup(desc);
    int rc =
        (at != NULL && copy != NULL) ? scr_kvtree_util_set_int(at, KEY_DSET, id) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_scr31_flags(copy);
    if (rc == SCR_SUCCESS) {
        rc = scr_kvtree_set(entry, SCR_INDEX_SCR31_KEY_DESC, copy) ? SCR_SUCCESS : SCR_ERR_NOMEM;
        copy = NULL; /* the entry's now, or freed by the failed set */
    }
    scr_kvtree_delete(copy);
    if (rc == SCR_ERR_NOMEM)
        scr_err("index: out of memory entering dataset %d in SCR 3.1's name map", id);
    return rc;
}
