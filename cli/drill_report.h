/* drill_report.h — scr-drill's verdict on a restart, in words or as JSON.
 *
 * A drill_outcome gathers what the drill did (the first run and how it was
 * ended, the nodes lost), what it expected of the restart, and what the
 * second run's events say happened. drill_report_judge compares the two:
 * the restart is as expected when the second run ended with status 0,
 * reached SCR_Init, and restarted from the expected dataset (by name; a
 * fresh start when nothing was expected) from the expected place (cache or
 * prefix; any place when the user named the dataset with --expect).
 * drill_report_print says it all on stdout: a few lines of words, or one
 * JSON object whose members scr-drill.1 lists. */
#ifndef SCR_DRILL_REPORT_H
#define SCR_DRILL_REPORT_H

#include "drill_events.h"
#include "drill_nodes.h"
#include "drill_run.h"

struct drill_outcome {
    /* the drill */
    int ranks, nodes;
    const char *job, *prefix, *log_dir;
    int logs_kept;  /* log_dir stays after the drill */
    int stop_after; /* K of --stop-after, 0 with --kill-random */
    int kill_random;
    unsigned long seed; /* with --kill-random */
    double kill_delay;  /* with --kill-random: seconds after the start */
    const int *lost;    /* lost[k]: node k was lost */

    /* the first run */
    struct drill_run_result run1;
    int run1_checkpoints; /* checkpoints it completed */
    int run1_stopped;     /* the library stopped it after checkpoint stop_after */
    char run1_last[256];  /* the newest of them, "" when none */

    /* what the restart should do */
    int expect_given;       /* --expect NAME */
    char expect_source[16]; /* "cache", "prefix", "none"; "" with --expect */
    char expect_name[256];  /* "" for a fresh start */
    char expect_scheme[16]; /* the scheme that rebuilds it, when some of its ranks were lost */
    const struct drill_cached *cached;
    int ncached;

    /* what it did */
    struct drill_run_result run2;
    const struct drill_events *ev2;
    char got_source[16]; /* "cache", "prefix", "none" */
    char got_name[256];  /* "" for a fresh start */

    /* the verdict */
    int as_expected;
    char why[1024]; /* why not, when not */
};

/* Fill got_* from ev2 and the verdict from the rest. */
void drill_report_judge(struct drill_outcome *o);

/* Print o on stdout, as words or (json) one JSON object. SCR_SUCCESS, or
 * SCR_ERR_NOMEM / SCR_ERR_IO (logged). */
int drill_report_print(const struct drill_outcome *o, int json);

#endif
