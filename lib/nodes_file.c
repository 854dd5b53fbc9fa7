/* nodes_file.c — the node count of the previous run. */
#include "nodes_file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdio.h>
#include <string.h>

#define KEY_VERSION "VERSION"
#define KEY_NODES "NODES"

int scr_nodes_file_set_nodes(scr_kvtree *nodes, int count)
{
    if (nodes == NULL || count < 1) {
        scr_err("nodes file: a run uses at least one node, not %d", count);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_int(nodes, KEY_NODES, count);
}

int scr_nodes_file_get_nodes(const scr_kvtree *nodes, int *out_count)
{
    int count;
    if (out_count == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int(nodes, KEY_NODES, &count);
    if (rc != SCR_SUCCESS) return rc;
    if (count < 1) return SCR_ERR_TYPE;
    *out_count = count;
    return SCR_SUCCESS;
}

static int validate(const char *origin, const scr_kvtree *tree)
{
    int count;
    if (scr_nodes_file_get_nodes(tree, &count) == SCR_ERR_TYPE) {
        scr_record_bad_value(origin, KEY_NODES, scr_kvtree_get(tree, KEY_NODES),
                             "a number of nodes (1 or more)");
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

int scr_nodes_file_read(const char *path, scr_kvtree *nodes)
{
    if (path == NULL || nodes == NULL) {
        scr_err("nodes file: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    scr_kvtree *fresh = scr_kvtree_new();
    if (fresh == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_read_file(path, fresh);
    if (rc == SCR_SUCCESS) rc = scr_record_take_version(path, "nodes file", SCR_NODES_FILE_VERSION,
                                                    fresh);
    if (rc == SCR_SUCCESS) rc = validate(path, fresh);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    return scr_kvtree_absorb(nodes, fresh);
}

int scr_nodes_file_write(const char *path, const scr_kvtree *nodes)
{
    if (path == NULL) {
        scr_err("nodes file: write called without a path");
        return SCR_ERR_ARG;
    }
    /* never store what a reader would refuse */
    char origin[4096 + 32];
    snprintf(origin, sizeof(origin), "%s (not written)", path);
    if (validate(origin, nodes) != SCR_SUCCESS) return SCR_ERR_TYPE;

    scr_kvtree *out = scr_kvtree_new();
    int rc = out ? scr_kvtree_util_set_int(out, KEY_VERSION, SCR_NODES_FILE_VERSION) : SCR_ERR_NOMEM;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(nodes); e && rc == SCR_SUCCESS;
         e = scr_kvtree_elem_next(e)) {
        if (strcmp(scr_kvtree_elem_key(e), KEY_VERSION) == 0) continue;
        scr_kvtree *copy = scr_kvtree_dup(scr_kvtree_elem_hash(e));
        if (copy == NULL || scr_kvtree_set(out, scr_kvtree_elem_key(e), copy) == NULL)
            rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = scr_kvtree_write_file(path, out);
    else scr_err("%s: out of memory preparing the nodes file", path);
    scr_kvtree_delete(out);
    return rc;
}
