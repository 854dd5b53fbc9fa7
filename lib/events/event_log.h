/* event_log.h — SCR's log of events: a text log, syslog, and JSON lines.
 *
 * What a run did (init, checkpoints, redundancy, rebuilds, flushes, fetches,
 * evictions, halts, relaunches, scavenges, down nodes) is recorded, when
 * SCR_LOG_ENABLE=1, in up to three places chosen by parameters:
 *   SCR_LOG_TXT_ENABLE (1)     one line per event appended to <prefix>/.scr/log
 *   SCR_LOG_SYSLOG_ENABLE (1)  the same line through syslog(3), with
 *                              SCR_LOG_SYSLOG_FACILITY (LOG_LOCAL7),
 *                              SCR_LOG_SYSLOG_LEVEL (LOG_INFO) and
 *                              SCR_LOG_SYSLOG_PREFIX ("SCR") as identity
 *   SCR_LOG_JSON_ENABLE (1)    one JSON object per line appended to
 *                              <prefix>/.scr/events.jsonl (event_format.h
 *                              gives the fields)
 * Each event is one open(O_APPEND), the whole line written under an
 * exclusive fcntl() lock of the file, and one close: writers in several
 * processes, on several nodes, do not interleave or split a line (no fsync:
 * a crash may lose the newest lines, never garble older ones). The lock is
 * waited for at most 2 s; a file system without fcntl locks, or a process
 * that holds the lock longer, gets the line appended unlocked (with the one
 * warning below) rather than a run that waits or an event that is lost.
 *
 * Logging never fails the caller: scr_event_log_write returns nothing. A log
 * that cannot be written gives one warning per scr_event_log; the run goes
 * on. With SCR_LOG_ENABLE=0 nothing is opened, written or sent. No MPI: the
 * library (whichever rank observes an event), the Slurm plugin and the
 * commands all use it. Not thread-safe (fcntl locks belong to the process):
 * one thread of a process logs. */
#ifndef SCR_EVENT_LOG_H
#define SCR_EVENT_LOG_H

#include "config.h"
#include "event_format.h"
#include "params.h"

/* The text log and the JSON lines, inside <prefix>/.scr. */
#define SCR_EVENT_LOG_TEXT_NAME "log"
#define SCR_EVENT_LOG_JSON_NAME "events.jsonl"

struct scr_event_log {
    int text, json, syslog; /* where events go; all 0: logging is off */
    char *dir;              /* <prefix>/.scr, owned */
    char job[256], user[256], host[256];
    int facility, level; /* syslog's, e.g. LOG_LOCAL7 and LOG_INFO */
    char ident[64];      /* syslog's identity, SCR_LOG_SYSLOG_PREFIX */
    int warned;          /* the one warning was given */
};

/* Read the SCR_LOG_* parameters of cfg and prepare log for the prefix
 * directory prefix_scr (<prefix>/.scr, created by whoever writes there
 * first; the log never creates it) and the identity of the writer. job,
 * user and host may be NULL (then "" is recorded). Opens syslog when it is
 * used. SCR_ERR_NOMEM only; an unusable log shows when it is written. */
int scr_event_log_setup(struct scr_event_log *log, const scr_config *cfg, const char *prefix_scr,
                        const char *job, const char *user, const char *host);

/* As scr_event_log_setup, with the SCR_LOG_* parameters already resolved
 * (params.h): what the library does, from its run's parameters. */
int scr_event_log_open(struct scr_event_log *log, const struct scr_log_params *lp,
                       const char *prefix_scr, const char *job, const char *user, const char *host);

/* For the writers outside the library (the commands, the Slurm plugin):
 * the configuration loaded as libscr loads it for prefix (the environment,
 * $SCR_CONF_FILE else <prefix>/.scrconf, the system file; a configuration
 * that does not load counts as logging off), the job id (job NULL: from
 * the environment, "" when none), user and host from job_env.h. Where a
 * job's environment does not reach (the Slurm epilog runs without it),
 * logging is on for a file the job's library already began on the prefix:
 * each of events.jsonl and log that exists is appended to (syslog stays
 * off then). SCR_ERR_NOMEM only. */
int scr_event_log_setup_outside(struct scr_event_log *log, const char *prefix, const char *job);

/* The relaunch event of a job (job NULL: from the environment) on prefix,
 * written by whoever starts its runs (the plugin, scr-run): run run_number
 * on nodes nodes, avoiding excluded (a host list, or NULL). Never fails the
 * caller: a log that cannot be written says so once. */
void scr_event_log_relaunch(const char *prefix, const char *job, int run_number, int nodes,
                            const char *excluded);

/* 1 when any event would be written. */
int scr_event_log_enabled(const struct scr_event_log *log);

/* Record ev (its time is taken now when ev->epoch is 0) everywhere log
 * says. Never fails; see above. */
void scr_event_log_write(struct scr_event_log *log, const struct scr_event *ev);

/* Release what setup took (closes syslog when it was opened); log is then off. */
void scr_event_log_close(struct scr_event_log *log);

/* syslog's facility and level codes of SCR's words ("LOG_LOCAL7", "LOG_INFO",
 * case ignored): SCR_SUCCESS, or SCR_ERR_ARG for an unknown word. */
int scr_event_log_facility(const char *word, int *out_facility);
int scr_event_log_level(const char *word, int *out_level);

#endif
