/* test_prefix_trim.c — SCR_PREFIX_SIZE's deletion on hand-made prefixes:
 * which checkpoints go (the oldest beyond the count) and which never do (the
 * current one, output datasets, one being flushed), which files go with them
 * (not one a kept dataset lists too), that a dataset no longer indexed whose
 * files go goes with them, that a crash at any step leaves no summary
 * calling a dataset complete while its files are partly gone, and that the
 * next trim finishes what a crash left. SCR_Delete's deletion likewise,
 * also of an id an unfinished deletion had left in a scr.deleting
 * directory, and next to a dataset whose directory cannot be renamed. */
#include "tap.h"

#include "dataset.h"
#include "dataset_check.h"
#include "dataset_claim.h"
#include "index_file.h"
#include "kvtree.h"
#include "prefix_trim.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CKPT SCR_DATASET_FLAG_CHECKPOINT
#define OUTPUT SCR_DATASET_FLAG_OUTPUT

static const char *under(const char *prefix, const char *rel)
{
    static char bufs[4][8192];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, 8192, "%s/%s", prefix, rel);
    return b;
}

static int exists(const char *prefix, const char *rel)
{
    struct stat st;
    return stat(under(prefix, rel), &st) == 0;
}

/* Dataset id called name, listing the files at the prefix-relative paths
 * files (NULL-terminated, each created with 10 bytes) as rank 0's, with its
 * summary and index entry. */
static int add_dataset_files(const char *prefix, int id, const char *name, int flags,
                             const char *const *files)
{
    char rel[64], summary_path[8300], listed[1100];
    snprintf(rel, sizeof(rel), ".scr/scr.dataset.%d", id);
    char dir[8192]; /* under()'s buffers are reused below */
    snprintf(dir, sizeof(dir), "%s", under(prefix, rel));
    scr_kvtree *s = scr_kvtree_new(), *index = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    int rc = scr_mkdir_p(dir, 0700), nfiles = 0;
    for (; rc == SCR_SUCCESS && files[nfiles] != NULL; nfiles++) {
        char *parent = strdup(under(prefix, files[nfiles]));
        *strrchr(parent, '/') = '\0';
        rc = scr_mkdir_p(parent, 0700);
        free(parent);
        FILE *f = rc == SCR_SUCCESS ? fopen(under(prefix, files[nfiles]), "w") : NULL;
        if (f == NULL || fputs("0123456789", f) < 0 || fclose(f) != 0) rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_id(d, id);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_name(d, name);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_flags(d, flags);
    if (rc == SCR_SUCCESS && (flags & CKPT)) rc = scr_dataset_set_ckpt(d, id);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_dataset(s, d);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_ranks(s, 1);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_expected_files(s, 0, nfiles);
    for (int i = 0; rc == SCR_SUCCESS && i < nfiles; i++) {
        snprintf(listed, sizeof(listed), "../../%s",
                 files[i]); /* relative to the dataset directory */
        rc = scr_summary_set_file(s, 0, listed, 10);
    }
    snprintf(summary_path, sizeof(summary_path), "%s/%s", dir, SCR_SUMMARY_FILE_NAME);
    if (rc == SCR_SUCCESS) rc = scr_summary_write(summary_path, s);
    int fd = -1;
    if (rc == SCR_SUCCESS)
        rc = scr_index_file_lock_read(under(prefix, ".scr/index.scr"), &fd, index);
    if (rc == SCR_SUCCESS) rc = scr_index_file_set_dataset(index, d, 1);
    if (rc == SCR_SUCCESS && (flags & CKPT)) rc = scr_index_file_set_current(index, name);
    if (fd >= 0) {
        int wrc = scr_index_file_write_unlock(under(prefix, ".scr/index.scr"), &fd, index);
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    scr_dataset_delete(d);
    scr_kvtree_delete(s);
    scr_kvtree_delete(index);
    return rc;
}

/* Dataset id with the one file file. */
static int add_dataset(const char *prefix, int id, const char *name, int flags, const char *file)
{
    const char *files[] = {file, NULL};
    return add_dataset_files(prefix, id, name, flags, files);
}

/* Take dataset id out of the index, as a newer dataset of its name or
 * scr-index --drop does; its directory and files stay. */
static int unlist(const char *prefix, int id)
{
    scr_kvtree *index = scr_kvtree_new();
    int fd = -1;
    int rc = scr_index_file_lock_read(under(prefix, ".scr/index.scr"), &fd, index);
    if (rc == SCR_SUCCESS) rc = scr_index_file_remove(index, id);
    if (fd >= 0) {
        int wrc = scr_index_file_write_unlock(under(prefix, ".scr/index.scr"), &fd, index);
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    scr_kvtree_delete(index);
    return rc;
}

static int set_current(const char *prefix, const char *name)
{
    scr_kvtree *index = scr_kvtree_new();
    int fd = -1;
    int rc = scr_index_file_lock_read(under(prefix, ".scr/index.scr"), &fd, index);
    if (rc == SCR_SUCCESS) rc = scr_index_file_set_current(index, name);
    if (fd >= 0) {
        int wrc = scr_index_file_write_unlock(under(prefix, ".scr/index.scr"), &fd, index);
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    scr_kvtree_delete(index);
    return rc;
}

/* Mark dataset id FAILED, as a restart that could not read it does. */
static int mark_failed(const char *prefix, int id)
{
    scr_kvtree *index = scr_kvtree_new();
    int fd = -1;
    int rc = scr_index_file_lock_read(under(prefix, ".scr/index.scr"), &fd, index);
    if (rc == SCR_SUCCESS) rc = scr_index_file_mark_failed(index, id, "2026-11-25T10:00:00");
    if (fd >= 0) {
        int wrc = scr_index_file_write_unlock(under(prefix, ".scr/index.scr"), &fd, index);
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    scr_kvtree_delete(index);
    return rc;
}

/* "1 2 3": the ids the index lists, oldest first. */
static const char *listed_ids(const char *prefix)
{
    static char text[256];
    scr_kvtree *index = scr_kvtree_new();
    int *ids = NULL, n = 0;
    text[0] = '\0';
    if (scr_index_file_read(under(prefix, ".scr/index.scr"), index) == SCR_SUCCESS &&
        scr_index_file_list_ids(index, &ids, &n) == SCR_SUCCESS)
        for (int i = n - 1; i >= 0; i--)
            snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%d",
                     i == n - 1 ? "" : " ", ids[i]);
    free(ids);
    scr_kvtree_delete(index);
    return text;
}

static const char *fresh_prefix(const char *name)
{
    const char *p = tap_path(name);
    scr_mkdir_p(p, 0700);
    return p;
}

static void test_keeps_the_newest_checkpoints_and_never_current_or_output(void)
{
    const char *p = fresh_prefix("keep");
    REQUIRE(add_dataset(p, 1, "ckpt.1", CKPT, "ckpt.1/a") == SCR_SUCCESS, "dataset 1");
    REQUIRE(add_dataset(p, 2, "both.2", CKPT | OUTPUT, "both.2/a") == SCR_SUCCESS, "dataset 2");
    REQUIRE(add_dataset(p, 3, "ckpt.3", CKPT, "ckpt.3/a") == SCR_SUCCESS, "dataset 3");
    REQUIRE(add_dataset(p, 4, "ckpt.4", CKPT, "shared/x") == SCR_SUCCESS, "dataset 4");
    REQUIRE(add_dataset(p, 5, "out.5", OUTPUT, "out.5/a") == SCR_SUCCESS, "dataset 5");
    REQUIRE(add_dataset(p, 6, "ckpt.6", CKPT, "shared/x") == SCR_SUCCESS, "dataset 6");
    REQUIRE(set_current(p, "ckpt.3") == SCR_SUCCESS, "current");
    int deleted = -1;
    CHECK(scr_prefix_trim(p, 1, 0, &deleted) == SCR_SUCCESS, "trim: %s", scr_last_error());
    CHECK(deleted == 2, "%d datasets deleted, want 2 (ckpt.1 and ckpt.4)", deleted);
    CHECK(strcmp(listed_ids(p), "2 3 5 6") == 0, "index lists '%s', want '2 3 5 6'", listed_ids(p));
    CHECK(!exists(p, "ckpt.1") && !exists(p, ".scr/scr.dataset.1"),
          "ckpt.1 is still on the prefix");
    CHECK(!exists(p, ".scr/scr.dataset.4"), "the directory of ckpt.4 is still there");
    CHECK(exists(p, "shared/x"), "a file ckpt.6 lists too was deleted with ckpt.4");
    CHECK(exists(p, "both.2/a") && exists(p, ".scr/scr.dataset.2"),
          "an output checkpoint was deleted");
    CHECK(exists(p, "ckpt.3/a") && exists(p, ".scr/scr.dataset.3"),
          "the current checkpoint was deleted");
    CHECK(exists(p, "out.5/a"), "an output dataset was deleted");
    CHECK(!exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1") &&
              !exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "4"),
          "a scr.deleting directory was left");
}

static void test_a_failed_checkpoint_never_counts_as_one_kept(void)
{
    const char *p = fresh_prefix("failed");
    REQUIRE(add_dataset(p, 1, "ckpt.1", CKPT, "ckpt.1/a") == SCR_SUCCESS, "dataset 1");
    REQUIRE(add_dataset(p, 2, "ckpt.2", CKPT, "ckpt.2/a") == SCR_SUCCESS, "dataset 2");
    REQUIRE(add_dataset(p, 3, "ckpt.3", CKPT, "ckpt.3/a") == SCR_SUCCESS, "dataset 3");
    REQUIRE(add_dataset(p, 4, "ckpt.4", CKPT, "ckpt.4/a") == SCR_SUCCESS, "dataset 4");
    REQUIRE(mark_failed(p, 4) == SCR_SUCCESS && mark_failed(p, 2) == SCR_SUCCESS, "FAILED marks");
    REQUIRE(set_current(p, "ckpt.1") == SCR_SUCCESS, "current");
    /* keep 1: ckpt.3 is the newest a restart may load; the FAILED ckpt.4 is
     * newer and stays, the FAILED ckpt.2 is older and goes; ckpt.1 is current */
    CHECK(scr_prefix_trim(p, 1, 0, NULL) == SCR_SUCCESS, "trim: %s", scr_last_error());
    CHECK(strcmp(listed_ids(p), "1 3 4") == 0, "index lists '%s', want '1 3 4'", listed_ids(p));
    CHECK(exists(p, "ckpt.3/a"), "the only usable checkpoint besides current was deleted");
    CHECK(!exists(p, "ckpt.2/a"), "the FAILED ckpt.2 older than the kept one is still there");
}

static void test_a_dataset_being_flushed_is_never_deleted(void)
{
    const char *p = fresh_prefix("busy");
    REQUIRE(add_dataset(p, 1, "ckpt.1", CKPT, "ckpt.1/a") == SCR_SUCCESS, "dataset 1");
    REQUIRE(add_dataset(p, 2, "ckpt.2", CKPT, "ckpt.2/a") == SCR_SUCCESS, "dataset 2");
    CHECK(scr_prefix_trim(p, 1, 1, NULL) == SCR_SUCCESS, "trim");
    CHECK(strcmp(listed_ids(p), "1 2") == 0 && exists(p, "ckpt.1/a"),
          "the busy ckpt.1 was deleted: '%s'", listed_ids(p));
}

static void test_what_a_crash_left_half_deleted_is_finished_by_the_next_trim(void)
{
    const char *p = fresh_prefix("leftover");
    REQUIRE(add_dataset(p, 1, "ckpt.1", CKPT, "ckpt.1/a") == SCR_SUCCESS, "dataset 1");
    REQUIRE(add_dataset(p, 2, "ckpt.2", CKPT, "ckpt.2/a") == SCR_SUCCESS, "dataset 2");
    /* what steps 1 and 2 leave: no entry, the directory under its deleting name */
    scr_kvtree *index = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_index_file_lock_read(under(p, ".scr/index.scr"), &fd, index) == SCR_SUCCESS,
            "lock");
    scr_index_file_remove(index, 1);
    REQUIRE(scr_index_file_write_unlock(under(p, ".scr/index.scr"), &fd, index) == SCR_SUCCESS,
            "write");
    scr_kvtree_delete(index);
    REQUIRE(rename(under(p, ".scr/scr.dataset.1"),
                   under(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1")) == 0,
            "rename");
    CHECK(scr_prefix_trim(p, 1, 0, NULL) == SCR_SUCCESS, "trim");
    CHECK(!exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1") && !exists(p, "ckpt.1"),
          "the half-deleted ckpt.1 is still there");
    CHECK(strcmp(listed_ids(p), "2") == 0 && exists(p, "ckpt.2/a"), "ckpt.2 was touched: '%s'",
          listed_ids(p));
}

static void test_a_dataset_no_longer_indexed_goes_with_the_files_it_shares(void)
{
    const char *p = fresh_prefix("sharer");
    /* dataset 1 wrote ckpt.4 and dataset 2 wrote ckpt.4 again over its files
     * (a restart from an older checkpoint), which took 1 out of the index */
    const char *old_files[] = {"ckpt.4/a", "ckpt.4/only-in-1", NULL};
    REQUIRE(add_dataset_files(p, 1, "ckpt.4", CKPT, old_files) == SCR_SUCCESS, "dataset 1: %s",
            scr_last_error());
    REQUIRE(unlist(p, 1) == SCR_SUCCESS, "superseded");
    REQUIRE(add_dataset(p, 2, "ckpt.4", CKPT, "ckpt.4/a") == SCR_SUCCESS, "dataset 2");
    /* dataset 3, dropped from the index, shares nothing: it stays */
    REQUIRE(add_dataset(p, 3, "ckpt.5", CKPT, "ckpt.5/a") == SCR_SUCCESS, "dataset 3");
    REQUIRE(unlist(p, 3) == SCR_SUCCESS, "dropped");
    REQUIRE(add_dataset(p, 4, "ckpt.6", CKPT, "ckpt.6/a") == SCR_SUCCESS, "dataset 4");
    scr_log_set_quiet(1); /* the deletion of dataset 1 is said */
    CHECK(scr_prefix_trim(p, 1, 0, NULL) == SCR_SUCCESS, "trim: %s", scr_last_error());
    scr_log_set_quiet(0);
    CHECK(strcmp(listed_ids(p), "4") == 0, "index lists '%s', want '4'", listed_ids(p));
    CHECK(!exists(p, ".scr/scr.dataset.2") && !exists(p, "ckpt.4/a"),
          "the trimmed dataset 2 is still there");
    CHECK(!exists(p, ".scr/scr.dataset.1"), "the records of dataset 1 outlived its file ckpt.4/a");
    CHECK(!exists(p, "ckpt.4/only-in-1"),
          "the other file of dataset 1 stayed, listed by no record");
    CHECK(exists(p, ".scr/scr.dataset.3/summary.scr") && exists(p, "ckpt.5/a"),
          "a dropped dataset sharing no file was deleted");
    CHECK(!exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1"), "a scr.deleting directory was left");
}

/* The dataset directories of p (scr.dataset.* and scr.deleting.*) whose
 * summary calls the dataset complete while a file it lists is not there
 * as recorded, as "name name ...": "" when there are none. */
static const char *complete_but_short(const char *p)
{
    static char text[1024];
    DIR *d = opendir(under(p, ".scr"));
    text[0] = '\0';
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "scr.dataset.", 12) != 0 &&
            strncmp(e->d_name, SCR_PREFIX_TRIM_DIR_PREFIX, strlen(SCR_PREFIX_TRIM_DIR_PREFIX)) != 0)
            continue;
        char rel[300], dir[8300], spath[8400];
        snprintf(rel, sizeof(rel), ".scr/%s", e->d_name);
        snprintf(dir, sizeof(dir), "%s", under(p, rel));
        snprintf(spath, sizeof(spath), "%s/%s", dir, SCR_SUMMARY_FILE_NAME);
        scr_kvtree *s = scr_kvtree_new();
        struct scr_dataset_check c = {NULL, 0, NULL, 0};
        if (scr_summary_read(spath, s) == SCR_SUCCESS && scr_summary_is_complete(s) &&
            scr_dataset_check_files(dir, s, &c) == SCR_SUCCESS && c.nbad > 0)
            snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", text[0] ? " " : "",
                     e->d_name);
        scr_dataset_check_free(&c);
        scr_kvtree_delete(s);
    }
    if (d != NULL) closedir(d);
    return text;
}

/* Trim p to keep checkpoints in a child process killed at step (the
 * SCRTEST_PREFIX_TRIM_CRASH hook): 1 when it died there. */
static int trim_killed_at(const char *p, int keep, const char *step)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        setenv("SCRTEST_PREFIX_TRIM_CRASH", step, 1);
        scr_log_set_quiet(1);
        scr_prefix_trim(p, keep, 0, NULL);
        _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 0;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/* ckpt.1, ckpt.3 and ckpt.4 with two files each and ckpt.5 with one, ckpt.5
 * current; ckpt.3 was written twice, by dataset 2 and then over its files
 * by dataset 3, which took 2 out of the index. */
static int crash_prefix(const char *p)
{
    const char *f1[] = {"ckpt.1/a", "ckpt.1/b", NULL}, *f3[] = {"ckpt.3/a", "ckpt.3/b", NULL};
    const char *f4[] = {"ckpt.4/a", "ckpt.4/b", NULL}, *f5[] = {"ckpt.5/a", NULL};
    int rc = add_dataset_files(p, 1, "ckpt.1", CKPT, f1);
    /* dataset 2 wrote ckpt.3, and dataset 3 wrote it again over its files */
    if (rc == SCR_SUCCESS) rc = add_dataset_files(p, 2, "ckpt.3", CKPT, f3);
    if (rc == SCR_SUCCESS) rc = unlist(p, 2);
    if (rc == SCR_SUCCESS) rc = add_dataset_files(p, 3, "ckpt.3", CKPT, f3);
    if (rc == SCR_SUCCESS) rc = add_dataset_files(p, 4, "ckpt.4", CKPT, f4);
    if (rc == SCR_SUCCESS) rc = add_dataset_files(p, 5, "ckpt.5", CKPT, f5);
    return rc;
}

static void test_a_crash_at_any_step_leaves_no_complete_summary_of_a_dataset_partly_gone(void)
{
    static const char *const steps[] = {"after-index", "after-rename", "after-mark",
                                        "mid-delete",  "after-files",  "mid-records"};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "crash-%s", steps[i]);
        const char *p = fresh_prefix(name);
        REQUIRE(crash_prefix(p) == SCR_SUCCESS, "%s: datasets", steps[i]);
        /* keep 1: ckpt.5 stays; ckpt.4, ckpt.3 and ckpt.1 go, and the
         * older ckpt.3 (dataset 2) with them */
        CHECK(trim_killed_at(p, 1, steps[i]), "%s: the trim did not stop at that step", steps[i]);
        CHECK(strcmp(complete_but_short(p), "") == 0,
              "%s: complete summaries of datasets partly gone: %s", steps[i],
              complete_but_short(p));
        CHECK(strcmp(listed_ids(p), "5") == 0, "%s: index lists '%s', want '5'", steps[i],
              listed_ids(p));
        scr_log_set_quiet(1);
        CHECK(scr_prefix_trim(p, 1, 0, NULL) == SCR_SUCCESS, "%s: the next trim", steps[i]);
        scr_log_set_quiet(0);
        CHECK(strcmp(complete_but_short(p), "") == 0,
              "%s: after the next trim, complete summaries of datasets "
              "partly gone: %s",
              steps[i], complete_but_short(p));
        /* a crash before a dataset's directory was renamed leaves it whole,
         * listed by no entry (ckpt.4 is renamed first, then ckpt.3, ckpt.1);
         * from there on the next trim finishes it */
        int renamed_one = strcmp(steps[i], "after-index") != 0;
        int renamed_all = renamed_one && strcmp(steps[i], "after-rename") != 0;
        int left = 0;
        for (int id = 1; id <= 4; id++) {
            char dir[64], trash[64];
            snprintf(dir, sizeof(dir), ".scr/scr.dataset.%d", id);
            snprintf(trash, sizeof(trash), ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "%d", id);
            left +=
                exists(p, trash) || (exists(p, dir) && (renamed_all || (renamed_one && id == 4)));
        }
        CHECK(left == 0 && (!renamed_one || !exists(p, "ckpt.4")) &&
                  (!renamed_all || (!exists(p, "ckpt.1") && !exists(p, "ckpt.3"))),
              "%s: the next trim left %d record directories or files of the deleted datasets",
              steps[i], left);
        CHECK(exists(p, "ckpt.5/a") && exists(p, ".scr/scr.dataset.5/summary.scr"),
              "%s: ckpt.5 was touched", steps[i]);
    }
}

static void test_delete_takes_one_dataset_out_of_the_prefix_records_and_files(void)
{
    const char *p = fresh_prefix("delete");
    const char *f1[] = {"ckpt.1/a", "shared/x", NULL};
    REQUIRE(add_dataset_files(p, 1, "ckpt.1", CKPT, f1) == SCR_SUCCESS, "dataset 1");
    REQUIRE(add_dataset(p, 2, "ckpt.2", CKPT, "shared/x") == SCR_SUCCESS, "dataset 2");
    scr_log_set_quiet(1);
    CHECK(scr_prefix_delete_dataset(p, 1) == SCR_ERR_STATE, "a dataset still indexed was deleted");
    scr_log_set_quiet(0);
    CHECK(exists(p, ".scr/scr.dataset.1/summary.scr") && exists(p, "ckpt.1/a"),
          "the refusal deleted something");
    REQUIRE(unlist(p, 1) == SCR_SUCCESS, "unlist");
    CHECK(scr_prefix_delete_dataset(p, 1) == SCR_SUCCESS, "delete: %s", scr_last_error());
    CHECK(!exists(p, ".scr/scr.dataset.1") && !exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1") &&
              !exists(p, "ckpt.1"),
          "dataset 1 is still on the prefix");
    CHECK(exists(p, "shared/x") && exists(p, ".scr/scr.dataset.2/summary.scr"),
          "a file ckpt.2 lists too was deleted");
    CHECK(scr_prefix_delete_dataset(p, 7) == SCR_SUCCESS, "a dataset without a directory: %s",
          scr_last_error());
}

/* Delete dataset id of p in a child process that an alarm kills should the
 * deletion never end: 1 when it returned SCR_SUCCESS. */
static int delete_ends(const char *p, int id)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        alarm(60); /* not a measure of speed: it only turns an endless loop into a failure */
        scr_log_set_quiet(1);
        _exit(scr_prefix_delete_dataset(p, id) == SCR_SUCCESS ? 0 : 1);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_an_id_taken_again_after_an_unfinished_deletion_is_deleted_too(void)
{
    const char *p = fresh_prefix("reused-id");
    /* a deletion of dataset 5 stopped after its rename */
    const char *old5[] = {"ckpt.5/a", "ckpt.5/old", NULL};
    REQUIRE(add_dataset_files(p, 5, "ckpt.5", CKPT, old5) == SCR_SUCCESS, "old dataset 5: %s",
            scr_last_error());
    REQUIRE(unlist(p, 5) == SCR_SUCCESS, "unlist old 5");
    REQUIRE(rename(under(p, ".scr/scr.dataset.5"),
                   under(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "5")) == 0,
            "rename old 5");
    int highest = 0;
    CHECK(scr_dataset_claim_highest_id(p, &highest) == SCR_SUCCESS && highest == 5,
          "the highest id is %d, want 5: a new dataset would take the id being deleted", highest);
    /* a new dataset 5 writes the same file again, and is taken out of the
     * index; dataset 6, dropped, lists that file too, but its directory
     * cannot be renamed (a file holds the name): it stays whole */
    const char *new5[] = {"ckpt.5/a", "ckpt.5/new", NULL}, *f6[] = {"ckpt.5/a", "ckpt.6/b", NULL};
    REQUIRE(add_dataset_files(p, 5, "ckpt.5", CKPT, new5) == SCR_SUCCESS, "new dataset 5: %s",
            scr_last_error());
    REQUIRE(add_dataset_files(p, 6, "ckpt.6", CKPT, f6) == SCR_SUCCESS, "dataset 6: %s",
            scr_last_error());
    REQUIRE(unlist(p, 5) == SCR_SUCCESS && unlist(p, 6) == SCR_SUCCESS, "unlist 5 and 6");
    FILE *f = fopen(under(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "6"), "w");
    REQUIRE(f != NULL && fclose(f) == 0, "a file named " SCR_PREFIX_TRIM_DIR_PREFIX "6");
    CHECK(delete_ends(p, 5), "deleting dataset 5 did not end, or failed");
    CHECK(strcmp(complete_but_short(p), "") == 0, "complete summaries of datasets partly gone: %s",
          complete_but_short(p));
    CHECK(!exists(p, ".scr/scr.dataset.5") && !exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "5") &&
              !exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "5.1"),
          "records of dataset 5 stayed");
    CHECK(!exists(p, "ckpt.5/old") && !exists(p, "ckpt.5/new"), "files of dataset 5 stayed");
    CHECK(exists(p, ".scr/scr.dataset.6/summary.scr") && exists(p, "ckpt.5/a") &&
              exists(p, "ckpt.6/b"),
          "dataset 6, which could not be renamed, lost its records or files");
}

static void test_keep_below_one_is_refused(void)
{
    scr_log_set_quiet(1);
    CHECK(scr_prefix_trim(tap_path("none"), 0, 0, NULL) == SCR_ERR_ARG, "keep 0 accepted");
    scr_log_set_quiet(0);
}

int main(void)
{
    RUN(test_keeps_the_newest_checkpoints_and_never_current_or_output);
    RUN(test_a_failed_checkpoint_never_counts_as_one_kept);
    RUN(test_a_dataset_being_flushed_is_never_deleted);
    RUN(test_what_a_crash_left_half_deleted_is_finished_by_the_next_trim);
    RUN(test_a_dataset_no_longer_indexed_goes_with_the_files_it_shares);
    RUN(test_a_crash_at_any_step_leaves_no_complete_summary_of_a_dataset_partly_gone);
    RUN(test_delete_takes_one_dataset_out_of_the_prefix_records_and_files);
    RUN(test_an_id_taken_again_after_an_unfinished_deletion_is_deleted_too);
    RUN(test_keep_below_one_is_refused);
    return tap_done();
}
