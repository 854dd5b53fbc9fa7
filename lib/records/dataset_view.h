/* dataset_view.h — one rank's part of one dataset of a filemap, read once.
 *
 * A view is a snapshot: scr_dataset_view_of reads the filemap entry of
 * (dataset, rank) once, its descriptors, the number of files expected and
 * every file listed with its meta, into memory the view owns. It is
 * read-only, valid until scr_dataset_view_free, and independent of the
 * filemap from then on: what later changes the map (a CRC set after a
 * copy, a file removed, the map deleted) does not show in it. Code that
 * changes a file's record still does so through the filemap and meta
 * setters; a caller that needs what it wrote reads the filemap again, or
 * takes a new view.
 *
 * Files come in the order scr_filemap_list_files gives (bytes of their
 * paths). A field the record lacks (or holds damaged) reads as absent:
 * NULL for a string, 0 in its has_ flag for a number. Building a view is
 * not thread-safe with changes to the map; a finished view may be read by
 * any thread. */
#ifndef SCR_DATASET_VIEW_H
#define SCR_DATASET_VIEW_H

#include "dataset.h"
#include "filemap.h"
#include "kvtree.h"
#include "meta.h"

#include <stdint.h>

/* One file of the view. Strings point into the view. */
struct scr_dataset_view_file {
    const char *path;      /* as the filemap lists it (absolute in a cache filemap) */
    const scr_meta *meta;  /* the whole record, a copy; NULL when the file has none */
    const char *name;      /* FILE: the name relative to the dataset */
    const char *type;      /* TYPE: FULL, XOR, PARTNER or RS */
    int is_app_file;       /* written by the application: TYPE FULL, or no meta at all */
    int complete;          /* COMPLETE holds 1 */
    int has_size;          /* SIZE is recorded, in size */
    uint64_t size;         /* bytes */
    int has_crc;           /* CRC is recorded, in crc */
    uint32_t crc;          /* CRC-32 of the (uncompressed) contents */
    int compressed;        /* COMPRESSED: stored as gzip, stored_size bytes long */
    uint64_t stored_size;  /* bytes on the prefix when compressed */
    const char *orig_name; /* NAME: the original file's name */
    const char *orig_path; /* PATH: the original file's directory */
};

/* One rank's part of one dataset. */
struct scr_dataset_view {
    int id;                                    /* the dataset */
    int rank;                                  /* the rank whose files these are */
    const scr_dataset *desc;                   /* DSETDESC, a copy; NULL when none */
    const scr_kvtree *reddesc;                 /* REDDESC, a copy; NULL when none */
    int expected_files;                        /* FILES; -1 when not recorded */
    int nfiles;                                /* files listed */
    const struct scr_dataset_view_file *files; /* nfiles of them (NULL when none) */
};

/* The view of rank's part of dataset id in map, in *out (free with
 * scr_dataset_view_free). SCR_ERR_NOTFOUND, not logged, when map holds
 * nothing of rank in dataset id; SCR_ERR_NOMEM (logged) when memory runs
 * out; SCR_ERR_ARG for a NULL map or out. */
int scr_dataset_view_of(const scr_filemap *map, int id, int rank, struct scr_dataset_view **out);

/* Release view and everything it points to; NULL is a no-op. */
void scr_dataset_view_free(struct scr_dataset_view *view);

#endif
