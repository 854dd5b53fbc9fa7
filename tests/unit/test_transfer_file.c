/* test_transfer_file.c — the background flush's work list: golden bytes,
 * enumerations, damage and locked updates from two sides. */
#include "tap.h"
#include "record_test.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "transfer_file.h"
#include "util_log.h"

#include <sys/wait.h>

#define SRC0 "/tmp/user1/scr.1001186/index.0/checkpoint.1/rank_0.ckpt"
#define DST0 "/p/lscratchb/user1/simulation123/scr.2010-06-02_17:35:13.1001186.1/rank_0.ckpt"
#define SRC1 SRC0 ".scr"
#define DST1 DST0 ".scr"

/* Values of tests/data/control/transfer.json, through the setters. */
static int set_sample(scr_kvtree *t)
{
    int rc = scr_transfer_file_add_file(t, SRC0, DST0, 524294);
    rc |= scr_transfer_file_set_written(t, SRC0, 524294);
    rc |= scr_transfer_file_add_file(t, SRC1, DST1, 124);
    rc |= scr_transfer_file_set_written(t, SRC1, 124);
    rc |= scr_transfer_file_set_percent(t, 0.0);
    rc |= scr_transfer_file_set_bw(t, 52428800.0);
    rc |= scr_transfer_file_set_command(t, SCR_TRANSFER_COMMAND_RUN);
    rc |= scr_transfer_file_set_state(t, SCR_TRANSFER_STATE_STOPPED);
    rc |= scr_transfer_file_set_done(t);
    return rc;
}

static void test_written_file_matches_independent_golden(void)
{
    const char *path = tap_path("transfer.scr");
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_transfer_file_lock_read(path, &fd, t) == SCR_SUCCESS, "lock");
    CHECK(set_sample(t) == SCR_SUCCESS, "setters");
    CHECK(scr_transfer_file_write_unlock(path, &fd, t) == SCR_SUCCESS, "write");
    CHECK(fd == -1, "descriptor not reset");
    check_same_bytes(path, tap_data("control/transfer.scr"));
    CHECK(scr_kvtree_get(t, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(t);
}

static void check_sample_values(const char *what, const scr_kvtree *t)
{
    const char *dest = NULL;
    uint64_t size = 0, written = 0;
    double v = -1;
    enum scr_transfer_command cmd = SCR_TRANSFER_COMMAND_EXIT;
    enum scr_transfer_state state = SCR_TRANSFER_STATE_RUNNING;
    int done = -1;
    CHECK(scr_transfer_file_get_destination(t, SRC0, &dest) == 0 && strcmp(dest, DST0) == 0,
          "%s: destination 0", what);
    CHECK(scr_transfer_file_get_size(t, SRC0, &size) == 0 && size == 524294, "%s: size 0", what);
    CHECK(scr_transfer_file_get_written(t, SRC0, &written) == 0 && written == 524294,
          "%s: written 0", what);
    CHECK(scr_transfer_file_get_destination(t, SRC1, &dest) == 0 && strcmp(dest, DST1) == 0,
          "%s: destination 1", what);
    CHECK(scr_transfer_file_get_size(t, SRC1, &size) == 0 && size == 124, "%s: size 1", what);
    CHECK(scr_transfer_file_get_written(t, SRC1, &written) == 0 && written == 124, "%s: written 1",
          what);
    CHECK(scr_transfer_file_get_percent(t, &v) == 0 && v == 0.0, "%s: percent", what);
    CHECK(scr_transfer_file_get_bw(t, &v) == 0 && v == 52428800.0, "%s: bw", what);
    CHECK(scr_transfer_file_get_command(t, &cmd) == 0 && cmd == SCR_TRANSFER_COMMAND_RUN,
          "%s: command", what);
    CHECK(scr_transfer_file_get_state(t, &state) == 0 && state == SCR_TRANSFER_STATE_STOPPED,
          "%s: state", what);
    CHECK(scr_transfer_file_is_done(t, &done) == 0 && done == 1, "%s: done", what);
    const char **sources = NULL;
    int count = 0;
    CHECK(scr_transfer_file_list_sources(t, &sources, &count) == 0 && count == 2 &&
              strcmp(sources[0], SRC0) == 0 && strcmp(sources[1], SRC1) == 0,
          "%s: sources", what);
    free(sources);
    CHECK(scr_kvtree_get(t, "VERSION") == NULL, "%s: VERSION kept", what);
}

static void test_golden_reads_back_through_getters(void)
{
    scr_kvtree *t = scr_kvtree_new();
    REQUIRE(scr_transfer_file_read(tap_data("control/transfer.scr"), t) == SCR_SUCCESS, "read");
    check_sample_values("transfer.scr", t);
    scr_kvtree_delete(t);
}

static void test_file_without_version_reads_as_the_first_version(void)
{
    scr_kvtree *t = scr_kvtree_new();
    REQUIRE(scr_transfer_file_read(tap_data("control/transfer-noversion.scr"), t) == SCR_SUCCESS,
            "read");
    check_sample_values("transfer-noversion.scr", t);
    scr_kvtree_delete(t);
}

static void test_missing_file_holds_nothing_but_missing_directory_cannot_be_locked(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_clear_last_error();
    CHECK(scr_transfer_file_read(tap_path("no-transfer.scr"), t) == SCR_SUCCESS, "read");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    CHECK(scr_kvtree_size(t) == 0, "contents appeared");
    int fd = -1;
    const char *path = tap_path("no-dir/transfer.scr");
    scr_log_set_quiet(1);
    CHECK(scr_transfer_file_lock_read(path, &fd, t) == SCR_ERR_NOTFOUND, "locked");
    scr_log_set_quiet(0);
    CHECK(fd == -1, "descriptor set");
    CHECK(strstr(scr_last_error(), path) != NULL, "'%s'", scr_last_error());
    scr_kvtree_delete(t);
}

/* Golden tree, edited, written raw; read and lock must both refuse it. */
static void expect_refused(const char *name, void (*edit)(scr_kvtree *), const char *want)
{
    const char *path = write_edited_golden("control/transfer.scr", name, edit);
    if (path == NULL) return;

    scr_kvtree *t = scr_kvtree_new();
    int rc = quiet_read(scr_transfer_file_read, path, t);
    check_refused(name, rc, path, want);
    CHECK(scr_kvtree_size(t) == 0, "%s: tree changed", name);
    int fd = -1;
    scr_log_set_quiet(1);
    rc = scr_transfer_file_lock_read(path, &fd, t);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT && fd == -1, "%s: lock rc %d", name, rc);
    CHECK(lock_is_free(path), "%s: lock still held", name);
    scr_kvtree_delete(t);
}

static scr_kvtree *entry0(scr_kvtree *raw)
{
    return scr_kvtree_get_kv(raw, "FILES", SRC0);
}
static void edit_version(scr_kvtree *t)
{
    scr_kvtree_util_set_int(t, "VERSION", 2);
}
static void edit_command(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "COMMAND", "JUMP");
}
static void edit_state(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "STATE", "SLEEPING");
}
static void edit_flag(scr_kvtree *t)
{
    scr_kvtree_set_kv(t, "FLAG", "HALF");
}
static void edit_percent_high(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "PERCENT", "150.0");
}
static void edit_percent_text(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "PERCENT", "lots");
}
static void edit_bw_negative(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "BW", "-1.0");
}
static void edit_size_text(scr_kvtree *t)
{
    scr_kvtree_util_set_str(entry0(t), "SIZE", "abc");
}
static void edit_size_missing(scr_kvtree *t)
{
    scr_kvtree_unset(entry0(t), "SIZE");
}
static void edit_written_big(scr_kvtree *t)
{
    scr_kvtree_util_set_str(entry0(t), "WRITTEN", "524295");
}
static void edit_dest_relative(scr_kvtree *t)
{
    scr_kvtree_util_set_str(entry0(t), "DESTINATION", "rank_0.ckpt");
}
static void edit_dest_missing(scr_kvtree *t)
{
    scr_kvtree_unset(entry0(t), "DESTINATION");
}
static void edit_source_relative(scr_kvtree *t)
{
    scr_kvtree *e = scr_kvtree_set_kv(t, "FILES", "relative/file");
    scr_kvtree_util_set_str(e, "DESTINATION", "/x");
    scr_kvtree_util_set_int(e, "SIZE", 1);
}

static void test_newer_version_is_refused_naming_the_version(void)
{
    expect_refused("v2.scr", edit_version, "transfer file version 2");
}

static void test_damaged_values_are_refused_naming_key_and_text(void)
{
    expect_refused("command.scr", edit_command, "key COMMAND holds 'JUMP', expected one of RUN");
    expect_refused("state.scr", edit_state, "key STATE holds 'SLEEPING', expected one of RUNNING");
    expect_refused("flag.scr", edit_flag, "key FLAG holds 'DONE, HALF'");
    expect_refused("percent-high.scr", edit_percent_high, "key PERCENT holds '150.0'");
    expect_refused("percent-text.scr", edit_percent_text, "key PERCENT holds 'lots'");
    expect_refused("bw.scr", edit_bw_negative, "key BW holds '-1.0'");
    expect_refused("size-text.scr", edit_size_text, "key FILES " SRC0 " SIZE holds 'abc'");
    expect_refused("size-missing.scr", edit_size_missing, "key FILES " SRC0 " SIZE holds ''");
    expect_refused("written.scr", edit_written_big, "WRITTEN holds '524295'");
    expect_refused("dest-rel.scr", edit_dest_relative,
                   "DESTINATION holds 'rank_0.ckpt', expected an absolute path");
    expect_refused("dest-missing.scr", edit_dest_missing, "DESTINATION holds ''");
    expect_refused("source-rel.scr", edit_source_relative, "key FILES holds 'relative/file'");
}

static void test_enumerations_are_checked_both_ways(void)
{
    scr_kvtree *t = scr_kvtree_new();
    enum scr_transfer_command cmd;
    enum scr_transfer_state state;
    CHECK(scr_transfer_file_get_command(t, &cmd) == SCR_ERR_NOTFOUND, "absent command");
    CHECK(scr_transfer_file_get_state(t, &state) == SCR_ERR_NOTFOUND, "absent state");
    for (int c = 0; c < 3; c++) {
        CHECK(scr_transfer_file_set_command(t, (enum scr_transfer_command)c) == 0 &&
                  scr_transfer_file_get_command(t, &cmd) == 0 && (int)cmd == c,
              "command %d", c);
    }
    for (int s = 0; s < 2; s++) {
        CHECK(scr_transfer_file_set_state(t, (enum scr_transfer_state)s) == 0 &&
                  scr_transfer_file_get_state(t, &state) == 0 && (int)state == s,
              "state %d", s);
    }
    CHECK(strcmp(scr_transfer_command_name(SCR_TRANSFER_COMMAND_STOP), "STOP") == 0, "STOP");
    CHECK(strcmp(scr_transfer_state_name(SCR_TRANSFER_STATE_RUNNING), "RUNNING") == 0, "RUNNING");
    CHECK(scr_transfer_command_name((enum scr_transfer_command)3) == NULL, "command 3");
    CHECK(scr_transfer_state_name((enum scr_transfer_state) - 1) == NULL, "state -1");
    scr_log_set_quiet(1);
    CHECK(scr_transfer_file_set_command(t, (enum scr_transfer_command)7) == SCR_ERR_ARG, "cmd 7");
    CHECK(scr_transfer_file_set_state(t, (enum scr_transfer_state)2) == SCR_ERR_ARG, "state 2");
    scr_log_set_quiet(0);
    scr_kvtree_util_set_str(t, "COMMAND", "run"); /* case matters */
    scr_kvtree_util_set_str(t, "STATE", "");
    scr_clear_last_error();
    CHECK(scr_transfer_file_get_command(t, &cmd) == SCR_ERR_TYPE, "lower-case run");
    CHECK(scr_transfer_file_get_state(t, &state) == SCR_ERR_TYPE, "empty state");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    scr_kvtree_delete(t);
}

static void test_file_entries_are_added_updated_and_removed(void)
{
    scr_kvtree *t = scr_kvtree_new();
    uint64_t v;
    const char *dest;
    const char **sources = (const char **)1;
    int count = -1;
    CHECK(scr_transfer_file_list_sources(t, &sources, &count) == 0 && sources == NULL && count == 0,
          "empty list");
    CHECK(scr_transfer_file_add_file(t, "/c/a", "/p/a", 100) == 0, "add");
    CHECK(scr_transfer_file_get_written(t, "/c/a", &v) == SCR_ERR_NOTFOUND, "no WRITTEN yet");
    CHECK(scr_transfer_file_set_written(t, "/c/a", 40) == 0, "written 40");
    CHECK(scr_transfer_file_get_written(t, "/c/a", &v) == 0 && v == 40, "written %llu",
          (unsigned long long)v);
    CHECK(scr_transfer_file_add_file(t, "/c/a", "/p/b", 7) == 0, "replace");
    CHECK(scr_transfer_file_get_written(t, "/c/a", &v) == SCR_ERR_NOTFOUND, "WRITTEN kept");
    CHECK(scr_transfer_file_get_destination(t, "/c/a", &dest) == 0 && strcmp(dest, "/p/b") == 0,
          "destination replaced");
    CHECK(scr_transfer_file_get_size(t, "/c/a", &v) == 0 && v == 7, "size replaced");
    CHECK(scr_transfer_file_get_size(t, "/c/zz", &v) == SCR_ERR_NOTFOUND, "unknown source");
    CHECK(scr_transfer_file_remove_file(t, "/c/a") == 0 &&
              scr_transfer_file_get_size(t, "/c/a", &v) == SCR_ERR_NOTFOUND,
          "removed");
    CHECK(scr_transfer_file_remove_file(t, "/c/never") == 0, "remove absent");
    scr_kvtree_delete(t);
}

static void test_file_setters_refuse_bad_arguments(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_transfer_file_add_file(t, "rel", "/p/a", 1) == SCR_ERR_ARG, "relative source");
    CHECK(strstr(scr_last_error(), "'rel'") != NULL, "'%s'", scr_last_error());
    CHECK(scr_transfer_file_add_file(t, "/c/a", "p/a", 1) == SCR_ERR_ARG, "relative destination");
    CHECK(scr_transfer_file_add_file(t, NULL, "/p/a", 1) == SCR_ERR_ARG, "NULL source");
    CHECK(scr_kvtree_size(t) == 0, "refused add changed the tree");
    CHECK(scr_transfer_file_set_written(t, "/c/none", 1) == SCR_ERR_NOTFOUND, "unknown source");
    CHECK(strstr(scr_last_error(), "/c/none") != NULL, "'%s'", scr_last_error());
    scr_transfer_file_add_file(t, "/c/a", "/p/a", 10);
    CHECK(scr_transfer_file_set_written(t, "/c/a", 11) == SCR_ERR_ARG, "more than SIZE");
    CHECK(scr_transfer_file_set_percent(t, 100.5) == SCR_ERR_ARG, "percent 100.5");
    CHECK(scr_transfer_file_set_percent(t, -0.5) == SCR_ERR_ARG, "percent -0.5");
    CHECK(scr_transfer_file_set_bw(t, -1.0) == SCR_ERR_ARG, "bw -1");
    CHECK(scr_transfer_file_set_bw(t, 1.0 / 0.0) == SCR_ERR_ARG, "bw infinite");
    CHECK(scr_transfer_file_set_done(NULL) == SCR_ERR_ARG, "done on NULL");
    scr_log_set_quiet(0);
    double d;
    CHECK(scr_transfer_file_get_percent(t, &d) == SCR_ERR_NOTFOUND, "percent stored");
    scr_kvtree_delete(t);
}

static void test_done_flag_is_set_cleared_and_checked(void)
{
    scr_kvtree *t = scr_kvtree_new();
    int done = -1;
    CHECK(scr_transfer_file_is_done(t, &done) == 0 && done == 0, "absent flag");
    CHECK(scr_transfer_file_set_done(t) == 0 && scr_transfer_file_is_done(t, &done) == 0 &&
              done == 1,
          "set");
    CHECK(scr_transfer_file_unset_done(t) == 0 && scr_transfer_file_is_done(t, &done) == 0 &&
              done == 0,
          "cleared");
    CHECK(scr_kvtree_get(t, "FLAG") == NULL, "empty FLAG left behind");
    scr_kvtree_set_kv(t, "FLAG", "MAYBE");
    CHECK(scr_transfer_file_is_done(t, &done) == SCR_ERR_TYPE, "unknown flag");
    scr_kvtree_delete(t);
}

static void test_write_refuses_a_tree_a_reader_would_refuse(void)
{
    const char *path = tap_path("refuse.scr");
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_transfer_file_lock_read(path, &fd, t) == 0, "lock");
    scr_kvtree_util_set_str(t, "COMMAND", "PAUSE");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_transfer_file_write_unlock(path, &fd, t) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "PAUSE") != NULL, "'%s'", scr_last_error());
    CHECK(fd == -1 && lock_is_free(path), "lock not released");
    scr_kvtree *back = scr_kvtree_new();
    CHECK(scr_transfer_file_read(path, back) == 0 && scr_kvtree_size(back) == 0, "file changed");
    scr_kvtree_delete(back);
    scr_kvtree_delete(t);
}

/* The library switches the command while the copier records progress; both
 * sides' last updates survive. */
static void test_library_and_copier_update_without_losing_changes(void)
{
    enum { ROUNDS = 30 };
    const char *path = tap_path("shared.scr");
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_transfer_file_lock_read(path, &fd, t) == 0, "lock");
    scr_transfer_file_add_file(t, "/c/f", "/p/f", 1000);
    REQUIRE(scr_transfer_file_write_unlock(path, &fd, t) == 0, "write");
    scr_kvtree_delete(t);

    pid_t pids[2];
    for (int c = 0; c < 2; c++) {
        pids[c] = fork();
        if (pids[c] != 0) continue;
        int ok = 1;
        for (int i = 1; i <= ROUNDS; i++) {
            scr_kvtree *mine = scr_kvtree_new();
            int cfd = -1;
            ok &= scr_transfer_file_lock_read(path, &cfd, mine) == 0;
            if (c == 0)
                ok &= scr_transfer_file_set_written(mine, "/c/f", (uint64_t)i * 10) == 0;
            else
                ok &= scr_transfer_file_set_command(mine, i % 2 ? SCR_TRANSFER_COMMAND_RUN
                                                                : SCR_TRANSFER_COMMAND_STOP) == 0;
            ok &= scr_transfer_file_write_unlock(path, &cfd, mine) == 0;
            scr_kvtree_delete(mine);
        }
        _exit(ok ? 0 : 1);
    }
    for (int c = 0; c < 2; c++) {
        int status;
        waitpid(pids[c], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed", c);
    }
    scr_kvtree *back = scr_kvtree_new();
    uint64_t written = 0;
    enum scr_transfer_command cmd = SCR_TRANSFER_COMMAND_EXIT;
    CHECK(scr_transfer_file_read(path, back) == 0, "read");
    CHECK(scr_transfer_file_get_written(back, "/c/f", &written) == 0 && written == ROUNDS * 10,
          "WRITTEN %llu", (unsigned long long)written);
    CHECK(scr_transfer_file_get_command(back, &cmd) == 0 && cmd == SCR_TRANSFER_COMMAND_STOP,
          "COMMAND %d", (int)cmd);
    scr_kvtree_delete(back);
}

int main(void)
{
    RUN(test_written_file_matches_independent_golden);
    RUN(test_golden_reads_back_through_getters);
    RUN(test_file_without_version_reads_as_the_first_version);
    RUN(test_missing_file_holds_nothing_but_missing_directory_cannot_be_locked);
    RUN(test_newer_version_is_refused_naming_the_version);
    RUN(test_damaged_values_are_refused_naming_key_and_text);
    RUN(test_enumerations_are_checked_both_ways);
    RUN(test_file_entries_are_added_updated_and_removed);
    RUN(test_file_setters_refuse_bad_arguments);
    RUN(test_done_flag_is_set_cleared_and_checked);
    RUN(test_write_refuses_a_tree_a_reader_would_refuse);
    RUN(test_library_and_copier_update_without_losing_changes);
    return tap_done();
}
