/* util_copy_timed.h — the watchdog of scr_copy (util_copy.h): a copy in a
 * thread of its own, waited for at most a given time.
 *
 * Internal to util: callers ask for it with scr_copy_opts.timeout, and ask
 * after abandoned copies with scr_copy_timed_pending (util_copy.h, which
 * says what an abandoned copy does). Thread-safe. */
#ifndef SCR_UTIL_COPY_TIMED_H
#define SCR_UTIL_COPY_TIMED_H

#include "util_copy.h"

/* The copy the thread runs: scr_copy, handed in by util_copy.c, which
 * calls this module (so that neither file needs the other's symbols). */
typedef int (*scr_copy_engine)(const char *src, const char *dst, const struct scr_copy_opts *o,
                               struct scr_copy_result *out);

/* Copy src to dst with copy as o says (o->timeout > 0, o->kind set, no
 * pace; the thread's copy runs without a timeout), with a buffer of
 * o->bufsize bytes of the copy's own, in a detached thread;
 * SCR_ERR_TIMEOUT when it was abandoned. */
int scr_copy_in_thread(const char *src, const char *dst, const struct scr_copy_opts *o,
                       struct scr_copy_result *out, scr_copy_engine copy);

#endif
