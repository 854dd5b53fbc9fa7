/* test_filemap.c — the cache filemap: golden bytes, index in step, queries, damage. */
#include "tap.h"
#include "record_test.h"

#include "filemap.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#define CACHE5 "/dev/shm/user1/scr.112573/scr.dataset.5/"
#define CACHE6 "/dev/shm/user1/scr.112573/scr.dataset.6/"

static scr_meta *meta_app(void)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, "rank_2.ckpt");
    scr_meta_set_filetype(m, SCR_META_TYPE_FULL);
    scr_meta_set_complete(m, 1);
    scr_meta_set_filesize(m, 524296);
    scr_meta_set_crc32(m, 0x738bb68fu);
    scr_meta_set_rank(m, 2);
    scr_meta_set_ranks(m, 4);
    scr_meta_set_checkpoint(m, 6);
    scr_meta_set_origname(m, "rank_2.ckpt");
    scr_meta_set_origpath(m, "/p/lscratchb/user1/simulation123/ckpt.6");
    scr_meta_set_orig(m, "ckpt.6/rank_2.ckpt");
    return m;
}

static scr_meta *meta_xor(void)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, "3_of_4_in_0.xor");
    scr_meta_set_filetype(m, SCR_META_TYPE_XOR);
    scr_meta_set_complete(m, 1);
    scr_meta_set_filesize(m, 175693);
    scr_meta_set_crc32(m, 0x2ef519a1u);
    scr_meta_set_rank(m, 2);
    scr_meta_set_ranks(m, 4);
    scr_meta_set_checkpoint(m, 6);
    return m;
}

static scr_dataset *dataset6(void)
{
    scr_dataset *d = scr_dataset_new();
    scr_dataset_set_id(d, 6);
    scr_dataset_set_name(d, "scr.dataset.6");
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    scr_dataset_set_created(d, 1312850690668536LL);
    scr_dataset_set_username(d, "user1");
    scr_dataset_set_jobname(d, "simulation123");
    scr_dataset_set_jobid(d, "112573");
    scr_dataset_set_ckpt(d, 6);
    scr_dataset_set_size(d, 2097182);
    scr_dataset_set_files(d, 4);
    scr_dataset_set_complete(d, 1);
    return d;
}

/* A redundancy descriptor as the redundancy layer might store it. */
static scr_kvtree *reddesc(int group_rank)
{
    scr_kvtree *r = scr_kvtree_new();
    scr_kvtree_util_set_int(r, "ENABLED", 1);
    scr_kvtree_util_set_int(r, "INDEX", 0);
    scr_kvtree_util_set_int(r, "INTERVAL", 1);
    scr_kvtree_util_set_str(r, "TYPE", "XOR");
    scr_kvtree_util_set_int(r, "SET_SIZE", 8);
    scr_kvtree_util_set_int(r, "GROUPS", 1);
    scr_kvtree_util_set_int(r, "GROUP_ID", 0);
    scr_kvtree_util_set_int(r, "GROUP_SIZE", 4);
    scr_kvtree_util_set_int(r, "GROUP_RANK", group_rank);
    return r;
}

/* The map of tests/data/records/filemap.json, built through the setters in an
 * order unlike the file's, so that the canonical order shows. */
static scr_filemap *sample_filemap(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_meta *app = meta_app(), *xor = meta_xor();
    scr_dataset *d6 = dataset6();
    scr_kvtree *red2 = reddesc(2), *red3 = reddesc(3);
    int rc = scr_filemap_set_tag(map, 6, 3, "PARTNER", "node7");
    rc |= scr_filemap_set_reddesc(map, 6, 3, red3);
    rc |= scr_filemap_add_file(map, 6, 2, CACHE6 "rank_2.ckpt");
    rc |= scr_filemap_set_meta(map, 6, 2, CACHE6 "rank_2.ckpt", app);
    rc |= scr_filemap_set_reddesc(map, 6, 2, red2);
    rc |= scr_filemap_set_meta(map, 6, 2, CACHE6 "3_of_4_in_0.xor", xor);
    rc |= scr_filemap_set_dataset(map, 6, 2, d6);
    rc |= scr_filemap_set_expected_files(map, 6, 2, 2);
    rc |= scr_filemap_add_file(map, 5, 2, CACHE5 "viz_2.dat");
    rc |= scr_filemap_set_expected_files(map, 5, 2, 1);
    scr_meta_delete(app);
    scr_meta_delete(xor);
    scr_dataset_delete(d6);
    scr_kvtree_delete(red2);
    scr_kvtree_delete(red3);
    if (rc != SCR_SUCCESS) {
        scr_filemap_delete(map);
        return NULL;
    }
    return map;
}

static void test_written_filemap_matches_independent_golden(void)
{
    scr_filemap *map = sample_filemap();
    REQUIRE(map != NULL, "setters failed");
    const char *path = tap_path("filemap_0.scrinfo");
    CHECK(scr_filemap_write(path, map) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("records/filemap.scr"));
    CHECK(scr_kvtree_get(map, "VERSION") == NULL, "VERSION leaked into the map");
    scr_filemap_delete(map);
}

static void test_golden_filemap_reads_back_through_getters(void)
{
    scr_filemap *map = scr_filemap_new();
    REQUIRE(scr_filemap_read(tap_data("records/filemap.scr"), map) == SCR_SUCCESS, "read golden");
    CHECK(scr_kvtree_get(map, "VERSION") == NULL, "VERSION kept in the map");
    int n = -1;
    CHECK(scr_filemap_num_datasets(map) == 2, "datasets %d", scr_filemap_num_datasets(map));
    CHECK(scr_filemap_num_ranks(map) == 2, "ranks %d", scr_filemap_num_ranks(map));
    CHECK(scr_filemap_num_ranks_by_dataset(map, 6) == 2, "ranks of 6");
    CHECK(scr_filemap_num_ranks_by_dataset(map, 5) == 1, "ranks of 5");
    CHECK(scr_filemap_num_files(map, 6, 2) == 2, "files of rank 2 in 6");
    CHECK(scr_filemap_num_files(map, 6, 3) == 0, "files of rank 3 in 6");
    CHECK(scr_filemap_get_expected_files(map, 6, 2, &n) == 0 && n == 2, "expected %d", n);
    CHECK(scr_filemap_get_expected_files(map, 5, 2, &n) == 0 && n == 1, "expected %d", n);
    CHECK(scr_filemap_get_expected_files(map, 6, 3, &n) == SCR_ERR_NOTFOUND, "no FILES for 3");

    const scr_meta *meta = NULL;
    uint64_t size = 0;
    const char *s = NULL;
    CHECK(scr_filemap_get_meta(map, 6, 2, CACHE6 "rank_2.ckpt", &meta) == 0 &&
              scr_meta_get_filesize(meta, &size) == 0 && size == 524296,
          "meta of rank_2.ckpt");
    CHECK(scr_meta_check_crc32(meta, 0x738bb68fu) == SCR_SUCCESS, "crc of rank_2.ckpt");
    CHECK(scr_filemap_get_meta(map, 6, 2, CACHE6 "3_of_4_in_0.xor", &meta) == 0 &&
              scr_meta_check_filetype(meta, "XOR") == SCR_SUCCESS,
          "meta of the XOR file");
    CHECK(scr_filemap_get_meta(map, 5, 2, CACHE5 "viz_2.dat", &meta) == SCR_ERR_NOTFOUND,
          "viz_2.dat has no meta yet");
    CHECK(scr_filemap_have_file(map, 5, 2, CACHE5 "viz_2.dat"), "viz_2.dat listed");

    const scr_dataset *desc = NULL;
    int id = 0;
    CHECK(scr_filemap_get_dataset(map, 6, 2, &desc) == 0 && scr_dataset_get_id(desc, &id) == 0 &&
              id == 6,
          "descriptor of 6");
    CHECK(scr_filemap_get_dataset(map, 5, 2, &desc) == SCR_ERR_NOTFOUND, "no descriptor of 5");
    const scr_kvtree *red = NULL;
    CHECK(scr_filemap_get_reddesc(map, 6, 3, &red) == 0 &&
              scr_kvtree_util_get_int(red, "GROUP_RANK", &n) == 0 && n == 3,
          "reddesc of 3");
    CHECK(scr_filemap_get_tag(map, 6, 3, "PARTNER", &s) == 0 && strcmp(s, "node7") == 0,
          "PARTNER tag");

    scr_filemap *want = sample_filemap();
    CHECK(scr_kvtree_equal(map, want), "golden differs from the map the setters build");
    scr_filemap_delete(want);
    scr_filemap_delete(map);
}

static void test_write_order_does_not_depend_on_call_order(void)
{
    scr_filemap *a = scr_filemap_new(), *b = scr_filemap_new();
    const char *names[] = {"/c/b", "/c/a", "/c/10", "/c/9"};
    for (int i = 0; i < 4; i++) {
        scr_filemap_add_file(a, 10 - i, i, names[i]);
        scr_filemap_add_file(a, 2, 11 - i, names[i]);
        scr_filemap_add_file(b, 2, 8 + i, names[3 - i]);
        scr_filemap_add_file(b, 7 + i, 3 - i, names[3 - i]);
    }
    const char *pa = tap_path("order-a.scrinfo"), *pb = tap_path("order-b.scrinfo");
    CHECK(scr_filemap_write(pa, a) == SCR_SUCCESS, "write a");
    CHECK(scr_filemap_write(pb, b) == SCR_SUCCESS, "write b");
    check_same_bytes(pa, pb);
    scr_filemap_delete(a);
    scr_filemap_delete(b);
}

static void test_missing_file_is_notfound_without_a_message(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_clear_last_error();
    CHECK(scr_filemap_read(tap_path("no-such-filemap.scrinfo"), map) == SCR_ERR_NOTFOUND, "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    CHECK(scr_kvtree_size(map) == 0, "map changed");
    scr_filemap_delete(map);
}

/* The golden tree as raw kvtree, edited by edit, written, and read back by
 * the module: expect SCR_ERR_FORMAT, a message with the file and want1 (and
 * want2), and the caller's map unchanged. */
static void expect_refused(const char *name, void (*edit)(scr_kvtree *), const char *want1,
                           const char *want2)
{
    const char *path = write_edited_golden("records/filemap.scr", name, edit);
    if (path == NULL) return;

    scr_filemap *map = scr_filemap_new();
    scr_filemap_add_file(map, 1, 0, "/keep/me");
    scr_kvtree *before = scr_kvtree_dup(map);
    int rc = quiet_read(scr_filemap_read, path, map);
    check_refused(name, rc, path, want1);
    if (want2) check_error_has(name, want2);
    CHECK(scr_kvtree_equal(map, before), "%s: map changed", name);
    scr_kvtree_delete(before);
    scr_filemap_delete(map);
}

static scr_kvtree *entry(scr_kvtree *raw, int rank, int id)
{
    return scr_kvtree_getf(raw, "RANK %d DSET %d", rank, id);
}

static scr_kvtree *meta_of_rank_2(scr_kvtree *raw)
{
    return scr_kvtree_get(scr_kvtree_get_kv(entry(raw, 2, 6), "FILE", CACHE6 "rank_2.ckpt"),
                          "META");
}

static void edit_newer_version(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 2);
}
static void edit_bad_version(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(raw, "VERSION", "v1");
}
static void edit_dset_not_id(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "DSET", "x");
}
static void edit_rank_padded(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "RANK", "02");
}
static void edit_files_text(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(entry(raw, 2, 5), "FILES", "many");
}
static void edit_meta_size(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(meta_of_rank_2(raw), "SIZE", "big");
}
static void edit_meta_type(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(meta_of_rank_2(raw), "TYPE", "MIRROR");
}
static void edit_desc_flags(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(entry(raw, 2, 6), "DSETDESC"), "FLAGS", 9);
}
static void edit_desc_other_id(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(scr_kvtree_get(entry(raw, 2, 6), "DSETDESC"), "ID", 7);
}
static void edit_relative_path(scr_kvtree *raw)
{
    scr_kvtree_set_kv(entry(raw, 2, 5), "FILE", "rel/x");
}
static void edit_two_tag_values(scr_kvtree *raw)
{
    scr_kvtree_set_kv(entry(raw, 3, 6), "PARTNER", "node8");
}
static void edit_index_without_data(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "DSET 5 RANK 3");
}
static void edit_data_without_index(scr_kvtree *raw)
{
    scr_kvtree_unset_kv(raw, "DSET", "5");
}
static void edit_unknown_top_key(scr_kvtree *raw)
{
    scr_kvtree_set_kv(raw, "CKPT", "6");
}
static void edit_file_junk(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "RANK 2 DSET 5 FILE %s OTHER", CACHE5 "viz_2.dat");
}
static void edit_index_junk(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "DSET 5 NODE x");
}
static void edit_index_rank_junk(scr_kvtree *raw)
{
    scr_kvtree_setf(raw, NULL, "DSET 5 RANK 2 X");
}

static void test_newer_or_damaged_version_is_refused(void)
{
    expect_refused("v2.scrinfo", edit_newer_version, "version 2", NULL);
    expect_refused("badversion.scrinfo", edit_bad_version, "key VERSION holds 'v1'", NULL);
}

static void test_damaged_values_are_refused_naming_key_and_text(void)
{
    expect_refused("dset-x.scrinfo", edit_dset_not_id, "key DSET holds 'x'", "dataset ids");
    expect_refused("rank-02.scrinfo", edit_rank_padded, "key RANK holds '02'", "ranks");
    expect_refused("files.scrinfo", edit_files_text, "key RANK 2 DSET 5 FILES holds 'many'",
                   "number of files");
    expect_refused("size.scrinfo", edit_meta_size,
                   "key RANK 2 DSET 6 FILE " CACHE6 "rank_2.ckpt META SIZE holds 'big'",
                   "size in bytes");
    expect_refused("type.scrinfo", edit_meta_type, "META TYPE holds 'MIRROR'", "FULL, XOR");
    expect_refused("flags.scrinfo", edit_desc_flags, "key RANK 2 DSET 6 DSETDESC FLAGS holds '9'",
                   NULL);
    expect_refused("descid.scrinfo", edit_desc_other_id, "key RANK 2 DSET 6 DSETDESC ID holds '7'",
                   "6, the id of its entry");
    expect_refused("relative.scrinfo", edit_relative_path, "key RANK 2 DSET 5 FILE holds 'rel/x'",
                   "absolute");
    expect_refused("tag.scrinfo", edit_two_tag_values,
                   "key RANK 3 DSET 6 PARTNER holds 'node7, node8'", "single tag value");
    expect_refused("filejunk.scrinfo", edit_file_junk,
                   "key RANK 2 DSET 5 FILE " CACHE5 "viz_2.dat holds 'OTHER'", "META");
    expect_refused("indexjunk.scrinfo", edit_index_junk, "key DSET 5 holds 'NODE'", NULL);
    expect_refused("indexrank.scrinfo", edit_index_rank_junk, "key DSET 5 RANK 2 holds 'X'",
                   "nothing");
    expect_refused("top.scrinfo", edit_unknown_top_key, "unexpected key 'CKPT'", NULL);
}

static void test_index_out_of_step_with_data_is_refused(void)
{
    expect_refused("index-extra.scrinfo", edit_index_without_data,
                   "index entry DSET 5 RANK 3 has no data", NULL);
    expect_refused("index-missing.scrinfo", edit_data_without_index,
                   "RANK 2 DSET 5 is missing from the index", NULL);
}

static void test_missing_version_reads_as_the_first_version(void)
{
    scr_kvtree *raw = scr_kvtree_new();
    REQUIRE(scr_kvtree_read_file(tap_data("records/filemap.scr"), raw) == SCR_SUCCESS, "golden");
    scr_kvtree_unset(raw, "VERSION");
    const char *path = tap_path("noversion.scrinfo");
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "write");
    scr_filemap *map = scr_filemap_new();
    CHECK(scr_filemap_read(path, map) == SCR_SUCCESS, "read");
    CHECK(scr_kvtree_equal(map, raw), "contents differ");
    scr_filemap_delete(map);
    scr_kvtree_delete(raw);
}

static void test_damaged_file_is_refused(void)
{
    const char *path = tap_path("garbage.scrinfo");
    REQUIRE(scr_write_atomic(path, "not a hash file", 15) == SCR_SUCCESS, "write");
    scr_filemap *map = scr_filemap_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_filemap_read(path, map) == SCR_ERR_FORMAT, "garbage accepted");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), path) != NULL, "'%s'", scr_last_error());
    scr_filemap_delete(map);
}

static void test_read_merges_into_the_map(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_filemap_add_file(map, 9, 0, "/c/zero");
    REQUIRE(scr_filemap_read(tap_data("records/filemap.scr"), map) == SCR_SUCCESS, "read");
    CHECK(scr_filemap_num_datasets(map) == 3, "datasets %d", scr_filemap_num_datasets(map));
    CHECK(scr_filemap_have_file(map, 9, 0, "/c/zero"), "own entry lost");
    CHECK(scr_filemap_have_file(map, 6, 2, CACHE6 "rank_2.ckpt"), "file's entry missing");
    scr_filemap_delete(map);
}

static void test_index_follows_adds_and_removes(void)
{
    scr_filemap *map = scr_filemap_new();
    CHECK(scr_filemap_add_file(map, 3, 1, "/c/a") == 0, "add");
    CHECK(scr_filemap_add_file(map, 3, 1, "/c/a") == 0, "add again");
    CHECK(scr_filemap_num_files(map, 3, 1) == 1, "added twice");
    CHECK(scr_kvtree_getf(map, "DSET 3 RANK 1") != NULL, "index entry");
    scr_filemap_add_file(map, 3, 1, "/c/b");
    CHECK(scr_filemap_remove_file(map, 3, 1, "/c/a") == 0, "remove");
    CHECK(scr_filemap_have_rank_by_dataset(map, 3, 1), "entry kept while it has a file");
    CHECK(scr_filemap_remove_file(map, 3, 1, "/c/b") == 0, "remove last");
    CHECK(!scr_filemap_have_rank_by_dataset(map, 3, 1), "empty entry kept");
    CHECK(scr_kvtree_size(map) == 0, "levels left behind: %d keys", scr_kvtree_size(map));
    CHECK(scr_filemap_remove_file(map, 3, 1, "/c/none") == 0, "remove absent");

    scr_filemap_add_file(map, 4, 1, "/c/x");
    scr_filemap_set_expected_files(map, 4, 1, 1);
    scr_filemap_remove_file(map, 4, 1, "/c/x");
    CHECK(scr_filemap_have_rank_by_dataset(map, 4, 1), "entry with FILES dropped");
    scr_filemap_unset_expected_files(map, 4, 1);
    CHECK(scr_kvtree_size(map) == 0, "entry emptied by unset stays");

    scr_filemap_set_tag(map, 4, 1, "T", "v");
    scr_filemap_unset_tag(map, 4, 1, "T");
    CHECK(scr_kvtree_size(map) == 0, "entry emptied by unset_tag stays");
    scr_dataset *d = scr_dataset_new();
    scr_filemap_set_dataset(map, 4, 1, d);
    scr_filemap_unset_dataset(map, 4, 1);
    scr_filemap_set_reddesc(map, 4, 1, d);
    scr_filemap_unset_reddesc(map, 4, 1);
    CHECK(scr_kvtree_size(map) == 0, "entry emptied by unset of a descriptor stays");
    scr_dataset_delete(d);
    scr_filemap_delete(map);
}

static void test_remove_dataset_rank_and_rank_of_dataset(void)
{
    scr_filemap *map = sample_filemap();
    REQUIRE(map != NULL, "setup");
    CHECK(scr_filemap_remove_rank_by_dataset(map, 6, 3) == 0, "remove 3 from 6");
    CHECK(!scr_filemap_have_rank(map, 3) && scr_filemap_num_ranks_by_dataset(map, 6) == 1,
          "rank 3 left");
    CHECK(scr_filemap_remove_dataset(map, 6) == 0, "remove 6");
    CHECK(scr_filemap_num_datasets(map) == 1 && !scr_filemap_have_rank_by_dataset(map, 6, 2),
          "dataset 6 left");
    CHECK(scr_filemap_have_rank_by_dataset(map, 5, 2), "dataset 5 lost");
    CHECK(scr_filemap_remove_rank(map, 2) == 0, "remove rank 2");
    CHECK(scr_kvtree_size(map) == 0, "%d keys left", scr_kvtree_size(map));

    map = (scr_filemap_delete(map), sample_filemap());
    CHECK(scr_filemap_remove_rank(map, 2) == 0, "remove rank 2");
    CHECK(scr_filemap_num_datasets(map) == 1 && scr_filemap_have_rank_by_dataset(map, 6, 3),
          "rank 3 of dataset 6 lost");
    CHECK(scr_kvtree_getf(map, "DSET 5") == NULL, "dataset 5 left in the index");
    CHECK(scr_filemap_remove_dataset(map, 42) == 0 && scr_filemap_remove_rank(map, 42) == 0,
          "removing what is absent");
    scr_filemap_delete(map);
}

static void test_extract_rank_moves_its_entries(void)
{
    scr_filemap *map = sample_filemap();
    scr_filemap *out = NULL;
    REQUIRE(map != NULL, "setup");
    REQUIRE(scr_filemap_extract_rank(map, 2, &out) == 0, "extract");
    CHECK(!scr_filemap_have_rank(map, 2), "rank 2 still in the source");
    CHECK(scr_filemap_have_rank(map, 3), "rank 3 lost");
    CHECK(scr_filemap_num_datasets(out) == 2 && scr_filemap_num_ranks(out) == 1, "extracted");
    CHECK(scr_filemap_num_files(out, 6, 2) == 2 && scr_filemap_num_files(out, 5, 2) == 1,
          "files moved");
    CHECK(scr_filemap_write(tap_path("extract.scrinfo"), out) == SCR_SUCCESS,
          "extracted map is not valid");
    CHECK(scr_filemap_write(tap_path("rest.scrinfo"), map) == SCR_SUCCESS, "rest is not valid");
    scr_filemap_delete(out);
    CHECK(scr_filemap_extract_rank(map, 8, &out) == 0 && scr_kvtree_size(out) == 0,
          "extracting an absent rank");
    scr_filemap_delete(out);
    scr_filemap_delete(map);
}

static void test_counts_extremes_and_membership(void)
{
    scr_filemap *map = scr_filemap_new();
    int id = -1;
    CHECK(scr_filemap_latest_dataset(map, &id) == SCR_ERR_NOTFOUND, "latest of empty");
    CHECK(scr_filemap_oldest_dataset(map, &id) == SCR_ERR_NOTFOUND, "oldest of empty");
    CHECK(scr_filemap_num_datasets(NULL) == 0 && scr_filemap_num_files(map, 1, 0) == 0, "zeros");
    scr_filemap_add_file(map, 12, 0, "/c/a");
    scr_filemap_add_file(map, 3, 5, "/c/b");
    scr_filemap_add_file(map, 9, 5, "/c/c");
    CHECK(scr_filemap_latest_dataset(map, &id) == 0 && id == 12, "latest %d", id);
    CHECK(scr_filemap_oldest_dataset(map, &id) == 0 && id == 3, "oldest %d", id);
    CHECK(scr_filemap_have_rank(map, 5) && !scr_filemap_have_rank(map, 1), "have rank");
    CHECK(scr_filemap_have_rank_by_dataset(map, 9, 5) &&
              !scr_filemap_have_rank_by_dataset(map, 9, 0),
          "have rank by dataset");
    CHECK(!scr_filemap_have_file(map, 9, 5, NULL), "NULL file");
    scr_kvtree_set_kv(map, "DSET", "bad");
    CHECK(scr_filemap_latest_dataset(map, &id) == SCR_ERR_TYPE, "damaged key");
    CHECK(scr_filemap_latest_dataset(map, NULL) == SCR_ERR_ARG, "NULL result");
    scr_filemap_delete(map);
}

static void test_expected_files_are_typed(void)
{
    scr_filemap *map = scr_filemap_new();
    int n = -1;
    CHECK(scr_filemap_set_expected_files(map, 2, 0, 0) == 0 &&
              scr_filemap_get_expected_files(map, 2, 0, &n) == 0 && n == 0,
          "zero files");
    scr_kvtree_util_set_int(scr_kvtree_getf(map, "RANK 0 DSET 2"), "FILES", -3);
    CHECK(scr_filemap_get_expected_files(map, 2, 0, &n) == SCR_ERR_TYPE, "negative");
    CHECK(scr_filemap_get_expected_files(map, 2, 0, NULL) == SCR_ERR_ARG, "NULL result");
    scr_filemap_delete(map);
}

static void test_lists_are_sorted_and_iterators_see_everything(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_filemap_add_file(map, 10, 4, "/c/b");
    scr_filemap_add_file(map, 2, 11, "/c/x");
    scr_filemap_add_file(map, 10, 4, "/c/a");
    scr_filemap_add_file(map, 10, 0, "/c/z");
    int *list = NULL, count = -1;
    REQUIRE(scr_filemap_list_datasets(map, &list, &count) == 0, "list datasets");
    CHECK(count == 2 && list[0] == 2 && list[1] == 10, "datasets in order");
    free(list);
    REQUIRE(scr_filemap_list_ranks(map, &list, &count) == 0, "list ranks");
    CHECK(count == 3 && list[0] == 0 && list[1] == 4 && list[2] == 11, "ranks in order");
    free(list);
    REQUIRE(scr_filemap_list_ranks_by_dataset(map, 10, &list, &count) == 0, "ranks of 10");
    CHECK(count == 2 && list[0] == 0 && list[1] == 4, "ranks of 10 in order");
    free(list);
    CHECK(scr_filemap_list_ranks_by_dataset(map, 99, &list, &count) == 0 && list == NULL &&
              count == 0,
          "ranks of an absent dataset");
    const char **files = NULL;
    REQUIRE(scr_filemap_list_files(map, 10, 4, &files, &count) == 0, "files");
    CHECK(count == 2 && strcmp(files[0], "/c/a") == 0 && strcmp(files[1], "/c/b") == 0,
          "files in order");
    free(files);

    int seen = 0;
    for (scr_kvtree_elem *e = scr_filemap_first_dataset(map); e; e = scr_kvtree_elem_next(e))
        seen++;
    CHECK(seen == 2, "datasets iterated %d", seen);
    seen = 0;
    for (scr_kvtree_elem *e = scr_filemap_first_rank(map); e; e = scr_kvtree_elem_next(e)) seen++;
    CHECK(seen == 3, "ranks iterated %d", seen);
    seen = 0;
    for (scr_kvtree_elem *e = scr_filemap_first_rank_by_dataset(map, 10); e;
         e = scr_kvtree_elem_next(e))
        seen++;
    CHECK(seen == 2, "ranks of 10 iterated %d", seen);
    seen = 0;
    for (scr_kvtree_elem *e = scr_filemap_first_file(map, 10, 4); e; e = scr_kvtree_elem_next(e))
        seen += strncmp(scr_kvtree_elem_key(e), "/c/", 3) == 0;
    CHECK(seen == 2, "files iterated %d", seen);

    scr_kvtree_set_kv(map, "RANK", "r");
    CHECK(scr_filemap_list_ranks(map, &list, &count) == SCR_ERR_TYPE, "damaged rank key");
    scr_filemap_delete(map);
}

static void test_descriptors_and_meta_are_stored_as_copies(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_dataset *d = dataset6();
    scr_meta *m = meta_xor();
    CHECK(scr_filemap_set_dataset(map, 6, 1, d) == 0, "set dataset");
    CHECK(scr_filemap_set_meta(map, 6, 1, "/c/x.xor", m) == 0, "set meta");
    CHECK(scr_filemap_have_file(map, 6, 1, "/c/x.xor"), "set_meta lists the file");
    scr_dataset_set_id(d, 99);
    scr_meta_set_rank(m, 99);
    const scr_dataset *got_d = NULL;
    const scr_meta *got_m = NULL;
    int v = 0;
    CHECK(scr_filemap_get_dataset(map, 6, 1, &got_d) == 0 && scr_dataset_get_id(got_d, &v) == 0 &&
              v == 6,
          "stored descriptor changed with the caller's");
    CHECK(scr_filemap_get_meta(map, 6, 1, "/c/x.xor", &got_m) == 0 &&
              scr_meta_check_rank(got_m, 2) == SCR_SUCCESS,
          "stored meta changed with the caller's");
    CHECK(scr_filemap_unset_meta(map, 6, 1, "/c/x.xor") == 0, "unset meta");
    CHECK(scr_filemap_get_meta(map, 6, 1, "/c/x.xor", &got_m) == SCR_ERR_NOTFOUND, "meta gone");
    CHECK(scr_filemap_have_file(map, 6, 1, "/c/x.xor"), "unset_meta unlisted the file");
    CHECK(scr_filemap_get_meta(map, 6, 1, NULL, &got_m) == SCR_ERR_ARG, "NULL file");
    CHECK(scr_filemap_get_reddesc(map, 6, 1, NULL) == SCR_ERR_ARG, "NULL result");
    scr_dataset_delete(d);
    scr_meta_delete(m);
    scr_filemap_delete(map);
}

static void test_tags_cannot_shadow_filemap_keys(void)
{
    scr_filemap *map = scr_filemap_new();
    const char *v = NULL;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_filemap_set_tag(map, 1, 0, "FILES", "3") == SCR_ERR_ARG, "FILES as a tag");
    CHECK(strstr(scr_last_error(), "'FILES' cannot be a tag") != NULL, "'%s'", scr_last_error());
    CHECK(scr_filemap_set_tag(map, 1, 0, "REDDESC", "x") == SCR_ERR_ARG, "REDDESC as a tag");
    CHECK(scr_filemap_set_tag(map, 1, 0, "", "x") == SCR_ERR_ARG, "empty tag");
    CHECK(scr_filemap_set_tag(map, 1, 0, "T", "") == SCR_ERR_ARG, "empty value");
    CHECK(scr_filemap_unset_tag(map, 1, 0, "FILE") == SCR_ERR_ARG, "unset FILE as a tag");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(map) == 0, "a refused tag changed the map");
    CHECK(scr_filemap_get_tag(map, 1, 0, "DSETDESC", &v) == SCR_ERR_ARG, "get a reserved key");
    CHECK(scr_filemap_set_tag(map, 1, 0, "PARTNER", "n1") == 0 &&
              scr_filemap_set_tag(map, 1, 0, "PARTNER", "n2") == 0,
          "set twice");
    CHECK(scr_filemap_get_tag(map, 1, 0, "PARTNER", &v) == 0 && strcmp(v, "n2") == 0,
          "replaced value");
    CHECK(scr_filemap_get_tag(map, 1, 0, "OTHER", &v) == SCR_ERR_NOTFOUND, "absent tag");
    scr_filemap_delete(map);
}

static void test_setters_refuse_bad_arguments(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_dataset *d = scr_dataset_new();
    scr_filemap *out = NULL;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_filemap_add_file(map, 0, 0, "/c/a") == SCR_ERR_ARG, "dataset 0");
    CHECK(strstr(scr_last_error(), "dataset 0 rank 0") != NULL, "'%s'", scr_last_error());
    CHECK(scr_filemap_add_file(map, 1, -1, "/c/a") == SCR_ERR_ARG, "rank -1");
    CHECK(scr_filemap_add_file(map, 1, 0, "") == SCR_ERR_ARG, "empty file");
    CHECK(scr_filemap_add_file(NULL, 1, 0, "/c/a") == SCR_ERR_ARG, "NULL map");
    CHECK(scr_filemap_remove_file(map, 1, 0, NULL) == SCR_ERR_ARG, "remove NULL file");
    CHECK(scr_filemap_set_expected_files(map, 1, 0, -1) == SCR_ERR_ARG, "-1 files");
    CHECK(scr_filemap_set_dataset(map, 1, 0, NULL) == SCR_ERR_ARG, "NULL descriptor");
    CHECK(scr_filemap_set_reddesc(map, -1, 0, d) == SCR_ERR_ARG, "dataset -1");
    CHECK(scr_filemap_set_meta(map, 1, 0, "/c/a", NULL) == SCR_ERR_ARG, "NULL meta");
    CHECK(scr_filemap_unset_meta(map, 1, 0, "") == SCR_ERR_ARG, "unset meta of empty name");
    CHECK(scr_filemap_remove_dataset(map, 0) == SCR_ERR_ARG, "remove dataset 0");
    CHECK(scr_filemap_remove_rank(map, -2) == SCR_ERR_ARG, "remove rank -2");
    CHECK(scr_filemap_remove_rank_by_dataset(map, 0, 1) == SCR_ERR_ARG, "remove 0/1");
    CHECK(scr_filemap_extract_rank(map, -1, &out) == SCR_ERR_ARG, "extract -1");
    CHECK(scr_filemap_extract_rank(map, 1, NULL) == SCR_ERR_ARG, "extract to NULL");
    CHECK(scr_filemap_unset_expected_files(map, 0, 0) == SCR_ERR_ARG, "unset FILES of 0");
    CHECK(scr_filemap_unset_dataset(map, 1, -1) == SCR_ERR_ARG, "unset descriptor of -1");
    CHECK(scr_filemap_read(NULL, map) == SCR_ERR_ARG, "read NULL path");
    CHECK(scr_filemap_write(NULL, map) == SCR_ERR_ARG, "write NULL path");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(map) == 0, "a refused call changed the map");
    scr_dataset_delete(d);
    scr_filemap_delete(map);
}

static void test_merge_and_clear(void)
{
    scr_filemap *a = scr_filemap_new(), *b = scr_filemap_new();
    scr_filemap_add_file(a, 1, 0, "/c/a");
    scr_filemap_add_file(b, 1, 1, "/c/b");
    scr_filemap_add_file(b, 2, 0, "/c/c");
    CHECK(scr_filemap_merge(a, b) == 0, "merge");
    CHECK(scr_filemap_num_ranks_by_dataset(a, 1) == 2 && scr_filemap_num_datasets(a) == 2,
          "merged");
    CHECK(scr_filemap_num_datasets(b) == 2, "merge changed its source");
    CHECK(scr_filemap_merge(NULL, b) == SCR_ERR_ARG, "merge into NULL");
    scr_filemap_clear(a);
    CHECK(scr_kvtree_size(a) == 0, "clear");
    scr_filemap_delete(a);
    scr_filemap_delete(b);
}

static void test_write_refuses_a_map_a_reader_would_refuse(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_filemap_add_file(map, 1, 0, "relative/name");
    const char *path = tap_path("refused.scrinfo");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_filemap_write(path, map) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "(not written): key RANK 0 DSET 1 FILE holds "
                                   "'relative/name'") != NULL,
          "'%s'", scr_last_error());
    CHECK(access(path, F_OK) != 0, "file created");
    scr_filemap_delete(map);
}

static void test_write_into_missing_directory_fails(void)
{
    scr_filemap *map = sample_filemap();
    const char *path = tap_path("no/such/dir/filemap.scrinfo");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_filemap_write(path, map) == SCR_ERR_IO, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "no/such/dir") != NULL, "'%s'", scr_last_error());
    scr_filemap_delete(map);
}

/* A tag holds one value: merging two maps that tag one entry keeps the
 * second map's value, and the result can still be written. */
static void test_merge_keeps_one_tag_value(void)
{
    scr_filemap *a = scr_filemap_new(), *b = scr_filemap_new();
    CHECK(scr_filemap_set_tag(a, 2, 3, "NODE", "node1") == SCR_SUCCESS, "tag a");
    CHECK(scr_filemap_set_tag(b, 2, 3, "NODE", "node9") == SCR_SUCCESS, "tag b");
    CHECK(scr_filemap_add_file(b, 2, 3, "/c/f") == SCR_SUCCESS, "file b");
    CHECK(scr_filemap_merge(a, b) == SCR_SUCCESS, "merge");
    const char *v = NULL;
    CHECK(scr_filemap_get_tag(a, 2, 3, "NODE", &v) == SCR_SUCCESS && strcmp(v, "node9") == 0,
          "tag '%s'", v ? v : "");
    CHECK(scr_filemap_write(tap_path("merged-tags.scrinfo"), a) == SCR_SUCCESS,
          "merged map written");
    scr_filemap_delete(a);
    scr_filemap_delete(b);
}

int main(void)
{
    RUN(test_written_filemap_matches_independent_golden);
    RUN(test_merge_keeps_one_tag_value);
    RUN(test_golden_filemap_reads_back_through_getters);
    RUN(test_write_order_does_not_depend_on_call_order);
    RUN(test_missing_file_is_notfound_without_a_message);
    RUN(test_newer_or_damaged_version_is_refused);
    RUN(test_damaged_values_are_refused_naming_key_and_text);
    RUN(test_index_out_of_step_with_data_is_refused);
    RUN(test_missing_version_reads_as_the_first_version);
    RUN(test_damaged_file_is_refused);
    RUN(test_read_merges_into_the_map);
    RUN(test_index_follows_adds_and_removes);
    RUN(test_remove_dataset_rank_and_rank_of_dataset);
    RUN(test_extract_rank_moves_its_entries);
    RUN(test_counts_extremes_and_membership);
    RUN(test_expected_files_are_typed);
    RUN(test_lists_are_sorted_and_iterators_see_everything);
    RUN(test_descriptors_and_meta_are_stored_as_copies);
    RUN(test_tags_cannot_shadow_filemap_keys);
    RUN(test_setters_refuse_bad_arguments);
    RUN(test_merge_and_clear);
    RUN(test_write_refuses_a_map_a_reader_would_refuse);
    RUN(test_write_into_missing_directory_fails);
    return tap_done();
}
