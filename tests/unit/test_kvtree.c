/* test_kvtree.c — the hash operations of kvtree.h and kvtree_util.h. */
#include "tap.h"

#include "kvtree.h"
#include "kvtree_util.h"
#include "scr_err.h"

#include <stdint.h>

static void test_null_tree_reads_as_empty(void)
{
    scr_kvtree_delete(NULL);
    CHECK(scr_kvtree_set(NULL, "k", NULL) == NULL, "set on NULL returns NULL");
    CHECK(scr_kvtree_get(NULL, "k") == NULL, "get on NULL");
    scr_kvtree_unset(NULL, "k");
    scr_kvtree_unset_all(NULL);
    CHECK(scr_kvtree_size(NULL) == 0, "size of NULL");
    CHECK(scr_kvtree_elem_first(NULL) == NULL, "first of NULL");
    CHECK(scr_kvtree_get_kv(NULL, "a", "b") == NULL, "get_kv of NULL");
}

static void test_set_replaces_existing_value(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree *v1 = scr_kvtree_set(t, "KEY", NULL);
    scr_kvtree_set(v1, "old", NULL);
    scr_kvtree *v2 = scr_kvtree_new();
    scr_kvtree_set(v2, "new", NULL);
    CHECK(scr_kvtree_set(t, "KEY", v2) == v2, "set returns the stored value");
    CHECK(scr_kvtree_size(t) == 1, "still one key, got %d", scr_kvtree_size(t));
    CHECK(scr_kvtree_get(scr_kvtree_get(t, "KEY"), "new") != NULL, "new value present");
    CHECK(scr_kvtree_get(scr_kvtree_get(t, "KEY"), "old") == NULL, "old value gone");
    scr_kvtree_unset(t, "KEY");
    scr_kvtree_unset(t, "absent");
    CHECK(scr_kvtree_size(t) == 0, "unset removes");
    scr_kvtree_delete(t);
}

static void test_iteration_keeps_insertion_order_across_index_growth(void)
{
    scr_kvtree *t = scr_kvtree_new();
    char key[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "k%d", (i * 7919) % 1000);
        REQUIRE(scr_kvtree_set(t, key, NULL) != NULL, "set %s", key);
    }
    int i = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(t); e; e = scr_kvtree_elem_next(e), i++) {
        snprintf(key, sizeof(key), "k%d", (i * 7919) % 1000);
        CHECK(strcmp(scr_kvtree_elem_key(e), key) == 0, "element %d is %s, expected %s", i,
              scr_kvtree_elem_key(e), key);
    }
    CHECK(i == 1000, "iterated %d elements", i);
    /* remove every other key, lookups must stay right */
    for (int k = 0; k < 1000; k += 2) {
        snprintf(key, sizeof(key), "k%d", k);
        scr_kvtree_unset(t, key);
    }
    CHECK(scr_kvtree_size(t) == 500, "size after unsets %d", scr_kvtree_size(t));
    for (int k = 0; k < 1000; k++) {
        snprintf(key, sizeof(key), "k%d", k);
        CHECK((scr_kvtree_get(t, key) != NULL) == (k % 2 == 1), "lookup of %s", key);
    }
    scr_kvtree_delete(t);
}

static void test_kv_helpers_create_get_and_prune(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree *r0 = scr_kvtree_set_kv_int(t, "RANK", 0);
    scr_kvtree *c10 = scr_kvtree_set_kv_int(r0, "CKPT", 10);
    CHECK(c10 != NULL, "nested set_kv");
    CHECK(scr_kvtree_set_kv(t, "RANK", "0") == r0, "set_kv keeps the existing subtree");
    CHECK(scr_kvtree_get_kv(t, "RANK", "0") == r0, "get_kv");
    CHECK(scr_kvtree_get_kv_int(r0, "CKPT", 10) == c10, "get_kv_int");
    CHECK(scr_kvtree_get_kv(t, "RANK", "1") == NULL, "missing value");
    scr_kvtree_set_kv_int(t, "RANK", 1);
    scr_kvtree_unset_kv_int(t, "RANK", 0);
    CHECK(scr_kvtree_get(t, "RANK") != NULL, "RANK kept while it holds 1");
    scr_kvtree_unset_kv(t, "RANK", "1");
    CHECK(scr_kvtree_get(t, "RANK") == NULL, "RANK removed once empty");
    scr_kvtree_delete(t);
}

static void test_setf_getf_convert_each_format(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree *leaf = scr_kvtree_setf(t, NULL, "%s %d %lu %llu %f", "RANK", -3, 7ul,
                                       18446744073709551615ull, 1.5);
    REQUIRE(leaf != NULL, "setf");
    scr_kvtree *got =
        scr_kvtree_getf(t, "%s %d %lu %llu %f", "RANK", -3, 7ul, 18446744073709551615ull, 1.5);
    CHECK(got == leaf, "getf finds what setf made");
    CHECK(scr_kvtree_getf(t, "RANK -3 7 18446744073709551615 1.500000") == leaf,
          "literal keys give the same path");
    CHECK(scr_kvtree_getf(t, "%s %d", "RANK", 4) == NULL, "missing path");
    scr_kvtree *v = scr_kvtree_new();
    scr_kvtree_set(v, "x", NULL);
    CHECK(scr_kvtree_setf(t, v, "%s %d", "RANK", -3) == v, "setf replaces the last level");
    CHECK(scr_kvtree_getf(t, "RANK -3 x") != NULL, "replacement visible");
    CHECK(scr_kvtree_getf(t, "RANK -3 7") == NULL, "old subtree gone");
    CHECK(scr_kvtree_getf(t, "%q", 1) == NULL, "unsupported conversion refused");
    scr_kvtree_delete(t);
}

static void test_merge_combines_levels_and_copy_is_deep(void)
{
    scr_kvtree *a = scr_kvtree_new(), *b = scr_kvtree_new();
    scr_kvtree_setf(a, NULL, "A 1");
    scr_kvtree_setf(b, NULL, "A 2");
    scr_kvtree_setf(b, NULL, "B x y");
    CHECK(scr_kvtree_merge(a, b) == SCR_SUCCESS, "merge");
    CHECK(scr_kvtree_getf(a, "A 1") && scr_kvtree_getf(a, "A 2") && scr_kvtree_getf(a, "B x y"),
          "all keys present after merge");
    scr_kvtree *c = scr_kvtree_dup(a);
    CHECK(scr_kvtree_equal(a, c), "dup is equal");
    scr_kvtree_unset(scr_kvtree_get(c, "B"), "x");
    CHECK(scr_kvtree_getf(a, "B x y") != NULL, "changing the copy leaves the source");
    CHECK(!scr_kvtree_equal(a, c), "trees now differ");
    scr_kvtree *d = scr_kvtree_new();
    CHECK(scr_kvtree_copy(d, b) == SCR_SUCCESS && scr_kvtree_equal(d, b), "copy");
    scr_kvtree_delete(a);
    scr_kvtree_delete(b);
    scr_kvtree_delete(c);
    scr_kvtree_delete(d);
}

static void test_absorb_moves_subtrees_and_frees_source(void)
{
    scr_kvtree *src = scr_kvtree_new();
    char key[16];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof(key), "%d", i);
        scr_kvtree_set_kv(src, "R", key);
    }
    scr_kvtree_setf(src, NULL, "S 1");
    scr_kvtree *empty = scr_kvtree_new();
    CHECK(scr_kvtree_absorb(empty, src) == SCR_SUCCESS, "absorb into empty");
    CHECK(scr_kvtree_size(scr_kvtree_get(empty, "R")) == 100, "all keys moved");
    CHECK(scr_kvtree_get_kv(empty, "R", "57") != NULL, "indexed lookup after the move");

    scr_kvtree *more = scr_kvtree_new();
    scr_kvtree_setf(more, NULL, "S 2");
    scr_kvtree_setf(more, NULL, "T x");
    CHECK(scr_kvtree_absorb(empty, more) == SCR_SUCCESS, "absorb into non-empty");
    CHECK(scr_kvtree_getf(empty, "S 1") && scr_kvtree_getf(empty, "S 2") &&
              scr_kvtree_getf(empty, "T x"),
          "levels merged");
    CHECK(scr_kvtree_size(empty) == 3, "size %d", scr_kvtree_size(empty));
    scr_kvtree_delete(empty); /* src and more were consumed; valgrind checks for leaks */
}

static void keys_of(const scr_kvtree *t, char *out, size_t len)
{
    out[0] = '\0';
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(t); e; e = scr_kvtree_elem_next(e)) {
        strncat(out, scr_kvtree_elem_key(e), len - strlen(out) - 1);
        strncat(out, ",", len - strlen(out) - 1);
    }
}

static void test_sort_by_string_and_by_integer(void)
{
    scr_kvtree *t = scr_kvtree_new();
    const char *keys[] = {"10", "9", "b", "-2", "100", "a"};
    for (size_t i = 0; i < 6; i++) scr_kvtree_set(t, keys[i], NULL);
    char got[128];
    scr_kvtree_sort(t, SCR_KVTREE_SORT_ASCENDING);
    keys_of(t, got, sizeof(got));
    CHECK(strcmp(got, "-2,10,100,9,a,b,") == 0, "string order: %s", got);
    scr_kvtree_sort_int(t, SCR_KVTREE_SORT_ASCENDING);
    keys_of(t, got, sizeof(got));
    CHECK(strcmp(got, "-2,9,10,100,a,b,") == 0, "integer order: %s", got);
    scr_kvtree_sort_int(t, SCR_KVTREE_SORT_DESCENDING);
    keys_of(t, got, sizeof(got));
    CHECK(strcmp(got, "100,10,9,-2,b,a,") == 0, "descending integer order: %s", got);
    CHECK(scr_kvtree_get(t, "9") != NULL, "lookups still work after sorting");
    scr_kvtree_delete(t);
}

static void test_print_indents_each_level(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_setf(t, NULL, "RANK 0 FILES 2");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    REQUIRE(f != NULL, "open_memstream");
    CHECK(scr_kvtree_fprint(f, t, 2) == SCR_SUCCESS, "fprint");
    fclose(f);
    CHECK(strcmp(text, "RANK\n  0\n    FILES\n      2\n") == 0, "printed:\n%s", text);
    free(text);
    scr_kvtree_delete(t);
}

static void test_util_values_are_typed(void)
{
    scr_kvtree *t = scr_kvtree_new();
    int i;
    int64_t i64;
    uint64_t u64;
    double d;
    uint32_t crc;
    const char *s;
    CHECK(scr_kvtree_util_set_int(t, "I", -42) == SCR_SUCCESS, "set int");
    CHECK(scr_kvtree_util_set_int(t, "I", 43) == SCR_SUCCESS, "set int replaces");
    CHECK(scr_kvtree_util_get_int(t, "I", &i) == SCR_SUCCESS && i == 43, "get int %d", i);
    scr_kvtree_util_set_uint64(t, "U", UINT64_MAX);
    CHECK(scr_kvtree_util_get_uint64(t, "U", &u64) == SCR_SUCCESS && u64 == UINT64_MAX, "u64");
    CHECK(scr_kvtree_util_get_int(t, "U", &i) == SCR_ERR_TYPE, "u64 max is not an int");
    scr_kvtree_util_set_int64(t, "L", INT64_MIN);
    CHECK(scr_kvtree_util_get_int64(t, "L", &i64) == SCR_SUCCESS && i64 == INT64_MIN, "i64");
    CHECK(scr_kvtree_util_get_uint64(t, "L", &u64) == SCR_ERR_TYPE, "negative is not unsigned");
    scr_kvtree_util_set_double(t, "D", 52428800.0);
    CHECK(scr_kvtree_util_get_str(t, "D", &s) == SCR_SUCCESS && strcmp(s, "52428800.000000") == 0,
          "double text %s", s);
    CHECK(scr_kvtree_util_get_double(t, "D", &d) == SCR_SUCCESS && d == 52428800.0, "double");
    scr_kvtree_util_set_crc32(t, "C", 0x028eeb9e);
    CHECK(scr_kvtree_util_get_str(t, "C", &s) == SCR_SUCCESS && strcmp(s, "0x28eeb9e") == 0,
          "crc text %s", s);
    CHECK(scr_kvtree_util_get_crc32(t, "C", &crc) == SCR_SUCCESS && crc == 0x028eeb9e, "crc");
    CHECK(scr_kvtree_util_get_int(t, "missing", &i) == SCR_ERR_NOTFOUND, "missing key");
    scr_kvtree_util_set_str(t, "S", "12abc");
    CHECK(scr_kvtree_util_get_int(t, "S", &i) == SCR_ERR_TYPE, "trailing garbage refused");
    CHECK(scr_kvtree_util_get_crc32(t, "S", &crc) == SCR_ERR_TYPE, "not a crc");
    scr_kvtree_set_kv(t, "S", "second");
    CHECK(scr_kvtree_util_get_str(t, "S", &s) == SCR_ERR_TYPE, "two values are not one string");
    scr_kvtree_delete(t);
}

int main(void)
{
    RUN(test_null_tree_reads_as_empty);
    RUN(test_set_replaces_existing_value);
    RUN(test_iteration_keeps_insertion_order_across_index_growth);
    RUN(test_kv_helpers_create_get_and_prune);
    RUN(test_setf_getf_convert_each_format);
    RUN(test_merge_combines_levels_and_copy_is_deep);
    RUN(test_absorb_moves_subtrees_and_frees_source);
    RUN(test_sort_by_string_and_by_integer);
    RUN(test_print_indents_each_level);
    RUN(test_util_values_are_typed);
    return tap_done();
}
