/* run_cache.h — this node's cache: its directories, filemaps and eviction.
 *
 * The control and cache directories of the job on each node, the
 * directory of a dataset in its store, this rank's filemap on disk, the
 * deletion and eviction of datasets, and the questions a restart asks of
 * the cache (is a dataset intact, which is the newest). Collective over
 * run->world unless a call says otherwise. */
#ifndef SCR_RUN_CACHE_H
#define SCR_RUN_CACHE_H

#include "scr_run.h"

/* Create the control and cache directories (mode 0700) on every node. */
int scr_cache_create_dirs(struct scr_run *run);

/* <base>/<user>/scr.<jobid> with base's %N, %u, %j expanded, in a new
 * string; what names the setting in messages (base must be absolute). A
 * simulated node's is <that>/sim.<name>, %N being the real node's. */
int scr_run_job_dir(const struct scr_run *run, const char *what, const char *base, char **out_dir);

/* This job's directory in a cache store (NULL or "": the cache base). */
int scr_cache_store_dir(const struct scr_run *run, const char *store, char **out_dir);

/* Directory of dataset id in cache, in the store its redundancy record
 * names (the cache base when none does), in a new string. */
int scr_cache_dataset_dir(const struct scr_run *run, int id, char **out_dir);

/* 1 when file (this rank's, of dataset id) is the application's, not
 * redundancy data: only those go to the prefix at a flush. XOR and RS data
 * would be dead weight there, since every rank's own files are flushed; a
 * scavenge, which may miss nodes, copies it (scavenge.h). */
int scr_cache_is_app_file(const struct scr_run *run, int id, const char *file);

/* Create the directory of dataset id (and its store's job directory, owned
 * by this user, mode 0700) and give its path in a new string. */
int scr_cache_prepare_dataset_dir(const struct scr_run *run, int id, char **out_dir);

/* Write this rank's filemap to disk (not collective). */
int scr_cache_save_filemap(struct scr_run *run);

/* Read the filemaps this node's ranks left in the control directory and
 * hand each rank its own entries; leftovers stay with the node's first rank. */
int scr_cache_load_filemaps(struct scr_run *run);

/* Delete dataset id: this rank's files, its directory when empty, and the
 * filemap entries (not collective; each rank removes what it holds). */
int scr_cache_delete_dataset(struct scr_run *run, int id);

/* Make room in a store before a new checkpoint is added there: deletes the
 * oldest datasets of that store on every rank until fewer than its COUNT
 * (SCR_CACHE_SIZE for the cache base) remain. Collective. */
int scr_cache_make_room(struct scr_run *run, const char *store);

/* What scr_cache_make_room(run, store) would delete, as seen from dataset
 * id, the same on every rank (a rank that cannot tell counts as the worst
 * case): */
struct scr_eviction {
    int evicts_id;     /* dataset id itself goes on some rank */
    int older_now;     /* some rank holds datasets older than id there */
    int no_older_left; /* on some rank none older than id would be left */
};
int scr_cache_would_evict(struct scr_run *run, const char *store, int id, struct scr_eviction *out);

/* 1 on every rank when dataset id is complete in cache on every rank: each
 * file listed, complete and of the recorded size. Contents are not read
 * here: a restart from cache checks the files it reads
 * (scr_crc_async_start_check), a rebuild checks what it reads
 * (scr_crc_check_held), and files copied or rebuilt were checked as they
 * were written (a damaged one is marked incomplete). */
int scr_cache_dataset_is_intact(struct scr_run *run, int id, int *out_intact);

/* 1 when this rank's own files of dataset id are complete and of the
 * recorded size (contents as above). Not collective. */
int scr_cache_rank_is_intact(struct scr_run *run, int id);

/* The newest dataset any rank holds in cache with an id below below (0 when
 * none is left), for walking the cache newest first. Collective. */
int scr_cache_next_dataset(struct scr_run *run, int below, int *out_id);

/* The oldest dataset in this rank's part of the cache called name (only a
 * checkpoint when checkpoints_only), 0 when none. Not collective. */
int scr_cache_id_of_name(const struct scr_run *run, const char *name, int checkpoints_only);

/* Update the node's flush file for dataset id (the node's first rank writes it). */
int scr_cache_note_location(struct scr_run *run, int id, int in_cache, int on_prefix, int flushing);

/* Where this rank's encode thread keeps its filemap in a new string; scr_cache_load_filemaps
 * removes what one left unfinished. */
int scr_cache_encode_filemap_path(const struct scr_run *run, char **out_path);

#endif
