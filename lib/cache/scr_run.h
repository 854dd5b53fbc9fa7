/* scr_run.h — the state of libscr in one process, shared by its modules.
 *
 * One struct scr_run exists between SCR_Init and SCR_Finalize (the API's
 * struct scr_api owns it, api_state.h). It holds who this process is, the
 * resolved parameters, where things live, this rank's filemap and the
 * restart the fetch decided. The modules that act on it
 * (this layer's run_cache.c, run_crc.c, run_rebuild.c, ...; transfer.h and
 * the API's run_halt.h above it) are collective over
 * run->world unless they say otherwise, and end with an agreement so that
 * every rank returns the same status. Internal to libscr. */
#ifndef SCR_RUN_H
#define SCR_RUN_H

#include "config.h"
#include "dataset.h"
#include "event_log.h"
#include "filemap.h"
#include "job_env.h"
#include "kvtree.h"
#include "params.h"
#include "prefix_lock.h"
#include "reddesc.h"
#include "util_copy.h"

#include <mpi.h>
#include <stdint.h>

/* Where the restart dataset's files are read from. */
enum scr_restart_source {
    SCR_RESTART_NONE = 0,
    SCR_RESTART_CACHE,    /* this rank's files, in cache */
    SCR_RESTART_PREFIX,   /* this rank's files, read in place (SCR_FETCH_BYPASS) */
    SCR_RESTART_IN_PLACE, /* this rank's files of a checkpoint written in place (SCR_CACHE_BYPASS)
                           * that the filemap knows, read there as with SCR_RESTART_PREFIX */
    SCR_RESTART_WHOLE /* any file of a checkpoint of another number of ranks (run_fetch_whole.c) */
};

struct scr_run {
    /* who and where */
    MPI_Comm world; /* a duplicate of MPI_COMM_WORLD */
    MPI_Comm node;  /* the ranks on this node */
    int rank, ranks, node_rank, node_ranks, nodes;
    char node_name[256], user[256], jobid[256];
    /* A simulated node (SCR_SIM_NODE, job_env.h): node_name is its name,
     * base_node the real node's that a base's %N expands to, and every job
     * directory gets a sim.<name> level inside (job_dir.h). Without one,
     * sim_node is "" and base_node is node_name. */
    char sim_node[SCR_SIM_NODE_MAX + 1], base_node[256];

    /* parameters: the configuration (its descriptor tables) and what it resolved to */
    scr_config *cfg;
    char *prefix;     /* absolute, normalised */
    char *prefix_scr; /* <prefix>/.scr */
    char *cntl_dir;   /* <SCR_CNTL_BASE>/<user>/scr.<jobid>[/sim.<node>] */
    char *cache_dir;  /* <SCR_CACHE_BASE>/<user>/scr.<jobid>[/sim.<node>] */
    char *filemap_path, *master_filemap_path, *flush_path, *halt_path, *index_path;
    /* resolved once at SCR_Init, read-only after (params.h); the run owns it */
    const struct scr_params *params;
    /* this fetch reads files in place: SCR_FETCH_BYPASS, or for one
     * dataset with files several ranks wrote (run_fetch.c) */
    int fetch_in_place;

    /* rank 0: this run has the prefix to itself (prefix_lock.h) */
    struct scr_prefix_lock prefix_lock;
    struct scr_prefix_holder prefix_holder;
    int jobid_defaulted; /* no SLURM_JOB_ID or SCR_JOB_ID: a default every job of the user shares */

    /* the CRCs computed in the background, NULL when none (run_crc_async.c) */
    struct scr_crc_async *crc_in_background;

    /* this rank's files in cache, kept on disk at filemap_path */
    scr_filemap *map;

    /* redundancy descriptors of this run, with their sets */
    struct scr_reddesc *reddescs;
    int nreddescs;

    /* the encode in the background (run_encode_async.h), NULL before SCR_Init made it */
    struct scr_encoder *encoder;

    /* the restart, as the fetch decided it (run_fetch.c) */
    int restart_decided; /* Have_restart's answer is known */
    int restart_id;      /* dataset to restart from, 0 if none */
    int restart_below;   /* after a failed restart: only older datasets are offered (0: any) */
    char restart_name[1024];
    enum scr_restart_source restart_source;
    int restart_fetched;       /* fetched into cache by this run: checked as it was copied */
    scr_kvtree *restart_files; /* prefix reads: NAME -> PATH; ORIG -> PATH, SIZE, CRC when recorded
                                * (run_fetch_check.c); WHOLE: run_fetch_whole.c */

    /* the log of events (event_log.h), written by rank 0 (run_events.c) */
    struct scr_event_log events;
};

/* Seconds since an arbitrary start, for intervals. */
double scr_run_now(void);

/* --- run_events.c: the log of events ------------------------------------------------- */

/* Rank 0 records event name about dataset id (0: none; its name is looked
 * up in this rank's filemap when dname is NULL) with what is known (status
 * and reason NULL, bytes -1, seconds < 0 when not); other ranks return.
 * Not collective; never fails (event_log.h). */
void scr_run_event(struct scr_run *run, const char *name, const char *status, int id,
                   const char *dname, long long bytes, double seconds, const char *reason,
                   const struct scr_event_field *fields, int nfields);

/* --- run_cache.c: directories and filemaps of this node's cache ------------------- */

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

/* --- run_crc.c: the CRC-32 of every file in cache --------------------------------- */

/* Give each complete file of this rank's in dataset id that has no CRC yet
 * one, reading it now (where a flush that was to compute them failed;
 * otherwise run_crc_async.c does this off the application's time). Saves
 * the filemap. Not collective. */
int scr_crc_fill(struct scr_run *run, int id);

/* Read every complete file this rank holds of dataset id (its own, and
 * copies it keeps for others), before a rebuild reads them, and compare it
 * with its recorded CRC. A file
 * that differs is said once (scr_crc_say_damaged) and marked incomplete, so
 * that it counts as lost; *out_damaged counts them. Saves the filemap when
 * it changed. Not collective. */
int scr_crc_check_held(struct scr_run *run, int id, int *out_damaged);

/* The one line that says file, held for rank in dataset id, is damaged:
 * "dataset <id> (<name>): rank <rank>'s file <file><how> is damaged: CRC32
 * 0x<found> found, 0x<recorded> recorded"; how (may be NULL) says how the
 * file came to be, e.g. " rebuilt from XOR". */
void scr_crc_say_damaged(const struct scr_run *run, int id, int rank, const char *file,
                         const char *how, uint32_t found, uint32_t recorded);

/* Set the CRC of file (held for rank in dataset id) in the filemap in
 * memory, and with complete 0 mark it incomplete; the caller saves. */
int scr_crc_record(struct scr_run *run, int id, int rank, const char *file, uint32_t crc,
                   int complete);

/* --- run_crc_async.c: CRCs computed in a library thread ----------------------------- */

/* RECORD: compute, off the application's time, the CRCs of this rank's
 * complete files of dataset id that have none (SINGLE, a set of one
 * member); they are recorded at a later call (poll, wait). A job still
 * running is waited for first. Under SMPI: done and recorded now. Not
 * collective. */
int scr_crc_async_start_record(struct scr_run *run, int id);

/* Record what a finished RECORD job computed (the filemap is saved), or
 * return at once while it runs. Not collective. */
int scr_crc_async_poll(struct scr_run *run);

/* Wait for the job that runs, and record what a RECORD job computed; a
 * CHECK job's result is dropped. Not collective. */
int scr_crc_async_wait(struct scr_run *run);

/* CHECK: read this rank's complete files of dataset id (the restart) and
 * compute their CRCs while the application reads them (under SMPI: at
 * scr_crc_async_check_done). Not collective. */
int scr_crc_async_start_check(struct scr_run *run, int id);

/* Join the CHECK job of dataset id and judge each file: one whose bytes or
 * size differ from what was recorded is said in one line naming it and
 * marked incomplete (*out_damaged counts them); one without a recorded CRC
 * is said to have been read unchecked, and gets the CRC computed now. The
 * filemap is saved when it changed. Not collective. */
int scr_crc_async_check_done(struct scr_run *run, int id, int *out_damaged);

/* Join any job and forget it (the end of a run that failed). */
void scr_crc_async_teardown(struct scr_run *run);

/* --- run_redundancy_ctx.c: the way into redundancy.h ------------------------------ */

struct scr_redundancy_ctx;

/* The context of dataset id for the redundancy layer (redundancy.h), made
 * from run: its directory in cache and, with_buffers, two buffers of
 * SCR_FILE_BUF_SIZE (NULL when memory ran out; the redundancy layer says so
 * and every rank agrees where one is needed). Not collective; free with
 * scr_run_redundancy_ctx_free. */
int scr_run_redundancy_ctx(const struct scr_run *run, int id, int with_buffers,
                           struct scr_redundancy_ctx *out);
void scr_run_redundancy_ctx_free(struct scr_redundancy_ctx *ctx);

/* Apply desc's scheme to dataset id (every rank, collective;
 * scr_redundancy_apply) and log the encode event. */
int scr_run_apply_redundancy(struct scr_run *run, const struct scr_reddesc *desc, int id);

/* Where this rank's encode thread keeps its filemap (run_cache.c), in a
 * new string; scr_cache_load_filemaps removes what one left unfinished. */
int scr_cache_encode_filemap_path(const struct scr_run *run, char **out_path);

/* --- run_rebuild.c: every cached dataset back after a restart ------------------------ */

/* Move files to their owners, rebuild what is lost, delete what cannot be
 * rebuilt; *out_id is the newest complete checkpoint (0: none), in cache or
 * written in place with its files present. */
int scr_cache_rebuild(struct scr_run *run, int *out_id);

/* *out_in_place = 1 on every rank when no rank holds dataset id in cache:
 * it was written in place on the prefix (SCR_CACHE_BYPASS), or fetched
 * with SCR_FETCH_BYPASS and never recorded. Collective. */
int scr_cache_written_in_place(struct scr_run *run, int id, int *out_in_place);

/* *out_ok = 1 on every rank when every rank's records list all its files
 * of dataset id (name, for messages), written in place, and each is there
 * at its recorded size; each rank names the first of its files that is
 * missing or short, or says that its records lack the dataset. Contents
 * are not read (run_fetch_check.c does, after the restart). Collective. */
int scr_cache_in_place_is_present(struct scr_run *run, int id, const char *name, int *out_ok);

/* --- run_shared.c: one file routed on several nodes ---------------------------------- */

/* The hash that tells routed names (relative to the prefix) apart. */
uint64_t scr_shared_name_hash(const char *rel);

/* The name relative to the prefix of this rank's file of dataset id
 * (*out_rel points into the filemap, or at file when it has no meta). */
int scr_shared_file_rel(const struct scr_run *run, int id, const char *file, const char **out_rel);

/* The names of dataset id (relative to the prefix) that more than one
 * rank lists: *out_listed, a new array of *out_n (hash, number of nodes,
 * lowest world rank that lists it) triples, the same on every rank, sorted
 * by hash (NULL when none). Collective. */
int scr_shared_files_find(struct scr_run *run, int id, uint64_t **out_listed, int *out_n);

/* Of the n triples of scr_shared_files_find, the names ranks on more than
 * one node routed, each a piece per node in cache: *out_pairs, a new array
 * of *out_n (hash, number of nodes) pairs (NULL when none). */
int scr_shared_files_across_nodes(const uint64_t *listed, int n, uint64_t **out_pairs, int *out_n);

/* The lowest rank that routed the file of hash says that dataset id (name
 * in messages) cannot be cached, since ranks on nodes nodes wrote it, and
 * that SCR_CACHE_BYPASS=1 writes it in place; why (may be NULL) adds the
 * reason in brackets. Collective. */
int scr_shared_file_refuse(struct scr_run *run, int id, const char *name, uint64_t hash, int nodes,
                           const char *why);

/* SCR_Route_file of rel to dest (in cache) for dataset id: the second rank
 * of this node to route rel (the only rank, on a node that runs one rank
 * of a job on several nodes) creates dest, empty, unless it exists, so that
 * a rank may open without O_CREAT a file a rank on another node created.
 * Not collective. */
int scr_shared_route_note(struct scr_run *run, int id, const char *rel, const char *dest);

/* The node's first rank removes every note of a route into dataset id,
 * which a run that crashed may have left (the other ranks return at once).
 * Before the dataset's first route. */
int scr_shared_route_clear(struct scr_run *run, int id);

/* Remove this node's notes of the routes of dataset id (after its last
 * route: at its completion, after a barrier). Not collective. */
void scr_shared_route_forget(struct scr_run *run, int id);

#endif
