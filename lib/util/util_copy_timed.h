/* util_copy_timed.h — the watchdog of scr_copy (util_copy.h): a copy in a
 * thread of its own, waited for at most a given time.
 *
 * Internal to util: callers ask for it with scr_copy_opts.timeout, and ask
 * after abandoned copies with scr_copy_timed_pending (util_copy.h, which
 * says what an abandoned copy does). Thread-safe. */
#ifndef SCR_UTIL_COPY_TIMED_H
#define SCR_UTIL_COPY_TIMED_H

#include "util_copy.h"

/* Copy src to dst as o says (o->timeout > 0, o->kind set, no pace), with a
 * buffer of o->bufsize bytes of the copy's own, in a detached thread;
 * SCR_ERR_TIMEOUT when it was abandoned. */
int scr_copy_in_thread(const char *src, const char *dst, const struct scr_copy_opts *o,
                       struct scr_copy_result *out);

#endif
