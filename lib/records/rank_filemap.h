/* rank_filemap.h — <rank>.scrfilemap: one rank's files of a dataset, stored
 * with the dataset's copy on the prefix.
 *
 * Whoever copies a dataset from cache to the prefix (a flush, or the
 * scavenge at the end of an allocation) writes, for each rank, the rank's
 * filemap entry into <dataset directory>/<rank>.scrfilemap:
 *
 *   VERSION 1
 *   DSET <id> RANK <rank>
 *   RANK <rank> DSET <id>
 *       DSETDESC {dataset descriptor}
 *       FILES <n>
 *       FILE <path relative to the dataset directory> META {meta}
 *
 * Paths are relative so that the prefix can be moved or renamed; redundancy
 * descriptors and tags describe the cache and are left out. A dataset
 * directory is <prefix>/.scr/scr.dataset.<id>, so a name may climb out of
 * it only as far as the prefix, and never into <prefix>/.scr outside the
 * dataset's own directory (the index, another dataset's records):
 * scr_rank_filemap_file_path refuses one that leads anywhere else (a
 * damaged or doctored record must not make a scan, a rebuild, a fetch or a
 * deletion read, write or remove outside the prefix or another record), and so do the
 * readers of the summary's names, which follow the same rule. The scanner of
 * a dataset directory reads these files to learn which files each rank wrote
 * and what size and CRC each should have.
 *
 * A rank filemap is a scr_filemap, so the queries of filemap.h work on it;
 * reading and writing check the shape above (relative paths, nothing
 * cache-specific) and VERSION (absent means version 1; newer is refused).
 * Not thread-safe. */
#ifndef SCR_RANK_FILEMAP_H
#define SCR_RANK_FILEMAP_H

#include "filemap.h"
#include "meta.h"

#define SCR_RANK_FILEMAP_SUFFIX ".scrfilemap"

/* <dir>/<rank>.scrfilemap in a new string the caller frees. */
int scr_rank_filemap_path(const char *dir, int rank, char **out_path);

/* 1 if name (a directory entry) is "<rank>.scrfilemap" with a plain decimal
 * rank, which goes to *out_rank; 0 otherwise. */
int scr_rank_filemap_is_name(const char *name, int *out_rank);

/* The rank filemap of rank in dataset id, from the cache filemap map, for
 * the dataset directory dir (absolute). Each file is named by where the copy
 * puts it, relative to dir: an application file (its meta has PATH and
 * NAME) goes back to PATH/NAME, any other file (redundancy data) into dir
 * under its own name. The meta of each file is copied with FILE set to that
 * relative name. *out_rmap is new (caller deletes); it is empty when the
 * entry held only what describes the cache. SCR_ERR_NOTFOUND (not
 * logged) when map has no entry for rank in dataset id; SCR_ERR_ARG (logged)
 * when dir is not absolute or two files would get the same name. */
int scr_rank_filemap_build(const scr_filemap *map, int id, int rank, const char *dir,
                           scr_filemap **out_rmap);

/* As scr_rank_filemap_build, but listing the application's files only (a
 * meta of type FULL): what a flush puts on the prefix, where the redundancy
 * data would be dead weight, since every rank's own files are there. The
 * expected file count is lowered by the redundancy files left out. */
int scr_rank_filemap_build_app(const scr_filemap *map, int id, int rank, const char *dir,
                               scr_filemap **out_rmap);

/* The name (relative to the dataset directory dir, absolute) under which
 * scr_rank_filemap_build lists the cache file file with meta meta: PATH/NAME
 * for an application file, else dir/<its own name>; a new string. */
int scr_rank_filemap_name_of(const char *dir, const char *file, const scr_meta *meta,
                             char **out_name);

/* Merge the rank filemap file at path into rmap. A missing file returns
 * SCR_ERR_NOTFOUND without logging; a damaged one is logged with the file
 * and key and leaves rmap as it was. */
int scr_rank_filemap_read(const char *path, scr_filemap *rmap);

/* Replace path with rmap (after checking it as a reader would). */
int scr_rank_filemap_write(const char *path, const scr_filemap *rmap);

/* One file of a rank: its name relative to the dataset directory and its
 * meta (NULL when the file has none). Both point into the rank filemap. */
struct scr_rank_filemap_file {
    const char *name;
    const scr_meta *meta;
};

/* The files of rank in dataset id, sorted by name, in a new array the caller
 * frees (NULL when there are none). */
int scr_rank_filemap_list_files(const scr_filemap *rmap, int id, int rank,
                                struct scr_rank_filemap_file **out_files, int *out_count);

/* Where a listed file is: the dataset directory dir joined with its
 * relative name, normalised, in a new string the caller frees. A name that
 * is absolute or leads outside the prefix of dir (two levels up) is
 * refused with SCR_ERR_FORMAT, logged naming record (the file that listed
 * it, for the message), the name and where it leads. */
int scr_rank_filemap_file_path(const char *dir, const char *name, const char *record,
                               char **out_path);

#endif
