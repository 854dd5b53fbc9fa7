/* halt_edit.h — the halt conditions as a person sets them: scr-halt and the
 * Slurm plugin.
 *
 * A change is a set of keys of the halt file (halt_file.h) to store and a
 * set to remove, applied in one locked read-modify-write of
 * <prefix>/.scr/halt.scr, so a running job that reads or counts down the
 * file at the same moment never loses its update or sees a torn file. A
 * damaged halt file is refused (logged, naming the file and the key) and
 * left as it is; only scr_halt_edit_remove deletes it.
 *
 * Times are seconds since the epoch. scr_halt_edit_parse_time reads the
 * forms a person types:
 *   @1790000000                 seconds since the epoch
 *   +90s +30m +2h +1d           from now (s, m, h, d)
 *   2026-11-22 17:30[:00]       local date and time
 *   2026-11-22T17:30[:00]       the same, ISO 8601
 *   17:30[:00]                  today, local time (may be in the past)
 * Not thread-safe. */
#ifndef SCR_HALT_EDIT_H
#define SCR_HALT_EDIT_H

#include "kvtree.h"

#include <stdint.h>
#include <stdio.h>

/* The ExitReason a person's halt request records (SCR's name for it). */
#define SCR_HALT_REASON_JOB_HALTED "JOB_HALTED"

/* The keys of a change, as bits. */
enum {
    SCR_HALT_EDIT_CHECKPOINTS = 1 << 0,  /* CheckpointsLeft */
    SCR_HALT_EDIT_EXIT_BEFORE = 1 << 1,  /* ExitBefore */
    SCR_HALT_EDIT_EXIT_AFTER = 1 << 2,   /* ExitAfter */
    SCR_HALT_EDIT_HALT_SECONDS = 1 << 3, /* HaltSeconds */
    SCR_HALT_EDIT_EXIT_REASON = 1 << 4,  /* ExitReason */
};

struct scr_halt_edit {
    int set;   /* keys to store, with the values below */
    int unset; /* keys to remove; a key may not be in both */
    int checkpoints;
    int64_t exit_before, exit_after, halt_seconds;
    const char *reason;
};

/* Apply edit to the halt file path (creating it and its directory when
 * missing). When out_halt is not NULL, the conditions as written are merged
 * into it. SCR_ERR_ARG (logged) for a bad edit, SCR_ERR_FORMAT for a damaged
 * file. */
int scr_halt_edit_apply(const char *path, const struct scr_halt_edit *edit, scr_kvtree *out_halt);

/* Delete the halt file under its lock, damaged or not; *out_removed is 0
 * when there was none. */
int scr_halt_edit_remove(const char *path, int *out_removed);

/* text as a time (forms above) at time now into *out. SCR_ERR_ARG when text
 * is none of them or names no real date; not logged, so that the caller
 * can say which option held it. */
int scr_halt_edit_parse_time(const char *text, int64_t now, int64_t *out);

/* The conditions of halt, one "Key  value" line each (times also as local
 * date and time), and what a running job would do about them at time now;
 * "no halt conditions" when there are none. SCR_ERR_IO (logged) when
 * writing fails. */
int scr_halt_edit_fprint(FILE *out, const scr_kvtree *halt, int64_t now);

#endif
