/* relaunch_plan.c — launch again or not, and which nodes to avoid. */
#include "relaunch_plan.h"

#include "halt_file.h"
#include "scr_err.h"
#include "util_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Judge the allocation's nodes into plan->down and plan->avoid. */
static int judge_nodes(const struct scr_relaunch_plan_input *in, struct scr_relaunch_plan *plan)
{
    char *health = NULL;
    int rc = scr_path_join(in->prefix, ".scr/health", &health);
    struct scr_down_nodes_query q = {
        .nodelist = in->nodelist,
        .exclude = in->exclude,
        .health_dir = health,
        .ask_slurm = 1,
        .probe_slurmd = 1,
        .health_since = (time_t)in->health_since,
    };
    if (rc == SCR_SUCCESS) rc = scr_down_nodes_find(&q, &plan->down);
    free(health);
    if (rc != SCR_SUCCESS) return rc;
    plan->nodes_up = plan->down.count - plan->down.down;
    if (!plan->down.slurm_asked)
        snprintf(plan->note, sizeof(plan->note), "node states not checked with Slurm: %s",
                 plan->down.slurm_error);
    else if (plan->down.probe_error[0] != '\0')
        snprintf(plan->note, sizeof(plan->note), "%s", plan->down.probe_error);
    if (plan->down.down > 0) return scr_down_nodes_hostlist(&plan->down, &plan->avoid);
    return SCR_SUCCESS;
}

int scr_relaunch_plan_make(const struct scr_relaunch_plan_input *in, struct scr_relaunch_plan *out)
{
    memset(out, 0, sizeof(*out));
    out->nodes_up = -1;
    int rc = SCR_SUCCESS;
    if (in->nodelist != NULL && in->nodelist[0] != '\0') rc = judge_nodes(in, out);
    char *halt = NULL;
    if (rc == SCR_SUCCESS) rc = scr_halt_file_path(in->prefix, &halt);
    if (rc == SCR_SUCCESS) {
        struct scr_relaunch_input r = {
            .halt_path = halt,
            .runs_done = in->runs_done,
            .max_runs = in->max_runs,
            .nodes_up = out->nodes_up,
            .min_nodes = out->nodes_up < 0 ? 0 : in->min_nodes,
            .now = (int64_t)time(NULL),
            .end_time = in->end_time,
            .halt_seconds = in->halt_seconds,
        };
        rc = scr_relaunch_decide(&r, &out->verdict, out->why, sizeof(out->why));
    }
    free(halt);
    return rc;
}

void scr_relaunch_plan_free(struct scr_relaunch_plan *plan)
{
    scr_down_nodes_free(&plan->down);
    free(plan->avoid);
    plan->avoid = NULL;
}
