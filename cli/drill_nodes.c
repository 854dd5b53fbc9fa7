/* drill_nodes.c — simulated nodes' directories, their caches, and losing them. */
#include "drill_nodes.h"
#include "cached_ranks.h"
#include "dataset.h"
#include "filemap.h"
#include "job_dir.h"
#include "job_env.h"
#include "kvtree.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int drill_node_of_rank(int ranks, int nodes, int r)
{
    return (int)((long long)r * nodes / ranks);
}

void drill_nodes_free(struct drill_nodes *dn)
{
    for (int i = 0; i < dn->ndirs; i++) free(dn->job_dirs[i]);
    free(dn->job_dirs);
    dn->job_dirs = NULL;
    dn->ndirs = 0;
}

/* The job directory under base (read from parameter what) appended to dn,
 * unless dn has it already. */
static int add_job_dir(struct drill_nodes *dn, const char *what, const char *base, const char *node,
                       const char *user, const char *jobid)
{
    char *dir = NULL;
    int rc = scr_job_dir_path(what, base, node, user, jobid, &dir);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0; i < dn->ndirs; i++) {
        if (strcmp(dn->job_dirs[i], dir) == 0) {
            free(dir);
            return SCR_SUCCESS;
        }
    }
    char **grown = realloc(dn->job_dirs, (size_t)(dn->ndirs + 1) * sizeof(*grown));
    if (grown == NULL) {
        scr_err("out of memory");
        free(dir);
        return SCR_ERR_NOMEM;
    }
    dn->job_dirs = grown;
    dn->job_dirs[dn->ndirs++] = dir;
    return SCR_SUCCESS;
}

int drill_nodes_setup(struct drill_nodes *dn, const scr_config *cfg, int ranks, int nodes)
{
    memset(dn, 0, sizeof(*dn));
    dn->ranks = ranks;
    dn->nodes = nodes;
    char node[256], user[256], jobid[256];
    int defaulted = 0;
    const char *cntl = NULL, *cache = NULL;
    /* the real node's name: a simulated node's directories are inside its job directory */
    int rc = scr_job_env_node_name(node, sizeof(node));
    if (rc == SCR_SUCCESS) rc = scr_job_env_user_name(user, sizeof(user));
    if (rc == SCR_SUCCESS) rc = scr_job_env_job_id(jobid, sizeof(jobid), &defaulted);
    if (rc == SCR_SUCCESS) rc = scr_config_get(cfg, "SCR_CNTL_BASE", &cntl);
    if (rc == SCR_SUCCESS) rc = scr_config_get(cfg, "SCR_CACHE_BASE", &cache);
    if (rc == SCR_SUCCESS) rc = add_job_dir(dn, "SCR_CNTL_BASE", cntl, node, user, jobid);
    if (rc == SCR_SUCCESS) rc = add_job_dir(dn, "SCR_CACHE_BASE", cache, node, user, jobid);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_config_table(cfg, "STORE"));
         rc == SCR_SUCCESS && e; e = scr_kvtree_elem_next(e))
        rc = add_job_dir(dn, "STORE", scr_kvtree_elem_key(e), node, user, jobid);
    if (rc != SCR_SUCCESS) drill_nodes_free(dn);
    return rc;
}

/* Simulated node k's directory inside job directory i. */
static int node_dir(const struct drill_nodes *dn, int i, int k, char **out_dir)
{
    char name[32];
    snprintf(name, sizeof(name), "node%d", k);
    return scr_job_dir_sim_path(dn->job_dirs[i], name, out_dir);
}

int drill_nodes_cntl_dir(const struct drill_nodes *dn, int k, char **out_dir)
{
    return node_dir(dn, 0, k, out_dir);
}

/* Judge dataset id into c from maps[k], node k's filemaps: each rank as its
 * own node records it (a node also lists the files it holds for other
 * ranks, PARTNER copies, which say nothing of whether the rank's own files
 * are whole). gone is scratch room for dn->ranks flags. */
static void judge(const struct drill_nodes *dn, scr_filemap *const *maps, int id, const int *lost,
                  char *gone, struct drill_cached *c)
{
    memset(c, 0, sizeof(*c));
    c->id = id;
    c->complete = 1;
    for (int r = 0; r < dn->ranks; r++) {
        int k = drill_node_of_rank(dn->ranks, dn->nodes, r);
        const scr_dataset *desc = NULL;
        const char *name = NULL;
        int intact = scr_cached_rank_is_intact(maps[k], id, r);
        if (!intact) c->complete = 0;
        gone[r] = !intact || lost[k];
        if (gone[r]) c->rebuild = 1;
        if (c->name[0] == '\0' && scr_filemap_get_dataset(maps[k], id, r, &desc) == SCR_SUCCESS &&
            scr_dataset_get_name(desc, &name) == SCR_SUCCESS)
            snprintf(c->name, sizeof(c->name), "%s", name);
    }
    /* every rank's set must survive what is gone */
    c->survives = 1;
    for (int r = 0; r < dn->ranks; r++) {
        const scr_kvtree *red = NULL;
        if (scr_filemap_get_reddesc(maps[drill_node_of_rank(dn->ranks, dn->nodes, r)], id, r,
                                    &red) != SCR_SUCCESS) {
            c->survives = 0;
            continue;
        }
        if (!scr_cached_set_survives(red, gone, dn->ranks, c->scheme, sizeof(c->scheme)))
            c->survives = 0;
    }
}

static int newest_first(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

/* The ids of the checkpoints any map names, newest first and once each,
 * into a new array. */
static int checkpoint_ids(const struct drill_nodes *dn, scr_filemap *const *maps, int **out_ids,
                          int *out_n)
{
    int *all = NULL, n = 0, rc = SCR_SUCCESS;
    for (int k = 0; k < dn->nodes && rc == SCR_SUCCESS; k++) {
        int *ids = NULL, nids = 0;
        rc = scr_filemap_list_datasets(maps[k], &ids, &nids);
        for (int i = 0; rc == SCR_SUCCESS && i < nids; i++) {
            const scr_dataset *desc = NULL;
            int have = 0;
            for (int j = 0; j < n && !have; j++) have = all[j] == ids[i];
            if (have) continue;
            /* any rank's descriptor says whether it is a checkpoint */
            for (scr_kvtree_elem *e = scr_filemap_first_rank_by_dataset(maps[k], ids[i]);
                 e && desc == NULL; e = scr_kvtree_elem_next(e))
                scr_filemap_get_dataset(maps[k], ids[i], atoi(scr_kvtree_elem_key(e)), &desc);
            if (desc == NULL || !scr_dataset_is_checkpoint(desc)) continue;
            int *grown = realloc(all, (size_t)(n + 1) * sizeof(*all));
            if (grown == NULL) {
                scr_err("out of memory");
                rc = SCR_ERR_NOMEM;
                break;
            }
            all = grown;
            all[n++] = ids[i];
        }
        free(ids);
    }
    if (rc != SCR_SUCCESS) {
        free(all);
        return rc;
    }
    if (n > 1) qsort(all, (size_t)n, sizeof(*all), newest_first);
    *out_ids = all;
    *out_n = n;
    return SCR_SUCCESS;
}

int drill_nodes_read_caches(const struct drill_nodes *dn, const int *lost, struct drill_cached *out,
                            int max, int *out_count)
{
    *out_count = 0;
    int rc = SCR_SUCCESS, *ids = NULL, nids = 0;
    scr_filemap **maps = calloc((size_t)dn->nodes, sizeof(*maps));
    char *gone = malloc((size_t)dn->ranks);
    if (maps == NULL || gone == NULL) {
        scr_err("out of memory");
        rc = SCR_ERR_NOMEM;
    }
    for (int k = 0; rc == SCR_SUCCESS && k < dn->nodes; k++) {
        char *dir = NULL;
        maps[k] = scr_filemap_new();
        if (maps[k] == NULL) {
            scr_err("out of memory");
            rc = SCR_ERR_NOMEM;
            break;
        }
        rc = drill_nodes_cntl_dir(dn, k, &dir);
        if (rc == SCR_SUCCESS) rc = scr_cached_read_filemaps(dir, maps[k]);
        free(dir);
    }
    if (rc == SCR_SUCCESS) rc = checkpoint_ids(dn, maps, &ids, &nids);
    for (int i = 0; rc == SCR_SUCCESS && i < nids && *out_count < max; i++)
        judge(dn, maps, ids[i], lost, gone, &out[(*out_count)++]);
    free(ids);
    free(gone);
    for (int k = 0; maps != NULL && k < dn->nodes; k++) scr_filemap_delete(maps[k]);
    free(maps);
    return rc;
}

int drill_nodes_lose(const struct drill_nodes *dn, int k)
{
    int rc = SCR_SUCCESS;
    for (int i = 0; i < dn->ndirs; i++) {
        char *dir = NULL;
        int removed = 0, step = node_dir(dn, i, k, &dir);
        if (step == SCR_SUCCESS) step = scr_job_dir_remove(dir, &removed);
        if (step == SCR_SUCCESS && !removed && i == 0)
            scr_warn("node%d has no control directory %s: the first run never reached SCR_Init "
                     "there, so it "
                     "has nothing to lose",
                     k, dir);
        free(dir);
        if (rc == SCR_SUCCESS) rc = step;
    }
    return rc;
}

int drill_nodes_remove_all(const struct drill_nodes *dn)
{
    int rc = SCR_SUCCESS;
    for (int i = 0; i < dn->ndirs; i++) {
        for (int k = 0; k < dn->nodes; k++) {
            char *dir = NULL;
            int removed = 0, step = node_dir(dn, i, k, &dir);
            if (step == SCR_SUCCESS) step = scr_job_dir_remove(dir, &removed);
            free(dir);
            if (rc == SCR_SUCCESS) rc = step;
        }
        /* the job directory goes only when nothing else is in it: inside an
         * allocation it is the real job's too (SLURM_JOB_ID) */
        if (rmdir(dn->job_dirs[i]) != 0 && errno != ENOENT && errno != ENOTEMPTY &&
            errno != EEXIST) {
            scr_err("cannot remove %s: %s", dn->job_dirs[i], strerror(errno));
            if (rc == SCR_SUCCESS) rc = SCR_ERR_IO;
        }
    }
    return rc;
}
