/* scavenge_paths.c — where a scavenge may read and write. */
#include "scavenge_paths.h"
#include "job_file.h"
#include "meta.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scr_scavenge_paths_load(const char *cntl_dir, const char *prefix,
                            struct scr_scavenge_paths *out)
{
    memset(out, 0, sizeof(*out));
    int rc = scr_path_normalize(cntl_dir, &out->cntl_dir);
    if (rc == SCR_SUCCESS) rc = scr_path_normalize(prefix, &out->prefix);
    if (rc == SCR_SUCCESS) {
        rc = scr_job_file_prefix_of(cntl_dir, &out->job_prefix);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* no job file: only the given prefix */
    }
    if (rc == SCR_SUCCESS) {
        rc = scr_job_file_cache_dirs_of(cntl_dir, &out->cache_dirs);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS;
        if (rc == SCR_SUCCESS && out->cache_dirs != NULL && out->cache_dirs[0] == NULL) {
            scr_job_file_free_dirs(out->cache_dirs); /* none recorded: an older build's job file */
            out->cache_dirs = NULL;
        }
    }
    if (rc != SCR_SUCCESS) scr_scavenge_paths_free(out);
    return rc;
}

void scr_scavenge_paths_free(struct scr_scavenge_paths *p)
{
    free(p->cntl_dir);
    free(p->prefix);
    free(p->job_prefix);
    scr_job_file_free_dirs(p->cache_dirs);
    memset(p, 0, sizeof(*p));
}

/* *out_inside: path lies strictly below dir. */
static int is_below(const char *dir, const char *path, int *out_inside)
{
    int rc = scr_path_is_inside(dir, path, out_inside);
    if (rc == SCR_SUCCESS && *out_inside) {
        char *a = NULL, *b = NULL;
        rc = scr_path_normalize(dir, &a);
        if (rc == SCR_SUCCESS) rc = scr_path_normalize(path, &b);
        if (rc == SCR_SUCCESS && strcmp(a, b) == 0) *out_inside = 0;
        free(a);
        free(b);
    }
    return rc;
}

int scr_scavenge_paths_check_filemap(const struct scr_scavenge_paths *p, const char *master,
                                     const char *path)
{
    int inside = 0;
    int rc = path[0] == '/' && p->cntl_dir[0] == '/' ? is_below(p->cntl_dir, path, &inside)
                                                     : SCR_SUCCESS;
    if (rc == SCR_SUCCESS && !inside && path[0] == '/') {
        /* one directory spelled two ways (/dev/shm, /run/shm): compare where both lead */
        char *real_dir = realpath(p->cntl_dir, NULL), *real_path = realpath(path, NULL);
        if (real_dir != NULL && real_path != NULL) rc = is_below(real_dir, real_path, &inside);
        free(real_dir);
        free(real_path);
    }
    if (rc == SCR_SUCCESS && !inside) {
        scr_err("%s: the filemap %s is not in the control directory %s; refused, nothing copied",
                master, path, p->cntl_dir);
        rc = SCR_ERR_FORMAT;
    }
    return rc;
}

/* The cache file file of dataset id must lie in the dataset's directory
 * of one of the job's cache directories (any directory scr.dataset.<id>
 * when none is recorded). */
static int check_cache_file(const struct scr_scavenge_paths *p, const char *record, int id,
                            int rank, const char *file)
{
    char name[64], *norm = NULL;
    int inside = 0;
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    int rc = file[0] == '/' ? scr_path_normalize(file, &norm) : SCR_ERR_FORMAT;
    for (int i = 0;
         rc == SCR_SUCCESS && p->cache_dirs != NULL && p->cache_dirs[i] != NULL && !inside; i++) {
        char *dsdir = NULL;
        rc = scr_path_join(p->cache_dirs[i], name, &dsdir);
        if (rc == SCR_SUCCESS) rc = is_below(dsdir, norm, &inside);
        free(dsdir);
    }
    if (rc == SCR_SUCCESS && p->cache_dirs == NULL) {
        char component[80];
        snprintf(component, sizeof(component), "/%s/", name);
        inside = strstr(norm, component) != NULL;
    }
    if (rc == SCR_ERR_FORMAT || (rc == SCR_SUCCESS && !inside)) {
        scr_err("%s: the file %s of rank %d in dataset %d is not in the dataset's cache directory "
                "(%s of %s); "
                "refused, nothing copied",
                record, file, rank, id, name,
                p->cache_dirs != NULL ? "a cache directory the job recorded" : "any directory");
        rc = SCR_ERR_FORMAT;
    }
    free(norm);
    return rc;
}

/* meta's PATH and NAME made those of path. */
static int set_original(scr_meta *meta, const char *path)
{
    char *dir = NULL, *name = NULL;
    int rc = scr_path_dirname(path, &dir);
    if (rc == SCR_SUCCESS) rc = scr_path_basename(path, &name);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_origpath(meta, dir);
    if (rc == SCR_SUCCESS) rc = scr_meta_set_origname(meta, name);
    free(dir);
    free(name);
    return rc;
}

/* The original path of file (PATH/NAME of meta, when it has both) must be
 * under the given prefix; one under the job's prefix is moved onto it in
 * *moved (a new meta, NULL when nothing moves). */
static int check_original(const struct scr_scavenge_paths *p, const char *record, int id, int rank,
                          const scr_meta *meta, scr_meta **moved)
{
    const char *dir = NULL, *name = NULL;
    *moved = NULL;
    if (scr_meta_get_origpath(meta, &dir) != SCR_SUCCESS ||
        scr_meta_get_origname(meta, &name) != SCR_SUCCESS)
        return SCR_SUCCESS; /* stored in the dataset directory under its own name */
    char *orig = NULL, *rel = NULL, *dest = NULL;
    int inside = 0, in_job = 0;
    int rc = dir[0] == '/' ? scr_path_join(dir, name, &orig) : SCR_ERR_FORMAT;
    if (rc == SCR_SUCCESS) rc = is_below(p->prefix, orig, &inside);
    if (rc == SCR_SUCCESS && !inside && p->job_prefix != NULL)
        rc = is_below(p->job_prefix, orig, &in_job);
    if (rc == SCR_SUCCESS && !inside && in_job) {
        rc = scr_path_relative(p->job_prefix, orig, &rel);
        if (rc == SCR_SUCCESS) rc = scr_path_join(p->prefix, rel, &dest);
        if (rc == SCR_SUCCESS) rc = (*moved = scr_meta_new()) != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_meta_copy(*moved, meta);
        if (rc == SCR_SUCCESS) rc = set_original(*moved, dest);
        if (rc == SCR_SUCCESS)
            scr_dbg(1, "%s: rank %d's %s goes to %s, under the prefix given", record, rank, orig,
                    dest);
    } else if (rc == SCR_ERR_FORMAT || (rc == SCR_SUCCESS && !inside)) {
        scr_err("%s: the file %s/%s of rank %d in dataset %d is to go outside the prefix %s%s%s; "
                "refused, "
                "nothing copied",
                record, dir, name, rank, id, p->prefix,
                p->job_prefix != NULL ? " and the job's prefix " : "",
                p->job_prefix != NULL ? p->job_prefix : "");
        rc = SCR_ERR_FORMAT;
    }
    if (rc != SCR_SUCCESS) {
        scr_meta_delete(*moved);
        *moved = NULL;
    }
    free(orig);
    free(rel);
    free(dest);
    return rc;
}

/* Every file of rank's entry in dataset id; the metas moved are set once
 * all are checked, for the names listed point into map. */
static int check_entry(const struct scr_scavenge_paths *p, const char *record, scr_filemap *map,
                       int id, int rank)
{
    const char **files = NULL;
    int n = 0;
    int rc = scr_filemap_list_files(map, id, rank, &files, &n);
    char **names = n > 0 ? calloc((size_t)n, sizeof(char *)) : NULL;
    scr_meta **moved = n > 0 ? calloc((size_t)n, sizeof(scr_meta *)) : NULL;
    if (rc == SCR_SUCCESS && n > 0 && (names == NULL || moved == NULL)) rc = SCR_ERR_NOMEM;
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
        const scr_meta *meta = NULL;
        rc = check_cache_file(p, record, id, rank, files[f]);
        if (rc == SCR_SUCCESS &&
            scr_filemap_get_meta(map, id, rank, files[f], &meta) == SCR_SUCCESS)
            rc = check_original(p, record, id, rank, meta, &moved[f]);
        if (rc == SCR_SUCCESS && moved[f] != NULL && (names[f] = strdup(files[f])) == NULL)
            rc = SCR_ERR_NOMEM;
    }
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++)
        if (moved[f] != NULL) rc = scr_filemap_set_meta(map, id, rank, names[f], moved[f]);
    for (int f = 0; f < n && names != NULL && moved != NULL; f++) {
        free(names[f]);
        scr_meta_delete(moved[f]);
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory checking the files of %s", record);
    free(names);
    free(moved);
    free(files);
    return rc;
}

int scr_scavenge_paths_apply(const struct scr_scavenge_paths *p, const char *record,
                             scr_filemap *map)
{
    int *ids = NULL, nids = 0;
    int rc = scr_filemap_list_datasets(map, &ids, &nids);
    for (int d = 0; rc == SCR_SUCCESS && d < nids; d++) {
        int *ranks = NULL, nranks = 0;
        rc = scr_filemap_list_ranks_by_dataset(map, ids[d], &ranks, &nranks);
        for (int r = 0; rc == SCR_SUCCESS && r < nranks; r++)
            rc = check_entry(p, record, map, ids[d], ranks[r]);
        free(ranks);
    }
    free(ids);
    return rc;
}
