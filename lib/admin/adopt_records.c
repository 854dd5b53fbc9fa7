/* adopt_records.c — rank filemaps, summary and index entry of an adopted directory. */
#include "adopt_records.h"
#include "dataset.h"
#include "dataset_claim.h"
#include "filemap.h"
#include "index_file.h"
#include "job_env.h"
#include "meta.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"
#include "util_undo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

/* One writing of the records. */
struct records {
    const struct scr_adopt_records *r;
    struct scr_adopt_list *list;
    char *dir_lex; /* prefix/dir_rel: where a restart finds the files */
    scr_dataset *desc;
};

/* The descriptor of the adopted dataset. */
static int make_descriptor(struct records *a)
{
    char user[256];
    struct timeval now;
    uint64_t bytes = 0;
    for (int i = 0; i < a->list->n; i++) bytes += a->list->files[i].size;
    gettimeofday(&now, NULL);
    if ((a->desc = scr_dataset_new()) == NULL) return SCR_ERR_NOMEM;
    int rc = scr_dataset_set_id(a->desc, a->r->id);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_name(a->desc, a->r->name);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_flags(a->desc, SCR_DATASET_FLAG_CHECKPOINT);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_ckpt(a->desc, a->r->ckpt);
    if (rc == SCR_SUCCESS)
        rc = scr_dataset_set_created(a->desc, (int64_t)now.tv_sec * 1000000 + now.tv_usec);
    if (rc == SCR_SUCCESS && scr_job_env_user_name(user, sizeof(user)) == SCR_SUCCESS)
        rc = scr_dataset_set_username(a->desc, user);
    /* the writer, where a flushed dataset names its job (claims compare it) */
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_jobid(a->desc, SCR_ADOPT_JOBID);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_size(a->desc, bytes);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_files(a->desc, a->list->n);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_complete(a->desc, 1);
    return rc;
}

/* The meta a flush would have recorded for f, named name in the dataset
 * directory and owned by rank. */
static int file_meta(const struct records *a, const struct scr_adopt_file *f, const char *name,
                     scr_meta **out)
{
    char *orig = NULL, *path = NULL, *dir = NULL, *base = NULL;
    scr_meta *meta = scr_meta_new();
    int rc = meta != NULL ? scr_path_join(a->r->dir_rel, f->rel, &orig) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_path_join(a->r->prefix, orig, &path);
    if (rc == SCR_SUCCESS) rc = scr_path_dirname(path, &dir);
    if (rc == SCR_SUCCESS) rc = scr_path_basename(path, &base);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_filename(meta, name);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_filetype(meta, SCR_META_TYPE_FULL);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_complete(meta, 1);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_filesize(meta, f->size);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_crc32(meta, f->crc);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_rank(meta, f->rank);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_ranks(meta, a->r->ranks);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_checkpoint(meta, a->r->ckpt);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_origpath(meta, dir);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_origname(meta, base);
    /* as an application in the prefix would have routed it */
    if (rc == SCR_SUCCESS) rc = scr_meta_set_orig(meta, orig);
    free(orig);
    free(path);
    free(dir);
    free(base);
    if (rc != SCR_SUCCESS) {
        scr_meta_delete(meta);
        return rc;
    }
    *out = meta;
    return SCR_SUCCESS;
}

/* The rank filemap of rank: its count files from files[first] on (the
 * list sorted by rank), named relative to dsdir. */
static int build_rank_filemap(const struct records *a, const char *dsdir, int rank, int first,
                              int count, scr_filemap **out)
{
    scr_filemap *rmap = scr_filemap_new();
    char *name = NULL, *path = NULL;
    scr_meta *meta = NULL;
    int rc = rmap != NULL ? scr_filemap_set_dataset(rmap, a->r->id, rank, a->desc) : SCR_ERR_NOMEM;
    for (int i = first; rc == SCR_SUCCESS && i < first + count; i++) {
        const struct scr_adopt_file *f = &a->list->files[i];
        rc = scr_path_join(a->dir_lex, f->rel, &path);
        if (rc == SCR_SUCCESS) rc = scr_path_relative(dsdir, path, &name);
        if (rc == SCR_SUCCESS) rc = file_meta(a, f, name, &meta);
        if (rc == SCR_SUCCESS) rc = scr_filemap_add_file(rmap, a->r->id, rank, name);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(rmap, a->r->id, rank, name, meta);
        scr_meta_delete(meta);
        meta = NULL;
        free(name);
        free(path);
        name = path = NULL;
    }
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_expected_files(rmap, a->r->id, rank, count);
    if (rc != SCR_SUCCESS) {
        scr_filemap_delete(rmap);
        return rc;
    }
    *out = rmap;
    return SCR_SUCCESS;
}

/* The files of one rank together, each rank's in name order. */
static int by_rank(const void *x, const void *y)
{
    const struct scr_adopt_file *f = x, *g = y;
    if (f->rank != g->rank) return (f->rank > g->rank) - (f->rank < g->rank);
    return strcmp(f->rel, g->rel);
}

/* A file written by this attempt is noted in undo, so that a failure takes it back. */
static int note_new(struct scr_undo *undo, const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0) return SCR_SUCCESS;
    return scr_undo_note_file(undo, path);
}

/* Every rank's rank filemap in dsdir, and the summary made of them. */
static int write_records(struct records *a, const char *dsdir, struct scr_undo *undo)
{
    int n = a->list->n, at = 0;
    char *path = NULL;
    scr_kvtree *summary = scr_kvtree_new();
    if (summary == NULL) {
        scr_err("out of memory writing the records of %s", a->dir_lex);
        return SCR_ERR_NOMEM;
    }
    qsort(a->list->files, (size_t)n, sizeof(*a->list->files), by_rank);
    int rc = scr_summary_set_dataset(summary, a->desc);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_ranks(summary, a->r->ranks);
    for (int rank = 0; rc == SCR_SUCCESS && rank < a->r->ranks; rank++) {
        int count = 0;
        while (at + count < n && a->list->files[at + count].rank == rank) count++;
        scr_filemap *rmap = NULL;
        rc = build_rank_filemap(a, dsdir, rank, at, count, &rmap);
        at += count;
        if (rc == SCR_SUCCESS) rc = scr_rank_filemap_path(dsdir, rank, &path);
        if (rc == SCR_SUCCESS) rc = note_new(undo, path);
        if (rc == SCR_SUCCESS) rc = scr_rank_filemap_write(path, rmap);
        if (rc == SCR_SUCCESS) rc = scr_summary_add_rank_files(summary, rmap, a->r->id, rank);
        scr_filemap_delete(rmap);
        free(path);
        path = NULL;
    }
    if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path);
    if (rc == SCR_SUCCESS) rc = note_new(undo, path);
    if (rc == SCR_SUCCESS) rc = scr_summary_write(path, summary);
    free(path);
    scr_kvtree_delete(summary);
    return rc;
}

/* Inside the index's lock: the entry, once more sure that neither the
 * name nor the id is taken. */
static int add_entry(scr_kvtree *index, void *ctx)
{
    const struct records *a = ctx;
    char stamp[SCR_INDEX_TIMESTAMP_SIZE];
    const scr_dataset *listed = NULL;
    int other = 0;
    if (scr_index_file_lookup_id(index, a->r->name, &other) == SCR_SUCCESS ||
        scr_index_file_get_dataset(index, a->r->id, &listed) == SCR_SUCCESS) {
        scr_err(
            "the index of %s gained dataset %s or id %d while %s was adopted; nothing was indexed",
            a->r->prefix, a->r->name, a->r->id, a->dir_lex);
        return SCR_ERR_STATE;
    }
    int rc = scr_index_file_set_dataset(index, a->desc, 1);
    if (rc == SCR_SUCCESS) rc = scr_index_file_format_timestamp(time(NULL), stamp, sizeof(stamp));
    if (rc == SCR_SUCCESS) rc = scr_index_file_mark_flushed(index, a->r->id, stamp);
    if (rc == SCR_SUCCESS && a->r->make_current) rc = scr_index_file_set_current(index, a->r->name);
    return rc;
}

int scr_adopt_records_write(const struct scr_adopt_records *r, struct scr_adopt_list *list)
{
    struct records a = {r, list, NULL, NULL};
    struct scr_undo undo = SCR_UNDO_INIT;
    char sub[64], *dsdir = NULL, *ipath = NULL;
    int claimed = 0, removed = 0;
    int rc = scr_path_join(r->prefix, r->dir_rel, &a.dir_lex);
    if (rc == SCR_SUCCESS) rc = make_descriptor(&a);
    if (rc != SCR_SUCCESS) goto out;
    snprintf(sub, sizeof(sub), ".scr/scr.dataset.%d", r->id);
    rc = scr_path_join(r->prefix, sub, &dsdir);
    if (rc == SCR_SUCCESS) rc = scr_undo_note_missing_dirs(&undo, dsdir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dsdir, 0700);
    if (rc == SCR_SUCCESS) rc = scr_dataset_claim(dsdir, a.desc, &claimed);
    if (rc == SCR_SUCCESS && claimed) {
        char *cpath = NULL;
        rc = scr_path_join(dsdir, SCR_DATASET_CLAIM_NAME, &cpath);
        if (rc == SCR_SUCCESS) rc = scr_undo_note_file(&undo, cpath);
        free(cpath);
    }
    if (rc == SCR_SUCCESS) rc = write_records(&a, dsdir, &undo);
    if (rc == SCR_SUCCESS) rc = scr_index_file_path(r->prefix, &ipath);
    if (rc == SCR_SUCCESS)
        rc = scr_index_file_update(ipath, add_entry, &a); /* the index is replaced whole, or kept */
out:
    if (rc != SCR_SUCCESS) {
        scr_undo_files(&undo, &removed);
        scr_undo_dirs(&undo);
    }
    scr_undo_clear(&undo);
    free(dsdir);
    free(ipath);
    free(a.dir_lex);
    scr_dataset_delete(a.desc);
    return rc;
}
