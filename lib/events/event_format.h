/* event_format.h — one event as a JSON line or a text line, and back.
 *
 * An event is what a log line says happened. Its JSON line, in
 * <prefix>/.scr/events.jsonl, is one object on one line, with the members in
 * this order (tests/data/events/events.jsonl pins them):
 *   "time"          ISO 8601 UTC, "2026-11-25T10:32:02Z"
 *   "epoch"         the same time, seconds since 1970 (integer)
 *   "job", "user", "host"   strings ("" when unknown)
 *   "event"         its name, lower case (SCR_EVENT_* below)
 *   "status"        "ok", "failed", or null when the event has no outcome
 *   "dataset_id"    integer, or null
 *   "dataset_name"  string, or null
 *   "bytes"         integer, or null
 *   "seconds"       number (microseconds kept), or null
 *   "bandwidth"     bytes per second (integer), or null: bytes / seconds
 *                   when both are known and seconds > 0
 *   "reason"        why it failed (or why a halt, a down node), or null
 * then the event's own members (strings or integers), e.g. "restart_source"
 * of init. A reader ignores members it does not know, so members may be
 * added; none is removed or renamed without a new file name.
 *
 * The text line, in <prefix>/.scr/log and through syslog, says the same as
 * key=value words after the time: job= user= host= event= status= dataset=
 * name= bytes= seconds= bw= reason= and the event's own, each only when
 * known; a value with a space, '=', a quote or a backslash is quoted with
 * "..." and \" \\ escapes, and a control character becomes '?', so that
 * an event is always one line. Nothing here does I/O or logs; the formatters
 * allocate the line they return (free it). */
#ifndef SCR_EVENT_FORMAT_H
#define SCR_EVENT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* The events SCR records. */
#define SCR_EVENT_INIT "init" /* restart_source: cache, prefix or none */
#define SCR_EVENT_CHECKPOINT_START "checkpoint_start"
#define SCR_EVENT_CHECKPOINT_COMPLETE "checkpoint_complete"
#define SCR_EVENT_OUTPUT_START "output_start"
#define SCR_EVENT_OUTPUT_COMPLETE "output_complete"
#define SCR_EVENT_ENCODE "encode"   /* redundancy applied; scheme */
#define SCR_EVENT_REBUILD "rebuild" /* a cached dataset rebuilt at init */
#define SCR_EVENT_FLUSH "flush"
#define SCR_EVENT_FETCH "fetch" /* failed: marked FAILED, older one tried */
#define SCR_EVENT_EVICT "evict" /* dataset deleted from cache for room */
#define SCR_EVENT_HALT "halt"   /* reason: the halt condition */
#define SCR_EVENT_FINALIZE "finalize"
#define SCR_EVENT_RELAUNCH "relaunch"   /* run, nodes, excluded */
#define SCR_EVENT_SCAVENGE "scavenge"   /* a node's cache copied to the prefix */
#define SCR_EVENT_NODE_DOWN "node_down" /* node, reason */

#define SCR_EVENT_OK "ok"
#define SCR_EVENT_FAILED "failed"

/* An event's own member: a string (str != NULL) or an integer. */
struct scr_event_field {
    const char *key;
    const char *str;
    long long num;
};
#define SCR_EVENT_STR(k, v)    \
    {                          \
        (k), (v) ? (v) : "", 0 \
    }
#define SCR_EVENT_INT(k, v)       \
    {                             \
        (k), NULL, (long long)(v) \
    }

/* Unknown values: NULL strings, dataset_id 0, bytes -1, seconds < 0. */
struct scr_event {
    const char *event;
    const char *status;
    int64_t epoch; /* 0: now (the log fills it in) */
    const char *job, *user, *host;
    int dataset_id;
    const char *dataset_name;
    long long bytes;
    double seconds;
    const char *reason;
    const struct scr_event_field *fields;
    int nfields;
};

/* An event with everything unknown, to fill in. */
#define SCR_EVENT_INITIALIZER(name)                                         \
    {                                                                       \
        (name), NULL, 0, NULL, NULL, NULL, 0, NULL, -1, -1.0, NULL, NULL, 0 \
    }

/* ev as one JSON line ending in '\n', in a new string. SCR_ERR_NOMEM only. */
int scr_event_format_json(const struct scr_event *ev, char **out_line);

/* ev as one text line ending in '\n' (with_time 0: without the leading
 * time, as syslog stamps its own), in a new string. SCR_ERR_NOMEM only. */
int scr_event_format_text(const struct scr_event *ev, int with_time, char **out_line);

/* "2026-11-25T10:32:02Z" of epoch into buf (at least 21 bytes). */
void scr_event_format_time(int64_t epoch, char *buf, size_t len);

/* A time as scr-log accepts it: epoch seconds ("1795600000"), or ISO 8601
 * "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS]" (a space may replace the T) taken
 * as UTC, with an optional trailing "Z" or "+HH:MM"/"-HH:MM" offset.
 * SCR_SUCCESS or SCR_ERR_FORMAT. */
int scr_event_parse_time(const char *text, int64_t *out_epoch);

#endif
