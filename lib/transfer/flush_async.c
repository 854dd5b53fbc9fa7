/* flush_async.c — the flush in the background (SCR_FLUSH_ASYNC=1).
 *
 * The application waits for the begin of the flush only (flush_steps.h:
 * the dataset directory claimed, FLUSHING in the flush file): every rank
 * hands the list of its application files to its node's first rank, whose
 * flush thread copies them to the prefix with the CRC computed on the way,
 * held to SCR_FLUSH_ASYNC_BW bytes per second and SCR_FLUSH_ASYNC_PERCENT
 * of a core for the whole node (util_pace.h). The thread makes no MPI call
 * and touches nothing of the run: it owns the list, its buffer and, on the
 * node's first rank, the attempt's undo list until it is joined.
 *
 * Progress goes to the node's transfer file (transfer_file.h) in the
 * control directory: every file with its SIZE and WRITTEN, the limits, the
 * STATE, and FLAG DONE at the end. Its COMMAND is obeyed between pieces:
 * STOP pauses the copy (STATE STOPPED) until RUN, EXIT abandons it (the
 * flush then fails and the dataset stays in cache).
 *
 * Each API call asks (scr_flusher_poll) whether every node's thread is
 * done; only when all are is the flush concluded, collectively: each rank
 * records the CRCs of its copies, rank filemaps, summary and index are
 * written, and the dataset is marked flushed (or, when a copy failed, what
 * the attempt wrote is taken back and it stays in cache). A crash before
 * then leaves the index as it was and FLUSHING in the flush file, which is
 * what the scavenge looks for. */
#include "flush_async.h"
#include "flush_steps.h"
#include "mpi_comm.h"
#include "run_cache.h"
#include "run_crc.h"
#include "run_encode_async.h"
#include "scr_err.h"
#include "transfer.h"
#include "transfer_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "util_io.h"
#include "util_log.h"
#include "util_pace.h"
#include "util_path.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_RESULTS 4711

/* How often the thread writes its progress to the transfer file and reads
 * the COMMAND there, in seconds. */
#define TRANSFER_UPDATE_SECONDS 0.5

/* One file the node's thread copies. */
struct flush_job {
    char *src, *dest;
    int owner; /* node rank whose file it is */
    uint64_t size;
    int created;                /* dest did not exist before (set by the thread) */
    uint64_t synced;            /* bytes of dest known to be on disk */
    int rc;                     /* how its copy went */
    struct scr_copy_result got; /* with how the prefix holds it (SCR_FLUSH_COMPRESS) */
};

struct scr_flush_async {
    struct scr_flush_attempt attempt; /* every rank */
    int id;

    /* the node's first rank: the thread and what it owns while it runs */
    pthread_t thread;
    int thread_started;
    atomic_int done;
    struct flush_job *jobs;
    int njobs;
    char *transfer_path;
    size_t buf_size;
    int with_crc;
    int compress; /* SCR_FLUSH_COMPRESS: zlib level, 0 for none */
    double bw, percent;
    struct scr_pace pace;
    int current; /* the job being copied */
    double last_update;
    int rc;       /* the thread's outcome */
    int start_rc; /* every rank: what failed at the start (its list, the thread) */
    double measured_bw, measured_percent, seconds;
};

struct scr_flusher {
    struct scr_flush_async *running; /* NULL when none runs */
};

/* --- the thread ----------------------------------------------------------- */

/* Write the current job's progress to the transfer file and read the
 * COMMAND there: STOP waits (STATE STOPPED) until it changes, EXIT is
 * SCR_ERR_STATE. final: the thread is done (FLAG DONE when every file was
 * copied, done), the command no longer matters. */
static int update_transfer_file(struct scr_flush_async *a, int final, int done)
{
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1, rc = t != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) return rc;
    for (;;) {
        rc = scr_transfer_file_lock_read(a->transfer_path, &fd, t);
        if (rc != SCR_SUCCESS) break;
        if (a->current < a->njobs) {
            const struct flush_job *j = &a->jobs[a->current];
            const char *dest = NULL;
            if (scr_transfer_file_get_destination(t, j->src, &dest) == SCR_SUCCESS)
                scr_transfer_file_set_written(t, j->src, j->synced < j->size ? j->synced : j->size);
        }
        enum scr_transfer_command cmd = SCR_TRANSFER_COMMAND_RUN;
        scr_transfer_file_get_command(t, &cmd);
        if (final || cmd != SCR_TRANSFER_COMMAND_STOP) {
            rc = scr_transfer_file_set_state(t, SCR_TRANSFER_STATE_RUNNING);
            if (rc == SCR_SUCCESS && final && done) rc = scr_transfer_file_set_done(t);
            int wrc = scr_transfer_file_write_unlock(a->transfer_path, &fd, t);
            if (rc == SCR_SUCCESS) rc = wrc;
            if (rc == SCR_SUCCESS && !final && cmd == SCR_TRANSFER_COMMAND_EXIT) {
                scr_warn("background flush of dataset %d stopped: %s says COMMAND EXIT", a->id,
                         a->transfer_path);
                rc = SCR_ERR_STATE;
            }
            break;
        }
        /* STOP: say so, and look again in a while */
        scr_transfer_file_set_state(t, SCR_TRANSFER_STATE_STOPPED);
        rc = scr_transfer_file_write_unlock(a->transfer_path, &fd, t);
        if (rc != SCR_SUCCESS) break;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        scr_kvtree_unset_all(t);
    }
    scr_kvtree_delete(t);
    return rc;
}

/* After each piece: hold the limits, and now and then the transfer file. */
static int after_piece(void *ctx, size_t bytes)
{
    struct scr_flush_async *a = ctx;
    struct flush_job *j = &a->jobs[a->current];
    /* a raw copy waited for every piece before this one to reach the disk;
     * a compressed one is known on disk only at its end (its fsync), and
     * counts compressed bytes, so it says nothing before */
    if (!a->compress) j->synced = j->got.bytes;
    j->got.bytes += bytes;
    scr_pace_account(&a->pace, bytes);
    double now = scr_pace_now();
    if (now - a->last_update < TRANSFER_UPDATE_SECONDS) return SCR_SUCCESS;
    a->last_update = now;
    return update_transfer_file(a, 0, 0);
}

static int copy_one(struct scr_flush_async *a, struct flush_job *j, void *buf)
{
    int rc = scr_flush_note_destination(&a->attempt.undo, j->dest, &j->created);
    if (rc != SCR_SUCCESS) return rc;
    j->got.bytes = 0;
    struct scr_copy_result got = {0};
    /* the pace holds the bytes written to the prefix, compressed or not, to SCR_FLUSH_ASYNC_BW */
    const struct scr_copy_opts opts = {
        .buf = buf,
        .bufsize = a->buf_size,
        .crc = a->with_crc,
        .form = a->compress ? SCR_COPY_GZIP : SCR_COPY_RAW,
        .level = a->compress,
        .pace = after_piece,
        .pace_ctx = a,
    };
    rc = scr_copy(j->src, j->dest, &opts, &got);
    if (j->created && (rc == SCR_SUCCESS || rc == SCR_ERR_STATE)) {
        int nrc = scr_undo_note_file(&a->attempt.undo, j->dest);
        if (rc == SCR_SUCCESS) rc = nrc;
    }
    if (rc == SCR_SUCCESS) {
        j->got = got;
        j->synced = got.bytes; /* the copy ends with an fsync */
    }
    return rc;
}

static void *flush_thread(void *arg)
{
    struct scr_flush_async *a = arg;
    void *buf = malloc(a->buf_size);
    int rc = buf != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS)
        scr_err("out of memory for a background flush buffer of %zu bytes", a->buf_size);
    scr_pace_start(&a->pace, a->bw, a->percent);
    a->last_update = scr_pace_now();
    int copied = 0;
    for (a->current = 0; rc == SCR_SUCCESS && a->current < a->njobs; a->current++) {
        struct flush_job *j = &a->jobs[a->current];
        rc = j->rc = copy_one(a, j, buf);
        if (rc == SCR_SUCCESS) copied++;
        if (rc == SCR_SUCCESS) rc = update_transfer_file(a, 0, 0);
    }
    /* every job not copied has failed, so that its owner knows */
    for (int i = copied; i < a->njobs; i++)
        if (a->jobs[i].rc == SCR_SUCCESS) a->jobs[i].rc = rc != SCR_SUCCESS ? rc : SCR_FAILURE;
    scr_pace_measured(&a->pace, &a->measured_bw, &a->measured_percent, &a->seconds);
    int urc = update_transfer_file(a, 1, rc == SCR_SUCCESS);
    if (rc == SCR_SUCCESS) rc = urc;
    free(buf);
    a->rc = rc;
    atomic_store(&a->done, 1);
    return NULL;
}

/* --- the start, on every rank ------------------------------------------------ */

/* This rank's application files (view) and where they go:
 * <src> -> DEST <dest>, SIZE <bytes>, in a new tree. */
static int list_my_files(struct scr_run *run, const struct scr_dataset_view *view,
                         const char *dsdir, scr_kvtree **out_list)
{
    scr_kvtree *list = scr_kvtree_new();
    int rc = list != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (int f = 0; rc == SCR_SUCCESS && f < view->nfiles; f++) {
        const struct scr_dataset_view_file *file = &view->files[f];
        if (!file->is_app_file) continue;
        char *dest = NULL;
        rc = scr_flush_destination(run, view->id, dsdir, file, &dest);
        scr_kvtree *entry =
            rc == SCR_SUCCESS ? scr_kvtree_set(list, file->path, scr_kvtree_new()) : NULL;
        if (rc == SCR_SUCCESS && entry == NULL) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_str(entry, "DEST", dest);
        if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_uint64(entry, "SIZE", file->size);
        free(dest);
    }
    if (rc == SCR_SUCCESS)
        *out_list = list;
    else
        scr_kvtree_delete(list);
    return rc;
}

/* The node's first rank: the jobs of every rank of the node (lists). */
static int make_jobs(struct scr_flush_async *a, scr_kvtree **lists, int nlists)
{
    int n = 0;
    for (int r = 0; r < nlists; r++) n += scr_kvtree_size(lists[r]);
    a->jobs = calloc(n > 0 ? (size_t)n : 1, sizeof(*a->jobs));
    if (a->jobs == NULL) {
        scr_err("out of memory for the list of %d files of a background flush", n);
        return SCR_ERR_NOMEM;
    }
    for (int r = 0; r < nlists; r++)
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(lists[r]); e; e = scr_kvtree_elem_next(e)) {
            struct flush_job *j = &a->jobs[a->njobs++];
            const char *dest = NULL;
            scr_kvtree_util_get_str(scr_kvtree_elem_hash(e), "DEST", &dest);
            scr_kvtree_util_get_uint64(scr_kvtree_elem_hash(e), "SIZE", &j->size);
            j->owner = r;
            j->src = strdup(scr_kvtree_elem_key(e));
            j->dest = dest != NULL ? strdup(dest) : NULL;
            if (j->src == NULL || j->dest == NULL) {
                scr_err("out of memory for the list of files of a background flush");
                return SCR_ERR_NOMEM;
            }
        }
    return SCR_SUCCESS;
}

/* The node's first rank: the transfer file lists the jobs, the limits,
 * COMMAND RUN and STATE RUNNING; what an earlier flush left there goes. */
static int write_transfer_file(struct scr_flush_async *a)
{
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    int rc = t != NULL ? scr_transfer_file_lock_read(a->transfer_path, &fd, t) : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) goto out;
    scr_kvtree_unset_all(t);
    for (int i = 0; rc == SCR_SUCCESS && i < a->njobs; i++)
        rc = scr_transfer_file_add_file(t, a->jobs[i].src, a->jobs[i].dest, a->jobs[i].size);
    if (rc == SCR_SUCCESS) rc = scr_transfer_file_set_bw(t, a->bw);
    if (rc == SCR_SUCCESS) rc = scr_transfer_file_set_percent(t, a->percent);
    if (rc == SCR_SUCCESS) rc = scr_transfer_file_set_command(t, SCR_TRANSFER_COMMAND_RUN);
    if (rc == SCR_SUCCESS) rc = scr_transfer_file_set_state(t, SCR_TRANSFER_STATE_RUNNING);
    if (rc == SCR_SUCCESS) {
        rc = scr_transfer_file_write_unlock(a->transfer_path, &fd, t);
    } else {
        scr_transfer_file_unlock(&fd);
    }
out:
    scr_kvtree_delete(t);
    return rc;
}

static void free_jobs(struct scr_flush_async *a)
{
    for (int i = 0; i < a->njobs; i++) {
        free(a->jobs[i].src);
        free(a->jobs[i].dest);
    }
    free(a->jobs);
    a->jobs = NULL;
    a->njobs = 0;
}

static void free_async(struct scr_flush_async *a)
{
    if (a == NULL) return;
    free_jobs(a);
    free(a->transfer_path);
    scr_flush_attempt_free(&a->attempt);
    free(a);
}

/* The node's first rank: the jobs of the node (lists: every node rank's),
 * the transfer file, and the thread. */
static int start_thread(struct scr_run *run, struct scr_flush_async *a, scr_kvtree **lists)
{
    int rc = make_jobs(a, lists, run->node_ranks);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_join(run->cntl_dir, SCR_TRANSFER_FILE_NAME, &a->transfer_path);
    if (rc != SCR_SUCCESS) return rc;
    a->buf_size = run->params->file_buf_size;
    a->with_crc = run->params->crc_on_flush;
    a->compress = scr_flush_compress_level(run, a->attempt.desc);
    rc = write_transfer_file(a);
    if (rc != SCR_SUCCESS) return rc;
    int prc = pthread_create(&a->thread, NULL, flush_thread, a);
    if (prc != 0) {
        scr_err("cannot start the background flush thread: %s", strerror(prc));
        return SCR_ERR_IO;
    }
    a->thread_started = 1;
    return SCR_SUCCESS;
}

int scr_flusher_new(struct scr_flusher **out)
{
    *out = calloc(1, sizeof(**out));
    if (*out != NULL) return SCR_SUCCESS;
    scr_err("out of memory setting up the flush in the background");
    return SCR_ERR_NOMEM;
}

void scr_flusher_free(struct scr_flusher *f)
{
    free(f);
}

int scr_flusher_start(struct scr_run *run, struct scr_flusher *f, int id, int in_cache)
{
    /* one flush at a time: a running one is finished first */
    int rc = scr_flusher_wait(run, f); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    struct scr_flush_async *a = calloc(1, sizeof(*a));
    int lrc = a != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, lrc, SCR_ERR_NOMEM);
    if (rc != SCR_SUCCESS) {
        free(a);
        return rc;
    }
    a->id = id;
    atomic_init(&a->done, 0);
    a->bw = run->params->flush_async_bw;
    a->percent = run->params->flush_async_percent;
    rc = scr_flush_begin(run, id, in_cache, &a->attempt); /* all ranks agree */
    if (rc != SCR_SUCCESS) {
        free(a);
        return rc;
    }
    scr_kvtree *mine = NULL, **lists = NULL;
    lrc = list_my_files(run, a->attempt.view, a->attempt.dsdir, &mine);
    int grc = scr_comm_gather_kvtree(mine, 0, run->node, &lists); /* the node's ranks agree */
    if (lrc == SCR_SUCCESS) lrc = grc;
    if (lrc == SCR_SUCCESS && run->node_rank == 0) lrc = start_thread(run, a, lists);
    a->start_rc = lrc;
    scr_kvtree_delete(mine);
    scr_comm_free_trees(lists, run->node_rank == 0 ? run->node_ranks : 0);
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, lrc, SCR_FAILURE);
    f->running = a;
    if (rc == SCR_SUCCESS) {
        scr_dbg(2, "dataset %d: flush to %s goes on in the background", id, run->prefix);
        return SCR_SUCCESS;
    }
    /* some node could not start: conclude it as failed (a started thread
     * is waited for first), which takes back what it wrote */
    int wrc = scr_flusher_wait(run, f);
    return wrc != SCR_SUCCESS ? wrc : rc;
}

/* --- the conclusion, on every rank ----------------------------------------- */

/* The node's first rank: each rank of the node gets what became of its
 * files (<src> -> RC, CRC, BYTES, and COMPRESSED
 * with the stored size for a file the prefix holds as gzip); its own go to *out_mine. */
static int hand_out_results(struct scr_run *run, struct scr_flush_async *a, scr_kvtree **out_mine)
{
    int status = a->start_rc; /* the node's thread never ran: nobody's file was copied */
    for (int r = 0; r < run->node_ranks; r++) {
        scr_kvtree *t = scr_kvtree_new();
        if (t == NULL) status = SCR_ERR_NOMEM;
        for (int i = 0; t != NULL && status == SCR_SUCCESS && i < a->njobs; i++) {
            const struct flush_job *j = &a->jobs[i];
            if (j->owner != r) continue;
            scr_kvtree *e = scr_kvtree_set(t, j->src, scr_kvtree_new());
            if (e == NULL) status = SCR_ERR_NOMEM;
            if (status == SCR_SUCCESS) status = scr_kvtree_util_set_int(e, "RC", j->rc);
            if (status == SCR_SUCCESS)
                status = scr_kvtree_util_set_uint64(e, "BYTES", j->got.bytes);
            if (status == SCR_SUCCESS) status = scr_kvtree_util_set_uint64(e, "CRC", j->got.crc);
            if (status == SCR_SUCCESS && j->got.stored.compressed)
                status = scr_kvtree_util_set_uint64(e, "COMPRESSED", j->got.stored.bytes);
        }
        if (r == 0) {
            *out_mine = t;
            if (status != SCR_SUCCESS) { /* the others are told below */
                scr_kvtree_delete(t);
                *out_mine = NULL;
            }
            continue;
        }
        /* every rank of the node waits for its message, also after a failure */
        int src = scr_comm_send_kvtree(status == SCR_SUCCESS ? t : NULL, r, TAG_RESULTS, run->node);
        scr_kvtree_delete(t);
        if (status == SCR_SUCCESS) status = src;
    }
    return status;
}

/* What the copies of this rank's files gave, recorded in its filemap. */
static int record_results(struct scr_run *run, int id, const scr_kvtree *results)
{
    int rc = SCR_SUCCESS;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(results); e; e = scr_kvtree_elem_next(e)) {
        const scr_kvtree *r = scr_kvtree_elem_hash(e);
        int frc = SCR_FAILURE;
        uint64_t crc = 0;
        struct scr_copy_result got = {0};
        got.stored.compressed =
            scr_kvtree_util_get_uint64(r, "COMPRESSED", &got.stored.bytes) == SCR_SUCCESS;
        scr_kvtree_util_get_int(r, "RC", &frc);
        scr_kvtree_util_get_uint64(r, "BYTES", &got.bytes);
        scr_kvtree_util_get_uint64(r, "CRC", &crc);
        got.crc = (uint32_t)crc;
        if (frc == SCR_SUCCESS) frc = scr_flush_record_copy(run, id, scr_kvtree_elem_key(e), &got);
        if (rc == SCR_SUCCESS) rc = frc;
    }
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

/* Every rank learns what became of its files and records it; then the
 * flush is concluded (flush_steps.h), its event telling how rank 0's
 * node's thread did. Collective; all ranks agree on the outcome. */
static int conclude(struct scr_run *run, struct scr_flush_async *a)
{
    scr_kvtree *mine = NULL;
    int rc = SCR_SUCCESS;
    if (run->node_rank == 0) {
        rc = hand_out_results(run, a, &mine);
    } else {
        rc = scr_comm_recv_kvtree(0, TAG_RESULTS, run->node, &mine);
        if (rc == SCR_SUCCESS && mine == NULL) rc = SCR_FAILURE; /* the first rank failed */
    }
    if (rc == SCR_SUCCESS) rc = record_results(run, a->id, mine);
    if (a->start_rc != SCR_SUCCESS) rc = a->start_rc; /* this rank's files were not all listed */
    scr_kvtree_delete(mine);
    char bw[64], cpu[64];
    snprintf(bw, sizeof(bw), "%.0f", a->measured_bw);
    snprintf(cpu, sizeof(cpu), "%.1f", a->measured_percent);
    struct scr_event_field fields[] = {
        SCR_EVENT_INT("background", 1), {"bytes_per_second", bw, 0}, {"cpu_percent", cpu, 0}};
    a->attempt.fields = fields;
    a->attempt.nfields = 3;
    int crc = scr_flush_conclude(run, &a->attempt, rc); /* all ranks agree */
    a->attempt.fields = NULL;
    if (run->rank == 0 && crc == SCR_SUCCESS)
        scr_dbg(
            1,
            "dataset %d: background flush done; this node copied %.1f MiB/s using %.1f%% of a core",
            a->id, a->measured_bw / 1048576.0, a->measured_percent);
    return crc;
}

/* Done with dataset id's flush (rc): an output-only dataset leaves the
 * cache; one that stays unflushed gets its CRCs. Not collective. */
static void after_flush(struct scr_run *run, int id, int rc)
{
    const scr_dataset *d = NULL;
    /* an output dataset's encode runs in the foreground (scr.c), so no
     * thread reads what leaves the cache here */
    /* the CRCs were to come from the copy: they come from a read now */
    if (rc != SCR_SUCCESS && run->params->crc_on_flush) scr_crc_fill(run, id);
    if (rc != SCR_SUCCESS || scr_filemap_get_dataset(run->map, id, run->rank, &d) != SCR_SUCCESS)
        return;
    if (scr_dataset_is_output(d) && !scr_dataset_is_checkpoint(d)) {
        scr_cache_delete_dataset(run, id);
        scr_cache_note_location(run, id, 0, 1, 0);
    }
}

static int poll(struct scr_run *run, struct scr_flusher *f, int wait)
{
    struct scr_flush_async *a = f != NULL ? f->running : NULL;
    if (a == NULL) return SCR_SUCCESS; /* the same on every rank */
    /* a dataset is flushed (and becomes current on the prefix) only once it
     * is protected in cache: a restart after a lost node then finds it in
     * cache as new as on the prefix */
    if (scr_encoder_id(run) == a->id) {
        if (!wait) return SCR_SUCCESS;
        int erc = scr_encoder_wait(run); /* all ranks agree */
        if (erc != SCR_SUCCESS) return erc;
    }
    int mine = 1, all = 0;
    if (a->thread_started) {
        if (wait) {
            pthread_join(a->thread, NULL);
            a->thread_started = 0;
        }
        mine = atomic_load(&a->done);
    }
    /* all ranks agree: */
    int rc = scr_comm_all_true(mine, run->world, &all);
    if (rc != SCR_SUCCESS || !all) return rc;
    if (a->thread_started) {
        pthread_join(a->thread, NULL);
        a->thread_started = 0;
    }
    f->running = NULL;
    rc = conclude(run, a); /* all ranks agree */
    after_flush(run, a->id, rc);
    free_async(a);
    /* a flush that failed is reported and leaves the dataset in cache: the
     * application goes on, as after a failed synchronous flush at Finalize */
    return rc == SCR_ERR_TIMEOUT || rc == SCR_ERR_IO ? SCR_SUCCESS : rc;
}

int scr_flusher_poll(struct scr_run *run, struct scr_flusher *f)
{
    return poll(run, f, 0);
}

int scr_flusher_wait(struct scr_run *run, struct scr_flusher *f)
{
    return poll(run, f, 1);
}

int scr_flusher_id(const struct scr_flusher *f)
{
    return f != NULL && f->running != NULL ? f->running->id : 0;
}
