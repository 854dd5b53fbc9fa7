/* health_file.c — a node's health record. */
#include "health_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_NODE "NODE"
#define KEY_HEALTHY "HEALTHY"
#define KEY_REASON "REASON"
#define KEY_CHECKED "CHECKED"

static int node_name_ok(const char *node)
{
    return node != NULL && node[0] != '\0' && node[0] != '.' && strchr(node, '/') == NULL &&
           strlen(node) < sizeof(((struct scr_health *)0)->node);
}

int scr_health_file_path(const char *dir, const char *node, char **out_path)
{
    if (dir == NULL || !node_name_ok(node)) {
        scr_err("health record: '%s' is not a node name to name a file after",
                node ? node : "(null)");
        return SCR_ERR_ARG;
    }
    char name[300];
    snprintf(name, sizeof(name), "%s%s", node, SCR_HEALTH_FILE_SUFFIX);
    return scr_path_join(dir, name, out_path);
}

static int validate(const char *origin, const scr_kvtree *tree)
{
    const char *node = NULL, *reason = NULL;
    int healthy = -1;
    int64_t checked = -1;
    if (scr_kvtree_util_get_str(tree, KEY_NODE, &node) != SCR_SUCCESS || !node_name_ok(node))
        return scr_record_bad_value(origin, KEY_NODE, scr_kvtree_get(tree, KEY_NODE),
                                    "a node name");
    if (scr_kvtree_util_get_int(tree, KEY_HEALTHY, &healthy) != SCR_SUCCESS ||
        (healthy != 0 && healthy != 1))
        return scr_record_bad_value(origin, KEY_HEALTHY, scr_kvtree_get(tree, KEY_HEALTHY),
                                    "0 or 1");
    if (scr_kvtree_util_get_int64(tree, KEY_CHECKED, &checked) != SCR_SUCCESS || checked < 0)
        return scr_record_bad_value(origin, KEY_CHECKED, scr_kvtree_get(tree, KEY_CHECKED),
                                    "seconds since the epoch");
    int has_reason = scr_kvtree_util_get_str(tree, KEY_REASON, &reason) == SCR_SUCCESS;
    if (healthy == 0 && (!has_reason || reason[0] == '\0'))
        return scr_record_bad_value(origin, KEY_REASON, scr_kvtree_get(tree, KEY_REASON),
                                    "why the node failed its check");
    return SCR_SUCCESS;
}

static const struct scr_record_kind health_kind = {
    .name = "health record",
    .version = SCR_HEALTH_FILE_VERSION,
    .validate = validate,
};

int scr_health_file_write(const char *path, const struct scr_health *rec)
{
    if (path == NULL || rec == NULL) {
        scr_err("health record: write called without a path or a record");
        return SCR_ERR_ARG;
    }
    scr_kvtree *t = scr_kvtree_new();
    int rc = t ? scr_kvtree_util_set_str(t, KEY_NODE, rec->node) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(t, KEY_HEALTHY, rec->healthy ? 1 : 0);
    if (rc == SCR_SUCCESS && !rec->healthy)
        rc = scr_kvtree_util_set_str(t, KEY_REASON, rec->reason);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int64(t, KEY_CHECKED, (int64_t)rec->checked);
    if (rc == SCR_SUCCESS)
        rc = scr_record_write(&health_kind, path, t);
    else
        scr_err("health record: out of memory");
    scr_kvtree_delete(t);
    return rc;
}

int scr_health_file_read(const char *path, struct scr_health *out_rec)
{
    if (path == NULL || out_rec == NULL) {
        scr_err("health record: read called without a path or a record");
        return SCR_ERR_ARG;
    }
    scr_kvtree *t = scr_kvtree_new();
    if (t == NULL) {
        scr_err("health record: out of memory");
        return SCR_ERR_NOMEM;
    }
    int rc = scr_record_read(&health_kind, path, t);
    if (rc == SCR_SUCCESS) {
        const char *node = NULL, *reason = "";
        int64_t checked = 0;
        memset(out_rec, 0, sizeof(*out_rec));
        scr_kvtree_util_get_str(t, KEY_NODE, &node);
        scr_kvtree_util_get_int(t, KEY_HEALTHY, &out_rec->healthy);
        scr_kvtree_util_get_str(t, KEY_REASON, &reason);
        scr_kvtree_util_get_int64(t, KEY_CHECKED, &checked);
        snprintf(out_rec->node, sizeof(out_rec->node), "%s", node);
        snprintf(out_rec->reason, sizeof(out_rec->reason), "%s", out_rec->healthy ? "" : reason);
        out_rec->checked = (time_t)checked;
    }
    scr_kvtree_delete(t);
    return rc;
}
