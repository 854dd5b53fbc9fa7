/* relaunch.c — whether a job should be launched again inside its allocation. */
#include "relaunch.h"
#include "halt_file.h"
#include "kvtree.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdio.h>

int scr_relaunch_decide(const struct scr_relaunch_input *in, enum scr_relaunch_verdict *out,
                        char *why, size_t why_len)
{
    if (in == NULL || in->halt_path == NULL || out == NULL || why == NULL) return SCR_ERR_ARG;
    scr_kvtree *file = scr_kvtree_new();
    if (file == NULL) {
        scr_err("out of memory reading the halt file");
        return SCR_ERR_NOMEM;
    }
    int rc = scr_halt_file_read(in->halt_path, file);
    int finished = 0, halt = 0;
    char halt_why[256] = "";
    if (rc == SCR_SUCCESS) rc = scr_halt_file_finalize_called(file, &finished);
    if (rc == SCR_SUCCESS)
        rc = scr_halt_file_explain(file, in->now, in->halt_seconds, in->end_time, &halt, halt_why,
                                   sizeof(halt_why));
    scr_kvtree_delete(file);
    if (rc != SCR_SUCCESS) {
        scr_err("%s cannot be used to decide whether to run again", in->halt_path);
        return rc == SCR_ERR_NOMEM ? rc : SCR_ERR_FORMAT;
    }
    if (finished && in->runs_done > 0) {
        *out = SCR_RELAUNCH_FINISHED;
        snprintf(why, why_len, "the job finished (SCR_Finalize was called)");
    } else if (halt) {
        *out = SCR_RELAUNCH_HALTED;
        snprintf(why, why_len, "%s", halt_why);
    } else if (in->max_runs > 0 && in->runs_done >= in->max_runs) {
        *out = SCR_RELAUNCH_NO_RUNS_LEFT;
        snprintf(why, why_len, "%d of %d runs made (SCR_RUNS)", in->runs_done, in->max_runs);
    } else if (in->min_nodes > 0 && in->nodes_up < in->min_nodes) {
        *out = SCR_RELAUNCH_TOO_FEW_NODES;
        snprintf(why, why_len, "%d usable nodes, fewer than SCR_MIN_NODES (%d)", in->nodes_up,
                 in->min_nodes);
    } else {
        *out = SCR_RELAUNCH_GO;
        char on[64] = "";
        if (in->nodes_up >= 0) snprintf(on, sizeof(on), " on %d nodes", in->nodes_up);
        if (in->max_runs > 0)
            snprintf(why, why_len, "run %d of %d%s", in->runs_done + 1, in->max_runs, on);
        else
            snprintf(why, why_len, "run %d (no limit)%s", in->runs_done + 1, on);
    }
    return SCR_SUCCESS;
}
