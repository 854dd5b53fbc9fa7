/* drill_events.h — what scr-drill learns from the event log of one run.
 *
 * The drill runs the application with SCR_LOG_ENABLE=1, so the library
 * appends one JSON object per event to <prefix>/.scr/events.jsonl
 * (event_format.h). A drill_events follows that file from the offset it had
 * before the run began and keeps only the events of the drill's job id:
 * the checkpoints completed, the library's stop for the drill, and at a restart the init event,
 * the rebuilds and the fetches. Lines are read whole: a line still being
 * written stays for the next poll. A line that is not an event object is
 * counted in bad_lines and skipped (the log promises no garbage, but a run
 * that is killed may leave the end of a line unwritten).
 *
 * Not thread-safe; one drill_events per run. */
#ifndef SCR_DRILL_EVENTS_H
#define SCR_DRILL_EVENTS_H

#include <stdio.h>

/* The most rebuilds or fetches one restart records here. */
#define DRILL_EVENTS_MAX 32

/* A rebuild or a fetch of one dataset. */
struct drill_dataset_event {
    int id;
    char name[256];
    int ok;            /* status "ok" */
    int ranks_rebuilt; /* rebuild: ranks whose files came from redundancy; -1 unknown */
};

struct drill_events {
    char *path;    /* <prefix>/.scr/events.jsonl (owned) */
    char job[256]; /* only this job's events count */
    long offset;   /* where the next read starts */
    int bad_lines;

    /* checkpoints of the run, in order of completion */
    int completed;         /* checkpoint_complete with status ok */
    int last_completed_id; /* the newest of them, 0 when none */
    char last_completed_name[256];
    int saw_drill_stop; /* the halt event of SCR_DRILL_STOP_AFTER: the library killed the run */

    /* the restart: the init event, then rebuilds and fetches */
    int saw_init;
    char restart_source[32]; /* init's restart_source: cache, prefix, none */
    int init_id;             /* init's dataset_id (0: none) */
    struct drill_dataset_event rebuilds[DRILL_EVENTS_MAX];
    int nrebuilds;
    struct drill_dataset_event fetches[DRILL_EVENTS_MAX];
    int nfetches;
};

/* Prepare ev to follow prefix's events of job from the file's present end
 * (a missing file: from its beginning). SCR_ERR_NOMEM only (logged). */
int drill_events_start(struct drill_events *ev, const char *prefix, const char *job);

/* Read the lines appended since the last call. SCR_SUCCESS also when the
 * file does not exist yet; SCR_ERR_IO (logged, naming the file) when it
 * cannot be read. */
int drill_events_poll(struct drill_events *ev);

/* Release what start took. */
void drill_events_end(struct drill_events *ev);

#endif
