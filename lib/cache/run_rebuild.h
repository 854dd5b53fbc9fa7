/* run_rebuild.h — every cached dataset back after a restart, at SCR_Init.
 *
 * Files go to their owners, what is lost is rebuilt from redundancy, what
 * cannot be is deleted; and the checks of a checkpoint written in place
 * (SCR_CACHE_BYPASS). Collective over run->world; all ranks agree. */
#ifndef SCR_RUN_REBUILD_H
#define SCR_RUN_REBUILD_H

#include "scr_run.h"

/* Move files to their owners, rebuild what is lost, delete what cannot be
 * rebuilt; *out_id is the newest complete checkpoint (0: none), in cache or
 * written in place with its files present. */
int scr_cache_rebuild(struct scr_run *run, int *out_id);

/* *out_in_place = 1 on every rank when no rank holds dataset id in cache:
 * it was written in place on the prefix (SCR_CACHE_BYPASS), or fetched
 * with SCR_FETCH_BYPASS and never recorded. Collective. */
int scr_cache_written_in_place(struct scr_run *run, int id, int *out_in_place);

/* *out_ok = 1 on every rank when every rank's records list all its files
 * of dataset id (name, for messages), written in place, and each is there
 * at its recorded size; each rank names the first of its files that is
 * missing or short, or says that its records lack the dataset. Contents
 * are not read (run_fetch_check.c does, after the restart). Collective. */
int scr_cache_in_place_is_present(struct scr_run *run, int id, const char *name, int *out_ok);

#endif
