/* drill_events.c — follow one run's events in <prefix>/.scr/events.jsonl. */
#include "drill_events.h"
#include "event_format.h"
#include "event_log.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_lines.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int drill_events_start(struct drill_events *ev, const char *prefix, const char *job)
{
    memset(ev, 0, sizeof(*ev));
    snprintf(ev->job, sizeof(ev->job), "%s", job);
    char *dir = NULL;
    int rc = scr_path_join(prefix, ".scr", &dir);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dir, SCR_EVENT_LOG_JSON_NAME, &ev->path);
    free(dir);
    if (rc != SCR_SUCCESS) return rc;
    /* the events of earlier runs stay behind the offset */
    struct stat st;
    if (stat(ev->path, &st) == 0) ev->offset = (long)st.st_size;
    return SCR_SUCCESS;
}

void drill_events_end(struct drill_events *ev)
{
    free(ev->path);
    ev->path = NULL;
}

static const char *str_member(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* An integer member, or fallback when it is missing or not an integer. */
static int int_member(json_object *obj, const char *key, int fallback)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
        return fallback;
    return json_object_get_int(v);
}

/* A rebuild or fetch event into list (count *n), when there is room. */
static void note_dataset(json_object *obj, struct drill_dataset_event *list, int *n)
{
    if (*n >= DRILL_EVENTS_MAX) return;
    struct drill_dataset_event *d = &list[(*n)++];
    const char *status = str_member(obj, "status"), *name = str_member(obj, "dataset_name");
    d->id = int_member(obj, "dataset_id", 0);
    snprintf(d->name, sizeof(d->name), "%s", name ? name : "");
    d->ok = status != NULL && strcmp(status, SCR_EVENT_OK) == 0;
    d->ranks_rebuilt = int_member(obj, "ranks_rebuilt", -1);
}

/* One line of the file: an event of the drill's job is taken in. */
static void take_line(struct drill_events *ev, const char *line)
{
    json_object *obj = json_tokener_parse(line);
    const char *name = obj ? str_member(obj, "event") : NULL;
    if (name == NULL) {
        ev->bad_lines++;
        json_object_put(obj);
        return;
    }
    const char *job = str_member(obj, "job"), *status = str_member(obj, "status");
    int ok = status != NULL && strcmp(status, SCR_EVENT_OK) == 0;
    int id = int_member(obj, "dataset_id", 0);
    if (job == NULL || strcmp(job, ev->job) != 0) {
        /* another job's event on the same prefix */
    } else if (strcmp(name, SCR_EVENT_CHECKPOINT_COMPLETE) == 0 && ok) {
        const char *dname = str_member(obj, "dataset_name");
        ev->completed++;
        ev->last_completed_id = id;
        snprintf(ev->last_completed_name, sizeof(ev->last_completed_name), "%s",
                 dname ? dname : "");
    } else if (strcmp(name, SCR_EVENT_HALT) == 0) {
        const char *reason = str_member(obj, "reason");
        if (reason != NULL && strncmp(reason, "SCR_DRILL_STOP_AFTER=", 21) == 0)
            ev->saw_drill_stop = 1;
    } else if (strcmp(name, SCR_EVENT_INIT) == 0) {
        const char *source = str_member(obj, "restart_source");
        ev->saw_init = 1;
        snprintf(ev->restart_source, sizeof(ev->restart_source), "%s", source ? source : "");
        ev->init_id = id;
    } else if (strcmp(name, SCR_EVENT_REBUILD) == 0) {
        note_dataset(obj, ev->rebuilds, &ev->nrebuilds);
    } else if (strcmp(name, SCR_EVENT_FETCH) == 0) {
        note_dataset(obj, ev->fetches, &ev->nfetches);
    }
    json_object_put(obj);
}

/* The longest event line taken: longer ones are damage, skipped. */
#define DRILL_MAX_EVENT_LINE ((size_t)1 << 20)

int drill_events_poll(struct drill_events *ev)
{
    int fd;
    int rc = scr_open_regular(ev->path, O_RDONLY, 0, &fd);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS;
    if (rc != SCR_SUCCESS) return rc;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        scr_err("cannot stat the event log %s: %s", ev->path, strerror(errno));
        close(fd);
        return SCR_ERR_IO;
    }
    struct scr_lines lines;
    rc = scr_lines_init(&lines, fd, ev->path, (uint64_t)ev->offset, (uint64_t)st.st_size,
                        DRILL_MAX_EVENT_LINE);
    struct scr_line ln;
    int more = 1;
    uint64_t partial = UINT64_MAX;
    while (rc == SCR_SUCCESS && (rc = scr_lines_next(&lines, &ln, &more)) == SCR_SUCCESS && more) {
        /* a last line without its newline is still being written: read again next time */
        if (!ln.complete && !ln.cut && ln.offset + ln.len >= lines.end) {
            partial = ln.offset;
            break;
        }
        if (!ln.cut) take_line(ev, ln.text);
    }
    if (rc == SCR_SUCCESS)
        ev->offset = (long)(partial != UINT64_MAX ? partial : scr_lines_offset(&lines));
    scr_lines_free(&lines);
    close(fd);
    return rc;
}
