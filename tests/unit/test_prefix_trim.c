/* test_prefix_trim.c — SCR_PREFIX_SIZE's deletion on hand-made prefixes:
 * which checkpoints go (the oldest beyond the count) and which never do (the
 * current one, output datasets, one being flushed), which files go with them
 * (not one a kept dataset lists too), and what a crash left behind is finished. */
#include "tap.h"

#include "dataset.h"
#include "index_file.h"
#include "kvtree.h"
#include "prefix_trim.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"

#include <sys/stat.h>
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

/* Dataset id called name, listing one file at the prefix-relative path file
 * (which it creates), with its summary and index entry. */
static int add_dataset(const char *prefix, int id, const char *name, int flags, const char *file)
{
    char rel[64], summary_path[8300], listed[1100];
    snprintf(rel, sizeof(rel), ".scr/scr.dataset.%d", id);
    const char *dir = under(prefix, rel);
    char *parent = strdup(under(prefix, file));
    *strrchr(parent, '/') = '\0';
    scr_kvtree *s = scr_kvtree_new(), *index = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    int rc = scr_mkdir_p(dir, 0700);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(parent, 0700);
    FILE *f = rc == SCR_SUCCESS ? fopen(under(prefix, file), "w") : NULL;
    if (f == NULL || fputs("0123456789", f) < 0 || fclose(f) != 0) rc = SCR_ERR_IO;
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_id(d, id);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_name(d, name);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_flags(d, flags);
    if (rc == SCR_SUCCESS && (flags & CKPT)) rc = scr_dataset_set_ckpt(d, id);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_dataset(s, d);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_ranks(s, 1);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_expected_files(s, 0, 1);
    snprintf(listed, sizeof(listed), "../../%s", file); /* relative to the dataset directory */
    if (rc == SCR_SUCCESS) rc = scr_summary_set_file(s, 0, listed, 10);
    snprintf(summary_path, sizeof(summary_path), "%s/%s", dir, SCR_SUMMARY_FILE_NAME);
    if (rc == SCR_SUCCESS) rc = scr_summary_write(summary_path, s);
    int fd = -1;
    if (rc == SCR_SUCCESS) rc = scr_index_file_lock_read(under(prefix, ".scr/index.scr"), &fd, index);
    if (rc == SCR_SUCCESS) rc = scr_index_file_set_dataset(index, d, 1);
    if (rc == SCR_SUCCESS && (flags & CKPT)) rc = scr_index_file_set_current(index, name);
    if (fd >= 0) {
        int wrc = scr_index_file_write_unlock(under(prefix, ".scr/index.scr"), &fd, index);
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    free(parent);
    scr_dataset_delete(d);
    scr_kvtree_delete(s);
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
            snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%d", i == n - 1 ? "" : " ", ids[i]);
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
    CHECK(!exists(p, "ckpt.1") && !exists(p, ".scr/scr.dataset.1"), "ckpt.1 is still on the prefix");
    CHECK(!exists(p, ".scr/scr.dataset.4"), "the directory of ckpt.4 is still there");
    CHECK(exists(p, "shared/x"), "a file ckpt.6 lists too was deleted with ckpt.4");
    CHECK(exists(p, "both.2/a") && exists(p, ".scr/scr.dataset.2"), "an output checkpoint was deleted");
    CHECK(exists(p, "ckpt.3/a") && exists(p, ".scr/scr.dataset.3"), "the current checkpoint was deleted");
    CHECK(exists(p, "out.5/a"), "an output dataset was deleted");
    CHECK(!exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1") && !exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "4"),
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
    CHECK(strcmp(listed_ids(p), "1 2") == 0 && exists(p, "ckpt.1/a"), "the busy ckpt.1 was deleted: '%s'",
          listed_ids(p));
}

static void test_what_a_crash_left_half_deleted_is_finished_by_the_next_trim(void)
{
    const char *p = fresh_prefix("leftover");
    REQUIRE(add_dataset(p, 1, "ckpt.1", CKPT, "ckpt.1/a") == SCR_SUCCESS, "dataset 1");
    REQUIRE(add_dataset(p, 2, "ckpt.2", CKPT, "ckpt.2/a") == SCR_SUCCESS, "dataset 2");
    /* what steps 1 and 2 leave: no entry, the directory under its deleting name */
    scr_kvtree *index = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_index_file_lock_read(under(p, ".scr/index.scr"), &fd, index) == SCR_SUCCESS, "lock");
    scr_index_file_remove(index, 1);
    REQUIRE(scr_index_file_write_unlock(under(p, ".scr/index.scr"), &fd, index) == SCR_SUCCESS, "write");
    scr_kvtree_delete(index);
    REQUIRE(rename(under(p, ".scr/scr.dataset.1"), under(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1")) == 0, "rename");
    CHECK(scr_prefix_trim(p, 1, 0, NULL) == SCR_SUCCESS, "trim");
    CHECK(!exists(p, ".scr/" SCR_PREFIX_TRIM_DIR_PREFIX "1") && !exists(p, "ckpt.1"),
          "the half-deleted ckpt.1 is still there");
    CHECK(strcmp(listed_ids(p), "2") == 0 && exists(p, "ckpt.2/a"), "ckpt.2 was touched: '%s'", listed_ids(p));
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
    RUN(test_keep_below_one_is_refused);
    return tap_done();
}
