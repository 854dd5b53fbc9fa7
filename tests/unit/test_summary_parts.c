/* test_summary_parts.c — version 7 summaries: golden bytes of the top and its
 * parts, the merged tree a reader gets, one part alone, and each refusal. */
#include "tap.h"
#include "record_test.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "summary.h"
#include "util_log.h"

#include <unistd.h>

/* tests/data/records/summary-v7.scr names two parts of two ranks each,
 * which list what tests/data/records/summary.scr (version 6) lists. */
#define TOP "records/summary-v7.scr"
#define PART0 "records/summary-v7.0.scr"
#define PART1 "records/summary-v7.1.scr"
#define WHOLE "records/summary.scr"

/* The summary of the version 6 golden, as its reader gives it. */
static scr_kvtree *whole_summary(void)
{
    scr_kvtree *s = scr_kvtree_new();
    if (s != NULL && scr_summary_read(tap_data(WHOLE), s) != SCR_SUCCESS) {
        scr_kvtree_delete(s);
        return NULL;
    }
    return s;
}

/* What scr_summary_write_part asks for: each rank's files in the version 6
 * golden, given through the same lists the flush gives. */
struct from_tree {
    const scr_kvtree *summary;
    struct scr_summary_file files[4];
    const char **names;
};

static int rank_files_of_tree(void *ctx, int rank, int *out_expected,
                              const struct scr_summary_file **out_files, int *out_n)
{
    struct from_tree *t = ctx;
    int n = 0;
    free(t->names);
    t->names = NULL;
    int rc = scr_summary_list_files(t->summary, rank, &t->names, &n);
    if (rc != SCR_SUCCESS || n > 4) return SCR_FAILURE;
    for (int i = 0; i < n; i++) {
        struct scr_summary_file *f = &t->files[i];
        memset(f, 0, sizeof(*f));
        f->name = t->names[i];
        rc |= scr_summary_get_file_size(t->summary, rank, f->name, &f->size);
        f->has_crc = scr_summary_get_file_crc(t->summary, rank, f->name, &f->crc) == SCR_SUCCESS;
        rc |= scr_summary_get_file_nofetch(t->summary, rank, f->name, &f->nofetch);
    }
    rc |= scr_summary_get_expected_files(t->summary, rank, out_expected);
    *out_files = t->files;
    *out_n = n;
    return rc == SCR_SUCCESS ? SCR_SUCCESS : SCR_FAILURE;
}

/* Copies of the three golden files into the scratch directory as
 * <name>.scr, <name>.0.scr and <name>.1.scr, each changed by its edit (when
 * not NULL); returns the top's path. */
static const char *copy_parts(const char *name, void (*edit_top)(scr_kvtree *),
                              void (*edit0)(scr_kvtree *), void (*edit1)(scr_kvtree *))
{
    char file[128];
    snprintf(file, sizeof(file), "%s.0.scr", name);
    write_edited_golden(PART0, file, edit0);
    snprintf(file, sizeof(file), "%s.1.scr", name);
    write_edited_golden(PART1, file, edit1);
    snprintf(file, sizeof(file), "%s.scr", name);
    return write_edited_golden(TOP, file, edit_top);
}

static void test_top_and_parts_match_independent_goldens(void)
{
    scr_kvtree *s = whole_summary();
    REQUIRE(s != NULL, "read %s", WHOLE);
    const scr_dataset *d = NULL;
    REQUIRE(scr_summary_get_dataset(s, &d) == SCR_SUCCESS, "descriptor");
    const char *top = tap_path("written.scr");
    CHECK(scr_summary_write_top(top, d, 4, 2) == SCR_SUCCESS, "write top");
    check_same_bytes(top, tap_data(TOP));
    struct from_tree t = {.summary = s};
    for (int k = 0; k < 2; k++) {
        char *part = NULL;
        REQUIRE(scr_summary_part_path(top, k, &part) == SCR_SUCCESS, "part path");
        CHECK(strcmp(part, tap_path(k == 0 ? "written.0.scr" : "written.1.scr")) == 0, "named %s",
              part);
        CHECK(scr_summary_write_part(part, k, 2 * k, 2, rank_files_of_tree, &t) == SCR_SUCCESS,
              "write part %d", k);
        check_same_bytes(part, tap_data(k == 0 ? PART0 : PART1));
        free(part);
    }
    free(t.names);
    scr_kvtree_delete(s);
}

static void test_parts_read_into_the_tree_of_version_6(void)
{
    scr_kvtree *want = whole_summary(), *got = scr_kvtree_new();
    REQUIRE(want != NULL, "read %s", WHOLE);
    CHECK(scr_summary_read(tap_data(TOP), got) == SCR_SUCCESS, "read %s", TOP);
    CHECK(scr_kvtree_equal(got, want), "the parts read differ from the version 6 summary");
    /* written back in one file, it is the version 6 golden */
    const char *path = tap_path("merged.scr");
    CHECK(scr_summary_write(path, got) == SCR_SUCCESS, "write merged");
    check_same_bytes(path, tap_data(WHOLE));
    scr_kvtree_delete(got);
    scr_kvtree_delete(want);
}

static void test_one_part_reads_alone(void)
{
    scr_kvtree *want = whole_summary(), *got = scr_kvtree_new();
    REQUIRE(want != NULL, "read %s", WHOLE);
    CHECK(scr_summary_read_part(tap_data(PART1), 1, 2, 2, got) == SCR_SUCCESS, "read part 1");
    int *ranks = NULL, n = 0;
    CHECK(scr_summary_list_ranks(got, &ranks, &n) == SCR_SUCCESS && n == 2 && ranks[0] == 2 &&
              ranks[1] == 3,
          "ranks of part 1: %d", n);
    free(ranks);
    CHECK(scr_kvtree_equal(scr_kvtree_getf(got, "RANK2FILE RANK 3"),
                           scr_kvtree_getf(want, "RANK2FILE RANK 3")),
          "rank 3 differs");
    CHECK(scr_kvtree_get(got, "DSET") == NULL && scr_kvtree_get(got, "PART") == NULL,
          "a part holds only ranks");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_summary_read_part(tap_path("none.3.scr"), 3, 6, 2, got) == SCR_ERR_NOTFOUND,
          "a missing part alone");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_kvtree *s = scr_kvtree_new();
    CHECK(scr_summary_read_part(tap_data(PART1), 0, 0, 2, s) == SCR_ERR_FORMAT,
          "part 1 read as part 0");
    CHECK(scr_kvtree_size(s) == 0, "tree changed");
    scr_log_set_quiet(0);
    scr_kvtree_delete(s);
    scr_kvtree_delete(got);
    scr_kvtree_delete(want);
}

/* A top with edit_top, parts with edit0 and edit1, refused naming file. */
static void expect_refused(const char *name, void (*edit_top)(scr_kvtree *),
                           void (*edit0)(scr_kvtree *), void (*edit1)(scr_kvtree *),
                           const char *file, const char *want)
{
    const char *top = copy_parts(name, edit_top, edit0, edit1);
    REQUIRE(top != NULL, "%s: copies", name);
    char path[8192];
    snprintf(path, sizeof(path), "%s", top);
    scr_kvtree *s = scr_kvtree_new();
    int rc = quiet_read(scr_summary_read, path, s);
    check_refused(name, rc, tap_path(file), want);
    CHECK(scr_kvtree_size(s) == 0, "%s: tree changed", name);
    scr_kvtree_delete(s);
}

/* as the top's edit: the parts are written before it */
static void drop_part1(scr_kvtree *raw)
{
    (void)raw;
    unlink(tap_path("missing.1.scr"));
}
static void part_says_index_2(scr_kvtree *raw)
{
    scr_kvtree *part = scr_kvtree_get_kv(raw, "PART", "1");
    scr_kvtree *moved = scr_kvtree_dup(part);
    scr_kvtree_unset(raw, "PART");
    scr_kvtree_setf(raw, moved, "PART 2");
}
static void part_says_first_3(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_getf(raw, "PART 1"), "FIRST", 3);
}
static void part_says_version_6(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 6);
}
static void part_lists_rank_1(scr_kvtree *raw)
{
    scr_kvtree *rank2 = scr_kvtree_dup(scr_kvtree_getf(raw, "RANK2FILE RANK 2"));
    scr_kvtree_setf(raw, rank2, "RANK2FILE RANK 1");
}
static void part_lacks_rank_3(scr_kvtree *raw)
{
    scr_kvtree_unset_kv(scr_kvtree_get(raw, "RANK2FILE"), "RANK", "3");
}
static void part_damaged_rank(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_getf(raw, "RANK2FILE RANK 3"), "FILES", -1);
}
static void top_gap(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_getf(raw, "RANK2FILE PART 1"), "FIRST", 3);
    scr_kvtree_util_set_int(scr_kvtree_getf(raw, "RANK2FILE PART 1"), "RANKS", 1);
}
static void top_overlap(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_getf(raw, "RANK2FILE PART 1"), "FIRST", 1);
}
static void top_short(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(raw, "RANK2FILE"), "RANKS", 5);
}
static void top_three_parts(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(raw, "RANK2FILE"), "PARTS", 3);
}
static void top_lists_ranks(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "RANK2FILE RANK 0 FILES 0");
}

static void test_each_damage_of_the_parts_is_refused_naming_the_file(void)
{
    expect_refused("missing", drop_part1, NULL, NULL, "missing.scr",
                   "part 1 (ranks 2 to 3) is missing");
    expect_refused("index", NULL, NULL, part_says_index_2, "index.1.scr",
                   "holds part 2 of ranks 2 to 3, but the summary names it part 1");
    expect_refused("range", NULL, NULL, part_says_first_3, "range.1.scr",
                   "holds part 1 of ranks 3 to 4, but the summary names it part 1 of ranks 2 to 3");
    expect_refused("version", NULL, NULL, part_says_version_6, "version.1.scr",
                   "key VERSION holds '6', expected 7");
    expect_refused("outside", NULL, NULL, part_lists_rank_1, "outside.1.scr",
                   "lists rank 1, outside its part's ranks 2 to 3");
    expect_refused("lacks", NULL, NULL, part_lacks_rank_3, "lacks.1.scr",
                   "does not list rank 3 of its part (ranks 2 to 3)");
    expect_refused("damaged", NULL, NULL, part_damaged_rank, "damaged.1.scr",
                   "key RANK2FILE RANK 3 FILES holds '-1'");
    expect_refused("gap", top_gap, NULL, NULL, "gap.scr",
                   "part 1 holds ranks 3 to 3, expected ranks from 2 on");
    expect_refused("overlap", top_overlap, NULL, NULL, "overlap.scr",
                   "part 1 holds ranks 1 to 2, expected ranks from 2 on");
    expect_refused("short", top_short, NULL, NULL, "short.scr",
                   "the parts cover ranks 0 to 3, but RANK2FILE RANKS is 5");
    expect_refused("three", top_three_parts, NULL, NULL, "three.scr",
                   "RANK2FILE PARTS is 3 but part 2 is not listed");
    expect_refused("ranks", top_lists_ranks, NULL, NULL, "ranks.scr",
                   "key RANK2FILE holds 'RANK', expected RANKS, PARTS or PART");
}

static void test_the_top_alone_names_the_parts(void)
{
    scr_kvtree *top = scr_kvtree_new(), *whole = whole_summary();
    REQUIRE(whole != NULL, "read %s", WHOLE);
    int parts = -1, first = -1, count = -1;
    /* the parts are not read: one that is missing does not matter here */
    const char *path = copy_parts("toponly", NULL, NULL, NULL);
    REQUIRE(path != NULL, "copies");
    char copy[8192];
    snprintf(copy, sizeof(copy), "%s", path);
    unlink(tap_path("toponly.1.scr"));
    CHECK(scr_summary_read_top(copy, top, &parts) == SCR_SUCCESS && parts == 2, "%d parts", parts);
    CHECK(scr_summary_get_part(top, 1, &first, &count) == SCR_SUCCESS && first == 2 && count == 2,
          "part 1: ranks %d, %d of them", first, count);
    CHECK(scr_summary_get_part(top, 2, &first, &count) == SCR_ERR_NOTFOUND, "no part 2");
    const scr_dataset *d = NULL, *want = NULL;
    int ranks = 0;
    CHECK(scr_summary_get_dataset(top, &d) == SCR_SUCCESS &&
              scr_summary_get_dataset(whole, &want) == SCR_SUCCESS && scr_kvtree_equal(d, want),
          "descriptor");
    CHECK(scr_summary_get_ranks(top, &ranks) == SCR_SUCCESS && ranks == 4, "%d ranks", ranks);
    int *listed = NULL, n = -1;
    CHECK(scr_summary_list_ranks(top, &listed, &n) == SCR_SUCCESS && n == 0, "%d ranks listed", n);
    free(listed);
    /* a summary in one file is read whole */
    scr_kvtree *one = scr_kvtree_new();
    CHECK(scr_summary_read_top(tap_data(WHOLE), one, &parts) == SCR_SUCCESS && parts == 0,
          "%d parts in one file", parts);
    CHECK(scr_kvtree_equal(one, whole), "the whole summary differs");
    /* summary.scr itself is checked */
    scr_kvtree *bad = scr_kvtree_new();
    const char *gap = copy_parts("topgap", top_gap, NULL, NULL);
    REQUIRE(gap != NULL, "copies");
    snprintf(copy, sizeof(copy), "%s", gap);
    scr_log_set_quiet(1);
    CHECK(scr_summary_read_top(copy, bad, &parts) == SCR_ERR_FORMAT, "a gap in the parts");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(bad) == 0, "tree changed");
    scr_kvtree_delete(bad);
    scr_kvtree_delete(one);
    scr_kvtree_delete(whole);
    scr_kvtree_delete(top);
}

static void test_writers_refuse_bad_arguments(void)
{
    scr_kvtree *s = whole_summary();
    REQUIRE(s != NULL, "read %s", WHOLE);
    const scr_dataset *d = NULL;
    REQUIRE(scr_summary_get_dataset(s, &d) == SCR_SUCCESS, "descriptor");
    struct from_tree t = {.summary = s};
    char *part = NULL;
    int parts = 0;
    scr_log_set_quiet(1);
    CHECK(scr_summary_write_top(tap_path("bad.scr"), d, 4, 0) == SCR_ERR_ARG, "parts of 0");
    CHECK(scr_summary_write_top(tap_path("bad.scr"), d, 0, 2) == SCR_ERR_ARG, "no ranks");
    CHECK(scr_summary_write_part(tap_path("bad.0.scr"), 0, 0, 0, rank_files_of_tree, &t) ==
              SCR_ERR_ARG,
          "a part of no ranks");
    CHECK(scr_summary_write_part(tap_path("bad.0.scr"), 0, 2, 3, rank_files_of_tree, &t) ==
              SCR_FAILURE,
          "a rank the lists cannot give stops the writing");
    CHECK(scr_summary_part_path("summary.scr", -1, &part) == SCR_ERR_ARG, "part -1");
    scr_log_set_quiet(0);
    CHECK(access(tap_path("bad.scr"), F_OK) != 0 && access(tap_path("bad.0.scr"), F_OK) != 0,
          "nothing written");
    CHECK(scr_summary_parts_of(2049, 1024, &parts) == SCR_SUCCESS && parts == 3, "%d parts", parts);
    CHECK(scr_summary_parts_of(1024, 1024, &parts) == SCR_SUCCESS && parts == 1, "%d parts", parts);
    free(t.names);
    scr_kvtree_delete(s);
}

int main(void)
{
    RUN(test_top_and_parts_match_independent_goldens);
    RUN(test_parts_read_into_the_tree_of_version_6);
    RUN(test_one_part_reads_alone);
    RUN(test_each_damage_of_the_parts_is_refused_naming_the_file);
    RUN(test_the_top_alone_names_the_parts);
    RUN(test_writers_refuse_bad_arguments);
    return tap_done();
}
