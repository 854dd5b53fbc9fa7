/* complete.h — the work of SCR_Complete_output, apart from the API's state.
 *
 * scr_complete_output closes the dataset SCR_Start_output opened
 * (run->dataset_id, described by run->dset) in named steps, in this order:
 *   agree on validity  every rank is done writing; files ranks on several
 *                      nodes wrote are merged on the prefix; each rank seals
 *                      its files (size, completeness, CRC with
 *                      SCR_CRC_ON_COPY); every rank learns whether all are
 *                      valid, and the totals
 *   record totals      in the descriptor and every rank's filemap; a dataset
 *                      not valid on every rank is deleted (SCR_FAILURE)
 *   protect            the redundancy scheme, in the foreground or a thread
 *   record CRCs        those nothing else computes: SINGLE's in a thread,
 *                      or read now for a flush that takes none of its own
 *   flush or defer     to the prefix now, in the background, or not yet
 *   after a checkpoint a halt condition (SCR_HALT_EXIT), the drill's stop
 * Collective over run->world; each step says where the ranks agree.
 *
 * The caller (scr.c) owns the state of the API: it has closed the output
 * phase and concluded the work in the background that had landed, and it
 * ends the run when a halt asks for it. The module reaches for no state
 * but what it is passed. Internal to libscr. */
#ifndef SCR_COMPLETE_H
#define SCR_COMPLETE_H

#include "api_state.h"
#include "scr_run.h"

/* Complete the open dataset, valid as this rank says. Returns SCR_FAILURE
 * when the dataset is not valid on every rank (it is deleted), the error of
 * a step that failed, else SCR_SUCCESS. *out_halt = 1 when, after a
 * checkpoint, a halt condition holds and SCR_HALT_EXIT=1 (rank 0 said so):
 * the caller then finalizes SCR and MPI and exits with status 0. */
int scr_complete_output(struct scr_api *api, int valid, int *out_halt);

#endif
