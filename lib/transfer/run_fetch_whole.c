/* run_fetch_whole.c — a restart on another number of ranks: any rank may
 * read any file of the checkpoint.
 *
 * A checkpoint written by N ranks cannot be handed out rank by rank to a
 * run of M != N ranks, so it is not fetched into cache. Instead, when the
 * restart is decided (scr_fetch_whole_prepare), rank 0 reads the dataset's
 * summary on the prefix and checks that every file it lists is there with
 * its recorded size; every rank then gets the list of all files (their
 * paths on the prefix, sizes and CRCs), and the ranks of each node pool
 * what the node's cache still holds of the dataset (the files of the
 * earlier run's ranks that ran there, which SCR_Init keeps for this).
 *
 * SCR_Route_file (scr_fetch_whole_route) resolves a name, the path the
 * application wrote the file at or its bare name when no other file of the
 * dataset has that name, to this node's cached copy when there is one of
 * the recorded size, else to the file on the prefix, read in place (or,
 * when the prefix holds it compressed, SCR_FLUSH_COMPRESS, expanded into
 * this rank's part of the cache, listed in its filemap first). The
 * first route of a file checks its CRC when one is recorded (a cached copy
 * that fails falls back to the prefix); a file whose bytes do not check is
 * an error of that route, and the application's SCR_Complete_restart(0)
 * then marks the checkpoint failed, as for any restart.
 *
 * Only a checkpoint on the prefix is restarted this way: a dataset held
 * only by the node caches of the earlier run cannot be reached by every
 * rank of this one (SCR_Init says so when it finds one). */
#include "dataset_view.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "rank_filemap.h"
#include "run_cache.h"
#include "scr_err.h"
#include "scan_scr31.h"
#include "scr_run.h"
#include "summary.h"
#include "transfer.h"
#include "util_copy.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAG_WHOLE_NODE 4705
#define KEY_WHOLE "WHOLE" /* WHOLE/<path on the prefix>/{SIZE, CRC, CACHE, CHECKED} */
#define KEY_HELD "HELD"   /* HELD/<path on the prefix>/CACHE <path in this node's cache> */
#define KEY_SIZE "SIZE"
#define KEY_CRC "CRC"
#define KEY_CACHE "CACHE"
#define KEY_CHECKED "CHECKED"
#define KEY_COMPRESSED "COMPRESSED" /* bytes of the gzip file on the prefix */
#define KEY_ERROR "ERROR"

/* Rank 0: one file of the summary (rank r, name relative to dsdir) into
 * whole, after checking it is under the prefix (rank_filemap.h), there, with its size. */
static int add_listed_file(const scr_kvtree *summary, int r, const char *name, const char *dsdir,
                           scr_kvtree *whole)
{
    uint64_t size = 0, stored = 0;
    uint32_t crc = 0;
    char *path = NULL;
    int rc = scr_summary_get_file_size(summary, r, name, &size);
    if (rc != SCR_SUCCESS) return rc;
    int gzip = scr_summary_get_file_compressed(summary, r, name, &stored) == SCR_SUCCESS;
    char *record = NULL;
    rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &record);
    if (rc == SCR_SUCCESS)
        rc = scr_rank_filemap_file_path(dsdir, name, record, &path); /* held to the prefix */
    free(record);
    if (rc != SCR_SUCCESS) return rc;
    struct stat st;
    if (stat(path, &st) != 0) {
        scr_err("restart file %s (rank %d of the run that wrote it) is missing: %s", path, r,
                strerror(errno));
        rc = SCR_ERR_NOTFOUND;
    } else if ((uint64_t)st.st_size != (gzip ? stored : size)) {
        scr_err("restart file %s has %llu bytes, %llu were %s", path,
                (unsigned long long)st.st_size, (unsigned long long)(gzip ? stored : size),
                gzip ? "stored compressed" : "written");
        rc = SCR_ERR_FORMAT;
    } else {
        scr_kvtree *file = scr_kvtree_set_kv(whole, KEY_WHOLE, path);
        rc = file != NULL ? scr_kvtree_util_set_uint64(file, KEY_SIZE, size) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS && gzip)
            rc = scr_kvtree_util_set_uint64(file, KEY_COMPRESSED, stored);
        if (rc == SCR_SUCCESS && scr_summary_get_file_crc(summary, r, name, &crc) == SCR_SUCCESS)
            rc = scr_kvtree_util_set_crc32(file, KEY_CRC, crc);
    }
    free(path);
    return rc;
}

/* Rank 0: every file of dataset id on the prefix, checked to be there, in whole. */
static int list_whole_dataset(const struct scr_run *run, int id, scr_kvtree *whole)
{
    char name[64], *dsdir = NULL, *path = NULL;
    int *ranks = NULL, nranks = 0;
    scr_kvtree *summary = scr_kvtree_new();
    if (summary == NULL) return SCR_ERR_NOMEM;
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    int rc = scr_path_join(run->prefix_scr, name, &dsdir);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path);
    if (rc == SCR_SUCCESS) rc = scr_summary_read(path, summary);
    if (rc == SCR_ERR_NOTFOUND) scr_err("%s is missing", path);
    if (rc == SCR_SUCCESS)
        rc = scr_scan_scr31_complete_summary(dsdir, summary); /* SCR 3.1 lists files apart */
    if (rc == SCR_SUCCESS) rc = scr_summary_list_ranks(summary, &ranks, &nranks);
    for (int i = 0; rc == SCR_SUCCESS && i < nranks; i++) {
        const char **files = NULL;
        int n = 0;
        rc = scr_summary_list_files(summary, ranks[i], &files, &n);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* a rank without files */
        for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
            int nofetch = 0;
            scr_summary_get_file_nofetch(summary, ranks[i], files[f], &nofetch);
            if (!nofetch) rc = add_listed_file(summary, ranks[i], files[f], dsdir, whole);
        }
        free(files);
    }
    free(ranks);
    free(path);
    free(dsdir);
    scr_kvtree_delete(summary);
    return rc;
}

/* The application files of dataset id this rank's filemap lists (its own
 * and, on a node's first rank, those of earlier ranks no one runs as now),
 * by their paths on the prefix, in held. */
static int list_held_files(const struct scr_run *run, int id, scr_kvtree *held)
{
    int *ranks = NULL, nranks = 0;
    int rc = scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &nranks);
    for (int i = 0; rc == SCR_SUCCESS && i < nranks; i++) {
        struct scr_dataset_view *view = NULL;
        rc = scr_dataset_view_of(run->map, id, ranks[i], &view);
        for (int f = 0; rc == SCR_SUCCESS && f < view->nfiles; f++) {
            const struct scr_dataset_view_file *file = &view->files[f];
            char *path = NULL;
            if (file->meta == NULL || !file->complete || !file->is_app_file || file->name == NULL)
                continue;
            rc = scr_path_join(run->prefix, file->name, &path);
            scr_kvtree *entry = rc == SCR_SUCCESS ? scr_kvtree_set_kv(held, KEY_HELD, path) : NULL;
            if (rc == SCR_SUCCESS &&
                (entry == NULL ||
                 scr_kvtree_util_set_str(entry, KEY_CACHE, file->path) != SCR_SUCCESS))
                rc = SCR_ERR_NOMEM;
            free(path);
        }
        scr_dataset_view_free(view);
    }
    free(ranks);
    return rc;
}

/* What every rank of the node holds of dataset id, pooled on every rank of
 * the node (rc: what failed before; the exchange happens anyway). */
static int pool_node_files(struct scr_run *run, int id, int rc, scr_kvtree **out_held)
{
    scr_kvtree *held = scr_kvtree_new();
    if (held == NULL) return SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = list_held_files(run, id, held);
    if (run->node_rank == 0) {
        for (int i = 1; i < run->node_ranks; i++) {
            scr_kvtree *part = NULL;
            int rrc = scr_comm_recv_kvtree(i, TAG_WHOLE_NODE, run->node, &part);
            if (rrc == SCR_SUCCESS && scr_kvtree_merge(held, part) != SCR_SUCCESS)
                rrc = SCR_ERR_NOMEM;
            scr_kvtree_delete(part);
            if (rc == SCR_SUCCESS) rc = rrc;
        }
    } else {
        int src = scr_comm_send_kvtree(held, 0, TAG_WHOLE_NODE, run->node);
        if (rc == SCR_SUCCESS) rc = src;
    }
    int brc = scr_comm_bcast_kvtree(&held, 0, run->node);
    if (rc == SCR_SUCCESS) rc = brc;
    if (rc == SCR_SUCCESS)
        *out_held = held;
    else
        scr_kvtree_delete(held);
    return rc;
}

int scr_fetch_whole_prepare(struct scr_run *run, struct scr_restart *rs, int id, int *out_ok)
{
    *out_ok = 0;
    scr_kvtree *whole = scr_kvtree_new(), *held = NULL;
    int rc = whole != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (run->rank == 0) {
        if (rc == SCR_SUCCESS) rc = list_whole_dataset(run, id, whole);
        if (rc != SCR_SUCCESS && whole != NULL) {
            scr_kvtree_unset_all(whole);
            scr_kvtree_util_set_int(whole, KEY_ERROR, 1);
        }
    }
    int brc = scr_comm_bcast_kvtree(&whole, 0, run->world);
    if (brc == SCR_SUCCESS && scr_kvtree_get(whole, KEY_ERROR) != NULL) rc = SCR_FAILURE;
    if (rc == SCR_SUCCESS) rc = brc;
    rc = pool_node_files(run, id, rc, &held);
    /* a cached copy counts only where it is a file of the dataset */
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(held ? scr_kvtree_get(held, KEY_HELD) : NULL);
         rc == SCR_SUCCESS && e; e = scr_kvtree_elem_next(e)) {
        scr_kvtree *file = scr_kvtree_get_kv(whole, KEY_WHOLE, scr_kvtree_elem_key(e));
        const char *cached = NULL;
        if (file != NULL &&
            scr_kvtree_util_get_str(scr_kvtree_elem_hash(e), KEY_CACHE, &cached) == SCR_SUCCESS)
            rc = scr_kvtree_util_set_str(file, KEY_CACHE, cached);
    }
    scr_kvtree_delete(held);
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, out_ok);
    if (mrc == SCR_SUCCESS && *out_ok) {
        scr_kvtree_unset_all(rs->files);
        if (scr_kvtree_merge(rs->files, whole) != SCR_SUCCESS) mrc = SCR_ERR_NOMEM;
    }
    scr_kvtree_delete(whole);
    return mrc;
}

/* Whether path holds size bytes whose CRC (when crc is not NULL and CRCs
 * are on) is *crc; what is wrong is reported, naming what. */
static int bytes_check(const struct scr_run *run, const char *path, uint64_t size,
                       const uint32_t *crc, const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0 || (uint64_t)st.st_size != size) {
        scr_warn("%s %s is %s", what, path, stat(path, &st) != 0 ? "missing" : "of the wrong size");
        return 0;
    }
    if (crc == NULL || !run->params->crc_on_flush) return 1;
    void *buf = malloc(run->params->file_buf_size);
    struct scr_copy_result got = {0};
    int ok = buf != NULL &&
             scr_crc_file(path, buf, run->params->file_buf_size, &got) == SCR_SUCCESS &&
             got.bytes == size && got.crc == *crc;
    if (buf != NULL && !ok)
        scr_warn("%s %s is damaged: CRC32 0x%08x, recorded 0x%08x", what, path, got.crc, *crc);
    free(buf);
    return ok;
}

/* The prefix's gzip file path (size bytes once expanded, crc: their CRC
 * when recorded), expanded into this rank's part of the cache of dataset
 * id (the restart's) and listed in its filemap before it exists;
 * *out_dest: where. */
static int expand_into_cache(struct scr_run *run, int id, const char *path, uint64_t size,
                             const uint32_t *crc, char **out_dest)
{
    char *dsdir = NULL, *rel = NULL, *mine = NULL, *dest = NULL, sub[64];
    struct scr_copy_result got = {0};
    void *buf = malloc(run->params->file_buf_size);
    int rc = buf != NULL ? scr_cache_dataset_dir(run, id, &dsdir) : SCR_ERR_NOMEM;
    /* two ranks of a node may read one file: each expands its own */
    snprintf(sub, sizeof(sub), "expanded.%d", run->rank);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, sub, &mine);
    if (rc == SCR_SUCCESS) rc = scr_path_relative(run->prefix, path, &rel);
    if (rc == SCR_SUCCESS) rc = scr_path_join(mine, rel, &dest);
    int listed = 0;
    if (rc == SCR_SUCCESS) rc = scr_filemap_add_file(run->map, id, run->rank, dest);
    if (rc == SCR_SUCCESS) listed = 1;
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    if (rc == SCR_SUCCESS)
        rc = scr_copy(path, dest,
                      &(struct scr_copy_opts){.buf = buf,
                                              .bufsize = run->params->file_buf_size,
                                              .crc = 1,
                                              .form = SCR_COPY_GUNZIP},
                      &got);
    if (rc == SCR_SUCCESS && got.bytes != size) {
        scr_warn("restart file %s expands to %llu bytes, %llu were written", path,
                 (unsigned long long)got.bytes, (unsigned long long)size);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS && crc != NULL && run->params->crc_on_flush && got.crc != *crc) {
        scr_warn("restart file %s is damaged: CRC32 0x%08x of its expanded bytes, recorded 0x%08x",
                 path, got.crc, *crc);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS) {
        *out_dest = dest;
        dest = NULL;
    } else if (listed) { /* what did not check is not kept */
        if (unlink(dest) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", dest, strerror(errno));
        if (scr_filemap_remove_file(run->map, id, run->rank, dest) == SCR_SUCCESS)
            scr_cache_save_filemap(run);
    }
    free(buf);
    free(dsdir);
    free(mine);
    free(rel);
    free(dest);
    return rc;
}

/* The entry of the restart's file the application calls name (abs: as an
 * absolute path), by path first, then by bare name when no other file has it. */
static int find_entry(const struct scr_restart *rs, const char *name, const char *abs,
                      scr_kvtree_elem **out)
{
    scr_kvtree *files = scr_kvtree_get(rs->files, KEY_WHOLE);
    *out = NULL;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(files); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), abs) == 0) {
            *out = e;
            return SCR_SUCCESS;
        }
    if (strchr(name, '/') != NULL) return SCR_ERR_NOTFOUND;
    int matches = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(files); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e), *slash = strrchr(key, '/');
        if (strcmp(slash != NULL ? slash + 1 : key, name) == 0 && matches++ == 0) *out = e;
    }
    if (matches > 1) {
        scr_err("SCR_Route_file: %d files of checkpoint %s are called %s; give the path it was "
                "written at",
                matches, rs->name, name);
        *out = NULL;
        return SCR_ERR_ARG;
    }
    return *out != NULL ? SCR_SUCCESS : SCR_ERR_NOTFOUND;
}

int scr_fetch_whole_route(struct scr_run *run, struct scr_restart *rs, const char *name,
                          const char *abs, char **out_path)
{
    scr_kvtree_elem *e = NULL;
    int rc = find_entry(rs, name, abs, &e);
    if (rc == SCR_ERR_NOTFOUND)
        scr_err("SCR_Route_file: checkpoint %s has no file %s", rs->name, name);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *file = scr_kvtree_elem_hash(e);
    const char *prefix_path = scr_kvtree_elem_key(e), *cached = NULL, *chosen = NULL;
    uint64_t size = 0, stored = 0;
    uint32_t crc = 0;
    int checked = 0;
    char *expanded = NULL;
    rc = scr_kvtree_util_get_uint64(file, KEY_SIZE, &size);
    if (rc != SCR_SUCCESS) return rc;
    int gzip = scr_kvtree_util_get_uint64(file, KEY_COMPRESSED, &stored) == SCR_SUCCESS;
    const uint32_t *want =
        scr_kvtree_util_get_crc32(file, KEY_CRC, &crc) == SCR_SUCCESS ? &crc : NULL;
    scr_kvtree_util_get_str(file, KEY_CACHE, &cached);
    scr_kvtree_util_get_int(file, KEY_CHECKED, &checked);
    if (checked) {
        chosen = cached != NULL ? cached : prefix_path;
    } else {
        /* the node's copy first; one that does not check is not used again */
        if (cached != NULL && bytes_check(run, cached, size, want, "cached copy"))
            chosen = cached;
        else if (gzip &&
                 expand_into_cache(run, rs->id, prefix_path, size, want, &expanded) == SCR_SUCCESS)
            chosen = expanded;
        else if (!gzip && bytes_check(run, prefix_path, size, want, "restart file"))
            chosen = prefix_path;
        if (chosen == NULL) {
            scr_err("SCR_Route_file: no intact copy of %s (checkpoint %s)", name, rs->name);
            return SCR_ERR_FORMAT;
        }
        char *keep = strdup(chosen);
        free(expanded);
        if (keep == NULL) return SCR_ERR_NOMEM;
        /* from now on the copy chosen: a cached or expanded one, else the prefix's */
        if (chosen != cached) scr_kvtree_unset(file, KEY_CACHE); /* frees cached, not chosen */
        rc = chosen == prefix_path ? SCR_SUCCESS : scr_kvtree_util_set_str(file, KEY_CACHE, keep);
        if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(file, KEY_CHECKED, 1);
        if (rc == SCR_SUCCESS)
            *out_path = keep;
        else
            free(keep);
        return rc;
    }
    *out_path = strdup(chosen);
    return *out_path != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
}
