/* relaunch_plan.h — before each run of a job inside its allocation: launch
 * again or not, and which nodes to avoid.
 *
 * One answer for scr-run and for the Slurm plugin's relaunch, so both stop
 * and exclude for the same reasons. It joins down_nodes.h (the allocation's
 * nodes judged by the exclude list, Slurm's node states and the health
 * records in <prefix>/.scr/health) and relaunch.h (the halt file
 * <prefix>/.scr/halt.scr, the run count, the node minimum, the allocation's
 * end). Outside an allocation (no node list) no node is judged and the
 * node minimum does not apply. Links libslurm (libscr-slurm), never MPI. */
#ifndef SCR_RELAUNCH_PLAN_H
#define SCR_RELAUNCH_PLAN_H

#include "down_nodes.h"
#include "relaunch.h"

#include <stdint.h>

struct scr_relaunch_plan_input {
    const char *prefix;   /* the prefix directory (required) */
    const char *nodelist; /* the allocation's nodes, NULL outside an allocation */
    const char *exclude;  /* SCR_EXCLUDE_NODES, or NULL */
    int runs_done;        /* runs made so far */
    int max_runs;         /* SCR_RUNS; <= 0 no limit */
    int min_nodes;        /* SCR_MIN_NODES; <= 0 no minimum */
    int64_t end_time;     /* the allocation's end, 0 unknown */
    int64_t halt_seconds; /* SCR_HALT_SECONDS */
    int64_t
        health_since; /* health records checked before this are an earlier job's; 0: all count */
};

struct scr_relaunch_plan {
    enum scr_relaunch_verdict verdict;
    char why[300];              /* one line: why launch or why not */
    struct scr_down_nodes down; /* every node of the list judged (count 0 outside an allocation) */
    int nodes_up;               /* usable nodes, -1 outside an allocation */
    char *avoid;                /* the down nodes as a host list, NULL when none */
    char note[420]; /* "" or why Slurm's node states or the slurmd probe were not used */
};

/* Make the plan for in into *out (free with scr_relaunch_plan_free, also
 * after an error). Errors are those of down_nodes.h (a bad host list) and
 * relaunch.h (a damaged halt file), logged. */
int scr_relaunch_plan_make(const struct scr_relaunch_plan_input *in, struct scr_relaunch_plan *out);
void scr_relaunch_plan_free(struct scr_relaunch_plan *plan);

#endif
