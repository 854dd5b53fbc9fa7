/* run_cache.c — this node's cache: directories, filemaps, integrity, eviction. */
#include "run_cache.h"
#include "flush_file.h"
#include "job_dir.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "crc_note.h"
#include "meta.h"
#include "mpi_comm.h"
#include "reddesc.h"
#include "redundancy.h"
#include "run_events.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MASTER_KEY "Filemap"
#define TAG_FILEMAP 4701
/* encode_<node rank>.scrinfo: the filemap of an encode in the background (run_encode_async.c) */
#define ENCODE_MAP_PREFIX "encode_"
#define ENCODE_MAP_SUFFIX ".scrinfo"

double scr_run_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether dir, the job directory of store, may be made. A store whose
 * STORE line says MKDIR=0 is made by someone else (the site, a burst
 * buffer), as in SCR: SCR does not create it, so its path must exist, and
 * only the job's private levels are made in it. say: log why not. */
static int store_dir_may_be_made(const struct scr_run *run, const char *store, const char *dir,
                                 int say)
{
    int may_mkdir = 1;
    if (store != NULL)
        scr_kvtree_util_get_int(scr_store_entry(run->cfg, store), "MKDIR", &may_mkdir);
    if (may_mkdir) return SCR_SUCCESS;
    /* the store's own path is dir less <user>/scr.<jobid> (and sim.<node>) */
    char *user_dir = NULL, *base = NULL, *job_dir = NULL;
    struct stat st;
    int rc = run->sim_node[0] ? scr_path_dirname(dir, &job_dir) : SCR_SUCCESS;
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_dirname(job_dir ? job_dir : dir, &user_dir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_dirname(user_dir, &base);
    if (rc != SCR_SUCCESS) goto out;
    if (stat(base, &st) != 0) {
        if (say)
            scr_err("STORE=%s says MKDIR=0, so SCR does not create it, and %s: %s", store, base,
                    strerror(errno));
        rc = SCR_ERR_NOTFOUND;
    } else if (!S_ISDIR(st.st_mode)) {
        if (say)
            scr_err("STORE=%s says MKDIR=0, so SCR does not create it, and %s is not a directory",
                    store, base);
        rc = SCR_ERR_NOTFOUND;
    }
out:
    free(job_dir);
    free(user_dir);
    free(base);
    return rc;
}

/* Create dir, a job directory of this run (a simulated node's level too). */
static int create_job_dir(const struct scr_run *run, const char *dir)
{
    return run->sim_node[0] ? scr_job_dir_create_sim(dir) : scr_job_dir_create(dir);
}

/* Create dir, the job directory of store, when store_dir_may_be_made. */
static int create_store_dir(const struct scr_run *run, const char *store, const char *dir)
{
    int rc = store_dir_may_be_made(run, store, dir, 1);
    return rc == SCR_SUCCESS ? create_job_dir(run, dir) : rc;
}

/* The node's first rank: the control directory and the cache's job directory. */
static int create_node_dirs(const struct scr_run *run)
{
    const char *base = run->params->cache_base;
    int rc = create_job_dir(run, run->cntl_dir);
    if (rc != SCR_SUCCESS) return rc;
    return create_store_dir(run, base, run->cache_dir);
}

int scr_cache_create_dirs(struct scr_run *run)
{
    int rc = SCR_SUCCESS;
    /* the node's first rank creates; everyone waits for every node */
    if (run->node_rank == 0) rc = create_node_dirs(run);
    /* all ranks agree: */
    int arc = scr_comm_agree(run->world, rc, SCR_ERR_IO);
    if (arc == SCR_ERR_IO && run->rank == 0 && rc == SCR_SUCCESS)
        scr_err("another node could not create its control or cache directory");
    return arc;
}

/* NULL and "" stand for the cache base, however it is spelled. */
static int is_cache_base(const struct scr_run *run, const char *store)
{
    return store == NULL || store[0] == '\0' ||
           scr_store_is_cache_base(run->params->cache_base, store);
}

static int same_store(const struct scr_run *run, const char *a, const char *b)
{
    if (is_cache_base(run, a) || is_cache_base(run, b))
        return is_cache_base(run, a) && is_cache_base(run, b);
    const scr_kvtree *entry = scr_store_entry(run->cfg, a);
    return strcmp(a, b) == 0 || (entry != NULL && entry == scr_store_entry(run->cfg, b));
}

int scr_run_job_dir(const struct scr_run *run, const char *what, const char *base, char **out_dir)
{
    /* a simulated node's directories are inside the real node's job
     * directory: its name never reaches the base (job_dir.h) */
    if (!run->sim_node[0])
        return scr_job_dir_path(what, base, run->node_name, run->user, run->jobid, out_dir);
    char *job_dir = NULL;
    int rc = scr_job_dir_path(what, base, run->base_node, run->user, run->jobid, &job_dir);
    if (rc == SCR_SUCCESS) rc = scr_job_dir_sim_path(job_dir, run->sim_node, out_dir);
    free(job_dir);
    return rc;
}

int scr_cache_store_dir(const struct scr_run *run, const char *store, char **out_dir)
{
    if (is_cache_base(run, store)) {
        *out_dir = strdup(run->cache_dir);
        if (*out_dir == NULL) {
            scr_err("out of memory");
            return SCR_ERR_NOMEM;
        }
        return SCR_SUCCESS;
    }
    return scr_run_job_dir(run, "STORE", store, out_dir);
}

/* The store dataset id was cached in, from this rank's record (else from
 * any rank's this rank holds files for); NULL: the cache base. */
static const char *dataset_store(const struct scr_run *run, int id)
{
    const scr_kvtree *red = NULL;
    const char *store = NULL;
    if (scr_filemap_get_reddesc(run->map, id, run->rank, &red) == SCR_SUCCESS &&
        scr_kvtree_util_get_str(red, "STORE", &store) == SCR_SUCCESS)
        return store;
    for (scr_kvtree_elem *e = scr_filemap_first_rank_by_dataset(run->map, id); e;
         e = scr_kvtree_elem_next(e)) {
        int r = atoi(scr_kvtree_elem_key(e));
        if (scr_filemap_get_reddesc(run->map, id, r, &red) == SCR_SUCCESS &&
            scr_kvtree_util_get_str(red, "STORE", &store) == SCR_SUCCESS)
            return store;
    }
    return NULL;
}

int scr_cache_dataset_dir(const struct scr_run *run, int id, char **out_dir)
{
    char name[64], *top = NULL;
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    int rc = scr_cache_store_dir(run, dataset_store(run, id), &top);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_join(top, name, out_dir);
    free(top);
    return rc;
}

int scr_cache_prepare_dataset_dir(const struct scr_run *run, int id, char **out_dir)
{
    char *top = NULL, *dsdir = NULL;
    int rc = scr_cache_store_dir(run, dataset_store(run, id), &top);
    if (rc != SCR_SUCCESS) goto out;
    /* a store other than the cache base gets its job directory on first use,
     * from the node's first rank (the others' mkdir below cannot grant
     * anything: the directories they make are the user's and private) */
    const char *store = dataset_store(run, id);
    if (store == NULL) store = run->params->cache_base;
    if (run->node_rank == 0) rc = create_store_dir(run, store, top);
    /* the others make nothing where the first rank may not */
    else
        rc = store_dir_may_be_made(run, store, top, 0);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_cache_dataset_dir(run, id, &dsdir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_mkdir_p(dsdir, 0700);
    if (rc != SCR_SUCCESS) goto out;
    *out_dir = dsdir;
    dsdir = NULL;
out:
    free(top);
    free(dsdir);
    return rc;
}

int scr_cache_save_filemap(struct scr_run *run)
{
    return scr_filemap_write(run->filemap_path, run->map);
}

/* Path of the filemap of node rank i. */
static int filemap_path_of(const struct scr_run *run, int i, char **out_path)
{
    char name[64];
    snprintf(name, sizeof(name), "filemap_%d.scrinfo", i);
    return scr_path_join(run->cntl_dir, name, out_path);
}

/* The node's first rank: every filemap the master file lists, merged. */
static int read_node_filemaps(struct scr_run *run, scr_filemap *all, scr_kvtree *old_list)
{
    int rc = scr_kvtree_read_file(run->master_filemap_path, old_list);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS; /* a fresh node */
    if (rc != SCR_SUCCESS) {
        scr_warn("ignoring damaged %s: files it names stay until the cache is purged",
                 run->master_filemap_path);
        scr_kvtree_unset_all(old_list);
        return SCR_SUCCESS;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(old_list, MASTER_KEY)); e;
         e = scr_kvtree_elem_next(e)) {
        const char *path = scr_kvtree_elem_key(e);
        /* each file on its own, then merged: two ranks may tag one entry */
        scr_filemap *one = scr_filemap_new();
        if (one == NULL) return SCR_ERR_NOMEM;
        int frc = scr_filemap_read(path, one);
        if (frc != SCR_SUCCESS && frc != SCR_ERR_NOTFOUND)
            scr_warn("ignoring damaged filemap %s", path);
        int mrc = frc == SCR_SUCCESS ? scr_filemap_merge(all, one) : SCR_SUCCESS;
        scr_filemap_delete(one);
        if (mrc != SCR_SUCCESS) return mrc;
    }
    return SCR_SUCCESS;
}

int scr_cache_encode_filemap_path(const struct scr_run *run, char **out_path)
{
    char name[64];
    snprintf(name, sizeof(name), "%s%d%s", ENCODE_MAP_PREFIX, run->node_rank, ENCODE_MAP_SUFFIX);
    return scr_path_join(run->cntl_dir, name, out_path);
}

/* Whether name is the filemap of an encode in the background. */
static int is_encode_map_name(const char *name)
{
    size_t n = strlen(name), p = strlen(ENCODE_MAP_PREFIX), s = strlen(ENCODE_MAP_SUFFIX);
    return n > p + s && strncmp(name, ENCODE_MAP_PREFIX, p) == 0 &&
           strcmp(name + n - s, ENCODE_MAP_SUFFIX) == 0;
}

/* Remove the files an encode filemap at path lists that all does not (an
 * encode that never finished: its files are no one's), then the map. */
static void remove_unfinished_encode(const scr_filemap *all, const char *path)
{
    scr_filemap *map = scr_filemap_new();
    int *ids = NULL, nids = 0;
    if (map == NULL || scr_filemap_read(path, map) != SCR_SUCCESS ||
        scr_filemap_list_datasets(map, &ids, &nids) != SCR_SUCCESS)
        nids = 0;
    for (int i = 0; i < nids; i++) {
        int *ranks = NULL, nranks = 0;
        scr_filemap_list_ranks_by_dataset(map, ids[i], &ranks, &nranks);
        for (int r = 0; r < nranks; r++) {
            const char **files = NULL;
            int nfiles = 0;
            scr_filemap_list_files(map, ids[i], ranks[r], &files, &nfiles);
            for (int f = 0; f < nfiles; f++)
                if (!scr_filemap_have_file(all, ids[i], ranks[r], files[f]) &&
                    unlink(files[f]) != 0 && errno != ENOENT)
                    scr_warn("cannot remove %s, left by an unfinished encode: %s", files[f],
                             strerror(errno));
            free(files);
        }
        free(ranks);
    }
    free(ids);
    scr_filemap_delete(map);
    if (unlink(path) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s: %s", path, strerror(errno));
}

/* The node's first rank: what encodes in the background left when their
 * run died before the ranks agreed on them (all: the node's filemaps). */
static void remove_unfinished_encodes(struct scr_run *run, const scr_filemap *all)
{
    DIR *dir = opendir(run->cntl_dir);
    if (dir == NULL) return;
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL) {
        char *path = NULL;
        int whole = is_encode_map_name(ent->d_name);
        /* the temporary file of a write the end of the run cut short */
        int partial = !whole &&
                      strncmp(ent->d_name, ENCODE_MAP_PREFIX, strlen(ENCODE_MAP_PREFIX)) == 0 &&
                      strstr(ent->d_name, ENCODE_MAP_SUFFIX ".tmp.") != NULL;
        if ((!whole && !partial) || scr_path_join(run->cntl_dir, ent->d_name, &path) != SCR_SUCCESS)
            continue;
        scr_dbg(1, "removing what an unfinished encode left (%s)", path);
        if (whole)
            remove_unfinished_encode(all, path);
        else if (unlink(path) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", path, strerror(errno));
        free(path);
    }
    closedir(dir);
}

/* The node's first rank: record the filemaps of this run, remove older ones. */
static int write_master_list(struct scr_run *run, const scr_kvtree *old_list)
{
    scr_kvtree *list = scr_kvtree_new();
    if (list == NULL) return SCR_ERR_NOMEM;
    scr_kvtree *files = scr_kvtree_set(list, MASTER_KEY, scr_kvtree_new());
    int rc = files ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < run->node_ranks; i++) {
        char *path = NULL;
        rc = filemap_path_of(run, i, &path);
        if (rc == SCR_SUCCESS && scr_kvtree_set(files, path, scr_kvtree_new()) == NULL)
            rc = SCR_ERR_NOMEM;
        free(path);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_kvtree_write_file(run->master_filemap_path, list);
    if (rc != SCR_SUCCESS) goto out;
    /* filemaps of a larger earlier run: their entries now live in ours */
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(old_list, MASTER_KEY)); e;
         e = scr_kvtree_elem_next(e)) {
        const char *path = scr_kvtree_elem_key(e);
        if (scr_kvtree_get(files, path) == NULL && unlink(path) != 0 && errno != ENOENT)
            scr_warn("cannot remove old filemap %s: %s", path, strerror(errno));
    }
out:
    scr_kvtree_delete(list);
    return rc;
}

/* The node's first rank: each other rank of the node gets its own entries
 * from all, and run->map keeps the rest. status: what failed before. */
static int hand_out_entries(struct scr_run *run, scr_filemap *all, const int *granks, int status)
{
    for (int i = 1; i < run->node_ranks; i++) {
        /* the loop goes on after a failure, sending an empty record: every
         * rank of the node waits for its message */
        scr_filemap *part = NULL;
        if (status == SCR_SUCCESS) status = scr_filemap_extract_rank(all, granks[i], &part);
        int src =
            scr_comm_send_kvtree(status == SCR_SUCCESS ? part : NULL, i, TAG_FILEMAP, run->node);
        scr_filemap_delete(part);
        if (status == SCR_SUCCESS) status = src;
    }
    if (status != SCR_SUCCESS) return status;
    scr_filemap_clear(run->map);
    return scr_filemap_merge(run->map, all); /* our own entries and leftovers */
}

/* The other ranks of the node: their own entries, from the first rank. */
static int receive_entries(struct scr_run *run)
{
    scr_kvtree *part = NULL;
    int rc = scr_comm_recv_kvtree(0, TAG_FILEMAP, run->node, &part);
    if (rc != SCR_SUCCESS) goto out;
    scr_filemap_clear(run->map);
    rc = scr_filemap_merge(run->map, part);
out:
    scr_kvtree_delete(part);
    return rc;
}

/* The first rank hands each rank of the node its own entries (status: what
 * failed before), then every rank saves its filemap and the first rank the
 * list of them. An entry may move from the filemap file of one node rank to
 * another's (the ranks of a relaunch are not where they were), and a run
 * killed at any moment must leave it in one of them: the first rank's file
 * holds every entry of the node before any other rank saves (they save only
 * what they got from it), and drops theirs only once all of them saved and
 * the list names their files. Collective over the node. */
static int share_entries(struct scr_run *run, scr_filemap *all, const int *granks,
                         const scr_kvtree *old_list, int status)
{
    int rc = status;
    if (run->node_rank == 0 && rc == SCR_SUCCESS) rc = scr_filemap_write(run->filemap_path, all);
    rc = run->node_rank == 0 ? hand_out_entries(run, all, granks, rc) : receive_entries(run);
    if (rc == SCR_SUCCESS && run->node_rank != 0) rc = scr_cache_save_filemap(run);
    int saved = 0;
    /* all ranks of the node agree: */
    int arc = scr_comm_all_true(rc == SCR_SUCCESS, run->node, &saved);
    if (arc != SCR_SUCCESS) return arc;
    if (!saved) return rc != SCR_SUCCESS ? rc : SCR_FAILURE;
    if (run->node_rank != 0) return SCR_SUCCESS;
    /* the list names the files of this run before the first rank's file
     * stops holding what the others now hold */
    rc = write_master_list(run, old_list);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

/* The CRCs a CRC thread noted (run_crc_async.c) for files whose run ended
 * before its rank recorded them. */
static void take_noted_crcs(const struct scr_run *run, scr_filemap *all)
{
    int taken = scr_crc_note_take(run->cntl_dir, all, 1);
    if (taken > 0) scr_dbg(1, "took %d CRC(s) an earlier run noted in %s", taken, run->cntl_dir);
}

int scr_cache_load_filemaps(struct scr_run *run)
{
    int rc = SCR_SUCCESS;
    int *granks = NULL;
    scr_filemap *all = NULL;
    scr_kvtree *old_list = NULL;
    if (run->node_rank == 0) {
        granks = malloc((size_t)run->node_ranks * sizeof(int));
        all = scr_filemap_new();
        old_list = scr_kvtree_new();
        if (granks == NULL || all == NULL || old_list == NULL)
            rc = SCR_ERR_NOMEM;
        else
            rc = read_node_filemaps(run, all, old_list);
        if (rc == SCR_SUCCESS) remove_unfinished_encodes(run, all);
        if (rc == SCR_SUCCESS) take_noted_crcs(run, all);
    }
    /* the first rank gathers and hands out even after a failure of its own:
     * the node's other ranks wait for it */
    int grc = scr_mpi_check(MPI_Gather(&run->rank, 1, MPI_INT, granks, 1, MPI_INT, 0, run->node),
                            "gathering the ranks of this node");
    rc = share_entries(run, all, granks, old_list, rc != SCR_SUCCESS ? rc : grc);
    free(granks);
    scr_filemap_delete(all);
    scr_kvtree_delete(old_list);
    /* all ranks agree: */
    return scr_comm_agree(run->world, rc, SCR_FAILURE);
}

/* Remove the directories between path's directory and top that are now empty. */
static void remove_empty_dirs(const char *path, const char *top)
{
    char *dir = NULL;
    if (scr_path_dirname(path, &dir) != SCR_SUCCESS) return;
    for (;;) {
        int inside = 0;
        if (scr_path_is_inside(top, dir, &inside) != SCR_SUCCESS || !inside) break;
        if (rmdir(dir) != 0) break; /* not empty (another rank's files) or gone */
        if (strcmp(dir, top) == 0) break;
        char *up = NULL;
        if (scr_path_dirname(dir, &up) != SCR_SUCCESS) break;
        free(dir);
        dir = up;
    }
    free(dir);
}

/* SCR_CRC_ON_DELETE: a file held for rank whose bytes no longer match its
 * recorded CRC is reported before it goes; the delete goes on either way. */
static void check_before_delete(struct scr_run *run, int id, int rank, const char *file)
{
    const scr_meta *meta = NULL;
    uint32_t recorded = 0, got = 0;
    if (scr_filemap_get_meta(run->map, id, rank, file, &meta) != SCR_SUCCESS ||
        !scr_meta_is_complete(meta) || scr_meta_get_crc32(meta, &recorded) != SCR_SUCCESS)
        return; /* nothing recorded to compare with */
    if (scr_crc_file_l2(file, &got, NULL) == SCR_SUCCESS && got != recorded)
        scr_redundancy_say_damaged(run->map, run->rank, id, rank, file,
                                   ", checked before its deletion from cache (SCR_CRC_ON_DELETE),",
                                   got, recorded);
}

int scr_cache_delete_dataset(struct scr_run *run, int id)
{
    char *dsdir = NULL;
    int rc = scr_cache_dataset_dir(run, id, &dsdir);
    if (rc != SCR_SUCCESS) return rc;
    int *ranks = NULL, nranks = 0;
    rc = scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &nranks);
    for (int r = 0; rc == SCR_SUCCESS && r < nranks; r++) {
        const char **files = NULL;
        int nfiles = 0;
        rc = scr_filemap_list_files(run->map, id, ranks[r], &files, &nfiles);
        for (int f = 0; rc == SCR_SUCCESS && f < nfiles; f++) {
            /* a dataset written in place lives on the prefix: never delete there */
            int in_cache = 0;
            scr_path_is_inside(dsdir, files[f], &in_cache);
            if (!in_cache) continue;
            if (run->params->crc_on_delete) check_before_delete(run, id, ranks[r], files[f]);
            if (unlink(files[f]) != 0 && errno != ENOENT)
                scr_warn("cannot delete %s from cache: %s", files[f], strerror(errno));
            remove_empty_dirs(files[f], dsdir);
        }
        free(files);
    }
    free(ranks);
    if (rmdir(dsdir) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
        scr_warn("cannot remove %s: %s", dsdir, strerror(errno));
    free(dsdir);
    if (rc != SCR_SUCCESS) return rc;
    /* the entries go only after the files, so a crash leaves no unnamed file */
    rc = scr_filemap_remove_dataset(run->map, id);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

/* Number of datasets of this rank's map kept in store, and the oldest of
 * them (INT_MAX if none). */
static int count_datasets(const struct scr_run *run, const char *store, int *out_count,
                          int *out_oldest)
{
    int *ids = NULL, n = 0;
    *out_count = 0;
    *out_oldest = INT_MAX;
    int rc = scr_filemap_list_datasets(run->map, &ids, &n);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        if (!same_store(run, dataset_store(run, ids[i]), store)) continue;
        (*out_count)++;
        if (ids[i] < *out_oldest) *out_oldest = ids[i];
    }
    free(ids);
    return rc;
}

/* How many datasets store keeps: COUNT of its STORE line, else SCR_CACHE_SIZE
 * for the cache base and 1 for any other store. */
static int store_capacity(const struct scr_run *run, const char *store)
{
    int count = 0;
    if (scr_kvtree_util_get_int(scr_store_entry(run->cfg, store), "COUNT", &count) == SCR_SUCCESS)
        return count;
    return is_cache_base(run, store) ? run->params->cache_size : 1;
}

int scr_cache_make_room(struct scr_run *run, const char *store)
{
    int capacity = store_capacity(run, store);
    for (;;) {
        int count, oldest, global_oldest = INT_MAX;
        int crc = count_datasets(run, store, &count, &oldest);
        /* the most datasets any rank has there, and whether any rank failed to count */
        int mine[2] = {count, crc != SCR_SUCCESS}, most[2] = {0, 0};
        int rc = scr_mpi_check(MPI_Allreduce(mine, most, 2, MPI_INT, MPI_MAX, run->world),
                               "counting datasets in cache");
        if (rc == SCR_SUCCESS)
            rc = scr_mpi_check(
                MPI_Allreduce(&oldest, &global_oldest, 1, MPI_INT, MPI_MIN, run->world),
                "finding the oldest dataset in cache");
        if (rc != SCR_SUCCESS) return rc;
        if (most[1]) return SCR_ERR_NOMEM;
        if (most[0] < capacity || global_oldest == INT_MAX) return SCR_SUCCESS;
        scr_dbg(1, "store %s full (%d datasets): deleting dataset %d", store, most[0],
                global_oldest);
        /* the event names the dataset before its record goes */
        const scr_dataset *gone = NULL;
        const char *gone_name = NULL;
        char name[1024] = "";
        if (run->rank == 0 &&
            scr_filemap_get_dataset(run->map, global_oldest, run->rank, &gone) == SCR_SUCCESS &&
            scr_dataset_get_name(gone, &gone_name) == SCR_SUCCESS)
            snprintf(name, sizeof(name), "%s", gone_name);
        int drc = scr_cache_delete_dataset(run, global_oldest);
        /* the flush file keeps whether it reached the prefix, not that it is cached */
        int flushed = 0;
        scr_kvtree *flush = run->node_rank == 0 ? scr_kvtree_new() : NULL;
        if (flush != NULL && scr_flush_file_read(run->flush_path, flush) == SCR_SUCCESS)
            scr_flush_file_has_location(flush, global_oldest, SCR_FLUSH_LOCATION_PFS, &flushed);
        scr_kvtree_delete(flush);
        int nrc = scr_cache_note_location(run, global_oldest, 0, flushed, 0);
        if (drc == SCR_SUCCESS) drc = nrc;
        int ok = 0;
        rc = scr_comm_all_true(drc == SCR_SUCCESS, run->world, &ok);
        if (rc != SCR_SUCCESS) return rc;
        struct scr_event_field fields[] = {SCR_EVENT_STR("store", store ? store : ""),
                                           SCR_EVENT_INT("flushed", flushed)};
        scr_run_event(run, SCR_EVENT_EVICT, ok ? SCR_EVENT_OK : SCR_EVENT_FAILED, global_oldest,
                      name[0] ? name : NULL, -1, -1,
                      ok ? NULL : "its files could not all be deleted", fields, 2);
        if (!ok) return SCR_ERR_IO;
    }
}

int scr_cache_would_evict(struct scr_run *run, const char *store, int id, struct scr_eviction *out)
{
    int capacity = store_capacity(run, store);
    int *ids = NULL, n = 0, count = 0, older = 0, holds = 0;
    int rc = scr_filemap_list_datasets(run->map, &ids, &n);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        if (!same_store(run, dataset_store(run, ids[i]), store)) continue;
        count++;
        if (ids[i] < id) older++;
        if (ids[i] == id) holds = 1;
    }
    free(ids);
    /* make room deletes the oldest until capacity - 1 are left */
    int deleted = count >= capacity ? count - capacity + 1 : 0;
    int left = older > deleted ? older - deleted : 0;
    /* the most any rank says: a rank that could not count says the worst */
    int mine[3] = {rc != SCR_SUCCESS || (holds && deleted > older), older > 0,
                   rc != SCR_SUCCESS || left == 0};
    int any[3] = {0, 0, 0};
    int mrc = scr_mpi_check(MPI_Allreduce(mine, any, 3, MPI_INT, MPI_MAX, run->world),
                            "finding what leaves the cache");
    if (mrc != SCR_SUCCESS) return mrc;
    out->evicts_id = any[0];
    out->older_now = any[1];
    out->no_older_left = any[2];
    return SCR_SUCCESS;
}

/* Is one listed file complete and of its recorded size? Reports what differs
 * at debug level 1. Its bytes are checked against its CRC where they are
 * read: by a restart (run_crc_async.c), before a rebuild
 * (scr_crc_check_held), and as the copies and rebuilds write them. */
static int file_is_intact(const char *file, const scr_meta *meta)
{
    uint64_t want = 0;
    struct stat st;
    if (!scr_meta_is_complete(meta) || scr_meta_get_filesize(meta, &want) != SCR_SUCCESS) {
        scr_dbg(1, "%s was not completely written, or is damaged", file);
        return 0;
    }
    if (stat(file, &st) != 0 || (uint64_t)st.st_size != want) {
        scr_dbg(1, "%s: %s", file, errno == ENOENT ? "missing" : "wrong size");
        return 0;
    }
    return 1;
}

int scr_cache_rank_is_intact(struct scr_run *run, int id)
{
    const scr_dataset *desc = NULL;
    int complete = 0, expected = -1;
    if (scr_filemap_get_dataset(run->map, id, run->rank, &desc) != SCR_SUCCESS ||
        scr_dataset_get_complete(desc, &complete) != SCR_SUCCESS || !complete)
        return 0;
    if (scr_filemap_get_expected_files(run->map, id, run->rank, &expected) != SCR_SUCCESS ||
        expected != scr_filemap_num_files(run->map, id, run->rank))
        return 0;
    const char **files = NULL;
    int nfiles = 0, ok = 1;
    if (scr_filemap_list_files(run->map, id, run->rank, &files, &nfiles) != SCR_SUCCESS) return 0;
    for (int f = 0; ok && f < nfiles; f++) {
        const scr_meta *meta = NULL;
        ok = scr_filemap_get_meta(run->map, id, run->rank, files[f], &meta) == SCR_SUCCESS &&
             file_is_intact(files[f], meta);
    }
    free(files);
    return ok;
}

int scr_cache_dataset_is_intact(struct scr_run *run, int id, int *out_intact)
{
    return scr_comm_all_true(scr_cache_rank_is_intact(run, id), run->world, out_intact);
}

int scr_cache_next_dataset(struct scr_run *run, int below, int *out_id)
{
    int *ids = NULL, n = 0, mine = 0;
    if (scr_filemap_list_datasets(run->map, &ids, &n) != SCR_SUCCESS) n = 0;
    for (int i = 0; i < n; i++)
        if (ids[i] < below && ids[i] > mine) mine = ids[i];
    free(ids);
    return scr_mpi_check(MPI_Allreduce(&mine, out_id, 1, MPI_INT, MPI_MAX, run->world),
                         "listing datasets in cache");
}

int scr_cache_id_of_name(const struct scr_run *run, const char *name, int checkpoints_only)
{
    int *ids = NULL, n = 0, found = 0;
    if (scr_filemap_list_datasets(run->map, &ids, &n) != SCR_SUCCESS) return 0;
    for (int i = 0; i < n && !found; i++) {
        const scr_dataset *desc = NULL;
        const char *dname = NULL;
        if (scr_filemap_get_dataset(run->map, ids[i], run->rank, &desc) == SCR_SUCCESS &&
            scr_dataset_get_name(desc, &dname) == SCR_SUCCESS && strcmp(dname, name) == 0 &&
            (!checkpoints_only || scr_dataset_is_checkpoint(desc)))
            found = ids[i];
    }
    free(ids);
    return found;
}

/* Dataset id's entry in the flush file's tree: where it is, its name, its
 * checkpoint id and whether it is output. */
static int set_flush_entry(const struct scr_run *run, scr_kvtree *flush, int id, int in_cache,
                           int on_prefix, int flushing)
{
    const scr_dataset *desc = NULL;
    const char *name = NULL;
    int ckpt = 0, rc = SCR_SUCCESS;
    scr_filemap_get_dataset(run->map, id, run->rank, &desc);
    struct {
        int on;
        enum scr_flush_location loc;
    } want[] = {
        {in_cache, SCR_FLUSH_LOCATION_CACHE},
        {on_prefix, SCR_FLUSH_LOCATION_PFS},
        {flushing, SCR_FLUSH_LOCATION_FLUSHING},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        rc = want[i].on ? scr_flush_file_set_location(flush, id, want[i].loc)
                        : scr_flush_file_unset_location(flush, id, want[i].loc);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_dataset_get_name(desc, &name) == SCR_SUCCESS) {
        rc = scr_flush_file_set_name(flush, id, name);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_dataset_get_ckpt(desc, &ckpt) == SCR_SUCCESS) {
        rc = scr_flush_file_set_checkpoint_id(flush, id, ckpt);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_dataset_is_output(desc)) return scr_flush_file_set_output(flush, id, 1);
    return SCR_SUCCESS;
}

int scr_cache_note_location(struct scr_run *run, int id, int in_cache, int on_prefix, int flushing)
{
    if (run->node_rank != 0) return SCR_SUCCESS;
    scr_kvtree *flush = scr_kvtree_new();
    if (flush == NULL) return SCR_ERR_NOMEM;
    int rc = scr_flush_file_read(run->flush_path, flush);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS;
    if (rc != SCR_SUCCESS) { /* a damaged flush file only costs its history */
        scr_warn("rewriting damaged %s", run->flush_path);
        scr_kvtree_unset_all(flush);
        rc = SCR_SUCCESS;
    }
    if (!in_cache && !on_prefix && !flushing)
        rc = scr_flush_file_remove_dataset(flush, id);
    else
        rc = set_flush_entry(run, flush, id, in_cache, on_prefix, flushing);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_flush_file_write(run->flush_path, flush);
out:
    scr_kvtree_delete(flush);
    return rc;
}

int scr_cache_is_app_file(const struct scr_run *run, int id, const char *file)
{
    const scr_meta *meta = NULL;
    if (scr_filemap_get_meta(run->map, id, run->rank, file, &meta) != SCR_SUCCESS) return 1;
    return scr_meta_check_filetype(meta, SCR_META_TYPE_FULL) == SCR_SUCCESS;
}
