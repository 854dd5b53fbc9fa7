/* util_log.h — one place where libscr-core reports what went wrong.
 *
 * Messages go to stderr as one line: "<prefix>: error: <what failed, on which
 * file, and why>". The latest error of the calling thread is also kept so that
 * a caller (or a test) can show or check it. Debug messages print only when
 * their level is at most SCR_DEBUG (scr_log_set_level). Thread-safe: each line
 * is written with a single write(2) and the last error is thread-local. */
#ifndef SCR_UTIL_LOG_H
#define SCR_UTIL_LOG_H

#include <stdarg.h>

/* Prefix of every line, e.g. "scr-print" or "SCR 0@node3" (copied; default "SCR"). */
void scr_log_set_prefix(const char *prefix);

/* Verbosity: 0 errors and warnings only, 1-2 more detail. Until set, the
 * level is read from the SCR_DEBUG environment variable (0 if unset or not a
 * number); the library sets it from its resolved configuration. */
void scr_log_set_level(int level);
int scr_log_level(void);

/* When quiet, nothing is printed; errors are still recorded (used by tests
 * that feed damaged input on purpose). */
void scr_log_set_quiet(int quiet);

void scr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void scr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void scr_dbg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The message of this thread's most recent scr_err ("" if none). */
const char *scr_last_error(void);
void scr_clear_last_error(void);

#endif
