/* relaunch.h — whether a job should be launched again inside its allocation.
 *
 * Asked before every run by scr-run and by the Slurm plugin's relaunch. The
 * answer, in this order:
 *   FINISHED      the halt file says the last run ended through SCR_Finalize
 *                 (ExitReason SCR_FINALIZE_CALLED);
 *   HALTED        a halt condition of the halt file holds (scr-halt), or the
 *                 allocation ends within halt_seconds;
 *   NO_RUNS_LEFT  max_runs runs were made (max_runs <= 0: no limit);
 *   TOO_FEW_NODES fewer than min_nodes nodes are usable;
 *   GO            launch.
 * FINISHED counts only after a run of this loop (runs_done > 0): SCR_Init
 * clears the mark when a run starts. A missing halt file holds no condition. A damaged one is an
 * error (SCR_ERR_FORMAT, logged naming the file): a loop must not guess whether the job wanted to
 * stop. No MPI, no Slurm; the caller counts nodes. */
#ifndef SCR_RELAUNCH_H
#define SCR_RELAUNCH_H

#include <stddef.h>
#include <stdint.h>

enum scr_relaunch_verdict {
    SCR_RELAUNCH_GO = 0,
    SCR_RELAUNCH_FINISHED,
    SCR_RELAUNCH_HALTED,
    SCR_RELAUNCH_NO_RUNS_LEFT,
    SCR_RELAUNCH_TOO_FEW_NODES,
};

struct scr_relaunch_input {
    const char *halt_path; /* the prefix's .scr/halt.scr */
    int runs_done;         /* runs made so far in this allocation */
    int max_runs;          /* SCR_RUNS; <= 0 for no limit */
    int nodes_up;          /* usable nodes (the allocation's minus the down ones), -1 unknown */
    int min_nodes;         /* SCR_MIN_NODES; <= 0 for no minimum */
    int64_t now;           /* seconds since the epoch */
    int64_t end_time;      /* the allocation's end (SCR_END_TIME), 0 if unknown */
    int64_t halt_seconds;  /* SCR_HALT_SECONDS */
};

/* Decide for in; why receives one line saying so (for GO too). */
int scr_relaunch_decide(const struct scr_relaunch_input *in, enum scr_relaunch_verdict *out,
                        char *why, size_t why_len);

#endif
