/* prefix_trim.c — delete datasets from a prefix, records with files, in the
 * order prefix_trim.h gives. */
#include "prefix_trim.h"
#include "dataset_claim.h"
#include "index_file.h"
#include "kvtree_util.h"
#include "rank2file.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"
#include "util_testpoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the index update decides: ids leaving it, ids it keeps. */
struct choice {
    int keep, busy_id;
    int *victims, nvictims;
    int *kept, nkept;
};

static void choice_free(struct choice *c)
{
    free(c->victims);
    free(c->kept);
    c->victims = c->kept = NULL;
    c->nvictims = c->nkept = 0;
}

/* Whether dataset id of index must stay although it is an older checkpoint. */
static int is_protected(const scr_kvtree *index, int id, const struct choice *c)
{
    const scr_dataset *d = NULL;
    const char *name = NULL, *current = NULL;
    if (id == c->busy_id) return 1;
    if (scr_index_file_get_dataset(index, id, &d) != SCR_SUCCESS) return 1;
    if (scr_dataset_is_output(d)) return 1; /* output is the application's to delete */
    return scr_index_file_get_name(index, id, &name) == SCR_SUCCESS &&
           scr_index_file_get_current(index, &current) == SCR_SUCCESS && strcmp(name, current) == 0;
}

/* Under the index's lock: drop the checkpoints beyond the newest keep. */
static int choose(scr_kvtree *index, void *ctx)
{
    struct choice *c = ctx;
    int *ids = NULL, n = 0, checkpoints = 0;
    int rc = scr_index_file_list_ids(index, &ids, &n); /* newest first */
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS;
    if (rc != SCR_SUCCESS) return rc;
    c->victims = calloc((size_t)n + 1, sizeof(int));
    c->kept = calloc((size_t)n + 1, sizeof(int));
    if (c->victims == NULL || c->kept == NULL) {
        scr_err("out of memory choosing the checkpoints to delete from the prefix");
        free(ids);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        const scr_dataset *d = NULL;
        int is_ckpt = scr_index_file_get_dataset(index, ids[i], &d) == SCR_SUCCESS &&
                      scr_dataset_is_checkpoint(d);
        /* only checkpoints a restart may load count toward the ones kept: a
         * FAILED or incomplete one never stands in for an older good one,
         * and goes once keep good ones are newer than it */
        const char *why = NULL;
        int usable = is_ckpt && scr_index_file_restartable(index, ids[i], &why) == SCR_SUCCESS &&
                     why == NULL;
        if (usable) checkpoints++;
        int beyond = usable ? checkpoints > c->keep : checkpoints >= c->keep;
        if (is_ckpt && beyond && !is_protected(index, ids[i], c))
            c->victims[c->nvictims++] = ids[i];
        else
            c->kept[c->nkept++] = ids[i];
    }
    free(ids);
    for (int i = 0; rc == SCR_SUCCESS && i < c->nvictims; i++)
        rc = scr_index_file_remove(index, c->victims[i]);
    return rc;
}

/* --- what a dataset directory lists -------------------------------------------- */

/* Every file the rank2file of a dataset SCR 3.1 flushed into dsdir lists,
 * as a normalised path, into set (nothing when it cannot be read). */
static void add_listed_scr31(const char *dsdir, scr_kvtree *set)
{
    scr_kvtree *files = NULL;
    char *scrdir = NULL, *prefix = NULL;
    int ranks = 0;
    if (scr_rank2file_read(dsdir, &ranks, &files) != SCR_SUCCESS ||
        scr_path_dirname(dsdir, &scrdir) != SCR_SUCCESS ||
        scr_path_dirname(scrdir, &prefix) != SCR_SUCCESS)
        ranks = 0;
    for (int r = 0; r < ranks; r++) {
        const scr_kvtree *listed = scr_kvtree_get(scr_kvtree_get_kv_int(files, "RANK", r), "FILE");
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(listed); e; e = scr_kvtree_elem_next(e)) {
            char *file = NULL; /* relative to the prefix, and checked to stay inside it */
            int in_records = 1;
            if (scr_path_join(prefix, scr_kvtree_elem_key(e), &file) == SCR_SUCCESS &&
                scr_path_is_inside(scrdir, file, &in_records) == SCR_SUCCESS && in_records)
                scr_warn("the rank2file of %s lists %s, among the records of the prefix; it is not "
                         "deleted",
                         dsdir, file);
            else if (!in_records)
                scr_kvtree_set_kv(set, "PATH", file);
            free(file);
        }
    }
    scr_kvtree_delete(files);
    free(scrdir);
    free(prefix);
}

/* Every file the summary in dsdir lists, as a normalised path, into set
 * (nothing when dsdir has no readable summary). */
static void add_listed(const char *dsdir, scr_kvtree *set)
{
    char *path = NULL;
    scr_kvtree *summary = scr_kvtree_new();
    int *ranks = NULL, nranks = 0;
    if (summary == NULL || scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path) != SCR_SUCCESS ||
        scr_summary_read(path, summary) != SCR_SUCCESS ||
        scr_summary_list_ranks(summary, &ranks, &nranks) != SCR_SUCCESS)
        nranks = 0;
    if (scr_kvtree_get(summary, "DSET") != NULL && scr_kvtree_get(summary, "RANK2FILE") == NULL)
        add_listed_scr31(dsdir, set); /* SCR 3.1 lists the files apart */
    for (int r = 0; r < nranks; r++) {
        const char **names = NULL;
        int n = 0;
        if (scr_summary_list_files(summary, ranks[r], &names, &n) != SCR_SUCCESS) continue;
        for (int f = 0; f < n; f++) {
            char *file = NULL; /* a name into the index or other records is refused (said) */
            if (scr_rank_filemap_file_path(dsdir, names[f], path, &file) == SCR_SUCCESS)
                scr_kvtree_set_kv(set, "PATH", file);
            free(file);
        }
        free(names);
    }
    free(ranks);
    free(path);
    scr_kvtree_delete(summary);
}

/* The files the summary of trash (a scr.deleting.<id> directory) lists that
 * step 4 removes, into doomed: those in the prefix, outside trash, that no
 * kept dataset lists. */
static void add_doomed_files(const char *prefix, const char *trash, const scr_kvtree *kept_files,
                             scr_kvtree *doomed)
{
    scr_kvtree *mine = scr_kvtree_new();
    if (mine != NULL) add_listed(trash, mine);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(mine, "PATH")); e;
         e = scr_kvtree_elem_next(e)) {
        const char *file = scr_kvtree_elem_key(e);
        int in_prefix = 0, in_trash = 0;
        if (scr_path_is_inside(prefix, file, &in_prefix) != SCR_SUCCESS || !in_prefix) continue;
        if (scr_path_is_inside(trash, file, &in_trash) != SCR_SUCCESS || in_trash)
            continue; /* step 5's */
        if (scr_kvtree_get_kv(kept_files, "PATH", file) != NULL)
            continue; /* a kept dataset's too */
        scr_kvtree_set_kv(doomed, "PATH", file);
    }
    scr_kvtree_delete(mine);
}

/* Whether the summary in dsdir lists a file of doomed. */
static int lists_doomed(const char *dsdir, const scr_kvtree *doomed)
{
    scr_kvtree *mine = scr_kvtree_new();
    int found = 0;
    if (mine != NULL) add_listed(dsdir, mine);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(mine, "PATH")); !found && e;
         e = scr_kvtree_elem_next(e))
        found = scr_kvtree_get_kv(doomed, "PATH", scr_kvtree_elem_key(e)) != NULL;
    scr_kvtree_delete(mine);
    return found;
}

/* --- the steps ---------------------------------------------------------------- */

/* Step 3: the summary in dsdir says COMPLETE 0, replaced atomically.
 * Without a summary there is nothing to mark; one that cannot be read or
 * written is reported, and its directory's name still hides it from every
 * reader. */
static void mark_incomplete(const char *dsdir)
{
    char *path = NULL;
    scr_kvtree *summary = scr_kvtree_new();
    if (summary == NULL || scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path) != SCR_SUCCESS)
        goto out;
    int rc = scr_summary_read(path, summary); /* a damaged one says why */
    if (rc == SCR_SUCCESS && scr_summary_is_complete(summary)) {
        rc = scr_summary_set_complete(summary, 0);
        if (rc == SCR_SUCCESS) rc = scr_summary_write(path, summary);
    }
    if (rc != SCR_SUCCESS && rc != SCR_ERR_NOTFOUND)
        scr_warn("could not mark %s incomplete before deleting its dataset's files", path);
out:
    free(path);
    scr_kvtree_delete(summary);
}

/* Step 2 for the dataset directory scr.dataset.<id> of prefix_scr: renamed
 * scr.deleting.<id>, or scr.deleting.<id>.<n> when a deletion that did not
 * finish left that name (a later dataset took the id again): the old trash
 * is finished with this one, each in its own directory. SCR_SUCCESS with
 * *out_trash (may be NULL) the new path; SCR_ERR_NOTFOUND (not said) when
 * there is no such directory; SCR_ERR_IO (said) when it stays as it is. */
static int doom(const char *prefix_scr, int id, char **out_trash)
{
    char name[64], trash_name[80], *dir = NULL, *trash = NULL;
    if (out_trash != NULL) *out_trash = NULL;
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    int rc = scr_path_join(prefix_scr, name, &dir);
    for (int n = 0; rc == SCR_SUCCESS; n++) {
        if (n == 0)
            snprintf(trash_name, sizeof(trash_name), SCR_PREFIX_TRIM_DIR_PREFIX "%d", id);
        else
            snprintf(trash_name, sizeof(trash_name), SCR_PREFIX_TRIM_DIR_PREFIX "%d.%d", id, n);
        free(trash);
        trash = NULL;
        rc = scr_path_join(prefix_scr, trash_name, &trash);
        if (rc != SCR_SUCCESS) break;
        if (rename(dir, trash) == 0) {
            scr_testpoint_crash(SCR_TP_TRIM_AFTER_RENAME);
            break;
        }
        int taken =
            errno == EEXIST || errno == ENOTEMPTY; /* a directory an earlier deletion left */
        if (errno == ENOENT) {
            rc = SCR_ERR_NOTFOUND;
        } else if (!taken || n >= 1000) {
            scr_warn("cannot rename %s to %s to delete it: %s", dir, trash, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    free(dir);
    if (rc == SCR_SUCCESS && out_trash != NULL)
        *out_trash = trash;
    else
        free(trash);
    return rc;
}

/* The scr.deleting.* directories of prefix_scr, as paths under "DIR" of a
 * new tree (NULL when there are none or the directory cannot be read). */
static scr_kvtree *list_trash(const char *prefix_scr)
{
    DIR *d = opendir(prefix_scr);
    if (d == NULL) return NULL;
    scr_kvtree *dirs = scr_kvtree_new();
    for (struct dirent *e; dirs != NULL && (e = readdir(d)) != NULL;) {
        char *path = NULL;
        if (strncmp(e->d_name, SCR_PREFIX_TRIM_DIR_PREFIX, strlen(SCR_PREFIX_TRIM_DIR_PREFIX)) ==
                0 &&
            scr_path_join(prefix_scr, e->d_name, &path) == SCR_SUCCESS)
            scr_kvtree_set_kv(dirs, "DIR", path);
        free(path);
    }
    closedir(d);
    if (dirs != NULL && scr_kvtree_get(dirs, "DIR") == NULL) {
        scr_kvtree_delete(dirs);
        dirs = NULL;
    }
    return dirs;
}

static int is_one_of(const int *ids, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id) return 1;
    return 0;
}

/* The ids of the scr.dataset.<id> directories of prefix_scr that the index
 * does not list (kept) and no flush is writing (busy_id): a new array. */
static int unlisted_ids(const char *prefix_scr, const int *kept, int nkept, int busy_id,
                        int **out_ids, int *out_n)
{
    int *ids = NULL, n = 0;
    *out_ids = NULL;
    *out_n = 0;
    DIR *d = opendir(prefix_scr);
    if (d == NULL) return SCR_SUCCESS; /* nothing there; the trash was found there, so said below */
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int id = 0;
        if (scr_dataset_dir_name_id(e->d_name, &id) != SCR_SUCCESS || id == busy_id ||
            is_one_of(kept, nkept, id))
            continue;
        int *more = realloc(ids, sizeof(int) * (size_t)(n + 1));
        if (more == NULL) {
            closedir(d);
            free(ids);
            scr_err("out of memory listing the dataset directories of %s", prefix_scr);
            return SCR_ERR_NOMEM;
        }
        ids = more;
        ids[n++] = id;
    }
    closedir(d);
    *out_ids = ids;
    *out_n = n;
    return SCR_SUCCESS;
}

/* The files that dir, a dataset directory of the prefix that stays, lists
 * leave doomed for kept_files, as those of a kept dataset do. */
static int keep_listed_files(const char *prefix, const char *dir, scr_kvtree *kept_files,
                             scr_kvtree *doomed)
{
    scr_kvtree *mine = scr_kvtree_new();
    if (mine == NULL) {
        scr_err("out of memory deleting the datasets of %s", prefix);
        return SCR_ERR_NOMEM;
    }
    int rc = SCR_SUCCESS;
    add_listed(dir, mine);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(mine, "PATH")); e;
         e = scr_kvtree_elem_next(e)) {
        scr_kvtree_unset_kv(doomed, "PATH", scr_kvtree_elem_key(e));
        if (scr_kvtree_set_kv(kept_files, "PATH", scr_kvtree_elem_key(e)) == NULL) {
            scr_err("out of memory deleting the datasets of %s", prefix);
            rc = SCR_ERR_NOMEM;
            break;
        }
    }
    if (rc == SCR_SUCCESS) scr_warn("%s stays, and the files it lists with it", dir);
    scr_kvtree_delete(mine);
    return rc;
}

/* Step 2 for every dataset the index does not list whose summary names a
 * file of doomed: its records would outlive that file. Its own files join
 * doomed, which may take in another such dataset. One whose directory
 * cannot be renamed keeps its files, as a kept dataset does (they leave
 * doomed for kept_files): a summary that still says COMPLETE never loses
 * one. Each directory is tried once, so that the loop ends. */
static int doom_sharers(const char *prefix, const char *prefix_scr, const int *kept, int nkept,
                        int busy_id, scr_kvtree *kept_files, scr_kvtree *doomed)
{
    int *tried = NULL, ntried = 0, rc = SCR_SUCCESS;
    for (int more = 1; more && rc == SCR_SUCCESS;) {
        int *ids = NULL, n = 0;
        rc = unlisted_ids(prefix_scr, kept, nkept, busy_id, &ids, &n);
        more = 0;
        for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
            char name[64], *dir = NULL, *trash = NULL;
            if (is_one_of(tried, ntried, ids[i])) continue;
            snprintf(name, sizeof(name), "scr.dataset.%d", ids[i]);
            rc = scr_path_join(prefix_scr, name, &dir);
            if (rc != SCR_SUCCESS || !lists_doomed(dir, doomed)) {
                free(dir);
                continue;
            }
            int *grown = realloc(tried, sizeof(int) * (size_t)(ntried + 1));
            if (grown == NULL) {
                scr_err("out of memory deleting the datasets of %s", prefix);
                rc = SCR_ERR_NOMEM;
                free(dir);
                break;
            }
            tried = grown;
            tried[ntried++] = ids[i];
            scr_warn(
                "dataset %d, no longer in the index of %s, lists files of a dataset being deleted: "
                "its records and its other files go with them",
                ids[i], prefix);
            if (doom(prefix_scr, ids[i], &trash) == SCR_SUCCESS) {
                add_doomed_files(prefix, trash, kept_files, doomed);
                more = 1;
            } else {
                rc = keep_listed_files(prefix, dir, kept_files, doomed);
            }
            free(dir);
            free(trash);
        }
        free(ids);
    }
    free(tried);
    return rc;
}

/* Remove the directories of path that are empty now, up to the prefix. */
static void remove_empty_parents(const char *prefix, const char *path)
{
    char *dir = NULL;
    if (scr_path_dirname(path, &dir) != SCR_SUCCESS) return;
    while (strcmp(dir, prefix) != 0 && rmdir(dir) == 0) {
        char *up = NULL;
        if (scr_path_dirname(dir, &up) != SCR_SUCCESS) break;
        free(dir);
        dir = up;
    }
    free(dir);
}

/* Step 4: the files of doomed; *out_left counts those that stay. */
static void delete_files(const char *prefix, const scr_kvtree *doomed, int *out_left)
{
    *out_left = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(doomed, "PATH")); e;
         e = scr_kvtree_elem_next(e)) {
        const char *file = scr_kvtree_elem_key(e);
        if (unlink(file) != 0 && errno != ENOENT) {
            scr_warn("cannot delete %s: %s", file, strerror(errno));
            (*out_left)++;
            continue;
        }
        remove_empty_parents(prefix, file);
        scr_testpoint_crash(SCR_TP_TRIM_MID_DELETE);
    }
}

/* Step 5 for trash: its summary, then the rest of it. */
static void remove_records(const char *trash)
{
    char *summary = NULL;
    if (scr_path_join(trash, SCR_SUMMARY_FILE_NAME, &summary) == SCR_SUCCESS &&
        unlink(summary) != 0 && errno != ENOENT)
        scr_warn("cannot delete %s: %s", summary,
                 strerror(errno)); /* scr_remove_tree tries again */
    free(summary);
    scr_testpoint_crash(SCR_TP_TRIM_MID_RECORDS);
    scr_remove_tree(trash); /* says what stays; the next deletion tries again */
}

/* Steps 2 to 5 for the datasets ids (n of them, perhaps none: then only what
 * earlier deletions left), while the index lists kept. Every step is taken
 * for all before the next begins: no file goes before every summary that
 * lists it is renamed away and marked. */
static int delete_datasets(const char *prefix, const int *ids, int n, const int *kept, int nkept,
                           int busy_id)
{
    char *prefix_scr = NULL;
    scr_kvtree *kept_files = NULL, *doomed = NULL, *trash = NULL;
    int rc = scr_path_join(prefix, ".scr", &prefix_scr);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0; i < n; i++) doom(prefix_scr, ids[i], NULL); /* one that stays is reported */
    trash = list_trash(prefix_scr);
    /* the usual flush: nothing to delete, so no kept summary is read */
    if (trash == NULL) goto out;
    kept_files = scr_kvtree_new();
    doomed = scr_kvtree_new();
    if (kept_files == NULL || doomed == NULL) {
        scr_err("out of memory deleting datasets from %s", prefix);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < nkept; i++) {
        char name[64], *dir = NULL;
        snprintf(name, sizeof(name), "scr.dataset.%d", kept[i]);
        if (scr_path_join(prefix_scr, name, &dir) == SCR_SUCCESS) add_listed(dir, kept_files);
        free(dir);
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(trash, "DIR")); e;
         e = scr_kvtree_elem_next(e))
        add_doomed_files(prefix, scr_kvtree_elem_key(e), kept_files, doomed);
    rc = doom_sharers(prefix, prefix_scr, kept, nkept, busy_id, kept_files, doomed);
    if (rc != SCR_SUCCESS) goto out;
    scr_kvtree_delete(trash);
    trash = list_trash(prefix_scr); /* with the sharers */
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(trash, "DIR")); e;
         e = scr_kvtree_elem_next(e))
        mark_incomplete(scr_kvtree_elem_key(e));
    scr_testpoint_crash(SCR_TP_TRIM_AFTER_MARK);
    int left = 0;
    delete_files(prefix, doomed, &left);
    scr_testpoint_crash(SCR_TP_TRIM_AFTER_FILES);
    if (left > 0) {
        /* their summaries still list them: the next deletion tries again */
        scr_warn("%d file%s of datasets deleted from %s could not be removed; their records stay "
                 "in %s/%s*",
                 left, left == 1 ? "" : "s", prefix, prefix_scr, SCR_PREFIX_TRIM_DIR_PREFIX);
        goto out;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(trash, "DIR")); e;
         e = scr_kvtree_elem_next(e))
        remove_records(scr_kvtree_elem_key(e));
out:
    scr_kvtree_delete(trash);
    scr_kvtree_delete(doomed);
    scr_kvtree_delete(kept_files);
    free(prefix_scr);
    return rc;
}

int scr_prefix_trim(const char *prefix, int keep, int busy_id, int *out_deleted)
{
    if (out_deleted != NULL) *out_deleted = 0;
    if (prefix == NULL || keep < 1) {
        scr_err("prefix trim needs a prefix and a count of at least 1");
        return SCR_ERR_ARG;
    }
    char *index_path = NULL;
    struct choice c = {keep, busy_id, NULL, 0, NULL, 0};
    int rc = scr_index_file_path(prefix, &index_path);
    if (rc == SCR_SUCCESS) rc = scr_index_file_update(index_path, choose, &c); /* step 1 */
    if (rc != SCR_SUCCESS) goto out;
    if (c.nvictims > 0) scr_testpoint_crash(SCR_TP_TRIM_AFTER_INDEX);
    for (int i = 0; i < c.nvictims; i++)
        scr_dbg(1, "SCR_PREFIX_SIZE=%d: deleting checkpoint dataset %d from %s", keep, c.victims[i],
                prefix);
    rc = delete_datasets(prefix, c.victims, c.nvictims, c.kept, c.nkept, busy_id);
    if (out_deleted != NULL) *out_deleted = c.nvictims;
out:
    choice_free(&c);
    free(index_path);
    return rc;
}

int scr_prefix_delete_dataset(const char *prefix, int id)
{
    if (prefix == NULL || id < 1) {
        scr_err("deleting a dataset from a prefix needs the prefix and a dataset id of at least 1");
        return SCR_ERR_ARG;
    }
    char *index_path = NULL;
    int *kept = NULL, nkept = 0;
    scr_kvtree *index = scr_kvtree_new();
    int rc = index ? scr_index_file_path(prefix, &index_path) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_index_file_read(index_path, index);
    if (rc == SCR_SUCCESS) rc = scr_index_file_list_ids(index, &kept, &nkept);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* no index, or nothing in it: nothing is kept */
    if (rc != SCR_SUCCESS) goto out;
    if (is_one_of(kept, nkept, id)) {
        scr_err("dataset %d is still listed in %s: it is not deleted", id, index_path);
        rc = SCR_ERR_STATE;
        goto out;
    }
    rc = delete_datasets(prefix, &id, 1, kept, nkept, 0);
out:
    free(kept);
    free(index_path);
    scr_kvtree_delete(index);
    return rc;
}
