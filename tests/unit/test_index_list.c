/* test_index_list.c — the rows of an index, their table and their JSON. */
#include "tap.h"

#include "index_file.h"
#include "index_list.h"
#include "kvtree.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"

#include <json-c/json.h>

/* The golden index of the scr-index tests, read through index_file. */
static scr_kvtree *golden_index(void)
{
    scr_kvtree *index = scr_kvtree_new();
    if (index != NULL && scr_index_file_read(tap_data("index/index.scr"), index) != SCR_SUCCESS) {
        scr_kvtree_delete(index);
        return NULL;
    }
    return index;
}

/* An index holding one entry for dataset id with NAME name and nothing else. */
static scr_kvtree *bare_index(int id, const char *name)
{
    scr_kvtree *index = scr_kvtree_new();
    scr_kvtree *entry = scr_kvtree_set_kv_int(index, "DSET", id);
    if (entry == NULL || scr_kvtree_util_set_str(entry, "NAME", name) != SCR_SUCCESS) {
        scr_kvtree_delete(index);
        return NULL;
    }
    return index;
}

static void test_golden_rows_are_newest_first_with_every_field(void)
{
    static const int ids[] = {12, 9, 6, 4, 3};
    scr_kvtree *index = golden_index();
    scr_index_list *list = NULL;
    REQUIRE(index != NULL, "golden index unreadable: %s", scr_last_error());
    REQUIRE(scr_index_list_build(index, &list) == SCR_SUCCESS, "%s", scr_last_error());
    REQUIRE(list->count == 5, "%d rows, expected 5", list->count);
    for (int i = 0; i < 5; i++)
        CHECK(list->rows[i].id == ids[i], "row %d is dataset %d, expected %d", i, list->rows[i].id,
              ids[i]);
    CHECK(list->current != NULL && strcmp(list->current, "ckpt.6") == 0, "current %s",
          list->current ? list->current : "(null)");
    for (int i = 0; i < 5; i++)
        CHECK(list->rows[i].current == (list->rows[i].id == 6), "dataset %d current %d",
              list->rows[i].id, list->rows[i].current);

    const scr_index_row *r12 = &list->rows[0], *r9 = &list->rows[1], *r6 = &list->rows[2];
    const scr_index_row *r4 = &list->rows[3], *r3 = &list->rows[4];
    CHECK(!r12->complete && !r12->has_size && r12->files == -1 && r12->flushed == NULL &&
              r12->fetched_count == 0 && r12->failed_count == 0,
          "dataset 12 should have nothing recorded but its kind and missing ranks");
    CHECK(r12->missing_count == 5 && r12->missing[0] == 3 && r12->missing[4] == 10,
          "dataset 12 lists %d missing ranks, expected 3 5 6 7 10", r12->missing_count);
    CHECK(r9->missing_count == 0 && r9->missing == NULL, "complete dataset 9 has missing ranks");
    CHECK(r9->checkpoint && r9->output, "dataset 9 has FLAGS 3");
    CHECK(!r4->checkpoint && r4->output, "dataset 4 is output only");
    CHECK(r3->checkpoint && !r3->output, "dataset 3 has CKPT and no FLAGS: a checkpoint");
    CHECK(r6->has_size && r6->size == 3221225472ULL && r6->files == 16, "dataset 6 size %llu",
          (unsigned long long)r6->size);
    CHECK(r6->fetched_count == 2 && strcmp(r6->fetched[0], "2026-03-01T23:59:59") == 0 &&
              strcmp(r6->fetched[1], "2026-03-02T09:16:10") == 0,
          "dataset 6 fetched times not oldest first");
    CHECK(r9->failed_count == 2 && strcmp(r9->failed[1], "2026-03-02T09:14:00") == 0,
          "dataset 9 failed times");
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
}

static void test_empty_index_gives_empty_list(void)
{
    scr_kvtree *index = scr_kvtree_new();
    scr_index_list *list = NULL;
    REQUIRE(scr_index_list_build(index, &list) == SCR_SUCCESS, "%s", scr_last_error());
    CHECK(list->count == 0 && list->rows == NULL && list->current == NULL, "list not empty");
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
}

static void test_dataset_without_descriptor_has_no_kind_size_or_files(void)
{
    scr_kvtree *index = bare_index(5, "lonely");
    scr_index_list *list = NULL;
    REQUIRE(index != NULL, "setup");
    REQUIRE(scr_index_list_build(index, &list) == SCR_SUCCESS, "%s", scr_last_error());
    REQUIRE(list->count == 1, "%d rows", list->count);
    const scr_index_row *r = &list->rows[0];
    CHECK(!r->checkpoint && !r->output && !r->has_size && r->files == -1 && !r->complete,
          "unknown values should be absent");
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
}

static void test_damaged_value_is_reported_naming_dataset_and_key(void)
{
    scr_kvtree *index = bare_index(5, "broken");
    scr_index_list *list = NULL;
    REQUIRE(index != NULL, "setup");
    scr_kvtree_util_set_int(scr_kvtree_get_kv_int(index, "DSET", 5), "COMPLETE", 7);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_index_list_build(index, &list);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_TYPE, "rc %d, expected SCR_ERR_TYPE", rc);
    CHECK(list == NULL, "no list on failure");
    CHECK(strstr(scr_last_error(), "dataset 5: COMPLETE") != NULL, "message: %s", scr_last_error());
    scr_kvtree_delete(index);
}

static void test_sizes_are_shown_in_powers_of_1024(void)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0 B"},
        {1023, "1023 B"},
        {1024, "1.0 KiB"},
        {1536, "1.5 KiB"},
        {1048524, "1023.9 KiB"},
        {1048575, "1.0 MiB"}, /* 1023.999 KiB rounds up into the next unit */
        {1572864, "1.5 MiB"},
        {3221225472ULL, "3.0 GiB"},
        {UINT64_MAX, "16.0 EiB"},
    };
    char buf[SCR_INDEX_LIST_SIZE_TEXT];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        scr_index_list_format_size(cases[i].bytes, buf, sizeof(buf));
        CHECK(strcmp(buf, cases[i].text) == 0, "%llu bytes shown as '%s', expected '%s'",
              (unsigned long long)cases[i].bytes, buf, cases[i].text);
    }
}

/* The table of index, in a new string (NULL on failure). */
static char *table_of(const scr_kvtree *index)
{
    scr_index_list *list = NULL;
    char *text = NULL;
    size_t len = 0;
    if (scr_index_list_build(index, &list) != SCR_SUCCESS) return NULL;
    FILE *out = open_memstream(&text, &len);
    int rc = out ? scr_index_list_fprint_table(out, list) : SCR_ERR_IO;
    if (out) fclose(out);
    scr_index_list_delete(list);
    if (rc != SCR_SUCCESS) {
        free(text);
        return NULL;
    }
    return text;
}

static void test_long_name_widens_its_column_on_every_line(void)
{
    scr_kvtree *index = bare_index(1, "a");
    scr_kvtree *entry = scr_kvtree_set_kv_int(index, "DSET", 2);
    scr_kvtree_util_set_str(entry, "NAME", "a-rather-long-dataset-name");
    char *text = table_of(index);
    REQUIRE(text != NULL, "no table: %s", scr_last_error());
    /* KIND starts at the same column on the header and both rows */
    const char *line = text, *kind_col = strstr(text, "KIND");
    REQUIRE(kind_col != NULL, "no KIND header in:\n%s", text);
    long want = kind_col - text;
    int lines = 0;
    for (; *line; lines++) {
        const char *end = strchr(line, '\n');
        REQUIRE(end != NULL, "unterminated line");
        CHECK(end - line > want && line[want - 1] == ' ' && line[want - 2] == ' ' &&
                  line[want] != ' ',
              "line %d does not start a column at %ld: '%.*s'", lines, want, (int)(end - line),
              line);
        line = end + 1;
    }
    CHECK(lines == 3, "%d lines, expected header and 2 rows", lines);
    free(text);
    scr_kvtree_delete(index);
}

static void test_table_write_failure_is_an_io_error(void)
{
    FILE *full = fopen("/dev/full", "w");
    if (full == NULL) return; /* nothing to fill on this system */
    setvbuf(full, NULL, _IONBF, 0);
    scr_index_list list = {0};
    scr_log_set_quiet(1);
    int rc = scr_index_list_fprint_table(full, &list);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_IO, "rc %d, expected SCR_ERR_IO", rc);
    fclose(full);
}

static void test_json_has_null_for_absent_values_and_prefix_only_when_given(void)
{
    scr_kvtree *index = bare_index(5, "lonely");
    scr_index_list *list = NULL;
    REQUIRE(index != NULL && scr_index_list_build(index, &list) == SCR_SUCCESS, "setup");
    struct json_object *obj = scr_index_list_to_json(list, NULL), *v, *row;
    REQUIRE(obj != NULL, "no JSON");
    CHECK(!json_object_object_get_ex(obj, "prefix", &v), "prefix present though not given");
    CHECK(json_object_object_get_ex(obj, "current", &v) && v == NULL, "current not null");
    REQUIRE(json_object_object_get_ex(obj, "datasets", &v) && json_object_array_length(v) == 1,
            "datasets not one row");
    row = json_object_array_get_idx(v, 0);
    static const char *const nulls[] = {"size", "files", "flushed"};
    for (size_t i = 0; i < 3; i++)
        CHECK(json_object_object_get_ex(row, nulls[i], &v) && v == NULL, "%s not null", nulls[i]);
    CHECK(json_object_object_get_ex(row, "id", &v) && json_object_get_int(v) == 5, "id");
    CHECK(json_object_object_get_ex(row, "fetched", &v) &&
              json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0,
          "fetched not an empty array");
    json_object_put(obj);

    obj = scr_index_list_to_json(list, "/p");
    CHECK(obj != NULL && json_object_object_get_ex(obj, "prefix", &v) &&
              strcmp(json_object_get_string(v), "/p") == 0,
          "prefix missing");
    json_object_put(obj);
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
}

/* ranks as ranges: runs of consecutive ranks collapse, single ones stay */
static void test_missing_ranks_are_formatted_as_ranges(void)
{
    static const struct {
        int ranks[8];
        int count;
        const char *want;
    } cases[] = {
        {{0}, 0, ""},
        {{4}, 1, "4"},
        {{3, 5, 6, 7}, 4, "3,5-7"},
        {{0, 1, 2, 3}, 4, "0-3"},
        {{1, 3, 5}, 3, "1,3,5"},
        {{0, 1, 5, 9, 10, 11, 2147483646, 2147483647}, 8, "0-1,5,9-11,2147483646-2147483647"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = NULL;
        int rc = scr_index_list_format_ranks(cases[i].ranks, cases[i].count, &text);
        CHECK(rc == SCR_SUCCESS && strcmp(text, cases[i].want) == 0,
              "case %zu: got '%s', want '%s'", i, text ? text : "(null)", cases[i].want);
        free(text);
    }
}

int main(void)
{
    RUN(test_golden_rows_are_newest_first_with_every_field);
    RUN(test_empty_index_gives_empty_list);
    RUN(test_dataset_without_descriptor_has_no_kind_size_or_files);
    RUN(test_damaged_value_is_reported_naming_dataset_and_key);
    RUN(test_sizes_are_shown_in_powers_of_1024);
    RUN(test_long_name_widens_its_column_on_every_line);
    RUN(test_table_write_failure_is_an_io_error);
    RUN(test_json_has_null_for_absent_values_and_prefix_only_when_given);
    RUN(test_missing_ranks_are_formatted_as_ranges);
    return tap_done();
}
