/* api_state.h — what the SCR API keeps between its calls.
 *
 * One struct scr_api exists between SCR_Init and SCR_Finalize. scr.c holds
 * the only pointer to it, since the SCR API has no handle, and passes it
 * explicitly to every helper, its own and those of scr_init.c, complete.c
 * and run_halt.c. It holds what only the API decides: the state machine,
 * the ids handed out, the dataset of the open output phase, the name
 * SCR_Current chose, the clock of the checkpoint policy and the drill's
 * count, the restart the fetch decided (transfer.h); and the two things
 * the API drives: the run (scr_run.h: identity, paths, parameters, cache,
 * redundancy) and the flush in the background (flush_async.h). The layers below get what
 * they need of it as arguments. */
#ifndef SCR_API_STATE_H
#define SCR_API_STATE_H

#include "dataset.h"
#include "flush_async.h"
#include "scr_run.h"
#include "transfer.h"

enum scr_api_state {
    SCR_STATE_UNINIT = 0, /* before SCR_Init or after SCR_Finalize */
    SCR_STATE_IDLE,       /* between phases */
    SCR_STATE_RESTART,    /* between Start_restart and Complete_restart */
    SCR_STATE_OUTPUT,     /* between Start_output/checkpoint and Complete_... */
};

struct scr_api {
    struct scr_run *run;         /* the run, owned */
    struct scr_flusher *flusher; /* the flush in the background, owned */

    enum scr_api_state state;
    int dataset_id;             /* newest dataset id known (cache or prefix) */
    int checkpoint_id;          /* newest checkpoint id known */
    scr_dataset *dset;          /* the dataset of the open output phase */
    int dset_in_cache;          /* 0: cache bypass, files written at their own paths */
    char *current_name;         /* set by SCR_Current or SCR_CURRENT: the restart asked for */
    struct scr_restart restart; /* the restart the fetch decided (transfer.h) */

    /* Need_checkpoint policy */
    long need_calls;
    double time_start, time_ckpt_start, time_last_ckpt_end, time_in_ckpt;
    int halt_logged; /* the halt event was recorded */

    int drill_stop_after;  /* SCR_DRILL_STOP_AFTER (run_halt.h), 0: none */
    int drill_checkpoints; /* checkpoints this run completed, counted for it */
};

#endif
