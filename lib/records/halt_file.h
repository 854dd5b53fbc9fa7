/* halt_file.h — the conditions under which a job stops: <prefix>/.scr/halt.scr.
 *
 * Keys (all optional):
 *   CheckpointsLeft  checkpoints still to complete; counts down, 0 halts
 *   ExitAfter        seconds since the epoch; once reached, halt
 *   ExitBefore       seconds since the epoch; halt HaltSeconds before it
 *   HaltSeconds      seconds of margin before ExitBefore (absent: 0)
 *   ExitReason       why the job is to stop; SCR_FINALIZE_CALLED is written
 *                    by SCR_Finalize and only tells the relaunch logic that
 *                    the run ended normally, so the library does not halt on
 *                    it (a later job on the same prefix carries on)
 *
 * The library and the halt command change the file while the other may be
 * doing the same, so every change is a read-modify-write under an exclusive
 * fcntl lock (scr_halt_file_lock_read ... scr_halt_file_write_unlock), and
 * plain reads take a shared lock. Taking the lock creates the file's
 * directory (the prefix's .scr/, mode 0700) when missing, so that the halt
 * command works before any run has created it; the file itself is created
 * with no keys. A missing file means no condition is set; an empty (0-byte)
 * one is damaged.
 *
 * The record is a scr_kvtree the caller owns. Setters check their arguments
 * (SCR_ERR_ARG, logged); getters do not log and return SCR_ERR_NOTFOUND for
 * an absent key, SCR_ERR_TYPE for a value that does not parse or is out of
 * range. Reading checks VERSION (absent means version 1, the format before
 * VERSION existed; a newer one is refused) and every value; a bad value is
 * logged as "<file>: key <KEY> holds '<text>', expected <what>" and returned
 * as SCR_ERR_FORMAT, leaving the caller's tree as it was. VERSION is not kept
 * in the tree; writing puts the current one first. */
#ifndef SCR_HALT_FILE_H
#define SCR_HALT_FILE_H

#include "kvtree.h"

#include <stddef.h>

#include <stdint.h>

/* Format version this build writes, and the newest it reads. */
#define SCR_HALT_FILE_VERSION 1

/* The ExitReason SCR_Finalize records. */
#define SCR_HALT_REASON_FINALIZE "SCR_FINALIZE_CALLED"

/* <prefix>/.scr/halt.scr, normalised, in a new string the caller frees. */
int scr_halt_file_path(const char *prefix, char **out_path);

/* --- the file ----------------------------------------------------------- */

/* Read path under a shared lock and merge it into halt. A missing file (or
 * missing directory) adds nothing and succeeds; an empty (0-byte) one is
 * damaged (SCR_ERR_FORMAT, logged naming it). */
int scr_halt_file_read(const char *path, scr_kvtree *halt);

/* Create the directory if needed, lock path exclusively (creating it with no keys),
 * and merge its contents into halt. On success *out_fd holds the lock until
 * scr_halt_file_write_unlock or scr_halt_file_unlock. */
int scr_halt_file_lock_read(const char *path, int *out_fd, scr_kvtree *halt);

/* Replace path with halt and the current VERSION, then release the lock and
 * close *fd (set to -1); the lock is released even when the write fails. */
int scr_halt_file_write_unlock(const char *path, int *fd, const scr_kvtree *halt);

/* Release the lock without writing. */
void scr_halt_file_unlock(int *fd);

/* Locked update: when CheckpointsLeft is set and above 0, lower it by one.
 * *out_left is the count afterwards, or -1 when no count is set (then the
 * file is not rewritten, and a missing file is not created). */
int scr_halt_file_decrement_checkpoints_left(const char *path, int *out_left);

/* --- values --------------------------------------------------------------- */

int scr_halt_file_set_checkpoints_left(scr_kvtree *halt, int count); /* count >= 0 */
int scr_halt_file_get_checkpoints_left(const scr_kvtree *halt, int *out_count);
int scr_halt_file_unset_checkpoints_left(scr_kvtree *halt);

int scr_halt_file_set_exit_after(scr_kvtree *halt, int64_t seconds); /* since the epoch, >= 0 */
int scr_halt_file_get_exit_after(const scr_kvtree *halt, int64_t *out_seconds);
int scr_halt_file_unset_exit_after(scr_kvtree *halt);

int scr_halt_file_set_exit_before(scr_kvtree *halt, int64_t seconds); /* since the epoch, >= 0 */
int scr_halt_file_get_exit_before(const scr_kvtree *halt, int64_t *out_seconds);
int scr_halt_file_unset_exit_before(scr_kvtree *halt);

int scr_halt_file_set_halt_seconds(scr_kvtree *halt, int64_t seconds); /* >= 0 */
int scr_halt_file_get_halt_seconds(const scr_kvtree *halt, int64_t *out_seconds);
int scr_halt_file_unset_halt_seconds(scr_kvtree *halt);

/* A non-empty reason; *out_reason points into halt. */
int scr_halt_file_set_exit_reason(scr_kvtree *halt, const char *reason);
int scr_halt_file_get_exit_reason(const scr_kvtree *halt, const char **out_reason);
int scr_halt_file_unset_exit_reason(scr_kvtree *halt);

/* --- decisions ------------------------------------------------------------ */

/* Why the library halts; when several conditions hold, the first listed wins. */
enum scr_halt_file_cause {
    SCR_HALT_NONE = 0,       /* keep running */
    SCR_HALT_EXIT_REASON,    /* ExitReason set to something other than SCR_FINALIZE_CALLED */
    SCR_HALT_CHECKPOINTS,    /* CheckpointsLeft is 0 (or below) */
    SCR_HALT_EXIT_AFTER,     /* now >= ExitAfter */
    SCR_HALT_EXIT_BEFORE,    /* now >= ExitBefore - HaltSeconds */
    SCR_HALT_ALLOCATION_END, /* the allocation ends within the margin (scr_halt_file_explain only)
                              */
};

/* Short description of a cause for messages ("ExitAfter time reached", ...). */
const char *scr_halt_file_cause_text(enum scr_halt_file_cause cause);

/* Whether the halt file alone halts a job at time now (seconds since the
 * epoch), and why: *out_cause is SCR_HALT_NONE to keep running. The same
 * rule as scr_halt_file_explain with no default margin and no allocation
 * end. A value of the wrong type gives SCR_ERR_TYPE (logged, naming the key). */
int scr_halt_file_should_halt(const scr_kvtree *halt, int64_t now,
                              enum scr_halt_file_cause *out_cause);

/* The whole rule a job follows (libscr, and a relaunch deciding whether to
 * start another run): the halt file's conditions as scr_halt_file_should_halt
 * checks them, except that the margin before ExitBefore is the file's
 * HaltSeconds when set and default_margin (SCR_HALT_SECONDS) otherwise; and
 * the allocation's end (end_time, 0 when unknown) within that margin.
 * *out_halt is 1 when the job should halt, and why then says why in one
 * line naming the condition. Values of the wrong type: SCR_ERR_TYPE (logged). */
int scr_halt_file_explain(const scr_kvtree *halt, int64_t now, int64_t default_margin,
                          int64_t end_time, int *out_halt, char *why, size_t why_len);

/* 1 when ExitReason is SCR_FINALIZE_CALLED: the last run ended through
 * SCR_Finalize, so no further run should be launched in this allocation. */
int scr_halt_file_finalize_called(const scr_kvtree *halt, int *out_flag);

#endif
