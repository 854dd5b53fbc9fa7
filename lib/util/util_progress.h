/* util_progress.h — one progress line for a long operation, on stderr.
 *
 * What is counted is bytes or ranks (units). On a terminal (isatty of the
 * stream) the line is rewritten in place, at most five times a second:
 *   scr-scavenge: 120.0 of 512.0 MiB (23%), 48.1 MiB/s, ETA 0:08
 * Elsewhere (a log file, a pipe) a plain line is printed every 5 seconds.
 * $SCR_PROGRESS_INTERVAL (seconds, a number > 0; for tests and quiet logs)
 * replaces either interval. The first line comes only after one interval,
 * so an operation shorter than that prints nothing at all; when a line went
 * out, scr_progress_end prints a last one with the totals. The line never
 * goes to stdout: a command's --json output stays pure JSON.
 * No MPI, no allocation; not thread-safe (callers that count from several
 * threads serialise their calls). */
#ifndef SCR_UTIL_PROGRESS_H
#define SCR_UTIL_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

enum scr_progress_unit { SCR_PROGRESS_BYTES, SCR_PROGRESS_RANKS };

struct scr_progress {
    FILE *out;      /* NULL: the progress is not shown at all */
    char label[64]; /* "scr-scavenge", "flush of dataset 3" */
    enum scr_progress_unit unit;
    uint64_t total, done;
    int tty;            /* 1: rewrite one line in place */
    int shown;          /* a line (or part of one) was printed */
    double interval;    /* seconds between plain lines */
    double start, last; /* monotonic seconds: begun, last line printed */
};

/* Start counting towards total (0: unknown) in p; out is the stream, usually
 * stderr, or NULL to show nothing (p stays usable). */
void scr_progress_begin(struct scr_progress *p, FILE *out, const char *label,
                        enum scr_progress_unit unit, uint64_t total);

/* done of total so far; prints when it is time to. */
void scr_progress_update(struct scr_progress *p, uint64_t done);

/* Ends the line: on a terminal the last state and a newline, elsewhere a
 * closing line when an earlier one was printed. */
void scr_progress_end(struct scr_progress *p);

#endif
