/* scan_index.c — scan, rebuild, summary and index entry of a dataset directory. */
#include "scan_index.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "rank_filemap.h"
#include "rebuild.h"
#include "scan.h"
#include "scr_err.h"
#include "summary.h"
#include "util_copy.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHECK_BUF_SIZE ((size_t)1 << 20)

/* What goes into the index. */
struct entry {
    scr_dataset *desc;
    int complete;
    const int *missing;
    int nmissing;
};

/* The files of one rank of a scan, as the summary lists them. */
struct summary_lists {
    const struct scr_scan *scan;
    struct scr_summary_file *files;
    int room;
};

static int rank_files(void *ctx, int rank, int *out_expected,
                      const struct scr_summary_file **out_files, int *out_n)
{
    struct summary_lists *l = ctx;
    const struct scr_scan_rank *sr = &l->scan->rank[rank];
    if (sr->nfiles > l->room) {
        free(l->files);
        l->room = sr->nfiles;
        if ((l->files = malloc(sizeof(*l->files) * (size_t)l->room)) == NULL) return SCR_ERR_NOMEM;
    }
    for (int f = 0; f < sr->nfiles; f++) {
        const struct scr_scan_file *file = &sr->files[f];
        l->files[f] = (struct scr_summary_file){
            file->name,       file->size,       file->crc,        file->has_crc,
            file->redundancy, file->compressed, file->stored_size};
    }
    *out_expected = sr->expected >= 0 ? sr->expected : sr->nfiles;
    *out_files = l->files;
    *out_n = sr->nfiles;
    return SCR_SUCCESS;
}

/* The summary of a complete scan, written from its lists. */
static int write_summary(const struct scr_scan *scan, const char *path)
{
    struct summary_lists lists = {scan, NULL, 0};
    int rc = scr_summary_write_ranks(path, scan->desc, scan->ranks, rank_files, &lists);
    free(lists.files);
    return rc;
}

/* A descriptor with at least ID, NAME and COMPLETE. */
static int descriptor(const scr_dataset *found, int id, int complete, scr_dataset **out)
{
    scr_dataset *d = scr_dataset_new();
    const char *name = NULL;
    if (d == NULL) return SCR_ERR_NOMEM;
    int rc = SCR_SUCCESS;
    if (found) {
        rc = scr_dataset_copy(d, found);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_dataset_set_id(d, id);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_dataset_get_name(d, &name) != SCR_SUCCESS) {
        char text[64];
        snprintf(text, sizeof(text), "scr.dataset.%d", id);
        rc = scr_dataset_set_name(d, text);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_dataset_set_complete(d, complete);
out:
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(d);
        return rc;
    }
    *out = d;
    return SCR_SUCCESS;
}

static int add_entry(scr_kvtree *index, void *ctx)
{
    const struct entry *e = ctx;
    int id = 0, cur_id = 0, older = 0;
    const char *name = NULL, *current = NULL;
    char stamp[SCR_INDEX_TIMESTAMP_SIZE];
    scr_dataset_get_id(e->desc, &id);
    scr_dataset_get_name(e->desc, &name);
    int rc = SCR_SUCCESS;
    /* an older dataset of the same name had its files overwritten by this one */
    if (scr_index_file_lookup_id(index, name, &older) == SCR_SUCCESS && older != id) {
        rc = scr_index_file_remove(index, older);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_index_file_set_dataset(index, e->desc, e->complete);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_set_missing(index, id, e->missing, e->nmissing);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_format_timestamp(time(NULL), stamp, sizeof(stamp));
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_mark_flushed(index, id, stamp);
    if (rc != SCR_SUCCESS) return rc;
    int newer_current = scr_index_file_get_current(index, &current) == SCR_SUCCESS &&
                        scr_index_file_lookup_id(index, current, &cur_id) == SCR_SUCCESS &&
                        cur_id > id;
    if (e->complete && scr_dataset_is_checkpoint(e->desc) && !newer_current)
        return scr_index_file_set_current(index, name);
    /* found incomplete (--crc) after it was current: a restart must not start from it */
    if (!e->complete && current != NULL && strcmp(current, name) == 0)
        return scr_index_file_unset_current(index);
    return SCR_SUCCESS;
}

static int update_index(const char *prefix, const struct entry *e)
{
    char *path = NULL;
    int rc = scr_index_file_path(prefix, &path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_update(path, add_entry, (void *)e);
    free(path);
    return rc;
}

/* 1 when the file name of rank, listed in summary (at spath), is in dir
 * with its recorded size and CRC; says what differs otherwise. */
static int summary_file_holds(const char *dir, const char *spath, const scr_kvtree *summary,
                              int rank, const char *name, void *buf)
{
    char *path = NULL;
    uint64_t size = 0, stored = 0;
    uint32_t crc = 0;
    struct stat st;
    int good = 0;
    if (scr_rank_filemap_file_path(dir, name, spath, &path) != SCR_SUCCESS) return 0;
    int gzip = scr_summary_get_file_compressed(summary, rank, name, &stored) == SCR_SUCCESS;
    if (scr_summary_get_file_size(summary, rank, name, &size) != SCR_SUCCESS) {
        scr_err("%s: the summary records no size", path);
    } else if (stat(path, &st) != 0) {
        scr_err("%s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != (gzip ? stored : size)) {
        scr_err("%s is %llu bytes, %llu recorded%s", path, (unsigned long long)st.st_size,
                (unsigned long long)(gzip ? stored : size), gzip ? " (compressed)" : "");
    } else if (scr_summary_get_file_crc(summary, rank, name, &crc) != SCR_SUCCESS) {
        good = 1; /* no CRC recorded: the size is all there is to check */
    } else {
        struct scr_copy_result got = {0};
        int rc = gzip ? scr_crc_file_gunzip(path, buf, CHECK_BUF_SIZE, &got)
                      : scr_crc_file(path, buf, CHECK_BUF_SIZE, &got);
        if (rc == SCR_SUCCESS) {
            good = got.crc == crc && got.bytes == size;
            if (!good)
                scr_err("%s is damaged: %llu bytes with CRC32 0x%08x, %llu and 0x%08x recorded",
                        path, (unsigned long long)got.bytes, got.crc, (unsigned long long)size,
                        crc);
        }
    }
    free(path);
    return good;
}

/* --crc on a dataset with a summary: every file the summary lists is read
 * and checked. The ranks with a file that is missing or differs go to
 * *out_bad (ascending, a new array, NULL when none), each file named in a
 * message. */
/* Whether every file summary lists for rank holds (*out_good). Each file is
 * checked, even after one that differs, so that every bad file is named. */
static int rank_files_hold(const char *dir, const char *spath, const scr_kvtree *summary, int rank,
                           void *buf, int *out_good)
{
    const char **names = NULL;
    int n = 0;
    int rc = scr_summary_list_files(summary, rank, &names, &n);
    if (rc != SCR_SUCCESS) return rc;
    *out_good = 1;
    for (int f = 0; f < n; f++)
        if (!summary_file_holds(dir, spath, summary, rank, names[f], buf)) *out_good = 0;
    free(names);
    return SCR_SUCCESS;
}

static int check_summary_files(const char *dir, const char *spath, const scr_kvtree *summary,
                               int **out_bad, int *out_nbad)
{
    int *ranks = NULL, nranks = 0, *bad = NULL, nbad = 0;
    void *buf = malloc(CHECK_BUF_SIZE);
    int rc = SCR_ERR_NOMEM;
    if (buf == NULL) goto out;
    rc = scr_summary_list_ranks(summary, &ranks, &nranks);
    if (rc != SCR_SUCCESS) goto out;
    if (nranks > 0 && (bad = malloc(sizeof(int) * (size_t)nranks)) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < nranks; i++) {
        int good = 1;
        rc = rank_files_hold(dir, spath, summary, ranks[i], buf, &good);
        if (rc != SCR_SUCCESS) goto out;
        if (!good) bad[nbad++] = ranks[i];
    }
out:
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory checking the files of %s", dir);
    free(buf);
    free(ranks);
    if (rc != SCR_SUCCESS || nbad == 0) {
        free(bad);
        bad = NULL;
    }
    *out_bad = bad;
    *out_nbad = rc == SCR_SUCCESS ? nbad : 0;
    return rc;
}

/* Whether dir holds a rank filemap, from which a scan can tell more. */
static int has_rank_filemaps(const char *dir)
{
    DIR *d = opendir(dir);
    int found = 0, rank = 0;
    if (d == NULL) return 0;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;)
        found = scr_rank_filemap_is_name(e->d_name, &rank);
    closedir(d);
    return found;
}

/* Step 1: a summary says the dataset is complete. SCR_ERR_NOTFOUND when
 * there is none. With --crc the summary is not taken on trust: when the
 * rank filemaps it was made from are there, *out_rescan is set and
 * SCR_ERR_NOTFOUND returned, so that the scan checks every file and the
 * rebuild repairs what it can; without them, the files are checked against
 * the summary itself and a rank with a file that differs is missing. */
static int index_from_summary(const struct scr_scan_index_options *o, const char *spath,
                              struct scr_scan_index_result *out, int *out_rescan)
{
    scr_kvtree *summary = scr_kvtree_new();
    const scr_dataset *found = NULL;
    scr_dataset *desc = NULL;
    int *bad = NULL, nbad = 0;
    *out_rescan = 0;
    int rc = SCR_ERR_NOMEM;
    if (summary == NULL) goto out;
    rc = scr_summary_read(spath, summary);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_summary_get_dataset(summary, &found) != SCR_SUCCESS ||
        scr_dataset_get_id(found, &out->id) != SCR_SUCCESS) {
        scr_err("%s: no dataset id in the summary", spath);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = scr_summary_check_names(summary, o->dir, spath); /* indexed, it would send a fetch there */
    if (rc != SCR_SUCCESS) goto out;
    if (o->check_crc && has_rank_filemaps(o->dir)) {
        *out_rescan = 1;
        rc = SCR_ERR_NOTFOUND;
        goto out;
    }
    if (o->check_crc) {
        rc = check_summary_files(o->dir, spath, summary, &bad, &nbad);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = descriptor(found, out->id, nbad == 0, &desc);
    if (rc != SCR_SUCCESS) goto out;
    struct entry e = {desc, nbad == 0, bad, nbad};
    rc = update_index(o->prefix, &e);
    if (rc != SCR_SUCCESS) goto out;
    out->complete = nbad == 0;
    out->missing = bad;
    out->nmissing = nbad;
    bad = NULL;
out:
    free(bad);
    scr_dataset_delete(desc);
    scr_kvtree_delete(summary);
    return rc;
}

/* A summary calls the dataset complete; the check found it is not: it goes,
 * so that an --add without --crc does not believe it again (the rank
 * filemaps it was made from stay). */
static void remove_summary(const char *spath, int id)
{
    if (unlink(spath) == 0)
        scr_warn("removed %s: it called dataset %d complete, which it is not", spath, id);
    else if (errno != ENOENT)
        scr_err("cannot remove %s, which calls incomplete dataset %d complete: %s", spath, id,
                strerror(errno));
}

/* Step 0: an index that is missing while other datasets have summaries is
 * made from them first, or they would drop out of the one this entry
 * creates; a damaged one stops everything before a file is written. */
static int check_index(const char *prefix)
{
    struct scr_index_rebuild_options ro = {.damaged = 0, .require = 0, .announce = 1};
    struct scr_index_rebuild_report rep;
    int rc = scr_index_rebuild(prefix, &ro, &rep);
    scr_index_rebuild_report_free(&rep);
    return rc;
}

/* Step 2: scan the directory and, when ranks are missing, rebuild what
 * can be and scan again; out->rebuilt counts the ranks rebuilt. */
static int scan_and_rebuild(const struct scr_scan_index_options *o, struct scr_scan **scan,
                            struct scr_scan_index_result *out)
{
    int rc = scr_scan_dataset(o->dir, o->check_crc, scan);
    if (rc != SCR_SUCCESS) return rc;
    if ((*scan)->invalid) {
        scr_err("%s: not indexed, its records contradict each other", o->dir);
        return SCR_ERR_FORMAT;
    }
    if ((*scan)->nmissing == 0) return SCR_SUCCESS;
    scr_rebuild_dataset(*scan, o->buf_size, &out->rebuilt); /* says what it could not do */
    if (out->rebuilt == 0) return SCR_SUCCESS;
    scr_scan_free(*scan);
    *scan = NULL;
    return scr_scan_dataset(o->dir, o->check_crc, scan);
}

/* Step 3: the summary (when complete) and the index entry of what scan
 * found; a summary that called an incomplete dataset complete (rescan) goes. */
static int index_from_scan(const struct scr_scan_index_options *o, const struct scr_scan *scan,
                           const char *spath, int rescan, struct scr_scan_index_result *out)
{
    scr_dataset *desc = NULL;
    out->id = scan->id;
    out->complete = scr_scan_is_complete(scan);
    int rc = descriptor(scan->desc, scan->id, out->complete, &desc);
    if (rc != SCR_SUCCESS) return rc;
    if (out->complete) {
        rc = write_summary(scan, spath);
        if (rc != SCR_SUCCESS) goto out;
    }
    if (!out->complete && rescan) remove_summary(spath, scan->id);
    if (scan->nmissing > 0) {
        out->missing = malloc(sizeof(int) * (size_t)scan->nmissing);
        out->nmissing = scan->nmissing;
        if (out->missing == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
        memcpy(out->missing, scan->missing, sizeof(int) * (size_t)scan->nmissing);
    }
    struct entry e = {desc, out->complete, out->missing, out->nmissing};
    rc = update_index(o->prefix, &e);
out:
    scr_dataset_delete(desc);
    return rc;
}

/* dir must be a dataset directory of prefix, <prefix>/.scr/<name>: what it
 * lists is then held to the prefix (rank_filemap.h). */
static int check_dataset_dir(const char *prefix, const char *dir)
{
    char *scr_dir = NULL, *parent = NULL, *norm = NULL;
    int rc = scr_path_join(prefix, ".scr", &scr_dir);
    if (rc == SCR_SUCCESS) rc = scr_path_normalize(dir, &norm);
    if (rc == SCR_SUCCESS) rc = scr_path_dirname(norm, &parent);
    if (rc == SCR_SUCCESS && strcmp(parent, scr_dir) != 0) {
        scr_err("%s is not a dataset directory of the prefix %s: only a directory in %s is indexed",
                dir, prefix, scr_dir);
        rc = SCR_ERR_ARG;
    }
    free(scr_dir);
    free(parent);
    free(norm);
    return rc;
}

int scr_scan_index_dataset(const struct scr_scan_index_options *o,
                           struct scr_scan_index_result *out)
{
    struct scr_scan *scan = NULL;
    char *spath = NULL;
    int rescan = 0;
    memset(out, 0, sizeof(*out));
    int rc = check_dataset_dir(o->prefix, o->dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_index(o->prefix);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_join(o->dir, SCR_SUMMARY_FILE_NAME, &spath);
    if (rc != SCR_SUCCESS) return rc;
    /* Step 1; SCR_ERR_NOTFOUND: no summary, or one not taken on trust */
    rc = index_from_summary(o, spath, out, &rescan);
    if (rc != SCR_ERR_NOTFOUND) goto out;
    rc = scan_and_rebuild(o, &scan, out);
    if (rc != SCR_SUCCESS) goto out;
    rc = index_from_scan(o, scan, spath, rescan, out);
out:
    scr_scan_free(scan);
    free(spath);
    return rc;
}
