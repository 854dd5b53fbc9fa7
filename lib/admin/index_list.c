/* index_list.c — the datasets of an index as rows, a table, JSON. */
#include "index_list.h"
#include "dataset.h"
#include "index_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* --- rows ------------------------------------------------------------------------ */

/* A getter's status for a key a row may lack: absent is fine, anything else
 * means the value is damaged. */
static int optional(int rc, int id, const char *key)
{
    if (rc == SCR_SUCCESS || rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS;
    if (id > 0)
        scr_err("index: dataset %d: %s holds a damaged value (%s)", id, key, scr_strstatus(rc));
    else
        scr_err("index: %s holds a damaged value (%s)", key, scr_strstatus(rc));
    return rc;
}

static int build_row(const scr_kvtree *index, int id, const char *current, scr_index_row *row)
{
    const scr_dataset *desc = NULL;
    row->id = id;
    row->files = -1;
    int rc = scr_index_file_get_name(index, id, &row->name);
    if (rc != SCR_SUCCESS) {
        scr_err("index: dataset %d has no usable NAME (%s)", id, scr_strstatus(rc));
        return rc == SCR_ERR_NOTFOUND ? SCR_ERR_TYPE : rc;
    }
    row->current = current != NULL && strcmp(current, row->name) == 0;

    /* without a descriptor the kind, size and file count are unknown */
    if (scr_index_file_get_dataset(index, id, &desc) == SCR_SUCCESS) {
        row->checkpoint = scr_dataset_is_checkpoint(desc);
        row->output = scr_dataset_is_output(desc);
        rc = scr_dataset_get_size(desc, &row->size);
        row->has_size = rc == SCR_SUCCESS;
        rc = optional(rc, id, "DSETDESC SIZE");
        if (rc == SCR_SUCCESS)
            rc = optional(scr_dataset_get_files(desc, &row->files), id, "DSETDESC FILES");
    }
    if (rc == SCR_SUCCESS)
        rc = optional(scr_index_file_get_complete(index, id, &row->complete), id, "COMPLETE");
    if (rc == SCR_SUCCESS)
        rc = optional(scr_index_file_get_flushed(index, id, &row->flushed), id, "FLUSHED");
    if (rc == SCR_SUCCESS)
        rc = scr_index_file_list_fetched(index, id, &row->fetched, &row->fetched_count);
    if (rc == SCR_SUCCESS)
        rc = scr_index_file_list_failed(index, id, &row->failed, &row->failed_count);
    if (rc == SCR_SUCCESS) {
        rc = scr_index_file_list_missing(index, id, &row->missing, &row->missing_count);
        if (rc == SCR_ERR_TYPE)
            scr_err("index: dataset %d: a MISSING rank is not an integer >= 0", id);
        else if (rc == SCR_ERR_NOMEM)
            scr_err("index: out of memory listing the missing ranks of dataset %d", id);
    }
    if (rc == SCR_SUCCESS && row->missing_count > 0)
        rc = scr_index_list_format_ranks(row->missing, row->missing_count, &row->missing_ranks);
    return rc;
}

int scr_index_list_build(const scr_kvtree *index, scr_index_list **out_list)
{
    if (out_list == NULL) {
        scr_err("index: listing datasets without a place for the list");
        return SCR_ERR_ARG;
    }
    scr_index_list *list = calloc(1, sizeof(*list));
    if (list == NULL) {
        scr_err("index: out of memory listing datasets");
        return SCR_ERR_NOMEM;
    }
    int *ids = NULL, count = 0;
    int rc = optional(scr_index_file_get_current(index, &list->current), 0, "CURRENT");
    if (rc == SCR_SUCCESS) {
        rc = scr_index_file_list_ids(index, &ids, &count);
        if (rc == SCR_ERR_TYPE) scr_err("index: a dataset id under DSET is not an integer >= 1");
    }
    if (rc == SCR_SUCCESS && count > 0) {
        list->rows = calloc((size_t)count, sizeof(*list->rows));
        if (list->rows == NULL) {
            scr_err("index: out of memory listing %d datasets", count);
            rc = SCR_ERR_NOMEM;
        } else {
            list->count = count; /* every row zeroed, so a partial list frees cleanly */
        }
    }
    for (int i = 0; i < list->count && rc == SCR_SUCCESS; i++)
        rc = build_row(index, ids[i], list->current, &list->rows[i]);
    free(ids);
    if (rc != SCR_SUCCESS) {
        scr_index_list_delete(list);
        return rc;
    }
    *out_list = list;
    return SCR_SUCCESS;
}

void scr_index_list_delete(scr_index_list *list)
{
    if (list == NULL) return;
    for (int i = 0; i < list->count; i++) {
        free(list->rows[i].fetched);
        free(list->rows[i].failed);
        free(list->rows[i].missing);
        free(list->rows[i].missing_ranks);
    }
    free(list->rows);
    free(list);
}

void scr_index_list_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const size_t last = sizeof(units) / sizeof(units[0]) - 1;
    if (bytes < 1024) {
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
        return;
    }
    uint64_t unit = 1024;
    for (size_t u = 0;; u++, unit *= 1024) {
        /* rounded to tenths first, so that 1023.96 KiB shows as 1.0 MiB */
        uint64_t tenths = (uint64_t)((double)bytes / (double)unit * 10.0 + 0.5);
        if (tenths < 10240 || u == last) {
            snprintf(buf, len, "%llu.%llu %s", (unsigned long long)(tenths / 10),
                     (unsigned long long)(tenths % 10), units[u]);
            return;
        }
    }
}

int scr_index_list_format_ranks(const int *ranks, int count, char **out_text)
{
    /* at most 2 numbers of 10 digits and 2 separators per rank */
    size_t cap = (size_t)(count > 0 ? count : 0) * 24 + 1, len = 0;
    char *text = malloc(cap);
    if (text == NULL) {
        scr_err("index: out of memory formatting %d ranks", count);
        return SCR_ERR_NOMEM;
    }
    text[0] = '\0';
    for (int i = 0; i < count;) {
        int j = i; /* ranks[i..j] is one run of consecutive ranks */
        while (j + 1 < count && ranks[j + 1] == ranks[j] + 1) j++;
        const char *sep = i == 0 ? "" : ",";
        int n = j == i ? snprintf(text + len, cap - len, "%s%d", sep, ranks[i])
                       : snprintf(text + len, cap - len, "%s%d-%d", sep, ranks[i], ranks[j]);
        len += (size_t)n;
        i = j + 1;
    }
    *out_text = text;
    return SCR_SUCCESS;
}

/* --- the table -------------------------------------------------------------------- */

enum column {
    COL_MARK,
    COL_ID,
    COL_NAME,
    COL_KIND,
    COL_COMPLETE,
    COL_FAILED,
    COL_FETCHED,
    COL_FLUSHED,
    COL_SIZE,
    COL_FILES,
    COL_MISSING,
    COLUMNS
};

static const struct {
    const char *header;
    int right; /* numbers are right-aligned */
} columns[COLUMNS] = {
    [COL_MARK] = {" ", 0},
    [COL_ID] = {"ID", 1},
    [COL_NAME] = {"NAME", 0},
    [COL_KIND] = {"KIND", 0},
    [COL_COMPLETE] = {"COMPLETE", 0},
    [COL_FAILED] = {"FAILED", 0},
    [COL_FETCHED] = {"FETCHED", 0},
    [COL_FLUSHED] = {"FLUSHED", 0},
    [COL_SIZE] = {"SIZE", 1},
    [COL_FILES] = {"FILES", 1},
    [COL_MISSING] = {"MISSING", 0},
};

/* Enough for any number or size a cell shows. */
#define CELL_MAX 32

static const char *kind(const scr_index_row *row)
{
    if (row->checkpoint && row->output) return "checkpoint+output";
    if (row->checkpoint) return "checkpoint";
    if (row->output) return "output";
    return "-";
}

static const char *latest(const char **times, int count)
{
    return count > 0 ? times[count - 1] : "-";
}

/* The text of column c for row (the header when row is NULL), pointing into
 * the row, at a constant, or at buf. */
static const char *cell(const scr_index_row *row, int c, char buf[CELL_MAX])
{
    if (row == NULL) return columns[c].header;
    switch (c) {
    case COL_MARK: return row->current ? "*" : " ";
    case COL_ID: snprintf(buf, CELL_MAX, "%d", row->id); return buf;
    case COL_NAME: return row->name;
    case COL_KIND: return kind(row);
    case COL_COMPLETE: return row->complete ? "yes" : "no";
    case COL_FAILED: return latest(row->failed, row->failed_count);
    case COL_FETCHED: return latest(row->fetched, row->fetched_count);
    case COL_FLUSHED: return row->flushed ? row->flushed : "-";
    case COL_SIZE:
        if (!row->has_size) return "-";
        scr_index_list_format_size(row->size, buf, CELL_MAX);
        return buf;
    case COL_FILES:
        if (row->files < 0) return "-";
        snprintf(buf, CELL_MAX, "%d", row->files);
        return buf;
    case COL_MISSING: return row->missing_ranks ? row->missing_ranks : "-";
    }
    return "";
}

/* One line of the table (the header when row is NULL); SCR_ERR_IO if
 * writing fails (the caller says so, with errno). */
static int print_line(FILE *out, const scr_index_row *row, const int width[COLUMNS])
{
    char buf[CELL_MAX];
    for (int c = 0; c < COLUMNS; c++) {
        /* the marker sits against the id, other columns two spaces apart */
        const char *gap = c == COL_MARK ? "" : c == COL_ID ? " " : "  ";
        /* the last column is not padded: a long list of ranks widens no line */
        int w = columns[c].right ? width[c] : c == COLUMNS - 1 ? 0 : -width[c];
        if (fprintf(out, "%s%*s", gap, w, cell(row, c, buf)) < 0) return SCR_ERR_IO;
    }
    return fputc('\n', out) == EOF ? SCR_ERR_IO : SCR_SUCCESS;
}

int scr_index_list_fprint_table(FILE *out, const scr_index_list *list)
{
    int width[COLUMNS] = {0};
    char buf[CELL_MAX];
    if (out == NULL || list == NULL) {
        scr_err("index: printing a table without a stream or a list");
        return SCR_ERR_ARG;
    }
    for (int i = -1; i < list->count; i++) {
        for (int c = 0; c < COLUMNS; c++) {
            size_t n = strlen(cell(i < 0 ? NULL : &list->rows[i], c, buf));
            if (n > (size_t)width[c]) width[c] = n > 4096 ? 4096 : (int)n;
        }
    }
    for (int i = -1; i < list->count; i++) {
        if (print_line(out, i < 0 ? NULL : &list->rows[i], width) != SCR_SUCCESS) {
            scr_err("writing the list of datasets failed: %s", strerror(errno));
            return SCR_ERR_IO;
        }
    }
    return SCR_SUCCESS;
}

/* --- JSON --------------------------------------------------------------------------- */

/* Add member key to obj; value NULL stands for JSON null when may_be_null,
 * for a failed allocation otherwise. SCR_ERR_NOMEM on failure (value
 * released). */
static int put(struct json_object *obj, const char *key, struct json_object *value, int may_be_null)
{
    if (value == NULL && !may_be_null) return SCR_ERR_NOMEM;
    if (json_object_object_add(obj, key, value) != 0) {
        json_object_put(value);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* array with item appended; on failure both are released and NULL returned. */
static struct json_object *push(struct json_object *array, struct json_object *item)
{
    if (item == NULL || json_object_array_add(array, item) != 0) {
        json_object_put(item);
        json_object_put(array);
        return NULL;
    }
    return array;
}

static struct json_object *times_json(const char **times, int count)
{
    struct json_object *array = json_object_new_array();
    for (int i = 0; array != NULL && i < count; i++)
        array = push(array, json_object_new_string(times[i]));
    return array;
}

static struct json_object *ranks_json(const int *ranks, int count)
{
    struct json_object *array = json_object_new_array();
    for (int i = 0; array != NULL && i < count; i++)
        array = push(array, json_object_new_int(ranks[i]));
    return array;
}

static struct json_object *row_json(const scr_index_row *row)
{
    struct json_object *obj = json_object_new_object();
    if (obj == NULL) return NULL;
    /* || stops at the first failure, so nothing is built that is not added */
    if (put(obj, "id", json_object_new_int(row->id), 0) ||
        put(obj, "name", json_object_new_string(row->name), 0) ||
        put(obj, "current", json_object_new_boolean(row->current), 0) ||
        put(obj, "checkpoint", json_object_new_boolean(row->checkpoint), 0) ||
        put(obj, "output", json_object_new_boolean(row->output), 0) ||
        put(obj, "complete", json_object_new_boolean(row->complete), 0) ||
        put(obj, "size", row->has_size ? json_object_new_uint64(row->size) : NULL,
            !row->has_size) ||
        put(obj, "files", row->files >= 0 ? json_object_new_int(row->files) : NULL,
            row->files < 0) ||
        put(obj, "flushed", row->flushed ? json_object_new_string(row->flushed) : NULL,
            row->flushed == NULL) ||
        put(obj, "fetched", times_json(row->fetched, row->fetched_count), 0) ||
        put(obj, "failed", times_json(row->failed, row->failed_count), 0) ||
        put(obj, "missing", ranks_json(row->missing, row->missing_count), 0)) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

struct json_object *scr_index_list_to_json(const scr_index_list *list, const char *prefix)
{
    if (list == NULL) {
        scr_err("index: JSON of no list");
        return NULL;
    }
    struct json_object *obj = json_object_new_object();
    struct json_object *rows = json_object_new_array();
    int bad = obj == NULL || rows == NULL ||
              (prefix != NULL && put(obj, "prefix", json_object_new_string(prefix), 0)) ||
              put(obj, "current", list->current ? json_object_new_string(list->current) : NULL,
                  list->current == NULL);
    for (int i = 0; !bad && i < list->count; i++) {
        struct json_object *row = row_json(&list->rows[i]);
        if (row == NULL || json_object_array_add(rows, row) != 0) {
            json_object_put(row);
            bad = 1;
        }
    }
    if (!bad && put(obj, "datasets", rows, 0) != SCR_SUCCESS) {
        rows = NULL; /* put released it */
        bad = 1;
    }
    if (bad) {
        scr_err("index: out of memory making the list of datasets into JSON");
        json_object_put(rows);
        json_object_put(obj);
        return NULL;
    }
    return obj;
}
