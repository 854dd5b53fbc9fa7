/* util_copy_timed.c — a file copy in a thread of its own, waited for at most a given time. */
#include "util_copy_timed.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One copy: the caller's while it waits, its thread's once abandoned. */
struct copy_job {
    char *src, *dst;
    const char *kind;
    struct scr_copy_opts opts; /* with the thread's own buffer and no timeout */
    scr_copy_engine copy;      /* scr_copy, run without the timeout */
    int rc;
    struct scr_copy_result result;
    int done;              /* the thread has finished the copy */
    int abandoned;         /* the caller stopped waiting: the thread cleans up */
    struct copy_job *next; /* in the list of pending copies, oldest first */
};

/* lock guards done, abandoned, rc, result and the pending list */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished;
static pthread_once_t finished_once = PTHREAD_ONCE_INIT;
static int finished_made;
static struct copy_job *pending;

static void make_finished(void)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) return;
    /* deadlines on the monotonic clock: setting the wall clock moves no timeout */
    if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
        pthread_cond_init(&finished, &attr) == 0)
        finished_made = 1;
    pthread_condattr_destroy(&attr);
}

static void job_free(struct copy_job *j)
{
    free(j->src);
    free(j->dst);
    free(j->opts.buf);
    free(j);
}

static void *run_copy(void *arg)
{
    struct copy_job *j = arg;
    struct scr_copy_result got;
    int rc = j->copy(j->src, j->dst, &j->opts, &got);
    pthread_mutex_lock(&lock);
    j->rc = rc;
    j->result = got;
    j->done = 1;
    int abandoned = j->abandoned;
    if (!abandoned) pthread_cond_broadcast(&finished);
    pthread_mutex_unlock(&lock);
    if (!abandoned) return NULL; /* the waiting caller has j back */

    /* the caller counted this copy as failed, so none of it stays; removed
     * while the copy is still pending, so that no new writer of dst, which
     * waits for the pending copies, can come first */
    if (rc == SCR_SUCCESS && unlink(j->dst) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s, finished after its copy was abandoned: %s", j->dst,
                 strerror(errno));
    pthread_mutex_lock(&lock);
    for (struct copy_job **p = &pending; *p != NULL; p = &(*p)->next) {
        if (*p == j) {
            *p = j->next;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    job_free(j);
    return NULL;
}

/* Start run_copy(j) in a detached thread. */
static int start_thread(struct copy_job *j)
{
    pthread_attr_t attr;
    pthread_t tid;
    int err = pthread_attr_init(&attr);
    if (err == 0) {
        err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (err == 0) err = pthread_create(&tid, &attr, run_copy, j);
        pthread_attr_destroy(&attr);
    }
    if (err != 0) {
        scr_err("cannot start a thread to copy %s to %s: %s", j->src, j->dst, strerror(err));
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

int scr_copy_in_thread(const char *src, const char *dst, const struct scr_copy_opts *o,
                       struct scr_copy_result *out, scr_copy_engine copy)
{
    pthread_once(&finished_once, make_finished);
    if (!finished_made) {
        scr_err("cannot make the condition a timed copy of %s waits on", src);
        return SCR_ERR_NOMEM;
    }
    struct copy_job *j = calloc(1, sizeof(*j));
    if (j != NULL) {
        j->src = strdup(src);
        j->dst = strdup(dst);
        j->copy = copy;
        j->opts = *o;
        j->opts.timeout = 0;
        j->opts.buf = malloc(o->bufsize);
    }
    if (j == NULL || j->src == NULL || j->dst == NULL || j->opts.buf == NULL) {
        scr_err("out of memory for a copy of %s with a buffer of %zu bytes", src, o->bufsize);
        if (j != NULL) job_free(j);
        return SCR_ERR_NOMEM;
    }
    j->kind = o->kind;

    struct timespec deadline;
    if (clock_gettime(CLOCK_MONOTONIC, &deadline) != 0) {
        scr_err("cannot read the monotonic clock: %s", strerror(errno));
        job_free(j);
        return SCR_ERR_IO;
    }
    deadline.tv_sec += o->timeout;
    int rc = start_thread(j);
    if (rc != SCR_SUCCESS) {
        job_free(j);
        return rc;
    }

    pthread_mutex_lock(&lock);
    int wait = 0;
    while (!j->done && wait == 0) wait = pthread_cond_timedwait(&finished, &lock, &deadline);
    if (!j->done) {
        /* the thread and what it owns stay until the kernel returns */
        j->abandoned = 1;
        struct copy_job **tail = &pending;
        while (*tail != NULL) tail = &(*tail)->next;
        *tail = j;
        pthread_mutex_unlock(&lock);
        return SCR_ERR_TIMEOUT;
    }
    pthread_mutex_unlock(&lock);
    rc = j->rc;
    *out = j->result;
    job_free(j);
    return rc;
}

int scr_copy_timed_pending(const char *kind, char *out_dst, size_t len)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    for (const struct copy_job *j = pending; j != NULL; j = j->next) {
        if (kind != NULL && strcmp(j->kind, kind) != 0) continue;
        if (n++ == 0 && out_dst != NULL && len > 0) snprintf(out_dst, len, "%s", j->dst);
    }
    pthread_mutex_unlock(&lock);
    return n;
}
