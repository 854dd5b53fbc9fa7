/* run_crc_async.h — CRCs computed in a library thread that makes no MPI call.
 *
 * RECORD jobs give a SINGLE checkpoint its CRCs off the application's
 * time; CHECK jobs read a restart's files from cache while the
 * application reads them, and judge them at SCR_Complete_restart. At most
 * one job runs (run->crc_in_background). Not collective. */
#ifndef SCR_RUN_CRC_ASYNC_H
#define SCR_RUN_CRC_ASYNC_H

#include "scr_run.h"

/* RECORD: compute, off the application's time, the CRCs of this rank's
 * complete files of dataset id that have none (SINGLE, a set of one
 * member); they are recorded at a later call (poll, wait). A job still
 * running is waited for first. Under SMPI: done and recorded now. Not
 * collective. */
int scr_crc_async_start_record(struct scr_run *run, int id);

/* Record what a finished RECORD job computed (the filemap is saved), or
 * return at once while it runs. Not collective. */
int scr_crc_async_poll(struct scr_run *run);

/* Wait for the job that runs, and record what a RECORD job computed; a
 * CHECK job's result is dropped. Not collective. */
int scr_crc_async_wait(struct scr_run *run);

/* CHECK: read this rank's complete files of dataset id (the restart) and
 * compute their CRCs while the application reads them (under SMPI: at
 * scr_crc_async_check_done). Not collective. */
int scr_crc_async_start_check(struct scr_run *run, int id);

/* Join the CHECK job of dataset id and judge each file: one whose bytes or
 * size differ from what was recorded is reported in one line naming it and
 * marked incomplete (*out_damaged counts them); one without a recorded CRC
 * is reported to have been read unchecked, and gets the CRC computed now. The
 * filemap is saved when it changed. Not collective. */
int scr_crc_async_check_done(struct scr_run *run, int id, const char *name, int *out_damaged);

/* Join any job and forget it (the end of a run that failed). */
void scr_crc_async_teardown(struct scr_run *run);

#endif
