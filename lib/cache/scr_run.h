/* scr_run.h — the state of a run of libscr in one process, as the cache
 * layer and those below the API know it.
 *
 * One struct scr_run exists between SCR_Init and SCR_Finalize (the API's
 * struct scr_api owns it, api_state.h). It holds who this process is, its
 * parameters (read-only, params.h), where things live, this rank's
 * filemap, the redundancy descriptors, the event log, and pointers to the
 * work this layer does in threads (the encode, the CRCs). It names no type
 * of a layer above it (tests/lib/test_layer_types.sh). The modules that act on it have a header
 * each (run_cache.h, run_crc.h, run_crc_async.h, run_encode_async.h,
 * run_events.h, run_rebuild.h, run_redundancy_ctx.h, run_shared.h; transfer.h
 * and flush_async.h above them) and are collective over run->world unless
 * they say otherwise, ending with an agreement so that every rank returns
 * the same status. Internal to libscr. */
#ifndef SCR_RUN_H
#define SCR_RUN_H

#include "config.h"
#include "dataset.h"
#include "event_log.h"
#include "filemap.h"
#include "job_env.h"
#include "kvtree.h"
#include "params.h"
#include "prefix_lock.h"
#include "reddesc.h"
#include "util_copy.h"

#include <mpi.h>
#include <stdint.h>

struct scr_run {
    /* who and where */
    MPI_Comm world; /* a duplicate of MPI_COMM_WORLD */
    MPI_Comm node;  /* the ranks on this node */
    int rank, ranks, node_rank, node_ranks, nodes;
    char node_name[256], user[256], jobid[256];
    /* A simulated node (SCR_SIM_NODE, job_env.h): node_name is its name,
     * base_node the real node's that a base's %N expands to, and every job
     * directory gets a sim.<name> level inside (job_dir.h). Without one,
     * sim_node is "" and base_node is node_name. */
    char sim_node[SCR_SIM_NODE_MAX + 1], base_node[256];

    /* parameters: the configuration (its descriptor tables) and what it resolved to */
    scr_config *cfg;
    char *prefix;     /* absolute, normalised */
    char *prefix_scr; /* <prefix>/.scr */
    char *cntl_dir;   /* <SCR_CNTL_BASE>/<user>/scr.<jobid>[/sim.<node>] */
    char *cache_dir;  /* <SCR_CACHE_BASE>/<user>/scr.<jobid>[/sim.<node>] */
    char *filemap_path, *master_filemap_path, *flush_path, *halt_path, *index_path;
    /* resolved once at SCR_Init, read-only after (params.h); the run owns it */
    const struct scr_params *params;

    /* rank 0: this run has the prefix to itself (prefix_lock.h) */
    struct scr_prefix_lock prefix_lock;
    struct scr_prefix_holder prefix_holder;
    int jobid_defaulted; /* no SLURM_JOB_ID or SCR_JOB_ID: a default every job of the user shares */

    /* the CRCs computed in the background, NULL when none (run_crc_async.c) */
    struct scr_crc_async *crc_in_background;

    /* this rank's files in cache, kept on disk at filemap_path */
    scr_filemap *map;

    /* redundancy descriptors of this run, with their sets */
    struct scr_reddesc *reddescs;
    int nreddescs;

    /* the encode in the background (run_encode_async.h), NULL before SCR_Init made it */
    struct scr_encoder *encoder;

    /* the log of events (event_log.h), written by rank 0 (run_events.c) */
    struct scr_event_log events;
};

/* Seconds since an arbitrary start, for intervals. */
double scr_run_now(void);

#endif
