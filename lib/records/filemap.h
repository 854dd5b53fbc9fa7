/* filemap.h — which files each rank holds for each dataset in this node's cache.
 *
 * Each process keeps its filemap in a file of its own in the control
 * directory. An entry is added *before* its file is created and removed
 * *after* the file is deleted, so after a crash every file in cache is named
 * by some filemap (the reverse need not hold). Layout:
 *
 *   VERSION 1                                (in the file only)
 *   DSET <id> RANK <rank>                    index: ranks by dataset
 *   RANK <rank> DSET <id>                    the data
 *       DSETDESC {dataset descriptor}        dataset.h
 *       REDDESC {redundancy descriptor}      opaque here
 *       FILES <n>                            files the rank wrote (expected)
 *       FILE <absolute path> META {meta}     meta.h
 *       <tag> <value>                        any other key: a caller's tag
 *
 * Dataset ids are >= 1 and ranks >= 0. The DSET index is kept in step with
 * the RANK entries by every call here: an entry (rank, dataset) exists as
 * long as it holds anything, and disappears, with its index entry, when the
 * last thing in it is removed.
 *
 * Files are written in one canonical order whatever the order of the calls
 * that built the map: every level sorted, integer keys numerically, others
 * by bytes, VERSION first. Reading merges the file into the caller's map;
 * it checks VERSION (absent means version 1, the format before VERSION
 * existed; a newer one is refused) and every value, and reports a bad one as
 * "<file>: key <KEY...> holds '<text>', expected <what>" with SCR_ERR_FORMAT,
 * leaving the map as it was. Merging two maps that give one key of an entry
 * two different values (FILES, a tag) keeps both, and the getters then
 * answer SCR_ERR_TYPE.
 *
 * The rank filemap of a dataset directory (rank_filemap.h) has the same
 * shape with relative paths and no REDDESC or tags; it reads and writes
 * through the _kind calls below.
 *
 * Setters log bad arguments (SCR_ERR_ARG). Getters never log: SCR_ERR_NOTFOUND
 * when the entry or key is absent, SCR_ERR_TYPE for a damaged value. Lists
 * are new arrays the caller frees (NULL when empty); strings in them point
 * into the map and stay valid until the map changes. Not thread-safe. */
#ifndef SCR_FILEMAP_H
#define SCR_FILEMAP_H

#include "dataset.h"
#include "kvtree.h"
#include "meta.h"

typedef struct scr_kvtree scr_filemap;

/* Format version this build writes, and the newest it reads. */
#define SCR_FILEMAP_VERSION 1

#define SCR_FILEMAP_KEY_DSET "DSET"
#define SCR_FILEMAP_KEY_RANK "RANK"
#define SCR_FILEMAP_KEY_DSETDESC "DSETDESC"
#define SCR_FILEMAP_KEY_REDDESC "REDDESC"
#define SCR_FILEMAP_KEY_FILES "FILES"
#define SCR_FILEMAP_KEY_FILE "FILE"
#define SCR_FILEMAP_KEY_META "META"

/* --- maps as a whole ------------------------------------------------------- */

/* A new empty map (free with scr_filemap_delete); NULL if out of memory. */
scr_filemap *scr_filemap_new(void);
void scr_filemap_delete(scr_filemap *map);

/* Copy every entry of src into dst. */
int scr_filemap_merge(scr_filemap *dst, const scr_filemap *src);

/* Remove every entry. */
void scr_filemap_clear(scr_filemap *map);

/* --- adding and removing ---------------------------------------------------- */

/* List file (a non-empty path; absolute in a cache filemap, which is checked
 * when the map is written) for rank in dataset id. Adding it again is a no-op. */
int scr_filemap_add_file(scr_filemap *map, int id, int rank, const char *file);

/* Unlist file with its meta; no-op when absent. */
int scr_filemap_remove_file(scr_filemap *map, int id, int rank, const char *file);

/* Remove everything of dataset id / of rank / of rank in dataset id. */
int scr_filemap_remove_dataset(scr_filemap *map, int id);
int scr_filemap_remove_rank(scr_filemap *map, int rank);
int scr_filemap_remove_rank_by_dataset(scr_filemap *map, int id, int rank);

/* Move everything of rank into a new map (*out_map, caller deletes; empty
 * when the map had nothing of rank). */
int scr_filemap_extract_rank(scr_filemap *map, int rank, scr_filemap **out_map);

/* --- questions --------------------------------------------------------------- */

int scr_filemap_num_datasets(const scr_filemap *map);
int scr_filemap_num_ranks(const scr_filemap *map);
int scr_filemap_num_ranks_by_dataset(const scr_filemap *map, int id);

/* Files listed for rank in dataset id (the "actual" count). */
int scr_filemap_num_files(const scr_filemap *map, int id, int rank);

/* Highest / lowest dataset id; SCR_ERR_NOTFOUND when the map is empty. */
int scr_filemap_latest_dataset(const scr_filemap *map, int *out_id);
int scr_filemap_oldest_dataset(const scr_filemap *map, int *out_id);

/* 1 if the map holds anything of rank (in dataset id), else 0. */
int scr_filemap_have_rank(const scr_filemap *map, int rank);
int scr_filemap_have_rank_by_dataset(const scr_filemap *map, int id, int rank);

/* 1 if file is listed for rank in dataset id, else 0. */
int scr_filemap_have_file(const scr_filemap *map, int id, int rank, const char *file);

/* The number of files rank wrote in dataset id (FILES), which may differ
 * from the files listed while some are missing. */
int scr_filemap_set_expected_files(scr_filemap *map, int id, int rank, int count);
int scr_filemap_get_expected_files(const scr_filemap *map, int id, int rank, int *out_count);
int scr_filemap_unset_expected_files(scr_filemap *map, int id, int rank);

/* --- lists (sorted) ------------------------------------------------------------ */

/* Dataset ids / ranks in ascending order. SCR_ERR_TYPE if a key is not a
 * number (the map was changed behind this module's back). */
int scr_filemap_list_datasets(const scr_filemap *map, int **out_ids, int *out_count);
int scr_filemap_list_ranks(const scr_filemap *map, int **out_ranks, int *out_count);
int scr_filemap_list_ranks_by_dataset(const scr_filemap *map, int id, int **out_ranks,
                                      int *out_count);

/* Files of rank in dataset id in byte order. */
int scr_filemap_list_files(const scr_filemap *map, int id, int rank, const char ***out_files,
                           int *out_count);

/* --- iterators (stored order; use scr_kvtree_elem_next / _key) ----------------- */

scr_kvtree_elem *scr_filemap_first_dataset(const scr_filemap *map);
scr_kvtree_elem *scr_filemap_first_rank(const scr_filemap *map);
scr_kvtree_elem *scr_filemap_first_rank_by_dataset(const scr_filemap *map, int id);
scr_kvtree_elem *scr_filemap_first_file(const scr_filemap *map, int id, int rank);

/* --- descriptors ----------------------------------------------------------------
 * set stores a copy; get gives a pointer into the map. */

int scr_filemap_set_dataset(scr_filemap *map, int id, int rank, const scr_dataset *desc);
int scr_filemap_get_dataset(const scr_filemap *map, int id, int rank, const scr_dataset **out_desc);
int scr_filemap_unset_dataset(scr_filemap *map, int id, int rank);

int scr_filemap_set_reddesc(scr_filemap *map, int id, int rank, const scr_kvtree *desc);
int scr_filemap_get_reddesc(const scr_filemap *map, int id, int rank, const scr_kvtree **out_desc);
int scr_filemap_unset_reddesc(scr_filemap *map, int id, int rank);

/* --- per-file meta ---------------------------------------------------------------
 * set stores a copy (and lists the file if it was not); get gives a pointer
 * into the map, SCR_ERR_NOTFOUND when the file or its meta is absent. */

int scr_filemap_set_meta(scr_filemap *map, int id, int rank, const char *file,
                         const scr_meta *meta);
int scr_filemap_get_meta(const scr_filemap *map, int id, int rank, const char *file,
                         const scr_meta **out_meta);
int scr_filemap_unset_meta(scr_filemap *map, int id, int rank, const char *file);

/* --- tags ------------------------------------------------------------------------
 * A tag is any key of an entry other than DSETDESC, REDDESC, FILES and FILE
 * (those are refused), holding one string value. */

int scr_filemap_set_tag(scr_filemap *map, int id, int rank, const char *tag, const char *value);
int scr_filemap_get_tag(const scr_filemap *map, int id, int rank, const char *tag,
                        const char **out_value);
int scr_filemap_unset_tag(scr_filemap *map, int id, int rank, const char *tag);

/* --- files -------------------------------------------------------------------- */

/* Merge the filemap file at path into map. A missing file returns
 * SCR_ERR_NOTFOUND without logging. */
int scr_filemap_read(const char *path, scr_filemap *map);

/* Replace path with map (after checking it as a reader would). */
int scr_filemap_write(const char *path, const scr_filemap *map);

/* The same for the two kinds of filemap files: a cache filemap (absolute
 * paths, REDDESC and tags allowed) or a rank filemap (relative paths, neither
 * REDDESC nor tags). Both have format version SCR_FILEMAP_VERSION. */
enum scr_filemap_kind { SCR_FILEMAP_CACHE = 0, SCR_FILEMAP_RANK = 1 };
int scr_filemap_read_kind(const char *path, enum scr_filemap_kind kind, scr_filemap *map);
int scr_filemap_write_kind(const char *path, enum scr_filemap_kind kind, const scr_filemap *map);

#endif
