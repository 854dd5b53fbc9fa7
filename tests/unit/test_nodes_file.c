/* test_nodes_file.c — the node count of the previous run: golden bytes and damage. */
#include "tap.h"
#include "record_test.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "nodes_file.h"
#include "scr_err.h"
#include "util_log.h"

static void test_written_file_matches_independent_golden(void)
{
    scr_kvtree *n = scr_kvtree_new();
    REQUIRE(scr_nodes_file_set_nodes(n, 4) == SCR_SUCCESS, "set");
    const char *path = tap_path("nodes.scr");
    CHECK(scr_nodes_file_write(path, n) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("control/nodes.scr"));
    CHECK(scr_kvtree_get(n, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(n);
}

static void test_golden_reads_back_through_getter(void)
{
    scr_kvtree *n = scr_kvtree_new();
    int count = -1;
    REQUIRE(scr_nodes_file_read(tap_data("control/nodes.scr"), n) == SCR_SUCCESS, "read");
    CHECK(scr_nodes_file_get_nodes(n, &count) == SCR_SUCCESS && count == 4, "count %d", count);
    CHECK(scr_kvtree_get(n, "VERSION") == NULL, "VERSION kept in the tree");
    scr_kvtree_delete(n);
}

static void test_missing_file_is_notfound_without_a_message(void)
{
    scr_kvtree *n = scr_kvtree_new();
    scr_clear_last_error();
    CHECK(scr_nodes_file_read(tap_path("no-nodes.scr"), n) == SCR_ERR_NOTFOUND, "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_kvtree_delete(n);
}

/* Write a raw tree and expect the module to refuse it, naming file and want. */
static void expect_refused(const char *name, scr_kvtree *raw, const char *want)
{
    const char *path = tap_path(name);
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write %s", name);
    scr_kvtree *n = scr_kvtree_new();
    int rc = quiet_read(scr_nodes_file_read, path, n);
    check_refused(name, rc, path, want);
    CHECK(scr_kvtree_size(n) == 0, "%s: tree changed", name);
    scr_kvtree_delete(n);
}

static void test_newer_version_and_damaged_counts_are_refused(void)
{
    static const struct {
        const char *file, *version, *nodes, *want;
    } cases[] = {
        {"v2.scr", "2", "4", "nodes file version 2"},
        {"vtext.scr", "new", "4", "key VERSION holds 'new'"},
        {"zero.scr", "1", "0", "key NODES holds '0', expected a number of nodes"},
        {"neg.scr", "1", "-3", "key NODES holds '-3'"},
        {"text.scr", "1", "four", "key NODES holds 'four'"},
        {"huge.scr", "1", "99999999999", "key NODES holds '99999999999'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        scr_kvtree *raw = scr_kvtree_new();
        scr_kvtree_util_set_str(raw, "VERSION", cases[i].version);
        scr_kvtree_util_set_str(raw, "NODES", cases[i].nodes);
        expect_refused(cases[i].file, raw, cases[i].want);
        scr_kvtree_delete(raw);
    }
    scr_kvtree *two = scr_kvtree_new();
    scr_kvtree_set_kv(two, "NODES", "4");
    scr_kvtree_set_kv(two, "NODES", "5");
    expect_refused("two.scr", two, "key NODES holds '4, 5'");
    scr_kvtree_delete(two);
}

static void test_missing_version_reads_as_the_first_version(void)
{
    scr_kvtree *raw = scr_kvtree_new();
    scr_kvtree_util_set_int(raw, "NODES", 12);
    const char *path = tap_path("noversion.scr");
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write");
    scr_kvtree *n = scr_kvtree_new();
    int count = -1;
    CHECK(scr_nodes_file_read(path, n) == SCR_SUCCESS &&
              scr_nodes_file_get_nodes(n, &count) == SCR_SUCCESS && count == 12,
          "count %d", count);
    scr_kvtree_delete(n);
    scr_kvtree_delete(raw);
}

static void test_setter_and_getter_check_the_count(void)
{
    scr_kvtree *n = scr_kvtree_new();
    int count;
    CHECK(scr_nodes_file_get_nodes(n, &count) == SCR_ERR_NOTFOUND, "empty tree");
    scr_log_set_quiet(1);
    CHECK(scr_nodes_file_set_nodes(n, 0) == SCR_ERR_ARG, "0 nodes");
    CHECK(scr_nodes_file_set_nodes(NULL, 3) == SCR_ERR_ARG, "NULL tree");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(n) == 0, "refused setter changed the tree");
    scr_kvtree_util_set_str(n, "NODES", "-1");
    scr_clear_last_error();
    CHECK(scr_nodes_file_get_nodes(n, &count) == SCR_ERR_TYPE, "-1 nodes");
    CHECK(scr_last_error()[0] == '\0', "getter logged '%s'", scr_last_error());
    CHECK(scr_nodes_file_get_nodes(n, NULL) == SCR_ERR_ARG, "NULL result");
    scr_kvtree_delete(n);
}

static void test_write_refuses_bad_tree_and_missing_directory(void)
{
    scr_kvtree *n = scr_kvtree_new();
    scr_kvtree_util_set_str(n, "NODES", "x");
    const char *path = tap_path("bad-nodes.scr");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_nodes_file_write(path, n) == SCR_ERR_TYPE, "written");
    CHECK(strstr(scr_last_error(), "key NODES holds 'x'") != NULL, "'%s'", scr_last_error());
    CHECK(access(path, F_OK) != 0, "file created");
    scr_nodes_file_set_nodes(n, 2);
    CHECK(scr_nodes_file_write(tap_path("none/nodes.scr"), n) == SCR_ERR_IO, "no directory");
    CHECK(scr_nodes_file_write(NULL, n) == SCR_ERR_ARG, "NULL path");
    CHECK(scr_nodes_file_read(NULL, n) == SCR_ERR_ARG, "NULL path read");
    scr_log_set_quiet(0);
    scr_kvtree_delete(n);
}

int main(void)
{
    RUN(test_written_file_matches_independent_golden);
    RUN(test_golden_reads_back_through_getter);
    RUN(test_missing_file_is_notfound_without_a_message);
    RUN(test_newer_version_and_damaged_counts_are_refused);
    RUN(test_missing_version_reads_as_the_first_version);
    RUN(test_setter_and_getter_check_the_count);
    RUN(test_write_refuses_bad_tree_and_missing_directory);
    return tap_done();
}
