/* test_health.c — node health: the record's golden bytes and damage, and
 * the checks a node runs on its directories. */
#include "tap.h"
#include "record_test.h"

#include "health_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "node_health.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_written_records_match_independent_goldens(void)
{
    struct scr_health bad = {.node = "n3", .healthy = 0, .checked = 1795372800};
    snprintf(bad.reason, sizeof(bad.reason),
             "/dev/shm/u/scr.7 is not writable: Read-only file system");
    const char *path = tap_path("n3.health");
    CHECK(scr_health_file_write(path, &bad) == SCR_SUCCESS, "write unhealthy");
    check_same_bytes(path, tap_data("control/health.scr"));
    struct scr_health good = {.node = "n1", .healthy = 1, .checked = 1795372800};
    snprintf(good.reason, sizeof(good.reason), "ignored for a healthy node");
    path = tap_path("n1.health");
    CHECK(scr_health_file_write(path, &good) == SCR_SUCCESS, "write healthy");
    check_same_bytes(path, tap_data("control/health-ok.scr"));
}

static void test_goldens_read_back(void)
{
    struct scr_health rec;
    REQUIRE(scr_health_file_read(tap_data("control/health.scr"), &rec) == SCR_SUCCESS, "read");
    CHECK(strcmp(rec.node, "n3") == 0 && rec.healthy == 0 && rec.checked == 1795372800, "fields");
    CHECK(strstr(rec.reason, "Read-only file system") != NULL, "reason '%s'", rec.reason);
    REQUIRE(scr_health_file_read(tap_data("control/health-ok.scr"), &rec) == SCR_SUCCESS,
            "read ok");
    CHECK(rec.healthy == 1 && rec.reason[0] == '\0', "healthy record");
}

static void test_paths_refuse_names_that_are_not_nodes(void)
{
    char *p = NULL;
    CHECK(scr_health_file_path("/d", "n7", &p) == SCR_SUCCESS && strcmp(p, "/d/n7.health") == 0,
          "%s", p);
    free(p);
    scr_log_set_quiet(1);
    const char *bad[] = {"", "../etc", ".hidden", "a/b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        scr_clear_last_error();
        CHECK(scr_health_file_path("/d", bad[i], &p) == SCR_ERR_ARG, "'%s' accepted", bad[i]);
        CHECK(strstr(scr_last_error(), "not a node name") != NULL, "'%s'", scr_last_error());
    }
    scr_log_set_quiet(0);
}

static void expect_refused(const char *name, scr_kvtree *raw, const char *want)
{
    const char *path = tap_path(name);
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write %s", name);
    struct scr_health rec;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_health_file_read(path, &rec);
    scr_log_set_quiet(0);
    check_refused(name, rc, path, want);
}

static void test_damaged_records_are_refused(void)
{
    static const struct {
        const char *file, *node, *healthy, *reason, *checked, *want;
    } cases[] = {
        {"v.health", NULL, "1", NULL, "5", "key NODE holds"},
        {"h.health", "n1", "yes", NULL, "5", "key HEALTHY holds 'yes', expected 0 or 1"},
        {"c.health", "n1", "1", NULL, "-4", "key CHECKED holds '-4'"},
        {"r.health", "n1", "0", NULL, "5", "expected why the node failed its check"},
        {"n.health", "../x", "1", NULL, "5", "key NODE holds '../x'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        scr_kvtree *raw = scr_kvtree_new();
        scr_kvtree_util_set_str(raw, "VERSION", "1");
        if (cases[i].node) scr_kvtree_util_set_str(raw, "NODE", cases[i].node);
        scr_kvtree_util_set_str(raw, "HEALTHY", cases[i].healthy);
        if (cases[i].reason) scr_kvtree_util_set_str(raw, "REASON", cases[i].reason);
        scr_kvtree_util_set_str(raw, "CHECKED", cases[i].checked);
        expect_refused(cases[i].file, raw, cases[i].want);
        scr_kvtree_delete(raw);
    }
    struct scr_health rec;
    scr_clear_last_error();
    CHECK(scr_health_file_read(tap_path("absent.health"), &rec) == SCR_ERR_NOTFOUND, "missing");
    CHECK(scr_last_error()[0] == '\0', "missing file logged '%s'", scr_last_error());
}

static void test_check_passes_on_usable_directories(void)
{
    const char *dirs[] = {tap_path("cache"), tap_path("cntl")};
    mkdir(dirs[0], 0700);
    mkdir(dirs[1], 0700);
    struct scr_health rec;
    REQUIRE(scr_node_health_check("n1", dirs, 2, 4096, &rec) == SCR_SUCCESS, "check ran");
    CHECK(rec.healthy == 1 && rec.reason[0] == '\0', "unhealthy: %s", rec.reason);
    CHECK(strcmp(rec.node, "n1") == 0 && rec.checked > 0, "record fields");
    CHECK(rmdir(dirs[0]) == 0, "the probe file was left behind in %s", dirs[0]);
}

static void test_check_names_each_failure(void)
{
    struct scr_health rec;
    const char *missing[] = {tap_path("nowhere")};
    REQUIRE(scr_node_health_check("n1", missing, 1, 0, &rec) == SCR_SUCCESS, "ran");
    CHECK(!rec.healthy && strstr(rec.reason, "nowhere: No such file") != NULL, "'%s'", rec.reason);

    const char *file[] = {tap_path("plain")};
    FILE *f = fopen(file[0], "w");
    REQUIRE(f != NULL && fclose(f) == 0, "make a plain file");
    REQUIRE(scr_node_health_check("n1", file, 1, 0, &rec) == SCR_SUCCESS, "ran");
    CHECK(!rec.healthy && strstr(rec.reason, "is not a directory") != NULL, "'%s'", rec.reason);

    const char *link[] = {tap_path("link")};
    const char *target = tap_path("target");
    mkdir(target, 0700);
    REQUIRE(symlink(target, link[0]) == 0, "symlink");
    REQUIRE(scr_node_health_check("n1", link, 1, 0, &rec) == SCR_SUCCESS, "ran");
    CHECK(!rec.healthy && strstr(rec.reason, "is not a directory") != NULL, "symlink: '%s'",
          rec.reason);

    const char *roomy[] = {tap_path("roomy")};
    mkdir(roomy[0], 0700);
    REQUIRE(scr_node_health_check("n1", roomy, 1, UINT64_MAX / 2, &rec) == SCR_SUCCESS, "ran");
    CHECK(!rec.healthy && strstr(rec.reason, "bytes free, the job needs") != NULL, "'%s'",
          rec.reason);

    if (geteuid() != 0) { /* root writes anywhere */
        const char *ro[] = {tap_path("readonly")};
        mkdir(ro[0], 0500);
        REQUIRE(scr_node_health_check("n1", ro, 1, 0, &rec) == SCR_SUCCESS, "ran");
        CHECK(!rec.healthy && strstr(rec.reason, "is not writable: Permission denied") != NULL,
              "'%s'", rec.reason);
    }
    CHECK(scr_node_health_check("", missing, 1, 0, &rec) == SCR_ERR_ARG, "empty node name");
}

int main(void)
{
    RUN(test_written_records_match_independent_goldens);
    RUN(test_goldens_read_back);
    RUN(test_paths_refuse_names_that_are_not_nodes);
    RUN(test_damaged_records_are_refused);
    RUN(test_check_passes_on_usable_directories);
    RUN(test_check_names_each_failure);
    return tap_done();
}
