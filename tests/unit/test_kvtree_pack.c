/* test_kvtree_pack.c — packing trees and unpacking damaged buffers. */
#include "tap.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_pack.h"
#include "scr_err.h"
#include "util_log.h"

#include "kvtree_sample.h"

static void test_pack_gives_the_documented_bytes(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_set_kv(t, "AB", "7");
    unsigned char want[] = {0, 0, 0, 1, 'A', 'B', 0, 0, 0, 0, 1, '7', 0, 0, 0, 0, 0};
    unsigned char buf[64];
    CHECK(scr_kvtree_pack_size(t) == sizeof(want), "size %zu", scr_kvtree_pack_size(t));
    size_t n = scr_kvtree_pack(buf, sizeof(buf), t);
    CHECK(n == sizeof(want) && memcmp(buf, want, n) == 0, "bytes differ (%zu written)", n);
    CHECK(scr_kvtree_pack(buf, sizeof(want) - 1, t) == 0, "too small a buffer is refused");
    CHECK(scr_kvtree_pack_size(NULL) == 4, "NULL packs as an empty tree");
    scr_kvtree_delete(t);
}

static void test_unpack_of_pack_round_trips_bytes(void)
{
    scr_kvtree *t = sample_tree();
    size_t size = scr_kvtree_pack_size(t);
    unsigned char *a = malloc(size), *b = malloc(size);
    REQUIRE(a && b, "malloc");
    REQUIRE(scr_kvtree_pack(a, size, t) == size, "pack");
    scr_kvtree *u = scr_kvtree_new();
    size_t used = 0;
    CHECK(scr_kvtree_unpack(a, size, u, &used, "buffer") == SCR_SUCCESS, "unpack");
    CHECK(used == size, "consumed %zu of %zu", used, size);
    CHECK(scr_kvtree_equal(t, u), "trees equal");
    CHECK(scr_kvtree_pack(b, size, u) == size && memcmp(a, b, size) == 0, "re-pack is identical");
    free(a);
    free(b);
    scr_kvtree_delete(t);
    scr_kvtree_delete(u);
}

/* Unpack len bytes and expect a format error whose message contains want. */
static void expect_damaged(const void *buf, size_t len, const char *want, const char *what)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_set_kv(t, "KEEP", "me");
    scr_clear_last_error();
    int rc = scr_kvtree_unpack(buf, len, t, NULL, "msg-origin");
    CHECK(rc == SCR_ERR_FORMAT, "%s: rc %d", what, rc);
    CHECK(strstr(scr_last_error(), "msg-origin") != NULL, "%s: origin missing in '%s'", what,
          scr_last_error());
    CHECK(strstr(scr_last_error(), want) != NULL, "%s: '%s' missing in '%s'", what, want,
          scr_last_error());
    CHECK(scr_kvtree_size(t) == 1 && scr_kvtree_get_kv(t, "KEEP", "me"),
          "%s: destination tree was changed", what);
    scr_kvtree_delete(t);
}

static void test_unpack_rejects_each_kind_of_damage(void)
{
    scr_log_set_quiet(1);
    unsigned char short_count[] = {0, 0, 1};
    expect_damaged(short_count, sizeof(short_count), "truncated", "count cut off");
    unsigned char huge[] = {0xff, 0xff, 0xff, 0xff, 'A', 0, 0, 0, 0, 0};
    expect_damaged(huge, sizeof(huge), "exceeds", "count larger than the bytes left");
    unsigned char no_nul[] = {0, 0, 0, 1, 'A', 'B', 'C', 'D', 'E'};
    expect_damaged(no_nul, sizeof(no_nul), "without terminating NUL", "key without NUL");
    unsigned char dup[] = {0, 0, 0, 2, 'A', 0, 0, 0, 0, 0, 'A', 0, 0, 0, 0, 0};
    expect_damaged(dup, sizeof(dup), "repeats", "duplicate key");
    unsigned char cut_child[] = {0, 0, 0, 1, 'A', 0, 0, 0, 0};
    expect_damaged(cut_child, sizeof(cut_child), "truncated", "child count cut off");
    scr_log_set_quiet(0);
}

/* A chain of `levels` hash levels: "k" -> "k" -> ... */
static unsigned char *deep_buffer(int levels, size_t *out_len)
{
    size_t len = (size_t)(levels - 1) * 6 + 4;
    unsigned char *b = calloc(1, len), *p = b;
    for (int i = 0; i < levels - 1; i++) {
        p[3] = 1;
        p[4] = 'k';
        p[5] = 0;
        p += 6;
    }
    *out_len = len;
    return b;
}

static void test_unpack_limits_nesting_to_64_levels(void)
{
    size_t len;
    unsigned char *ok = deep_buffer(SCR_KVTREE_MAX_DEPTH, &len);
    scr_kvtree *t = scr_kvtree_new();
    CHECK(scr_kvtree_unpack(ok, len, t, NULL, "deep") == SCR_SUCCESS, "64 levels accepted");
    scr_kvtree_delete(t);
    free(ok);
    scr_log_set_quiet(1);
    unsigned char *bad = deep_buffer(SCR_KVTREE_MAX_DEPTH + 1, &len);
    expect_damaged(bad, len, "nesting deeper than 64", "65 levels");
    free(bad);
    scr_log_set_quiet(0);
}

static void test_unpack_merges_into_existing_tree(void)
{
    scr_kvtree *src = scr_kvtree_new();
    scr_kvtree_set_kv(src, "A", "2");
    unsigned char buf[64];
    size_t n = scr_kvtree_pack(buf, sizeof(buf), src);
    scr_kvtree *dst = scr_kvtree_new();
    scr_kvtree_set_kv(dst, "A", "1");
    CHECK(scr_kvtree_unpack(buf, n, dst, NULL, "m") == SCR_SUCCESS, "unpack");
    CHECK(scr_kvtree_get_kv(dst, "A", "1") && scr_kvtree_get_kv(dst, "A", "2"), "merged");
    scr_kvtree_delete(src);
    scr_kvtree_delete(dst);
}

/* A tree with levels in scrambled order: integer and text keys, negative
 * numbers, keys strtoll reads only in part, levels of one and many keys. */
static scr_kvtree *scrambled_tree(unsigned seed)
{
    static const char *const names[] = {"b", "10", "-3", "a", "2", "x9", "+7", "007", "", "Z"};
    scr_kvtree *t = scr_kvtree_new();
    for (int i = 0; i < 40; i++) {
        seed = seed * 1103515245u + 12345u;
        char rank[16];
        snprintf(rank, sizeof(rank), "%u", (seed >> 8) % 1000);
        scr_kvtree *r = scr_kvtree_set_kv(t, "RANK", rank);
        for (int j = 0; j < 4; j++) {
            seed = seed * 1103515245u + 12345u;
            scr_kvtree *f = scr_kvtree_set_kv(r, "FILE", names[(seed >> 8) % 10]);
            scr_kvtree_set_kv(f, "SIZE", rank);
            scr_kvtree_set_kv(f, "CRC", names[(seed >> 12) % 10]);
        }
    }
    scr_kvtree_set_kv(t, "ALPHA", "1");
    return t;
}

static void sort_every_level(scr_kvtree *t)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(t); e; e = scr_kvtree_elem_next(e))
        sort_every_level(scr_kvtree_elem_hash(e));
    scr_kvtree_sort_int(t, SCR_KVTREE_SORT_ASCENDING);
}

static void test_pack_canonical_is_pack_of_the_sorted_tree(void)
{
    for (unsigned seed = 1; seed <= 20; seed++) {
        scr_kvtree *t = scrambled_tree(seed), *sorted = scr_kvtree_dup(t);
        REQUIRE(t && sorted, "trees");
        size_t size = scr_kvtree_pack_size(t), n = 0;
        unsigned char *before = malloc(size), *want = malloc(size), *got = malloc(size),
                      *again = malloc(size);
        REQUIRE(before && want && got && again, "malloc");
        REQUIRE(scr_kvtree_pack(before, size, t) == size, "pack");
        sort_every_level(sorted);
        REQUIRE(scr_kvtree_pack(want, size, sorted) == size, "pack of the sorted copy");
        CHECK(scr_kvtree_pack_canonical(got, size, t, &n) == SCR_SUCCESS && n == size,
              "seed %u: canonical pack", seed);
        CHECK(memcmp(got, want, size) == 0, "seed %u: the bytes of the sorted tree", seed);
        CHECK(scr_kvtree_pack(again, size, t) == size && memcmp(again, before, size) == 0,
              "seed %u: the tree keeps its order", seed);
        CHECK(scr_kvtree_pack_canonical(got, size - 1, t, &n) == SCR_ERR_ARG,
              "seed %u: too small a buffer", seed);
        free(before);
        free(want);
        free(got);
        free(again);
        scr_kvtree_delete(t);
        scr_kvtree_delete(sorted);
    }
}

static void test_file_image_of_parts_is_the_image_of_their_tree(void)
{
    scr_kvtree *a = scrambled_tree(7), *b = scrambled_tree(8), *whole = scr_kvtree_new();
    REQUIRE(a && b && whole, "trees");
    scr_kvtree *sa = scr_kvtree_dup(a), *sb = scr_kvtree_dup(b);
    sort_every_level(sa);
    sort_every_level(sb);
    /* the top level keeps the order given, unsorted: Z before A */
    scr_kvtree_set(whole, "Z", sa);
    scr_kvtree_set(whole, "A", sb);
    const char *keys[] = {"Z", "A"};
    const scr_kvtree *values[] = {a, b};
    void *want = NULL, *got = NULL;
    size_t wlen = 0, glen = 0;
    REQUIRE(scr_kvtree_file_image(whole, &want, &wlen) == SCR_SUCCESS, "image of the whole tree");
    CHECK(scr_kvtree_file_image_of(keys, values, 2, 1, &got, &glen) == SCR_SUCCESS,
          "canonical image of parts");
    CHECK(glen == wlen && got && memcmp(got, want, wlen) == 0, "the same bytes, CRC and all");
    free(got);
    free(want);
    /* without canonical, the parts go as they are */
    scr_kvtree_set(whole, "Z", scr_kvtree_dup(a));
    scr_kvtree_set(whole, "A", scr_kvtree_dup(b));
    REQUIRE(scr_kvtree_file_image(whole, &want, &wlen) == SCR_SUCCESS, "image of the whole tree");
    CHECK(scr_kvtree_file_image_of(keys, values, 2, 0, &got, &glen) == SCR_SUCCESS,
          "image of parts as they are");
    CHECK(glen == wlen && got && memcmp(got, want, wlen) == 0, "the same bytes");
    free(got);
    free(want);
    scr_kvtree_delete(a);
    scr_kvtree_delete(b);
    scr_kvtree_delete(whole);
}

int main(void)
{
    RUN(test_pack_gives_the_documented_bytes);
    RUN(test_unpack_of_pack_round_trips_bytes);
    RUN(test_unpack_rejects_each_kind_of_damage);
    RUN(test_unpack_limits_nesting_to_64_levels);
    RUN(test_unpack_merges_into_existing_tree);
    RUN(test_pack_canonical_is_pack_of_the_sorted_tree);
    RUN(test_file_image_of_parts_is_the_image_of_their_tree);
    return tap_done();
}
