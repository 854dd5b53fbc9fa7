/* rank_filemap.c — a rank's filemap entry as stored in a dataset directory. */
#include "rank_filemap.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scr_rank_filemap_path(const char *dir, int rank, char **out_path)
{
    char name[64];
    if (dir == NULL || dir[0] == '\0' || rank < 0 || out_path == NULL) {
        scr_err("rank filemap: no directory, or rank %d is not a rank", rank);
        return SCR_ERR_ARG;
    }
    snprintf(name, sizeof(name), "%d%s", rank, SCR_RANK_FILEMAP_SUFFIX);
    return scr_path_join(dir, name, out_path);
}

int scr_rank_filemap_is_name(const char *name, int *out_rank)
{
    if (name == NULL || out_rank == NULL) return 0;
    size_t len = strlen(name), slen = strlen(SCR_RANK_FILEMAP_SUFFIX);
    if (len <= slen || len - slen > 10 || strcmp(name + len - slen, SCR_RANK_FILEMAP_SUFFIX) != 0)
        return 0;
    size_t digits = len - slen;
    if (digits > 1 && name[0] == '0') return 0; /* the writer never pads */
    long long v = 0;
    for (size_t i = 0; i < digits; i++) {
        if (name[i] < '0' || name[i] > '9') return 0;
        v = v * 10 + (name[i] - '0');
    }
    if (v > INT_MAX) return 0;
    *out_rank = (int)v;
    return 1;
}

/* Where the copy puts file: back at PATH/NAME for an application file,
 * into dir under its own name for anything else. */
static int destination(const char *dir, const char *file, const scr_meta *meta, char **out)
{
    const char *path, *name;
    if (scr_meta_get_origpath(meta, &path) == SCR_SUCCESS &&
        scr_meta_get_origname(meta, &name) == SCR_SUCCESS)
        return scr_path_join(path, name, out);
    char *base;
    int rc = scr_path_basename(file, &base);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_join(dir, base, out);
    free(base);
    return rc;
}

int scr_rank_filemap_name_of(const char *dir, const char *file, const scr_meta *meta,
                             char **out_name)
{
    char *dest = NULL;
    int rc = destination(dir, file, meta, &dest);
    if (rc == SCR_SUCCESS) rc = scr_path_relative(dir, dest, out_name);
    free(dest);
    return rc;
}

/* Add file of the cache entry to rmap under its name relative to dir. */
static int add_file(scr_filemap *rmap, int id, int rank, const char *dir, const char *file,
                    const scr_meta *meta)
{
    char *rel = NULL;
    int rc = scr_rank_filemap_name_of(dir, file, meta, &rel);
    if (rc == SCR_SUCCESS && scr_filemap_have_file(rmap, id, rank, rel)) {
        scr_err("rank filemap: two files of rank %d in dataset %d would both be %s/%s (the "
                "second is %s)",
                rank, id, dir, rel, file);
        rc = SCR_ERR_ARG;
    }
    if (rc == SCR_SUCCESS && meta == NULL) rc = scr_filemap_add_file(rmap, id, rank, rel);
    if (rc == SCR_SUCCESS && meta != NULL) {
        scr_meta *copy = scr_meta_new();
        rc = copy == NULL ? SCR_ERR_NOMEM : scr_meta_copy(copy, meta);
        if (rc == SCR_SUCCESS) rc = scr_meta_set_filename(copy, rel);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(rmap, id, rank, rel, copy);
        scr_meta_delete(copy);
    }
    free(rel);
    return rc;
}

/* A file is the application's when its meta says FULL (no meta: unknown, kept). */
static int is_app_file(const scr_meta *meta)
{
    return meta == NULL || scr_meta_check_filetype(meta, SCR_META_TYPE_FULL) == SCR_SUCCESS;
}

static int build(const scr_filemap *map, int id, int rank, const char *dir, int app_only,
                 scr_filemap **out_rmap)
{
    if (out_rmap == NULL || dir == NULL || dir[0] != '/') {
        scr_err("rank filemap: the dataset directory '%s' is not an absolute path",
                dir ? dir : "(null)");
        return SCR_ERR_ARG;
    }
    if (!scr_filemap_have_rank_by_dataset(map, id, rank)) return SCR_ERR_NOTFOUND;
    scr_filemap *rmap = scr_filemap_new();
    if (rmap == NULL) return SCR_ERR_NOMEM;

    int rc = SCR_SUCCESS, expected, left_out = 0;
    const scr_dataset *desc;
    if (scr_filemap_get_dataset(map, id, rank, &desc) == SCR_SUCCESS)
        rc = scr_filemap_set_dataset(rmap, id, rank, desc);

    const char **files = NULL;
    int count = 0;
    if (rc == SCR_SUCCESS) rc = scr_filemap_list_files(map, id, rank, &files, &count);
    for (int i = 0; i < count && rc == SCR_SUCCESS; i++) {
        const scr_meta *meta = NULL;
        scr_filemap_get_meta(map, id, rank, files[i], &meta);
        if (app_only && !is_app_file(meta)) {
            left_out++;
            continue;
        }
        rc = add_file(rmap, id, rank, dir, files[i], meta);
    }
    free(files);
    if (rc == SCR_SUCCESS &&
        scr_filemap_get_expected_files(map, id, rank, &expected) == SCR_SUCCESS)
        rc = scr_filemap_set_expected_files(rmap, id, rank,
                                            expected > left_out ? expected - left_out : 0);
    if (rc != SCR_SUCCESS) {
        scr_filemap_delete(rmap);
        return rc;
    }
    *out_rmap = rmap;
    return SCR_SUCCESS;
}

int scr_rank_filemap_build(const scr_filemap *map, int id, int rank, const char *dir,
                           scr_filemap **out_rmap)
{
    return build(map, id, rank, dir, 0, out_rmap);
}

int scr_rank_filemap_build_app(const scr_filemap *map, int id, int rank, const char *dir,
                               scr_filemap **out_rmap)
{
    return build(map, id, rank, dir, 1, out_rmap);
}

int scr_rank_filemap_read(const char *path, scr_filemap *rmap)
{
    return scr_filemap_read_kind(path, SCR_FILEMAP_RANK, rmap);
}

int scr_rank_filemap_write(const char *path, const scr_filemap *rmap)
{
    return scr_filemap_write_kind(path, SCR_FILEMAP_RANK, rmap);
}

int scr_rank_filemap_list_files(const scr_filemap *rmap, int id, int rank,
                                struct scr_rank_filemap_file **out_files, int *out_count)
{
    if (out_files == NULL || out_count == NULL) return SCR_ERR_ARG;
    const char **names = NULL;
    int count = 0;
    int rc = scr_filemap_list_files(rmap, id, rank, &names, &count);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_rank_filemap_file *files = NULL;
    if (count > 0 && (files = malloc(sizeof(*files) * (size_t)count)) == NULL) {
        scr_err("rank filemap: out of memory listing %d files", count);
        free(names);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < count; i++) {
        files[i].name = names[i];
        files[i].meta = NULL;
        scr_filemap_get_meta(rmap, id, rank, names[i], &files[i].meta);
    }
    free(names);
    *out_files = files;
    *out_count = count;
    return SCR_SUCCESS;
}

int scr_rank_filemap_file_path(const char *dir, const char *name, const char *record,
                               char **out_path)
{
    if (dir == NULL || name == NULL || name[0] == '\0' || name[0] == '/') {
        scr_err("%s: '%s' is not a name relative to a dataset directory; refused", record,
                name ? name : "(null)");
        return SCR_ERR_FORMAT;
    }
    char *path = NULL, *up = NULL, *prefix = NULL;
    int inside = 0, in_records = 0, in_dir = 0;
    int rc = scr_path_join(dir, name, &path);
    if (rc == SCR_SUCCESS) rc = scr_path_dirname(dir, &up);
    if (rc == SCR_SUCCESS) rc = scr_path_dirname(up, &prefix);
    if (rc == SCR_SUCCESS) rc = scr_path_is_inside(prefix, path, &inside);
    if (rc == SCR_SUCCESS && !inside) {
        scr_err("%s: the file '%s' leads to %s, outside the prefix %s; refused", record, name, path,
                prefix);
        rc = SCR_ERR_FORMAT;
    }
    /* <prefix>/.scr holds the index and the other datasets' records: a
     * dataset's own redundancy files are in its directory, nothing of it
     * anywhere else there */
    if (rc == SCR_SUCCESS) rc = scr_path_is_inside(up, path, &in_records);
    if (rc == SCR_SUCCESS && in_records) rc = scr_path_is_inside(dir, path, &in_dir);
    if (rc == SCR_SUCCESS && in_records && !in_dir) {
        scr_err("%s: the file '%s' leads to %s, among the records of %s but outside this dataset's "
                "directory %s; "
                "refused",
                record, name, path, up, dir);
        rc = SCR_ERR_FORMAT;
    }
    free(up);
    free(prefix);
    if (rc != SCR_SUCCESS) {
        free(path);
        return rc;
    }
    *out_path = path;
    return SCR_SUCCESS;
}
