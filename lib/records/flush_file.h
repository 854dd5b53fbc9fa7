/* flush_file.h — where each dataset of this node's cache has a copy.
 *
 * The flush file lives in the control directory. For each dataset id it
 * records the places that hold the dataset (several at once), its name, its
 * checkpoint id when it is a checkpoint, and whether it is an output dataset:
 *
 *   VERSION 1
 *   DSET
 *     6  LOCATION {CACHE, PFS}  NAME ckpt.6  CKPT 3
 *     7  LOCATION {CACHE, FLUSHING}  NAME out.7  OUTPUT 1
 *
 * CACHE: the files are in cache. PFS: a complete copy is in the prefix
 * directory. FLUSHING: a copy to the prefix started and has not completed
 * (a dataset left FLUSHING by a dead run is the one to scavenge).
 * At the end of an allocation this file tells whether the newest dataset in
 * cache still has to be copied to the prefix.
 *
 * SCR 3.1 wrote its datasets under DATASET <id> {DSETDESC, CKPT 1 (a flag),
 * LOCATION, NAME}; reading turns each into this build's DSET entry, with the
 * checkpoint id from its DSETDESC, and drops the DATASET key.
 *
 * The record is a scr_kvtree the caller owns (scr_kvtree_new/delete); the
 * functions below read and change it and keep its shape valid. Setters check
 * their arguments (SCR_ERR_ARG, logged). Getters do not log: they return
 * SCR_ERR_NOTFOUND when the dataset or key is absent and SCR_ERR_TYPE when a
 * value does not parse. Reading checks the VERSION (absent means version 1,
 * the format before VERSION existed; a newer one is refused) and every value,
 * and reports a bad one as "<file>: key <KEY> holds '<text>', expected <what>"
 * with SCR_ERR_FORMAT; the VERSION key is not kept in the tree and writing
 * puts the current one first. One process (the node's master) owns the file,
 * so there is no locking; writes replace the file atomically. Not thread-safe. */
#ifndef SCR_FLUSH_FILE_H
#define SCR_FLUSH_FILE_H

#include "kvtree.h"

/* Format version this build writes, and the newest it reads. */
#define SCR_FLUSH_FILE_VERSION 1

/* Name of the file in the control directory. */
#define SCR_FLUSH_FILE_NAME "flush.scr"

enum scr_flush_location {
    SCR_FLUSH_LOCATION_CACHE = 0,    /* "CACHE" */
    SCR_FLUSH_LOCATION_PFS = 1,      /* "PFS" */
    SCR_FLUSH_LOCATION_FLUSHING = 2, /* "FLUSHING" */
};

/* The key of a location ("CACHE", ...), NULL for a value outside the enum. */
const char *scr_flush_location_name(enum scr_flush_location loc);

/* Read path and merge its datasets into flush. A missing file returns
 * SCR_ERR_NOTFOUND without logging (no dataset has been recorded yet); a
 * damaged one is logged and leaves flush as it was. */
int scr_flush_file_read(const char *path, scr_kvtree *flush);

/* Replace path with flush and the current VERSION. */
int scr_flush_file_write(const char *path, const scr_kvtree *flush);

/* --- locations ----------------------------------------------------------- */

/* Mark / unmark dataset id (>= 1) as held at loc; setting creates the
 * dataset's entry, unsetting an absent flag does nothing. */
int scr_flush_file_set_location(scr_kvtree *flush, int id, enum scr_flush_location loc);
int scr_flush_file_unset_location(scr_kvtree *flush, int id, enum scr_flush_location loc);

/* *out_flag is 1 when dataset id is marked as held at loc, 0 when it is not;
 * SCR_ERR_NOTFOUND when the file does not know the dataset. */
int scr_flush_file_has_location(const scr_kvtree *flush, int id, enum scr_flush_location loc,
                                int *out_flag);

/* --- what the dataset is ------------------------------------------------- */

/* The dataset's name (non-empty); *out_name points into flush. */
int scr_flush_file_set_name(scr_kvtree *flush, int id, const char *name);
int scr_flush_file_get_name(const scr_kvtree *flush, int id, const char **out_name);

/* Checkpoint id (>= 1) of a dataset that is a checkpoint. */
int scr_flush_file_set_checkpoint_id(scr_kvtree *flush, int id, int ckpt_id);
int scr_flush_file_get_checkpoint_id(const scr_kvtree *flush, int id, int *out_ckpt_id);

/* Output datasets carry "OUTPUT 1"; others have no OUTPUT key (setting 0
 * removes it). *out_flag is 0 when the key is absent. */
int scr_flush_file_set_output(scr_kvtree *flush, int id, int is_output);
int scr_flush_file_is_output(const scr_kvtree *flush, int id, int *out_flag);

/* --- the set of datasets ------------------------------------------------- */

/* Forget dataset id entirely (no-op when absent). */
int scr_flush_file_remove_dataset(scr_kvtree *flush, int id);

/* Ids of all datasets in ascending order in a new array (caller frees;
 * NULL when there are none). SCR_ERR_TYPE if a dataset key is not an id. */
int scr_flush_file_list_datasets(const scr_kvtree *flush, int **out_ids, int *out_count);

/* The newest (highest id) dataset marked CACHE and whether it is also marked
 * PFS, i.e. whether it is safe in the prefix. SCR_ERR_NOTFOUND (not logged)
 * when no dataset is in cache: then there is nothing to flush. */
int scr_flush_file_newest_cached_is_flushed(const scr_kvtree *flush, int *out_id, int *out_flushed);

#endif
