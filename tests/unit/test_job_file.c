/* test_job_file.c — the prefix a job's runs used: golden bytes, damage, and the lookup by control
 * directory. */
#include "tap.h"
#include "record_test.h"

#include "job_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <sys/stat.h>

static void test_written_file_matches_independent_golden(void)
{
    scr_kvtree *j = scr_kvtree_new();
    REQUIRE(scr_job_file_set_prefix(j, "/p/lustre/run1") == SCR_SUCCESS, "set");
    const char *path = tap_path("job.scr");
    CHECK(scr_job_file_write(path, j) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("control/job.scr"));
    CHECK(scr_kvtree_get(j, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(j);
}

static void test_golden_reads_back_through_getter(void)
{
    scr_kvtree *j = scr_kvtree_new();
    const char *prefix = NULL;
    REQUIRE(scr_job_file_read(tap_data("control/job.scr"), j) == SCR_SUCCESS, "read");
    CHECK(scr_job_file_get_prefix(j, &prefix) == SCR_SUCCESS &&
              strcmp(prefix, "/p/lustre/run1") == 0,
          "prefix %s", prefix ? prefix : "(none)");
    scr_kvtree_delete(j);
}

static void test_prefix_of_a_control_directory(void)
{
    const char *dir = tap_path("cntl");
    mkdir(dir, 0700);
    char *prefix = NULL;
    scr_clear_last_error();
    CHECK(scr_job_file_prefix_of(dir, &prefix) == SCR_ERR_NOTFOUND && prefix == NULL,
          "no file yet");
    CHECK(scr_last_error()[0] == '\0', "a missing file was logged: '%s'", scr_last_error());
    scr_kvtree *j = scr_kvtree_new();
    scr_job_file_set_prefix(j, "/data/run1");
    REQUIRE(scr_job_file_write(tap_path("cntl/job.scr"), j) == SCR_SUCCESS, "write");
    CHECK(scr_job_file_prefix_of(dir, &prefix) == SCR_SUCCESS && prefix != NULL &&
              strcmp(prefix, "/data/run1") == 0,
          "prefix %s", prefix ? prefix : "(none)");
    free(prefix);
    /* a record without a prefix does not send anything anywhere */
    scr_kvtree_delete(j);
    j = scr_kvtree_new();
    REQUIRE(scr_job_file_write(tap_path("cntl/job.scr"), j) == SCR_SUCCESS, "write empty");
    prefix = NULL;
    scr_log_set_quiet(1);
    CHECK(scr_job_file_prefix_of(dir, &prefix) == SCR_ERR_FORMAT && prefix == NULL, "no PREFIX");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "no PREFIX recorded") != NULL, "'%s'", scr_last_error());
    scr_kvtree_delete(j);
}

/* Write a raw tree and expect the module to refuse it, naming file and want. */
static void expect_refused(const char *name, scr_kvtree *raw, const char *want)
{
    const char *path = tap_path(name);
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write %s", name);
    scr_kvtree *j = scr_kvtree_new();
    int rc = quiet_read(scr_job_file_read, path, j);
    check_refused(name, rc, path, want);
    CHECK(scr_kvtree_size(j) == 0, "%s: tree changed", name);
    scr_kvtree_delete(j);
}

static void test_newer_version_and_bad_prefixes_are_refused(void)
{
    static const struct {
        const char *file, *version, *prefix, *want;
    } cases[] = {
        {"v2.scr", "2", "/p", "job file version 2"},
        {"relative.scr", "1", "data/run1",
         "key PREFIX holds 'data/run1', expected an absolute path"},
        {"empty.scr", "1", "", "key PREFIX holds ''"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        scr_kvtree *raw = scr_kvtree_new();
        scr_kvtree_util_set_str(raw, "VERSION", cases[i].version);
        scr_kvtree_util_set_str(raw, "PREFIX", cases[i].prefix);
        expect_refused(cases[i].file, raw, cases[i].want);
        scr_kvtree_delete(raw);
    }
    scr_kvtree *two = scr_kvtree_new();
    scr_kvtree_set_kv(two, "PREFIX", "/a");
    scr_kvtree_set_kv(two, "PREFIX", "/b");
    expect_refused("two.scr", two, "key PREFIX holds '/a, /b'");
    scr_kvtree_delete(two);
}

static void test_truncated_file_is_refused(void)
{
    const char *path = tap_path("cut.scr");
    FILE *in = fopen(tap_data("control/job.scr"), "rb");
    FILE *out = fopen(path, "wb");
    REQUIRE(in != NULL && out != NULL, "open");
    char buf[40];
    size_t n = fread(buf, 1, sizeof(buf), in);
    fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    scr_kvtree *j = scr_kvtree_new();
    int rc = quiet_read(scr_job_file_read, path, j);
    CHECK(rc != SCR_SUCCESS && rc != SCR_ERR_NOTFOUND, "a truncated file read as %d", rc);
    CHECK(strstr(scr_last_error(), "cut.scr") != NULL, "message does not name the file: '%s'",
          scr_last_error());
    scr_kvtree_delete(j);
}

static void test_cache_directories_match_their_golden_and_read_back(void)
{
    scr_kvtree *j = scr_kvtree_new();
    REQUIRE(scr_job_file_set_prefix(j, "/p/lustre/run1") == SCR_SUCCESS, "set prefix");
    REQUIRE(scr_job_file_add_cache_dir(j, "/ssd/alice/scr.1234") == SCR_SUCCESS &&
                scr_job_file_add_cache_dir(j, "/dev/shm/alice/scr.1234") == SCR_SUCCESS &&
                scr_job_file_add_cache_dir(j, "/ssd/alice/scr.1234") == SCR_SUCCESS,
            "add cache directories");
    const char *dir = tap_path("cntl-cache");
    mkdir(dir, 0700);
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_JOB_FILE_NAME);
    CHECK(scr_job_file_write(path, j) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("control/job-cache.scr"));
    char **dirs = NULL;
    CHECK(scr_job_file_cache_dirs_of(dir, &dirs) == SCR_SUCCESS, "read back");
    int n = 0, shm = 0, ssd = 0;
    for (char **d = dirs; d && *d; d++, n++) {
        shm += strcmp(*d, "/dev/shm/alice/scr.1234") == 0;
        ssd += strcmp(*d, "/ssd/alice/scr.1234") == 0;
    }
    CHECK(n == 2 && shm == 1 && ssd == 1,
          "%d directories read back, want the two recorded once each", n);
    scr_job_file_free_dirs(dirs);
    /* a job file of an older build has none: an empty list, not an error */
    dirs = NULL;
    const char *old = tap_path("cntl-old");
    mkdir(old, 0700);
    snprintf(path, sizeof(path), "%s/%s", old, SCR_JOB_FILE_NAME);
    scr_kvtree *o = scr_kvtree_new();
    REQUIRE(scr_job_file_set_prefix(o, "/p") == SCR_SUCCESS &&
                scr_job_file_write(path, o) == SCR_SUCCESS,
            "old");
    CHECK(scr_job_file_cache_dirs_of(old, &dirs) == SCR_SUCCESS && dirs != NULL && dirs[0] == NULL,
          "a job file without CACHE gives an empty list");
    scr_job_file_free_dirs(dirs);
    CHECK(scr_job_file_add_cache_dir(o, "relative/dir") == SCR_ERR_ARG,
          "a relative cache directory is refused");
    scr_kvtree_delete(o);
    scr_kvtree_delete(j);
}

static void test_setter_refuses_a_relative_prefix(void)
{
    scr_kvtree *j = scr_kvtree_new();
    scr_log_set_quiet(1);
    CHECK(scr_job_file_set_prefix(j, "run1") == SCR_ERR_ARG, "relative");
    CHECK(scr_job_file_set_prefix(j, NULL) == SCR_ERR_ARG, "NULL");
    CHECK(scr_job_file_write(NULL, j) == SCR_ERR_ARG, "NULL path");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(j) == 0, "refused setter changed the tree");
    scr_kvtree_delete(j);
}

int main(void)
{
    RUN(test_written_file_matches_independent_golden);
    RUN(test_golden_reads_back_through_getter);
    RUN(test_prefix_of_a_control_directory);
    RUN(test_newer_version_and_bad_prefixes_are_refused);
    RUN(test_truncated_file_is_refused);
    RUN(test_setter_refuses_a_relative_prefix);
    RUN(test_cache_directories_match_their_golden_and_read_back);
    return tap_done();
}
