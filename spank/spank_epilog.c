/* spank_epilog.c — a node's end of an SCR job (slurm_spank_job_epilog). */
#include "spank_epilog.h"

#include "down_nodes.h"
#include "job_dir.h"
#include "job_file.h"
#include "prefix_lock.h"
#include "scavenge_job.h"
#include "scr_err.h"
#include "spank_as_user.h"
#include "spank_health.h"
#include "spank_job.h"
#include "spank_options.h"
#include "util_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the child working as the user needs, all resolved by the parent. */
struct node_end {
    const struct spank_scr_job *job;
    const char **up; /* the job's nodes that are not down */
    int nup;
    const char **down;
    int ndown;
};

static const char *last_error_or(const char *text)
{
    const char *e = scr_last_error();
    return e != NULL && e[0] != '\0' ? e : text;
}

/* Append printf-style text to msg. */
static void add(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *msg, size_t len, const char *fmt, ...)
{
    size_t used = strlen(msg);
    if (used + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + used, len - used, fmt, ap);
    va_end(ap);
}

/* 1 when the control directory names no dataset in cache. */
static int nothing_cached(const char *cntl)
{
    int id = 0, flushed = 0;
    char *name = NULL;
    int rc = scr_scavenge_newest(cntl, &id, &flushed, &name);
    free(name);
    return rc == SCR_ERR_NOTFOUND;
}

/* Scavenge, index if last, record: only from a control directory that is
 * the user's own. 0 when all went well. */
static int scavenge(const struct node_end *e, const char *cntl, char *msg, size_t len)
{
    const struct spank_scr_job *job = e->job;
    int rc = scr_job_dir_check(cntl);
    if (rc == SCR_ERR_NOTFOUND) {
        add(msg, len, "no control directory %s, nothing to scavenge", cntl);
        return 0;
    }
    if (rc != SCR_SUCCESS) {
        add(msg, len, "not scavenged: %s", last_error_or("the control directory is refused"));
        return -1;
    }
    /* the prefix SCR_Init resolved (SCR_PREFIX in the script or a
     * configuration file); --scr-prefix or the working directory only for
     * a job that never got that far */
    char *recorded = NULL;
    rc = scr_job_file_prefix_of(cntl, &recorded);
    if (rc == SCR_ERR_NOTFOUND && nothing_cached(cntl)) {
        /* a node no run used: the prefix is a guess, and the runs' nodes do not wait for it */
        add(msg, len, "no run used this node: nothing to scavenge");
        return 0;
    } else if (rc == SCR_ERR_NOTFOUND) {
        add(msg, len, "prefix %s (%s; no run recorded one): ", job->prefix, job->prefix_origin);
    } else if (rc != SCR_SUCCESS) {
        add(msg, len, "prefix %s (%s; the recorded one is unreadable: %s): ", job->prefix,
            job->prefix_origin, last_error_or("damaged"));
    } else if (strcmp(recorded, job->prefix) != 0) {
        add(msg, len, "prefix %s (recorded by SCR_Init): ", recorded);
    }
    struct scr_scavenge_job sj = {
        .jobid = job->id_text,
        .node = job->node,
        .cntl_dir = cntl,
        .prefix = recorded ? recorded : job->prefix,
        .nodes = e->up,
        .nnodes = e->nup,
        .down_nodes = e->down,
        .ndown = e->ndown,
    };
    struct scr_scavenge_job_outcome out;
    rc = scr_scavenge_job_node(&sj, &out);
    char text[1300];
    scr_scavenge_job_describe(&sj, &out, text, sizeof(text));
    add(msg, len, "%s", text);
    /* the job has ended: its prefix is free even where a lost node's lock lingers */
    int released = 0;
    if (scr_prefix_lock_release_job(sj.prefix, job->id_text, &released) != SCR_SUCCESS) {
        add(msg, len, "; the prefix's lock not released: %s", last_error_or("failed"));
        rc = SCR_FAILURE;
    } else if (released) {
        add(msg, len, "; prefix released");
    }
    free(recorded);
    return rc == SCR_SUCCESS ? 0 : -1;
}

/* Remove one job directory; a refusal is reported in msg. */
static int purge(const char *dir, char *msg, size_t len)
{
    int removed = 0;
    if (scr_job_dir_remove(dir, &removed) != SCR_SUCCESS) {
        add(msg, len, "; not removed: %s", last_error_or(dir));
        return -1;
    }
    if (removed) add(msg, len, "; removed %s", dir);
    return 0;
}

/* Whether dir ends in <user>/scr.<jobid> of this job: a job directory
 * (job_dir.h), whatever base it lies in. */
static int is_this_jobs_dir(const struct spank_scr_job *job, const char *dir)
{
    char leaf[300];
    snprintf(leaf, sizeof(leaf), "/%s/scr.%s", job->user.name, job->id_text);
    size_t n = strlen(dir), m = strlen(leaf);
    return n > m && strcmp(dir + n - m, leaf) == 0;
}

/* The cache directories the job's runs recorded in the control directory
 * (a base set by the user's file or SCR_Config, a STORE of a descriptor),
 * other than the site's ones in dirs, removed as the site's are. A job
 * file the runs never wrote (no SCR_Init on this node) is nothing to do. */
static int purge_recorded_caches(const struct spank_scr_job *job, char *const dirs[2], char *msg,
                                 size_t len)
{
    char **recorded = NULL;
    int rc = scr_job_file_cache_dirs_of(dirs[0], &recorded);
    if (rc == SCR_ERR_NOTFOUND) return 0;
    if (rc != SCR_SUCCESS) {
        add(msg, len, "; recorded cache directories not read: %s", last_error_or(dirs[0]));
        return -1;
    }
    int failed = 0;
    for (char **d = recorded; *d != NULL; d++) {
        if (strcmp(*d, dirs[0]) == 0 || strcmp(*d, dirs[1]) == 0) continue;
        if (!is_this_jobs_dir(job, *d)) {
            add(msg, len, "; %s left alone: not a directory of this job", *d);
            continue;
        }
        if (purge(*d, msg, len) != 0) failed = 1;
    }
    scr_job_file_free_dirs(recorded);
    return failed ? -1 : 0;
}

/* A health record still waiting in the control directory goes to the
 * prefix before the directory is removed (spank_health.h); the job's own
 * --scr-prefix serves a node no run recorded a prefix on, never the
 * working directory. */
static int deliver_health(const struct spank_scr_job *job, const char *cntl, char *msg, size_t len)
{
    char text[1024];
    struct spank_scr_health_delivery d = {
        .node = job->node,
        .cntl_dir = cntl,
        .named_prefix = job->prefix_named ? job->prefix : NULL,
        .named_origin = "the job's --scr-prefix",
    };
    int rc = scr_spank_health_deliver(&d, text, sizeof(text));
    if (text[0] != '\0') add(msg, len, "; health record: %s", text);
    return rc;
}

/* The child's work. */
static int end_node(void *arg, char *msg, size_t len)
{
    const struct node_end *e = arg;
    const struct spank_scr_job *job = e->job;
    char *dirs[2] = {NULL, NULL};
    snprintf(msg, len, "node %s: ", job->node);
    if (scr_job_dir_path("SCR_CNTL_BASE", job->cntl_base, job->node, job->user.name, job->id_text,
                         &dirs[0]) != SCR_SUCCESS ||
        scr_job_dir_path("SCR_CACHE_BASE", job->cache_base, job->node, job->user.name, job->id_text,
                         &dirs[1]) != SCR_SUCCESS) {
        add(msg, len, "%s", last_error_or("cannot work out the job directories"));
        free(dirs[0]);
        return -1;
    }
    int rc = scavenge(e, dirs[0], msg, len);
    if (deliver_health(job, dirs[0], msg, len) != 0) rc = -1;
    /* the cache first: the control directory's records name its files */
    if (purge_recorded_caches(job, dirs, msg, len) != 0) rc = -1;
    if (purge(dirs[1], msg, len) != 0) rc = -1;
    if (strcmp(dirs[0], dirs[1]) != 0 && purge(dirs[0], msg, len) != 0) rc = -1;
    free(dirs[0]);
    free(dirs[1]);
    return rc;
}

/* Split the job's nodes into up and down (libslurm's node states; no file
 * of the user is read as root). Without a node list, this node alone. */
static int find_down(const struct spank_scr_job *job, struct scr_down_nodes *list,
                     struct node_end *e)
{
    const char *nodelist = getenv("SLURM_JOB_NODELIST");
    if (nodelist == NULL || nodelist[0] == '\0') nodelist = getenv("SLURM_NODELIST");
    struct scr_down_nodes_query q = {.nodelist = nodelist ? nodelist : job->node, .ask_slurm = 1};
    if (scr_down_nodes_find(&q, list) != SCR_SUCCESS) {
        slurm_error(
            "scr: epilog of job %s: the job's node list '%s' is not usable; scavenging as if alone",
            job->id_text, q.nodelist);
        q.nodelist = job->node;
        if (scr_down_nodes_find(&q, list) != SCR_SUCCESS) return -1;
    }
    if (!list->slurm_asked)
        slurm_error(
            "scr: epilog of job %s: node states unknown (%s); every node is expected to report",
            job->id_text, list->slurm_error);
    e->up = calloc((size_t)list->count, sizeof(char *));
    e->down = calloc((size_t)list->count, sizeof(char *));
    if (e->up == NULL || e->down == NULL) return -1;
    for (int i = 0; i < list->count; i++) {
        if (list->nodes[i].down) {
            e->down[e->ndown++] = list->nodes[i].name;
            slurm_info("scr: epilog of job %s: node %s is down: %s", job->id_text,
                       list->nodes[i].name, list->nodes[i].reason);
        } else {
            e->up[e->nup++] = list->nodes[i].name;
        }
    }
    return 0;
}

int scr_spank_epilog(spank_t sp, const struct spank_scr_site *site)
{
    if (!scr_spank_options_job_enabled()) return 0;
    struct spank_scr_job job;
    char why[2048];
    if (scr_spank_job_load(sp, site, &job, why, sizeof(why)) != 0) {
        slurm_error("scr: epilog: %s", why);
        scr_spank_job_free(&job);
        return 0;
    }
    struct scr_down_nodes list;
    struct node_end e = {.job = &job};
    memset(&list, 0, sizeof(list));
    if (find_down(&job, &list, &e) != 0) {
        slurm_error("scr: epilog of job %s for %s: node %s: out of memory for the node list",
                    job.id_text, job.user.name, job.node);
    } else {
        int ok = scr_spank_as_user_within(&job.user, site->epilog_timeout, end_node, &e, why,
                                          sizeof(why)) == 0;
        /* the child starts its message with the node; a failure to fork or a kill does not */
        int named = strncmp(why, "node ", 5) == 0;
        if (ok)
            slurm_info("scr: epilog of job %s for %s: %s", job.id_text, job.user.name, why);
        else
            slurm_error("scr: epilog of job %s for %s: %s%s%s%s", job.id_text, job.user.name,
                        named ? "" : "node ", named ? "" : job.node, named ? "" : ": ", why);
    }
    free(e.up);
    free(e.down);
    scr_down_nodes_free(&list);
    scr_spank_job_free(&job);
    return 0;
}
