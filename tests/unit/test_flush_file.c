/* test_flush_file.c — the flush file: golden bytes, values, damage, decisions. */
#include "tap.h"
#include "record_test.h"

#include "flush_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

/* The record of tests/data/control/flush.json, built through the setters. */
static scr_kvtree *sample_flush(void)
{
    scr_kvtree *f = scr_kvtree_new();
    int rc = scr_flush_file_set_location(f, 6, SCR_FLUSH_LOCATION_CACHE);
    rc |= scr_flush_file_set_location(f, 6, SCR_FLUSH_LOCATION_PFS);
    rc |= scr_flush_file_set_name(f, 6, "ckpt.6");
    rc |= scr_flush_file_set_checkpoint_id(f, 6, 3);
    rc |= scr_flush_file_set_location(f, 7, SCR_FLUSH_LOCATION_CACHE);
    rc |= scr_flush_file_set_location(f, 7, SCR_FLUSH_LOCATION_FLUSHING);
    rc |= scr_flush_file_set_name(f, 7, "out.7");
    rc |= scr_flush_file_set_output(f, 7, 1);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(f);
        return NULL;
    }
    return f;
}

static void test_written_file_matches_independent_golden(void)
{
    scr_kvtree *f = sample_flush();
    REQUIRE(f != NULL, "setters failed");
    const char *path = tap_path("flush.scr");
    CHECK(scr_flush_file_write(path, f) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("control/flush.scr"));
    /* writing does not add VERSION to the caller's tree */
    CHECK(scr_kvtree_get(f, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(f);
}

static void test_golden_reads_back_through_getters(void)
{
    scr_kvtree *f = scr_kvtree_new();
    REQUIRE(scr_flush_file_read(tap_data("control/flush.scr"), f) == SCR_SUCCESS, "read golden");
    CHECK(scr_kvtree_get(f, "VERSION") == NULL, "VERSION kept in the tree");
    int flag = -1, ckpt = -1;
    const char *name = NULL;
    CHECK(scr_flush_file_has_location(f, 6, SCR_FLUSH_LOCATION_CACHE, &flag) == 0 && flag == 1,
          "6 CACHE");
    CHECK(scr_flush_file_has_location(f, 6, SCR_FLUSH_LOCATION_PFS, &flag) == 0 && flag == 1,
          "6 PFS");
    CHECK(scr_flush_file_has_location(f, 6, SCR_FLUSH_LOCATION_FLUSHING, &flag) == 0 && flag == 0,
          "6 not FLUSHING");
    CHECK(scr_flush_file_get_name(f, 6, &name) == 0 && strcmp(name, "ckpt.6") == 0, "6 name");
    CHECK(scr_flush_file_get_checkpoint_id(f, 6, &ckpt) == 0 && ckpt == 3, "6 ckpt %d", ckpt);
    CHECK(scr_flush_file_is_output(f, 6, &flag) == 0 && flag == 0, "6 is not output");
    CHECK(scr_flush_file_has_location(f, 7, SCR_FLUSH_LOCATION_FLUSHING, &flag) == 0 && flag == 1,
          "7 FLUSHING");
    CHECK(scr_flush_file_has_location(f, 7, SCR_FLUSH_LOCATION_PFS, &flag) == 0 && flag == 0,
          "7 not PFS");
    CHECK(scr_flush_file_get_name(f, 7, &name) == 0 && strcmp(name, "out.7") == 0, "7 name");
    CHECK(scr_flush_file_get_checkpoint_id(f, 7, &ckpt) == SCR_ERR_NOTFOUND, "7 has no CKPT");
    CHECK(scr_flush_file_is_output(f, 7, &flag) == 0 && flag == 1, "7 is output");
    scr_kvtree *want = sample_flush();
    CHECK(scr_kvtree_equal(f, want), "golden differs from the tree the setters build");
    scr_kvtree_delete(want);
    scr_kvtree_delete(f);
}

static void test_missing_file_is_notfound_without_a_message(void)
{
    scr_kvtree *f = scr_kvtree_new();
    scr_clear_last_error();
    CHECK(scr_flush_file_read(tap_path("no-such-flush.scr"), f) == SCR_ERR_NOTFOUND, "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    CHECK(scr_kvtree_size(f) == 0, "tree changed");
    scr_kvtree_delete(f);
}

/* The golden tree as raw kvtree, edited by edit, written, and read back by
 * the module: expect SCR_ERR_FORMAT, a message with the file and every
 * string of want, and the caller's tree unchanged. */
static void expect_refused(const char *name, void (*edit)(scr_kvtree *), const char *want1,
                           const char *want2)
{
    const char *path = write_edited_golden("control/flush.scr", name, edit);
    if (path == NULL) return;

    scr_kvtree *f = scr_kvtree_new();
    scr_kvtree_set_kv(f, "KEEP", "me");
    int rc = quiet_read(scr_flush_file_read, path, f);
    check_refused(name, rc, path, want1);
    if (want2) check_error_has(name, want2);
    CHECK(scr_kvtree_size(f) == 1 && scr_kvtree_get_kv(f, "KEEP", "me"), "%s: tree changed", name);
    scr_kvtree_delete(f);
}

static scr_kvtree *dset(scr_kvtree *raw, const char *id)
{
    return scr_kvtree_get_kv(raw, "DSET", id);
}

static void edit_newer_version(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 2);
}
static void edit_bad_version(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(raw, "VERSION", "one");
}
static void edit_dset_not_id(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "DSET", "abc");
}
static void edit_dset_leading_zero(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "DSET", "08");
}
static void edit_unknown_location(scr_kvtree *raw)
{
    scr_kvtree_set_kv(dset(raw, "6"), "LOCATION", "MOON");
}
static void edit_ckpt_text(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(dset(raw, "6"), "CKPT", "x3");
}
static void edit_ckpt_zero(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(dset(raw, "6"), "CKPT", 0);
}
static void edit_output_two(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(dset(raw, "7"), "OUTPUT", 2);
}
static void edit_two_names(scr_kvtree *raw)
{
    scr_kvtree_set_kv(dset(raw, "7"), "NAME", "other");
}

static void test_newer_version_is_refused_naming_the_version(void)
{
    expect_refused("v2.scr", edit_newer_version, "version 2", NULL);
    expect_refused("badversion.scr", edit_bad_version, "key VERSION holds 'one'", NULL);
}

static void test_damaged_values_are_refused_naming_key_and_text(void)
{
    expect_refused("dset-abc.scr", edit_dset_not_id, "key DSET holds 'abc'", "dataset id");
    expect_refused("dset-08.scr", edit_dset_leading_zero, "key DSET holds '08'", NULL);
    expect_refused("loc.scr", edit_unknown_location, "key DSET 6 LOCATION holds 'MOON'",
                   "CACHE, PFS or FLUSHING");
    expect_refused("ckpt-text.scr", edit_ckpt_text, "key DSET 6 CKPT holds 'x3'", "checkpoint id");
    expect_refused("ckpt-zero.scr", edit_ckpt_zero, "key DSET 6 CKPT holds '0'", NULL);
    expect_refused("output.scr", edit_output_two, "key DSET 7 OUTPUT holds '2'", "0 or 1");
    expect_refused("names.scr", edit_two_names, "key DSET 7 NAME holds 'out.7, other'",
                   "single dataset name");
}

static void test_missing_version_reads_as_the_first_version(void)
{
    scr_kvtree *raw = scr_kvtree_new();
    REQUIRE(scr_kvtree_read_file(tap_data("control/flush.scr"), raw) == SCR_SUCCESS, "golden");
    scr_kvtree_unset(raw, "VERSION");
    const char *path = tap_path("noversion.scr");
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write");
    scr_kvtree *f = scr_kvtree_new();
    CHECK(scr_flush_file_read(path, f) == SCR_SUCCESS, "read");
    CHECK(scr_kvtree_equal(f, raw), "contents differ");
    scr_kvtree_delete(f);
    scr_kvtree_delete(raw);
}

static void test_damaged_file_is_refused(void)
{
    const char *path = tap_path("garbage.scr");
    REQUIRE(scr_write_atomic(path, "not a hash file at all", 22) == SCR_SUCCESS, "write");
    scr_kvtree *f = scr_kvtree_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_flush_file_read(path, f) == SCR_ERR_FORMAT, "garbage accepted");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), path) != NULL, "'%s'", scr_last_error());
    scr_kvtree_delete(f);
}

static void test_locations_are_set_cleared_and_queried(void)
{
    scr_kvtree *f = scr_kvtree_new();
    int flag = -1;
    CHECK(scr_flush_file_has_location(f, 3, SCR_FLUSH_LOCATION_CACHE, &flag) == SCR_ERR_NOTFOUND,
          "unknown dataset");
    CHECK(scr_flush_file_set_location(f, 3, SCR_FLUSH_LOCATION_CACHE) == 0, "set CACHE");
    CHECK(scr_flush_file_set_location(f, 3, SCR_FLUSH_LOCATION_FLUSHING) == 0, "set FLUSHING");
    CHECK(scr_flush_file_set_location(f, 3, SCR_FLUSH_LOCATION_FLUSHING) == 0, "set twice");
    CHECK(scr_flush_file_has_location(f, 3, SCR_FLUSH_LOCATION_FLUSHING, &flag) == 0 && flag,
          "FLUSHING set");
    CHECK(scr_flush_file_unset_location(f, 3, SCR_FLUSH_LOCATION_FLUSHING) == 0, "unset");
    CHECK(scr_flush_file_has_location(f, 3, SCR_FLUSH_LOCATION_FLUSHING, &flag) == 0 && !flag,
          "FLUSHING cleared");
    CHECK(scr_flush_file_has_location(f, 3, SCR_FLUSH_LOCATION_CACHE, &flag) == 0 && flag,
          "CACHE kept");
    CHECK(scr_flush_file_unset_location(f, 9, SCR_FLUSH_LOCATION_PFS) == 0, "unset on unknown");
    CHECK(scr_flush_file_has_location(f, 9, SCR_FLUSH_LOCATION_PFS, &flag) == SCR_ERR_NOTFOUND,
          "unset created dataset 9");
    CHECK(scr_flush_file_set_output(f, 3, 1) == 0 && scr_flush_file_is_output(f, 3, &flag) == 0 &&
              flag == 1,
          "output on");
    CHECK(scr_flush_file_set_output(f, 3, 0) == 0 && scr_flush_file_is_output(f, 3, &flag) == 0 &&
              flag == 0,
          "output off");
    CHECK(scr_kvtree_get(scr_kvtree_get_kv_int(f, "DSET", 3), "OUTPUT") == NULL,
          "OUTPUT key left behind");
    CHECK(scr_flush_file_remove_dataset(f, 3) == 0 &&
              scr_flush_file_has_location(f, 3, SCR_FLUSH_LOCATION_CACHE, &flag) ==
                  SCR_ERR_NOTFOUND,
          "remove");
    CHECK(strcmp(scr_flush_location_name(SCR_FLUSH_LOCATION_PFS), "PFS") == 0, "name of PFS");
    CHECK(scr_flush_location_name((enum scr_flush_location)3) == NULL, "name of 3");
    scr_kvtree_delete(f);
}

static void test_getters_tell_missing_from_wrong_type(void)
{
    scr_kvtree *f = scr_kvtree_new();
    scr_kvtree *d = scr_kvtree_set_kv_int(f, "DSET", 4);
    const char *name;
    int v;
    CHECK(scr_flush_file_get_name(f, 5, &name) == SCR_ERR_NOTFOUND, "name of unknown dataset");
    CHECK(scr_flush_file_get_name(f, 4, &name) == SCR_ERR_NOTFOUND, "absent name");
    CHECK(scr_flush_file_get_checkpoint_id(f, 5, &v) == SCR_ERR_NOTFOUND, "ckpt of unknown");
    CHECK(scr_flush_file_is_output(f, 5, &v) == SCR_ERR_NOTFOUND, "output of unknown");
    scr_kvtree_util_set_str(d, "CKPT", "-2");
    scr_kvtree_util_set_str(d, "OUTPUT", "yes");
    scr_kvtree_set_kv(d, "NAME", "a");
    scr_kvtree_set_kv(d, "NAME", "b");
    scr_clear_last_error();
    CHECK(scr_flush_file_get_checkpoint_id(f, 4, &v) == SCR_ERR_TYPE, "ckpt -2");
    CHECK(scr_flush_file_is_output(f, 4, &v) == SCR_ERR_TYPE, "output yes");
    CHECK(scr_flush_file_get_name(f, 4, &name) == SCR_ERR_TYPE, "two names");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    CHECK(scr_flush_file_get_name(f, 4, NULL) == SCR_ERR_ARG, "NULL result");
    scr_kvtree_delete(f);
}

static void test_setters_refuse_bad_arguments(void)
{
    scr_kvtree *f = scr_kvtree_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_flush_file_set_location(f, 0, SCR_FLUSH_LOCATION_CACHE) == SCR_ERR_ARG, "id 0");
    CHECK(strstr(scr_last_error(), "dataset id 0") != NULL, "'%s'", scr_last_error());
    CHECK(scr_flush_file_set_location(f, 1, (enum scr_flush_location)9) == SCR_ERR_ARG, "loc 9");
    CHECK(scr_flush_file_unset_location(f, 1, (enum scr_flush_location) - 1) == SCR_ERR_ARG,
          "loc -1");
    CHECK(scr_flush_file_set_name(f, 1, "") == SCR_ERR_ARG, "empty name");
    CHECK(scr_flush_file_set_name(f, 1, NULL) == SCR_ERR_ARG, "NULL name");
    CHECK(scr_flush_file_set_checkpoint_id(f, 1, 0) == SCR_ERR_ARG, "ckpt 0");
    CHECK(scr_flush_file_set_output(NULL, 1, 1) == SCR_ERR_ARG, "NULL tree");
    CHECK(scr_flush_file_remove_dataset(f, -4) == SCR_ERR_ARG, "remove -4");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(f) == 0, "a refused setter changed the tree");
    scr_kvtree_delete(f);
}

static void test_datasets_are_listed_in_ascending_order(void)
{
    scr_kvtree *f = scr_kvtree_new();
    int *ids = (int *)1, count = -1;
    CHECK(scr_flush_file_list_datasets(f, &ids, &count) == 0 && ids == NULL && count == 0,
          "empty list");
    scr_flush_file_set_name(f, 10, "ten");
    scr_flush_file_set_name(f, 2, "two");
    scr_flush_file_set_name(f, 7, "seven");
    REQUIRE(scr_flush_file_list_datasets(f, &ids, &count) == 0, "list");
    CHECK(count == 3 && ids[0] == 2 && ids[1] == 7 && ids[2] == 10, "order %d: %d %d %d", count,
          ids[0], count > 1 ? ids[1] : -1, count > 2 ? ids[2] : -1);
    free(ids);
    scr_kvtree_set_kv(f, "DSET", "x");
    CHECK(scr_flush_file_list_datasets(f, &ids, &count) == SCR_ERR_TYPE, "damaged key listed");
    scr_kvtree_delete(f);
}

static void test_newest_cached_dataset_decides_whether_a_flush_is_needed(void)
{
    scr_kvtree *f = scr_kvtree_new();
    int id = -1, flushed = -1;
    CHECK(scr_flush_file_newest_cached_is_flushed(f, &id, &flushed) == SCR_ERR_NOTFOUND,
          "empty file");
    scr_flush_file_set_location(f, 4, SCR_FLUSH_LOCATION_CACHE);
    scr_flush_file_set_location(f, 4, SCR_FLUSH_LOCATION_PFS);
    scr_flush_file_set_location(f, 9, SCR_FLUSH_LOCATION_PFS); /* only in the prefix */
    CHECK(scr_flush_file_newest_cached_is_flushed(f, &id, &flushed) == 0 && id == 4 && flushed == 1,
          "4 flushed: id %d flushed %d", id, flushed);
    scr_flush_file_set_location(f, 6, SCR_FLUSH_LOCATION_CACHE);
    scr_flush_file_set_location(f, 6, SCR_FLUSH_LOCATION_FLUSHING);
    CHECK(scr_flush_file_newest_cached_is_flushed(f, &id, &flushed) == 0 && id == 6 && flushed == 0,
          "6 not flushed: id %d flushed %d", id, flushed);
    scr_flush_file_set_location(f, 6, SCR_FLUSH_LOCATION_PFS);
    scr_flush_file_unset_location(f, 6, SCR_FLUSH_LOCATION_FLUSHING);
    CHECK(scr_flush_file_newest_cached_is_flushed(f, &id, &flushed) == 0 && id == 6 && flushed == 1,
          "6 flushed: id %d flushed %d", id, flushed);
    scr_kvtree_set_kv(f, "DSET", "bad");
    CHECK(scr_flush_file_newest_cached_is_flushed(f, &id, &flushed) == SCR_ERR_TYPE, "damaged key");
    scr_kvtree_delete(f);
}

static void test_write_refuses_a_tree_a_reader_would_refuse(void)
{
    scr_kvtree *f = scr_kvtree_new();
    scr_kvtree_set_kv(scr_kvtree_set_kv_int(f, "DSET", 2), "LOCATION", "ATTIC");
    const char *path = tap_path("refused.scr");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_flush_file_write(path, f) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "ATTIC") != NULL, "'%s'", scr_last_error());
    CHECK(access(path, F_OK) != 0, "file created");
    scr_kvtree_delete(f);
}

static void test_write_into_missing_directory_fails(void)
{
    scr_kvtree *f = sample_flush();
    const char *path = tap_path("no/such/dir/flush.scr");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_flush_file_write(path, f) == SCR_ERR_IO, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "no/such/dir") != NULL, "'%s'", scr_last_error());
    scr_kvtree_delete(f);
}

int main(void)
{
    RUN(test_written_file_matches_independent_golden);
    RUN(test_golden_reads_back_through_getters);
    RUN(test_missing_file_is_notfound_without_a_message);
    RUN(test_newer_version_is_refused_naming_the_version);
    RUN(test_damaged_values_are_refused_naming_key_and_text);
    RUN(test_missing_version_reads_as_the_first_version);
    RUN(test_damaged_file_is_refused);
    RUN(test_locations_are_set_cleared_and_queried);
    RUN(test_getters_tell_missing_from_wrong_type);
    RUN(test_setters_refuse_bad_arguments);
    RUN(test_datasets_are_listed_in_ascending_order);
    RUN(test_newest_cached_dataset_decides_whether_a_flush_is_needed);
    RUN(test_write_refuses_a_tree_a_reader_would_refuse);
    RUN(test_write_into_missing_directory_fails);
    return tap_done();
}
