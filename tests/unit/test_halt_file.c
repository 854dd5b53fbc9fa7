/* test_halt_file.c — halt conditions: golden bytes, locked updates, the decision. */
#include "tap.h"
#include "record_test.h"

#include "halt_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <sys/stat.h>
#include <sys/wait.h>

/* Values of tests/data/control/halt.json (the example of the format's description). */
static int set_sample(scr_kvtree *h)
{
    int rc = scr_halt_file_set_checkpoints_left(h, 7);
    rc |= scr_halt_file_set_exit_after(h, 1298937600);
    rc |= scr_halt_file_set_exit_before(h, 1298944800);
    rc |= scr_halt_file_set_halt_seconds(h, 1200);
    rc |= scr_halt_file_set_exit_reason(h, SCR_HALT_REASON_FINALIZE);
    return rc;
}

static void test_written_file_matches_independent_golden(void)
{
    const char *path = tap_path("golden/.scr/halt.scr");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_halt_file_lock_read(path, &fd, h) == SCR_SUCCESS, "lock");
    CHECK(scr_kvtree_size(h) == 0, "a new file is not empty");
    CHECK(set_sample(h) == SCR_SUCCESS, "setters");
    CHECK(scr_halt_file_write_unlock(path, &fd, h) == SCR_SUCCESS, "write");
    CHECK(fd == -1, "descriptor not reset");
    check_same_bytes(path, tap_data("control/halt.scr"));
    CHECK(scr_kvtree_get(h, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(h);
}

static void check_sample_values(const char *what, const scr_kvtree *h)
{
    int left = -1;
    int64_t s = -1;
    const char *reason = NULL;
    CHECK(scr_halt_file_get_checkpoints_left(h, &left) == 0 && left == 7, "%s: left %d", what,
          left);
    CHECK(scr_halt_file_get_exit_after(h, &s) == 0 && s == 1298937600, "%s: after", what);
    CHECK(scr_halt_file_get_exit_before(h, &s) == 0 && s == 1298944800, "%s: before", what);
    CHECK(scr_halt_file_get_halt_seconds(h, &s) == 0 && s == 1200, "%s: seconds", what);
    CHECK(scr_halt_file_get_exit_reason(h, &reason) == 0 &&
              strcmp(reason, "SCR_FINALIZE_CALLED") == 0,
          "%s: reason", what);
    CHECK(scr_kvtree_get(h, "VERSION") == NULL, "%s: VERSION kept in the tree", what);
}

static void test_golden_reads_back_through_getters(void)
{
    scr_kvtree *h = scr_kvtree_new();
    REQUIRE(scr_halt_file_read(tap_data("control/halt.scr"), h) == SCR_SUCCESS, "read");
    check_sample_values("halt.scr", h);
    scr_kvtree_delete(h);
}

static void test_file_without_version_reads_as_the_first_version(void)
{
    scr_kvtree *h = scr_kvtree_new();
    REQUIRE(scr_halt_file_read(tap_data("control/halt-noversion.scr"), h) == SCR_SUCCESS, "read");
    check_sample_values("halt-noversion.scr", h);
    scr_kvtree_delete(h);
}

static void test_missing_file_or_directory_reads_as_no_conditions(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_clear_last_error();
    CHECK(scr_halt_file_read(tap_path("nothing/.scr/halt.scr"), h) == SCR_SUCCESS, "no dir");
    CHECK(scr_halt_file_read(tap_path("halt-missing.scr"), h) == SCR_SUCCESS, "no file");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    CHECK(scr_kvtree_size(h) == 0, "conditions appeared");
    CHECK(access(tap_path("nothing"), F_OK) != 0, "reading created a directory");
    scr_kvtree_delete(h);
}

static void test_path_is_under_the_prefix_scr_directory(void)
{
    char *path = NULL;
    CHECK(scr_halt_file_path("/p/run//", &path) == 0 && strcmp(path, "/p/run/.scr/halt.scr") == 0,
          "got '%s'", path ? path : "(null)");
    free(path);
    scr_log_set_quiet(1);
    CHECK(scr_halt_file_path("", &path) == SCR_ERR_ARG, "empty prefix");
    CHECK(scr_halt_file_path(NULL, &path) == SCR_ERR_ARG, "NULL prefix");
    scr_log_set_quiet(0);
}

static void test_locking_creates_the_scr_directory_private(void)
{
    char *path = NULL;
    REQUIRE(scr_halt_file_path(tap_path("fresh-prefix"), &path) == 0, "path");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1;
    CHECK(scr_halt_file_lock_read(path, &fd, h) == SCR_SUCCESS, "lock");
    struct stat st;
    CHECK(stat(tap_path("fresh-prefix/.scr"), &st) == 0 && S_ISDIR(st.st_mode) &&
              (st.st_mode & 0777) == 0700,
          "mode %o", (unsigned)(st.st_mode & 0777));
    scr_halt_file_set_exit_reason(h, "MAINTENANCE");
    CHECK(scr_halt_file_write_unlock(path, &fd, h) == SCR_SUCCESS, "write");
    scr_kvtree *back = scr_kvtree_new();
    const char *reason = NULL;
    CHECK(scr_halt_file_read(path, back) == 0 &&
              scr_halt_file_get_exit_reason(back, &reason) == 0 &&
              strcmp(reason, "MAINTENANCE") == 0,
          "read back");
    scr_kvtree_delete(back);
    scr_kvtree_delete(h);
    free(path);
}

static void test_locking_fails_when_directory_cannot_be_made(void)
{
    REQUIRE(scr_write_atomic(tap_path("plainfile"), "x", 1) == SCR_SUCCESS, "file");
    const char *path = tap_path("plainfile/.scr/halt.scr");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_halt_file_lock_read(path, &fd, h) == SCR_ERR_IO, "locked");
    scr_log_set_quiet(0);
    CHECK(fd == -1, "descriptor set");
    CHECK(strstr(scr_last_error(), "plainfile") != NULL, "'%s'", scr_last_error());
    scr_kvtree_delete(h);
}

/* Write the golden tree with edit applied, then expect both reading and
 * locking to refuse it with the file and want in the message. */
static void expect_refused(const char *name, void (*edit)(scr_kvtree *), const char *want)
{
    const char *path = write_edited_golden("control/halt.scr", name, edit);
    if (path == NULL) return;

    scr_kvtree *h = scr_kvtree_new();
    scr_kvtree_set_kv(h, "KEEP", "me");
    int rc = quiet_read(scr_halt_file_read, path, h);
    check_refused(name, rc, path, want);
    int fd = -1;
    scr_log_set_quiet(1);
    rc = scr_halt_file_lock_read(path, &fd, h);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "%s: lock rc %d", name, rc);
    CHECK(fd == -1, "%s: descriptor handed out", name);
    CHECK(lock_is_free(path), "%s: lock still held after a refused read", name);
    CHECK(scr_kvtree_size(h) == 1, "%s: tree changed", name);
    scr_kvtree_delete(h);
}

static void edit_newer_version(scr_kvtree *t)
{
    scr_kvtree_util_set_int(t, "VERSION", 3);
}
static void edit_left_negative(scr_kvtree *t)
{
    scr_kvtree_util_set_int(t, "CheckpointsLeft", -1);
}
static void edit_left_text(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "CheckpointsLeft", "many");
}
static void edit_after_text(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "ExitAfter", "soon");
}
static void edit_before_float(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "ExitBefore", "1.5");
}
static void edit_seconds_negative(scr_kvtree *t)
{
    scr_kvtree_util_set_int(t, "HaltSeconds", -5);
}
static void edit_reason_empty(scr_kvtree *t)
{
    scr_kvtree_util_set_str(t, "ExitReason", "");
}
static void edit_reason_two(scr_kvtree *t)
{
    scr_kvtree_set_kv(t, "ExitReason", "AGAIN");
}

static void test_newer_version_is_refused_naming_the_version(void)
{
    expect_refused("v3.scr", edit_newer_version, "version 3");
}

static void test_damaged_values_are_refused_naming_key_and_text(void)
{
    expect_refused("left-neg.scr", edit_left_negative, "key CheckpointsLeft holds '-1'");
    expect_refused("left-text.scr", edit_left_text, "key CheckpointsLeft holds 'many'");
    expect_refused("after.scr", edit_after_text, "key ExitAfter holds 'soon'");
    expect_refused("before.scr", edit_before_float, "key ExitBefore holds '1.5'");
    expect_refused("seconds.scr", edit_seconds_negative, "key HaltSeconds holds '-5'");
    expect_refused("reason-empty.scr", edit_reason_empty, "key ExitReason holds ''");
    expect_refused("reason-two.scr", edit_reason_two,
                   "key ExitReason holds 'SCR_FINALIZE_CALLED, AGAIN'");
}

static void test_setters_refuse_bad_values_and_unsetters_clear(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_log_set_quiet(1);
    CHECK(scr_halt_file_set_checkpoints_left(h, -1) == SCR_ERR_ARG, "count -1");
    CHECK(scr_halt_file_set_exit_after(h, -10) == SCR_ERR_ARG, "after -10");
    CHECK(scr_halt_file_set_exit_before(h, -1) == SCR_ERR_ARG, "before -1");
    CHECK(scr_halt_file_set_halt_seconds(h, -1) == SCR_ERR_ARG, "seconds -1");
    CHECK(scr_halt_file_set_exit_reason(h, "") == SCR_ERR_ARG, "empty reason");
    CHECK(scr_halt_file_set_exit_reason(h, NULL) == SCR_ERR_ARG, "NULL reason");
    CHECK(scr_halt_file_set_checkpoints_left(NULL, 1) == SCR_ERR_ARG, "NULL tree");
    CHECK(scr_halt_file_unset_exit_reason(NULL) == SCR_ERR_ARG, "unset on NULL");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(h) == 0, "a refused setter changed the tree");

    REQUIRE(set_sample(h) == 0, "setters");
    int left;
    int64_t s;
    const char *r;
    CHECK(scr_halt_file_unset_checkpoints_left(h) == 0 &&
              scr_halt_file_get_checkpoints_left(h, &left) == SCR_ERR_NOTFOUND,
          "unset count");
    CHECK(scr_halt_file_unset_exit_after(h) == 0 &&
              scr_halt_file_get_exit_after(h, &s) == SCR_ERR_NOTFOUND,
          "unset after");
    CHECK(scr_halt_file_unset_exit_before(h) == 0 &&
              scr_halt_file_get_exit_before(h, &s) == SCR_ERR_NOTFOUND,
          "unset before");
    CHECK(scr_halt_file_unset_halt_seconds(h) == 0 &&
              scr_halt_file_get_halt_seconds(h, &s) == SCR_ERR_NOTFOUND,
          "unset seconds");
    CHECK(scr_halt_file_unset_exit_reason(h) == 0 &&
              scr_halt_file_get_exit_reason(h, &r) == SCR_ERR_NOTFOUND,
          "unset reason");
    CHECK(scr_kvtree_size(h) == 0, "keys left: %d", scr_kvtree_size(h));
    scr_kvtree_delete(h);
}

static void test_getters_report_wrong_type_without_logging(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_kvtree_util_set_str(h, "CheckpointsLeft", "-3");
    scr_kvtree_util_set_str(h, "ExitAfter", "x");
    scr_kvtree_util_set_str(h, "ExitReason", "");
    int left;
    int64_t s;
    const char *r;
    scr_clear_last_error();
    CHECK(scr_halt_file_get_checkpoints_left(h, &left) == SCR_ERR_TYPE, "count -3");
    CHECK(scr_halt_file_get_exit_after(h, &s) == SCR_ERR_TYPE, "after x");
    CHECK(scr_halt_file_get_exit_reason(h, &r) == SCR_ERR_TYPE, "empty reason");
    CHECK(scr_halt_file_get_exit_before(h, &s) == SCR_ERR_NOTFOUND, "absent before");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    scr_kvtree_delete(h);
}

static enum scr_halt_file_cause decide(const scr_kvtree *h, int64_t now)
{
    enum scr_halt_file_cause cause = (enum scr_halt_file_cause) - 1;
    int rc = scr_halt_file_should_halt(h, now, &cause);
    return rc == SCR_SUCCESS ? cause : (enum scr_halt_file_cause)(100 + rc);
}

static void test_finalize_reason_does_not_halt_but_other_reasons_do(void)
{
    scr_kvtree *h = scr_kvtree_new();
    int flag = -1;
    CHECK(decide(h, 5) == SCR_HALT_NONE, "no conditions");
    CHECK(scr_halt_file_finalize_called(h, &flag) == 0 && flag == 0, "finalize with no reason");
    scr_halt_file_set_exit_reason(h, SCR_HALT_REASON_FINALIZE);
    CHECK(decide(h, 5) == SCR_HALT_NONE, "SCR_FINALIZE_CALLED halted the library");
    CHECK(scr_halt_file_finalize_called(h, &flag) == 0 && flag == 1, "finalize not seen");
    scr_halt_file_set_exit_reason(h, "SCR_HALT_REQUESTED");
    CHECK(decide(h, 5) == SCR_HALT_EXIT_REASON, "another reason did not halt");
    CHECK(scr_halt_file_finalize_called(h, &flag) == 0 && flag == 0, "finalize claimed");
    scr_kvtree_delete(h);
}

static void test_checkpoints_left_halts_at_zero(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_halt_file_set_checkpoints_left(h, 1);
    CHECK(decide(h, 5) == SCR_HALT_NONE, "one left halted");
    scr_halt_file_set_checkpoints_left(h, 0);
    CHECK(decide(h, 5) == SCR_HALT_CHECKPOINTS, "zero left did not halt");
    /* the finalize reason does not hide other conditions */
    scr_halt_file_set_exit_reason(h, SCR_HALT_REASON_FINALIZE);
    CHECK(decide(h, 5) == SCR_HALT_CHECKPOINTS, "hidden by the finalize reason");
    scr_halt_file_set_exit_reason(h, "USER");
    CHECK(decide(h, 5) == SCR_HALT_EXIT_REASON, "the reason comes first");
    scr_kvtree_delete(h);
}

static void test_exit_after_halts_once_reached(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_halt_file_set_exit_after(h, 1000);
    CHECK(decide(h, 999) == SCR_HALT_NONE, "999");
    CHECK(decide(h, 1000) == SCR_HALT_EXIT_AFTER, "1000");
    CHECK(decide(h, 5000) == SCR_HALT_EXIT_AFTER, "5000");
    scr_kvtree_delete(h);
}

static void test_exit_before_halts_halt_seconds_early(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_halt_file_set_exit_before(h, 2000);
    CHECK(decide(h, 1999) == SCR_HALT_NONE, "1999 without margin");
    CHECK(decide(h, 2000) == SCR_HALT_EXIT_BEFORE, "2000 without margin");
    scr_halt_file_set_halt_seconds(h, 300);
    CHECK(decide(h, 1699) == SCR_HALT_NONE, "1699");
    CHECK(decide(h, 1700) == SCR_HALT_EXIT_BEFORE, "1700");
    scr_halt_file_set_halt_seconds(h, 5000); /* margin larger than the time itself */
    CHECK(decide(h, 0) == SCR_HALT_EXIT_BEFORE, "margin past the epoch");
    scr_kvtree_delete(h);

    scr_kvtree *g = scr_kvtree_new();
    REQUIRE(scr_halt_file_read(tap_data("control/halt.scr"), g) == 0, "golden");
    CHECK(decide(g, 1298937599) == SCR_HALT_NONE, "golden before ExitAfter");
    CHECK(decide(g, 1298937600) == SCR_HALT_EXIT_AFTER, "golden at ExitAfter");
    scr_halt_file_unset_exit_after(g);
    CHECK(decide(g, 1298943599) == SCR_HALT_NONE, "golden before ExitBefore - HaltSeconds");
    CHECK(decide(g, 1298943600) == SCR_HALT_EXIT_BEFORE, "golden at ExitBefore - HaltSeconds");
    scr_kvtree_delete(g);
    CHECK(scr_halt_file_cause_text(SCR_HALT_EXIT_BEFORE)[0] != '\0', "cause text");
}

static void test_decision_on_damaged_value_is_an_error_naming_the_key(void)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_kvtree_util_set_str(h, "ExitAfter", "tomorrow");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(decide(h, 5) == 100 + SCR_ERR_TYPE, "damaged value decided");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "key ExitAfter holds 'tomorrow'") != NULL, "'%s'",
          scr_last_error());
    scr_kvtree_delete(h);
}

static void test_write_refuses_a_tree_a_reader_would_refuse(void)
{
    const char *path = tap_path("refuse-write.scr");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_halt_file_lock_read(path, &fd, h) == 0, "lock");
    scr_kvtree_util_set_str(h, "HaltSeconds", "-1");
    scr_log_set_quiet(1);
    CHECK(scr_halt_file_write_unlock(path, &fd, h) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(fd == -1, "descriptor not released");
    CHECK(lock_is_free(path), "lock still held");
    scr_kvtree *back = scr_kvtree_new();
    CHECK(scr_halt_file_read(path, back) == 0 && scr_kvtree_size(back) == 0, "file changed");
    scr_kvtree_delete(back);
    scr_kvtree_delete(h);
}

static void test_decrement_counts_down_and_stops_at_zero(void)
{
    const char *path = tap_path("count/.scr/halt.scr");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1, left = -5;
    REQUIRE(scr_halt_file_lock_read(path, &fd, h) == 0, "lock");
    scr_halt_file_set_checkpoints_left(h, 2);
    scr_halt_file_set_exit_reason(h, "KEEP");
    REQUIRE(scr_halt_file_write_unlock(path, &fd, h) == 0, "write");
    CHECK(scr_halt_file_decrement_checkpoints_left(path, &left) == 0 && left == 1, "2 -> %d", left);
    CHECK(scr_halt_file_decrement_checkpoints_left(path, &left) == 0 && left == 0, "1 -> %d", left);
    CHECK(scr_halt_file_decrement_checkpoints_left(path, &left) == 0 && left == 0, "0 -> %d", left);
    scr_kvtree *back = scr_kvtree_new();
    const char *reason = NULL;
    int stored = -1;
    CHECK(scr_halt_file_read(path, back) == 0 &&
              scr_halt_file_get_checkpoints_left(back, &stored) == 0 && stored == 0 &&
              scr_halt_file_get_exit_reason(back, &reason) == 0 && strcmp(reason, "KEEP") == 0,
          "file holds %d", stored);
    scr_kvtree_delete(back);
    scr_kvtree_delete(h);
}

static void test_decrement_without_count_changes_nothing(void)
{
    int left = 5;
    const char *missing = tap_path("nohalt/.scr/halt.scr");
    CHECK(scr_halt_file_decrement_checkpoints_left(missing, &left) == 0 && left == -1, "missing");
    CHECK(access(tap_path("nohalt"), F_OK) != 0, "decrement created the directory");

    const char *path = tap_path("nocount/.scr/halt.scr");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_halt_file_lock_read(path, &fd, h) == 0, "lock");
    scr_halt_file_set_exit_after(h, 77);
    REQUIRE(scr_halt_file_write_unlock(path, &fd, h) == 0, "write");
    struct stat before, after;
    REQUIRE(stat(path, &before) == 0, "stat");
    left = 5;
    CHECK(scr_halt_file_decrement_checkpoints_left(path, &left) == 0 && left == -1, "no count");
    CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino, "file was rewritten");
    scr_kvtree_delete(h);

    scr_log_set_quiet(1);
    CHECK(scr_halt_file_decrement_checkpoints_left(NULL, &left) == SCR_ERR_ARG, "NULL path");
    scr_log_set_quiet(0);
}

/* Several processes decrement while another sets ExitAfter: with the lock,
 * no update is lost. */
static void test_concurrent_updates_lose_nothing(void)
{
    enum { DECREMENTERS = 4, EACH = 15 };
    const char *path = tap_path("race/.scr/halt.scr");
    scr_kvtree *h = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_halt_file_lock_read(path, &fd, h) == 0, "lock");
    scr_halt_file_set_checkpoints_left(h, 100);
    REQUIRE(scr_halt_file_write_unlock(path, &fd, h) == 0, "write");
    scr_kvtree_delete(h);

    pid_t pids[DECREMENTERS + 1];
    for (int c = 0; c <= DECREMENTERS; c++) {
        pids[c] = fork();
        if (pids[c] != 0) continue;
        int ok = 1;
        for (int i = 0; i < EACH; i++) {
            if (c < DECREMENTERS) {
                int left;
                ok &= scr_halt_file_decrement_checkpoints_left(path, &left) == 0;
            } else {
                scr_kvtree *t = scr_kvtree_new();
                int cfd = -1;
                ok &= scr_halt_file_lock_read(path, &cfd, t) == 0;
                ok &= scr_halt_file_set_exit_after(t, 1000 + i) == 0;
                ok &= scr_halt_file_write_unlock(path, &cfd, t) == 0;
                scr_kvtree_delete(t);
            }
        }
        _exit(ok ? 0 : 1);
    }
    for (int c = 0; c <= DECREMENTERS; c++) {
        int status;
        waitpid(pids[c], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed", c);
    }
    scr_kvtree *back = scr_kvtree_new();
    int left = -1;
    int64_t after = -1;
    CHECK(scr_halt_file_read(path, back) == 0, "read");
    CHECK(scr_halt_file_get_checkpoints_left(back, &left) == 0 && left == 100 - DECREMENTERS * EACH,
          "CheckpointsLeft %d, want %d", left, 100 - DECREMENTERS * EACH);
    CHECK(scr_halt_file_get_exit_after(back, &after) == 0 && after == 1000 + EACH - 1,
          "ExitAfter %lld", (long long)after);
    scr_kvtree_delete(back);
}

/* The whole rule: the file's HaltSeconds, else the default margin, also before the allocation's
 * end. */
static void test_explain_uses_the_file_margin_else_the_default(void)
{
    scr_kvtree *h = scr_kvtree_new();
    char why[256];
    int halt = -1;
    CHECK(scr_halt_file_explain(h, 1000, 60, 0, &halt, why, sizeof(why)) == SCR_SUCCESS &&
              halt == 0 && why[0] == '\0',
          "empty file: halt %d '%s'", halt, why);
    CHECK(scr_halt_file_explain(h, 1000, 60, 1050, &halt, why, sizeof(why)) == SCR_SUCCESS &&
              halt == 1 && strstr(why, "allocation ends within SCR_HALT_SECONDS (60 s)") != NULL,
          "end within the default margin: '%s'", why);
    CHECK(scr_halt_file_explain(h, 1000, 60, 1061, &halt, why, sizeof(why)) == SCR_SUCCESS &&
              halt == 0,
          "end beyond the default margin");
    scr_halt_file_set_exit_before(h, 1100);
    CHECK(scr_halt_file_explain(h, 1000, 120, 0, &halt, why, sizeof(why)) == SCR_SUCCESS &&
              halt == 1 && strstr(why, "ExitBefore) is within SCR_HALT_SECONDS") != NULL,
          "ExitBefore with the default margin: '%s'", why);
    scr_halt_file_set_halt_seconds(h, 10);
    CHECK(scr_halt_file_explain(h, 1000, 120, 0, &halt, why, sizeof(why)) == SCR_SUCCESS &&
              halt == 0,
          "the file's HaltSeconds replaces the default");
    CHECK(scr_halt_file_explain(h, 1095, 120, 0, &halt, why, sizeof(why)) == SCR_SUCCESS &&
              halt == 1 && strstr(why, "within HaltSeconds (10 s)") != NULL,
          "within the file's margin: '%s'", why);
    scr_halt_file_set_exit_reason(h, "JOB_HALTED");
    CHECK(scr_halt_file_explain(h, 0, 0, 0, &halt, why, sizeof(why)) == SCR_SUCCESS && halt == 1 &&
              strcmp(why, "halt file reason: JOB_HALTED") == 0,
          "reason: '%s'", why);
    scr_kvtree_util_set_str(h, "CheckpointsLeft", "many");
    scr_log_set_quiet(1);
    CHECK(scr_halt_file_explain(h, 0, 0, 0, &halt, why, sizeof(why)) == SCR_ERR_TYPE,
          "damaged value");
    scr_log_set_quiet(0);
    scr_kvtree_delete(h);
}

static void test_an_empty_halt_file_is_damaged_not_a_file_without_conditions(void)
{
    const char *path = tap_path("emptied/.scr/halt.scr");
    int created = 0;
    REQUIRE(scr_mkdir_p(tap_path("emptied/.scr"), 0700) == SCR_SUCCESS, "mkdir");
    REQUIRE(scr_write_new(path, "", 0, &created) == SCR_SUCCESS && created, "an empty file");
    scr_kvtree *h = scr_kvtree_new();
    scr_log_set_quiet(1);
    int rc = scr_halt_file_read(path, h);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "read gave %d", rc);
    CHECK(strstr(scr_last_error(), path) != NULL &&
              strstr(scr_last_error(), "empty file (0 bytes)") != NULL,
          "the message '%s' does not name the file and its fault", scr_last_error());
    scr_kvtree_delete(h);
}

int main(void)
{
    RUN(test_written_file_matches_independent_golden);
    RUN(test_golden_reads_back_through_getters);
    RUN(test_file_without_version_reads_as_the_first_version);
    RUN(test_missing_file_or_directory_reads_as_no_conditions);
    RUN(test_path_is_under_the_prefix_scr_directory);
    RUN(test_locking_creates_the_scr_directory_private);
    RUN(test_locking_fails_when_directory_cannot_be_made);
    RUN(test_newer_version_is_refused_naming_the_version);
    RUN(test_damaged_values_are_refused_naming_key_and_text);
    RUN(test_setters_refuse_bad_values_and_unsetters_clear);
    RUN(test_getters_report_wrong_type_without_logging);
    RUN(test_finalize_reason_does_not_halt_but_other_reasons_do);
    RUN(test_checkpoints_left_halts_at_zero);
    RUN(test_exit_after_halts_once_reached);
    RUN(test_exit_before_halts_halt_seconds_early);
    RUN(test_decision_on_damaged_value_is_an_error_naming_the_key);
    RUN(test_explain_uses_the_file_margin_else_the_default);
    RUN(test_write_refuses_a_tree_a_reader_would_refuse);
    RUN(test_decrement_counts_down_and_stops_at_zero);
    RUN(test_decrement_without_count_changes_nothing);
    RUN(test_concurrent_updates_lose_nothing);
    RUN(test_an_empty_halt_file_is_damaged_not_a_file_without_conditions);
    return tap_done();
}
