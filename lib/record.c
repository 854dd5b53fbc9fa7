/* record.c — VERSION handling and bad-value messages shared by the records. */
#include "record.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *scr_record_values_text(const scr_kvtree *value, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0) return buf;
    buf[0] = '\0';
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(value); e; e = scr_kvtree_elem_next(e)) {
        int w = snprintf(buf + n, len - n, "%s%s", e != scr_kvtree_elem_first(value) ? ", " : "",
                         scr_kvtree_elem_key(e));
        if (w < 0 || (size_t)w >= len - n) break;
        n += (size_t)w;
    }
    return buf;
}

int scr_record_bad_value(const char *file, const char *key, const scr_kvtree *value,
                         const char *expected)
{
    char text[256];
    scr_err("%s: key %s holds '%s', expected %s", file, key,
            scr_record_values_text(value, text, sizeof(text)), expected);
    return SCR_ERR_FORMAT;
}

int scr_record_take_version(const char *file, const char *kind, int newest, scr_kvtree *tree)
{
    scr_kvtree *value = scr_kvtree_get(tree, SCR_RECORD_KEY_VERSION);
    if (value == NULL) return SCR_SUCCESS; /* written before VERSION existed: version 1 */
    int64_t version;
    if (scr_kvtree_util_get_int64(tree, SCR_RECORD_KEY_VERSION, &version) != SCR_SUCCESS ||
        version < 1)
        return scr_record_bad_value(file, SCR_RECORD_KEY_VERSION, value, "a version number");
    if (version > newest) {
        scr_err("%s: %s version %lld is newer than this build reads (up to %d)", file, kind,
                (long long)version, newest);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree_unset(tree, SCR_RECORD_KEY_VERSION);
    return SCR_SUCCESS;
}

scr_kvtree *scr_record_with_version(const scr_kvtree *tree, int version)
{
    scr_kvtree *out = scr_kvtree_new();
    if (out == NULL || scr_kvtree_util_set_int(out, SCR_RECORD_KEY_VERSION, version) != 0) {
        scr_kvtree_delete(out);
        return NULL;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(tree); e; e = scr_kvtree_elem_next(e)) {
        if (strcmp(scr_kvtree_elem_key(e), SCR_RECORD_KEY_VERSION) == 0) continue;
        scr_kvtree *copy = scr_kvtree_dup(scr_kvtree_elem_hash(e));
        if (copy == NULL || scr_kvtree_set(out, scr_kvtree_elem_key(e), copy) == NULL) {
            scr_kvtree_delete(out);
            return NULL;
        }
    }
    return out;
}
