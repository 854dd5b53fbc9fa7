/* scr_init.c — the work of SCR_Init (scr_init.h): the configuration every
 * rank agrees on, then the run: identity, paths, records, prefix, cache and
 * restart. The steps are in the order SCR_Init takes them; each collective
 * step ends with a marked agreement of all ranks. */
#include "build_config.h"
#include "run_cache.h"
#include "run_crc_async.h"
#include "run_events.h"
#include "run_rebuild.h"
#include "scr.h" /* SCR_MAX_FILENAME */

#include "config.h"
#include "params.h"
#include "dataset_claim.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "scavenge_job.h"
#include "kvtree_util.h"
#include "job_env.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_split.h"
#include "mpi_host.h"
#include "job_file.h"
#include "nodes_file.h"
#include "prefix_trim.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "run_encode_async.h"
#include "api_state.h"
#include "scr_run.h"
#include "transfer.h"
#include "run_halt.h"
#include "scr_init.h"
#include "summary.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"
#include "util_testpoint.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

void scr_init_free_run(struct scr_run *r)
{
    if (r == NULL) return;
    scr_crc_async_teardown(r);
    scr_prefix_lock_drop(&r->prefix_lock, &r->prefix_holder);
    if (r->node != MPI_COMM_NULL) MPI_Comm_free(&r->node);
    if (r->world != MPI_COMM_NULL) MPI_Comm_free(&r->world);
    scr_config_delete(r->cfg);
    scr_params_free(r->params);
    free(r->prefix);
    free(r->prefix_scr);
    free(r->cntl_dir);
    free(r->cache_dir);
    free(r->filemap_path);
    free(r->master_filemap_path);
    free(r->flush_path);
    free(r->halt_path);
    free(r->index_path);
    scr_filemap_delete(r->map);
    scr_encoder_free(r->encoder);
    scr_reddescs_free(r->reddescs, r->nreddescs);
    scr_event_log_close(&r->events);
    free(r);
}

/* Resolve the parameters libscr uses into run->params (params.h); SCR_DEBUG
 * sets the log's level and SCR_CURRENT names the checkpoint to restart
 * from, as SCR_Current does. */
static int read_parameters(struct scr_api *api)
{
    struct scr_run *r = api->run;
    struct scr_params *p = NULL;
    int rc = scr_params_resolve(r->cfg, scr_mpi_is_simulated(), &p); /* says why */
    if (rc != SCR_SUCCESS) return rc;
    r->params = p;
    scr_log_set_level(p->debug);
    if (p->current != NULL) {
        api->current_name = strdup(p->current);
        if (api->current_name == NULL) {
            scr_err("cannot read SCR's parameters (%s)", scr_strstatus(SCR_ERR_NOMEM));
            return SCR_ERR_NOMEM;
        }
    }
    return SCR_SUCCESS;
}

/* Rank 0, once at SCR_Init: settings SCR knows whose effect this version
 * does not have, and what happens instead; said, never taken silently. */
void scr_init_say_unavailable(const struct scr_run *r)
{
    if (scr_mpi_is_simulated())
        scr_dbg(0, "SimGrid's SMPI: all ranks share one process, so no library thread runs: "
                   "SCR_FLUSH_ASYNC, SCR_ENCODE_ASYNC and SCR_WATCHDOG_TIMEOUT_PFS are off, and "
                   "each flush, "
                   "encode and copy is done in the ranks' own calls, on the simulated clock");
    scr_params_say_ineffective(r->cfg, r->params, scr_encoder_in_background(r->encoder));
}

/* SCR_PREFIX as an absolute, normalised path to an existing directory. */
static int resolve_prefix(struct scr_run *r)
{
    const char *p = NULL;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        scr_err("cannot find the current directory: %s", strerror(errno));
        return SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    p = r->params->prefix != NULL ? r->params->prefix : cwd;
    if (p[0] == '/')
        rc = scr_path_normalize(p, &r->prefix);
    else
        rc = scr_path_join(cwd, p, &r->prefix);
    if (rc != SCR_SUCCESS) return rc;
    struct stat st;
    if (stat(r->prefix, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scr_err("SCR_PREFIX %s (from %s) %s", r->prefix,
                scr_config_origin(r->cfg, "SCR_PREFIX") ? scr_config_origin(r->cfg, "SCR_PREFIX")
                                                        : "the current directory",
                stat(r->prefix, &st) != 0 ? "does not exist" : "is not a directory");
        return SCR_ERR_NOTFOUND;
    }
    rc = scr_path_join(r->prefix, ".scr", &r->prefix_scr);
    if (rc != SCR_SUCCESS) return rc;
    /* The records are opened by name inside .scr. A user may keep it behind
     * a link to a directory of theirs, as SCR 3.1 allowed; root may not
     * follow one, which would send the records wherever its owner pointed
     * it. Anything but a directory is refused. */
    if (lstat(r->prefix_scr, &st) != 0) return SCR_SUCCESS; /* made later */
    if (S_ISLNK(st.st_mode) && geteuid() == 0) {
        scr_err("%s is a symbolic link: a job run as root keeps the prefix's records in a "
                "directory, never "
                "through a link",
                r->prefix_scr);
        return SCR_ERR_IO;
    }
    if (stat(r->prefix_scr, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scr_err("%s is not a directory: the prefix's records are kept in one", r->prefix_scr);
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

/* <base>/<user>/scr.<jobid> with the base's patterns expanded (param
 * names the base in messages). */
static int job_dir(const struct scr_run *r, const char *param, const char *base, char **out_dir)
{
    if (base == NULL) return SCR_ERR_NOTFOUND;
    return scr_run_job_dir(r, param, base, out_dir);
}

static void write_nodes_file(const struct scr_run *r)
{
    char *path = NULL;
    scr_kvtree *nodes = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (nodes == NULL) goto out;
    rc = scr_path_join(r->cntl_dir, SCR_NODES_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_nodes_file_set_nodes(nodes, r->nodes);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_nodes_file_write(path, nodes);
out:
    if (rc != SCR_SUCCESS)
        scr_warn("could not record the run's node count in %s", path ? path : r->cntl_dir);
    free(path);
    scr_kvtree_delete(nodes);
}

/* The prefix this run resolved, for the work done when the job ends (the
 * plugin's epilog, scr-scavenge) and for a relaunch: without it they only
 * know --scr-prefix or the job's working directory. With it, the cache
 * directories of this node that this run and the job's earlier runs used,
 * so that the epilog removes a cache the site's base does not name. */
static void write_job_file(const struct scr_run *r)
{
    char *path = NULL;
    scr_kvtree *job = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (job == NULL) goto out;
    rc = scr_path_join(r->cntl_dir, SCR_JOB_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_job_file_read(path, job) != SCR_SUCCESS) scr_kvtree_unset_all(job);
    rc = scr_job_file_set_prefix(job, r->prefix);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_job_file_add_cache_dir(job, r->cache_dir);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < r->nreddescs; i++) {
        char *dir = NULL;
        rc = scr_cache_store_dir(r, r->reddescs[i].store, &dir);
        if (rc == SCR_SUCCESS) rc = scr_job_file_add_cache_dir(job, dir);
        free(dir);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_job_file_write(path, job);
out:
    if (rc != SCR_SUCCESS)
        scr_warn("could not record the prefix and the cache in %s: a scavenge at the end of the "
                 "job may not "
                 "find them",
                 path ? path : r->cntl_dir);
    free(path);
    scr_kvtree_delete(job);
}

/* Under the Slurm plugin, which scavenges at the job's end, rank 0 notes
 * in the prefix which nodes this run uses: the job's end then waits for
 * their reports only, not for a spare node that knows no prefix. Only a
 * help to the job's end, so failing stops nothing; collective. */
static void note_run_nodes(const struct scr_run *r)
{
    const char *v = getenv(SCR_EPILOG_SCAVENGE_VAR);
    int ok = 0;
    if (scr_comm_all_true(v != NULL && strcmp(v, "1") == 0, r->world, &ok) != SCR_SUCCESS || !ok)
        return;
    scr_kvtree *mine = scr_kvtree_new(), **all = NULL;
    int rc = mine ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && r->node_rank == 0)
        rc = scr_kvtree_util_set_str(mine, "NODE", r->node_name);
    /* every rank takes part even after a failure of its own: the gather is collective */
    int grc = scr_comm_gather_kvtree(mine, 0, r->world, &all);
    if (r->rank == 0 && grc == SCR_SUCCESS) {
        const char **names = calloc((size_t)r->ranks, sizeof(char *));
        int n = 0;
        for (int i = 0; names != NULL && i < r->ranks; i++)
            if (scr_kvtree_util_get_str(all[i], "NODE", &names[n]) == SCR_SUCCESS) n++;
        rc = names != NULL ? scr_scavenge_job_note_nodes(r->prefix, r->jobid, names, n)
                           : SCR_ERR_NOMEM;
        if (rc != SCR_SUCCESS)
            scr_warn("could not note this run's nodes in %s/.scr: the job's end may wait for spare "
                     "nodes",
                     r->prefix);
        free(names);
    }
    if (all != NULL) scr_comm_free_trees(all, r->rank == 0 ? r->ranks : 0);
    scr_kvtree_delete(mine);
}

static int join_into(const char *dir, const char *name, char **out)
{
    return scr_path_join(dir, name, out);
}

static int set_paths(struct scr_run *r)
{
    char name[64];
    snprintf(name, sizeof(name), "filemap_%d.scrinfo", r->node_rank);
    int rc = job_dir(r, "SCR_CNTL_BASE", r->params->cntl_base, &r->cntl_dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = job_dir(r, "SCR_CACHE_BASE", r->params->cache_base, &r->cache_dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->cntl_dir, name, &r->filemap_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->cntl_dir, "filemap.scrinfo", &r->master_filemap_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->cntl_dir, "flush.scr", &r->flush_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->prefix_scr, "halt.scr", &r->halt_path);
    if (rc != SCR_SUCCESS) return rc;
    return join_into(r->prefix_scr, "index.scr", &r->index_path);
}

/* Node, user and job id: the environment as job_env.h reads it, but a value
 * a file or SCR_Config gives takes the place of the detected one (the job
 * id of a resource manager, SLURM_JOB_ID, still comes first). */
static int identify(struct scr_api *api, int *out_defaulted)
{
    struct scr_run *r = api->run;
    int set = 0;
    *out_defaulted = 0;
    const char *slurm = getenv("SLURM_JOB_ID");
    int rc = scr_params_name_from_files(r->cfg, "SCR_NODE_NAME", r->node_name, sizeof(r->node_name),
                                        &set);
    if (rc != SCR_SUCCESS) return rc;
    if (!set) {
        /* MPI knows the node (under SMPI, each rank's simulated host),
         * where the environment does not name one */
        char host[sizeof(r->node_name)];
        rc = scr_mpi_processor_name(host, sizeof(host));
        if (rc != SCR_SUCCESS) return rc;
        rc = scr_job_env_node_name_or(host, "the node MPI_Get_processor_name names", r->node_name,
                                      sizeof(r->node_name));
        if (rc != SCR_SUCCESS) return rc;
    }
    /* a simulated node takes the node's name; the real one keeps the bases */
    snprintf(r->base_node, sizeof(r->base_node), "%s", r->node_name);
    rc = scr_job_env_sim_node(r->sim_node, sizeof(r->sim_node), &set);
    if (rc != SCR_SUCCESS) return rc;
    if (set) snprintf(r->node_name, sizeof(r->node_name), "%s", r->sim_node);
    rc = scr_job_env_drill_stop_after(&api->drill_stop_after);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_params_name_from_files(r->cfg, "SCR_USER_NAME", r->user, sizeof(r->user), &set);
    if (rc != SCR_SUCCESS) return rc;
    if (!set) {
        rc = scr_job_env_user_name(r->user, sizeof(r->user));
        if (rc != SCR_SUCCESS) return rc;
    }
    set = 0;
    if (slurm == NULL || slurm[0] == '\0') {
        rc = scr_params_name_from_files(r->cfg, "SCR_JOB_ID", r->jobid, sizeof(r->jobid), &set);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (set) return SCR_SUCCESS;
    return scr_job_env_job_id(r->jobid, sizeof(r->jobid), out_defaulted);
}

/* Everything of SCR_Init that each rank does on its own; the caller has
 * all ranks agree on the outcome. */
static int init_local(struct scr_api *api)
{
    struct scr_run *r = api->run;
    int defaulted = 0;
    int rc = identify(api, &defaulted);
    r->jobid_defaulted = defaulted;
    if (rc != SCR_SUCCESS) return rc;
    if (defaulted && r->rank == 0)
        scr_warn("no job id (neither SLURM_JOB_ID nor SCR_JOB_ID is set): using '%s' so that "
                 "later runs find this cache",
                 r->jobid);
    /* every rank reads the parameters and checks the prefix; rank 0 says
     * what is wrong with them */
    if (r->rank != 0) scr_log_set_quiet(1);
    rc = read_parameters(api);
    scr_log_set_quiet(0);
    if (rc != SCR_SUCCESS) return rc;
    if (r->rank != 0) scr_log_set_quiet(1);
    rc = resolve_prefix(r);
    scr_log_set_quiet(0);
    if (rc != SCR_SUCCESS) return rc;
    r->map = scr_filemap_new();
    api->restart.files = scr_kvtree_new();
    if (r->map == NULL || api->restart.files == NULL) return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* Newest dataset and checkpoint ids of the index (rank 0) and the cache;
 * an index rank 0 cannot read fails every rank, since new datasets would
 * take the ids, names and files of the ones it lists. */
static int find_last_ids(struct scr_api *api)
{
    struct scr_run *r = api->run;
    int ids[3] = {0, 0, 0}, all[3] = {0, 0, 0}; /* dataset, checkpoint, unreadable index */
    int *list = NULL, n = 0;
    if (scr_filemap_list_datasets(r->map, &list, &n) == SCR_SUCCESS) {
        for (int i = 0; i < n; i++) {
            const scr_dataset *d = NULL;
            int ck = 0;
            if (list[i] > ids[0]) ids[0] = list[i];
            if (scr_filemap_get_dataset(r->map, list[i], r->rank, &d) == SCR_SUCCESS &&
                scr_dataset_get_ckpt(d, &ck) == SCR_SUCCESS && ck > ids[1])
                ids[1] = ck;
        }
    }
    free(list);
    if (r->rank == 0) {
        scr_kvtree *index = scr_kvtree_new();
        list = NULL;
        n = 0;
        int irc = index ? scr_index_file_read(r->index_path, index) : SCR_ERR_NOMEM; /* says why */
        if (irc != SCR_SUCCESS && irc != SCR_ERR_NOTFOUND) ids[2] = 1;
        if (irc == SCR_SUCCESS && scr_index_file_list_ids(index, &list, &n) == SCR_SUCCESS) {
            for (int i = 0; i < n; i++) {
                const scr_dataset *d = NULL;
                int ck = 0;
                if (list[i] > ids[0]) ids[0] = list[i];
                if (scr_index_file_get_dataset(index, list[i], &d) == SCR_SUCCESS &&
                    scr_dataset_get_ckpt(d, &ck) == SCR_SUCCESS && ck > ids[1])
                    ids[1] = ck;
            }
        }
        free(list);
        scr_kvtree_delete(index);
        /* a dataset that left the index keeps its directory, and its id */
        int on_disk = 0;
        if (scr_dataset_claim_highest_id(r->prefix, &on_disk) == SCR_SUCCESS && on_disk > ids[0])
            ids[0] = on_disk;
    }
    /* all ranks agree: */
    int rc = scr_mpi_check(MPI_Allreduce(ids, all, 3, MPI_INT, MPI_MAX, r->world),
                           "finding the newest dataset id");
    if (rc != SCR_SUCCESS) return rc;
    if (all[2]) return SCR_ERR_FORMAT;
    api->dataset_id = all[0];
    api->checkpoint_id = all[1];
    return SCR_SUCCESS;
}

/* Output datasets a dead run left in cache unflushed are flushed now. */
static int flush_leftover_output(struct scr_api *api)
{
    struct scr_run *r = api->run;
    int below = INT_MAX;
    for (;;) {
        int id = 0;
        int rc = scr_cache_next_dataset(r, below, &id);
        if (rc != SCR_SUCCESS || id == 0) return rc;
        below = id;
        const scr_dataset *d = NULL;
        int is_output = 0, flushed = 0;
        if (scr_filemap_get_dataset(r->map, id, r->rank, &d) == SCR_SUCCESS)
            is_output = scr_dataset_is_output(d);
        int all_output = 0;
        /* all ranks agree: */
        rc = scr_comm_all_true(is_output, r->world, &all_output);
        if (rc != SCR_SUCCESS) return rc;
        if (!all_output) continue;
        rc = scr_flush_is_flushed(r, id, &flushed); /* all ranks agree */
        if (rc != SCR_SUCCESS) return rc;
        if (flushed) continue;
        if (r->rank == 0)
            scr_warn("output dataset %d was not copied to the prefix before the "
                     "last run ended; copying it now",
                     id);
        api->dset_in_cache = 1;
        rc = scr_flush_dataset(r, id, api->dset_in_cache);
        if (rc != SCR_SUCCESS) {
            /* it stays in cache, and the next SCR_Init tries again */
            if (r->rank == 0) scr_warn("output dataset %d is still only in cache", id);
            continue;
        }
        if (!scr_dataset_is_checkpoint(d)) {
            rc = scr_cache_delete_dataset(r, id);
            int nrc = scr_cache_note_location(r, id, 0, 1, 0);
            if (rc == SCR_SUCCESS) rc = nrc;
            if (rc != SCR_SUCCESS) return rc;
        }
    }
}

/* SCR_PREFIX_PURGE: rank 0 forgets every dataset of the prefix (the index and
 * SCR's dataset directories, listed or not, since a later rebuild of the
 * index would bring back any that stayed; application files at their own
 * paths stay). */
static void purge_prefix(struct scr_run *r)
{
    DIR *d = opendir(r->prefix_scr);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char *dir = NULL;
        int id = 0;
        /* and what a crash left of a deletion by SCR_PREFIX_SIZE */
        if (scr_dataset_dir_name_id(e->d_name, &id) != SCR_SUCCESS &&
            strncmp(e->d_name, SCR_PREFIX_TRIM_DIR_PREFIX, strlen(SCR_PREFIX_TRIM_DIR_PREFIX)) != 0)
            continue;
        char *summary = NULL;
        /* the summary first: no moment where it calls whole a dataset whose
         * files in its directory are going */
        if (scr_path_join(r->prefix_scr, e->d_name, &dir) == SCR_SUCCESS &&
            scr_path_join(dir, SCR_SUMMARY_FILE_NAME, &summary) == SCR_SUCCESS &&
            unlink(summary) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", summary, strerror(errno));
        if (dir != NULL) scr_remove_tree(dir); /* says what stays */
        free(summary);
        free(dir);
    }
    if (d == NULL && errno != ENOENT)
        scr_warn("cannot read %s: %s", r->prefix_scr, strerror(errno));
    if (d != NULL) closedir(d);
    if (unlink(r->index_path) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s: %s", r->index_path, strerror(errno));
    scr_warn("SCR_PREFIX_PURGE: removed every dataset from %s", r->prefix);
}

/* Rank 0, before anything reads the index: a damaged one, or one lost while
 * dataset directories remain, is rebuilt from the datasets' summaries (and
 * said so); a dataset a scavenge copied but no one indexed (a job's epilog
 * cut short) is indexed. The ids of dataset directories that still give no
 * index (no summary) are left in *out_ids (a new array, NULL when none) for
 * check_unindexed. */
static int prepare_index(struct scr_run *r, int **out_ids, int *out_n)
{
    struct scr_index_rebuild_options ro = {.damaged = 1, .require = 0, .announce = 1};
    struct scr_index_rebuild_report rep;
    int rc = scr_index_rebuild(r->prefix, &ro, &rep);
    int unindexed = rep.found == SCR_INDEX_FOUND_MISSING && !rep.rebuilt && rep.nskipped > 0;
    scr_index_rebuild_report_free(&rep);
    if (rc != SCR_SUCCESS) return rc;
    int pending = 0;
    scr_scavenge_job_index_pending(r->prefix, &pending); /* failing stops nothing; it said why */
    if (!unindexed) return SCR_SUCCESS;
    rc = scr_index_rebuild(r->prefix, &ro, &rep); /* what the scavenged datasets left */
    if (rc != SCR_SUCCESS) goto out;
    if (rep.found != SCR_INDEX_FOUND_MISSING || rep.rebuilt || rep.nskipped <= 0) goto out;
    *out_ids = malloc(sizeof(int) * (size_t)rep.nskipped);
    if (*out_ids == NULL) {
        scr_err("out of memory listing the dataset directories of %s", r->prefix);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < rep.nskipped; i++) (*out_ids)[i] = rep.skipped[i].id;
    *out_n = rep.nskipped;
out:
    scr_index_rebuild_report_free(&rep);
    return rc;
}

/* The dataset directories of the prefix that give no index (ids, known to
 * rank 0) may stay only when they are copies this job will make again: of
 * datasets some rank still holds in cache (a flush that failed, or a run
 * that died flushing). Otherwise SCR_Init stops rather than start over on
 * top of them. Collective; all ranks agree on the outcome. */
static int check_unindexed(struct scr_run *r, int *ids, int n)
{
    int count = r->rank == 0 ? n : 0;
    /* rank 0 says how many, everyone gets the answer */
    int rc =
        scr_mpi_check(MPI_Bcast(&count, 1, MPI_INT, 0, r->world), "sharing the unindexed datasets");
    if (rc != SCR_SUCCESS || count == 0) return rc;
    int *list = r->rank == 0 ? ids : calloc((size_t)count, sizeof(int));
    int *held = calloc((size_t)count, sizeof(int)), *any = calloc((size_t)count, sizeof(int));
    int *cached = NULL, ncached = 0;
    int lrc = list && held && any ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (lrc != SCR_SUCCESS) scr_err("out of memory checking %d dataset directories", count);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, lrc, SCR_ERR_NOMEM);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_mpi_check(MPI_Bcast(list, count, MPI_INT, 0, r->world),
                       "sharing the unindexed datasets");
    if (rc != SCR_SUCCESS) goto out;
    if (scr_filemap_list_datasets(r->map, &cached, &ncached) == SCR_SUCCESS)
        for (int i = 0; i < count; i++)
            for (int j = 0; j < ncached; j++) held[i] |= list[i] == cached[j];
    rc = scr_mpi_check(MPI_Allreduce(held, any, count, MPI_INT, MPI_MAX, r->world),
                       "finding cached datasets");
    if (rc != SCR_SUCCESS) goto out;
    int crc = SCR_SUCCESS;
    if (r->rank == 0) {
        /* rank 0 asks again, with what the cache holds left out */
        int k = 0;
        for (int i = 0; i < count; i++)
            if (any[i]) held[k++] = list[i];
        struct scr_index_rebuild_options ro = {
            .damaged = 1, .require = 1, .announce = 1, .cached = held, .ncached = k};
        struct scr_index_rebuild_report rep;
        crc = scr_index_rebuild(r->prefix, &ro, &rep);
        scr_index_rebuild_report_free(&rep);
    }
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, crc, SCR_ERR_NOTFOUND);
out:
    free(cached);
    if (r->rank != 0) free(list);
    free(held);
    free(any);
    return rc;
}

/* SCR_CACHE_PURGE or SCR_DISTRIBUTE=0: empty this node's cache. */
static int purge_cache(struct scr_run *r)
{
    int *ids = NULL, n = 0, rc = SCR_SUCCESS;
    if (scr_filemap_list_datasets(r->map, &ids, &n) == SCR_SUCCESS) {
        for (int i = 0; i < n; i++) {
            rc = scr_cache_delete_dataset(r, ids[i]);
            if (rc != SCR_SUCCESS) break;
        }
    }
    free(ids);
    return rc;
}

/* Rank 0: the prefix is this run's until SCR_Finalize, or the process dies.
 * A relaunched run of the same job waits a moment for its predecessor's
 * lock before it takes the prefix anyway. */
#define SAME_JOB_LOCK_WAIT_SECONDS 30
static int take_prefix(struct scr_run *r)
{
    struct scr_prefix_holder *me = &r->prefix_holder;
    char note[1024];
    snprintf(me->jobid, sizeof(me->jobid), "%s", r->jobid);
    snprintf(me->user, sizeof(me->user), "%s", r->user);
    snprintf(me->host, sizeof(me->host), "%s", r->node_name);
    me->pid = (long)getpid();
    me->since = (int64_t)time(NULL);
    me->released = 0;
    int rc =
        scr_prefix_lock_take(r->prefix, me, r->jobid_defaulted ? -1 : SAME_JOB_LOCK_WAIT_SECONDS,
                             &r->prefix_lock, note, sizeof(note));
    if (rc == SCR_SUCCESS && note[0] != '\0') scr_warn("%s", note);
    return rc;
}

/* SCR_Init once the prefix is ready: the cache, what the prefix's
 * unindexed dataset directories (rank 0: unindexed) allow, leftover output,
 * the newest ids. */
static int init_cache(struct scr_api *api, int *unindexed, int nunindexed)
{
    struct scr_run *r = api->run;
    int rc = scr_cache_create_dirs(r);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_cache_load_filemaps(r);
    if (rc != SCR_SUCCESS) return rc;
    /* how many nodes this run uses, for a relaunch's SCR_MIN_NODES default
     * (scr-run reads it on this node, where the batch script runs); only a
     * hint, so failing to write it stops nothing */
    if (r->rank == 0) write_nodes_file(r);
    note_run_nodes(r);

    if (r->params->cache_purge || !r->params->distribute) {
        rc = purge_cache(r);
        /* all ranks agree: */
        rc = scr_comm_agree(r->world, rc, SCR_ERR_IO);
        if (rc != SCR_SUCCESS) return rc;
    }
    struct scr_node_place node = {r->node_name, r->node_rank, r->node_ranks};
    rc = scr_reddescs_create(r->cfg, r->params, r->world, &node, &r->reddescs, &r->nreddescs);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_encoder_new(r, &r->encoder);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) return rc;
    if (r->node_rank == 0) write_job_file(r);
    rc = scr_cache_rebuild(r, &api->restart.id);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_unindexed(r, unindexed, nunindexed); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    rc = flush_leftover_output(api);
    if (rc != SCR_SUCCESS) return rc;
    return find_last_ids(api); /* all ranks agree */
}

/* What SCR_Config set, in this run over earlier ones (the application
 * layer as scr_config_load merged it with the app.conf read then), for the
 * runs after this one, which read it back as in SCR 3.1 (empty when
 * nothing is set). */
static int save_app_config(const struct scr_run *r)
{
    char *app = NULL;
    int rc = scr_path_join(r->prefix_scr, "app.conf", &app);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_config_save_app(r->cfg, app);
    free(app);
    return rc;
}

/* Rank 0: the prefix's .scr directory and lock, the record of SCR_Config,
 * SCR_PREFIX_PURGE, then the index (prepare_index; *out_ids as there). */
static int prepare_prefix(struct scr_run *r, int **out_ids, int *out_n)
{
    int rc = scr_mkdir_p(r->prefix_scr, 0700);
    if (rc != SCR_SUCCESS) return rc;
    rc = take_prefix(r);
    if (rc != SCR_SUCCESS) return rc;
    rc = save_app_config(r);
    if (rc != SCR_SUCCESS) return rc;
    if (r->params->prefix_purge) {
        purge_prefix(r);
        return SCR_SUCCESS;
    }
    return prepare_index(r, out_ids, out_n);
}

/* SCR_Init after the identity is known: the prefix and its index, then
 * init_cache. Collective; all ranks agree on the outcome. */
static int init_collective(struct scr_api *api)
{
    struct scr_run *r = api->run;
    int rc = SCR_SUCCESS;
    int *unindexed = NULL, nunindexed = 0; /* rank 0: dataset directories the index misses */
    if (r->rank == 0) rc = prepare_prefix(r, &unindexed, &nunindexed);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, rc, SCR_ERR_IO);
    if (rc == SCR_SUCCESS) rc = init_cache(api, unindexed, nunindexed);
    free(unindexed);
    return rc;
}

/* SCR_FLUSH_ON_RESTART and SCR_GLOBAL_RESTART: the checkpoint SCR_Init found
 * in cache is copied to the prefix unless it is there already; with
 * SCR_GLOBAL_RESTART the cache is then emptied, so that the restart reads
 * the prefix (SCR_Have_restart fetches). Collective; all ranks agree. */
static int restart_at_init(struct scr_api *api)
{
    struct scr_run *r = api->run;
    int on_restart = r->params->flush_on_restart, global = r->params->global_restart;
    int flushed = 1, rc = SCR_SUCCESS;
    if (!on_restart && !global) return SCR_SUCCESS;
    if (api->restart.id > 0) {
        rc = scr_flush_is_flushed(r, api->restart.id, &flushed); /* all ranks agree */
        if (rc != SCR_SUCCESS) return rc;
    }
    if (!flushed) {
        if (r->rank == 0)
            scr_dbg(1, "%s: flushing dataset %d from cache before the restart",
                    global ? "SCR_GLOBAL_RESTART" : "SCR_FLUSH_ON_RESTART", api->restart.id);
        api->dset_in_cache = 1;
        rc = scr_flush_dataset(r, api->restart.id, api->dset_in_cache); /* all ranks agree */
        if (rc != SCR_SUCCESS) {
            /* a full or hung prefix (the watchdog) must not cost the restart
             * its only copy: it is read from cache, as without the setting */
            if (r->rank == 0)
                scr_warn(
                    "%s: dataset %d could not be flushed (%s); the restart reads it from cache",
                    global ? "SCR_GLOBAL_RESTART" : "SCR_FLUSH_ON_RESTART", api->restart.id,
                    scr_strstatus(rc));
            return SCR_SUCCESS;
        }
    }
    if (!global) return SCR_SUCCESS;
    rc = purge_cache(r);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, rc, SCR_ERR_IO);
    if (rc != SCR_SUCCESS) return rc;
    if (r->rank == 0 && api->restart.id > 0)
        scr_dbg(1, "SCR_GLOBAL_RESTART: the restart reads from %s, not from cache", r->prefix);
    api->restart.id = 0;
    return SCR_SUCCESS;
}

struct drop_after {
    const char *name;
    int dropped;
};

/* Every dataset newer than the one called ctx->name leaves the index. */
static int drop_newer(scr_kvtree *index, void *ctx)
{
    struct drop_after *d = ctx;
    int id = 0, *ids = NULL, n = 0;
    if (scr_index_file_lookup_id(index, d->name, &id) != SCR_SUCCESS) return SCR_SUCCESS;
    int rc = scr_index_file_list_ids(index, &ids, &n);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < n; i++) {
        if (ids[i] <= id) continue;
        rc = scr_index_file_remove(index, ids[i]);
        if (rc != SCR_SUCCESS) goto out;
        d->dropped++;
    }
out:
    free(ids);
    return rc;
}

/* SCR_DROP_AFTER_CURRENT: once SCR_Current or SCR_CURRENT chose name, the
 * datasets the index lists after it are dropped (their files stay), so that
 * no later restart is offered them. Collective: rank 0 edits, all agree. */
int scr_init_drop_after_current(struct scr_run *r, const char *name)
{
    if (!r->params->drop_after_current || name == NULL) return SCR_SUCCESS;
    int rc = SCR_SUCCESS;
    if (r->rank == 0) {
        struct drop_after d = {name, 0};
        rc = scr_index_file_update(r->index_path, drop_newer, &d);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* no index: nothing to drop */
        if (rc == SCR_SUCCESS && d.dropped > 0)
            scr_warn("SCR_DROP_AFTER_CURRENT: dropped %d dataset%s newer than %s from %s",
                     d.dropped, d.dropped == 1 ? "" : "s", name, r->index_path);
    }
    /* all ranks agree: */
    return scr_comm_agree(r->world, rc, SCR_ERR_IO);
}

/* The init event: where a restart would come from as things stand (the
 * cache's newest intact checkpoint, else the prefix's newest usable one;
 * SCR_Current may still change it, and the fetch event says what was read). */
void scr_init_log(struct scr_api *api, double seconds)
{
    struct scr_run *r = api->run;
    if (r->rank != 0 || !scr_event_log_enabled(&r->events)) return;
    int id = api->restart.id;
    const char *source = "cache", *dname = NULL;
    char name[SCR_MAX_FILENAME];
    if (id == 0) {
        source = "none";
        if (r->params->fetch && scr_fetch_peek(r, &id, name, sizeof(name)) == SCR_SUCCESS &&
            id > 0) {
            source = "prefix";
            dname = name;
        }
    }
    struct scr_event_field fields[] = {SCR_EVENT_STR("restart_source", source),
                                       SCR_EVENT_INT("ranks", r->ranks),
                                       SCR_EVENT_INT("nodes", r->nodes)};
    scr_run_event(r, SCR_EVENT_INIT, SCR_EVENT_OK, id, dname, -1, seconds, NULL, fields, 3);
}

/* Rank 0: the configuration files, read into cfg and exported (*out_files,
 * a new tree) for the other ranks. */
static int read_config_files(scr_config *cfg, scr_kvtree **out_files)
{
    int rc = scr_config_load(cfg, NULL);
    if (rc != SCR_SUCCESS) return rc;
    return scr_config_export_files(cfg, out_files);
}

/* The configuration: rank 0 reads the files for everyone; each rank reads
 * its own environment (node names differ, for one). Collective; all ranks
 * agree on the outcome (SCR_ERR_FORMAT when some rank's is wrong). */
int scr_init_take_rank0_files(scr_config *cfg, const scr_kvtree *files, MPI_Comm comm, int rank,
                              const char *config)
{
    int rc = SCR_SUCCESS;
    if (rank != 0 && files != NULL) {
        /* a bad value in the environment every rank shares is reported once, by rank 0 */
        scr_log_set_quiet(1);
        rc = scr_config_load_with_files(cfg, files);
        scr_log_set_quiet(0);
        if (rc != SCR_SUCCESS && config != NULL)
            scr_err("SCR_Config('%s'): %s", config, scr_last_error());
        else if (rc != SCR_SUCCESS)
            scr_err("%s", scr_last_error());
    }
    /* all ranks agree: */
    return scr_comm_agree(comm, rc, SCR_ERR_FORMAT);
}

int scr_init_load_config(struct scr_run *r)
{
    scr_kvtree *files = NULL;
    int rc = SCR_SUCCESS;
    if (r->cfg == NULL)
        rc = SCR_ERR_NOMEM;
    else if (r->rank == 0)
        rc = read_config_files(r->cfg, &files);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, rc, SCR_ERR_FORMAT);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_comm_bcast_kvtree(&files, 0, r->world);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_init_take_rank0_files(r->cfg, files, r->world, r->rank, NULL); /* all ranks agree */
out:
    scr_kvtree_delete(files);
    return rc;
}

/* SCR_Init once the configuration is read and SCR is on: each rank's own
 * part (init_local), the node communicator and the paths, then the prefix
 * and the cache (init_collective), the restart and SCR_DROP_AFTER_CURRENT.
 * Collective; all ranks agree on the outcome (SCR_FAILURE when some rank's
 * own part failed). */
/* Under SMPI every rank shares one process: without SMPI's privatization
 * the ranks would share libscr's state too, and corrupt it. */
static int check_globals_are_private(const struct scr_run *r)
{
    int private = 1;
    if (!scr_mpi_is_simulated()) return SCR_SUCCESS;
    int rc = scr_mpi_globals_are_private(r->world, &private);
    if (rc != SCR_SUCCESS) return rc;
    if (private) return SCR_SUCCESS;
    if (r->rank == 0)
        scr_err("SimGrid's SMPI runs every rank in one process, and here the ranks share libscr's "
                "globals: "
                "run smpirun with --cfg=smpi/privatization:dlopen, with libscr linked into the "
                "application");
    return SCR_ERR_STATE;
}

int scr_init_start_run(struct scr_api *api)
{
    struct scr_run *r = api->run;
    int rc = check_globals_are_private(r); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    rc = init_local(api);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_comm_split_by_name(r->world, r->node_name, &r->node, &r->nodes);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_rank(r->node, &r->node_rank), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_size(r->node, &r->node_ranks), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    rc = set_paths(r);
    if (rc == SCR_SUCCESS && r->rank == 0)
        rc = scr_event_log_open(&r->events, &r->params->log, r->prefix_scr, r->jobid, r->user,
                                r->node_name);
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) return rc;
    rc = init_collective(api); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    rc = restart_at_init(api); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    return scr_init_drop_after_current(r, api->current_name); /* all ranks agree */
}
