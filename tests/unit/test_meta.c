/* test_meta.c — a file's meta record: golden bytes, typed fields, checks. */
#include "tap.h"
#include "record_test.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "scr_err.h"
#include "util_log.h"

/* The record of tests/data/records/meta.json, built through the setters. */
static scr_meta *sample_meta(void)
{
    scr_meta *m = scr_meta_new();
    int rc = scr_meta_set_filename(m, "rank_2.ckpt");
    rc |= scr_meta_set_filetype(m, SCR_META_TYPE_FULL);
    rc |= scr_meta_set_complete(m, 1);
    rc |= scr_meta_set_filesize(m, 524296);
    rc |= scr_meta_set_crc32(m, 0x738bb68fu);
    rc |= scr_meta_set_rank(m, 2);
    rc |= scr_meta_set_ranks(m, 4);
    rc |= scr_meta_set_checkpoint(m, 6);
    rc |= scr_meta_set_origname(m, "rank_2.ckpt");
    rc |= scr_meta_set_origpath(m, "/p/lscratchb/user1/simulation123/ckpt.6");
    rc |= scr_meta_set_orig(m, "ckpt.6/rank_2.ckpt");
    if (rc != SCR_SUCCESS) {
        scr_meta_delete(m);
        return NULL;
    }
    return m;
}

static void test_meta_built_by_setters_matches_independent_golden(void)
{
    scr_meta *m = sample_meta();
    REQUIRE(m != NULL, "setters failed");
    const char *path = tap_path("meta.scr");
    CHECK(scr_kvtree_write_file(path, m) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("records/meta.scr"));
    scr_meta_delete(m);
}

static void test_golden_meta_reads_back_through_getters(void)
{
    scr_meta *m = scr_meta_new();
    REQUIRE(scr_kvtree_read_file(tap_data("records/meta.scr"), m) == SCR_SUCCESS, "read golden");
    CHECK(scr_meta_validate(m, "meta.scr", NULL) == SCR_SUCCESS, "golden refused");
    const char *s = NULL;
    int i = -1;
    uint64_t size = 0;
    uint32_t crc = 0;
    CHECK(scr_meta_get_filename(m, &s) == 0 && strcmp(s, "rank_2.ckpt") == 0, "FILE");
    CHECK(scr_meta_get_filetype(m, &s) == 0 && strcmp(s, "FULL") == 0, "TYPE");
    CHECK(scr_meta_get_complete(m, &i) == 0 && i == 1, "COMPLETE %d", i);
    CHECK(scr_meta_get_filesize(m, &size) == 0 && size == 524296, "SIZE %llu",
          (unsigned long long)size);
    CHECK(scr_meta_get_crc32(m, &crc) == 0 && crc == 0x738bb68fu, "CRC 0x%x", crc);
    CHECK(scr_meta_get_rank(m, &i) == 0 && i == 2, "RANK %d", i);
    CHECK(scr_meta_get_ranks(m, &i) == 0 && i == 4, "RANKS %d", i);
    CHECK(scr_meta_get_checkpoint(m, &i) == 0 && i == 6, "CKPT %d", i);
    CHECK(scr_meta_get_origname(m, &s) == 0 && strcmp(s, "rank_2.ckpt") == 0, "NAME");
    CHECK(scr_meta_get_origpath(m, &s) == 0 &&
              strcmp(s, "/p/lscratchb/user1/simulation123/ckpt.6") == 0,
          "PATH");
    CHECK(scr_meta_get_orig(m, &s) == 0 && strcmp(s, "ckpt.6/rank_2.ckpt") == 0, "ORIG");
    CHECK(scr_meta_is_complete(m), "is_complete");
    scr_meta *want = sample_meta();
    CHECK(scr_kvtree_equal(m, want), "golden differs from the record the setters build");
    scr_meta_delete(want);
    scr_meta_delete(m);
}

static void test_checks_tell_match_mismatch_and_absence(void)
{
    scr_meta *m = sample_meta();
    REQUIRE(m != NULL, "setters failed");
    CHECK(scr_meta_check_filename(m, "rank_2.ckpt") == SCR_SUCCESS, "filename");
    CHECK(scr_meta_check_filename(m, "rank_3.ckpt") == SCR_FAILURE, "other filename");
    CHECK(scr_meta_check_filetype(m, "FULL") == SCR_SUCCESS, "type");
    CHECK(scr_meta_check_filetype(m, "XOR") == SCR_FAILURE, "other type");
    CHECK(scr_meta_check_complete(m, 1) == SCR_SUCCESS, "complete");
    CHECK(scr_meta_check_complete(m, 0) == SCR_FAILURE, "not complete");
    CHECK(scr_meta_check_filesize(m, 524296) == SCR_SUCCESS, "size");
    CHECK(scr_meta_check_filesize(m, 524295) == SCR_FAILURE, "other size");
    CHECK(scr_meta_check_crc32(m, 0x738bb68fu) == SCR_SUCCESS, "crc");
    CHECK(scr_meta_check_crc32(m, 0x738bb68eu) == SCR_FAILURE, "other crc");
    CHECK(scr_meta_check_rank(m, 2) == SCR_SUCCESS && scr_meta_check_rank(m, 3) == SCR_FAILURE,
          "rank");
    CHECK(scr_meta_check_ranks(m, 4) == SCR_SUCCESS && scr_meta_check_ranks(m, 5) == SCR_FAILURE,
          "ranks");
    CHECK(scr_meta_check_checkpoint(m, 6) == SCR_SUCCESS &&
              scr_meta_check_checkpoint(m, 7) == SCR_FAILURE,
          "checkpoint");
    CHECK(scr_meta_check_origname(m, "rank_2.ckpt") == SCR_SUCCESS &&
              scr_meta_check_origname(m, "x") == SCR_FAILURE,
          "origname");
    CHECK(scr_meta_check_origpath(m, "/p/lscratchb/user1/simulation123/ckpt.6") == SCR_SUCCESS &&
              scr_meta_check_origpath(m, "/p") == SCR_FAILURE,
          "origpath");
    CHECK(scr_meta_check_orig(m, "ckpt.6/rank_2.ckpt") == SCR_SUCCESS &&
              scr_meta_check_orig(m, NULL) == SCR_FAILURE,
          "orig");
    CHECK(scr_meta_unset_crc32(m) == SCR_SUCCESS, "unset crc");
    CHECK(scr_meta_check_crc32(m, 0x738bb68fu) == SCR_ERR_NOTFOUND, "crc gone");
    scr_kvtree_util_set_str(m, "SIZE", "huge");
    CHECK(scr_meta_check_filesize(m, 1) == SCR_ERR_TYPE, "damaged size");
    scr_meta_delete(m);
}

static void test_getters_tell_missing_from_wrong_type_without_logging(void)
{
    scr_meta *m = scr_meta_new();
    const char *s;
    int i;
    uint64_t u;
    uint32_t c;
    CHECK(scr_meta_get_filename(m, &s) == SCR_ERR_NOTFOUND, "FILE absent");
    CHECK(scr_meta_get_rank(m, &i) == SCR_ERR_NOTFOUND, "RANK absent");
    CHECK(scr_meta_get_filesize(m, &u) == SCR_ERR_NOTFOUND, "SIZE absent");
    CHECK(scr_meta_get_crc32(m, &c) == SCR_ERR_NOTFOUND, "CRC absent");
    CHECK(!scr_meta_is_complete(m), "absent COMPLETE is not complete");
    scr_kvtree_util_set_str(m, "FILE", "/abs/name");
    scr_kvtree_util_set_str(m, "TYPE", "MIRROR");
    scr_kvtree_util_set_int(m, "COMPLETE", 2);
    scr_kvtree_util_set_str(m, "SIZE", "-5");
    scr_kvtree_util_set_str(m, "CRC", "12345");
    scr_kvtree_util_set_int(m, "RANK", -1);
    scr_kvtree_util_set_int(m, "RANKS", 0);
    scr_kvtree_util_set_int(m, "CKPT", 0);
    scr_kvtree_util_set_str(m, "NAME", "dir/name");
    scr_kvtree_util_set_str(m, "PATH", "relative/dir");
    scr_kvtree_set_kv(m, "ORIG", "a");
    scr_kvtree_set_kv(m, "ORIG", "b");
    scr_clear_last_error();
    CHECK(scr_meta_get_filename(m, &s) == SCR_ERR_TYPE, "absolute FILE");
    CHECK(scr_meta_get_filetype(m, &s) == SCR_ERR_TYPE, "unknown TYPE");
    CHECK(scr_meta_get_complete(m, &i) == SCR_ERR_TYPE, "COMPLETE 2");
    CHECK(!scr_meta_is_complete(m), "COMPLETE 2 is not complete");
    CHECK(scr_meta_get_filesize(m, &u) == SCR_ERR_TYPE, "negative SIZE");
    CHECK(scr_meta_get_crc32(m, &c) == SCR_ERR_TYPE, "CRC without 0x");
    CHECK(scr_meta_get_rank(m, &i) == SCR_ERR_TYPE, "RANK -1");
    CHECK(scr_meta_get_ranks(m, &i) == SCR_ERR_TYPE, "RANKS 0");
    CHECK(scr_meta_get_checkpoint(m, &i) == SCR_ERR_TYPE, "CKPT 0");
    CHECK(scr_meta_get_origname(m, &s) == SCR_ERR_TYPE, "NAME with a directory");
    CHECK(scr_meta_get_origpath(m, &s) == SCR_ERR_TYPE, "relative PATH");
    CHECK(scr_meta_get_orig(m, &s) == SCR_ERR_TYPE, "two ORIG values");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    CHECK(scr_meta_get_rank(m, NULL) == SCR_ERR_ARG, "NULL result");
    scr_meta_delete(m);
}

static void test_setters_refuse_what_a_reader_would_refuse(void)
{
    scr_meta *m = scr_meta_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_meta_set_filename(m, "/cache/rank_0.ckpt") == SCR_ERR_ARG, "absolute FILE");
    CHECK(strstr(scr_last_error(), "FILE '/cache/rank_0.ckpt'") != NULL, "'%s'", scr_last_error());
    CHECK(scr_meta_set_filename(m, "") == SCR_ERR_ARG, "empty FILE");
    CHECK(scr_meta_set_filetype(m, "MIRROR") == SCR_ERR_ARG, "unknown TYPE");
    CHECK(strstr(scr_last_error(), "FULL, XOR, PARTNER or RS") != NULL, "'%s'", scr_last_error());
    CHECK(scr_meta_set_complete(m, 2) == SCR_ERR_ARG, "COMPLETE 2");
    CHECK(scr_meta_set_rank(m, -1) == SCR_ERR_ARG, "RANK -1");
    CHECK(scr_meta_set_ranks(m, 0) == SCR_ERR_ARG, "RANKS 0");
    CHECK(scr_meta_set_checkpoint(m, 0) == SCR_ERR_ARG, "CKPT 0");
    CHECK(scr_meta_set_origname(m, "a/b") == SCR_ERR_ARG, "NAME with a directory");
    CHECK(scr_meta_set_origpath(m, "p/q") == SCR_ERR_ARG, "relative PATH");
    CHECK(scr_meta_set_orig(m, NULL) == SCR_ERR_ARG, "NULL ORIG");
    CHECK(scr_meta_set_filesize(NULL, 1) == SCR_ERR_ARG, "NULL meta");
    CHECK(scr_meta_set_crc32(NULL, 1) == SCR_ERR_ARG, "NULL meta");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(m) == 0, "a refused setter changed the record");
    CHECK(scr_meta_set_filetype(m, SCR_META_TYPE_RS) == SCR_SUCCESS, "RS is a type");
    CHECK(scr_meta_set_filetype(m, SCR_META_TYPE_PARTNER) == SCR_SUCCESS, "PARTNER is a type");
    CHECK(scr_meta_check_filetype(m, "PARTNER") == SCR_SUCCESS, "replaced");
    scr_meta_delete(m);
}

static void test_validate_names_file_key_and_text(void)
{
    scr_meta *m = sample_meta();
    REQUIRE(m != NULL, "setters failed");
    scr_kvtree_util_set_str(m, "SIZE", "big");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_meta_validate(m, "map.scr", "RANK 2 DSET 6 FILE /c/x META") == SCR_ERR_FORMAT,
          "damaged SIZE accepted");
    scr_log_set_quiet(0);
    CHECK(strcmp(scr_last_error(), "map.scr: key RANK 2 DSET 6 FILE /c/x META SIZE holds 'big', "
                                   "expected a size in bytes") == 0,
          "message '%s'", scr_last_error());
    scr_kvtree_util_set_int(m, "SIZE", 7);
    scr_kvtree_util_set_str(m, "CRC", "0xZZ");
    scr_log_set_quiet(1);
    CHECK(scr_meta_validate(m, "m.scr", NULL) == SCR_ERR_FORMAT, "damaged CRC accepted");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "m.scr: key CRC holds '0xZZ'") != NULL, "'%s'",
          scr_last_error());
    scr_kvtree_util_set_crc32(m, "CRC", 7);
    scr_kvtree_util_set_str(m, "EXTRA", "kept");
    CHECK(scr_meta_validate(m, "m.scr", NULL) == SCR_SUCCESS, "unknown keys are kept, not refused");
    CHECK(scr_meta_validate(NULL, "m.scr", NULL) == SCR_SUCCESS, "NULL is empty");
    scr_meta_delete(m);
}

static void test_copy_is_exact_and_independent(void)
{
    scr_meta *src = sample_meta();
    scr_meta *dst = scr_meta_new();
    REQUIRE(src != NULL && dst != NULL, "setup");
    scr_kvtree_util_set_str(dst, "STALE", "x");
    CHECK(scr_meta_copy(dst, src) == SCR_SUCCESS, "copy");
    CHECK(scr_kvtree_equal(dst, src), "copy differs");
    CHECK(scr_kvtree_get(dst, "STALE") == NULL, "old key kept");
    scr_meta_set_rank(dst, 9);
    CHECK(scr_meta_check_rank(src, 2) == SCR_SUCCESS, "changing the copy changed the source");
    CHECK(scr_meta_copy(src, src) == SCR_SUCCESS && scr_meta_check_rank(src, 2) == SCR_SUCCESS,
          "self copy");
    CHECK(scr_meta_copy(NULL, src) == SCR_ERR_ARG, "NULL destination");
    scr_meta_delete(src);
    scr_meta_delete(dst);
}

/* A redundancy header is written before its files' CRCs are known and
 * again after, in place: the fixed-width form must pack to the same length
 * whatever the value, and read back as the plain form does. */
static void test_fixed_width_crc_keeps_the_packed_length(void)
{
    scr_meta *m = sample_meta();
    REQUIRE(m != NULL, "setup");
    void *image = NULL;
    size_t placeholder_len = 0, len = 0;
    uint32_t crc = 1;
    CHECK(scr_meta_set_crc32_fixed(m, 0) == SCR_SUCCESS, "placeholder");
    CHECK(scr_kvtree_file_image(m, &image, &placeholder_len) == SCR_SUCCESS, "image");
    free(image);
    const char *text = NULL;
    CHECK(scr_kvtree_util_get_str(m, "CRC", &text) == SCR_SUCCESS &&
              strcmp(text, "0x00000000") == 0,
          "placeholder written as '%s'", text ? text : "(none)");
    CHECK(scr_meta_get_crc32(m, &crc) == SCR_SUCCESS && crc == 0, "placeholder reads as 0x%x", crc);
    const uint32_t values[] = {0x1u, 0xabcu, 0x738bb68fu, 0xffffffffu};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        CHECK(scr_meta_set_crc32_fixed(m, values[i]) == SCR_SUCCESS, "set 0x%x", values[i]);
        CHECK(scr_kvtree_file_image(m, &image, &len) == SCR_SUCCESS && len == placeholder_len,
              "0x%x packs to %zu bytes, the placeholder to %zu", values[i], len, placeholder_len);
        free(image);
        CHECK(scr_meta_check_crc32(m, values[i]) == SCR_SUCCESS, "0x%x reads back", values[i]);
    }
    CHECK(scr_meta_set_crc32_fixed(NULL, 1) == SCR_ERR_ARG, "NULL meta");
    scr_meta_delete(m);
}

static void test_compressed_is_a_stored_size_set_read_unset_and_validated(void)
{
    scr_meta *m = scr_meta_new();
    REQUIRE(m != NULL, "new");
    uint64_t stored = 0;
    CHECK(scr_meta_get_compressed(m, &stored) == SCR_ERR_NOTFOUND, "absent: stored as written");
    CHECK(scr_meta_set_compressed(m, 131178) == SCR_SUCCESS, "set");
    CHECK(scr_meta_get_compressed(m, &stored) == SCR_SUCCESS && stored == 131178, "got %llu",
          (unsigned long long)stored);
    CHECK(scr_meta_validate(m, "meta.scr", NULL) == SCR_SUCCESS, "a stored size refused");
    CHECK(scr_meta_unset_compressed(m) == SCR_SUCCESS &&
              scr_meta_get_compressed(m, &stored) == SCR_ERR_NOTFOUND,
          "unset");
    scr_kvtree_util_set_str(m, "COMPRESSED", "gzip");
    CHECK(scr_meta_get_compressed(m, &stored) == SCR_ERR_TYPE, "'gzip' read as a size");
    scr_log_set_quiet(1);
    CHECK(scr_meta_validate(m, "meta.scr", "RANK 0 FILE a META") == SCR_ERR_FORMAT,
          "'gzip' accepted");
    scr_log_set_quiet(0);
    check_error_has("COMPRESSED", "meta.scr: key RANK 0 FILE a META COMPRESSED holds 'gzip'");
    scr_meta_delete(m);
}

int main(void)
{
    RUN(test_meta_built_by_setters_matches_independent_golden);
    RUN(test_compressed_is_a_stored_size_set_read_unset_and_validated);
    RUN(test_golden_meta_reads_back_through_getters);
    RUN(test_checks_tell_match_mismatch_and_absence);
    RUN(test_getters_tell_missing_from_wrong_type_without_logging);
    RUN(test_setters_refuse_what_a_reader_would_refuse);
    RUN(test_validate_names_file_key_and_text);
    RUN(test_copy_is_exact_and_independent);
    RUN(test_fixed_width_crc_keeps_the_packed_length);
    return tap_done();
}
