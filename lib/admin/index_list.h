/* index_list.h — the datasets of an index as rows, shown as a table or as JSON.
 *
 * scr-index --list, the Slurm plugin and other commands all present an
 * index (index_file.h) the same way: one row per dataset, newest first, with
 * what a user asks before a restart — is it current, a checkpoint or output,
 * complete (and if not, which ranks lost their files), when was it flushed,
 * fetched or did a fetch fail, how big is it.
 * Building the rows checks nothing beyond what scr_index_file_read checked;
 * a key that is absent shows as absent ("-" in the table, null in JSON).
 *
 * A list points into the index it was built from: its strings stay valid
 * until that index changes or is deleted. Not thread-safe. */
#ifndef SCR_INDEX_LIST_H
#define SCR_INDEX_LIST_H

#include "kvtree.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/* One dataset of the index. Times are "YYYY-MM-DDTHH:MM:SS". */
typedef struct scr_index_row {
    int id;
    const char *name;
    int current;          /* 1 when CURRENT names this dataset */
    int checkpoint;       /* scr_dataset_is_checkpoint of its descriptor */
    int output;           /* scr_dataset_is_output of its descriptor */
    int complete;         /* 1 only when COMPLETE is 1 */
    int has_size;         /* 1 when the descriptor holds SIZE */
    uint64_t size;        /* bytes */
    int files;            /* FILES of the descriptor, -1 when absent */
    const char *flushed;  /* NULL when never flushed */
    const char **fetched; /* oldest first */
    int fetched_count;
    const char **failed; /* oldest first */
    int failed_count;
    int *missing; /* MISSING ranks of an incomplete dataset, ascending; owned */
    int missing_count;
    char *missing_ranks; /* the same as "3,5-7,10" (owned), NULL when none */
} scr_index_row;

typedef struct scr_index_list {
    const char *current; /* the name CURRENT holds, NULL when unset */
    scr_index_row *rows; /* newest (highest id) first */
    int count;
} scr_index_list;

/* The rows of index, in a new list freed with scr_index_list_delete. An
 * empty tree gives an empty list. SCR_ERR_NOMEM, or SCR_ERR_TYPE when a
 * value is damaged (possible only for a tree not read from a file), logged. */
int scr_index_list_build(const scr_kvtree *index, scr_index_list **out_list);
void scr_index_list_delete(scr_index_list *list);

/* bytes for people: "512 B", "1.5 MiB", "3.0 GiB" (powers of 1024, one
 * decimal from KiB on). buf needs SCR_INDEX_LIST_SIZE_TEXT bytes. */
#define SCR_INDEX_LIST_SIZE_TEXT 32
void scr_index_list_format_size(uint64_t bytes, char *buf, size_t len);

/* ranks (ascending) in compact range form, "3,5-7,10", in a new string the
 * caller frees ("" when count is 0). SCR_ERR_NOMEM, logged. */
int scr_index_list_format_ranks(const int *ranks, int count, char **out_text);

/* A header line, then one line per row, columns aligned:
 *   <*> ID NAME KIND COMPLETE FAILED FETCHED FLUSHED SIZE FILES MISSING
 * where the first column holds '*' on the current dataset, FAILED and FETCHED
 * show the latest time, KIND is checkpoint, output or checkpoint+output, and
 * MISSING the ranks whose files are lost in range form ("3,5-7,10", "-" when
 * none); the last column is not padded. Every line after the header is one
 * dataset, so scripts may take fields by position.
 * SCR_ERR_IO (logged) when writing fails. */
int scr_index_list_fprint_table(FILE *out, const scr_index_list *list);

/* The list as a new json-c object (release with json_object_put):
 *   {"prefix": prefix, "current": name or null, "datasets": [row, ...]}
 * with "prefix" left out when prefix is NULL, and each row
 *   {"id", "name", "current", "checkpoint", "output", "complete",
 *    "size" (bytes or null), "files" (or null), "flushed" (or null),
 *    "fetched": [times, oldest first], "failed": [times, oldest first],
 *    "missing": [ranks, ascending; empty unless the index lists MISSING]}.
 * NULL (logged) if out of memory. */
struct json_object *scr_index_list_to_json(const scr_index_list *list, const char *prefix);

#endif
