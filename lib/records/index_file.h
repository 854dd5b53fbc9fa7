/* index_file.h — <prefix>/.scr/index.scr: the datasets kept on the prefix.
 *
 *   VERSION 2
 *   CURRENT <name>                      dataset to restart from (optional)
 *   DSET <id>
 *     NAME <name>                       unique among the datasets
 *     DSETDESC {dataset descriptor}     dataset.h
 *     COMPLETE 0/1                      all files present and valid
 *     FLUSHED <time>                    when the copy to the prefix ended
 *     FETCHED <time> <time> ...         each restart that read it
 *     FAILED <time> ...                 each restart that could not read it
 *     MISSING <rank> ...                ranks whose files are lost (COMPLETE 0)
 *
 * An index SCR 3.1 wrote also holds a top-level NAME map and, in each entry,
 * its descriptor under DSET instead of NAME and DSETDESC: index_scr31.h reads
 * those, and keeps them in step while the map is there.
 *
 * Times are local "YYYY-MM-DDTHH:MM:SS" (scr_index_file_format_timestamp);
 * callers pass them in so that what is recorded is theirs to choose. A
 * dataset enters the index once it is complete on the prefix; restarts and
 * the scr-index command read it.
 *
 * Several processes update the file (the library's rank 0, the scavenge of
 * the Slurm plugin, the commands), so updates are a read-modify-write under
 * an exclusive fcntl lock (scr_index_file_lock_read, change the tree,
 * scr_index_file_write_unlock); plain reads take a shared lock. Writes
 * replace the file atomically, in one canonical order (VERSION, CURRENT,
 * then datasets by id, every level sorted).
 *
 * Version 1 was the layout of checkpoint directories (DIR and CKPT keys);
 * its datasets have no place in this one, so such an index is refused with
 * a message. A file without VERSION is read as version 2 unless it has that
 * old layout; a VERSION above 2 is refused with a message naming file and
 * version. Reading checks every value and reports a bad one as
 * "<file>: key <KEY...> holds '<text>', expected <what>" with SCR_ERR_FORMAT,
 * leaving the caller's tree as it was; VERSION is not kept in the tree.
 *
 * The record is a scr_kvtree the caller owns. Setters check their arguments
 * and log (SCR_ERR_ARG, or SCR_ERR_NOTFOUND for a dataset not in the index);
 * getters never log: SCR_ERR_NOTFOUND when the dataset or key is absent,
 * SCR_ERR_TYPE for a damaged value. Not thread-safe. */
#ifndef SCR_INDEX_FILE_H
#define SCR_INDEX_FILE_H

#include "dataset.h"
#include "kvtree.h"

#include <stddef.h>
#include <time.h>

/* Format version this build writes, and the newest it reads. */
#define SCR_INDEX_FILE_VERSION 2

/* Bytes a timestamp needs, with its NUL. */
#define SCR_INDEX_TIMESTAMP_SIZE 20

/* <prefix>/.scr/index.scr, normalised, in a new string the caller frees. */
int scr_index_file_path(const char *prefix, char **out_path);

/* when as local time "YYYY-MM-DDTHH:MM:SS" into buf (len >= SCR_INDEX_TIMESTAMP_SIZE). */
int scr_index_file_format_timestamp(time_t when, char *buf, size_t len);

/* --- the file ------------------------------------------------------------------ */

/* Read path under a shared lock and merge it into index. A missing file
 * returns SCR_ERR_NOTFOUND without logging (nothing was flushed yet); an
 * empty (0-byte) one is damaged like any other the reader refuses:
 * SCR_ERR_FORMAT, logged naming the file (index_rebuild.h rebuilds it). */
int scr_index_file_read(const char *path, scr_kvtree *index);

/* Check the bytes buf (len of them, read from path) as scr_index_file_read
 * checks a file, and merge them into index. */
int scr_index_file_parse(const char *path, const void *buf, size_t len, scr_kvtree *index);

/* Create the directory and the file (with no datasets) if needed, lock
 * path exclusively and merge its contents into index. On success *out_fd holds the lock until
 * scr_index_file_write_unlock or scr_index_file_unlock. */
int scr_index_file_lock_read(const char *path, int *out_fd, scr_kvtree *index);

/* Replace path with index and the current VERSION, then release the lock and
 * close *fd (set to -1); the lock is released even when the write fails. */
int scr_index_file_write_unlock(const char *path, int *fd, const scr_kvtree *index);

/* Release the lock without writing. */
void scr_index_file_unlock(int *fd);

/* Lock path, read it, let change alter the tree, and write it back; when
 * change returns an error the file is left as it was, the lock released and
 * that error returned. */
int scr_index_file_update(const char *path, int (*change)(scr_kvtree *index, void *ctx), void *ctx);

/* --- datasets ------------------------------------------------------------------ */

/* Add the dataset desc describes, or update it: its ID and NAME must be set,
 * and the name may not belong to another dataset. Stores a copy of desc, the
 * name and COMPLETE; FLUSHED, FETCHED and FAILED of an existing entry stay. */
int scr_index_file_set_dataset(scr_kvtree *index, const scr_dataset *desc, int complete);

int scr_index_file_get_dataset(const scr_kvtree *index, int id, const scr_dataset **out_desc);
int scr_index_file_get_name(const scr_kvtree *index, int id, const char **out_name);

int scr_index_file_set_complete(scr_kvtree *index, int id, int complete);
int scr_index_file_get_complete(const scr_kvtree *index, int id, int *out_complete);

/* The id of the dataset called name. */
int scr_index_file_lookup_id(const scr_kvtree *index, const char *name, int *out_id);

/* Drop dataset id from the index (no-op when absent); CURRENT goes with it
 * when it named the dataset. */
int scr_index_file_remove(scr_kvtree *index, int id);

/* Ids from newest (highest) to oldest, in a new array the caller frees
 * (NULL when empty). */
int scr_index_file_list_ids(const scr_kvtree *index, int **out_ids, int *out_count);

/* --- current ---------------------------------------------------------------- */

/* CURRENT must name a dataset of the index. */
int scr_index_file_set_current(scr_kvtree *index, const char *name);
int scr_index_file_get_current(const scr_kvtree *index, const char **out_name);
int scr_index_file_unset_current(scr_kvtree *index);

/* --- history ------------------------------------------------------------------ */

/* FLUSHED is one time (replaced); FETCHED and FAILED collect times. */
int scr_index_file_mark_flushed(scr_kvtree *index, int id, const char *timestamp);
int scr_index_file_mark_fetched(scr_kvtree *index, int id, const char *timestamp);
int scr_index_file_mark_failed(scr_kvtree *index, int id, const char *timestamp);

int scr_index_file_get_flushed(const scr_kvtree *index, int id, const char **out_timestamp);

/* FETCHED / FAILED times of dataset id, oldest first, pointing into index,
 * in a new array the caller frees (NULL when none). SCR_ERR_NOTFOUND when
 * the dataset is not in the index. */
int scr_index_file_list_fetched(const scr_kvtree *index, int id, const char ***out_times,
                                int *out_count);
int scr_index_file_list_failed(const scr_kvtree *index, int id, const char ***out_times,
                               int *out_count);

/* --- missing ranks ------------------------------------------------------------- */

/* The ranks whose files an incomplete dataset lacks (replacing any list;
 * count 0 removes it). */
int scr_index_file_set_missing(scr_kvtree *index, int id, const int *ranks, int count);

/* The MISSING ranks of dataset id, ascending, in a new array the caller
 * frees (NULL when none). SCR_ERR_NOTFOUND when the dataset is not listed. */
int scr_index_file_list_missing(const scr_kvtree *index, int id, int **out_ranks, int *out_count);

/* --- restart ---------------------------------------------------------------------- */

/* Whether a restart may load dataset id: a checkpoint, COMPLETE, and never
 * FAILED a fetch. *out_why is NULL when it may, otherwise a short reason
 * ("is not complete", ...; static text, not logged). SCR_ERR_NOTFOUND when
 * the dataset is not in the index. */
int scr_index_file_restartable(const scr_kvtree *index, int id, const char **out_why);

/* The dataset a restart should try: the newest restartable one (above),
 * among those at or older than CURRENT when
 * CURRENT is set (a CURRENT naming no dataset of the index is ignored with a
 * warning). SCR_ERR_NOTFOUND (not logged) when there is none. */
int scr_index_file_restart_candidate(const scr_kvtree *index, int *out_id);

/* The same among the datasets older than below: after a restart from one
 * failed, the next one tried is older, whatever the index says of it. */
int scr_index_file_restart_candidate_below(const scr_kvtree *index, int below, int *out_id);

#endif
