/* test_index_rebuild.c — an index made again from the summaries of a
 * prefix's datasets: when it is, what it lists, what is kept aside, and
 * when nothing may be touched. Each test builds its own prefix. */
#include "tap.h"

#include "dataset.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"

#include <dirent.h>
#include <sys/stat.h>

#define CKPT SCR_DATASET_FLAG_CHECKPOINT
#define OUTPUT SCR_DATASET_FLAG_OUTPUT

/* A fresh prefix directory under the scratch directory. */
static const char *prefix_dir(const char *name)
{
    const char *p = tap_path(name);
    scr_mkdir_p(p, 0700);
    return p;
}

/* <prefix>/<rel> in a static buffer (rotating). */
static const char *under(const char *prefix, const char *rel)
{
    static char bufs[4][8192];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, 8192, "%s/%s", prefix, rel);
    return b;
}

static const char *index_of(const char *prefix)
{
    return under(prefix, ".scr/index.scr");
}

/* Dataset directory id of prefix with a summary of a dataset (summary_id,
 * name, flags, complete: -1 leaves COMPLETE out) of one rank and one file,
 * rank0.dat in the directory, 10 bytes, there as recorded. */
static int add_summary_of(const char *prefix, int dir_id, int summary_id, const char *name,
                          int flags, int complete)
{
    char rel[64];
    snprintf(rel, sizeof(rel), ".scr/scr.dataset.%d", dir_id);
    const char *dir = under(prefix, rel);
    scr_kvtree *s = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    int rc = scr_mkdir_p(dir, 0700);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_id(d, summary_id);
    if (rc == SCR_SUCCESS && name) rc = scr_dataset_set_name(d, name);
    if (rc == SCR_SUCCESS) rc = scr_dataset_set_flags(d, flags);
    if (rc == SCR_SUCCESS && (flags & CKPT)) rc = scr_dataset_set_ckpt(d, summary_id);
    if (rc == SCR_SUCCESS && complete >= 0) rc = scr_dataset_set_complete(d, complete);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_dataset(s, d);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_ranks(s, 1);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_expected_files(s, 0, 1);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_file(s, 0, "rank0.dat", 10);
    char path[8300];
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_SUMMARY_FILE_NAME);
    if (rc == SCR_SUCCESS) rc = scr_summary_write(path, s);
    if (rc == SCR_SUCCESS) rc = scr_write_atomic(under(dir, "rank0.dat"), "0123456789", 10);
    scr_dataset_delete(d);
    scr_kvtree_delete(s);
    return rc;
}

static int add_summary(const char *prefix, int id, const char *name, int flags)
{
    return add_summary_of(prefix, id, id, name, flags, 1);
}

/* Dataset directory id holding a file but no summary (a flush cut short). */
static int add_unsummarized(const char *prefix, int id)
{
    char rel[64];
    snprintf(rel, sizeof(rel), ".scr/scr.dataset.%d", id);
    const char *dir = under(prefix, rel);
    int created = 0;
    int rc = scr_mkdir_p(dir, 0700);
    if (rc == SCR_SUCCESS) rc = scr_write_new(under(dir, "0.scrfilemap"), "x", 1, &created);
    return rc;
}

/* Replace prefix's index with len bytes of buf. */
static int put_index(const char *prefix, const void *buf, size_t len)
{
    int rc = scr_mkdir_p(under(prefix, ".scr"), 0700);
    return rc == SCR_SUCCESS ? scr_write_atomic(index_of(prefix), buf, len) : rc;
}

/* The index of prefix as read, or NULL (said). */
static scr_kvtree *read_index(const char *prefix)
{
    scr_kvtree *x = scr_kvtree_new();
    if (scr_index_file_read(index_of(prefix), x) != SCR_SUCCESS) {
        scr_kvtree_delete(x);
        return NULL;
    }
    return x;
}

/* The names of the files index.scr.damaged.* of prefix, how many. */
static int kept_files(const char *prefix)
{
    int n = 0;
    DIR *d = opendir(under(prefix, ".scr"));
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "index.scr.damaged.", 18) == 0;
    if (d) closedir(d);
    return n;
}

static int same_bytes(const char *path, const void *buf, size_t len)
{
    void *got = NULL;
    size_t got_len = 0;
    int same = scr_read_file(path, 1 << 20, &got, &got_len) == SCR_SUCCESS && got_len == len &&
               (len == 0 || memcmp(got, buf, len) == 0);
    free(got);
    return same;
}

static int rebuild(const char *prefix, int damaged, int require,
                   struct scr_index_rebuild_report *rep)
{
    struct scr_index_rebuild_options o = {.damaged = damaged, .require = require};
    scr_log_set_quiet(1);
    int rc = scr_index_rebuild(prefix, &o, rep);
    scr_log_set_quiet(0);
    return rc;
}

static void test_an_empty_index_is_rebuilt_from_the_summaries_and_kept_aside(void)
{
    const char *p = prefix_dir("emptied");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    REQUIRE(add_summary(p, 2, "out.2", OUTPUT) == SCR_SUCCESS, "summary 2");
    REQUIRE(add_summary(p, 3, "ckpt.3", CKPT) == SCR_SUCCESS, "summary 3");
    REQUIRE(add_unsummarized(p, 4) == SCR_SUCCESS, "directory 4");
    REQUIRE(put_index(p, "", 0) == SCR_SUCCESS, "empty index");
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.found == SCR_INDEX_FOUND_DAMAGED && rep.rebuilt == 1, "found %d rebuilt %d",
          rep.found, rep.rebuilt);
    CHECK(rep.kept_as != NULL && same_bytes(rep.kept_as, "", 0),
          "the empty file was not kept as it was");
    CHECK(rep.ndatasets == 3 && rep.current == 3, "%d datasets, current %d", rep.ndatasets,
          rep.current);
    CHECK(rep.nskipped == 1 && rep.skipped[0].id == 4 &&
              strcmp(rep.skipped[0].why, "no summary") == 0,
          "%d skipped", rep.nskipped);
    scr_kvtree *x = read_index(p);
    REQUIRE(x != NULL, "the rebuilt index does not read: %s", scr_last_error());
    int *ids = NULL, n = 0, complete = -1;
    const char *current = NULL, *flushed = NULL, *name = NULL;
    CHECK(scr_index_file_list_ids(x, &ids, &n) == SCR_SUCCESS && n == 3 && ids[0] == 3 &&
              ids[2] == 1,
          "the index lists %d datasets", n);
    CHECK(scr_index_file_get_current(x, &current) == SCR_SUCCESS && strcmp(current, "ckpt.3") == 0,
          "CURRENT");
    CHECK(scr_index_file_get_name(x, 2, &name) == SCR_SUCCESS && strcmp(name, "out.2") == 0,
          "name of 2");
    CHECK(scr_index_file_get_complete(x, 1, &complete) == SCR_SUCCESS && complete == 1,
          "COMPLETE of 1");
    CHECK(scr_index_file_get_flushed(x, 3, &flushed) == SCR_SUCCESS, "no FLUSHED time");
    CHECK(scr_index_file_get_dataset(x, 4, &(const scr_dataset *){NULL}) == SCR_ERR_NOTFOUND,
          "4 indexed");
    char *text = NULL;
    char want[9000];
    snprintf(want, sizeof(want),
             "rebuilt %s from the summaries of its datasets (it was damaged; kept as %s): ckpt.1 "
             "(dataset 1, "
             "complete), out.2 (dataset 2, complete, output), ckpt.3 (dataset 3, complete); "
             "current: ckpt.3; "
             "not indexed: scr.dataset.4 (no summary)",
             index_of(p), rep.kept_as);
    CHECK(scr_index_rebuild_describe(&rep, &text) == SCR_SUCCESS && strcmp(text, want) == 0,
          "describe says '%s'", text);
    free(text);
    free(ids);
    scr_kvtree_delete(x);
    scr_index_rebuild_report_free(&rep);
}

static void test_current_is_the_newest_complete_checkpoint(void)
{
    const char *p = prefix_dir("current");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    REQUIRE(add_summary(p, 2, "both.2", CKPT | OUTPUT) == SCR_SUCCESS, "summary 2");
    REQUIRE(add_summary(p, 3, "out.3", OUTPUT) == SCR_SUCCESS, "summary 3");
    REQUIRE(add_summary_of(p, 4, 4, "ckpt.4", CKPT, 0) == SCR_SUCCESS, "summary 4");
    REQUIRE(put_index(p, "junk", 4) == SCR_SUCCESS, "damaged index");
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 0, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.current == 2, "current %d, expected the checkpoint and output 2", rep.current);
    scr_kvtree *x = read_index(p);
    int complete = -1;
    CHECK(x && scr_index_file_get_complete(x, 4, &complete) == SCR_SUCCESS && complete == 0,
          "a descriptor with COMPLETE 0 is indexed complete");
    scr_kvtree_delete(x);
    scr_index_rebuild_report_free(&rep);
}

/* 1 when path ends with tail. */
static int ends_with(const char *path, const char *tail)
{
    size_t n = strlen(path), t = strlen(tail);
    return n >= t && strcmp(path + n - t, tail) == 0;
}

static void test_a_summary_whose_file_is_gone_or_short_gives_an_incomplete_entry(void)
{
    const char *p = prefix_dir("outlived");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    REQUIRE(add_summary(p, 2, "ckpt.2", CKPT) == SCR_SUCCESS, "summary 2");
    REQUIRE(add_summary(p, 3, "ckpt.3", CKPT) == SCR_SUCCESS, "summary 3");
    REQUIRE(truncate(under(p, ".scr/scr.dataset.2/rank0.dat"), 4) == 0, "truncate");
    REQUIRE(unlink(under(p, ".scr/scr.dataset.3/rank0.dat")) == 0, "unlink");
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    REQUIRE(rep.ndatasets == 3, "%d datasets indexed, want 3", rep.ndatasets);
    const struct scr_index_rebuild_dataset *d = rep.datasets;
    CHECK(d[0].complete && d[0].check.nbad == 0,
          "ckpt.1, whose file is whole, is indexed incomplete");
    CHECK(!d[1].complete && d[1].check.nbad == 1 && d[1].check.bad[0].size == 4 &&
              d[1].check.bad[0].recorded == 10 && d[1].check.bad[0].rank == 0 &&
              ends_with(d[1].check.bad[0].path, "/.scr/scr.dataset.2/rank0.dat"),
          "ckpt.2's truncated file: complete %d, %d bad", d[1].complete, d[1].check.nbad);
    CHECK(!d[2].complete && d[2].check.nbad == 1 && d[2].check.bad[0].size == -1 &&
              ends_with(d[2].check.bad[0].path, "/.scr/scr.dataset.3/rank0.dat"),
          "ckpt.3's missing file: complete %d, %d bad", d[2].complete, d[2].check.nbad);
    CHECK(rep.current == 1, "current %d, want the newest checkpoint whose files are there, 1",
          rep.current);
    scr_kvtree *x = read_index(p);
    int complete = -1, *missing = NULL, nmissing = 0;
    CHECK(x && scr_index_file_get_complete(x, 3, &complete) == SCR_SUCCESS && complete == 0,
          "ckpt.3 is indexed COMPLETE %d", complete);
    CHECK(x && scr_index_file_list_missing(x, 3, &missing, &nmissing) == SCR_SUCCESS &&
              nmissing == 1 && missing[0] == 0,
          "ckpt.3's MISSING lists %d ranks, want rank 0", nmissing);
    free(missing);
    scr_kvtree_delete(x);
    scr_index_rebuild_report_free(&rep);
}

static void test_a_file_stored_compressed_is_checked_at_its_stored_size(void)
{
    const char *p = prefix_dir("compressed");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    /* the 10 bytes the application wrote are stored as 6 */
    const char *spath = under(p, ".scr/scr.dataset.1/summary.scr");
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(spath, s) == SCR_SUCCESS, "read");
    REQUIRE(scr_summary_set_file_compressed(s, 0, "rank0.dat", 6) == SCR_SUCCESS &&
                scr_summary_write(spath, s) == SCR_SUCCESS,
            "compressed");
    scr_kvtree_delete(s);
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.ndatasets == 1 && !rep.datasets[0].complete && rep.datasets[0].check.nbad == 1 &&
              rep.datasets[0].check.bad[0].size == 10 && rep.datasets[0].check.bad[0].recorded == 6,
          "a 10-byte file recorded as stored in 6 passed");
    scr_index_rebuild_report_free(&rep);
    REQUIRE(truncate(under(p, ".scr/scr.dataset.1/rank0.dat"), 6) == 0 && unlink(index_of(p)) == 0,
            "truncate");
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.ndatasets == 1 && rep.datasets[0].complete,
          "a file of its stored size is not taken as whole");
    scr_index_rebuild_report_free(&rep);
}

static void test_a_missing_index_is_made_from_the_summaries(void)
{
    const char *p = prefix_dir("missing");
    REQUIRE(add_summary(p, 5, "ckpt.5", CKPT) == SCR_SUCCESS, "summary 5");
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.found == SCR_INDEX_FOUND_MISSING && rep.rebuilt == 1 && rep.kept_as == NULL &&
              rep.current == 5,
          "found %d rebuilt %d current %d", rep.found, rep.rebuilt, rep.current);
    scr_kvtree *x = read_index(p);
    const char *current = NULL;
    CHECK(x && scr_index_file_get_current(x, &current) == SCR_SUCCESS &&
              strcmp(current, "ckpt.5") == 0,
          "CURRENT");
    scr_kvtree_delete(x);
    scr_index_rebuild_report_free(&rep);
}

static void test_a_readable_index_is_left_as_it_is(void)
{
    const char *p = prefix_dir("readable");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    REQUIRE(add_summary(p, 2, "ckpt.2", CKPT) == SCR_SUCCESS, "summary 2");
    /* an index that dropped dataset 2 on purpose */
    scr_kvtree *x = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    int fd = -1;
    scr_dataset_set_id(d, 1);
    scr_dataset_set_name(d, "ckpt.1");
    REQUIRE(scr_index_file_lock_read(index_of(p), &fd, x) == SCR_SUCCESS, "lock");
    REQUIRE(scr_index_file_set_dataset(x, d, 1) == SCR_SUCCESS, "entry");
    REQUIRE(scr_index_file_write_unlock(index_of(p), &fd, x) == SCR_SUCCESS, "write");
    void *before = NULL;
    size_t len = 0;
    REQUIRE(scr_read_file(index_of(p), 1 << 20, &before, &len) == SCR_SUCCESS, "read");
    struct scr_index_rebuild_report rep;
    CHECK(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.found == SCR_INDEX_FOUND_READABLE && rep.rebuilt == 0, "found %d rebuilt %d",
          rep.found, rep.rebuilt);
    CHECK(same_bytes(index_of(p), before, len), "a readable index was changed");
    CHECK(kept_files(p) == 0, "a readable index was kept aside");
    free(before);
    scr_dataset_delete(d);
    scr_kvtree_delete(x);
    scr_index_rebuild_report_free(&rep);
}

static void test_a_prefix_without_dataset_records_gets_no_index(void)
{
    struct scr_index_rebuild_report rep;
    const char *p = prefix_dir("fresh");
    CHECK(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "no .scr: %s", scr_last_error());
    CHECK(rep.found == SCR_INDEX_FOUND_MISSING && rep.rebuilt == 0 && rep.nskipped == 0,
          "no .scr: report");
    scr_index_rebuild_report_free(&rep);
    REQUIRE(scr_mkdir_p(under(p, ".scr/scr.dataset.3"), 0700) == SCR_SUCCESS,
            "an empty dataset directory");
    CHECK(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "empty dataset directory: %s", scr_last_error());
    CHECK(rep.rebuilt == 0 && rep.nskipped == 0, "an empty dataset directory counts");
    scr_index_rebuild_report_free(&rep);
    /* what a copy in which no rank finished leaves: redundancy data, no rank filemap */
    int created = 0;
    REQUIRE(scr_write_new(under(p, ".scr/scr.dataset.3/1_of_2_in_0.xor"), "x", 1, &created) ==
                SCR_SUCCESS,
            "a redundancy file");
    CHECK(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "a directory without records: %s",
          scr_last_error());
    CHECK(rep.rebuilt == 0 && rep.nskipped == 0,
          "a directory without summary or rank filemap counts");
    scr_index_rebuild_report_free(&rep);
    struct stat st;
    CHECK(stat(index_of(p), &st) != 0, "an index was created on a fresh prefix");
}

static void test_a_missing_index_with_nothing_to_rebuild_from_is_refused_only_when_required(void)
{
    const char *p = prefix_dir("unsummarized");
    REQUIRE(add_unsummarized(p, 2) == SCR_SUCCESS, "directory 2");
    struct scr_index_rebuild_report rep;
    CHECK(rebuild(p, 1, 0, &rep) == SCR_SUCCESS && rep.rebuilt == 0 && rep.nskipped == 1,
          "not required");
    scr_index_rebuild_report_free(&rep);
    CHECK(rebuild(p, 1, 1, &rep) == SCR_ERR_NOTFOUND, "required");
    CHECK(strstr(scr_last_error(), p) != NULL &&
              strstr(scr_last_error(), "scr.dataset.2 (no summary)") != NULL,
          "the message '%s' names neither the prefix nor the directory", scr_last_error());
    scr_index_rebuild_report_free(&rep);
    struct stat st;
    CHECK(stat(index_of(p), &st) != 0, "an index was created");
}

static void test_directories_of_datasets_the_caller_holds_in_cache_do_not_stop_it(void)
{
    const char *p = prefix_dir("cached");
    REQUIRE(add_unsummarized(p, 2) == SCR_SUCCESS, "directory 2");
    REQUIRE(add_unsummarized(p, 3) == SCR_SUCCESS, "directory 3");
    struct scr_index_rebuild_report rep;
    int both[] = {2, 3}, one[] = {3};
    struct scr_index_rebuild_options o = {.damaged = 1, .require = 1, .cached = both, .ncached = 2};
    CHECK(scr_index_rebuild(p, &o, &rep) == SCR_SUCCESS && rep.rebuilt == 0, "both cached: %s",
          scr_last_error());
    scr_index_rebuild_report_free(&rep);
    o.cached = one;
    o.ncached = 1;
    scr_log_set_quiet(1);
    CHECK(scr_index_rebuild(p, &o, &rep) == SCR_ERR_NOTFOUND, "one cached");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "scr.dataset.2 (no summary)") != NULL &&
              strstr(scr_last_error(), "scr.dataset.3") == NULL,
          "the message '%s' does not name only the directory not in cache", scr_last_error());
    scr_index_rebuild_report_free(&rep);
}

static void test_a_damaged_index_without_summaries_is_left_as_it_is(void)
{
    const char *p = prefix_dir("hopeless");
    REQUIRE(add_unsummarized(p, 1) == SCR_SUCCESS, "directory 1");
    REQUIRE(put_index(p, "", 0) == SCR_SUCCESS, "empty index");
    struct scr_index_rebuild_report rep;
    CHECK(rebuild(p, 1, 1, &rep) == SCR_ERR_FORMAT, "rebuild");
    CHECK(strstr(scr_last_error(), "is damaged and cannot be rebuilt") != NULL, "'%s'",
          scr_last_error());
    CHECK(rep.rebuilt == 0 && rep.kept_as == NULL && kept_files(p) == 0,
          "something was kept aside");
    CHECK(same_bytes(index_of(p), "", 0), "the damaged index was changed");
    scr_index_rebuild_report_free(&rep);
}

static void test_a_damaged_index_is_only_reported_when_a_rebuild_is_not_asked_for(void)
{
    const char *p = prefix_dir("not-asked");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    REQUIRE(put_index(p, "", 0) == SCR_SUCCESS, "empty index");
    struct scr_index_rebuild_report rep;
    CHECK(rebuild(p, 0, 0, &rep) == SCR_ERR_FORMAT && rep.found == SCR_INDEX_FOUND_DAMAGED,
          "rebuild");
    CHECK(strstr(scr_last_error(), "scr-index --rebuild-index") != NULL, "'%s'", scr_last_error());
    CHECK(same_bytes(index_of(p), "", 0) && kept_files(p) == 0, "the damaged index was touched");
    scr_index_rebuild_report_free(&rep);
}

static void test_an_index_of_a_newer_version_is_never_rebuilt(void)
{
    const char *p = prefix_dir("newer");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_util_set_int(t, "VERSION", SCR_INDEX_FILE_VERSION + 1);
    scr_kvtree_set_kv(t, "SOMETHING", "NEW");
    REQUIRE(scr_mkdir_p(under(p, ".scr"), 0700) == SCR_SUCCESS, "mkdir");
    REQUIRE(scr_kvtree_write_file(index_of(p), t) == SCR_SUCCESS, "write");
    void *before = NULL;
    size_t len = 0;
    REQUIRE(scr_read_file(index_of(p), 1 << 20, &before, &len) == SCR_SUCCESS, "read");
    struct scr_index_rebuild_report rep;
    CHECK(rebuild(p, 1, 1, &rep) == SCR_ERR_FORMAT && rep.found == SCR_INDEX_FOUND_NEWER,
          "rebuild");
    CHECK(strstr(scr_last_error(), "is newer than this build reads") != NULL, "'%s'",
          scr_last_error());
    CHECK(same_bytes(index_of(p), before, len) && kept_files(p) == 0, "a newer index was touched");
    free(before);
    scr_kvtree_delete(t);
    scr_index_rebuild_report_free(&rep);
}

static void test_of_two_datasets_of_one_name_the_newer_is_indexed(void)
{
    const char *p = prefix_dir("same-name");
    REQUIRE(add_summary(p, 2, "ckpt", CKPT) == SCR_SUCCESS, "summary 2");
    REQUIRE(add_summary(p, 5, "ckpt", CKPT) == SCR_SUCCESS, "summary 5");
    REQUIRE(add_summary_of(p, 6, 7, "other", CKPT, 1) == SCR_SUCCESS, "summary of 7 in 6");
    REQUIRE(add_summary_of(p, 8, 8, NULL, OUTPUT, -1) == SCR_SUCCESS, "summary 8 without a name");
    REQUIRE(put_index(p, "", 0) == SCR_SUCCESS, "empty index");
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.ndatasets == 2 && rep.datasets[0].id == 5 && rep.datasets[1].id == 8, "%d datasets",
          rep.ndatasets);
    CHECK(rep.ndatasets == 2 && strcmp(rep.datasets[1].name, "scr.dataset.8") == 0,
          "the unnamed dataset");
    CHECK(rep.nskipped == 2 && rep.skipped[0].id == 2 && rep.skipped[1].id == 6, "%d skipped",
          rep.nskipped);
    CHECK(rep.nskipped == 2 && strstr(rep.skipped[0].why, "dataset 5 has its name") != NULL &&
              strstr(rep.skipped[1].why, "its summary is of dataset 7") != NULL,
          "why: '%s' '%s'", rep.nskipped ? rep.skipped[0].why : "",
          rep.nskipped > 1 ? rep.skipped[1].why : "");
    scr_index_rebuild_report_free(&rep);
}

static void test_a_kept_file_is_never_overwritten(void)
{
    const char *p = prefix_dir("twice");
    REQUIRE(add_summary(p, 1, "ckpt.1", CKPT) == SCR_SUCCESS, "summary 1");
    struct scr_index_rebuild_report first, second;
    REQUIRE(put_index(p, "first", 5) == SCR_SUCCESS, "damaged index");
    REQUIRE(rebuild(p, 1, 1, &first) == SCR_SUCCESS && first.kept_as, "first rebuild");
    REQUIRE(put_index(p, "second", 6) == SCR_SUCCESS, "damaged again");
    REQUIRE(rebuild(p, 1, 1, &second) == SCR_SUCCESS && second.kept_as, "second rebuild");
    CHECK(strcmp(first.kept_as, second.kept_as) != 0, "both kept as %s", first.kept_as);
    CHECK(same_bytes(first.kept_as, "first", 5) && same_bytes(second.kept_as, "second", 6),
          "a kept file lost its bytes");
    CHECK(kept_files(p) == 2, "%d kept files", kept_files(p));
    scr_index_rebuild_report_free(&first);
    scr_index_rebuild_report_free(&second);
}

static void test_a_damaged_index_of_a_prefix_without_datasets_starts_an_empty_one(void)
{
    const char *p = prefix_dir("damaged-fresh");
    REQUIRE(put_index(p, "", 0) == SCR_SUCCESS, "empty index");
    struct scr_index_rebuild_report rep;
    REQUIRE(rebuild(p, 1, 1, &rep) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rep.rebuilt && rep.ndatasets == 0 && rep.current == 0 && rep.kept_as != NULL, "report");
    scr_kvtree *x = read_index(p);
    CHECK(x != NULL && scr_kvtree_size(x) == 0, "the new index is not an index without datasets");
    scr_kvtree_delete(x);
    scr_index_rebuild_report_free(&rep);
}

int main(void)
{
    RUN(test_an_empty_index_is_rebuilt_from_the_summaries_and_kept_aside);
    RUN(test_current_is_the_newest_complete_checkpoint);
    RUN(test_a_summary_whose_file_is_gone_or_short_gives_an_incomplete_entry);
    RUN(test_a_file_stored_compressed_is_checked_at_its_stored_size);
    RUN(test_a_missing_index_is_made_from_the_summaries);
    RUN(test_a_readable_index_is_left_as_it_is);
    RUN(test_a_prefix_without_dataset_records_gets_no_index);
    RUN(test_a_missing_index_with_nothing_to_rebuild_from_is_refused_only_when_required);
    RUN(test_directories_of_datasets_the_caller_holds_in_cache_do_not_stop_it);
    RUN(test_a_damaged_index_without_summaries_is_left_as_it_is);
    RUN(test_a_damaged_index_is_only_reported_when_a_rebuild_is_not_asked_for);
    RUN(test_an_index_of_a_newer_version_is_never_rebuilt);
    RUN(test_of_two_datasets_of_one_name_the_newer_is_indexed);
    RUN(test_a_kept_file_is_never_overwritten);
    RUN(test_a_damaged_index_of_a_prefix_without_datasets_starts_an_empty_one);
    return tap_done();
}
