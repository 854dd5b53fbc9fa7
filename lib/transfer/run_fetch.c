/* run_fetch.c — choose the restart dataset; read it back from the prefix if needed.
 *
 * The cache is preferred: the newest checkpoint intact on every rank (found
 * at SCR_Init), unless SCR_Current or SCR_CURRENT names another; a
 * checkpoint written in place (SCR_CACHE_BYPASS) that the filemaps list
 * counts as one, read where it lies (run_fetch_in_place.c). Otherwise
 * rank 0 walks the index from the current checkpoint to older ones: it sends
 * each rank its list of files from the dataset's summary (of a summary in
 * parts, summary.h, the first rank of each part reads that part and sends
 * its ranks theirs, so that no rank holds every rank's list); every rank copies
 * its files into cache, checking size and CRC-32 on the way (or, with
 * SCR_FETCH_BYPASS, checks their size and reads them in place later, their
 * CRC checked when the application is done: run_fetch_check.c); a
 * dataset any rank fails to read is marked FAILED in the index and the next
 * older one is tried. With SCR_WATCHDOG_TIMEOUT_PFS, a file's copy that
 * takes longer is abandoned (the copy's timeout, util_copy.h): the rank
 * says so in one line and counts as failed, so the fetch falls back in the
 * same way. After
 * the application found a restart unreadable (SCR_Complete_restart(0)), the
 * same choice is made again among the checkpoints older than that one, in
 * cache and then on the prefix. A checkpoint written by another number of
 * ranks is not fetched: any rank may read any of its files
 * (run_fetch_whole.c). */
#include "index_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "rank_filemap.h"
#include "run_cache.h"
#include "run_events.h"
#include "run_rebuild.h"
#include "scan_scr31.h"
#include "scr_err.h"
#include "scr_run.h"
#include "transfer.h"
#include "summary.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define TAG_FETCH 4703
#define TAG_WIDTH 4704
#define KEY_DSET "DSET"
#define KEY_FILE "FILE"
#define KEY_SIZE "SIZE"
#define KEY_CRC "CRC"
#define KEY_COMPRESSED "COMPRESSED"
#define KEY_ERROR "ERROR"

/* Rank 0: the dataset of the index to try (*out_id, 0: none) among those
 * older than below, by name when one is asked for (wanted). */
static int candidate_from_index(struct scr_run *run, const char *wanted, int below, int *out_id)
{
    scr_kvtree *index = scr_kvtree_new();
    if (index == NULL) return SCR_ERR_NOMEM;
    int rc = scr_index_file_read(run->index_path, index);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* nothing was ever flushed */
    if (rc == SCR_SUCCESS && wanted != NULL) {
        int id = 0, complete = 0;
        if (scr_index_file_lookup_id(index, wanted, &id) != SCR_SUCCESS)
            scr_warn("no dataset named %s on %s; using the newest checkpoint", wanted, run->prefix);
        else if (scr_index_file_get_complete(index, id, &complete) == SCR_SUCCESS && complete)
            *out_id = id;
        else
            scr_warn("dataset %s on %s is incomplete; using the newest checkpoint", wanted,
                     run->prefix);
    }
    if (rc == SCR_SUCCESS && *out_id == 0) {
        rc = scr_index_file_restart_candidate_below(index, below, out_id);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS;
    }
    scr_kvtree_delete(index);
    return rc;
}

/* Rank 0: how dataset id of the prefix is read, by its summary: whole
 * (*out_whole) when another number of ranks wrote it, in place
 * (*out_in_place) when several ranks wrote one of its files. */
static void how_to_read(struct scr_run *run, int id, int *out_whole, int *out_in_place)
{
    char name[64], *dsdir = NULL, *path = NULL;
    int ranks = 0, shared_names = 0, parts = 0;
    const scr_dataset *desc = NULL;
    scr_kvtree *summary = scr_kvtree_new();
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    /* summary.scr names the ranks (of a summary in parts, its parts are
     * not needed here); SCR 3.1's has no ranks: they come with its file list */
    int have_summary =
        summary != NULL && scr_path_join(run->prefix_scr, name, &dsdir) == SCR_SUCCESS &&
        scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path) == SCR_SUCCESS &&
        scr_summary_read_top(path, summary, &parts) == SCR_SUCCESS &&
        (parts > 0 || scr_scan_scr31_complete_summary(dsdir, summary) == SCR_SUCCESS);
    if (have_summary && scr_summary_get_ranks(summary, &ranks) == SCR_SUCCESS &&
        ranks != run->ranks) {
        scr_dbg(1,
                "dataset %d on %s was written by %d ranks and this run has %d: any rank may "
                "read any "
                "of its files",
                id, run->prefix, ranks, run->ranks);
        *out_whole = 1;
    }
    /* a file several ranks wrote is read where it is: a copy in each
     * node's cache would cost a read of the whole file per rank */
    if (have_summary && scr_summary_get_dataset(summary, &desc) == SCR_SUCCESS &&
        scr_dataset_get_shared_names(desc, &shared_names) == SCR_SUCCESS && shared_names > 0) {
        scr_dbg(1, "dataset %d on %s has files several ranks wrote: it is read in place", id,
                run->prefix);
        *out_in_place = 1;
    }
    free(dsdir);
    free(path);
    scr_kvtree_delete(summary);
}

/* Rank 0: the next dataset to try (0: none) among those older than below,
 * by name when one is asked for; *out_whole: it was written by another
 * number of ranks, and is read whole (run_fetch_whole.c). */
static int pick_candidate(struct scr_run *run, const char *wanted, int below, int *out_id,
                          int *out_whole, int *out_in_place)
{
    *out_id = 0;
    *out_whole = 0;
    *out_in_place = 0;
    int rc = candidate_from_index(run, wanted, below, out_id);
    /* a dataset of another number of ranks is not fetched rank by rank:
     * every rank may read any of its files */
    if (rc == SCR_SUCCESS && *out_id > 0) how_to_read(run, *out_id, out_whole, out_in_place);
    return rc;
}

/* The name the index gives dataset id ("" when it gives none), for events. */
static void index_name(struct scr_run *run, int id, char *name, size_t len)
{
    name[0] = '\0';
    scr_kvtree *index = scr_kvtree_new();
    const char *n = NULL;
    if (index != NULL && scr_index_file_read(run->index_path, index) == SCR_SUCCESS &&
        scr_index_file_get_name(index, id, &n) == SCR_SUCCESS)
        snprintf(name, len, "%s", n);
    scr_kvtree_delete(index);
}

/* The index at path, in index, and the restart it offers (*out_id). */
static int read_candidate(const char *path, scr_kvtree *index, int *out_id)
{
    int rc = scr_index_file_read(path, index);
    if (rc != SCR_SUCCESS) return rc;
    return scr_index_file_restart_candidate(index, out_id);
}

int scr_fetch_peek(struct scr_run *run, int *out_id, char *name, size_t len)
{
    *out_id = 0;
    name[0] = '\0';
    scr_kvtree *index = scr_kvtree_new();
    if (index == NULL) return SCR_ERR_NOMEM;
    int rc = read_candidate(run->index_path, index, out_id);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* nothing was ever flushed */
    const char *n = NULL;
    if (rc == SCR_SUCCESS && *out_id > 0 &&
        scr_index_file_get_name(index, *out_id, &n) == SCR_SUCCESS)
        snprintf(name, len, "%s", n);
    scr_kvtree_delete(index);
    return rc;
}

struct fetch_outcome {
    int id, fetched;
};

/* FETCHED and CURRENT, or FAILED and no longer CURRENT. */
static int note_outcome(scr_kvtree *index, void *ctx)
{
    const struct fetch_outcome *o = ctx;
    char stamp[SCR_INDEX_TIMESTAMP_SIZE];
    const char *name = NULL, *current = NULL;
    int rc = scr_index_file_format_timestamp(time(NULL), stamp, sizeof(stamp));
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_get_name(index, o->id, &name);
    if (rc != SCR_SUCCESS) return rc;
    if (o->fetched) {
        rc = scr_index_file_mark_fetched(index, o->id, stamp);
        if (rc != SCR_SUCCESS) return rc;
        return scr_index_file_set_current(index, name);
    }
    rc = scr_index_file_mark_failed(index, o->id, stamp);
    if (rc != SCR_SUCCESS) return rc;
    if (scr_index_file_get_current(index, &current) == SCR_SUCCESS && strcmp(current, name) == 0)
        return scr_index_file_unset_current(index);
    return SCR_SUCCESS;
}

int scr_fetch_record(struct scr_run *run, int id, int fetched)
{
    struct fetch_outcome o = {id, fetched};
    return scr_index_file_update(run->index_path, note_outcome, &o);
}

/* Rank 0: summary.scr of dataset id in dsdir, checked against this run,
 * into summary: every rank's files when it is one file (*out_parts 0), or
 * the descriptor, the ranks and the *out_parts parts it names. */
static int read_summary(const struct scr_run *run, int id, const char *dsdir, scr_kvtree *summary,
                        int *out_parts)
{
    char *path = NULL;
    const scr_dataset *desc = NULL;
    int rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_summary_read_top(path, summary, out_parts);
    if (rc == SCR_ERR_NOTFOUND) scr_err("%s is missing", path);
    if (rc != SCR_SUCCESS) goto out;
    /* SCR 3.1 lists the files apart */
    if (*out_parts == 0) rc = scr_scan_scr31_complete_summary(dsdir, summary);
    if (rc != SCR_SUCCESS) goto out;
    int ranks = 0;
    rc = scr_summary_get_ranks(summary, &ranks);
    if (rc != SCR_SUCCESS) goto out;
    if (ranks != run->ranks) {
        scr_err("dataset %d was written by %d ranks; this run has %d", id, ranks, run->ranks);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = scr_summary_get_dataset(summary, &desc);
out:
    free(path);
    return rc;
}

/* Rank 0: rank r's part of the summary, in part: DSET {desc}, FILE name
 * {SIZE, CRC, COMPRESSED when the prefix holds it as gzip}. With seen
 * (read in place, the ranks described in ascending order): a name a lower
 * rank's part has already named goes without its CRC, so that the check
 * after the restart reads a file several ranks list once, on the lowest. */
static int describe_part(const scr_kvtree *summary, const scr_dataset *desc, int r,
                         scr_kvtree *part, scr_kvtree *seen)
{
    const char **names = NULL;
    int n = 0;
    if (scr_kvtree_set(part, KEY_DSET, scr_kvtree_dup(desc)) == NULL) return SCR_ERR_NOMEM;
    int rc = scr_summary_list_files(summary, r, &names, &n);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* a rank without files */
    if (rc != SCR_SUCCESS) goto out;
    for (int f = 0; f < n; f++) {
        uint64_t size = 0;
        uint32_t crc;
        int nofetch = 0;
        scr_summary_get_file_nofetch(summary, r, names[f], &nofetch);
        if (nofetch) continue;
        scr_kvtree *file = scr_kvtree_set_kv(part, KEY_FILE, names[f]);
        rc = file ? scr_summary_get_file_size(summary, r, names[f], &size) : SCR_ERR_NOMEM;
        if (rc != SCR_SUCCESS) goto out;
        rc = scr_kvtree_util_set_uint64(file, KEY_SIZE, size);
        if (rc != SCR_SUCCESS) goto out;
        int named_before = seen != NULL && scr_kvtree_get(seen, names[f]) != NULL;
        if (seen != NULL && !named_before &&
            scr_kvtree_set(seen, names[f], scr_kvtree_new()) == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
        if (!named_before && scr_summary_get_file_crc(summary, r, names[f], &crc) == SCR_SUCCESS) {
            rc = scr_kvtree_util_set_crc32(file, KEY_CRC, crc);
            if (rc != SCR_SUCCESS) goto out;
        }
        uint64_t stored = 0;
        if (scr_summary_get_file_compressed(summary, r, names[f], &stored) == SCR_SUCCESS) {
            rc = scr_kvtree_util_set_uint64(file, KEY_COMPRESSED, stored);
            if (rc != SCR_SUCCESS) goto out;
        }
    }
out:
    free(names);
    return rc;
}

/* The lists of ranks first..first+count-1 (describe_part) from summary,
 * which lists them, sent to each (this rank's own in *out_mine); after a
 * failure (status, or one here) the ranks left are told to give up, for
 * each waits for its message. Read in place (in_place), a file several
 * ranks list is checked once among these ranks: once in each part of a
 * summary in parts. */
static int send_parts(struct scr_run *run, const scr_kvtree *summary, const scr_dataset *desc,
                      int in_place, int status, int first, int count, scr_kvtree **out_mine)
{
    scr_kvtree *seen = in_place ? scr_kvtree_new() : NULL;
    if (in_place && seen == NULL && status == SCR_SUCCESS) status = SCR_ERR_NOMEM;
    /* the loop goes on after a failure: every rank waits for its message */
    for (int r = first; r < first + count; r++) {
        scr_kvtree *part = scr_kvtree_new();
        int prc = (part && status == SCR_SUCCESS) ? describe_part(summary, desc, r, part, seen)
                                                  : SCR_FAILURE;
        if (prc != SCR_SUCCESS) { /* every rank still gets a message, saying to give up */
            scr_kvtree_unset_all(part);
            scr_kvtree_util_set_int(part, KEY_ERROR, 1);
            if (status == SCR_SUCCESS) status = prc;
        }
        if (r == run->rank) {
            *out_mine = part;
        } else {
            int src = scr_comm_send_kvtree(part, r, TAG_FETCH, run->world);
            scr_kvtree_delete(part);
            if (status == SCR_SUCCESS) status = src;
        }
    }
    scr_kvtree_delete(seen);
    return status;
}

/* The part of a summary in parts (top: summary.scr as read_summary gives
 * it) that lists rank: *out_part, ranks *out_first.. of *out_count. */
static int summary_part_of(const scr_kvtree *top, int parts, int rank, int *out_part,
                           int *out_first, int *out_count)
{
    for (int k = 0; k < parts; k++) {
        int rc = scr_summary_get_part(top, k, out_first, out_count);
        if (rc != SCR_SUCCESS) return rc;
        if (rank >= *out_first && rank - *out_first < *out_count) {
            *out_part = k;
            return SCR_SUCCESS;
        }
    }
    scr_err("the summary's %d parts do not list rank %d", parts, rank);
    return SCR_ERR_FORMAT;
}

/* The first rank of this rank's part of a summary in parts (top): reads
 * that part of dataset id in dsdir and sends its ranks their lists
 * (status: what failed before; its ranks are then told to give up). */
static int send_summary_part(struct scr_run *run, int id, const char *dsdir, const scr_kvtree *top,
                             int in_place, int part, int first, int count, int status,
                             scr_kvtree **out_mine)
{
    const scr_dataset *desc = NULL;
    char *path = NULL, *ppath = NULL;
    scr_kvtree *listed = scr_kvtree_new();
    if (status == SCR_SUCCESS)
        status = listed ? scr_summary_get_dataset(top, &desc) : SCR_ERR_NOMEM;
    if (status == SCR_SUCCESS) status = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path);
    if (status == SCR_SUCCESS) status = scr_summary_part_path(path, part, &ppath);
    if (status == SCR_SUCCESS) status = scr_summary_read_part(ppath, part, first, count, listed);
    if (status == SCR_ERR_NOTFOUND) {
        scr_err("%s: part %d of the summary of dataset %d (ranks %d to %d) is missing", ppath, part,
                id, first, first + count - 1);
        status = SCR_ERR_FORMAT;
    }
    status = send_parts(run, listed, desc, in_place, status, first, count, out_mine);
    scr_kvtree_delete(listed);
    free(ppath);
    free(path);
    return status;
}

/* The meta of a fetched file: rel, its path under the prefix; dir and
 * name, where the application wrote it; crc, the summary's CRC (NULL:
 * none), else copied_crc, the one the copy computed. */
static int fill_meta(const struct scr_run *run, scr_meta *meta, const char *rel, const char *dir,
                     const char *name, uint64_t size, const uint32_t *crc, uint32_t copied_crc)
{
    int rc = scr_meta_set_filename(meta, rel);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_meta_set_filetype(meta, SCR_META_TYPE_FULL);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_meta_set_filesize(meta, size);
    if (rc != SCR_SUCCESS) return rc;
    /* a file in cache has its CRC: the summary's, else the one the copy computed */
    if (crc != NULL)
        rc = scr_meta_set_crc32(meta, *crc);
    else if (run->params->crc_on_flush && run->params->crc_in_cache)
        rc = scr_meta_set_crc32(meta, copied_crc);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_meta_set_rank(meta, run->rank);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_meta_set_ranks(meta, run->ranks);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_meta_set_origpath(meta, dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_meta_set_origname(meta, name);
    if (rc != SCR_SUCCESS) return rc;
    return scr_meta_set_complete(meta, 1);
}

/* Copy src (size bytes; crc: its recorded CRC, NULL when none; gzip: the
 * prefix holds it compressed, expanded on the way) from the prefix into
 * cachedir, listed in the filemap before it exists, and record its meta
 * (dir, name: where the application wrote it). */
static int copy_to_cache(struct scr_run *run, int id, const char *cachedir, void *buf,
                         const char *src, const char *dir, const char *name, uint64_t size,
                         const uint32_t *crc, int gzip)
{
    struct scr_copy_result got = {0};
    char *rel = NULL, *dest = NULL;
    scr_meta *meta = NULL;
    int rc = scr_path_relative(run->prefix, src, &rel);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_join(cachedir, rel, &dest);
    if (rc != SCR_SUCCESS) goto out;
    meta = scr_meta_new();
    if (meta == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    /* listed before the file exists, so a crash leaves no unnamed file */
    rc = scr_filemap_add_file(run->map, id, run->rank, dest);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_cache_save_filemap(run);
    if (rc != SCR_SUCCESS) goto out;
    const struct scr_copy_opts opts = {
        .buf = buf,
        .bufsize = run->params->file_buf_size,
        .crc = run->params->crc_on_flush,
        .form = gzip ? SCR_COPY_GUNZIP : SCR_COPY_RAW,
        .timeout = run->params->watchdog_pfs,
        .kind = "fetch",
    };
    rc = scr_copy(src, dest, &opts, &got);
    if (rc == SCR_ERR_TIMEOUT)
        scr_transfer_say_abandoned(run, "fetch", id, src, dest, "the fetch fails");
    if (rc != SCR_SUCCESS) goto out;
    if (got.bytes != size) {
        scr_err("restart file %s has %llu bytes, %llu were written", src,
                (unsigned long long)got.bytes, (unsigned long long)size);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    if (crc != NULL && run->params->crc_on_flush && got.crc != *crc) {
        scr_err("restart file %s is damaged: CRC32 0x%08x, recorded 0x%08x", src, got.crc, *crc);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = fill_meta(run, meta, rel, dir, name, size, crc, got.crc);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_meta(run->map, id, run->rank, dest, meta);
out:
    scr_meta_delete(meta);
    free(rel);
    free(dest);
    return rc;
}

/* One file of this rank's part (e: its path in dsdir, its SIZE and CRC):
 * read in place, noted in notes (the restart's files), when notes is not
 * NULL, else copied into cachedir. A path
 * that leads outside the prefix is refused, naming the summary that lists
 * it (rank_filemap.h): nothing is read from there, nor written into cache
 * outside the dataset's directory. */
static int fetch_file(struct scr_run *run, int id, const char *dsdir, const char *cachedir,
                      void *buf, const scr_kvtree_elem *e, scr_kvtree *notes)
{
    const scr_kvtree *info = scr_kvtree_elem_hash(e);
    uint64_t size = 0;
    uint32_t crc = 0;
    uint64_t stored = 0;
    int have_crc = scr_kvtree_util_get_crc32(info, KEY_CRC, &crc) == SCR_SUCCESS;
    int gzip = scr_kvtree_util_get_uint64(info, KEY_COMPRESSED, &stored) == SCR_SUCCESS;
    char *src = NULL, *dir = NULL, *name = NULL, *summary = NULL;
    int rc = scr_kvtree_util_get_uint64(info, KEY_SIZE, &size);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &summary);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_file_path(dsdir, scr_kvtree_elem_key(e), summary, &src);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_dirname(src, &dir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_basename(src, &name);
    if (rc != SCR_SUCCESS) goto out;
    if (notes != NULL && gzip) {
        scr_err("SCR_FETCH_BYPASS=1 cannot restart from %s in place: it is stored compressed "
                "(SCR_FLUSH_COMPRESS); fetch it into cache (SCR_FETCH_BYPASS=0)",
                src);
        rc = SCR_ERR_FORMAT;
    } else if (notes != NULL) {
        rc = scr_fetch_note_in_place(notes, src, name, size, have_crc ? &crc : NULL);
    } else {
        rc = copy_to_cache(run, id, cachedir, buf, src, dir, name, size, have_crc ? &crc : NULL,
                           gzip);
    }
out:
    free(src);
    free(dir);
    free(name);
    free(summary);
    return rc;
}

/* This rank reads its files of dataset id from dsdir as part describes:
 * into cache, or in place, noted in notes, when notes is not NULL. */
static int fetch_my_part(struct scr_run *run, int id, const char *dsdir, const scr_kvtree *part,
                         scr_kvtree *notes)
{
    if (scr_kvtree_get(part, KEY_ERROR) != NULL) return SCR_FAILURE;
    const scr_dataset *desc = scr_kvtree_get(part, KEY_DSET);
    char *cachedir = NULL;
    void *buf = NULL;
    int rc = SCR_SUCCESS, nfiles = 0;
    if (notes == NULL) {
        rc = scr_cache_dataset_dir(run, id, &cachedir);
        buf = malloc(run->params->file_buf_size);
        if (rc != SCR_SUCCESS) goto out;
        if (buf == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
        rc = scr_filemap_set_dataset(run->map, id, run->rank, desc);
        if (rc != SCR_SUCCESS) goto out;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(part, KEY_FILE)); e;
         e = scr_kvtree_elem_next(e), nfiles++) {
        rc = fetch_file(run, id, dsdir, cachedir, buf, e, notes);
        if (rc != SCR_SUCCESS) goto out;
    }
    if (notes == NULL) {
        rc = scr_filemap_set_expected_files(run->map, id, run->rank, nfiles);
        if (rc != SCR_SUCCESS) goto out;
        rc = scr_cache_save_filemap(run);
    }
out:
    free(cachedir);
    free(buf);
    return rc;
}

/* How the ranks get their lists, as rank 0 tells them. */
enum list_source {
    LISTS_NONE,      /* the summary cannot be used: every rank gives up */
    LISTS_FROM_ROOT, /* a summary in one file, which rank 0 read */
    LISTS_FROM_PARTS /* a summary in parts: the first rank of each reads it */
};

/* Every rank gets its part of dataset id's summary (*out_part; rc: what
 * failed before on this rank). Rank 0 reads summary.scr and says how the
 * lists come: a summary in one file from rank 0, a summary in parts from
 * the first rank of each part, which reads it, so that no rank holds
 * every rank's list. Each rank receives its list whatever failed on the
 * way, as one saying to give up, for each sender sends to all its ranks.
 * Collective. */
static int share_parts(struct scr_run *run, int id, const char *dsdir, int in_place, int rc,
                       scr_kvtree **out_part)
{
    scr_kvtree *summary = NULL;
    int how[2] = {LISTS_NONE, 0}; /* the source, the number of parts */
    if (run->rank == 0) {
        summary = scr_kvtree_new();
        if (rc == SCR_SUCCESS)
            rc = summary ? read_summary(run, id, dsdir, summary, &how[1]) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) how[0] = how[1] > 0 ? LISTS_FROM_PARTS : LISTS_FROM_ROOT;
    }
    int mrc = scr_mpi_check(MPI_Bcast(how, 2, MPI_INT, 0, run->world),
                            "telling the ranks where their lists come from");
    scr_kvtree *top = how[0] == LISTS_FROM_PARTS ? summary : NULL;
    if (mrc == SCR_SUCCESS && how[0] == LISTS_FROM_PARTS)
        mrc = scr_comm_bcast_kvtree(&top, 0, run->world); /* the parts summary.scr names */
    if (mrc != SCR_SUCCESS || how[0] == LISTS_NONE) {
        if (run->rank != 0) scr_kvtree_delete(top);
        scr_kvtree_delete(summary);
        if (rc != SCR_SUCCESS) return rc;
        return mrc != SCR_SUCCESS ? mrc : SCR_FAILURE; /* rank 0 said why */
    }

    int sender = 0, part = 0, first = 0, count = run->ranks;
    if (how[0] == LISTS_FROM_PARTS) {
        int prc = summary_part_of(top, how[1], run->rank, &part, &first, &count);
        if (prc != SCR_SUCCESS) mrc = prc; /* read_summary checked the parts: not seen */
        sender = first;
    }
    if (mrc != SCR_SUCCESS) {
        rc = mrc;
    } else if (run->rank != sender) {
        int rrc = scr_comm_recv_kvtree(sender, TAG_FETCH, run->world, out_part);
        if (rc == SCR_SUCCESS) rc = rrc;
    } else if (how[0] == LISTS_FROM_PARTS) {
        rc = send_summary_part(run, id, dsdir, top, in_place, part, first, count, rc, out_part);
    } else {
        const scr_dataset *desc = NULL;
        if (rc == SCR_SUCCESS) rc = scr_summary_get_dataset(summary, &desc);
        rc = send_parts(run, summary, desc, in_place, rc, 0, run->ranks, out_part);
    }
    if (run->rank != 0) scr_kvtree_delete(top);
    scr_kvtree_delete(summary);
    return rc;
}

/* This rank's part read (fetch_my_part) while at most SCR_FETCH_WIDTH
 * ranks read from the prefix at once. A rank passes through the window even
 * when it reads nothing (rc: what failed before), for the ranks after it
 * wait for it. */
static int fetch_in_window(struct scr_run *run, int id, const char *dsdir, const scr_kvtree *part,
                           scr_kvtree *notes, int rc)
{
    int wrc = scr_comm_window_enter(run->world, run->params->fetch_width, TAG_WIDTH);
    if (rc != SCR_SUCCESS) goto leave;
    rc = wrc;
    if (rc != SCR_SUCCESS) goto leave;
    rc = fetch_my_part(run, id, dsdir, part, notes);
leave:
    wrc = scr_comm_window_leave(run->world, run->params->fetch_width, TAG_WIDTH);
    return rc != SCR_SUCCESS ? rc : wrc;
}

/* One attempt at dataset id, into cache, or read in place (in_place) with
 * its files noted in rs; all ranks agree on *out_ok. */
static int try_fetch(struct scr_run *run, struct scr_restart *rs, int id, int in_place, int *out_ok)
{
    char name[64], *dsdir = NULL;
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    int rc = scr_path_join(run->prefix_scr, name, &dsdir);
    scr_kvtree *part = NULL;
    rc = share_parts(run, id, dsdir, in_place, rc, &part);
    if (in_place) scr_kvtree_unset_all(rs->files);
    rc = fetch_in_window(run, id, dsdir, part, in_place ? rs->files : NULL, rc);
    scr_kvtree_delete(part);
    free(dsdir);
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, out_ok);
    if (mrc == SCR_SUCCESS && !*out_ok && !in_place) scr_cache_delete_dataset(run, id);
    return mrc;
}

static void set_restart_name(struct scr_restart *rs, const scr_dataset *desc)
{
    const char *name = NULL;
    if (scr_dataset_get_name(desc, &name) != SCR_SUCCESS) name = "";
    snprintf(rs->name, sizeof(rs->name), "%s", name);
}

/* The newest checkpoint in cache older than below that every rank holds
 * intact, or written in place with its files present (0: none). One that
 * is not intact is deleted, as SCR_Init does; one written in place only
 * leaves the filemap. Collective. */
static int older_cached_checkpoint(struct scr_run *run, int below, int *out_id)
{
    *out_id = 0;
    for (;;) {
        int id = 0, ckpt = 0, intact = 0, in_place = 0;
        int rc = scr_cache_next_dataset(run, below, &id);
        if (rc != SCR_SUCCESS || id == 0) return rc;
        below = id;
        const scr_dataset *desc = NULL;
        const char *name = "?";
        int mine = scr_filemap_get_dataset(run->map, id, run->rank, &desc) == SCR_SUCCESS &&
                   scr_dataset_is_checkpoint(desc);
        if (mine) scr_dataset_get_name(desc, &name);
        rc = scr_comm_all_true(mine, run->world, &ckpt);
        if (rc == SCR_SUCCESS && ckpt) rc = scr_cache_written_in_place(run, id, &in_place);
        if (rc == SCR_SUCCESS && ckpt)
            rc = in_place ? scr_cache_in_place_is_present(run, id, name, &intact)
                          : scr_cache_dataset_is_intact(run, id, &intact);
        if (rc != SCR_SUCCESS) return rc;
        if (ckpt && intact) {
            *out_id = id;
            return SCR_SUCCESS;
        }
        if (ckpt) {
            if (run->rank == 0)
                scr_dbg(1, "dataset %d is not complete %s; %s", id,
                        in_place ? "where it was written" : "in cache",
                        in_place ? "forgetting it" : "deleting it");
            scr_cache_delete_dataset(run, id);
            if (!in_place) scr_cache_note_location(run, id, 0, 0, 0);
        }
    }
}

/* Restart from dataset id of the cache's records: from cache, or, written
 * in place, from where its files lie (*out_ok 0 when some rank's are no
 * longer as recorded: it then leaves the filemap). Collective. */
static int restart_from_records(struct scr_run *run, struct scr_restart *rs, int id, int *out_ok)
{
    int in_place = 0;
    *out_ok = 1;
    int rc = scr_cache_written_in_place(run, id, &in_place);
    if (rc == SCR_SUCCESS && in_place) rc = scr_fetch_in_place_prepare(run, rs, id, out_ok);
    if (rc != SCR_SUCCESS) return rc;
    if (!*out_ok) {
        if (run->rank == 0)
            scr_warn("dataset %d, written in place, cannot be read there (see above); trying an "
                     "older checkpoint",
                     id);
        scr_cache_delete_dataset(run, id);
        return SCR_SUCCESS;
    }
    const scr_dataset *desc = NULL;
    scr_filemap_get_dataset(run->map, id, run->rank, &desc);
    rs->id = id;
    rs->source = in_place ? SCR_RESTART_IN_PLACE : SCR_RESTART_CACHE;
    rs->fetched = 0;
    set_restart_name(rs, desc);
    if (in_place && run->rank == 0)
        scr_dbg(1, "restarting from dataset %d (%s), read where it was written on %s", id, rs->name,
                run->prefix);
    return SCR_SUCCESS;
}

/* The restart from the cache's records: the newest checkpoint intact in
 * cache or written in place, or the one asked for (wanted), below below
 * (lowered, *below, past each that fails); *out_done: restarting from it.
 * Collective. */
static int restart_from_cache(struct scr_run *run, struct scr_restart *rs, const char *wanted,
                              int *below, int *out_done)
{
    int id = rs->id;
    *out_done = 0;
    if (rs->below > 0) {
        int rc = older_cached_checkpoint(run, *below, &id);
        if (rc != SCR_SUCCESS) return rc;
    } else if (wanted != NULL) {
        int mine = scr_cache_id_of_name(run, wanted, 1), all = 0;
        int rc = scr_mpi_check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, run->world),
                               "looking for a dataset in cache");
        if (rc != SCR_SUCCESS) return rc;
        id = all;
    }
    while (id > 0) {
        int rc = restart_from_records(run, rs, id, out_done);
        if (rc != SCR_SUCCESS || *out_done) return rc;
        *below = id; /* neither it nor anything newer from the prefix */
        rc = older_cached_checkpoint(run, *below, &id);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* The dataset of the prefix every rank tries at attempt (choice: its id,
 * 0 for none and -1 when rank 0 failed; whether it is read whole; whether
 * in place), picked by rank 0, which never picks one it tried (tried). */
static int next_candidate(struct scr_run *run, scr_kvtree *tried, int attempt, const char *wanted,
                          int below, int choice[3])
{
    int candidate = 0, whole = 0, in_place = 0, rc = SCR_SUCCESS;
    if (run->rank == 0)
        rc =
            pick_candidate(run, attempt == 0 ? wanted : NULL, below, &candidate, &whole, &in_place);
    if (rc != SCR_SUCCESS) candidate = -1;
    if (candidate > 0 && scr_kvtree_get_kv_int(tried, "ID", candidate) != NULL) {
        scr_warn("dataset %d was tried already; no older dataset to restart from", candidate);
        candidate = 0;
    }
    if (candidate > 0 && scr_kvtree_set_kv_int(tried, "ID", candidate) == NULL) candidate = -1;
    choice[0] = candidate;
    choice[1] = whole;
    choice[2] = in_place;
    return scr_mpi_check(MPI_Bcast(choice, 3, MPI_INT, 0, run->world),
                         "sharing the dataset to fetch");
}

/* Rank 0: record in the index how the fetch of candidate (attempt, begun
 * at t0) went (ok), and say a failure. */
static void note_fetch_outcome(struct scr_run *run, int candidate, int attempt, double t0, int ok)
{
    if (scr_fetch_record(run, candidate, ok) != SCR_SUCCESS)
        scr_warn("could not record the fetch of dataset %d in %s", candidate, run->index_path);
    if (!ok)
        scr_warn("could not fetch dataset %d from %s; marked it failed, trying an older one",
                 candidate, run->prefix);
    if (!ok && scr_event_log_enabled(&run->events)) {
        char failed_name[1024];
        struct scr_event_field fields[] = {SCR_EVENT_INT("attempt", attempt + 1),
                                           SCR_EVENT_STR("marked", "FAILED")};
        index_name(run, candidate, failed_name, sizeof(failed_name));
        scr_run_event(run, SCR_EVENT_FETCH, SCR_EVENT_FAILED, candidate,
                      failed_name[0] ? failed_name : NULL, -1, scr_run_now() - t0,
                      "could not be read back from the prefix; an older dataset is tried", fields,
                      2);
    }
}

/* Every rank learns the name of the restart (from desc on rank 0, else
 * from the index) into rs->name. Collective. */
static int share_restart_name(struct scr_run *run, struct scr_restart *rs, int candidate,
                              const scr_dataset *desc)
{
    /* every rank learns the name from rank 0, which read the summary */
    scr_kvtree *name_tree = scr_kvtree_new();
    if (run->rank == 0 && desc != NULL) scr_kvtree_copy(name_tree, desc);
    if (run->rank == 0 && desc == NULL) {
        scr_kvtree *index = scr_kvtree_new();
        const char *n = NULL;
        if (scr_index_file_read(run->index_path, index) == SCR_SUCCESS &&
            scr_index_file_get_name(index, candidate, &n) == SCR_SUCCESS)
            scr_dataset_set_name(name_tree, n);
        scr_kvtree_delete(index);
    }
    int mrc = scr_comm_bcast_kvtree(&name_tree, 0, run->world);
    if (mrc == SCR_SUCCESS) set_restart_name(rs, name_tree);
    scr_kvtree_delete(name_tree);
    return mrc;
}

/* Restart from candidate, fetched at attempt (begun at t0): whole, read in
 * place (read_in_place) or into cache. Collective. */
static int restart_from_fetched(struct scr_run *run, struct scr_restart *rs, int candidate,
                                int whole, int read_in_place, int attempt, double t0)
{
    const scr_dataset *desc = NULL;
    if (!read_in_place && !whole) {
        scr_filemap_get_dataset(run->map, candidate, run->rank, &desc);
        scr_cache_note_location(run, candidate, 1, 1, 0);
    }
    rs->id = candidate;
    rs->fetched = !read_in_place && !whole;
    rs->source = whole ? SCR_RESTART_WHOLE : read_in_place ? SCR_RESTART_PREFIX : SCR_RESTART_CACHE;
    int mrc = share_restart_name(run, rs, candidate, desc);
    if (run->rank != 0) return mrc;
    uint64_t bytes = 0;
    int have_bytes = desc != NULL && scr_dataset_get_size(desc, &bytes) == SCR_SUCCESS;
    struct scr_event_field fields[] = {SCR_EVENT_INT("attempt", attempt + 1),
                                       SCR_EVENT_STR("into", whole           ? "whole"
                                                             : read_in_place ? "prefix"
                                                                             : "cache")};
    scr_run_event(run, SCR_EVENT_FETCH, SCR_EVENT_OK, candidate, rs->name,
                  have_bytes ? (long long)bytes : -1, scr_run_now() - t0, NULL, fields, 2);
    if (whole)
        scr_dbg(1,
                "restarting from dataset %d (%s) of %s, written by another number of ranks: "
                "any rank may read any of its files",
                candidate, rs->name, run->prefix);
    else
        scr_dbg(1, "fetched dataset %d (%s) from %s in %.3f s", candidate, rs->name, run->prefix,
                scr_run_now() - t0);
    return mrc;
}

/* Fetch candidate (choice: as next_candidate gives it); *out_ok: every
 * rank has it; *out_read_in_place: it is read where it lies. Collective. */
static int fetch_candidate(struct scr_run *run, struct scr_restart *rs, const int choice[3],
                           int *out_ok, int *out_read_in_place)
{
    /* a dataset with files several ranks wrote is fetched in place, as
     * SCR_FETCH_BYPASS=1 fetches every dataset */
    int in_place = run->params->fetch_bypass || choice[2];
    int mrc = choice[1] ? scr_fetch_whole_prepare(run, rs, choice[0], out_ok)
                        : try_fetch(run, rs, choice[0], in_place, out_ok);
    *out_read_in_place = in_place;
    return mrc;
}

int scr_fetch_decide_restart(struct scr_run *run, struct scr_restart *rs, const char *current_name)
{
    if (rs->decided) return SCR_SUCCESS;
    rs->decided = 1;
    /* after a failed restart the name SCR_Current gave was tried already */
    const char *wanted = rs->below > 0 ? NULL : current_name;
    int below = rs->below > 0 ? rs->below : INT_MAX;

    /* the cache's records first: the newest checkpoint intact in cache or
     * written in place, or the one asked for; this needs no fetch, so
     * SCR_FETCH=0 does not forbid it */
    int done = 0;
    int rc = restart_from_cache(run, rs, wanted, &below, &done);
    if (rc != SCR_SUCCESS || done) return rc;
    rs->id = 0;
    rs->source = SCR_RESTART_NONE;
    if (!run->params->fetch) return SCR_SUCCESS;

    /* then the prefix, newest usable dataset first; rank 0 remembers what it
     * tried, so an index it cannot mark never makes it try one dataset twice */
    scr_kvtree *tried = scr_kvtree_new();
    if (tried == NULL) return SCR_ERR_NOMEM;
    for (int attempt = 0;; attempt++) {
        int choice[3], ok = 0, read_in_place = 0;
        int mrc = next_candidate(run, tried, attempt, wanted, below, choice);
        if (mrc != SCR_SUCCESS || choice[0] <= 0) {
            scr_kvtree_delete(tried);
            if (mrc != SCR_SUCCESS) return mrc;
            return choice[0] < 0 ? SCR_ERR_IO : SCR_SUCCESS; /* 0: nothing; a fresh start */
        }
        double t0 = scr_run_now();
        mrc = fetch_candidate(run, rs, choice, &ok, &read_in_place);
        if (mrc != SCR_SUCCESS) {
            scr_kvtree_delete(tried);
            return mrc;
        }
        if (run->rank == 0) note_fetch_outcome(run, choice[0], attempt, t0, ok);
        if (!ok) continue;
        scr_kvtree_delete(tried);
        return restart_from_fetched(run, rs, choice[0], choice[1], read_in_place, attempt, t0);
    }
}
