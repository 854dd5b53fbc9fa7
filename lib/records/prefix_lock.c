/* prefix_lock.c — a prefix belongs to one running job at a time. */
#include "prefix_lock.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "index_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECORD_BYTES (64 * 1024)
#define POLL_USEC (250 * 1000)

static int lock_path(const char *prefix, char **out)
{
    return scr_path_join(prefix, ".scr/" SCR_PREFIX_LOCK_NAME, out);
}

/* The whole-file write lock, without waiting: 1 taken, 0 held by another
 * process, -1 (errno set) when locks do not work here. */
static int try_lock(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &fl) == 0) return 1;
    return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

static void copy_str(char *dst, size_t len, const scr_kvtree *t, const char *key)
{
    const char *v = NULL;
    snprintf(dst, len, "%s", scr_kvtree_util_get_str(t, key, &v) == SCR_SUCCESS ? v : "?");
}

/* The holder in the file's image; SCR_ERR_NOTFOUND when it names none. */
static int parse_holder(const void *buf, size_t len, const char *path,
                        struct scr_prefix_holder *out)
{
    memset(out, 0, sizeof(*out));
    if (len == 0) return SCR_ERR_NOTFOUND; /* created, not yet written: no holder */
    scr_kvtree *t = scr_kvtree_new();
    if (t == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_parse_image(buf, len, t, path);
    int version = 1, released = 0;
    int64_t pid = 0, since = 0;
    if (rc != SCR_SUCCESS) goto out;
    if (scr_kvtree_util_get_int(t, "VERSION", &version) == SCR_SUCCESS &&
        version > SCR_PREFIX_LOCK_VERSION) {
        scr_err("%s: prefix lock version %d, newer than this build reads (%d)", path, version,
                SCR_PREFIX_LOCK_VERSION);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    if (scr_kvtree_get(t, "JOBID") == NULL) {
        rc = SCR_ERR_NOTFOUND;
        goto out;
    }
    copy_str(out->jobid, sizeof(out->jobid), t, "JOBID");
    copy_str(out->user, sizeof(out->user), t, "USER");
    copy_str(out->host, sizeof(out->host), t, "HOST");
    scr_kvtree_util_get_int64(t, "PID", &pid);
    scr_kvtree_util_get_int64(t, "SINCE", &since);
    scr_kvtree_util_get_int(t, "RELEASED", &released);
    out->pid = (long)pid;
    out->since = since;
    out->released = released != 0;
out:
    scr_kvtree_delete(t);
    return rc;
}

static int read_holder_fd(int fd, const char *path, struct scr_prefix_holder *out)
{
    void *buf = NULL;
    size_t len = 0;
    int rc = scr_read_fd(fd, path, MAX_RECORD_BYTES, &buf, &len);
    if (rc != SCR_SUCCESS) goto out;
    rc = parse_holder(buf, len, path, out);
out:
    free(buf);
    return rc;
}

/* h as the record's keys in t. */
static int holder_tree(const struct scr_prefix_holder *h, scr_kvtree *t)
{
    int rc = scr_kvtree_util_set_int(t, "VERSION", SCR_PREFIX_LOCK_VERSION);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_str(t, "JOBID", h->jobid);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_str(t, "USER", h->user);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_str(t, "HOST", h->host);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int64(t, "PID", h->pid);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int64(t, "SINCE", h->since);
    if (rc != SCR_SUCCESS) return rc;
    if (h->released) return scr_kvtree_util_set_int(t, "RELEASED", 1);
    return SCR_SUCCESS;
}

/* Replace the file's content with h, in place (the lock is the inode's). */
static int write_holder_fd(int fd, const char *path, const struct scr_prefix_holder *h)
{
    scr_kvtree *t = scr_kvtree_new();
    void *buf = NULL;
    size_t len = 0;
    if (t == NULL) return SCR_ERR_NOMEM;
    int rc = holder_tree(h, t);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_file_image(t, &buf, &len);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_pwrite_full(fd, buf, len, 0, path);
    if (rc != SCR_SUCCESS) goto out;
    if (ftruncate(fd, (off_t)len) != 0) {
        scr_err("cannot truncate %s: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
        goto out;
    }
    if (fsync(fd) != 0) {
        scr_err("cannot sync %s: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    }
out:
    free(buf);
    scr_kvtree_delete(t);
    return rc;
}

void scr_prefix_lock_describe(const struct scr_prefix_holder *h, char *buf, size_t len)
{
    char when[SCR_INDEX_TIMESTAMP_SIZE] = "an unknown time";
    if (h->since <= 0 ||
        scr_index_file_format_timestamp((time_t)h->since, when, sizeof(when)) != SCR_SUCCESS)
        snprintf(when, sizeof(when), "an unknown time");
    snprintf(buf, len, "job %s of %s on %s (process %ld) since %s", h->jobid, h->user, h->host,
             h->pid, when);
}

/* Poll for the lock up to seconds; 1 when taken. */
static int wait_lock(int fd, int seconds)
{
    for (long waited = 0; waited < (long)seconds * 1000000L; waited += POLL_USEC) {
        usleep(POLL_USEC);
        if (try_lock(fd) == 1) return 1;
    }
    return 0;
}

/* The lock is held by another process: whether me may take the prefix all
 * the same (1, note set) or not (0, logged). */
static int may_take_held(int fd, const char *path, const struct scr_prefix_holder *me,
                         int same_job_wait, struct scr_prefix_lock *out, char *note,
                         size_t note_len)
{
    struct scr_prefix_holder h;
    char who[512];
    int rc = read_holder_fd(fd, path, &h);
    if (rc != SCR_SUCCESS) {
        scr_err("the prefix's lock %s is held by another process, whose record %s; two jobs on one "
                "prefix "
                "overwrite each other's datasets",
                path, rc == SCR_ERR_NOTFOUND ? "names no job" : "is damaged");
        return 0;
    }
    scr_prefix_lock_describe(&h, who, sizeof(who));
    if (same_job_wait >= 0 && strcmp(h.jobid, me->jobid) == 0) {
        if (wait_lock(fd, same_job_wait)) {
            out->kernel_lock = 1;
            return 1;
        }
        snprintf(note, note_len,
                 "taking the prefix from an earlier run of this job, %s, whose lock is still "
                 "held after %d s (lost with its node?)",
                 who, same_job_wait);
        return 1;
    }
    if (h.released) {
        snprintf(
            note, note_len,
            "taking the prefix from %s, which has ended (its epilog released the prefix) "
            "though its lock is still held (a file system that keeps the locks of a lost node)",
            who);
        return 1;
    }
    scr_err("the prefix %s is in use by %s; two jobs on one prefix overwrite each other's "
            "datasets: wait for "
            "it to end, or give this job another SCR_PREFIX",
            path, who);
    return 0;
}

/* Whether me may take the prefix whose lock file is open as fd: SCR_SUCCESS
 * (note set when it takes the prefix from another job), or why not, logged. */
static int may_take(int fd, const char *path, const struct scr_prefix_holder *me, int same_job_wait,
                    struct scr_prefix_lock *out, char *note, size_t note_len)
{
    int got = try_lock(fd);
    if (got < 0) {
        scr_err("cannot lock %s: %s (the prefix's file system must support fcntl() locks)", path,
                strerror(errno));
        return SCR_ERR_IO;
    }
    if (got == 0)
        return may_take_held(fd, path, me, same_job_wait, out, note, note_len) ? SCR_SUCCESS
                                                                               : SCR_ERR_STATE;
    out->kernel_lock = 1;
    struct scr_prefix_holder h;
    char who[512];
    /* free, yet a record of someone else who never released: it died */
    if (read_holder_fd(fd, path, &h) == SCR_SUCCESS && !h.released &&
        strcmp(h.jobid, me->jobid) != 0) {
        scr_prefix_lock_describe(&h, who, sizeof(who));
        snprintf(note, note_len,
                 "taking over the prefix from %s: no process holds its lock any more", who);
    }
    return SCR_SUCCESS;
}

int scr_prefix_lock_take(const char *prefix, const struct scr_prefix_holder *me, int same_job_wait,
                         struct scr_prefix_lock *out, char *note, size_t note_len)
{
    char *path = NULL;
    out->fd = -1;
    out->kernel_lock = 0;
    note[0] = '\0';
    int rc = lock_path(prefix, &path);
    if (rc != SCR_SUCCESS) return rc;
    int fd;
    rc = scr_open_regular(path, O_RDWR | O_CREAT, 0600, &fd);
    if (rc != SCR_SUCCESS) {
        scr_err("cannot take the prefix's lock %s", path);
        free(path);
        return rc;
    }
    rc = may_take(fd, path, me, same_job_wait, out, note, note_len);
    if (rc != SCR_SUCCESS) goto out;
    rc = write_holder_fd(fd, path, me);
out:
    if (rc != SCR_SUCCESS) {
        close(fd);
        out->kernel_lock = 0;
    } else {
        out->fd = fd;
    }
    free(path);
    return rc;
}

void scr_prefix_lock_drop(struct scr_prefix_lock *lock, const struct scr_prefix_holder *me)
{
    if (lock->fd < 0) return;
    struct scr_prefix_holder done = *me;
    done.released = 1;
    /* without the kernel lock another job may have the prefix by now: its record stays */
    struct scr_prefix_holder h;
    if (lock->kernel_lock ||
        (read_holder_fd(lock->fd, SCR_PREFIX_LOCK_NAME, &h) == SCR_SUCCESS &&
         strcmp(h.jobid, me->jobid) == 0 && h.pid == me->pid && strcmp(h.host, me->host) == 0))
        write_holder_fd(lock->fd, SCR_PREFIX_LOCK_NAME, &done);
    close(lock->fd);
    lock->fd = -1;
    lock->kernel_lock = 0;
}

int scr_prefix_lock_release_job(const char *prefix, const char *jobid, int *out_released)
{
    char *path = NULL;
    *out_released = 0;
    int rc = lock_path(prefix, &path);
    if (rc != SCR_SUCCESS) return rc;
    int fd;
    rc = scr_open_regular(path, O_RDWR, 0, &fd);
    if (rc != SCR_SUCCESS) {
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS;
        free(path);
        return rc;
    }
    struct scr_prefix_holder h;
    rc = read_holder_fd(fd, path, &h);
    if (rc == SCR_ERR_NOTFOUND)
        rc = SCR_SUCCESS;
    else if (rc == SCR_SUCCESS && !h.released && strcmp(h.jobid, jobid) == 0) {
        h.released = 1;
        rc = write_holder_fd(fd, path, &h);
        *out_released = rc == SCR_SUCCESS;
    }
    close(fd);
    free(path);
    return rc;
}

int scr_prefix_lock_read(const char *prefix, struct scr_prefix_holder *out)
{
    char *path = NULL;
    void *buf = NULL;
    size_t len = 0;
    int rc = lock_path(prefix, &path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_read_file(path, MAX_RECORD_BYTES, &buf, &len);
    if (rc != SCR_SUCCESS) goto out;
    rc = parse_holder(buf, len, path, out);
out:
    free(buf);
    free(path);
    return rc;
}
