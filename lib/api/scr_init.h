/* scr_init.h — the work of SCR_Init, apart from the API's state.
 *
 * SCR_Init (scr.c) makes a struct scr_run, asks scr_init_load_config for
 * the parameters every rank agrees on, and, when SCR is enabled,
 * scr_init_start_run for the rest: who this process is, the prefix, the
 * cache and control directories, the index, the rebuild of the cache and
 * the choice of a restart. Both are collective over r->world and return the
 * same status on every rank; a failure has been reported where it was seen.
 * What a run holds is released by scr_init_free_run, on any path. */
#ifndef SCR_INIT_H
#define SCR_INIT_H

#include "api_state.h"
#include "scr_run.h"

/* Read the configuration files (rank 0), agree on them, give every rank
 * rank 0's, and resolve the parameters into r. Collective. */
int scr_init_load_config(struct scr_run *r);

/* Every rank but 0 loads cfg over its own environment with the files'
 * layers rank 0 read and sent (files; NULL: nothing to load), so that no
 * rank reads a file another may be writing; config names the SCR_Config
 * string in an error (NULL at SCR_Init). Collective over comm; all ranks
 * agree on the outcome. */
int scr_init_take_rank0_files(scr_config *cfg, const scr_kvtree *files, MPI_Comm comm, int rank,
                              const char *config);

/* Start the run r describes: identity, paths, the job and nodes files, the
 * prefix (index, lock, leftovers), the cache (descriptors, rebuild) and the
 * restart decision. Collective. */
int scr_init_start_run(struct scr_api *api);

/* Release everything r holds (communicators, filemap, locks) and r. */
void scr_init_free_run(struct scr_run *r);

/* Rank 0: the init event, with where a restart would come from. */
void scr_init_log(struct scr_api *api, double seconds);

/* Rank 0: one line for each parameter SCR defines that does nothing here
 * as set (a limit of the background flush without one, ...), so that
 * nobody counts on it. */
void scr_init_say_unavailable(const struct scr_run *r);

/* SCR_DROP_AFTER_CURRENT: once SCR_Current or SCR_CURRENT chose name, the
 * datasets the index lists after it are dropped (their files stay).
 * Collective: rank 0 edits, all agree. SCR_Current uses it too. */
int scr_init_drop_after_current(struct scr_run *r, const char *name);

#endif
