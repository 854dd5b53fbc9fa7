/* kvtree_json.c — kvtree to json-c objects. */
#include "kvtree_json.h"
#include "scr_err.h"
#include "util_log.h"

#include <json-c/json.h>

static struct json_object *level_to_json(const scr_kvtree *tree)
{
    struct json_object *obj = json_object_new_object();
    if (obj == NULL) return NULL;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(tree); e; e = scr_kvtree_elem_next(e)) {
        const scr_kvtree *value = scr_kvtree_elem_hash(e);
        scr_kvtree_elem *only = scr_kvtree_elem_first(value);
        struct json_object *child;
        if (scr_kvtree_size(value) == 1 && scr_kvtree_size(scr_kvtree_elem_hash(only)) == 0)
            child = json_object_new_string(scr_kvtree_elem_key(only));
        else
            child = level_to_json(value);
        if (child == NULL || json_object_object_add(obj, scr_kvtree_elem_key(e), child) != 0) {
            json_object_put(child);
            json_object_put(obj);
            return NULL;
        }
    }
    return obj;
}

struct json_object *scr_kvtree_to_json(const scr_kvtree *tree)
{
    struct json_object *obj = level_to_json(tree);
    if (obj == NULL) scr_err("kvtree: out of memory converting a tree to JSON");
    return obj;
}

int scr_kvtree_fprint_json(FILE *out, const scr_kvtree *tree)
{
    struct json_object *obj = scr_kvtree_to_json(tree);
    if (obj == NULL) return SCR_ERR_NOMEM;
    const char *text = json_object_to_json_string_ext(
        obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = (text != NULL && fprintf(out, "%s\n", text) >= 0) ? SCR_SUCCESS : SCR_ERR_IO;
    json_object_put(obj);
    return rc;
}
