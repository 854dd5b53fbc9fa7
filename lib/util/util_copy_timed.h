/* util_copy_timed.h — scr_copy_file with a time limit, for a file system that may stop answering.
 *
 * A thread blocked in a system call on a hung file system cannot be
 * cancelled, so the copy runs in a thread of its own (a detached thread
 * that makes no MPI call) and the caller waits for it at most the time
 * allowed. When the copy ends in time, the caller gets what scr_copy_file
 * gave. When it does not, the caller gets SCR_ERR_TIMEOUT at once and the
 * copy is abandoned: its thread, its descriptors, its buffer and its copy of
 * the paths stay until the kernel returns. Then the thread removes what it
 * wrote at the destination (scr_copy_file already removes a copy that
 * failed; an abandoned copy that succeeded late is removed too, since its
 * caller has counted it as failed) and frees everything it owns.
 *
 * An abandoned copy that has not returned yet is pending: a caller that is
 * about to write where such a copy may still write (the same prefix) asks
 * scr_copy_timed_pending first. The timeout is not logged here: the caller
 * names the operation it was part of. Thread-safe. */
#ifndef SCR_UTIL_COPY_TIMED_H
#define SCR_UTIL_COPY_TIMED_H

#include "util_copy.h"

#include <stddef.h>

/* Copy src to dst as scr_copy_file does, with a buffer of bufsize bytes
 * that the copy's thread allocates, waiting at most seconds (> 0).
 * SCR_ERR_TIMEOUT when the copy was abandoned; kind (a static string such
 * as "flush") tags it for scr_copy_timed_pending. */
int scr_copy_file_timed(const char *src, const char *dst, size_t bufsize, int with_crc, int seconds,
                        const char *kind, struct scr_copy_result *out);

/* scr_copy_file_timed in a form of util_copy.h (scr_copy_file_as);
 * stored (may be NULL) gets what the compressed side holds. */
int scr_copy_file_timed_as(const char *src, const char *dst, size_t bufsize, int with_crc, enum scr_copy_form form,
                           int level, int seconds, const char *kind, struct scr_copy_result *out,
                           struct scr_copy_stored *stored);

/* The abandoned copies of this kind that have not returned yet; when there
 * is one and out_dst is given, the destination of the oldest goes there
 * (at most len bytes with the terminating NUL). */
int scr_copy_timed_pending(const char *kind, char *out_dst, size_t len);

#endif
