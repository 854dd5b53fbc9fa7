/* complete.c — SCR_Complete_output as named steps (complete.h). */
#include "complete.h"
#include "flush_async.h"

#include "meta.h"
#include "mpi_comm.h"
#include "run_cache.h"
#include "run_crc.h"
#include "run_crc_async.h"
#include "run_encode_async.h"
#include "run_events.h"
#include "run_halt.h"
#include "run_redundancy_ctx.h"
#include "run_shared.h"
#include "scr_err.h"
#include "shared_merge.h"
#include "transfer.h"
#include "util_copy.h"
#include "util_log.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

/* What the steps learn of the dataset they complete. */
struct completion {
    int id;
    const char *name; /* for messages: run->dset's */
    int is_ckpt, is_output;
    const struct scr_reddesc *red;   /* its redundancy scheme, and so its store */
    int all_valid;                   /* every rank's files are valid */
    unsigned long long bytes, files; /* the dataset's, summed over the ranks */
    int busy_ranks; /* ranks that found their cores busy while the application worked */
    int flush;      /* it goes to the prefix now */
    int encoding;   /* its scheme is applied in the background, which records the CRCs */
};

/* --- files, CRCs and totals, as the steps need them --------------------------------- */

/* One file of this rank's part of dataset id: its size, its CRC (with
 * SCR_CRC_ON_COPY, read in L2-sized pieces) and whether it is complete, in
 * its meta; a file routed but never written makes *valid 0. *out_bytes
 * grows by its size. */
static int seal_file(struct scr_run *run, int id, const char *file, int *valid, uint64_t *out_bytes)
{
    const scr_meta *stored = NULL;
    struct stat st;
    int exists = 0;
    scr_meta *meta = scr_meta_new();
    if (meta == NULL) return SCR_ERR_NOMEM;
    int rc = scr_filemap_get_meta(run->map, id, run->rank, file, &stored);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_copy(meta, stored);
    if (rc != SCR_SUCCESS) goto out;
    exists = stat(file, &st) == 0;
    if (!exists) {
        const char *orig = file;
        scr_meta_get_orig(meta, &orig);
        scr_err("file %s was routed (as %s) but never written", orig, file);
        *valid = 0;
    } else {
        rc = scr_meta_set_filesize(meta, (uint64_t)st.st_size);
        *out_bytes += (uint64_t)st.st_size;
        if (rc != SCR_SUCCESS) goto out;
        if (run->params->crc_on_copy) {
            uint32_t crc = 0;
            rc = scr_crc_file_l2(file, &crc, NULL);
            if (rc != SCR_SUCCESS) goto out;
            rc = scr_meta_set_crc32(meta, crc);
            if (rc != SCR_SUCCESS) goto out;
        }
    }
    rc = scr_meta_set_complete(meta, *valid && exists);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_meta(run->map, id, run->rank, file, meta);
out:
    scr_meta_delete(meta);
    return rc;
}

/* Record size, completeness and (SCR_CRC_ON_COPY, in a pass of its own as
 * SCR does) CRC of this rank's files. Without SCR_CRC_ON_COPY the CRCs come
 * later: from the redundancy encoding, which reads every byte anyway, else
 * from the flush or a library thread (start_crcs, run_crc_async.c). */
static int seal_my_files(struct scr_run *run, int id, int *valid, uint64_t *out_bytes,
                         int *out_files)
{
    const char **files = NULL;
    int nfiles = 0;
    *out_bytes = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &nfiles);
    if (rc != SCR_SUCCESS) goto out;
    for (int f = 0; f < nfiles; f++) {
        rc = seal_file(run, id, files[f], valid, out_bytes);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_filemap_set_expected_files(run->map, id, run->rank, nfiles);
out:
    free(files);
    *out_files = nfiles;
    return rc;
}

/* The CRCs of this rank's files of dataset id that have none, computed in
 * the background (run_crc_async.c); every rank agrees whether that started. */
static int start_crcs(struct scr_run *run, int id)
{
    int rc = scr_crc_async_start_record(run, id), ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    if (!ok && run->rank == 0)
        scr_err("dataset %d: the CRCs of its files could not be started on every rank", id);
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* scr_crc_fill on every rank, which agree on the outcome. */
static int fill_crcs(struct scr_run *run, int id)
{
    int rc = scr_crc_fill(run, id), ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    if (!ok && run->rank == 0)
        scr_err("dataset %d: the CRCs of its files could not be recorded on every rank", id);
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* The dataset's size, file count and completeness, in its descriptor and
 * this rank's filemap, which is saved. */
static int write_totals(struct scr_api *api, int id, uint64_t bytes, int files, int complete)
{
    struct scr_run *run = api->run;
    int rc = scr_dataset_set_size(api->dset, bytes);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_dataset_set_files(api->dset, files);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_dataset_set_complete(api->dset, complete);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_dataset(run->map, id, run->rank, api->dset);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

/* The names of dataset id (name) that several ranks list. Those that ranks
 * on several nodes routed into cache are merged on the prefix, and the
 * dataset is written in place from here on; when two nodes wrote a same
 * byte, or some rank's output is not valid, *valid becomes 0 on every
 * rank. A dataset that ends on the prefix (merged, or written in place
 * with SCR_CACHE_BYPASS=1) records in its descriptor how many of its names
 * several ranks list, so that its flush and a restart from the records
 * read each such file once for its CRC (shared_crc.h) and a dataset of a
 * file per process asks nothing more. Collective; all ranks agree. */
static int find_shared_files(struct scr_api *api, int id, const char *name, int *valid)
{
    struct scr_run *run = api->run;
    uint64_t *listed = NULL, *shared = NULL;
    int nlisted = 0, nshared = 0, all_valid = 0, refused = 0, ok = 0;
    int in_cache = api->dset_in_cache;
    int rc = scr_shared_files_find(run, id, &listed, &nlisted); /* all ranks agree */
    /* every route is done (the caller waited for every rank) */
    if (in_cache) scr_shared_route_forget(run, id);
    if (rc != SCR_SUCCESS) goto out;
    int lrc = scr_shared_files_across_nodes(listed, nlisted, &shared, &nshared);
    /* all ranks agree: */
    rc = scr_comm_all_true(lrc == SCR_SUCCESS, run->world, &ok);
    if (rc == SCR_SUCCESS && !ok) rc = SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS || !in_cache || nshared == 0) goto out;
    /* pieces are merged only when every rank says its output is good */
    rc = scr_comm_all_true(*valid, run->world, &all_valid);
    if (rc != SCR_SUCCESS || !all_valid) goto out;
    rc = scr_shared_merge(run, id, name, shared, nshared, &refused); /* all ranks agree */
    if (rc == SCR_ERR_IO || rc == SCR_ERR_NOMEM) { /* agreed, and said where it failed */
        if (run->rank == 0)
            scr_err("dataset %d (%s): the files its ranks on several nodes wrote could not be "
                    "merged on the "
                    "prefix %s",
                    id, name, run->prefix);
        rc = SCR_SUCCESS;
        refused = 1;
    }
    if (rc == SCR_SUCCESS && refused) *valid = 0;
    if (rc == SCR_SUCCESS && !refused) api->dset_in_cache = 0;
out:
    /* the same count on every rank: the descriptor is every rank's */
    if (rc == SCR_SUCCESS && !api->dset_in_cache) {
        int src = scr_dataset_set_shared_names(api->dset, nlisted);
        /* all ranks agree: */
        rc = scr_comm_all_true(src == SCR_SUCCESS, run->world, &ok);
        if (rc == SCR_SUCCESS && !ok) rc = SCR_ERR_NOMEM;
    }
    free(listed);
    free(shared);
    return rc;
}

/* --- the steps ------------------------------------------------------------------- */

/* What the dataset is: its id, name, kind and redundancy scheme. Not collective. */
static void describe_dataset(const struct scr_api *api, struct completion *c)
{
    const struct scr_run *run = api->run;
    c->id = api->dataset_id;
    c->name = "?";
    scr_dataset_get_name(api->dset, &c->name);
    c->is_ckpt = scr_dataset_is_checkpoint(api->dset);
    c->is_output = scr_dataset_is_output(api->dset);
    c->red = scr_reddesc_for(run->reddescs, run->nreddescs, c->id, c->is_output && !c->is_ckpt);
}

/* Every rank learns whether every rank's files are valid (mine_valid: this
 * rank's), the totals (bytes and files: this rank's), and how many ranks
 * found their cores busy while the application worked. Collective; all
 * ranks agree. */
static int add_up(struct scr_run *run, int mine_valid, uint64_t bytes, int files,
                  struct completion *c)
{
    unsigned long long sums[3] = {bytes, (unsigned long long)files,
                                  (unsigned long long)scr_encoder_cores_busy(run->encoder)};
    unsigned long long totals[3] = {0, 0, 0};
    int mrc = scr_comm_all_true(mine_valid, run->world, &c->all_valid);
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(
            MPI_Allreduce(sums, totals, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, run->world),
            "adding up the dataset's size");
    if (mrc != SCR_SUCCESS) return mrc;
    c->bytes = totals[0];
    c->files = totals[1];
    c->busy_ranks = (int)totals[2];
    return SCR_SUCCESS;
}

/* Agree on validity: every rank is done writing, the files ranks on
 * several nodes wrote are merged, this rank's files are sealed, and every
 * rank learns whether all are valid and the totals. Collective; all ranks
 * agree. */
static int agree_on_validity(struct scr_api *api, int valid, struct completion *c)
{
    struct scr_run *run = api->run;
    int mine_valid = valid ? 1 : 0, files = 0;
    uint64_t bytes = 0;
    /* a file several ranks write (one shared file) has its size only once
     * every rank is done with it */
    int rc = scr_mpi_check(MPI_Barrier(run->world), "waiting for every rank's files");
    if (rc != SCR_SUCCESS) return rc;
    /* a file routed on several nodes is in pieces, one per node's cache:
     * merged on the prefix, where the dataset then lives as one written
     * in place (shared_merge.h); a dataset written in place has its names
     * that several ranks list counted only when its flush takes CRCs */
    if (api->dset_in_cache || run->params->crc_on_flush) {
        rc = find_shared_files(api, c->id, c->name, &mine_valid);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = seal_my_files(run, c->id, &mine_valid, &bytes, &files);
    if (rc != SCR_SUCCESS) mine_valid = 0;
    return add_up(run, mine_valid, bytes, files, c);
}

/* Record totals: in the descriptor and every rank's filemap, with the event
 * that says how the dataset ended; one not valid on every rank, or whose
 * record could not be written, is deleted (SCR_FAILURE). A checkpoint
 * counts in the time spent checkpointing and in CheckpointsLeft.
 * Collective; all ranks agree. */
static int record_totals(struct scr_api *api, const struct completion *c)
{
    struct scr_run *run = api->run;
    int rc = write_totals(api, c->id, c->bytes, c->files > INT_MAX ? INT_MAX : (int)c->files,
                          c->all_valid);
    int ok = 0;
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    const char *done_event = c->is_ckpt ? SCR_EVENT_CHECKPOINT_COMPLETE : SCR_EVENT_OUTPUT_COMPLETE;
    double seconds = scr_run_now() - api->time_ckpt_start;
    if (!c->all_valid || !ok) {
        scr_run_event(
            run, done_event, SCR_EVENT_FAILED, c->id, c->name, (long long)c->bytes, seconds,
            !c->all_valid ? "not valid on every rank" : "its record could not be written", NULL, 0);
        if (run->rank == 0)
            scr_err("dataset %d (%s) is not valid on every rank; it is deleted and will not be "
                    "used to restart",
                    c->id, c->name);
        scr_cache_delete_dataset(run, c->id);
        scr_cache_note_location(run, c->id, 0, 0, 0);
        return SCR_FAILURE;
    }
    struct scr_event_field files_field[] = {SCR_EVENT_INT("files", (long long)c->files)};
    scr_run_event(run, done_event, SCR_EVENT_OK, c->id, c->name, (long long)c->bytes, seconds, NULL,
                  files_field, 1);
    if (c->is_ckpt) {
        double now = scr_run_now();
        api->time_in_ckpt += now - api->time_ckpt_start;
        api->time_last_ckpt_end = now;
        scr_run_halt_count_checkpoint(run);
    }
    return SCR_SUCCESS;
}

/* Whether the dataset goes to the prefix now: output always, a checkpoint
 * every SCR_FLUSH of them, a dataset written in place to finish it. */
static int flushes_now(const struct scr_api *api, const struct completion *c)
{
    const struct scr_run *run = api->run;
    int ckpt_id = 0;
    scr_dataset_get_ckpt(api->dset, &ckpt_id);
    return !api->dset_in_cache || c->is_output ||
           (c->is_ckpt && run->params->flush_every > 0 && ckpt_id % run->params->flush_every == 0);
}

/* Whether the scheme is applied in a thread: SCR_ENCODE_ASYNC, for a
 * checkpoint (an output-only dataset leaves the cache once flushed: its
 * encode stays in the foreground), of a scheme that reads the files (not
 * SINGLE), which records their CRCs as it reads them (so only when files in
 * cache get CRCs), and only when no rank's cores were busy
 * (scr_encoder_goes_to_background). */
static int encodes_in_background(struct scr_run *run, const struct completion *c)
{
    return scr_encoder_in_background(run->encoder) && c->is_ckpt &&
           c->red->type != SCR_COPY_SINGLE && run->params->crc_in_cache &&
           scr_encoder_goes_to_background(run, c->id, c->busy_ranks);
}

/* Protect: the redundancy scheme covers the dataset in cache before
 * anything else can go wrong, in a thread (c->encoding) or here once any
 * encode still running is done; the encoding records every file's CRC on
 * the way. Collective; all ranks agree. */
static int protect(struct scr_api *api, struct completion *c)
{
    struct scr_run *run = api->run;
    c->encoding = 0;
    if (!api->dset_in_cache) return SCR_SUCCESS;
    c->encoding = encodes_in_background(run, c);
    if (c->encoding) return scr_encoder_start(run, c->red, c->id); /* all ranks agree */
    /* an encode still running in the background would share the cores with this one */
    int rc = scr_encoder_wait(run); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    return scr_run_apply_redundancy(run, c->red, c->id);
}

/* Whether the flush that follows computes the CRCs as it copies. */
static int crcs_by_flush(const struct scr_run *run, const struct completion *c)
{
    return c->flush && run->params->crc_on_flush;
}

/* Record CRCs: SINGLE reads nothing, so the files in cache are read once
 * more for their CRCs, in a thread of this rank (run_crc_async.c: recorded
 * at a later call), unless an encode in the background does it or the
 * flush that follows computes them as it copies. A flush that follows and
 * computes none (SCR_CRC_ON_FLUSH=0) copies the filemap's into its summary:
 * they are read here, before it. Collective; all ranks agree. */
static int record_crcs(struct scr_api *api, const struct completion *c)
{
    struct scr_run *run = api->run;
    if (!api->dset_in_cache || c->encoding || crcs_by_flush(run, c)) return SCR_SUCCESS;
    return c->flush ? fill_crcs(run, c->id) : start_crcs(run, c->id);
}

/* The flush goes on in the background, concluded at a later call; a
 * prefix that failed or stopped answering leaves the dataset in cache,
 * still given its CRCs. Collective; all ranks agree. */
static int flush_in_background(struct scr_api *api, const struct completion *c)
{
    struct scr_run *run = api->run;
    int frc = scr_flusher_start(run, api->flusher, c->id, api->dset_in_cache); /* all ranks agree */
    if (frc != SCR_SUCCESS && crcs_by_flush(run, c)) fill_crcs(run, c->id);
    if (frc != SCR_SUCCESS && frc != SCR_ERR_TIMEOUT && frc != SCR_ERR_IO) return frc;
    return SCR_SUCCESS;
}

/* The flush, done here; an output-only dataset then leaves the cache.
 * Collective; all ranks agree. */
static int flush_now(struct scr_api *api, const struct completion *c)
{
    struct scr_run *run = api->run;
    int frc = scr_flush_dataset(run, c->id, api->dset_in_cache);
    /* it stays in cache unflushed, and still gets its CRCs */
    if (frc != SCR_SUCCESS && api->dset_in_cache && crcs_by_flush(run, c)) fill_crcs(run, c->id);
    /* the watchdog gave up on a prefix that stopped answering: the
     * dataset is safe in cache, and the application goes on with it */
    int abandoned = frc == SCR_ERR_TIMEOUT && api->dset_in_cache;
    if (frc != SCR_SUCCESS && !abandoned) return frc;
    if (!abandoned && c->is_output && !c->is_ckpt && api->dset_in_cache) {
        scr_cache_delete_dataset(run, c->id);
        scr_cache_note_location(run, c->id, 0, 1, 0);
    }
    return SCR_SUCCESS;
}

/* Flush or defer: a dataset that goes to the prefix now goes in the
 * background when its store says so, else here. SCR_SUCCESS also when a
 * flush failed but the dataset is safe in cache. Collective; all ranks
 * agree. */
static int flush_or_defer(struct scr_api *api, const struct completion *c)
{
    struct scr_run *run = api->run;
    if (!c->flush) return SCR_SUCCESS;
    if (api->dset_in_cache &&
        scr_store_flushes_in_background(run->cfg, c->red->store, run->params->flush_async))
        return flush_in_background(api, c);
    return flush_now(api, c);
}

/* After a checkpoint, 1 when the run must end: a halt condition holds and
 * SCR_HALT_EXIT=1 (rank 0 says so). Collective; all ranks agree. */
static int must_halt(struct scr_api *api)
{
    struct scr_run *run = api->run;
    int halt = 0;
    if (!run->params->halt_exit || scr_run_halt_check(api, &halt) != SCR_SUCCESS || !halt) return 0;
    if (run->rank == 0) scr_warn("halt condition holds and SCR_HALT_EXIT=1: exiting");
    return 1;
}

/* After a checkpoint that completed with rc here, the drill's stop
 * (scr_run_halt_drill_stop), when every rank completed it. Collective. */
static void drill_stop_if_due(struct scr_api *api, int rc)
{
    struct scr_run *run = api->run;
    /* every rank counts the checkpoint, or none: the drill's stop is collective */
    int all_ok = 0;
    if (api->drill_stop_after > 0 &&
        scr_comm_all_true(rc == SCR_SUCCESS, run->world, &all_ok) == SCR_SUCCESS && all_ok)
        scr_run_halt_drill_stop(api);
}

int scr_complete_output(struct scr_api *api, int valid, int *out_halt)
{
    struct scr_run *run = api->run;
    struct completion c;
    *out_halt = 0;
    describe_dataset(api, &c);
    int rc = agree_on_validity(api, valid, &c);
    if (rc != SCR_SUCCESS) return rc;
    rc = record_totals(api, &c);
    if (rc != SCR_SUCCESS) return rc;
    c.flush = flushes_now(api, &c);
    rc = protect(api, &c);
    if (rc == SCR_SUCCESS) rc = record_crcs(api, &c);
    /* where the dataset is now, in the node's flush file */
    int nrc = scr_cache_note_location(run, c.id, api->dset_in_cache, 0, 0);
    if (rc == SCR_SUCCESS) rc = nrc;
    int frc = flush_or_defer(api, &c);
    if (frc != SCR_SUCCESS) return frc;
    if (c.is_ckpt && must_halt(api)) {
        *out_halt = 1;
        return rc;
    }
    if (c.is_ckpt) drill_stop_if_due(api, rc);
    return rc;
}
