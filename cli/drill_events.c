/* drill_events.c — follow one run's events in <prefix>/.scr/events.jsonl. */
#include "drill_events.h"
#include "event_format.h"
#include "event_log.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string)) return NULL;
    return json_object_get_string(v);
}

/* An integer member, or fallback when it is missing or not an integer. */
static int int_member(json_object *obj, const char *key, int fallback)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int)) return fallback;
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
        snprintf(ev->last_completed_name, sizeof(ev->last_completed_name), "%s", dname ? dname : "");
    } else if (strcmp(name, SCR_EVENT_HALT) == 0) {
        const char *reason = str_member(obj, "reason");
        if (reason != NULL && strncmp(reason, "SCR_DRILL_STOP_AFTER=", 21) == 0) ev->saw_drill_stop = 1;
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

int drill_events_poll(struct drill_events *ev)
{
    FILE *f = fopen(ev->path, "r");
    if (f == NULL) {
        if (errno == ENOENT) return SCR_SUCCESS;
        scr_err("cannot open the event log %s: %s", ev->path, strerror(errno));
        return SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    if (fseek(f, ev->offset, SEEK_SET) != 0) {
        scr_err("cannot seek in the event log %s: %s", ev->path, strerror(errno));
        fclose(f);
        return SCR_ERR_IO;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    errno = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        /* a line without its newline is still being written */
        if (line[len - 1] != '\n') break;
        ev->offset += (long)len;
        line[len - 1] = '\0';
        take_line(ev, line);
    }
    if (ferror(f)) {
        scr_err("cannot read the event log %s: %s", ev->path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    free(line);
    fclose(f);
    return rc;
}
