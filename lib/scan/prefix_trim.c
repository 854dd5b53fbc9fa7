/* prefix_trim.c — delete the checkpoints of a prefix beyond the newest SCR_PREFIX_SIZE. */
#include "prefix_trim.h"
#include "index_file.h"
#include "kvtree_util.h"
#include "rank2file.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Test hook, not a parameter: tests/mpi/test_prefix_size.sh sets
 * SCRTEST_PREFIX_TRIM_CRASH to "after-index" or "mid-delete" to kill the
 * process at that step and then checks what a crash leaves. */
static void crash_point(const char *step)
{
    const char *v = getenv("SCRTEST_PREFIX_TRIM_CRASH");
    if (v != NULL && strcmp(v, step) == 0) raise(SIGKILL);
}

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
        int is_ckpt = scr_index_file_get_dataset(index, ids[i], &d) == SCR_SUCCESS && scr_dataset_is_checkpoint(d);
        /* only checkpoints a restart may load count toward the ones kept: a
         * FAILED or incomplete one never stands in for an older good one,
         * and goes once keep good ones are newer than it */
        const char *why = NULL;
        int usable = is_ckpt && scr_index_file_restartable(index, ids[i], &why) == SCR_SUCCESS && why == NULL;
        if (usable) checkpoints++;
        int beyond = usable ? checkpoints > c->keep : checkpoints >= c->keep;
        if (is_ckpt && beyond && !is_protected(index, ids[i], c))
            c->victims[c->nvictims++] = ids[i];
        else
            c->kept[c->nkept++] = ids[i];
    }
    free(ids);
    for (int i = 0; rc == SCR_SUCCESS && i < c->nvictims; i++) rc = scr_index_file_remove(index, c->victims[i]);
    return rc;
}

/* Every file the rank2file of a dataset SCR 3.1 flushed into dsdir lists,
 * as a normalised path, into set (nothing when it cannot be read). */
static void add_listed_scr31(const char *dsdir, scr_kvtree *set)
{
    scr_kvtree *files = NULL;
    char *scrdir = NULL, *prefix = NULL;
    int ranks = 0;
    if (scr_rank2file_read(dsdir, &ranks, &files) != SCR_SUCCESS || scr_path_dirname(dsdir, &scrdir) != SCR_SUCCESS ||
        scr_path_dirname(scrdir, &prefix) != SCR_SUCCESS)
        ranks = 0;
    for (int r = 0; r < ranks; r++) {
        const scr_kvtree *listed = scr_kvtree_get(scr_kvtree_get_kv_int(files, "RANK", r), "FILE");
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(listed); e; e = scr_kvtree_elem_next(e)) {
            char *file = NULL; /* relative to the prefix, and checked to stay inside it */
            if (scr_path_join(prefix, scr_kvtree_elem_key(e), &file) == SCR_SUCCESS) scr_kvtree_set_kv(set, "PATH", file);
            free(file);
        }
    }
    scr_kvtree_delete(files);
    free(scrdir);
    free(prefix);
}

/* Every file the summary in dsdir lists, as a normalised path, into set. */
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
            char *file = NULL;
            if (scr_path_join(dsdir, names[f], &file) == SCR_SUCCESS) scr_kvtree_set_kv(set, "PATH", file);
            free(file);
        }
        free(names);
    }
    free(ranks);
    free(path);
    scr_kvtree_delete(summary);
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

/* Step 3 for the dataset directory trash (renamed already): the
 * application files its summary lists that no kept dataset lists, then
 * trash itself. */
static void delete_trash(const char *prefix, const char *trash, const scr_kvtree *kept_files)
{
    scr_kvtree *mine = scr_kvtree_new();
    if (mine != NULL) add_listed(trash, mine);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(mine, "PATH")); e; e = scr_kvtree_elem_next(e)) {
        const char *file = scr_kvtree_elem_key(e);
        int in_prefix = 0, in_trash = 0;
        if (scr_path_is_inside(prefix, file, &in_prefix) != SCR_SUCCESS || !in_prefix) continue;
        if (scr_path_is_inside(trash, file, &in_trash) != SCR_SUCCESS || in_trash) continue;
        if (scr_kvtree_get_kv(kept_files, "PATH", file) != NULL) continue; /* a kept dataset's too */
        if (unlink(file) != 0 && errno != ENOENT) {
            scr_warn("cannot delete %s: %s", file, strerror(errno));
            continue;
        }
        remove_empty_parents(prefix, file);
        crash_point("mid-delete");
    }
    scr_kvtree_delete(mine);
    scr_remove_tree(trash); /* says what stays; the next trim tries again */
}

/* Steps 2 and 3 for dataset id. */
static void delete_dataset(const char *prefix, const char *prefix_scr, int id, const scr_kvtree *kept_files)
{
    char name[64], trash_name[64], *dir = NULL, *trash = NULL;
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    snprintf(trash_name, sizeof(trash_name), SCR_PREFIX_TRIM_DIR_PREFIX "%d", id);
    if (scr_path_join(prefix_scr, name, &dir) == SCR_SUCCESS &&
        scr_path_join(prefix_scr, trash_name, &trash) == SCR_SUCCESS) {
        if (rename(dir, trash) == 0)
            delete_trash(prefix, trash, kept_files);
        else if (errno != ENOENT)
            scr_warn("cannot rename %s to %s to delete it: %s", dir, trash, strerror(errno));
    }
    free(dir);
    free(trash);
}

/* What an earlier trim left half deleted. */
/* The scr.deleting.* directories a crash left in prefix_scr, under "DIR"
 * of a new tree (NULL when there are none or the directory cannot be read). */
static scr_kvtree *list_leftovers(const char *prefix_scr)
{
    DIR *d = opendir(prefix_scr);
    if (d == NULL) return NULL;
    scr_kvtree *names = scr_kvtree_new();
    for (struct dirent *e; names != NULL && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, SCR_PREFIX_TRIM_DIR_PREFIX, strlen(SCR_PREFIX_TRIM_DIR_PREFIX)) == 0)
            scr_kvtree_set_kv(names, "DIR", e->d_name);
    closedir(d);
    if (names != NULL && scr_kvtree_get(names, "DIR") == NULL) {
        scr_kvtree_delete(names);
        names = NULL;
    }
    return names;
}

static void finish_leftovers(const char *prefix, const char *prefix_scr, const scr_kvtree *names,
                             const scr_kvtree *kept_files)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(names, "DIR")); e; e = scr_kvtree_elem_next(e)) {
        char *trash = NULL;
        if (scr_path_join(prefix_scr, scr_kvtree_elem_key(e), &trash) == SCR_SUCCESS) {
            scr_dbg(1, "finishing the deletion of %s", trash);
            delete_trash(prefix, trash, kept_files);
        }
        free(trash);
    }
}

int scr_prefix_trim(const char *prefix, int keep, int busy_id, int *out_deleted)
{
    if (out_deleted != NULL) *out_deleted = 0;
    if (prefix == NULL || keep < 1) {
        scr_err("prefix trim needs a prefix and a count of at least 1");
        return SCR_ERR_ARG;
    }
    char *prefix_scr = NULL, *index_path = NULL;
    struct choice c = {keep, busy_id, NULL, 0, NULL, 0};
    scr_kvtree *kept_files = scr_kvtree_new(), *leftovers = NULL;
    int rc = kept_files ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_path_join(prefix, ".scr", &prefix_scr);
    if (rc == SCR_SUCCESS) rc = scr_index_file_path(prefix, &index_path);
    if (rc == SCR_SUCCESS) rc = scr_index_file_update(index_path, choose, &c); /* step 1 */
    if (rc != SCR_SUCCESS) goto out;
    if (c.nvictims > 0) crash_point("after-index");
    leftovers = list_leftovers(prefix_scr);
    /* the usual flush: nothing to delete, so no kept summary is read */
    if (c.nvictims == 0 && leftovers == NULL) goto out;
    for (int i = 0; i < c.nkept; i++) {
        char name[64], *dir = NULL;
        snprintf(name, sizeof(name), "scr.dataset.%d", c.kept[i]);
        if (scr_path_join(prefix_scr, name, &dir) == SCR_SUCCESS) add_listed(dir, kept_files);
        free(dir);
    }
    finish_leftovers(prefix, prefix_scr, leftovers, kept_files);
    for (int i = 0; i < c.nvictims; i++) {
        scr_dbg(1, "SCR_PREFIX_SIZE=%d: deleting checkpoint dataset %d from %s", keep, c.victims[i], prefix);
        delete_dataset(prefix, prefix_scr, c.victims[i], kept_files);
    }
    if (out_deleted != NULL) *out_deleted = c.nvictims;
out:
    choice_free(&c);
    scr_kvtree_delete(leftovers);
    scr_kvtree_delete(kept_files);
    free(prefix_scr);
    free(index_path);
    return rc;
}
