/* scavenge_job.c — a node's part of the end-of-job scavenge, and the one index. */
#include "scavenge_job.h"
#include "event_log.h"
#include "index_file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scan.h"
#include "scan_index.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void set_error(struct scr_scavenge_job_outcome *out, const char *what, ...)
    __attribute__((format(printf, 2, 3)));

/* Keep the first error: it is the cause of the others. */
static void set_error(struct scr_scavenge_job_outcome *out, const char *what, ...)
{
    if (out->error[0] != '\0') return;
    va_list ap;
    va_start(ap, what);
    vsnprintf(out->error, sizeof(out->error), what, ap);
    va_end(ap);
}

static const char *last_error_or(const char *text)
{
    const char *e = scr_last_error();
    return e != NULL && e[0] != '\0' ? e : text;
}

/* In a job's nodes file: the nodes its runs used (RAN/<node>). */
#define KEY_RAN "RAN"

/* <prefix>/.scr/job.<jobid>.<ext>, in a new string. */
static int job_file(const struct scr_scavenge_job *job, const char *ext, char **out)
{
    char name[128];
    int n = snprintf(name, sizeof(name), ".scr/job.%s.%s", job->jobid, ext);
    if (n < 0 || (size_t)n >= sizeof(name)) {
        scr_err("job id '%s' too long for a file name", job->jobid);
        return SCR_ERR_ARG;
    }
    return scr_path_join(job->prefix, name, out);
}

/* Step 1: copy the newest dataset unless it is on the prefix already. */
static void copy_newest(const struct scr_scavenge_job *job, struct scr_scavenge_job_outcome *out)
{
    char *name = NULL;
    int flushed = 0;
    int rc = scr_scavenge_newest(job->cntl_dir, &out->dataset, &flushed, &name);
    free(name);
    if (rc == SCR_ERR_NOTFOUND) {
        out->dataset = 0;
        return;
    }
    if (rc != SCR_SUCCESS) {
        set_error(out, "cannot read the records of %s: %s", job->cntl_dir,
                  last_error_or("unknown error"));
        out->copy_failed = 1;
        return;
    }
    if (flushed) {
        out->already_flushed = 1;
        return;
    }
    struct scr_scavenge_options o = {
        .cntl_dir = job->cntl_dir,
        .prefix = job->prefix,
        .id = out->dataset,
        .failed_nodes = job->down_nodes,
        .nfailed_nodes = job->ndown,
        .live_nodes = job->nodes,
        .nlive_nodes = job->nnodes,
    };
    rc = scr_scavenge_node(&o, &out->copy);
    if (rc != SCR_SUCCESS) {
        out->copy_failed = 1;
        set_error(out, "scavenge of dataset %d: %s", out->dataset, last_error_or("failed"));
    }
}

static int copied_something(const struct scr_scavenge_job_outcome *out)
{
    return out->dataset > 0 && !out->already_flushed &&
           out->copy.ranks + out->copy.partner_ranks > 0;
}

/* The expected nodes without an entry in nodes, into out->waiting_for;
 * returns how many. When runs noted where they ran (ran), a node none of
 * them used is not waited for: it has nothing to copy, and no record to
 * tell it where the prefix is. */
static int waiting_for(const struct scr_scavenge_job *job, const scr_kvtree *nodes,
                       const scr_kvtree *ran, struct scr_scavenge_job_outcome *out)
{
    int missing = 0;
    size_t used = 0;
    out->waiting_for[0] = '\0';
    int noted = scr_kvtree_size(ran) > 0;
    for (int i = 0; i < job->nnodes; i++) {
        if (scr_kvtree_get(nodes, job->nodes[i]) != NULL) continue;
        if (noted && scr_kvtree_get(ran, job->nodes[i]) == NULL) continue;
        missing++;
        int n = snprintf(out->waiting_for + used, sizeof(out->waiting_for) - used, "%s%s",
                         used ? "," : "", job->nodes[i]);
        if (n > 0 && used + (size_t)n < sizeof(out->waiting_for)) used += (size_t)n;
    }
    return missing;
}

/* Index dataset id in its directory under prefix, into res. */
static int index_one(const char *prefix, int id, struct scr_scan_index_result *res)
{
    char sub[64], *dir = NULL;
    snprintf(sub, sizeof(sub), ".scr/scr.dataset.%d", id);
    int rc = scr_path_join(prefix, sub, &dir);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_scan_index_options o = {.prefix = prefix, .dir = dir};
    rc = scr_scan_index_dataset(&o, res);
    free(dir);
    return rc;
}

/* Index one dataset every node has copied its part of; the outcome goes
 * into out->index_text. */
static void index_dataset(const struct scr_scavenge_job *job, int id,
                          struct scr_scavenge_job_outcome *out)
{
    struct scr_scan_index_result res;
    memset(&res, 0, sizeof(res));
    int rc = index_one(job->prefix, id, &res);
    size_t used = strlen(out->index_text);
    char *at = out->index_text + used;
    size_t room = sizeof(out->index_text) - used;
    const char *sep = used ? ";" : "";
    if (rc != SCR_SUCCESS) {
        out->index_failed = 1;
        out->complete = 0;
        set_error(out, "indexing dataset %d: %s", id, last_error_or("failed"));
        snprintf(at, room, "%sfailed(%d)", sep, id);
    } else if (res.complete) {
        out->indexed++;
        snprintf(at, room, "%scomplete(%d%s)", sep, id, res.rebuilt ? ",rebuilt" : "");
    } else {
        char ranks[128];
        out->indexed++;
        out->complete = 0;
        scr_scan_format_ranks(res.missing, res.nmissing, 8, ranks, sizeof(ranks));
        snprintf(at, room, "%sincomplete(%d,missing ranks %s)", sep, id, ranks);
    }
    free(res.missing);
}

/* Index every dataset some node copied. */
static void index_copied(const struct scr_scavenge_job *job, const scr_kvtree *nodes,
                         struct scr_scavenge_job_outcome *out)
{
    int ids[64], nids = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(nodes); e; e = scr_kvtree_elem_next(e)) {
        int id = 0, copied = 0;
        const scr_kvtree *entry = scr_kvtree_elem_hash(e);
        if (scr_kvtree_util_get_int(entry, "DSET", &id) != SCR_SUCCESS ||
            scr_kvtree_util_get_int(entry, "COPIED", &copied) != SCR_SUCCESS || !copied || id <= 0)
            continue;
        int seen = 0;
        for (int i = 0; i < nids; i++) seen |= ids[i] == id;
        if (!seen && nids < (int)(sizeof(ids) / sizeof(ids[0]))) ids[nids++] = id;
    }
    out->complete = 1;
    out->index_text[0] = '\0';
    for (int i = 0; i < nids; i++) index_dataset(job, ids[i], out);
    if (nids == 0) snprintf(out->index_text, sizeof(out->index_text), "none");
}

/* In the locked nodes file (all): this node's entry; then, when every node
 * has reported and none has indexed yet, the index. */
static int record_node(const struct scr_scavenge_job *job, scr_kvtree *all,
                       struct scr_scavenge_job_outcome *out)
{
    scr_kvtree *nodes = scr_kvtree_get(all, "NODE");
    if (nodes == NULL) nodes = scr_kvtree_set(all, "NODE", scr_kvtree_new());
    scr_kvtree *mine = nodes ? scr_kvtree_set(nodes, job->node, scr_kvtree_new()) : NULL;
    if (mine == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_util_set_int(mine, "DSET", out->dataset);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int(mine, "COPIED", copied_something(out));
    if (rc != SCR_SUCCESS) return rc;
    const char *indexer = NULL;
    if (scr_kvtree_util_get_str(all, "INDEXED", &indexer) == SCR_SUCCESS) {
        snprintf(out->index_text, sizeof(out->index_text), "done by %s", indexer);
        return SCR_SUCCESS;
    }
    if (waiting_for(job, nodes, scr_kvtree_get(all, KEY_RAN), out) > 0) {
        snprintf(out->index_text, sizeof(out->index_text), "waiting(%s)", out->waiting_for);
        return SCR_SUCCESS;
    }
    index_copied(job, nodes, out);
    return scr_kvtree_util_set_str(all, "INDEXED", job->node);
}

/* Step 2: report under the lock; the last node indexes. */
static int report_and_index(const struct scr_scavenge_job *job,
                            struct scr_scavenge_job_outcome *out)
{
    char *path = NULL;
    int fd = -1;
    scr_kvtree *all = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (all == NULL) goto out;
    rc = job_file(job, "nodes", &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_lock_open_read(path, &fd, all);
    if (rc != SCR_SUCCESS) goto out;
    rc = record_node(job, all, out);
    /* the file is written back (and unlocked) even when recording failed,
     * with what was recorded; the first failure is the one that counts */
    int wrc = scr_kvtree_write_close_unlock(path, &fd, all);
    if (rc == SCR_SUCCESS) rc = wrc;
out:
    if (rc != SCR_SUCCESS)
        set_error(out, "cannot record the node in %s: %s", path ? path : job->prefix,
                  last_error_or("failed"));
    scr_kvtree_delete(all);
    free(path);
    return rc;
}

void scr_scavenge_job_describe(const struct scr_scavenge_job *job,
                               const struct scr_scavenge_job_outcome *out, char *buf, size_t len)
{
    snprintf(buf, len,
             "node=%s dataset=%d%s files=%d bytes=%llu failed=%d partner_ranks=%d index=%s%s%s",
             job->node, out->dataset, out->already_flushed ? " (already on the prefix)" : "",
             out->copy.files_copied, (unsigned long long)out->copy.bytes_copied,
             out->copy.files_failed, out->copy.partner_ranks,
             out->index_text[0] ? out->index_text : "failed", out->error[0] ? " error=" : "",
             out->error);
}

/* Step 3: one line appended to the job's record. */
static int append_record(const struct scr_scavenge_job *job,
                         const struct scr_scavenge_job_outcome *out)
{
    char *path = NULL, line[1400], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) == NULL ||
        strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
    char text[1300];
    scr_scavenge_job_describe(job, out, text, sizeof(text));
    snprintf(line, sizeof(line), "%s %s\n", stamp, text);
    int rc = job_file(job, "log", &path);
    if (rc != SCR_SUCCESS) return rc;
    int fd;
    rc = scr_open_regular(path, O_WRONLY | O_CREAT | O_APPEND, 0600, &fd);
    if (rc == SCR_SUCCESS) {
        rc = scr_write_full(fd, line, strlen(line), path);
        if (close(fd) != 0 && rc == SCR_SUCCESS) {
            scr_err("close of %s failed: %s", path, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    free(path);
    return rc;
}

/* Each of the nnodes nodes under RAN in all. */
static int note_ran(scr_kvtree *all, const char *const *nodes, int nnodes)
{
    scr_kvtree *ran = scr_kvtree_get(all, KEY_RAN);
    if (ran == NULL && (ran = scr_kvtree_set(all, KEY_RAN, scr_kvtree_new())) == NULL)
        return SCR_ERR_NOMEM;
    for (int i = 0; i < nnodes; i++)
        if (scr_kvtree_get(ran, nodes[i]) == NULL &&
            scr_kvtree_set(ran, nodes[i], scr_kvtree_new()) == NULL)
            return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

int scr_scavenge_job_note_nodes(const char *prefix, const char *jobid, const char *const *nodes,
                                int nnodes)
{
    char *path = NULL;
    int fd = -1;
    struct scr_scavenge_job job = {.jobid = jobid, .prefix = prefix};
    scr_kvtree *all = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (all == NULL) goto out;
    rc = job_file(&job, "nodes", &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_lock_open_read(path, &fd, all);
    if (rc != SCR_SUCCESS) goto out;
    rc = note_ran(all, nodes, nnodes);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_write_close_unlock(path, &fd, all);
out:
    scr_kvtree_close_unlock(&fd); /* unless written: a failure leaves the file as it was */
    if (rc == SCR_ERR_NOMEM)
        scr_err("out of memory noting the nodes of job %s in %s", jobid, path ? path : prefix);
    scr_kvtree_delete(all);
    free(path);
    return rc;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The scavenge event of this node's part, in the prefix's event log (a
 * node whose cache held nothing has none). */
static void log_scavenge(const struct scr_scavenge_job *job,
                         const struct scr_scavenge_job_outcome *out, double seconds)
{
    if (out->dataset <= 0) return;
    struct scr_event_log log;
    if (scr_event_log_setup_outside(&log, job->prefix, job->jobid) != SCR_SUCCESS) return;
    struct scr_event_field fields[] = {
        SCR_EVENT_STR("node", job->node),
        SCR_EVENT_INT("files", out->copy.files_copied),
        SCR_EVENT_INT("files_failed", out->copy.files_failed),
        SCR_EVENT_INT("already_flushed", out->already_flushed),
        SCR_EVENT_STR("index", out->index_text),
    };
    int failed = out->copy_failed || out->index_failed || out->error[0] != '\0';
    struct scr_event ev = SCR_EVENT_INITIALIZER(SCR_EVENT_SCAVENGE);
    ev.status = failed ? SCR_EVENT_FAILED : SCR_EVENT_OK;
    ev.dataset_id = out->dataset;
    ev.bytes = (long long)out->copy.bytes_copied;
    ev.seconds = seconds;
    ev.reason = out->error[0] != '\0' ? out->error
                : failed              ? "some files could not be copied or indexed"
                                      : NULL;
    ev.fields = fields;
    ev.nfields = out->index_text[0] != '\0' ? 5 : 4;
    scr_event_log_write(&log, &ev);
    scr_event_log_close(&log);
}

/* <prefix>/.scr, made when missing. */
static int make_scr_dir(const char *prefix)
{
    char *scr_dir = NULL;
    int rc = scr_path_join(prefix, ".scr", &scr_dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mkdir_p(scr_dir, 0700);
    free(scr_dir);
    return rc;
}

int scr_scavenge_job_node(const struct scr_scavenge_job *job, struct scr_scavenge_job_outcome *out)
{
    double t0 = now_seconds();
    memset(out, 0, sizeof(*out));
    struct stat st;
    int bad = stat(job->prefix, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (bad != 0) {
        set_error(out, "the prefix %s cannot be used: %s", job->prefix, strerror(bad));
        return SCR_ERR_NOTFOUND;
    }
    int rc = make_scr_dir(job->prefix);
    if (rc != SCR_SUCCESS) {
        set_error(out, "the prefix %s cannot be used: %s", job->prefix, last_error_or("failed"));
        return rc;
    }
    copy_newest(job, out);
    /* each step runs whatever the step before it did: the job's record and
     * the event log must tell what happened; the first failure is returned */
    rc = report_and_index(job, out);
    int arc = append_record(job, out);
    if (arc != SCR_SUCCESS)
        set_error(out, "cannot append to the job record: %s", last_error_or("failed"));
    if (rc == SCR_SUCCESS) rc = arc;
    log_scavenge(job, out, now_seconds() - t0);
    return rc != SCR_SUCCESS                       ? rc
           : out->copy_failed || out->index_failed ? SCR_FAILURE
                                                   : SCR_SUCCESS;
}

/* 1 when a job's nodes file says its datasets were indexed. */
static int job_indexed(const scr_kvtree *all)
{
    const char *who = NULL;
    int late = 0;
    return scr_kvtree_util_get_str(all, "INDEXED", &who) == SCR_SUCCESS ||
           scr_kvtree_util_get_int(all, "LATE_INDEXED", &late) == SCR_SUCCESS;
}

/* Index dataset id, copied at the end of the job of path but not indexed:
 * a failure to index it said why and only leaves it out of *count. Returns
 * what joining the dataset's path returned. */
static int index_one_late(const char *prefix, const char *path, int id, int *count)
{
    char sub[64], *dir = NULL;
    struct scr_scan_index_result res;
    memset(&res, 0, sizeof(res));
    snprintf(sub, sizeof(sub), ".scr/scr.dataset.%d", id);
    int rc = scr_path_join(prefix, sub, &dir);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_scan_index_options o = {.prefix = prefix, .dir = dir};
    if (scr_scan_index_dataset(&o, &res) == SCR_SUCCESS) { /* else it said why */
        (*count)++;
        scr_warn(
            "dataset %d was copied to %s at the end of a job but not indexed (%s): indexed now, %s",
            id, prefix, path, res.complete ? "complete" : "incomplete");
    }
    free(res.missing);
    free(dir);
    return SCR_SUCCESS;
}

/* Index each dataset the nodes of all (the nodes file path) copied that the
 * index does not list. A dataset that cannot be indexed does not stop the
 * others; only running out of memory does. Returns the last path's result. */
static int index_nodes_late(const char *prefix, const char *path, const scr_kvtree *all,
                            const scr_kvtree *index, int *count)
{
    int rc = SCR_SUCCESS;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(all, "NODE")); e;
         e = scr_kvtree_elem_next(e)) {
        int id = 0, copied = 0;
        const scr_dataset *known = NULL;
        const scr_kvtree *entry = scr_kvtree_elem_hash(e);
        if (scr_kvtree_util_get_int(entry, "DSET", &id) != SCR_SUCCESS ||
            scr_kvtree_util_get_int(entry, "COPIED", &copied) != SCR_SUCCESS || !copied ||
            id <= 0 || scr_index_file_get_dataset(index, id, &known) == SCR_SUCCESS)
            continue;
        rc = index_one_late(prefix, path, id, count);
        if (rc == SCR_ERR_NOMEM) break;
    }
    return rc;
}

/* The pending datasets of one job's nodes file (locked meanwhile). An
 * error said why; the other jobs still count, so only SCR_ERR_NOMEM is
 * returned. */
static int index_late(const char *prefix, const char *path, const scr_kvtree *index, int *count)
{
    int fd = -1;
    scr_kvtree *all = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (all == NULL) goto out;
    /* most files are done: a shared lock tells, without making anyone wait */
    rc = scr_kvtree_read_with_lock(path, all);
    if (rc != SCR_SUCCESS || job_indexed(all)) goto out;
    scr_kvtree_unset_all(all);
    rc = scr_kvtree_lock_open_read(path, &fd, all);
    if (rc != SCR_SUCCESS || job_indexed(all)) goto out;
    rc = index_nodes_late(prefix, path, all, index, count);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_util_set_int(all, "LATE_INDEXED", 1);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_write_close_unlock(path, &fd, all);
out:
    scr_kvtree_close_unlock(&fd); /* unless written: the job is then left for the next look */
    scr_kvtree_delete(all);
    return rc == SCR_ERR_NOMEM ? rc : SCR_SUCCESS;
}

/* The prefix's index into index, empty when the prefix has none yet. */
static int read_index(const char *prefix, char **ipath, scr_kvtree *index)
{
    int rc = scr_index_file_path(prefix, ipath);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_read(*ipath, index);
    return rc == SCR_ERR_NOTFOUND ? SCR_SUCCESS : rc;
}

int scr_scavenge_job_index_pending(const char *prefix, int *out_indexed)
{
    char *scr_dir = NULL, *ipath = NULL;
    DIR *d = NULL;
    int index_read = 0;
    *out_indexed = 0;
    scr_kvtree *index = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (index == NULL) goto out;
    rc = scr_path_join(prefix, ".scr", &scr_dir);
    if (rc != SCR_SUCCESS) goto out;
    if ((d = opendir(scr_dir)) == NULL) { /* without .scr, no job left a nodes file */
        if (errno != ENOENT) {
            scr_err("cannot read %s: %s", scr_dir, strerror(errno));
            rc = SCR_ERR_IO;
        }
        goto out;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "job.", 4) != 0 || n < 11 ||
            strcmp(e->d_name + n - 6, ".nodes") != 0)
            continue;
        if (!index_read) { /* only when some job left a nodes file */
            rc = read_index(prefix, &ipath, index);
            if (rc != SCR_SUCCESS) goto out;
            index_read = 1;
        }
        char *path = NULL;
        rc = scr_path_join(scr_dir, e->d_name, &path);
        if (rc != SCR_SUCCESS) goto out;
        rc = index_late(prefix, path, index, out_indexed);
        free(path);
        if (rc != SCR_SUCCESS) goto out;
    }
out:
    if (d != NULL) closedir(d);
    free(scr_dir);
    free(ipath);
    scr_kvtree_delete(index);
    return rc;
}
