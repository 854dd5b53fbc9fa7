/* run_crc_async.c — the CRCs of a rank's cached files, computed off the
 * application's time by a library thread that makes no MPI call.
 *
 * Two jobs, one at a time per rank (run->crc_in_background):
 *
 * RECORD (a SINGLE checkpoint, or a set of one member: no encoding read the
 * bytes): SCR_Complete_output starts the thread on this rank's complete
 * files of the dataset that have no CRC and returns. The thread reads each
 * file in L2-sized pieces (scr_crc_file_l2, util_copy.h) and, when done, leaves what it
 * computed in the control directory (crc_note.h), so that a process killed
 * after that moment loses nothing. The rank records the CRCs in its
 * filemap at its next SCR call that finds the thread done
 * (scr_crc_async_poll), and at the latest, waiting for it, before anything
 * needs them: the next SCR_Start_output (eviction, CRC decisions),
 * SCR_Delete, SCR_Drop, SCR_Finalize. A run that ended before that leaves
 * the note, and the next SCR_Init takes its CRCs into the filemaps
 * (scr_cache_load_filemaps, run_cache.c). A file whose CRC the thread
 * could not compute keeps none, said once. A flush that follows at once
 * and computes no CRCs of its own (SCR_CRC_ON_FLUSH=0) needs them first:
 * scr.c then reads them in the caller (scr_crc_fill).
 *
 * CHECK (a restart from cache): SCR_Start_restart starts the thread on the
 * files this rank restarts from, while the application reads them, and
 * SCR_Complete_restart joins it (scr_crc_async_check_done): a file whose
 * bytes differ from its recorded CRC is named in one line and marked
 * incomplete, and the restart fails, so that SCR_Have_restart offers an
 * older checkpoint. A file with no CRC recorded (the run that wrote it
 * ended before the thread finished, or the CRC could not be computed) is
 * handed to the restart unchecked: the rank says so in one line per file,
 * and the CRC computed now is recorded for what follows (a flush, a later
 * restart). This is the one way unchecked bytes reach an application, and
 * it is reported; dropping the newest checkpoint instead would throw away the
 * work of every run killed right after a checkpoint, the common case of a
 * job that checkpoints just before its time limit.
 *
 * Under SimGrid's SMPI every rank is an actor of one process and no library
 * thread runs (scr_init.c): the job is done in the caller, RECORD at
 * SCR_Complete_output, CHECK at SCR_Complete_restart. A thread that cannot
 * be started does the same. Not collective. */
#include "run_crc_async.h"
#include "crc_note.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_host.h"
#include "redundancy.h"
#include "run_cache.h"
#include "run_crc.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_copy.h"
#include "util_log.h"
#include "util_path.h"
#include "util_testpoint.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum crc_job { CRC_RECORD, CRC_CHECK };

/* One file of the job: what the thread found. */
struct crc_file {
    char *path;
    int rc;       /* of scr_crc_file_l2 */
    uint32_t crc; /* what the bytes give */
    uint64_t bytes;
};

struct scr_crc_async {
    enum crc_job job;
    int id;
    struct crc_file *files;
    int nfiles;
    char *left_path; /* RECORD: where the thread leaves its CRCs */
    int rank;        /* this process's rank, for the file it leaves */
    pthread_t thread;
    int started; /* a thread runs the job (else the caller ran it) */
    int lost;    /* RECORD: the results are dropped (a test's point, util_testpoint.h) */
    int done;    /* the thread finished (read and written with __atomic) */
};

static void job_free(struct scr_crc_async *j)
{
    if (j == NULL) return;
    for (int f = 0; f < j->nfiles; f++) free(j->files[f].path);
    free(j->files);
    free(j->left_path);
    free(j);
}

/* The thread's RECORD results, noted (crc_note.h). */
static int leave_results(const struct scr_crc_async *j)
{
    scr_kvtree *note = scr_kvtree_new();
    int rc = note != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (int f = 0; rc == SCR_SUCCESS && f < j->nfiles; f++)
        if (j->files[f].rc == SCR_SUCCESS)
            rc = scr_crc_note_add(note, j->id, j->rank, j->files[f].path, j->files[f].crc);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_write_file(j->left_path, note);
    if (rc == SCR_ERR_NOMEM)
        scr_err("out of memory noting the CRCs of dataset %d in %s", j->id, j->left_path);
    scr_kvtree_delete(note);
    return rc;
}

static void run_job(struct scr_crc_async *j)
{
    for (int f = 0; f < j->nfiles; f++)
        j->files[f].rc = scr_crc_file_l2(j->files[f].path, &j->files[f].crc, &j->files[f].bytes);
    if (j->job != CRC_RECORD) return;
    if (scr_testpoint_on(SCR_TP_CRC_LOST)) {
        j->lost = 1;
        return;
    }
    /* a failed note only means the CRCs wait for this rank's next call */
    (void)leave_results(j);
    scr_testpoint_crash(SCR_TP_CRC_AFTER_NOTE);
}

static void *crc_thread(void *arg)
{
    struct scr_crc_async *j = arg;
    run_job(j);
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Whether file (this rank's, of dataset id) goes into a job: RECORD takes
 * complete files without a CRC, CHECK the application's complete files
 * (what the restart reads; redundancy data waits for a rebuild to read it). */
static int wanted(const struct scr_run *run, int id, const char *file, enum crc_job job)
{
    const scr_meta *meta = NULL;
    uint32_t crc = 0;
    if (scr_filemap_get_meta(run->map, id, run->rank, file, &meta) != SCR_SUCCESS ||
        !scr_meta_is_complete(meta))
        return 0;
    if (job == CRC_CHECK) return scr_cache_is_app_file(run, id, file);
    return scr_meta_get_crc32(meta, &crc) != SCR_SUCCESS;
}

/* A new job over this rank's files of dataset id; *out NULL when it has none. */
static int job_new(struct scr_run *run, int id, enum crc_job job, struct scr_crc_async **out)
{
    const char **names = NULL;
    int n = 0;
    *out = NULL;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &names, &n);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_crc_async *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        free(names);
        scr_err("out of memory listing the files of dataset %d to check their CRCs", id);
        return SCR_ERR_NOMEM;
    }
    if (n > 0 && (j->files = calloc((size_t)n, sizeof(*j->files))) == NULL) rc = SCR_ERR_NOMEM;
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
        if (!wanted(run, id, names[f], job)) continue;
        if ((j->files[j->nfiles].path = strdup(names[f])) == NULL)
            rc = SCR_ERR_NOMEM;
        else
            j->nfiles++;
    }
    free(names);
    if (rc == SCR_SUCCESS && j->nfiles > 0 && job == CRC_RECORD)
        rc = scr_crc_note_path(run->cntl_dir, run->node_rank, &j->left_path);
    if (rc == SCR_ERR_NOMEM)
        scr_err("out of memory listing the files of dataset %d to check their CRCs", id);
    if (rc != SCR_SUCCESS || j->nfiles == 0) {
        job_free(j);
        return rc;
    }
    j->job = job;
    j->id = id;
    j->rank = run->rank;
    *out = j;
    return SCR_SUCCESS;
}

/* Start j in a thread, else run it here; it becomes run's job. */
static void job_start(struct scr_run *run, struct scr_crc_async *j)
{
    run->crc_in_background = j;
    if (!scr_mpi_is_simulated()) {
        int prc = pthread_create(&j->thread, NULL, crc_thread, j);
        if (prc == 0) {
            j->started = 1;
            return;
        }
        scr_warn("cannot start a thread to compute CRCs (%s): dataset %d is read in the foreground",
                 strerror(prc), j->id);
    }
    crc_thread(j);
}

/* Wait for the job's thread (when one runs). */
static void job_join(struct scr_crc_async *j)
{
    if (j->started) {
        pthread_join(j->thread, NULL);
        j->started = 0;
    }
}

/* RECORD: the thread's CRCs into the filemap, which is saved; then its note goes. */
static int record_results(struct scr_run *run, struct scr_crc_async *j)
{
    int rc = SCR_SUCCESS, recorded = 0;
    for (int f = 0; rc == SCR_SUCCESS && !j->lost && f < j->nfiles; f++) {
        const struct crc_file *cf = &j->files[f];
        if (cf->rc != SCR_SUCCESS) {
            scr_warn("dataset %d: the CRC of %s could not be computed (see above); a restart from "
                     "it reads it "
                     "unchecked",
                     j->id, cf->path);
            continue;
        }
        /* the file may have left the filemap since (SCR_Delete waits first, but a failed flush
         * deletes) */
        if (!scr_filemap_have_file(run->map, j->id, run->rank, cf->path)) continue;
        rc = scr_crc_record(run, j->id, run->rank, cf->path, cf->crc, 1);
        if (rc == SCR_SUCCESS) recorded++;
    }
    if (rc == SCR_SUCCESS && recorded > 0) rc = scr_cache_save_filemap(run);
    if (rc == SCR_SUCCESS && j->left_path != NULL && unlink(j->left_path) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s: %s", j->left_path, strerror(errno));
    return rc;
}

int scr_crc_async_start_record(struct scr_run *run, int id)
{
    if (!run->params->crc_in_cache) return SCR_SUCCESS;
    int rc = scr_crc_async_wait(run);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_crc_async *j = NULL;
    rc = job_new(run, id, CRC_RECORD, &j);
    if (rc != SCR_SUCCESS || j == NULL) return rc;
    job_start(run, j);
    /* done in the caller (SMPI): recorded now */
    return j->started ? SCR_SUCCESS : scr_crc_async_poll(run);
}

int scr_crc_async_poll(struct scr_run *run)
{
    struct scr_crc_async *j = run->crc_in_background;
    if (j == NULL || j->job != CRC_RECORD || !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
        return SCR_SUCCESS;
    job_join(j);
    run->crc_in_background = NULL;
    int rc = record_results(run, j);
    job_free(j);
    return rc;
}

int scr_crc_async_wait(struct scr_run *run)
{
    struct scr_crc_async *j = run->crc_in_background;
    if (j == NULL) return SCR_SUCCESS;
    job_join(j);
    if (j->job == CRC_RECORD) return scr_crc_async_poll(run);
    /* a check nobody asked for the result of (a restart abandoned) */
    run->crc_in_background = NULL;
    job_free(j);
    return SCR_SUCCESS;
}

int scr_crc_async_start_check(struct scr_run *run, int id)
{
    if (!run->params->crc_in_cache) return SCR_SUCCESS;
    int rc = scr_crc_async_wait(run);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_crc_async *j = NULL;
    rc = job_new(run, id, CRC_CHECK, &j);
    if (rc != SCR_SUCCESS || j == NULL) return rc;
    /* under SMPI the check runs at SCR_Complete_restart, after the application read */
    if (scr_mpi_is_simulated())
        run->crc_in_background = j;
    else
        job_start(run, j);
    return SCR_SUCCESS;
}

/* CHECK: one file's result against its meta; *damaged counts it. */
static int judge_one(struct scr_run *run, int id, const char *name, const struct crc_file *cf,
                     int *damaged, int *changed)
{
    const scr_meta *meta = NULL;
    uint32_t recorded = 0;
    uint64_t size = 0;
    if (scr_filemap_get_meta(run->map, id, run->rank, cf->path, &meta) != SCR_SUCCESS)
        return SCR_SUCCESS;
    int have_crc = scr_meta_get_crc32(meta, &recorded) == SCR_SUCCESS;
    if (cf->rc != SCR_SUCCESS) { /* said where it failed: as good as lost */
        (*damaged)++;
        *changed = 1;
        return scr_crc_record(run, id, run->rank, cf->path, recorded, 0);
    }
    if (scr_meta_get_filesize(meta, &size) == SCR_SUCCESS && size != cf->bytes) {
        scr_err("dataset %d (restart %s): file %s has %llu bytes, %llu were written", id, name,
                cf->path, (unsigned long long)cf->bytes, (unsigned long long)size);
        (*damaged)++;
        *changed = 1;
        return scr_crc_record(run, id, run->rank, cf->path, recorded, 0);
    }
    if (!have_crc) {
        scr_warn("dataset %d (%s): rank %d's file %s had no CRC recorded (the run that wrote it "
                 "ended before it "
                 "was), so the restart read it unchecked; its CRC is recorded now",
                 id, name, run->rank, cf->path);
        *changed = 1;
        return scr_crc_record(run, id, run->rank, cf->path, cf->crc, 1);
    }
    if (cf->crc == recorded) return SCR_SUCCESS;
    scr_crc_say_damaged(run, id, run->rank, cf->path, NULL, cf->crc, recorded);
    (*damaged)++;
    *changed = 1;
    return scr_crc_record(run, id, run->rank, cf->path, recorded, 0);
}

int scr_crc_async_check_done(struct scr_run *run, int id, const char *name, int *out_damaged)
{
    *out_damaged = 0;
    if (!run->params->crc_in_cache) return SCR_SUCCESS;
    struct scr_crc_async *j = run->crc_in_background;
    int rc = SCR_SUCCESS;
    if (j != NULL && (j->job != CRC_CHECK || j->id != id)) {
        rc = scr_crc_async_wait(run);
        j = NULL;
    }
    /* no job started for it (it could not be): checked here, now */
    if (rc == SCR_SUCCESS && j == NULL) rc = job_new(run, id, CRC_CHECK, &j);
    if (rc != SCR_SUCCESS || j == NULL) return rc;
    run->crc_in_background = NULL;
    if (j->started)
        job_join(j);
    else if (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
        run_job(j); /* SMPI: after the application read */
    int changed = 0;
    for (int f = 0; rc == SCR_SUCCESS && f < j->nfiles; f++)
        rc = judge_one(run, id, name, &j->files[f], out_damaged, &changed);
    if (rc == SCR_SUCCESS && changed) rc = scr_cache_save_filemap(run);
    job_free(j);
    return rc;
}

void scr_crc_async_teardown(struct scr_run *run)
{
    struct scr_crc_async *j = run->crc_in_background;
    if (j == NULL) return;
    job_join(j);
    run->crc_in_background = NULL;
    job_free(j);
}
