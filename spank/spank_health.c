/* spank_health.c — a node's health record, kept on the node until the job's prefix is known. */
#include "spank_health.h"

#include "job_dir.h"
#include "job_env.h"
#include "job_file.h"
#include "scr_err.h"
#include "spank_as_user.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a delivery at a task's end may take (a hung shared file system
 * must not keep the step's end from srun for long). */
#define TASK_EXIT_DELIVERY_SECONDS 20

static const char *last_error_or(const char *text)
{
    const char *e = scr_last_error();
    return e != NULL && e[0] != '\0' ? e : text;
}

int scr_spank_health_keep(const char *cntl_dir, const struct scr_health *rec, char **out_path)
{
    int rc = scr_health_file_path(cntl_dir, rec->node, out_path);
    if (rc != SCR_SUCCESS) return rc;
    return scr_health_file_write(*out_path, rec);
}

/* <prefix>/.scr/health, created as needed below an existing prefix. */
static int prefix_health_dir(const char *prefix, char **out_dir)
{
    struct stat st;
    if (stat(prefix, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scr_err("prefix %s is not a directory", prefix);
        return SCR_ERR_NOTFOUND;
    }
    int rc = scr_path_join(prefix, ".scr/health", out_dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(*out_dir, 0700);
    return rc;
}

/* The record of a node whose control directory the check refuses. */
static void refused_record(const char *node, struct scr_health *rec)
{
    memset(rec, 0, sizeof(*rec));
    snprintf(rec->node, sizeof(rec->node), "%s", node);
    snprintf(rec->reason, sizeof(rec->reason), "%s",
             last_error_or("the control directory is refused"));
    rec->checked = time(NULL);
}

/* The record kept in the control directory into *rec and its path into
 * *out_kept; SCR_ERR_NOTFOUND (not logged) when none is kept. */
static int read_kept(const struct spank_scr_health_delivery *d, struct scr_health *rec,
                     char **out_kept)
{
    int rc = scr_health_file_path(d->cntl_dir, d->node, out_kept);
    if (rc == SCR_SUCCESS) rc = scr_health_file_read(*out_kept, rec);
    return rc;
}

int scr_spank_health_deliver(void *arg, char *msg, size_t msg_len)
{
    const struct spank_scr_health_delivery *d = arg;
    struct scr_health rec;
    char *kept = NULL, *recorded = NULL, *hdir = NULL, *dest = NULL;
    const char *prefix = NULL, *origin = "recorded by SCR_Init";
    int rc = scr_job_dir_check(d->cntl_dir);
    msg[0] = '\0';
    if (rc == SCR_ERR_NOTFOUND) return 0; /* no prolog ran here for the job: nothing is kept */
    if (rc != SCR_SUCCESS) {
        /* what the prolog found too (its walk from / names the level it
         * refuses): no run can have recorded a prefix here */
        if (scr_job_dir_create(d->cntl_dir) == SCR_SUCCESS) return 0;
        refused_record(d->node, &rec);
        rc = SCR_SUCCESS;
    } else {
        rc = read_kept(d, &rec, &kept);
        if (rc == SCR_ERR_NOTFOUND) { /* delivered already, or the prolog did not run */
            rc = SCR_SUCCESS;
            goto out;
        }
        if (rc != SCR_SUCCESS) {
            snprintf(msg, msg_len, "node %s: the health record kept in %s is not read: %s", d->node,
                     d->cntl_dir, last_error_or("unreadable"));
            goto out;
        }
        rc = scr_job_file_prefix_of(d->cntl_dir, &recorded);
        if (rc == SCR_ERR_NOTFOUND) {
            rc = SCR_SUCCESS;
        } else if (rc != SCR_SUCCESS) {
            snprintf(msg, msg_len,
                     "node %s: health record kept in %s: the prefix recorded there is not read: %s",
                     d->node, d->cntl_dir, last_error_or("unreadable"));
            goto out;
        }
        prefix = recorded;
    }
    if (prefix == NULL) {
        prefix = d->named_prefix;
        origin = d->named_origin;
    }
    if (prefix == NULL) goto out; /* no prefix known yet: the record waits */
    rc = prefix_health_dir(prefix, &hdir);
    if (rc == SCR_SUCCESS) rc = scr_health_file_path(hdir, d->node, &dest);
    if (rc == SCR_SUCCESS) rc = scr_health_file_write(dest, &rec);
    if (rc != SCR_SUCCESS) {
        snprintf(msg, msg_len, "node %s: health record not written to prefix %s (%s): %s", d->node,
                 prefix, origin, last_error_or("unknown error"));
        goto out;
    }
    if (kept != NULL && unlink(kept) != 0 && errno != ENOENT) {
        snprintf(msg, msg_len,
                 "node %s: health record written to %s, but the one kept in %s stays: %s", d->node,
                 dest, kept, strerror(errno));
        rc = SCR_ERR_IO;
        goto out;
    }
    snprintf(msg, msg_len, "node %s %s%s; record %s (prefix %s)", d->node,
             rec.healthy ? "healthy" : "unhealthy: ", rec.reason, dest, origin);
out:
    free(kept);
    free(recorded);
    free(hdir);
    free(dest);
    return rc == SCR_SUCCESS ? 0 : -1;
}

/* The step's SCR_PREFIX, as its tasks saw it, into buf when it is an
 * absolute path; NULL otherwise (a relative one is the tasks' working
 * directory's, which slurmstepd does not tell). */
static const char *step_named_prefix(spank_t sp, char *buf, int len)
{
    if (spank_getenv(sp, "SCR_PREFIX", buf, len) != ESPANK_SUCCESS || buf[0] != '/') return NULL;
    return buf;
}

void scr_spank_health_task_exit(spank_t sp, const struct spank_scr_site *site)
{
    static int done; /* one delivery per step and node: this process is the step's */
    if (done) return;
    uid_t uid;
    gid_t gid;
    uint32_t id;
    char node[256], jobid[32], prefix[4096], why[2048] = "";
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_ID, &id) != ESPANK_SUCCESS ||
        spank_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)) != ESPANK_SUCCESS) {
        slurm_error("scr: health record not delivered: Slurm does not give the job's id, uid, gid "
                    "and node");
        done = 1;
        return;
    }
    snprintf(jobid, sizeof(jobid), "%lu", (unsigned long)id);
    struct scr_identity user;
    char *cntl = NULL;
    const char *bad = NULL;
    if (scr_spank_user_lookup(uid, gid, &user, why, sizeof(why)) != 0 ||
        (bad = scr_job_env_name_problem(user.name)) != NULL ||
        scr_job_dir_path("SCR_CNTL_BASE", site->cntl_base, node, user.name, jobid, &cntl) !=
            SCR_SUCCESS) {
        slurm_error("scr: health record of node %s for job %s not delivered: %s", node, jobid,
                    bad != NULL ? bad
                    : why[0]    ? why
                                : last_error_or("no control directory"));
        done = 1;
        return;
    }
    struct spank_scr_health_delivery d = {
        .node = node,
        .cntl_dir = cntl,
        .named_prefix = step_named_prefix(sp, prefix, sizeof(prefix)),
        .named_origin = "the step's SCR_PREFIX",
    };
    int rc = scr_spank_as_user_within(&user, TASK_EXIT_DELIVERY_SECONDS, scr_spank_health_deliver,
                                      &d, why, sizeof(why));
    if (rc != 0) {
        slurm_error("scr: health record of job %s for %s: %s", jobid, user.name, why);
        done = 1;
    } else if (why[0] != '\0') {
        slurm_info("scr: health record of job %s for %s: %s", jobid, user.name, why);
        done = 1;
    }
    free(cntl);
}
