/* test_summary.c — summary.scr: golden bytes, values, version 5, versions, damage. */
#include "tap.h"
#include "record_test.h"

#include "dataset.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "summary.h"
#include "util_log.h"

#include <unistd.h>

static const uint64_t app_size[4] = {524294, 524295, 524296, 524297};
static const uint32_t app_crc[4] = {0x6697d4efu, 0x28eeb9eu, 0xb6a62246u, 0x213c897au};
static const uint64_t xor_size[4] = {175691, 175692, 175693, 175694};
static const uint32_t xor_crc[3] = {0x1c2a3b4du, 0x5e6f7081u, 0x2ef519a1u};

static void app_name(char *buf, size_t len, int rank)
{
    snprintf(buf, len, "../../ckpt.6/rank_%d.ckpt", rank);
}

static void xor_name(char *buf, size_t len, int rank)
{
    snprintf(buf, len, "%d_of_4_in_0.xor", rank + 1);
}

/* The summary of tests/data/records/summary.json, built through the setters
 * (ranks from the last, as a scan might find them). */
static scr_kvtree *sample_summary(void)
{
    scr_kvtree *s = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    int rc = scr_dataset_set_id(d, 6);
    rc |= scr_dataset_set_name(d, "scr.dataset.6");
    rc |= scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    rc |= scr_dataset_set_created(d, 1312850690668536LL);
    rc |= scr_dataset_set_username(d, "user1");
    rc |= scr_dataset_set_jobname(d, "simulation123");
    rc |= scr_dataset_set_jobid(d, "112573");
    rc |= scr_dataset_set_ckpt(d, 6);
    rc |= scr_dataset_set_size(d, 2097182);
    rc |= scr_dataset_set_files(d, 4);
    rc |= scr_dataset_set_complete(d, 1);
    rc |= scr_summary_set_ranks(s, 4);
    for (int r = 3; r >= 0; r--) {
        char app[64], xor[64];
        app_name(app, sizeof(app), r);
        xor_name(xor, sizeof(xor), r);
        rc |= scr_summary_set_file(s, r, xor, xor_size[r]);
        rc |= scr_summary_set_file_nofetch(s, r, xor, 1);
        if (r < 3) rc |= scr_summary_set_file_crc(s, r, xor, xor_crc[r]);
        rc |= scr_summary_set_file(s, r, app, app_size[r]);
        rc |= scr_summary_set_file_crc(s, r, app, app_crc[r]);
        rc |= scr_summary_set_expected_files(s, r, 2);
    }
    rc |= scr_summary_set_dataset(s, d);
    scr_dataset_delete(d);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(s);
        return NULL;
    }
    return s;
}

static void test_written_summary_matches_independent_golden(void)
{
    scr_kvtree *s = sample_summary();
    REQUIRE(s != NULL, "setters failed");
    const char *path = tap_path(SCR_SUMMARY_FILE_NAME);
    CHECK(scr_summary_write(path, s) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("records/summary.scr"));
    CHECK(scr_kvtree_get(s, "VERSION") == NULL, "VERSION leaked into the tree");
    scr_kvtree_delete(s);
}

static void test_golden_summary_reads_back_through_getters(void)
{
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(tap_data("records/summary.scr"), s) == SCR_SUCCESS, "read golden");
    CHECK(scr_kvtree_get(s, "VERSION") == NULL, "VERSION kept");
    int n = -1, flag = -1;
    CHECK(scr_summary_get_ranks(s, &n) == 0 && n == 4, "RANKS %d", n);
    const scr_dataset *d = NULL;
    CHECK(scr_summary_get_dataset(s, &d) == 0 && scr_dataset_get_files(d, &n) == 0 && n == 4,
          "descriptor");
    int *ranks = NULL, count = -1;
    REQUIRE(scr_summary_list_ranks(s, &ranks, &count) == 0 && count == 4, "ranks %d", count);
    for (int r = 0; r < 4; r++) {
        char app[64], xor[64];
        uint64_t size = 0;
        uint32_t crc = 0;
        app_name(app, sizeof(app), r);
        xor_name(xor, sizeof(xor), r);
        CHECK(ranks[r] == r, "rank %d listed as %d", r, ranks[r]);
        CHECK(scr_summary_get_expected_files(s, r, &n) == 0 && n == 2, "rank %d FILES", r);
        CHECK(scr_summary_get_file_size(s, r, app, &size) == 0 && size == app_size[r],
              "rank %d %s size", r, app);
        CHECK(scr_summary_get_file_crc(s, r, app, &crc) == 0 && crc == app_crc[r],
              "rank %d %s crc 0x%x", r, app, crc);
        CHECK(scr_summary_get_file_nofetch(s, r, app, &flag) == 0 && flag == 0,
              "rank %d %s fetched", r, app);
        CHECK(scr_summary_get_file_size(s, r, xor, &size) == 0 && size == xor_size[r],
              "rank %d %s size", r, xor);
        CHECK(scr_summary_get_file_nofetch(s, r, xor, &flag) == 0 && flag == 1,
              "rank %d %s NOFETCH", r, xor);
        if (r < 3)
            CHECK(scr_summary_get_file_crc(s, r, xor, &crc) == 0 && crc == xor_crc[r],
                  "rank %d %s crc", r, xor);
        else
            CHECK(scr_summary_get_file_crc(s, r, xor, &crc) == SCR_ERR_NOTFOUND,
                  "rank 3 XOR file has no CRC");
    }
    free(ranks);
    scr_kvtree *want = sample_summary();
    CHECK(scr_kvtree_equal(s, want), "golden differs from the summary the setters build");
    scr_kvtree_delete(want);
    scr_kvtree_delete(s);
}

/* What summary-v5.scr must read as. */
static scr_kvtree *expected_from_v5(void)
{
    static const uint64_t sizes[4] = {524294, 524295, 524296, 524297};
    static const uint32_t crcs[4] = {0x6697d4efu, 0x28eeb9eu, 0xb6a62246u, 0x213c897au};
    scr_kvtree *s = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    scr_dataset_set_id(d, 18);
    scr_dataset_set_ckpt(d, 18);
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    scr_dataset_set_complete(d, 1);
    scr_summary_set_dataset(s, d);
    scr_dataset_delete(d);
    scr_summary_set_ranks(s, 4);
    for (int r = 0; r < 4; r++) {
        char name[32];
        snprintf(name, sizeof(name), "rank_%d.ckpt", r);
        scr_summary_set_file(s, r, name, sizes[r]);
        scr_summary_set_file_crc(s, r, name, crcs[r]);
        scr_summary_set_expected_files(s, r, 1);
    }
    return s;
}

static void test_version_5_reads_into_the_same_form(void)
{
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(tap_data("records/summary-v5.scr"), s) == SCR_SUCCESS, "read v5");
    scr_kvtree *want = expected_from_v5();
    CHECK(scr_kvtree_equal(s, want), "version 5 read differently");
    const scr_dataset *d = NULL;
    int id = 0;
    CHECK(scr_summary_get_dataset(s, &d) == 0 && scr_dataset_get_ckpt(d, &id) == 0 && id == 18 &&
              scr_dataset_is_checkpoint(d),
          "checkpoint 18");
    /* and it writes back as version 6 */
    const char *path = tap_path("from-v5.scr");
    CHECK(scr_summary_write(path, s) == SCR_SUCCESS, "write");
    scr_kvtree *raw = scr_kvtree_new();
    int version = 0;
    CHECK(scr_kvtree_read_file(path, raw) == 0 &&
              scr_kvtree_util_get_int(raw, "VERSION", &version) == 0 && version == 6,
          "written as version %d", version);
    scr_kvtree_delete(raw);
    scr_kvtree_delete(want);
    scr_kvtree_delete(s);
}

/* The raw tree of golden, edited by edit, written, then read by the module. */
static int read_edited(const char *golden, const char *name, void (*edit)(scr_kvtree *),
                       scr_kvtree *out)
{
    const char *path = write_edited_golden(golden, name, edit);
    return path ? quiet_read(scr_summary_read, path, out) : -1;
}

static void expect_refused(const char *golden, const char *name, void (*edit)(scr_kvtree *),
                           const char *want)
{
    scr_kvtree *s = scr_kvtree_new();
    int rc = read_edited(golden, name, edit, s);
    check_refused(name, rc, tap_path(name), want);
    CHECK(scr_kvtree_size(s) == 0, "%s: tree changed", name);
    scr_kvtree_delete(s);
}

static scr_kvtree *rank0(scr_kvtree *raw)
{
    return scr_kvtree_getf(raw, "RANK2FILE RANK 0");
}
static scr_kvtree *app0(scr_kvtree *raw)
{
    return scr_kvtree_get_kv(rank0(raw), "FILE", "../../ckpt.6/rank_0.ckpt");
}
static void edit_version_8(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 8);
}
static void edit_version_7(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 7);
}
static void edit_version_4(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 4);
}
static void edit_version_text(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(raw, "VERSION", "six");
}
static void edit_no_version(scr_kvtree *raw)
{
    scr_kvtree_unset(raw, "VERSION");
}
static void edit_rank_too_big(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "RANK2FILE RANK 4");
}
static void edit_absolute_name(scr_kvtree *raw)
{
    scr_kvtree_set_kv(rank0(raw), "FILE", "/x");
}
static void edit_no_size(scr_kvtree *raw)
{
    scr_kvtree_unset(app0(raw), "SIZE");
}
static void edit_bad_crc(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(app0(raw), "CRC", "abc");
}
static void edit_nofetch_value(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(app0(raw), "NOFETCH", 1);
}
static void edit_file_junk(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(app0(raw), "MTIME", 1);
}
static void edit_files_negative(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(rank0(raw), "FILES", -1);
}
static void edit_ranks_zero(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(raw, "RANK2FILE"), "RANKS", 0);
}
static void edit_desc_flags(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(raw, "DSET"), "FLAGS", 4);
}
static void edit_top_junk(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "EXTRA", "1");
}
static scr_kvtree *v5_rank0(scr_kvtree *raw)
{
    return scr_kvtree_getf(raw, "CKPT 18 RANK 0");
}
static void edit_v5_two_ckpts(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "CKPT 19 RANKS 4");
}
static void edit_v5_size(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(scr_kvtree_get_kv(v5_rank0(raw), "FILE", "rank_0.ckpt"), "SIZE", "x");
}
static void edit_v5_complete(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_getf(raw, "CKPT 18"), "COMPLETE", 5);
}
static void edit_v5_no_version(scr_kvtree *raw)
{
    scr_kvtree_unset(raw, "VERSION");
    scr_kvtree_util_set_str(scr_kvtree_get_kv(v5_rank0(raw), "FILE", "rank_0.ckpt"), "CRC", "?");
}

static void test_versions_outside_5_to_7_are_refused(void)
{
    expect_refused("records/summary.scr", "v8.scr", edit_version_8, "summary version 8");
    /* version 7 names parts: ranks listed in summary.scr itself are not its layout */
    expect_refused("records/summary.scr", "v7.scr", edit_version_7,
                   "key RANK2FILE holds 'RANK', expected RANKS, PARTS or PART");
    expect_refused("records/summary.scr", "v4.scr", edit_version_4,
                   "summary version 4 is older than this build reads");
    expect_refused("records/summary.scr", "vtext.scr", edit_version_text,
                   "key VERSION holds 'six'");
}

static void test_missing_version_is_read_by_layout(void)
{
    scr_kvtree *s = scr_kvtree_new();
    CHECK(read_edited("records/summary.scr", "nover6.scr", edit_no_version, s) == SCR_SUCCESS,
          "version 6 layout without VERSION");
    scr_kvtree *want = sample_summary();
    CHECK(scr_kvtree_equal(s, want), "contents differ");
    scr_kvtree_delete(want);
    scr_kvtree_delete(s);
    /* a version 5 layout without VERSION is converted, so its damage is found */
    expect_refused("records/summary-v5.scr", "nover5.scr", edit_v5_no_version,
                   "key CKPT 18 RANK 0 FILE rank_0.ckpt CRC holds '?'");
}

static void test_damaged_values_are_refused_naming_key_and_text(void)
{
    const char *g = "records/summary.scr";
    expect_refused(g, "rank4.scr", edit_rank_too_big,
                   "key RANK2FILE RANK holds '4', expected "
                   "ranks below RANKS (4)");
    expect_refused(g, "abs.scr", edit_absolute_name, "key RANK2FILE RANK 0 FILE holds '/x'");
    expect_refused(g, "nosize.scr", edit_no_size,
                   "key RANK2FILE RANK 0 FILE ../../ckpt.6/rank_0.ckpt has no SIZE");
    expect_refused(g, "crc.scr", edit_bad_crc,
                   "key RANK2FILE RANK 0 FILE ../../ckpt.6/rank_0.ckpt CRC holds 'abc'");
    expect_refused(g, "nofetch.scr", edit_nofetch_value, "NOFETCH holds '1', expected nothing");
    expect_refused(g, "junk.scr", edit_file_junk,
                   "holds 'MTIME', expected SIZE, CRC, NOFETCH or COMPRESSED");
    expect_refused(g, "files.scr", edit_files_negative, "key RANK2FILE RANK 0 FILES holds '-1'");
    expect_refused(g, "ranks.scr", edit_ranks_zero, "key RANK2FILE RANKS holds '0'");
    expect_refused(g, "flags.scr", edit_desc_flags, "key DSET FLAGS holds '4'");
    expect_refused(g, "top.scr", edit_top_junk, "unexpected key 'EXTRA'");
    const char *g5 = "records/summary-v5.scr";
    expect_refused(g5, "v5-two.scr", edit_v5_two_ckpts,
                   "key CKPT holds '18, 19', expected one "
                   "checkpoint id");
    expect_refused(g5, "v5-size.scr", edit_v5_size,
                   "key CKPT 18 RANK 0 FILE rank_0.ckpt SIZE holds 'x'");
    expect_refused(g5, "v5-complete.scr", edit_v5_complete, "key CKPT 18 COMPLETE holds '5'");
}

static void test_missing_file_is_notfound_without_a_message(void)
{
    scr_kvtree *s = scr_kvtree_new();
    scr_clear_last_error();
    CHECK(scr_summary_read(tap_path("none/summary.scr"), s) == SCR_ERR_NOTFOUND, "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_kvtree_delete(s);
}

static void test_files_are_listed_sorted_and_removed(void)
{
    scr_kvtree *s = scr_kvtree_new();
    int flag = -1;
    scr_summary_set_file(s, 5, "b", 1);
    scr_summary_set_file(s, 5, "a", 2);
    scr_summary_set_file(s, 1, "c", 3);
    scr_summary_set_file_nofetch(s, 5, "a", 1);
    scr_summary_set_file_crc(s, 5, "a", 0xabcu);
    scr_summary_set_file(s, 5, "a", 20); /* a new size keeps CRC and NOFETCH */
    uint64_t size = 0;
    uint32_t crc = 0;
    CHECK(scr_summary_get_file_size(s, 5, "a", &size) == 0 && size == 20, "size replaced");
    CHECK(scr_summary_get_file_crc(s, 5, "a", &crc) == 0 && crc == 0xabcu, "crc kept");
    CHECK(scr_summary_get_file_nofetch(s, 5, "a", &flag) == 0 && flag == 1, "flag kept");
    CHECK(scr_summary_set_file_nofetch(s, 5, "a", 0) == 0 &&
              scr_summary_get_file_nofetch(s, 5, "a", &flag) == 0 && flag == 0,
          "flag cleared");
    const char **names = NULL;
    int count = -1;
    REQUIRE(scr_summary_list_files(s, 5, &names, &count) == 0, "list");
    CHECK(count == 2 && strcmp(names[0], "a") == 0 && strcmp(names[1], "b") == 0, "sorted");
    free(names);
    int *ranks = NULL;
    REQUIRE(scr_summary_list_ranks(s, &ranks, &count) == 0, "ranks");
    CHECK(count == 2 && ranks[0] == 1 && ranks[1] == 5, "ranks sorted");
    free(ranks);
    CHECK(scr_summary_remove_file(s, 5, "a") == 0 && scr_summary_remove_file(s, 5, "zz") == 0,
          "remove");
    CHECK(scr_summary_get_file_size(s, 5, "a", &size) == SCR_ERR_NOTFOUND, "removed");
    CHECK(scr_summary_get_file_nofetch(s, 5, "a", &flag) == SCR_ERR_NOTFOUND, "flag of absent");
    CHECK(scr_summary_list_files(s, 9, &names, &count) == 0 && names == NULL && count == 0,
          "files of an absent rank");
    scr_kvtree_set_kv(scr_kvtree_get(s, "RANK2FILE"), "RANK", "x");
    CHECK(scr_summary_list_ranks(s, &ranks, &count) == SCR_ERR_TYPE, "damaged rank key");
    scr_kvtree_delete(s);
}

static void test_getters_tell_missing_from_wrong_type(void)
{
    scr_kvtree *s = scr_kvtree_new();
    const scr_dataset *d;
    int n;
    uint64_t size;
    uint32_t crc;
    CHECK(scr_summary_get_dataset(s, &d) == SCR_ERR_NOTFOUND, "no descriptor");
    CHECK(scr_summary_get_ranks(s, &n) == SCR_ERR_NOTFOUND, "no RANKS");
    CHECK(scr_summary_get_expected_files(s, 0, &n) == SCR_ERR_NOTFOUND, "no rank");
    CHECK(scr_summary_get_file_crc(s, 0, "f", &crc) == SCR_ERR_NOTFOUND, "no file");
    scr_summary_set_file(s, 0, "f", 1);
    scr_kvtree *f = scr_kvtree_getf(s, "RANK2FILE RANK 0 FILE f");
    scr_kvtree_util_set_str(f, "SIZE", "-1");
    scr_kvtree_util_set_str(f, "CRC", "1");
    scr_kvtree_util_set_int(scr_kvtree_getf(s, "RANK2FILE RANK 0"), "FILES", -4);
    scr_kvtree_util_set_int(scr_kvtree_get(s, "RANK2FILE"), "RANKS", 0);
    scr_clear_last_error();
    CHECK(scr_summary_get_file_size(s, 0, "f", &size) == SCR_ERR_TYPE, "SIZE -1");
    CHECK(scr_summary_get_file_crc(s, 0, "f", &crc) == SCR_ERR_TYPE, "CRC 1");
    CHECK(scr_summary_get_expected_files(s, 0, &n) == SCR_ERR_TYPE, "FILES -4");
    CHECK(scr_summary_get_ranks(s, &n) == SCR_ERR_TYPE, "RANKS 0");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    CHECK(scr_summary_get_ranks(s, NULL) == SCR_ERR_ARG, "NULL result");
    scr_kvtree_delete(s);
}

static void test_setters_refuse_bad_arguments(void)
{
    scr_kvtree *s = scr_kvtree_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_summary_set_file(s, 0, "/abs", 1) == SCR_ERR_ARG, "absolute name");
    CHECK(strstr(scr_last_error(), "'/abs'") != NULL, "'%s'", scr_last_error());
    CHECK(scr_summary_set_file(s, -1, "f", 1) == SCR_ERR_ARG, "rank -1");
    CHECK(scr_summary_set_file(s, 0, "", 1) == SCR_ERR_ARG, "empty name");
    CHECK(scr_summary_set_ranks(s, 0) == SCR_ERR_ARG, "0 ranks");
    CHECK(scr_summary_set_expected_files(s, 0, -1) == SCR_ERR_ARG, "-1 files");
    CHECK(scr_summary_set_dataset(s, NULL) == SCR_ERR_ARG, "NULL descriptor");
    CHECK(scr_summary_remove_file(s, 0, NULL) == SCR_ERR_ARG, "remove NULL");
    CHECK(scr_summary_read(NULL, s) == SCR_ERR_ARG, "read NULL path");
    CHECK(scr_summary_write(NULL, s) == SCR_ERR_ARG, "write NULL path");
    CHECK(scr_kvtree_size(s) == 0, "a refused setter changed the tree");
    CHECK(scr_summary_set_file_crc(s, 0, "f", 1) == SCR_ERR_NOTFOUND, "crc of unlisted");
    CHECK(strstr(scr_last_error(), "rank 0 has no file f") != NULL, "'%s'", scr_last_error());
    CHECK(scr_summary_set_file_nofetch(s, 0, "f", 1) == SCR_ERR_NOTFOUND, "flag of unlisted");
    CHECK(scr_summary_set_file_crc(s, 0, "/f", 1) == SCR_ERR_ARG, "crc of absolute name");
    scr_log_set_quiet(0);
    scr_kvtree_delete(s);
}

static void test_write_refuses_a_summary_a_reader_would_refuse(void)
{
    scr_kvtree *s = scr_kvtree_new();
    scr_summary_set_ranks(s, 2);
    scr_summary_set_file(s, 2, "f", 1);
    const char *path = tap_path("refused-summary.scr");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_summary_write(path, s) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "(not written): key RANK2FILE RANK holds '2'") != NULL, "'%s'",
          scr_last_error());
    CHECK(access(path, F_OK) != 0, "file created");
    scr_kvtree_delete(s);
}

/* The golden summary again, each rank listed in one call. */
static void test_set_rank_gives_the_golden_bytes(void)
{
    scr_kvtree *s = sample_summary();
    REQUIRE(s != NULL, "setters failed");
    scr_kvtree_unset(s, "RANK2FILE");
    int rc = scr_summary_set_ranks(s, 4);
    for (int r = 0; r < 4; r++) {
        char app[64], xor[64];
        app_name(app, sizeof(app), r);
        xor_name(xor, sizeof(xor), r);
        struct scr_summary_file files[2] = {
            {xor, xor_size[r], r < 3 ? xor_crc[r] : 0, r < 3, 1, 0, 0},
            {app, app_size[r], app_crc[r], 1, 0, 0, 0},
        };
        /* listed twice: the second call replaces the first */
        rc |= scr_summary_set_rank(s, r, 1, files + 1, 1);
        rc |= scr_summary_set_rank(s, r, 2, files, 2);
    }
    CHECK(rc == SCR_SUCCESS, "set_rank");
    const char *path = tap_path(SCR_SUMMARY_FILE_NAME);
    CHECK(scr_summary_write(path, s) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("records/summary.scr"));
    struct scr_summary_file bad = {"/abs", 1, 0, 0, 0, 0, 0};
    CHECK(scr_summary_set_rank(s, 0, 1, &bad, 1) == SCR_ERR_ARG, "an absolute name is refused");
    CHECK(scr_summary_set_rank(s, -1, 0, NULL, 0) == SCR_ERR_ARG, "a negative rank is refused");
    CHECK(scr_summary_set_rank(s, 0, -1, NULL, 0) == SCR_ERR_ARG, "a negative count is refused");
    scr_kvtree_delete(s);
}

/* The golden summary once more, written from lists without a tree. */
struct golden_lists {
    char names[4][2][64];
    struct scr_summary_file files[2];
    int bad_rank;
};

static int golden_rank_files(void *ctx, int rank, int *out_expected,
                             const struct scr_summary_file **out_files, int *out_n)
{
    struct golden_lists *g = ctx;
    xor_name(g->names[rank][0], sizeof(g->names[rank][0]), rank);
    app_name(g->names[rank][1], sizeof(g->names[rank][1]), rank);
    /* given in the opposite order to the file's: the writer sorts them */
    g->files[0] =
        (struct scr_summary_file){g->names[rank][1], app_size[rank], app_crc[rank], 1, 0, 0, 0};
    g->files[1] = (struct scr_summary_file){
        g->names[rank][0], xor_size[rank], rank < 3 ? xor_crc[rank] : 0, rank < 3, 1, 0, 0};
    if (rank == g->bad_rank) g->files[1].name = "/etc/passwd";
    *out_expected = 2;
    *out_files = g->files;
    *out_n = 2;
    return SCR_SUCCESS;
}

static void test_write_ranks_gives_the_golden_bytes(void)
{
    scr_kvtree *s = sample_summary();
    REQUIRE(s != NULL, "setters failed");
    const scr_dataset *d = NULL;
    REQUIRE(scr_summary_get_dataset(s, &d) == SCR_SUCCESS, "descriptor");
    struct golden_lists g = {.bad_rank = -1};
    const char *path = tap_path(SCR_SUMMARY_FILE_NAME);
    unlink(path);
    CHECK(scr_summary_write_ranks(path, d, 4, golden_rank_files, &g) == SCR_SUCCESS,
          "write from lists");
    check_same_bytes(path, tap_data("records/summary.scr"));
    /* bad input leaves the file as it was */
    g.bad_rank = 2;
    scr_log_set_quiet(1);
    CHECK(scr_summary_write_ranks(path, d, 4, golden_rank_files, &g) == SCR_ERR_ARG,
          "an absolute name is refused");
    CHECK(scr_summary_write_ranks(path, d, 0, golden_rank_files, &g) == SCR_ERR_ARG,
          "no ranks is refused");
    scr_dataset *empty = scr_dataset_new();
    scr_kvtree_util_set_str(empty, "ID", "six");
    CHECK(scr_summary_write_ranks(path, empty, 4, golden_rank_files, &g) == SCR_ERR_TYPE,
          "a bad descriptor is refused");
    scr_log_set_quiet(0);
    check_same_bytes(path, tap_data("records/summary.scr"));
    scr_dataset_delete(empty);
    scr_kvtree_delete(s);
}

/* Names that are numbers sort first, numerically, in both writers. */
static const char *const odd_names[] = {"10", "9", "b/x", "-2", "a", "007", "7z"};

static int odd_rank_files(void *ctx, int rank, int *out_expected,
                          const struct scr_summary_file **out_files, int *out_n)
{
    struct scr_summary_file *files = ctx;
    for (int i = 0; i < 7; i++)
        files[i] = (struct scr_summary_file){odd_names[(i + rank) % 7],
                                             (uint64_t)(rank * 100 + i),
                                             (uint32_t)i,
                                             i % 2,
                                             i % 3 == 0,
                                             i % 4 == 1,
                                             (uint64_t)(rank * 10 + i)};
    *out_expected = 7;
    *out_files = files;
    *out_n = rank % 3 == 2 ? 0 : 7;
    return SCR_SUCCESS;
}

static void test_write_ranks_matches_the_tree_writer(void)
{
    scr_kvtree *s = sample_summary();
    REQUIRE(s != NULL, "setters failed");
    const scr_dataset *d = NULL;
    REQUIRE(scr_summary_get_dataset(s, &d) == SCR_SUCCESS, "descriptor");
    scr_kvtree_unset(s, "RANK2FILE");
    struct scr_summary_file files[7];
    int rc = scr_summary_set_ranks(s, 12);
    for (int r = 11; r >= 0; r--) {
        const struct scr_summary_file *f = NULL;
        int expected = 0, n = 0;
        rc |= odd_rank_files(files, r, &expected, &f, &n);
        rc |= scr_summary_set_rank(s, r, expected, f, n);
    }
    REQUIRE(rc == SCR_SUCCESS, "set_rank");
    char tree_path[4096];
    snprintf(tree_path, sizeof(tree_path), "%s", tap_path("tree.scr"));
    CHECK(scr_summary_write(tree_path, s) == SCR_SUCCESS, "tree writer");
    CHECK(scr_summary_write_ranks(tap_path("lists.scr"), d, 12, odd_rank_files, files) ==
              SCR_SUCCESS,
          "list writer");
    check_same_bytes(tap_path("lists.scr"), tree_path);
    scr_kvtree_delete(s);
}

/* --- COMPRESSED: a file stored as gzip (tests/data/records/summary-compressed.json) --- */

static const uint64_t cz_size[2] = {524294, 524296};
static const uint32_t cz_crc[2] = {0x5d3e6a12u, 0xb77c9e4u};
#define CZ_STORED 131178 /* rank 0's file on the prefix; rank 1's is stored as written */

static scr_dataset *compressed_dataset(void)
{
    scr_dataset *d = scr_dataset_new();
    int rc = scr_dataset_set_id(d, 7);
    rc |= scr_dataset_set_name(d, "scr.dataset.7");
    rc |= scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    rc |= scr_dataset_set_created(d, 1312850790668536LL);
    rc |= scr_dataset_set_username(d, "user1");
    rc |= scr_dataset_set_jobname(d, "simulation123");
    rc |= scr_dataset_set_jobid(d, "112573");
    rc |= scr_dataset_set_ckpt(d, 7);
    rc |= scr_dataset_set_size(d, 1048590);
    rc |= scr_dataset_set_files(d, 2);
    rc |= scr_dataset_set_complete(d, 1);
    if (rc == SCR_SUCCESS) return d;
    scr_dataset_delete(d);
    return NULL;
}

static int compressed_rank_files(void *ctx, int rank, int *out_expected,
                                 const struct scr_summary_file **out_files, int *out_n)
{
    static char name[64];
    struct scr_summary_file *f = ctx;
    snprintf(name, sizeof(name), "../../ckpt.7/rank_%d.ckpt", rank);
    *f = (struct scr_summary_file){
        name, cz_size[rank], cz_crc[rank], 1, 0, rank == 0, rank == 0 ? CZ_STORED : 0};
    *out_expected = 1;
    *out_files = f;
    *out_n = 1;
    return SCR_SUCCESS;
}

static void test_compressed_files_match_the_golden_in_both_writers(void)
{
    scr_dataset *d = compressed_dataset();
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(d != NULL && s != NULL, "descriptor");
    int rc = scr_summary_set_dataset(s, d) | scr_summary_set_ranks(s, 2);
    for (int r = 0; r < 2; r++) {
        char name[64];
        snprintf(name, sizeof(name), "../../ckpt.7/rank_%d.ckpt", r);
        rc |= scr_summary_set_file(s, r, name, cz_size[r]);
        rc |= scr_summary_set_file_crc(s, r, name, cz_crc[r]);
        rc |= scr_summary_set_expected_files(s, r, 1);
        if (r == 0) rc |= scr_summary_set_file_compressed(s, r, name, CZ_STORED);
    }
    REQUIRE(rc == SCR_SUCCESS, "setters");
    CHECK(scr_summary_write(tap_path("cz-tree.scr"), s) == SCR_SUCCESS, "tree writer");
    check_same_bytes(tap_path("cz-tree.scr"), tap_data("records/summary-compressed.scr"));
    struct scr_summary_file f;
    CHECK(scr_summary_write_ranks(tap_path("cz-lists.scr"), d, 2, compressed_rank_files, &f) ==
              SCR_SUCCESS,
          "list writer");
    check_same_bytes(tap_path("cz-lists.scr"), tap_data("records/summary-compressed.scr"));
    scr_kvtree_delete(s);
    scr_dataset_delete(d);
}

static void test_compressed_reads_back_and_a_raw_file_has_none(void)
{
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(tap_data("records/summary-compressed.scr"), s) == SCR_SUCCESS,
            "read golden");
    uint64_t stored = 0, size = 0;
    CHECK(scr_summary_get_file_compressed(s, 0, "../../ckpt.7/rank_0.ckpt", &stored) ==
                  SCR_SUCCESS &&
              stored == CZ_STORED,
          "rank 0: COMPRESSED %llu", (unsigned long long)stored);
    CHECK(scr_summary_get_file_size(s, 0, "../../ckpt.7/rank_0.ckpt", &size) == SCR_SUCCESS &&
              size == cz_size[0],
          "rank 0: SIZE %llu is the uncompressed size", (unsigned long long)size);
    CHECK(scr_summary_get_file_compressed(s, 1, "../../ckpt.7/rank_1.ckpt", &stored) ==
              SCR_ERR_NOTFOUND,
          "rank 1's file is stored as written");
    scr_kvtree_delete(s);
}

static void edit_compressed_bad(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(scr_kvtree_get_kv(rank0(raw), "FILE", "../../ckpt.7/rank_0.ckpt"),
                            "COMPRESSED", "gzip");
}

static void test_a_compressed_size_that_is_no_number_is_refused(void)
{
    expect_refused("records/summary-compressed.scr", "cz-bad.scr", edit_compressed_bad,
                   "key RANK2FILE RANK 0 FILE ../../ckpt.7/rank_0.ckpt COMPRESSED holds 'gzip'");
}

static void test_complete_is_set_in_the_descriptor_and_in_scr31s_top_level_key(void)
{
    scr_kvtree *s = sample_summary();
    REQUIRE(s != NULL, "sample summary");
    CHECK(scr_summary_is_complete(s), "a summary that says nothing is complete");
    CHECK(scr_summary_set_complete(s, 0) == SCR_SUCCESS, "set 0: %s", scr_last_error());
    const scr_dataset *d = NULL;
    int complete = -1;
    CHECK(scr_summary_get_dataset(s, &d) == SCR_SUCCESS &&
              scr_dataset_get_complete(d, &complete) == SCR_SUCCESS && complete == 0,
          "the descriptor says COMPLETE %d", complete);
    CHECK(!scr_summary_is_complete(s), "COMPLETE 0 reads as complete");
    CHECK(scr_kvtree_get(s, "COMPLETE") == NULL,
          "a top-level COMPLETE appeared in a summary of this build");
    /* SCR 3.1 repeats COMPLETE at the top: both say the same */
    REQUIRE(scr_kvtree_util_set_int(s, "COMPLETE", 1) == SCR_SUCCESS &&
                scr_summary_set_complete(s, 1) == SCR_SUCCESS,
            "SCR 3.1 form");
    CHECK(scr_summary_is_complete(s), "COMPLETE 1 in both reads as incomplete");
    REQUIRE(scr_kvtree_util_set_int(s, "COMPLETE", 0) == SCR_SUCCESS, "top-level 0");
    CHECK(!scr_summary_is_complete(s), "a top-level COMPLETE 0 is not taken into account");
    CHECK(scr_summary_set_complete(s, 0) == SCR_SUCCESS &&
              scr_kvtree_util_get_int(s, "COMPLETE", &complete) == SCR_SUCCESS && complete == 0,
          "the top-level COMPLETE was left at %d", complete);
    scr_log_set_quiet(1);
    CHECK(scr_summary_set_complete(s, 2) == SCR_ERR_ARG, "COMPLETE 2 accepted");
    scr_kvtree *bare = scr_kvtree_new();
    CHECK(scr_summary_set_complete(bare, 0) == SCR_ERR_NOTFOUND,
          "a summary without a descriptor accepted COMPLETE");
    scr_log_set_quiet(0);
    scr_kvtree_delete(bare);
    scr_kvtree_delete(s);
}

int main(void)
{
    RUN(test_written_summary_matches_independent_golden);
    RUN(test_golden_summary_reads_back_through_getters);
    RUN(test_set_rank_gives_the_golden_bytes);
    RUN(test_write_ranks_gives_the_golden_bytes);
    RUN(test_write_ranks_matches_the_tree_writer);
    RUN(test_compressed_files_match_the_golden_in_both_writers);
    RUN(test_compressed_reads_back_and_a_raw_file_has_none);
    RUN(test_a_compressed_size_that_is_no_number_is_refused);
    RUN(test_version_5_reads_into_the_same_form);
    RUN(test_versions_outside_5_to_7_are_refused);
    RUN(test_missing_version_is_read_by_layout);
    RUN(test_damaged_values_are_refused_naming_key_and_text);
    RUN(test_missing_file_is_notfound_without_a_message);
    RUN(test_files_are_listed_sorted_and_removed);
    RUN(test_getters_tell_missing_from_wrong_type);
    RUN(test_setters_refuse_bad_arguments);
    RUN(test_write_refuses_a_summary_a_reader_would_refuse);
    RUN(test_complete_is_set_in_the_descriptor_and_in_scr31s_top_level_key);
    return tap_done();
}
