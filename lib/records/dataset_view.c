/* dataset_view.c — one rank's part of one dataset of a filemap, read once
 * (dataset_view.h). */
#include "dataset_view.h"

#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

static void free_file(struct scr_dataset_view_file *f)
{
    free((char *)f->path);
    scr_meta_delete((scr_meta *)f->meta);
}

void scr_dataset_view_free(struct scr_dataset_view *view)
{
    if (view == NULL) return;
    struct scr_dataset_view_file *files = (struct scr_dataset_view_file *)view->files;
    for (int f = 0; f < view->nfiles; f++) free_file(&files[f]);
    free(files);
    scr_dataset_delete((scr_dataset *)view->desc);
    scr_kvtree_delete((scr_kvtree *)view->reddesc);
    free(view);
}

/* The typed fields of f from its record (f->meta, NULL: none). */
static void read_fields(struct scr_dataset_view_file *f)
{
    const scr_meta *m = f->meta;
    f->is_app_file = 1;
    if (m == NULL) return;
    if (scr_meta_get_filename(m, &f->name) != SCR_SUCCESS) f->name = NULL;
    if (scr_meta_get_filetype(m, &f->type) != SCR_SUCCESS) f->type = NULL;
    f->is_app_file = f->type != NULL && strcmp(f->type, SCR_META_TYPE_FULL) == 0;
    f->complete = scr_meta_is_complete(m);
    f->has_size = scr_meta_get_filesize(m, &f->size) == SCR_SUCCESS;
    if (!f->has_size) f->size = 0;
    f->has_crc = scr_meta_get_crc32(m, &f->crc) == SCR_SUCCESS;
    if (!f->has_crc) f->crc = 0;
    f->compressed = scr_meta_get_compressed(m, &f->stored_size) == SCR_SUCCESS;
    if (!f->compressed) f->stored_size = 0;
    if (scr_meta_get_origname(m, &f->orig_name) != SCR_SUCCESS) f->orig_name = NULL;
    if (scr_meta_get_origpath(m, &f->orig_path) != SCR_SUCCESS) f->orig_path = NULL;
}

/* f as the file path of (id, rank) in map: its path and record copied. */
static int snapshot_file(const scr_filemap *map, int id, int rank, const char *path,
                         struct scr_dataset_view_file *f)
{
    const scr_meta *stored = NULL;
    scr_meta *meta = NULL;
    f->path = strdup(path);
    if (f->path == NULL) goto nomem;
    if (scr_filemap_get_meta(map, id, rank, path, &stored) == SCR_SUCCESS) {
        meta = scr_meta_new();
        if (meta == NULL || scr_meta_copy(meta, stored) != SCR_SUCCESS) goto nomem;
    }
    f->meta = meta;
    read_fields(f);
    return SCR_SUCCESS;
nomem:
    scr_meta_delete(meta);
    scr_err("out of memory reading file %s of rank %d in dataset %d", path, rank, id);
    return SCR_ERR_NOMEM;
}

/* view's descriptors and count of expected files, copied from map. */
static int snapshot_entry(const scr_filemap *map, struct scr_dataset_view *view)
{
    const scr_dataset *desc = NULL;
    const scr_kvtree *red = NULL;
    int expected = -1;
    if (scr_filemap_get_dataset(map, view->id, view->rank, &desc) == SCR_SUCCESS) {
        scr_dataset *copy = scr_dataset_new();
        view->desc = copy;
        if (copy == NULL || scr_dataset_copy(copy, desc) != SCR_SUCCESS) goto nomem;
    }
    if (scr_filemap_get_reddesc(map, view->id, view->rank, &red) == SCR_SUCCESS) {
        view->reddesc = scr_kvtree_dup(red);
        if (view->reddesc == NULL) goto nomem;
    }
    if (scr_filemap_get_expected_files(map, view->id, view->rank, &expected) != SCR_SUCCESS)
        expected = -1;
    view->expected_files = expected;
    return SCR_SUCCESS;
nomem:
    scr_err("out of memory reading the descriptors of rank %d in dataset %d", view->rank, view->id);
    return SCR_ERR_NOMEM;
}

/* view's files, each with its record, copied from map. */
static int snapshot_files(const scr_filemap *map, struct scr_dataset_view *view)
{
    const char **paths = NULL;
    int n = 0;
    int rc = scr_filemap_list_files(map, view->id, view->rank, &paths, &n);
    if (rc != SCR_SUCCESS || n == 0) goto out;
    struct scr_dataset_view_file *files = calloc((size_t)n, sizeof(*files));
    if (files == NULL) {
        scr_err("out of memory listing %d files of rank %d in dataset %d", n, view->rank, view->id);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    view->files = files;
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
        rc = snapshot_file(map, view->id, view->rank, paths[f], &files[f]);
        view->nfiles = f + 1; /* freed with the view, built or not */
    }
out:
    free(paths);
    return rc;
}

int scr_dataset_view_of(const scr_filemap *map, int id, int rank, struct scr_dataset_view **out)
{
    if (map == NULL || out == NULL) {
        scr_err("a dataset view needs a filemap and a place for the view");
        return SCR_ERR_ARG;
    }
    *out = NULL;
    if (!scr_filemap_have_rank_by_dataset(map, id, rank)) return SCR_ERR_NOTFOUND;
    struct scr_dataset_view *view = calloc(1, sizeof(*view));
    if (view == NULL) {
        scr_err("out of memory for the view of rank %d in dataset %d", rank, id);
        return SCR_ERR_NOMEM;
    }
    view->id = id;
    view->rank = rank;
    int rc = snapshot_entry(map, view);
    if (rc == SCR_SUCCESS) rc = snapshot_files(map, view);
    if (rc != SCR_SUCCESS) {
        scr_dataset_view_free(view);
        return rc;
    }
    *out = view;
    return SCR_SUCCESS;
}
