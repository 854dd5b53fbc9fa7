/* util_pace.h — hold a copy loop to a bandwidth and a share of one core.
 *
 * A background flush must not take more from the node than it is given:
 * SCR_FLUSH_ASYNC_BW bytes per second and SCR_FLUSH_ASYNC_PERCENT of a
 * core. The loop that moves the bytes tells the pacer after each piece how
 * many it moved; the pacer sleeps just long enough that, from the start,
 * bytes / elapsed stays at or below the rate and the thread's CPU time
 * (user and system, getrusage RUSAGE_THREAD) / elapsed at or below the
 * share. Limits are measured from the start of the pace, so a slow piece is
 * made up by later ones rather than lost. What was achieved is measured
 * too (scr_pace_measured). One pace belongs to one thread. */
#ifndef SCR_UTIL_PACE_H
#define SCR_UTIL_PACE_H

#include <stddef.h>
#include <stdint.h>

struct scr_pace {
    double bw;      /* bytes per second, 0: no limit */
    double share;   /* fraction of one core, 0: no limit */
    double t0;      /* monotonic seconds at the start */
    double cpu0;    /* the thread's CPU seconds at the start */
    uint64_t bytes; /* moved since the start */
    double slept;   /* seconds the pace slept */
};

/* Start a pace in the calling thread: bw bytes per second (0: none),
 * percent of a core (0 or 100 and more: none). */
void scr_pace_start(struct scr_pace *p, double bw, double percent);

/* bytes more were moved; sleeps as the limits need. */
void scr_pace_account(struct scr_pace *p, size_t bytes);

/* Since the start, in the calling thread (the one that started the pace):
 * *out_bw bytes per second, *out_percent the share of a core used, in
 * percent, and *out_seconds elapsed. Any pointer may be NULL. */
void scr_pace_measured(const struct scr_pace *p, double *out_bw, double *out_percent,
                       double *out_seconds);

/* Monotonic seconds, and the calling thread's CPU seconds. */
double scr_pace_now(void);
double scr_pace_thread_cpu(void);

#endif
