/* util_cpu_spare.h — how much the calling thread wanted a CPU over a
 * stretch of time, and how much CPU time its cores had to spare.
 *
 * Work that a library thread does beside the application is free only when
 * it runs on CPU time the application leaves idle; on cores the application
 * keeps busy it is taken from the application's computation, at a higher
 * cost than the same work done while the application waits for it. A sample
 * records, at one moment, the idle seconds of the CPUs the calling thread
 * may run on (its affinity mask, from /proc/stat) and the seconds the
 * calling thread has spent on a CPU and runnable but waiting for one (its
 * schedstat). Two samples taken by the same thread bound a stretch, which has
 *  - a demand: the share of its time the thread was runnable (running or
 *    waiting for a CPU), 1 for a thread that computed throughout;
 *  - a spare share, in cores:
 *      (idle + what the library's threads used - what the thread waited) / wall
 *    the library's own CPU time would have been idle but for them, except
 *    what they took from the sampling thread, which made it wait.
 * Linux only; where /proc lacks either file the sample is not valid and the
 * stretch cannot be measured. Thread-safe; no allocation outlives a call. */
#ifndef SCR_UTIL_CPU_SPARE_H
#define SCR_UTIL_CPU_SPARE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

struct scr_cpu_sample {
    int valid;       /* 0: /proc could not tell; the other fields mean nothing */
    double wall;     /* monotonic seconds */
    double idle;     /* idle and iowait seconds, summed over the CPUs of the mask */
    double ran;      /* the thread's seconds on a CPU, since it started */
    double waited;   /* the thread's seconds runnable but not running, since it started */
};

struct scr_cpu_stretch {
    double seconds;  /* its length */
    double demand;   /* the sampling thread's runnable share, 0 to 1 */
    double spare;    /* cores to spare, never below 0 */
};

/* A sample of the calling thread now; out->valid says whether it could be taken. */
void scr_cpu_sample_take(struct scr_cpu_sample *out);

/* Idle and iowait seconds of the CPUs in mask, summed, from the text of
 * /proc/stat, whose counters tick ticks_per_second times a second.
 * SCR_SUCCESS, SCR_ERR_ARG for no ticks per second, or SCR_ERR_FORMAT when
 * a CPU of the mask has no line or its line lacks the idle or iowait count. */
int scr_cpu_idle_parse(const char *proc_stat, const cpu_set_t *mask, long ticks_per_second, double *out_seconds);

/* The stretch from `from` to `to` (samples of the same thread), in which
 * the library's threads used library_cpu CPU seconds. SCR_SUCCESS, or
 * SCR_ERR_ARG when a sample is not valid or the stretch has no length. */
int scr_cpu_stretch_measure(const struct scr_cpu_sample *from, const struct scr_cpu_sample *to, double library_cpu,
                            struct scr_cpu_stretch *out);

#endif
