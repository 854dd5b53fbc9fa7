/* index_edit.c — locked changes to a prefix's index, by dataset name. */
#include "index_edit.h"
#include "index_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What one edit needs inside the locked update. */
struct edit {
    const char *path; /* for messages */
    const char *name;
    int dropped;
};

/* The id of e->name, or a message naming the name and the file. */
static int find(const scr_kvtree *index, const struct edit *e, int *out_id)
{
    if (scr_index_file_lookup_id(index, e->name, out_id) == SCR_SUCCESS) return SCR_SUCCESS;
    scr_err("%s: no dataset named '%s' (scr-index --list shows the datasets)", e->path, e->name);
    return SCR_ERR_NOTFOUND;
}

static int set_current(scr_kvtree *index, void *ctx)
{
    struct edit *e = ctx;
    int id;
    const char *why = NULL;
    int rc = find(index, e, &id);
    if (rc == SCR_SUCCESS) rc = scr_index_file_restartable(index, id, &why);
    if (rc != SCR_SUCCESS) return rc;
    if (why != NULL) {
        scr_err("%s: dataset '%s' cannot be current: it %s", e->path, e->name, why);
        return SCR_ERR_ARG;
    }
    return scr_index_file_set_current(index, e->name);
}

static int drop(scr_kvtree *index, void *ctx)
{
    struct edit *e = ctx;
    int id;
    int rc = find(index, e, &id);
    if (rc == SCR_SUCCESS) rc = scr_index_file_remove(index, id);
    if (rc == SCR_SUCCESS) e->dropped = 1;
    return rc;
}

static int drop_after(scr_kvtree *index, void *ctx)
{
    struct edit *e = ctx;
    int id, *ids = NULL, n = 0;
    int rc = find(index, e, &id);
    if (rc == SCR_SUCCESS) rc = scr_index_file_list_ids(index, &ids, &n);
    for (int i = 0; rc == SCR_SUCCESS && i < n && ids[i] > id; i++) { /* newest first */
        rc = scr_index_file_remove(index, ids[i]);
        if (rc == SCR_SUCCESS) e->dropped++;
    }
    free(ids);
    return rc;
}

/* Run change on the index of prefix, which must exist. */
static int edit(const char *prefix, const char *name, int (*change)(scr_kvtree *, void *),
                int *out_dropped)
{
    if (name == NULL || name[0] == '\0') {
        scr_err("index: no dataset name given");
        return SCR_ERR_ARG;
    }
    struct edit e = {NULL, name, 0};
    char *path = NULL;
    int rc = scr_index_file_path(prefix, &path);
    if (rc != SCR_SUCCESS) return rc;
    e.path = path;
    /* taking the lock would create an index with no datasets; a prefix without one is a mistake */
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            scr_err("%s has no index (no .scr/index.scr): nothing was flushed there, or it "
                    "is not a prefix directory",
                    prefix);
            rc = SCR_ERR_NOTFOUND;
        } else {
            scr_err("cannot read %s: %s", path, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    if (rc == SCR_SUCCESS) rc = scr_index_file_update(path, change, &e);
    free(path);
    if (rc == SCR_SUCCESS && out_dropped != NULL) *out_dropped = e.dropped;
    return rc;
}

int scr_index_edit_set_current(const char *prefix, const char *name)
{
    return edit(prefix, name, set_current, NULL);
}

int scr_index_edit_drop(const char *prefix, const char *name)
{
    return edit(prefix, name, drop, NULL);
}

int scr_index_edit_drop_after(const char *prefix, const char *name, int *out_dropped)
{
    return edit(prefix, name, drop_after, out_dropped);
}
