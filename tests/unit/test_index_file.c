/* test_index_file.c — index.scr: golden bytes, values, restart choice, locked
 * updates by several processes, versions, damage. */
#include "tap.h"
#include "record_test.h"

#include "dataset.h"
#include "index_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <sys/stat.h>
#include <sys/wait.h>

/* A descriptor with ID, NAME, FLAGS and (when ckpt > 0) CKPT. */
static scr_dataset *desc(int id, const char *name, int flags, int ckpt)
{
    scr_dataset *d = scr_dataset_new();
    scr_dataset_set_id(d, id);
    scr_dataset_set_name(d, name);
    scr_dataset_set_flags(d, flags);
    if (ckpt > 0) scr_dataset_set_ckpt(d, ckpt);
    return d;
}

/* Add a dataset to index through the API. */
static int add(scr_kvtree *index, int id, const char *name, int flags, int ckpt, int complete)
{
    scr_dataset *d = desc(id, name, flags, ckpt);
    int rc = scr_index_file_set_dataset(index, d, complete);
    scr_dataset_delete(d);
    return rc;
}

#define CKPT SCR_DATASET_FLAG_CHECKPOINT
#define OUTPUT SCR_DATASET_FLAG_OUTPUT

/* The index of tests/data/records/index.json, built through the setters. */
static scr_kvtree *sample_index(void)
{
    scr_kvtree *x = scr_kvtree_new();
    int rc = add(x, 18, "scr.dataset.18", CKPT, 9, 0);
    rc |= scr_index_file_mark_flushed(x, 18, "2011-02-28T12:37:36");
    rc |= add(x, 12, "viz.12", OUTPUT, 0, 1);
    rc |= scr_index_file_mark_flushed(x, 12, "2011-02-28T12:37:10");
    rc |= add(x, 10, "scr.dataset.10", CKPT, 5, 1);
    rc |= scr_index_file_mark_flushed(x, 10, "2011-02-28T12:37:04");
    rc |= scr_index_file_mark_fetched(x, 10, "2011-02-28T12:37:36");
    rc |= scr_index_file_mark_fetched(x, 10, "2011-02-28T12:37:14");
    rc |= scr_index_file_mark_failed(x, 10, "2011-02-28T12:37:36");
    rc |= add(x, 6, "scr.dataset.6", CKPT, 3, 1);
    rc |= scr_index_file_mark_flushed(x, 6, "2011-02-28T12:36:50");
    rc |= scr_index_file_mark_fetched(x, 6, "2011-02-28T12:37:04");
    rc |= scr_index_file_set_current(x, "scr.dataset.18");
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(x);
        return NULL;
    }
    return x;
}

/* <dir>/.scr/index.scr under the scratch directory, in a static buffer. */
static const char *index_path(const char *dir)
{
    static char buf[4][4096];
    static int next;
    char *b = buf[next++ % 4], *p = NULL;
    if (scr_index_file_path(tap_path(dir), &p) != SCR_SUCCESS) return "";
    snprintf(b, 4096, "%s", p);
    free(p);
    return b;
}

static void test_written_index_matches_independent_golden(void)
{
    scr_kvtree *x = sample_index();
    REQUIRE(x != NULL, "setters failed");
    const char *path = index_path("golden-prefix");
    int fd = -1;
    scr_kvtree *old = scr_kvtree_new();
    REQUIRE(scr_index_file_lock_read(path, &fd, old) == SCR_SUCCESS, "lock a new index");
    CHECK(scr_kvtree_size(old) == 0, "a new index is not empty");
    CHECK(scr_index_file_write_unlock(path, &fd, x) == SCR_SUCCESS && fd == -1, "write");
    check_same_bytes(path, tap_data("records/index.scr"));
    CHECK(scr_kvtree_get(x, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(old);
    scr_kvtree_delete(x);
}

static void test_golden_index_reads_back_through_getters(void)
{
    scr_kvtree *x = scr_kvtree_new();
    REQUIRE(scr_index_file_read(tap_data("records/index.scr"), x) == SCR_SUCCESS, "read golden");
    const char *s = NULL;
    int v = -1, id = -1;
    CHECK(scr_index_file_get_current(x, &s) == 0 && strcmp(s, "scr.dataset.18") == 0, "CURRENT");
    CHECK(scr_index_file_get_name(x, 12, &s) == 0 && strcmp(s, "viz.12") == 0, "name of 12");
    CHECK(scr_index_file_lookup_id(x, "scr.dataset.10", &id) == 0 && id == 10, "id %d", id);
    CHECK(scr_index_file_get_complete(x, 18, &v) == 0 && v == 0, "18 incomplete");
    CHECK(scr_index_file_get_complete(x, 6, &v) == 0 && v == 1, "6 complete");
    CHECK(scr_index_file_get_flushed(x, 6, &s) == 0 && strcmp(s, "2011-02-28T12:36:50") == 0,
          "FLUSHED of 6");
    const scr_dataset *d = NULL;
    CHECK(scr_index_file_get_dataset(x, 12, &d) == 0 && scr_dataset_is_output(d) &&
              !scr_dataset_is_checkpoint(d),
          "12 is output");
    CHECK(scr_index_file_get_dataset(x, 10, &d) == 0 && scr_dataset_get_ckpt(d, &v) == 0 && v == 5,
          "checkpoint id of 10");
    const char **times = NULL;
    int count = -1;
    REQUIRE(scr_index_file_list_fetched(x, 10, &times, &count) == 0, "fetched of 10");
    CHECK(count == 2 && strcmp(times[0], "2011-02-28T12:37:14") == 0 &&
              strcmp(times[1], "2011-02-28T12:37:36") == 0,
          "fetched oldest first");
    free(times);
    REQUIRE(scr_index_file_list_failed(x, 10, &times, &count) == 0, "failed of 10");
    CHECK(count == 1 && strcmp(times[0], "2011-02-28T12:37:36") == 0, "failed");
    free(times);
    CHECK(scr_index_file_list_failed(x, 6, &times, &count) == 0 && count == 0 && times == NULL,
          "6 never failed");
    int *ids = NULL;
    REQUIRE(scr_index_file_list_ids(x, &ids, &count) == 0, "ids");
    CHECK(count == 4 && ids[0] == 18 && ids[1] == 12 && ids[2] == 10 && ids[3] == 6,
          "newest first");
    free(ids);
    CHECK(scr_index_file_restart_candidate(x, &id) == 0 && id == 6,
          "restart from 6 (18 incomplete, 12 output, 10 failed), got %d", id);
    scr_kvtree *want = sample_index();
    CHECK(scr_kvtree_equal(x, want), "golden differs from the index the setters build");
    scr_kvtree_delete(want);
    scr_kvtree_delete(x);
}

static void test_restart_candidate_follows_current_failures_and_kinds(void)
{
    scr_kvtree *x = scr_kvtree_new();
    int id = -1;
    CHECK(scr_index_file_restart_candidate(x, &id) == SCR_ERR_NOTFOUND, "empty index");
    add(x, 1, "c1", CKPT, 1, 1);
    add(x, 2, "c2", CKPT, 2, 1);
    add(x, 3, "o3", OUTPUT, 0, 1);
    add(x, 4, "both4", CKPT | OUTPUT, 3, 1);
    add(x, 5, "c5", CKPT, 4, 0);
    CHECK(scr_index_file_restart_candidate(x, &id) == 0 && id == 4,
          "an output checkpoint counts, an incomplete one not: %d", id);
    scr_index_file_set_current(x, "o3");
    CHECK(scr_index_file_restart_candidate(x, &id) == 0 && id == 2, "at or before CURRENT: %d", id);
    scr_index_file_set_current(x, "c2");
    CHECK(scr_index_file_restart_candidate(x, &id) == 0 && id == 2, "CURRENT itself: %d", id);
    scr_index_file_mark_failed(x, 2, "2020-01-01T00:00:00");
    CHECK(scr_index_file_restart_candidate(x, &id) == 0 && id == 1, "failed one skipped: %d", id);
    scr_index_file_set_complete(x, 1, 0);
    CHECK(scr_index_file_restart_candidate(x, &id) == SCR_ERR_NOTFOUND, "nothing at or before");
    scr_kvtree_util_set_str(x, "CURRENT", "gone");
    scr_log_set_quiet(1);
    CHECK(scr_index_file_restart_candidate(x, &id) == 0 && id == 4,
          "a CURRENT that names nothing is ignored: %d", id);
    scr_log_set_quiet(0);
    CHECK(scr_index_file_restart_candidate(x, NULL) == SCR_ERR_ARG, "NULL result");
    scr_kvtree_delete(x);
}

static void test_restart_candidate_below_takes_only_older_datasets(void)
{
    scr_kvtree *x = scr_kvtree_new();
    int id = -1;
    add(x, 1, "c1", CKPT, 1, 1);
    add(x, 2, "c2", CKPT, 2, 1);
    add(x, 4, "c4", CKPT, 3, 1);
    CHECK(scr_index_file_restart_candidate_below(x, 4, &id) == 0 && id == 2, "below 4: %d", id);
    CHECK(scr_index_file_restart_candidate_below(x, 3, &id) == 0 && id == 2, "below 3: %d", id);
    scr_index_file_set_current(x, "c4");
    CHECK(scr_index_file_restart_candidate_below(x, 2, &id) == 0 && id == 1, "below 2: %d", id);
    CHECK(scr_index_file_restart_candidate_below(x, 1, &id) == SCR_ERR_NOTFOUND, "nothing below 1");
    scr_kvtree_delete(x);
}

static void test_current_names_and_removal(void)
{
    scr_kvtree *x = scr_kvtree_new();
    const char *s = NULL;
    int id = -1;
    add(x, 7, "a", CKPT, 1, 1);
    add(x, 8, "b", CKPT, 2, 1);
    CHECK(scr_index_file_get_current(x, &s) == SCR_ERR_NOTFOUND, "no CURRENT yet");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_index_file_set_current(x, "nope") == SCR_ERR_NOTFOUND, "unknown name");
    CHECK(strstr(scr_last_error(), "'nope'") != NULL, "'%s'", scr_last_error());
    CHECK(add(x, 9, "a", CKPT, 3, 1) == SCR_ERR_ARG, "name of another dataset");
    CHECK(strstr(scr_last_error(), "dataset 7 has that name") != NULL, "'%s'", scr_last_error());
    scr_log_set_quiet(0);
    CHECK(scr_index_file_set_current(x, "a") == 0, "set CURRENT");
    CHECK(add(x, 7, "a2", CKPT, 1, 1) == 0, "rename 7");
    CHECK(scr_index_file_get_current(x, &s) == 0 && strcmp(s, "a2") == 0,
          "CURRENT follows the rename: %s", s);
    CHECK(scr_index_file_lookup_id(x, "a", &id) == SCR_ERR_NOTFOUND, "old name still found");
    CHECK(scr_index_file_mark_flushed(x, 8, "2021-05-06T07:08:09") == 0, "flushed");
    CHECK(add(x, 8, "b", CKPT, 2, 0) == 0, "update 8");
    CHECK(scr_index_file_get_flushed(x, 8, &s) == 0 && strcmp(s, "2021-05-06T07:08:09") == 0,
          "an update keeps FLUSHED");
    CHECK(scr_index_file_mark_flushed(x, 8, "2021-05-06T07:08:10") == 0 &&
              scr_index_file_get_flushed(x, 8, &s) == 0 && strcmp(s, "2021-05-06T07:08:10") == 0,
          "FLUSHED replaced");
    CHECK(scr_index_file_remove(x, 8) == 0 && scr_index_file_get_current(x, &s) == 0,
          "removing another dataset keeps CURRENT");
    CHECK(scr_index_file_remove(x, 7) == 0 && scr_index_file_get_current(x, &s) == SCR_ERR_NOTFOUND,
          "CURRENT goes with its dataset");
    CHECK(scr_index_file_remove(x, 7) == 0 && scr_kvtree_size(x) == 0, "all removed");
    CHECK(scr_index_file_unset_current(x) == 0, "unset absent CURRENT");
    scr_kvtree_delete(x);
}

static void test_setters_refuse_bad_arguments(void)
{
    scr_kvtree *x = scr_kvtree_new();
    scr_dataset *noname = scr_dataset_new();
    scr_dataset_set_id(noname, 3);
    add(x, 1, "one", CKPT, 1, 1);
    scr_kvtree *before = scr_kvtree_dup(x);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_index_file_set_dataset(x, noname, 1) == SCR_ERR_ARG, "descriptor without NAME");
    CHECK(add(x, 2, "two", CKPT, 2, 5) == SCR_ERR_ARG, "COMPLETE 5");
    CHECK(scr_index_file_mark_flushed(x, 1, "2011-02-28 12:00:00") == SCR_ERR_ARG, "bad time");
    CHECK(strstr(scr_last_error(), "'2011-02-28 12:00:00'") != NULL, "'%s'", scr_last_error());
    CHECK(scr_index_file_mark_fetched(x, 1, "2011-02-28T12:00") == SCR_ERR_ARG, "short time");
    CHECK(scr_index_file_mark_failed(x, 1, NULL) == SCR_ERR_ARG, "NULL time");
    CHECK(scr_index_file_mark_fetched(x, 9, "2011-02-28T12:00:00") == SCR_ERR_NOTFOUND,
          "unknown dataset");
    CHECK(strstr(scr_last_error(), "no dataset 9") != NULL, "'%s'", scr_last_error());
    CHECK(scr_index_file_set_complete(x, 9, 1) == SCR_ERR_NOTFOUND, "complete of unknown");
    CHECK(scr_index_file_set_complete(x, 1, 3) == SCR_ERR_ARG, "COMPLETE 3");
    CHECK(scr_index_file_remove(x, 0) == SCR_ERR_ARG, "remove 0");
    CHECK(scr_index_file_set_current(x, "") == SCR_ERR_ARG, "empty CURRENT");
    CHECK(scr_index_file_path("", &(char *){NULL}) == SCR_ERR_ARG, "empty prefix");
    CHECK(scr_index_file_read(NULL, x) == SCR_ERR_ARG, "read NULL path");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_equal(x, before), "a refused call changed the index");
    scr_kvtree_delete(before);
    scr_dataset_delete(noname);
    scr_kvtree_delete(x);
}

static void test_getters_tell_missing_from_wrong_type(void)
{
    scr_kvtree *x = scr_kvtree_new();
    const char *s;
    const scr_dataset *d;
    const char **times;
    int v, count;
    CHECK(scr_index_file_get_name(x, 1, &s) == SCR_ERR_NOTFOUND, "name of unknown");
    CHECK(scr_index_file_get_dataset(x, 1, &d) == SCR_ERR_NOTFOUND, "descriptor of unknown");
    CHECK(scr_index_file_list_fetched(x, 1, &times, &count) == SCR_ERR_NOTFOUND, "unknown");
    CHECK(scr_index_file_lookup_id(x, "x", &v) == SCR_ERR_NOTFOUND, "lookup in empty");
    add(x, 1, "one", CKPT, 1, 1);
    CHECK(scr_index_file_get_flushed(x, 1, &s) == SCR_ERR_NOTFOUND, "never flushed");
    scr_kvtree *e = scr_kvtree_get_kv(x, "DSET", "1");
    scr_kvtree_util_set_str(e, "FLUSHED", "soon");
    scr_kvtree_util_set_int(e, "COMPLETE", 4);
    scr_clear_last_error();
    CHECK(scr_index_file_get_flushed(x, 1, &s) == SCR_ERR_TYPE, "FLUSHED soon");
    CHECK(scr_index_file_get_complete(x, 1, &v) == SCR_ERR_TYPE, "COMPLETE 4");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    scr_kvtree_set_kv(x, "DSET", "x");
    int *ids;
    CHECK(scr_index_file_list_ids(x, &ids, &count) == SCR_ERR_TYPE, "damaged id");
    scr_kvtree_delete(x);
}

static void test_missing_file_is_notfound_and_lock_creates_it(void)
{
    scr_kvtree *x = scr_kvtree_new();
    const char *path = index_path("fresh-prefix");
    scr_clear_last_error();
    CHECK(scr_index_file_read(path, x) == SCR_ERR_NOTFOUND, "missing index");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    int fd = -1;
    REQUIRE(scr_index_file_lock_read(path, &fd, x) == SCR_SUCCESS, "lock creates");
    CHECK(fd >= 0, "no descriptor");
    scr_index_file_unlock(&fd);
    CHECK(fd == -1, "unlock leaves the descriptor set");
    CHECK(scr_index_file_read(path, x) == SCR_SUCCESS && scr_kvtree_size(x) == 0,
          "an empty index reads as empty");
    scr_kvtree_delete(x);
}

static void test_an_empty_index_file_is_damaged_and_named_never_an_empty_index(void)
{
    const char *path = index_path("emptied-prefix");
    int created = 0, fd = -1;
    REQUIRE(scr_mkdir_p(tap_path("emptied-prefix/.scr"), 0700) == SCR_SUCCESS, "mkdir");
    REQUIRE(scr_write_new(path, "", 0, &created) == SCR_SUCCESS && created, "an empty file");
    scr_kvtree *x = scr_kvtree_new();
    scr_log_set_quiet(1);
    int rc = scr_index_file_read(path, x);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "read gave %d", rc);
    CHECK(strstr(scr_last_error(), path) != NULL &&
              strstr(scr_last_error(), "empty file (0 bytes)") != NULL,
          "the message '%s' does not name the file and its fault", scr_last_error());
    scr_log_set_quiet(1);
    rc = scr_index_file_lock_read(path, &fd, x);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT && fd == -1, "lock_read gave %d", rc);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 0, "the damaged index was rewritten");
    scr_kvtree_delete(x);
}

static void test_locked_updates_from_several_processes_all_survive(void)
{
    enum { PROCS = 4, EACH = 10 };
    const char *path = index_path("shared-prefix");
    for (int p = 0; p < PROCS; p++) {
        pid_t pid = fork();
        REQUIRE(pid >= 0, "fork");
        if (pid == 0) {
            int ok = 1;
            for (int i = 0; i < EACH && ok; i++) {
                char name[32];
                int fd = -1, id = p * EACH + i + 1;
                scr_kvtree *x = scr_kvtree_new();
                snprintf(name, sizeof(name), "ds.%d", id);
                ok = scr_index_file_lock_read(path, &fd, x) == SCR_SUCCESS &&
                     add(x, id, name, CKPT, id, 1) == SCR_SUCCESS &&
                     scr_index_file_write_unlock(path, &fd, x) == SCR_SUCCESS;
                scr_kvtree_delete(x);
            }
            _exit(ok ? 0 : 1);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status = 0;
        CHECK(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a writer failed (status %d)", status);
    }
    scr_kvtree *x = scr_kvtree_new();
    int *ids = NULL, count = 0;
    CHECK(scr_index_file_read(path, x) == SCR_SUCCESS, "read");
    CHECK(scr_index_file_list_ids(x, &ids, &count) == SCR_SUCCESS && count == PROCS * EACH,
          "%d of %d updates survived", count, PROCS * EACH);
    free(ids);
    scr_kvtree_delete(x);
}

/* The golden index edited by edit: expect SCR_ERR_FORMAT and a message with
 * the file and want, with the caller's tree unchanged. */
static void expect_refused(const char *golden, const char *name, void (*edit)(scr_kvtree *),
                           const char *want)
{
    const char *path = write_edited_golden(golden, name, edit);
    if (path == NULL) return;
    scr_kvtree *x = scr_kvtree_new();
    int rc = quiet_read(scr_index_file_read, path, x);
    check_refused(name, rc, path, want);
    CHECK(scr_kvtree_size(x) == 0, "%s: tree changed", name);
    scr_kvtree_delete(x);
}

static scr_kvtree *dset(scr_kvtree *raw, const char *id)
{
    return scr_kvtree_get_kv(raw, "DSET", id);
}
static void edit_version_3(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 3);
}
static void edit_flushed(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(dset(raw, "6"), "FLUSHED", "yesterday");
}
static void edit_fetched(scr_kvtree *raw)
{
    scr_kvtree_set_kv(dset(raw, "10"), "FETCHED", "2011-02-28 12:00:00");
}
static void edit_complete(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(dset(raw, "18"), "COMPLETE", 2);
}
static void edit_same_name(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(dset(raw, "12"), "NAME", "scr.dataset.6");
}
static void edit_no_name(scr_kvtree *raw)
{
    scr_kvtree_unset(dset(raw, "6"), "NAME");
}
static void edit_desc_id(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(dset(raw, "6"), "DSETDESC"), "ID", 7);
}
static void edit_two_current(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "CURRENT", "x");
}
static void edit_entry_junk(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(dset(raw, "6"), "SIZE", 1);
}
static void edit_bad_id(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "DSET", "abc");
}

static void test_newer_and_version_1_indexes_are_refused(void)
{
    expect_refused("records/index.scr", "v3.scr", edit_version_3, "index version 3");
    expect_refused("records/index-v1.scr", "v1.scr", NULL, "version 1");
}

static void test_damaged_values_are_refused_naming_key_and_text(void)
{
    const char *g = "records/index.scr";
    expect_refused(g, "flushed.scr", edit_flushed, "key DSET 6 FLUSHED holds 'yesterday'");
    expect_refused(g, "fetched.scr", edit_fetched,
                   "key DSET 10 FETCHED holds '2011-02-28 12:00:00'");
    expect_refused(g, "complete.scr", edit_complete, "key DSET 18 COMPLETE holds '2'");
    expect_refused(g, "samename.scr", edit_same_name,
                   "datasets 6 and 12 are both called 'scr.dataset.6'");
    expect_refused(g, "noname.scr", edit_no_name, "key DSET 6 has no NAME");
    expect_refused(g, "descid.scr", edit_desc_id, "key DSET 6 DSETDESC ID holds '7'");
    expect_refused(g, "current.scr", edit_two_current, "key CURRENT holds 'scr.dataset.18, x'");
    expect_refused(g, "junk.scr", edit_entry_junk, "key DSET 6 holds 'SIZE'");
    expect_refused(g, "badid.scr", edit_bad_id, "key DSET holds 'abc'");
}

static void test_missing_version_reads_as_the_current_layout(void)
{
    scr_kvtree *raw = scr_kvtree_new();
    REQUIRE(scr_kvtree_read_file(tap_data("records/index.scr"), raw) == SCR_SUCCESS, "golden");
    scr_kvtree_unset(raw, "VERSION");
    const char *path = tap_path("noversion-index.scr");
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write");
    scr_kvtree *x = scr_kvtree_new();
    CHECK(scr_index_file_read(path, x) == SCR_SUCCESS && scr_kvtree_equal(x, raw), "read");
    scr_kvtree_delete(x);
    scr_kvtree_delete(raw);
}

static void test_damaged_lock_read_keeps_no_lock(void)
{
    const char *path = tap_path("garbage-index.scr");
    REQUIRE(scr_write_atomic(path, "garbage!", 8) == SCR_SUCCESS, "write");
    scr_kvtree *x = scr_kvtree_new();
    int fd = -1;
    scr_log_set_quiet(1);
    CHECK(scr_index_file_lock_read(path, &fd, x) == SCR_ERR_FORMAT && fd == -1, "garbage");
    scr_log_set_quiet(0);
    scr_kvtree_delete(x);
}

static void test_write_refuses_an_index_a_reader_would_refuse(void)
{
    const char *path = index_path("refuse-prefix");
    scr_kvtree *x = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_index_file_lock_read(path, &fd, x) == SCR_SUCCESS, "lock");
    add(x, 1, "one", CKPT, 1, 1);
    scr_kvtree_util_set_str(scr_kvtree_get_kv(x, "DSET", "1"), "FLUSHED", "later");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_index_file_write_unlock(path, &fd, x) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(fd == -1, "lock kept after a refused write");
    CHECK(strstr(scr_last_error(), "(not written): key DSET 1 FLUSHED holds 'later'") != NULL,
          "'%s'", scr_last_error());
    scr_kvtree *back = scr_kvtree_new();
    CHECK(scr_index_file_read(path, back) == SCR_SUCCESS && scr_kvtree_size(back) == 0,
          "refused index reached the file");
    scr_kvtree_delete(back);
    scr_kvtree_delete(x);
}

static void test_timestamps_have_the_index_form(void)
{
    char buf[SCR_INDEX_TIMESTAMP_SIZE];
    setenv("TZ", "UTC", 1);
    tzset();
    CHECK(scr_index_file_format_timestamp(1298896656, buf, sizeof(buf)) == SCR_SUCCESS &&
              strcmp(buf, "2011-02-28T12:37:36") == 0,
          "got %s", buf);
    scr_log_set_quiet(1);
    CHECK(scr_index_file_format_timestamp(0, buf, sizeof(buf) - 1) == SCR_ERR_ARG, "short buf");
    scr_log_set_quiet(0);
    scr_kvtree *x = scr_kvtree_new();
    add(x, 1, "one", CKPT, 1, 1);
    scr_index_file_format_timestamp(0, buf, sizeof(buf));
    CHECK(scr_index_file_mark_fetched(x, 1, buf) == SCR_SUCCESS, "formatted time accepted");
    scr_kvtree_delete(x);
}

int main(void)
{
    RUN(test_written_index_matches_independent_golden);
    RUN(test_golden_index_reads_back_through_getters);
    RUN(test_restart_candidate_follows_current_failures_and_kinds);
    RUN(test_restart_candidate_below_takes_only_older_datasets);
    RUN(test_current_names_and_removal);
    RUN(test_setters_refuse_bad_arguments);
    RUN(test_getters_tell_missing_from_wrong_type);
    RUN(test_missing_file_is_notfound_and_lock_creates_it);
    RUN(test_an_empty_index_file_is_damaged_and_named_never_an_empty_index);
    RUN(test_locked_updates_from_several_processes_all_survive);
    RUN(test_newer_and_version_1_indexes_are_refused);
    RUN(test_damaged_values_are_refused_naming_key_and_text);
    RUN(test_missing_version_reads_as_the_current_layout);
    RUN(test_damaged_lock_read_keeps_no_lock);
    RUN(test_write_refuses_an_index_a_reader_would_refuse);
    RUN(test_timestamps_have_the_index_form);
    return tap_done();
}
