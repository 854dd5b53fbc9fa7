/* run_flush_progress.h — rank 0 tells how a flush goes, at SCR_DEBUG >= 1.
 *
 * Every rank calls scr_flush_progress_rank_done once its own part of a flush
 * is on the prefix (copied or failed): the others send rank 0 one byte, and
 * rank 0 counts them in as they come, showing "flush of dataset 3: 5 of 8
 * ranks (62%), ..." on stderr (util_progress.h: rewritten in place on a
 * terminal, a plain line every few seconds elsewhere, nothing for a short
 * flush). Below SCR_DEBUG=1 nothing is sent: rank 0 would spend time in
 * proportion to the number of ranks hearing from each, for a line no one
 * sees. Every rank reads the same SCR_DEBUG, as it reads every other
 * parameter of the flush. Returns when rank 0 has heard from every rank;
 * an MPI error is logged and returned. */
#ifndef SCR_RUN_FLUSH_PROGRESS_H
#define SCR_RUN_FLUSH_PROGRESS_H

struct scr_run;

int scr_flush_progress_rank_done(struct scr_run *run, int id);

#endif
