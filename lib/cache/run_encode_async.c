/* run_encode_async.c — PARTNER, XOR and RS applied in a library thread.
 *
 * When the application's MPI gives MPI_THREAD_MULTIPLE (and
 * SCR_ENCODE_ASYNC=1, the default), SCR_Complete_checkpoint returns once
 * the dataset's files are closed and checked, and every rank's encode
 * thread applies the scheme on communicators of its own: a duplicate of the
 * world, with its own redundancy sets, made at SCR_Init. Nothing the
 * application or the main thread does on run->world can then match a
 * message of the encode.
 *
 * The thread works on its own filemap, a copy of the dataset's entries,
 * saved beside the rank's filemap (scr_cache_encode_filemap_path), so that
 * every redundancy file it creates is named on disk before it exists.
 * Until the ranks agree that every encode finished, the rank's own filemap
 * records the dataset with a SINGLE scheme: a restart after a crash uses it
 * while every node holds its part and never counts on an unfinished encode
 * (scr_cache_load_filemaps removes what the thread left). At the first API
 * call that finds every thread done (scr_encoder_poll), all ranks
 * agree on the outcome: the thread's entries replace the dataset's in the
 * rank's filemap, with the real scheme, and the dataset is protected; or
 * the encode failed, its files are removed and the dataset stays SINGLE. */
#include "kvtree_util.h"
#include "mpi_comm.h"
#include "mpi_split.h"
#include "mpi_host.h"
#include "reddesc.h"
#include "redundancy.h"
#include "run_cache.h"
#include "run_encode_async.h"
#include "run_events.h"
#include "run_redundancy_ctx.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_log.h"
#include "util_cpu_spare.h"
#include "util_pace.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One encode in a library thread. */
struct encode_job {
    int id;
    const struct scr_reddesc *desc; /* in the encoder's reddescs */
    struct scr_redundancy_ctx ctx;  /* over the encoder's world, the thread's filemap */
    scr_filemap *map;               /* the thread's filemap */
    char *map_path;
    pthread_t thread;
    int thread_started;
    atomic_int done;
    atomic_int polite; /* 0 once this rank's application waits for the encode */
    int rc;            /* the encode's outcome on this rank */
    double t0, seconds;
    double cpu; /* the encode's CPU seconds, once done */
};

struct scr_encoder {
    /* with MPI_THREAD_MULTIPLE, a duplicate of the run's world and the same
     * descriptors over it, for the thread; active 0: every encode runs in
     * the foreground */
    int active;
    MPI_Comm world;
    struct scr_reddesc *reddescs;
    int nreddescs;
    struct encode_job *running; /* NULL when none runs */
    char *bufs[2];    /* the thread's buffers, of SCR_FILE_BUF_SIZE bytes, kept from one encode to
                         the next */
    double cpu_ended; /* CPU seconds of the encodes concluded so far */
    /* the application's last stretch of work, from the end of SCR_Init or an
     * SCR_Complete_* call to SCR_Start_output: the CPU time its cores had
     * to spare decides where the next encode runs */
    struct scr_cpu_sample work_from;
    double work_from_encode_cpu;
    int work_cores_busy;      /* this rank's cores had too little to spare */
    int work_unmeasured_said; /* rank 0 said that /proc cannot tell */
    int held_back;            /* the last encode ran in the foreground for busy cores */
};

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* The thread's world and descriptors when the encode may go to the
 * background (enc->active); otherwise rank 0 says why not, at SCR_DEBUG >= 1. */
static int setup(const struct scr_run *run, struct scr_encoder *enc)
{
    int wanted = run->params->encode_async, level = MPI_THREAD_SINGLE;
    int rc = scr_mpi_check(MPI_Query_thread(&level), "asking MPI for its thread level");
    if (rc != SCR_SUCCESS) return rc;
    int needed = 0; /* a scheme that moves data: SINGLE alone needs no thread */
    for (int i = 0; i < run->nreddescs; i++) needed |= run->reddescs[i].type != SCR_COPY_SINGLE;
    /* under SMPI a library thread would run outside the simulation */
    if (!wanted || !needed || scr_mpi_is_simulated()) return SCR_SUCCESS;
    if (level != MPI_THREAD_MULTIPLE) {
        if (run->rank == 0)
            scr_dbg(
                1,
                "redundancy is applied before SCR_Complete_checkpoint returns: MPI gives %s, and "
                "the encode in the background (SCR_ENCODE_ASYNC=1) needs MPI_THREAD_MULTIPLE "
                "(MPI_Init_thread)",
                thread_level_name(level));
        return SCR_SUCCESS;
    }
    rc = scr_comm_dup(run->world, &enc->world, "duplicating the world for the encode");
    if (rc != SCR_SUCCESS) return rc;
    /* enc->world is a duplicate: the ranks of a node keep their places */
    struct scr_node_place node = {run->node_name, run->node_rank, run->node_ranks};
    rc = scr_reddescs_create(run->cfg, run->params, enc->world, &node, &enc->reddescs,
                             &enc->nreddescs);
    if (rc != SCR_SUCCESS) return rc;
    enc->active = 1;
    if (run->rank == 0)
        scr_dbg(1,
                "redundancy is applied in the background, after SCR_Complete_checkpoint returns "
                "(SCR_ENCODE_ASYNC=1, MPI_THREAD_MULTIPLE)%s",
                run->params->encode_when_busy
                    ? ", busy cores or not (SCR_ENCODE_ASYNC_BUSY=1)"
                    : ", while the application leaves its cores time to spare");
    return SCR_SUCCESS;
}

int scr_encoder_new(const struct scr_run *run, struct scr_encoder **out)
{
    struct scr_encoder *enc = calloc(1, sizeof(*enc));
    *out = NULL;
    if (enc == NULL) {
        scr_err("out of memory setting up the encode");
        return SCR_ERR_NOMEM;
    }
    enc->world = MPI_COMM_NULL;
    int rc = setup(run, enc);
    if (rc != SCR_SUCCESS) {
        scr_encoder_free(enc);
        return rc;
    }
    *out = enc;
    return SCR_SUCCESS;
}

void scr_encoder_free(struct scr_encoder *enc)
{
    if (enc == NULL) return;
    for (int i = 0; i < 2; i++) free(enc->bufs[i]);
    scr_reddescs_free(enc->reddescs, enc->nreddescs);
    if (enc->world != MPI_COMM_NULL) MPI_Comm_free(&enc->world);
    free(enc);
}

int scr_encoder_in_background(const struct scr_encoder *enc)
{
    return enc != NULL && enc->active;
}

int scr_encoder_cores_busy(const struct scr_encoder *enc)
{
    return enc != NULL && enc->work_cores_busy;
}

/* --- the start -------------------------------------------------------------- */

static void *encode_thread(void *arg)
{
    struct encode_job *e = arg;
    double cpu0 = scr_pace_thread_cpu();
    /* while the application computes, no spinning in MPI's waits */
    scr_mpi_wait_politely_while(&e->polite);
    e->rc = scr_redundancy_apply(&e->ctx, e->desc, e->id);
    scr_mpi_wait_politely(0); /* also when this rank runs it in its own thread */
    e->seconds = scr_run_now() - e->t0;
    e->cpu = scr_pace_thread_cpu() - cpu0;
    atomic_store(&e->done, 1);
    return NULL;
}

/* The entries of dataset id in map, in a new filemap. */
static int dataset_entries(const scr_filemap *map, int id, scr_filemap **out)
{
    int *ids = NULL, n = 0;
    scr_filemap *copy = scr_kvtree_dup(map);
    int rc = copy != NULL ? scr_filemap_list_datasets(copy, &ids, &n) : SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++)
        if (ids[i] != id) rc = scr_filemap_remove_dataset(copy, ids[i]);
    free(ids);
    if (rc == SCR_SUCCESS)
        *out = copy;
    else
        scr_filemap_delete(copy);
    return rc;
}

/* Until the encode is agreed on, this rank's filemap records dataset id
 * with the SINGLE scheme, in the same store. */
static int record_unprotected(struct scr_run *run, int id)
{
    const scr_kvtree *record = NULL;
    int rc = scr_filemap_get_reddesc(run->map, id, run->rank, &record);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *single = scr_kvtree_dup(record);
    if (single == NULL) return SCR_ERR_NOMEM;
    rc = scr_kvtree_util_set_str(single, "TYPE", scr_copy_type_name(SCR_COPY_SINGLE));
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(run->map, id, run->rank, single);
    scr_kvtree_delete(single);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

static void free_encode(struct encode_job *e)
{
    if (e == NULL) return;
    e->ctx.map = NULL; /* ours, below */
    e->ctx.filemap_path = NULL;
    e->ctx.bufs[0] = e->ctx.bufs[1] = NULL; /* the run's */
    scr_run_redundancy_ctx_free(&e->ctx);
    scr_filemap_delete(e->map);
    free(e->map_path);
    free(e);
}

/* This rank's part of the start: the thread's filemap and context. */
static int prepare(struct scr_run *run, struct encode_job *e)
{
    struct scr_encoder *enc = run->encoder;
    int rc = dataset_entries(run->map, e->id, &e->map);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_cache_encode_filemap_path(run, &e->map_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_write(e->map_path, e->map);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_run_redundancy_ctx(run, e->id, 0, &e->ctx);
    if (rc != SCR_SUCCESS) return rc;
    /* the run keeps the buffers: freed after each encode, they went back to
     * the kernel, and the thread faulted every page in again. One that
     * cannot be had stays NULL: the redundancy layer says so, and the ranks
     * agree on the encode's failure. */
    for (int i = 0; i < 2; i++) {
        if (enc->bufs[i] == NULL) enc->bufs[i] = malloc(run->params->file_buf_size);
        e->ctx.bufs[i] = enc->bufs[i];
    }
    e->ctx.world = enc->world;
    e->ctx.map = e->map;
    e->ctx.filemap_path = e->map_path;
    return record_unprotected(run, e->id);
}

int scr_encoder_start(struct scr_run *run, const struct scr_reddesc *d, int id)
{
    int rc = scr_encoder_wait(run); /* one at a time; all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    struct encode_job *e = calloc(1, sizeof(*e));
    int lrc = e != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (e != NULL) {
        e->id = id;
        e->t0 = scr_run_now();
        atomic_init(&e->done, 0);
        atomic_init(&e->polite, 1);
        /* the same descriptor, with its sets over the encode's world */
        e->desc = &run->encoder->reddescs[d - run->reddescs];
        lrc = prepare(run, e);
    }
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, lrc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) {
        if (e != NULL && e->map_path != NULL) unlink(e->map_path);
        free_encode(e);
        return rc;
    }
    int prc = pthread_create(&e->thread, NULL, encode_thread, e);
    if (prc == 0) {
        e->thread_started = 1;
    } else {
        /* the other ranks' threads are in the encode already: this rank
         * joins them from its own thread, on the same communicators */
        scr_warn("cannot start the encode thread (%s): dataset %d is encoded before "
                 "SCR_Complete_checkpoint "
                 "returns",
                 strerror(prc), id);
        atomic_store(&e->polite, 0);
        encode_thread(e);
    }
    run->encoder->running = e;
    return SCR_SUCCESS;
}

/* --- the conclusion ------------------------------------------------------------ */

/* Every encode succeeded: the thread's entries replace the dataset's. */
static int adopt(struct scr_run *run, struct encode_job *e)
{
    int rc = scr_filemap_remove_dataset(run->map, e->id);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_merge(run->map, e->map);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

/* Rank 0's encode event and, on failure, the line that says what it means. */
static void log_encode(struct scr_run *run, const struct encode_job *e, double seconds, int ok)
{
    const scr_dataset *desc = NULL;
    uint64_t bytes = 0;
    const char *name = "?";
    int have_bytes = scr_filemap_get_dataset(run->map, e->id, run->rank, &desc) == SCR_SUCCESS &&
                     scr_dataset_get_size(desc, &bytes) == SCR_SUCCESS;
    if (desc != NULL) scr_dataset_get_name(desc, &name);
    struct scr_event_field fields[] = {SCR_EVENT_STR("scheme", scr_copy_type_name(e->desc->type)),
                                       SCR_EVENT_INT("set_size", e->desc->set_size),
                                       SCR_EVENT_INT("background", 1)};
    scr_run_event(run, SCR_EVENT_ENCODE, ok ? SCR_EVENT_OK : SCR_EVENT_FAILED, e->id, NULL,
                  have_bytes ? (long long)bytes : -1, seconds,
                  ok ? NULL : "the redundancy scheme failed", fields, 3);
    if (run->rank != 0) return;
    if (ok)
        scr_dbg(1, "dataset %d (%s) is protected by %s, encoded in the background in %.3f s", e->id,
                name, scr_copy_type_name(e->desc->type), seconds);
    else
        scr_warn("dataset %d (%s) is not protected: its %s encode in the background failed; it "
                 "stays in cache "
                 "and serves a restart only while every node keeps its files",
                 e->id, name, scr_copy_type_name(e->desc->type));
}

static int conclude(struct scr_run *run, struct encode_job *e)
{
    int ok = 0;
    /* all ranks agree: */
    int rc = scr_comm_all_true(e->rc == SCR_SUCCESS, run->world, &ok);
    if (rc != SCR_SUCCESS) return rc;
    /* the slowest rank's time is the encode's */
    double seconds = e->seconds;
    rc = scr_mpi_check(MPI_Allreduce(&e->seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, run->world),
                       "timing the encode");
    if (rc != SCR_SUCCESS) return rc;
    int lrc = ok ? adopt(run, e) : scr_redundancy_forget(&e->ctx, e->desc, e->id);
    if (lrc == SCR_SUCCESS && unlink(e->map_path) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s: %s", e->map_path, strerror(errno));
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, lrc, SCR_FAILURE);
    log_encode(run, e, seconds, ok && rc == SCR_SUCCESS);
    return rc;
}

static int poll(struct scr_run *run, int wait)
{
    struct encode_job *e = run->encoder != NULL ? run->encoder->running : NULL;
    if (e == NULL) return SCR_SUCCESS; /* the same on every rank */
    if (wait && e->thread_started) {
        /* the application waits: the core is the encode's */
        atomic_store(&e->polite, 0);
        pthread_join(e->thread, NULL);
        e->thread_started = 0;
    }
    int all = 0;
    /* a rank that comes first waits for the others without spinning: its
     * encode thread may still want the core */
    scr_mpi_wait_politely(1);
    /* all ranks agree: */
    int rc = scr_comm_all_true(atomic_load(&e->done), run->world, &all);
    scr_mpi_wait_politely(0);
    if (rc != SCR_SUCCESS || !all) return rc;
    if (e->thread_started) {
        pthread_join(e->thread, NULL);
        e->thread_started = 0;
    }
    run->encoder->running = NULL;
    run->encoder->cpu_ended += e->cpu;
    rc = conclude(run, e); /* all ranks agree */
    free_encode(e);
    return rc;
}

int scr_encoder_poll(struct scr_run *run)
{
    return poll(run, 0);
}

int scr_encoder_wait(struct scr_run *run)
{
    return poll(run, 1);
}

int scr_encoder_id(const struct scr_run *run)
{
    const struct scr_encoder *enc = run->encoder;
    return enc != NULL && enc->running != NULL ? enc->running->id : 0;
}

/* --- where the encode runs ------------------------------------------------------ */

/* An encode in the background takes its cycles from the computation when
 * the application's thread wants its core most of the time and the cores
 * it may run on have little to spare; it then costs the application more
 * than in the foreground, as it shares the core's caches and time slices
 * and waits for the other ranks' threads, whose cores are as busy
 * (bench_encode_async's busy-core loop). */
#define BUSY_DEMAND 0.75
#define SPARE_SHARE_FOR_BACKGROUND 0.25
/* /proc/stat counts in ticks of 10 ms: a shorter stretch tells too little */
#define SHORTEST_STRETCH_SECONDS 0.1

/* The CPU seconds of another thread's clock in *out; 0 when it cannot be read (the thread ended).
 */
static int read_cpu_clock(clockid_t clock, double *out)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    *out = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    return 1;
}

/* CPU seconds of every encode of the run so far, the running one's included. */
static double encode_cpu_seconds(const struct scr_encoder *enc)
{
    double cpu = enc->cpu_ended;
    const struct encode_job *e = enc->running;
    if (e == NULL) return cpu;
    if (atomic_load(&e->done)) return cpu + e->cpu;
    clockid_t clock;
    double running = 0;
    if (e->thread_started && pthread_getcpuclockid(e->thread, &clock) == 0 &&
        read_cpu_clock(clock, &running))
        return cpu + running;
    /* the thread ended in between: it said done first */
    return atomic_load(&e->done) ? cpu + e->cpu : cpu;
}

/* Rank 0 says once that the cores cannot be measured, and what follows. */
static void say_unmeasured(struct scr_run *run, int rc)
{
    if (run->rank != 0 || run->encoder->work_unmeasured_said) return;
    run->encoder->work_unmeasured_said = 1;
    scr_dbg(1,
            "cannot tell how busy the cores are (/proc/stat or /proc/thread-self/schedstat: %s): "
            "every encode "
            "goes to the background",
            scr_strstatus(rc));
}

void scr_encoder_work_begins(struct scr_run *run)
{
    struct scr_encoder *enc = run->encoder;
    if (!scr_encoder_in_background(enc) || run->params->encode_when_busy) return;
    int rc = scr_cpu_sample_take(&enc->work_from);
    if (rc != SCR_SUCCESS) say_unmeasured(run, rc);
    enc->work_from_encode_cpu = encode_cpu_seconds(enc);
}

void scr_encoder_work_ends(struct scr_run *run)
{
    struct scr_encoder *enc = run->encoder;
    if (enc != NULL) enc->work_cores_busy = 0;
    if (!scr_encoder_in_background(enc) || run->params->encode_when_busy) return;
    struct scr_cpu_sample to;
    int rc = scr_cpu_sample_take(&to);
    if (rc != SCR_SUCCESS) say_unmeasured(run, rc);
    struct scr_cpu_stretch st;
    rc = scr_cpu_stretch_measure(&enc->work_from, &to,
                                 encode_cpu_seconds(enc) - enc->work_from_encode_cpu, &st);
    enc->work_cores_busy = rc == SCR_SUCCESS && st.seconds >= SHORTEST_STRETCH_SECONDS &&
                           st.demand >= BUSY_DEMAND && st.spare < SPARE_SHARE_FOR_BACKGROUND;
}

int scr_encoder_goes_to_background(struct scr_run *run, int id, int busy_ranks)
{
    int held_back = busy_ranks > 0;
    if (run->rank == 0 && held_back != run->encoder->held_back) {
        if (held_back)
            scr_dbg(1,
                    "dataset %d is encoded before SCR_Complete_checkpoint returns: on %d of %d "
                    "ranks the "
                    "application computed %.0f%% of the time or more since the last checkpoint, on "
                    "cores with less "
                    "than %.0f%% of a core to spare, and an encode in the background would take "
                    "its time from the "
                    "computation",
                    id, busy_ranks, run->ranks, BUSY_DEMAND * 100,
                    SPARE_SHARE_FOR_BACKGROUND * 100);
        else
            scr_dbg(1,
                    "dataset %d is encoded in the background again: the cores had time to spare "
                    "while the "
                    "application worked",
                    id);
    }
    run->encoder->held_back = held_back;
    return !held_back;
}
