/* nodes_file.c — the node count of the previous run. */
#include "nodes_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

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

static const struct scr_record_kind nodes_kind = {
    .name = "nodes file",
    .version = SCR_NODES_FILE_VERSION,
    .validate = validate,
};

int scr_nodes_file_read(const char *path, scr_kvtree *nodes)
{
    if (path == NULL || nodes == NULL) {
        scr_err("nodes file: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_read(&nodes_kind, path, nodes);
}

int scr_nodes_file_write(const char *path, const scr_kvtree *nodes)
{
    if (path == NULL) {
        scr_err("nodes file: write called without a path");
        return SCR_ERR_ARG;
    }
    return scr_record_write(&nodes_kind, path, nodes);
}
