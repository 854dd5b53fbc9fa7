/* event_log.c — where events go: text log, syslog, JSON lines (see event_log.h). */
#include "event_log.h"
#include "job_env.h"
#include "params.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

struct code {
    const char *word;
    int value;
};

/* SCR's words; the catalogue (config_params.c) lists the same ones */
static const struct code facilities[] = {
    {"LOG_USER", LOG_USER},
    {"LOG_DAEMON", LOG_DAEMON},
    {"LOG_LOCAL0", LOG_LOCAL0},
    {"LOG_LOCAL1", LOG_LOCAL1},
    {"LOG_LOCAL2", LOG_LOCAL2},
    {"LOG_LOCAL3", LOG_LOCAL3},
    {"LOG_LOCAL4", LOG_LOCAL4},
    {"LOG_LOCAL5", LOG_LOCAL5},
    {"LOG_LOCAL6", LOG_LOCAL6},
    {"LOG_LOCAL7", LOG_LOCAL7},
    {NULL, 0},
};
static const struct code levels[] = {
    {"LOG_EMERG", LOG_EMERG}, {"LOG_ALERT", LOG_ALERT},     {"LOG_CRIT", LOG_CRIT},
    {"LOG_ERR", LOG_ERR},     {"LOG_WARNING", LOG_WARNING}, {"LOG_NOTICE", LOG_NOTICE},
    {"LOG_INFO", LOG_INFO},   {"LOG_DEBUG", LOG_DEBUG},     {NULL, 0},
};

static int lookup(const struct code *list, const char *word, int *out)
{
    for (const struct code *c = list; word != NULL && c->word != NULL; c++)
        if (strcasecmp(c->word, word) == 0) {
            *out = c->value;
            return SCR_SUCCESS;
        }
    return SCR_ERR_ARG;
}

int scr_event_log_facility(const char *word, int *out_facility)
{
    return lookup(facilities, word, out_facility);
}
int scr_event_log_level(const char *word, int *out_level)
{
    return lookup(levels, word, out_level);
}

int scr_event_log_setup(struct scr_event_log *log, const scr_config *cfg, const char *prefix_scr,
                        const char *job, const char *user, const char *host)
{
    struct scr_log_params lp;
    scr_params_resolve_log(cfg, &lp);
    return scr_event_log_open(log, &lp, prefix_scr, job, user, host);
}

int scr_event_log_open(struct scr_event_log *log, const struct scr_log_params *lp,
                       const char *prefix_scr, const char *job, const char *user, const char *host)
{
    memset(log, 0, sizeof(*log));
    if (!lp->enable) return SCR_SUCCESS;
    snprintf(log->job, sizeof(log->job), "%s", job ? job : "");
    snprintf(log->user, sizeof(log->user), "%s", user ? user : "");
    snprintf(log->host, sizeof(log->host), "%s", host ? host : "");
    if (prefix_scr != NULL) {
        log->dir = strdup(prefix_scr);
        if (log->dir == NULL) return SCR_ERR_NOMEM;
        log->text = lp->text;
        log->json = lp->json;
    }
    if (lp->syslog) {
        /* the catalogue checked the words when the configuration was loaded */
        log->facility = LOG_LOCAL7;
        log->level = LOG_INFO;
        if (lp->syslog_facility != NULL)
            scr_event_log_facility(lp->syslog_facility, &log->facility);
        if (lp->syslog_level != NULL) scr_event_log_level(lp->syslog_level, &log->level);
        snprintf(log->ident, sizeof(log->ident), "%s",
                 lp->syslog_prefix != NULL ? lp->syslog_prefix : "SCR");
        /* openlog keeps the pointer: log->ident lives until scr_event_log_close */
        openlog(log->ident, LOG_PID, log->facility);
        log->syslog = 1;
    }
    return SCR_SUCCESS;
}

static int exists_in(const char *dir, const char *name)
{
    char *path = NULL;
    struct stat st;
    int yes = scr_path_join(dir, name, &path) == SCR_SUCCESS && stat(path, &st) == 0 &&
              S_ISREG(st.st_mode);
    free(path);
    return yes;
}

int scr_event_log_setup_outside(struct scr_event_log *log, const char *prefix, const char *job)
{
    memset(log, 0, sizeof(*log));
    char jobid[256] = "", user[256] = "", host[256] = "";
    int defaulted = 0;
    if (job == NULL &&
        (scr_job_env_job_id(jobid, sizeof(jobid), &defaulted) != SCR_SUCCESS || defaulted))
        jobid[0] = '\0';
    if (scr_job_env_user_name(user, sizeof(user)) != SCR_SUCCESS) user[0] = '\0';
    if (scr_job_env_node_name(host, sizeof(host)) != SCR_SUCCESS) host[0] = '\0';
    char *dir = NULL, *user_file = NULL;
    int rc = scr_path_join(prefix, ".scr", &dir);
    if (rc == SCR_SUCCESS && getenv("SCR_CONF_FILE") == NULL)
        rc = scr_path_join(prefix, ".scrconf", &user_file);
    scr_config *cfg = rc == SCR_SUCCESS ? scr_config_new() : NULL;
    if (rc == SCR_SUCCESS && cfg == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) {
        struct scr_config_sources src = {0};
        struct stat st;
        if (user_file != NULL && stat(user_file, &st) == 0) src.user_file = user_file;
        int loaded = scr_config_load(cfg, &src) == SCR_SUCCESS;
        enum scr_config_layer layer = SCR_CONFIG_LAYER_DEFAULT;
        if (loaded) rc = scr_event_log_setup(log, cfg, dir, job ? job : jobid, user, host);
        /* SCR_LOG_ENABLE set where we can see it is obeyed, 0 included */
        if (loaded) scr_config_layer_of(cfg, "SCR_LOG_ENABLE", &layer);
        if (rc == SCR_SUCCESS && layer == SCR_CONFIG_LAYER_DEFAULT && !scr_event_log_enabled(log)) {
            if (log->syslog) closelog();
            free(log->dir);
            memset(log, 0, sizeof(*log));
            log->json = exists_in(dir, SCR_EVENT_LOG_JSON_NAME);
            log->text = exists_in(dir, SCR_EVENT_LOG_TEXT_NAME);
            snprintf(log->job, sizeof(log->job), "%s", job ? job : jobid);
            snprintf(log->user, sizeof(log->user), "%s", user);
            snprintf(log->host, sizeof(log->host), "%s", host);
            log->dir = dir;
            dir = NULL;
        }
    }
    scr_config_delete(cfg);
    free(dir);
    free(user_file);
    return rc;
}

int scr_event_log_enabled(const struct scr_event_log *log)
{
    return log->text || log->json || log->syslog;
}

static void warn_once_why(struct scr_event_log *log, const char *path, const char *what,
                          const char *why)
{
    if (log->warned) return;
    log->warned = 1;
    scr_warn("could not %s the event log %s: %s; the run goes on, events may be missing from it",
             what, path, why);
}

static void warn_once(struct scr_event_log *log, const char *path, const char *what, int err)
{
    warn_once_why(log, path, what, strerror(err));
}

/* An exclusive lock of the open file fd, waiting at most LOCK_WAIT_MS: 0,
 * or why not. A reader or writer that holds the lock longer (a stuck
 * process, a file system without fcntl locks) must not stop the run that
 * logs, so the caller then appends without it: a line may then meet
 * another writer's, but no event is lost and no rank waits. */
#define LOCK_WAIT_MS 2000
static int lock_for_a_while(int fd)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    for (int waited_ms = 0;; waited_ms += 10) {
        if (fcntl(fd, F_SETLK, &fl) == 0) return 0;
        if (errno == EINTR) continue;
        if ((errno != EAGAIN && errno != EACCES) || waited_ms >= LOCK_WAIT_MS) return errno;
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* The log file at path opened for appending, or -1 (warned once). The
 * user owns the directory: a symbolic link, a FIFO or a device planted at
 * the log's name is refused, never written through nor waited on. */
static int open_log_file(struct scr_event_log *log, const char *path)
{
    int fd = open(
        path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0) {
        int err = errno;
        if ((err == ELOOP || err == ENXIO) && lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
            warn_once_why(log, path, "open",
                          S_ISLNK(st.st_mode) ? "it is a symbolic link, never followed"
                                              : "it is not a regular file");
        else
            warn_once(log, path, "open", err);
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        warn_once_why(log, path, "open", "it is not a regular file");
        close(fd);
        return -1;
    }
    return fd;
}

/* One line appended whole: the lock keeps writers on other nodes (where
 * O_APPEND alone is not atomic, NFS) from writing between our bytes. */
static void append(struct scr_event_log *log, const char *name, const char *line)
{
    char *path = NULL;
    if (scr_path_join(log->dir, name, &path) != SCR_SUCCESS) {
        warn_once(log, name, "name", ENOMEM);
        return;
    }
    int fd = open_log_file(log, path);
    if (fd < 0) {
        free(path);
        return;
    }
    int err = lock_for_a_while(fd);
    if (err != 0) warn_once(log, path, "lock (the line is appended unlocked)", err);
    size_t len = strlen(line), done = 0;
    while (done < len) {
        ssize_t n = write(fd, line + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            warn_once(log, path, "write", n < 0 ? errno : EIO);
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) warn_once(log, path, "close", errno); /* closing drops the lock */
    free(path);
}

void scr_event_log_write(struct scr_event_log *log, const struct scr_event *ev)
{
    if (!scr_event_log_enabled(log)) return;
    struct scr_event e = *ev;
    if (e.epoch == 0) e.epoch = (int64_t)time(NULL);
    e.job = log->job;
    e.user = log->user;
    e.host = log->host;
    char *line = NULL;
    if (log->json) {
        if (scr_event_format_json(&e, &line) == SCR_SUCCESS)
            append(log, SCR_EVENT_LOG_JSON_NAME, line);
        else
            warn_once(log, SCR_EVENT_LOG_JSON_NAME, "format a line of", ENOMEM);
        free(line);
        line = NULL;
    }
    if (log->text) {
        if (scr_event_format_text(&e, 1, &line) == SCR_SUCCESS)
            append(log, SCR_EVENT_LOG_TEXT_NAME, line);
        else
            warn_once(log, SCR_EVENT_LOG_TEXT_NAME, "format a line of", ENOMEM);
        free(line);
        line = NULL;
    }
    if (log->syslog && scr_event_format_text(&e, 0, &line) == SCR_SUCCESS) {
        line[strcspn(line, "\n")] = '\0';
        syslog(log->facility | log->level, "%s", line);
    }
    free(line);
}

void scr_event_log_close(struct scr_event_log *log)
{
    if (log->syslog) closelog();
    free(log->dir);
    memset(log, 0, sizeof(*log));
}

void scr_event_log_relaunch(const char *prefix, const char *job, int run_number, int nodes,
                            const char *excluded)
{
    struct scr_event_log log;
    if (scr_event_log_setup_outside(&log, prefix, job) != SCR_SUCCESS) return;
    struct scr_event_field fields[] = {SCR_EVENT_INT("run", run_number),
                                       SCR_EVENT_INT("nodes", nodes),
                                       SCR_EVENT_STR("excluded", excluded ? excluded : "")};
    struct scr_event ev = SCR_EVENT_INITIALIZER(SCR_EVENT_RELAUNCH);
    ev.status = SCR_EVENT_OK;
    ev.fields = fields;
    ev.nfields = 3;
    scr_event_log_write(&log, &ev);
    scr_event_log_close(&log);
}
