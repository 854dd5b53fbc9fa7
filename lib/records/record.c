/* record.c — what the record modules share: VERSION handling, messages, key
 * parsing, lists of keys, and reading and writing record files. */
#include "record.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_parse.h"
#include "util_path.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- keys and messages ------------------------------------------------------------ */

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
    return scr_record_bad_key(file, key, scr_record_values_text(value, text, sizeof(text)),
                              expected);
}

int scr_record_bad_key(const char *file, const char *where, const char *text, const char *expected)
{
    scr_err("%s: key %s holds '%s', expected %s", file, where, text, expected);
    return SCR_ERR_FORMAT;
}

void scr_record_key_path(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

int scr_record_key_int(const char *text, int min, int *out)
{
    int64_t v;
    char canonical[32];
    if (scr_parse_int64(text, &v) != SCR_SUCCESS || v < min || v > INT_MAX) return SCR_ERR_TYPE;
    snprintf(canonical, sizeof(canonical), "%d", (int)v);
    if (strcmp(canonical, text) != 0) return SCR_ERR_TYPE;
    *out = (int)v;
    return SCR_SUCCESS;
}

/* --- lists -------------------------------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int compare_strs(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int scr_record_list_int_keys(const scr_kvtree *level, int min, const char *kind, const char *noun,
                             int **out_list, int *out_count)
{
    if (out_list == NULL || out_count == NULL) return SCR_ERR_ARG;
    int count = scr_kvtree_size(level), n = 0;
    int *list = NULL;
    if (count > 0 && (list = malloc(sizeof(int) * (size_t)count)) == NULL) {
        scr_err("%s: out of memory listing %d %s", kind, count, noun);
        return SCR_ERR_NOMEM;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(level); e; e = scr_kvtree_elem_next(e)) {
        if (scr_record_key_int(scr_kvtree_elem_key(e), min, &list[n]) != SCR_SUCCESS) {
            free(list);
            return SCR_ERR_TYPE;
        }
        n++;
    }
    if (n > 1) qsort(list, (size_t)n, sizeof(int), compare_ints);
    *out_list = list;
    *out_count = n;
    return SCR_SUCCESS;
}

int scr_record_list_keys(const scr_kvtree *level, const char *kind, const char *noun,
                         const char ***out_list, int *out_count)
{
    if (out_list == NULL || out_count == NULL) return SCR_ERR_ARG;
    int count = scr_kvtree_size(level), n = 0;
    const char **list = NULL;
    if (count > 0 && (list = malloc(sizeof(char *) * (size_t)count)) == NULL) {
        scr_err("%s: out of memory listing %d %s", kind, count, noun);
        return SCR_ERR_NOMEM;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(level); e; e = scr_kvtree_elem_next(e))
        list[n++] = scr_kvtree_elem_key(e);
    if (n > 1) qsort(list, (size_t)n, sizeof(char *), compare_strs);
    *out_list = list;
    *out_count = n;
    return SCR_SUCCESS;
}

/* --- versions ----------------------------------------------------------------------- */

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

/* --- files -------------------------------------------------------------------------- */

/* The file image of tree: VERSION, then the kind's keys with every level in
 * canonical order (integer keys numerically, then others by bytes), or
 * every key as it is. Packed straight from tree, which is neither copied
 * nor changed. */
static int file_image(const struct scr_record_kind *kind, const scr_kvtree *tree, void **out_buf,
                      size_t *out_len)
{
    char version[32];
    snprintf(version, sizeof(version), "%d", kind->version);
    scr_kvtree *vtree = scr_kvtree_new();
    size_t most = 1 + (kind->keys ? kind->nkeys : (size_t)scr_kvtree_size(tree)), n = 0;
    const char **keys = malloc(most * sizeof(*keys));
    const scr_kvtree **values = malloc(most * sizeof(*values));
    int rc = (vtree && keys && values && scr_kvtree_set(vtree, version, NULL)) ? SCR_SUCCESS
                                                                               : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) {
        keys[n] = SCR_RECORD_KEY_VERSION;
        values[n++] = vtree;
    }
    for (size_t i = 0; rc == SCR_SUCCESS && kind->keys && i < kind->nkeys; i++) {
        const scr_kvtree *level = scr_kvtree_get(tree, kind->keys[i]);
        if (level == NULL) continue;
        keys[n] = kind->keys[i];
        values[n++] = level;
    }
    for (scr_kvtree_elem *e = kind->keys ? NULL : scr_kvtree_elem_first(tree);
         rc == SCR_SUCCESS && e; e = scr_kvtree_elem_next(e)) {
        if (strcmp(scr_kvtree_elem_key(e), SCR_RECORD_KEY_VERSION) == 0) continue;
        keys[n] = scr_kvtree_elem_key(e);
        values[n++] = scr_kvtree_elem_hash(e);
    }
    if (rc == SCR_SUCCESS)
        rc = scr_kvtree_file_image_of(keys, values, n, kind->keys != NULL, out_buf, out_len);
    free(keys);
    free(values);
    scr_kvtree_delete(vtree);
    return rc;
}

/* Check what was read into fresh and merge it into tree (fresh is consumed). */
static int accept(const struct scr_record_kind *kind, const char *path, scr_kvtree *fresh,
                  scr_kvtree *tree)
{
    int rc = scr_record_take_version(path, kind->name, kind->version, fresh);
    if (rc == SCR_SUCCESS && kind->upgrade != NULL) rc = kind->upgrade(path, fresh);
    if (rc == SCR_SUCCESS) rc = kind->validate(path, fresh);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    return scr_kvtree_absorb(tree, fresh);
}

/* Read path with read (locked or not), check it and merge it into tree. */
static int read_with(int (*read)(const char *, scr_kvtree *), const struct scr_record_kind *kind,
                     const char *path, scr_kvtree *tree)
{
    scr_kvtree *fresh = scr_kvtree_new();
    if (fresh == NULL) return SCR_ERR_NOMEM;
    int rc = read(path, fresh);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    return accept(kind, path, fresh, tree);
}

int scr_record_read(const struct scr_record_kind *kind, const char *path, scr_kvtree *tree)
{
    return read_with(scr_kvtree_read_file, kind, path, tree);
}

int scr_record_read_locked(const struct scr_record_kind *kind, const char *path, scr_kvtree *tree)
{
    return read_with(scr_kvtree_read_with_lock, kind, path, tree);
}

int scr_record_parse(const struct scr_record_kind *kind, const char *path, const void *buf,
                     size_t len, scr_kvtree *tree)
{
    scr_kvtree *fresh = scr_kvtree_new();
    if (fresh == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_parse_image(buf, len, fresh, path);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    return accept(kind, path, fresh, tree);
}

int scr_record_lock_read(const struct scr_record_kind *kind, const char *path, int *out_fd,
                         scr_kvtree *tree)
{
    int rc;
    if (kind->lock_creates_dir) {
        char *dir;
        rc = scr_path_dirname(path, &dir);
        if (rc != SCR_SUCCESS) return rc;
        rc = scr_mkdir_p(dir, 0700);
        free(dir);
        if (rc != SCR_SUCCESS) return rc;
    }
    scr_kvtree *fresh = scr_kvtree_new();
    if (fresh == NULL) return SCR_ERR_NOMEM;
    int fd = -1;
    rc = scr_kvtree_lock_open_read(path, &fd, fresh);
    if (rc == SCR_ERR_NOTFOUND && kind->lock_creates_dir) {
        /* the directory vanished between mkdir and open */
        scr_err("%s: cannot create %s: its directory disappeared", kind->name, path);
        rc = SCR_ERR_IO;
    } else if (rc == SCR_ERR_NOTFOUND) {
        scr_err("%s: cannot create the %s: no such directory", path, kind->name);
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    rc = accept(kind, path, fresh, tree);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_close_unlock(&fd);
        return rc;
    }
    *out_fd = fd;
    return SCR_SUCCESS;
}

/* The file image of tree, or an error when a reader would refuse tree
 * (logged, SCR_ERR_TYPE) or memory ran out (logged, SCR_ERR_NOMEM). */
static int checked_image(const struct scr_record_kind *kind, const char *path,
                         const scr_kvtree *tree, void **out_buf, size_t *out_len)
{
    /* never store what a reader would refuse */
    char origin[4096 + 32];
    snprintf(origin, sizeof(origin), "%s (not written)", path);
    if (kind->validate(origin, tree) != SCR_SUCCESS) return SCR_ERR_TYPE;
    int rc = file_image(kind, tree, out_buf, out_len);
    if (rc == SCR_ERR_NOMEM) scr_err("%s: out of memory preparing the %s", path, kind->name);
    return rc;
}

int scr_record_write(const struct scr_record_kind *kind, const char *path, const scr_kvtree *tree)
{
    void *image = NULL;
    size_t len = 0;
    int rc = checked_image(kind, path, tree, &image, &len);
    if (rc == SCR_SUCCESS) rc = scr_write_atomic(path, image, len);
    free(image);
    return rc;
}

int scr_record_write_unlock(const struct scr_record_kind *kind, const char *path, int *fd,
                            const scr_kvtree *tree)
{
    int rc = scr_record_write(kind, path, tree);
    scr_kvtree_close_unlock(fd);
    return rc;
}
