/* run_flush_progress.c — rank 0 tells how a flush goes, at SCR_DEBUG >= 1. */
#include "run_flush_progress.h"
#include "mpi_comm.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_log.h"
#include "util_progress.h"

#include <stdio.h>

#define TAG_FLUSH_DONE 4705

int scr_flush_progress_rank_done(struct scr_run *run, int id)
{
    /* a message from every rank into rank 0 costs it time in proportion to
     * the ranks: only for a progress line someone asked to see (every rank
     * reads one SCR_DEBUG, as it reads every parameter the flush uses) */
    if (scr_log_level() < 1) return SCR_SUCCESS;
    unsigned char done = 1;
    if (run->rank != 0)
        return scr_mpi_check(MPI_Send(&done, 1, MPI_BYTE, 0, TAG_FLUSH_DONE, run->world),
                             "telling rank 0 this rank's part of the flush is done");
    /* rank 0 hears from every other rank, in the order they finish */
    char label[64];
    struct scr_progress p;
    snprintf(label, sizeof(label), "flush of dataset %d", id);
    scr_progress_begin(&p, scr_log_level() >= 1 ? stderr : NULL, label, SCR_PROGRESS_RANKS,
                       (uint64_t)run->ranks);
    scr_progress_update(&p, 1);
    int rc = SCR_SUCCESS;
    for (int heard = 1; rc == SCR_SUCCESS && heard < run->ranks; heard++) {
        rc = scr_mpi_check(MPI_Recv(&done, 1, MPI_BYTE, MPI_ANY_SOURCE, TAG_FLUSH_DONE, run->world,
                                    MPI_STATUS_IGNORE),
                           "hearing which ranks' parts of the flush are done");
        if (rc == SCR_SUCCESS) scr_progress_update(&p, (uint64_t)heard + 1);
    }
    scr_progress_end(&p);
    return rc;
}
