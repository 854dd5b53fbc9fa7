/* scan_index.c — scan, rebuild, summary and index entry of a dataset directory. */
#include "scan_index.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "rebuild.h"
#include "scan.h"
#include "scr_err.h"
#include "summary.h"
#include "util_log.h"
#include "util_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int rank_files(void *ctx, int rank, int *out_expected, const struct scr_summary_file **out_files, int *out_n)
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
        l->files[f] = (struct scr_summary_file){file->name, file->size, file->crc, file->has_crc, file->redundancy};
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
    int rc = d ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && found) rc = scr_dataset_copy(d, found);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_id(d, id);
    if (rc == SCR_SUCCESS && scr_dataset_get_name(d, &name) != SCR_SUCCESS) {
        char text[64];
        snprintf(text, sizeof(text), "scr.dataset.%d", id);
        rc = scr_dataset_set_name(d, text);
    }
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_complete(d, complete);
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
    if (scr_index_file_lookup_id(index, name, &older) == SCR_SUCCESS && older != id)
        rc = scr_index_file_remove(index, older);
    if (rc == SCR_SUCCESS) rc = scr_index_file_set_dataset(index, e->desc, e->complete);
    if (rc == SCR_SUCCESS) rc = scr_index_file_set_missing(index, id, e->missing, e->nmissing);
    if (rc == SCR_SUCCESS) rc = scr_index_file_format_timestamp(time(NULL), stamp, sizeof(stamp));
    if (rc == SCR_SUCCESS) rc = scr_index_file_mark_flushed(index, id, stamp);
    int newer_current = scr_index_file_get_current(index, &current) == SCR_SUCCESS &&
                        scr_index_file_lookup_id(index, current, &cur_id) == SCR_SUCCESS && cur_id > id;
    if (rc == SCR_SUCCESS && e->complete && scr_dataset_is_checkpoint(e->desc) && !newer_current)
        rc = scr_index_file_set_current(index, name);
    return rc;
}

static int update_index(const char *prefix, const struct entry *e)
{
    char *path = NULL;
    int rc = scr_index_file_path(prefix, &path);
    if (rc == SCR_SUCCESS) rc = scr_index_file_update(path, add_entry, (void *)e);
    free(path);
    return rc;
}

/* Step 1: a summary says the dataset is complete. SCR_ERR_NOTFOUND when there is none. */
static int index_from_summary(const struct scr_scan_index_options *o, const char *spath,
                              struct scr_scan_index_result *out)
{
    scr_kvtree *summary = scr_kvtree_new();
    const scr_dataset *found = NULL;
    scr_dataset *desc = NULL;
    int rc = summary ? scr_summary_read(spath, summary) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && (scr_summary_get_dataset(summary, &found) != SCR_SUCCESS ||
                              scr_dataset_get_id(found, &out->id) != SCR_SUCCESS)) {
        scr_err("%s: no dataset id in the summary", spath);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS) rc = descriptor(found, out->id, 1, &desc);
    struct entry e = {desc, 1, NULL, 0};
    if (rc == SCR_SUCCESS) rc = update_index(o->prefix, &e);
    if (rc == SCR_SUCCESS) out->complete = 1;
    scr_dataset_delete(desc);
    scr_kvtree_delete(summary);
    return rc;
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

int scr_scan_index_dataset(const struct scr_scan_index_options *o, struct scr_scan_index_result *out)
{
    struct scr_scan *scan = NULL;
    scr_dataset *desc = NULL;
    char *spath = NULL;
    memset(out, 0, sizeof(*out));
    int rc = check_index(o->prefix);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_join(o->dir, SCR_SUMMARY_FILE_NAME, &spath);
    if (rc == SCR_SUCCESS) {
        rc = index_from_summary(o, spath, out);
        if (rc != SCR_ERR_NOTFOUND) goto done;
    }
    rc = scr_scan_dataset(o->dir, o->check_crc, &scan);
    if (rc == SCR_SUCCESS && scan->invalid) {
        scr_err("%s: not indexed, its records contradict each other", o->dir);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS && scan->nmissing > 0) {
        scr_rebuild_dataset(scan, o->buf_size, &out->rebuilt); /* says what it could not do */
        if (out->rebuilt > 0) {
            scr_scan_free(scan);
            scan = NULL;
            rc = scr_scan_dataset(o->dir, o->check_crc, &scan);
        }
    }
    if (rc == SCR_SUCCESS) {
        out->id = scan->id;
        out->complete = scr_scan_is_complete(scan);
        rc = descriptor(scan->desc, scan->id, out->complete, &desc);
    }
    if (rc == SCR_SUCCESS && out->complete) rc = write_summary(scan, spath);
    if (rc == SCR_SUCCESS && scan->nmissing > 0) {
        out->missing = malloc(sizeof(int) * (size_t)scan->nmissing);
        if (out->missing == NULL) rc = SCR_ERR_NOMEM;
        else memcpy(out->missing, scan->missing, sizeof(int) * (size_t)scan->nmissing);
        out->nmissing = scan->nmissing;
    }
    struct entry e = {desc, out->complete, out->missing, out->nmissing};
    if (rc == SCR_SUCCESS) rc = update_index(o->prefix, &e);
done:
    scr_scan_free(scan);
    scr_dataset_delete(desc);
    free(spath);
    return rc;
}
