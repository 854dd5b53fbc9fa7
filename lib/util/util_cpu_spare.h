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
 * schedstat). Two samples taken by the same thread with the same mask bound
 * a stretch, which has
 *  - a demand: the share of its time the thread was runnable (running or
 *    waiting for a CPU), 1 for a thread that computed throughout;
 *  - a spare share, in cores:
 *      (idle + library CPU time - what the thread waited) / wall
 *    where the library CPU time is what the caller's own threads used in
 *    the stretch (it would have been idle but for them) and any wait of
 *    the sampling thread counts against it, whoever caused it.
 * Linux only; where /proc lacks a file or the thread's mask changes, no
 * stretch is measured. Thread-safe; says nothing, no allocation outlives
 * a call. */
#ifndef SCR_UTIL_CPU_SPARE_H
#define SCR_UTIL_CPU_SPARE_H

#include <sched.h>
#include <sys/types.h>

struct scr_cpu_sample {
    int valid;      /* 0: /proc could not tell; only wall, tid and mask mean something */
    pid_t tid;      /* the sampling thread */
    cpu_set_t mask; /* the CPUs it may run on */
    double wall;    /* monotonic seconds */
    double idle;    /* idle and iowait seconds, summed over the CPUs of the mask */
    double ran;     /* the thread's seconds on a CPU, since it started */
    double waited;  /* the thread's seconds runnable but not running, since it started */
};

struct scr_cpu_stretch {
    double seconds; /* its length */
    double demand;  /* the sampling thread's runnable share, 0 to 1 */
    double spare;   /* cores to spare, never below 0 */
};

/* A sample of the calling thread now. SCR_SUCCESS (out->valid 1), or
 * SCR_ERR_IO when the affinity mask or a /proc file cannot be read and
 * SCR_ERR_FORMAT when a file is not as expected (out->valid 0). */
int scr_cpu_sample_take(struct scr_cpu_sample *out);

/* Idle and iowait seconds of the CPUs in mask, summed, from the text of
 * /proc/stat, whose counters tick ticks_per_second times a second.
 * SCR_SUCCESS, SCR_ERR_ARG for no ticks per second, or SCR_ERR_FORMAT when
 * a CPU of the mask has no line or its line lacks the idle or iowait count. */
int scr_cpu_idle_parse(const char *proc_stat, const cpu_set_t *mask, long ticks_per_second,
                       double *out_seconds);

/* The stretch from `from` to `to` (samples of the same thread), in which
 * the caller's threads used library_cpu CPU seconds. SCR_SUCCESS, or
 * SCR_ERR_ARG when a sample is not valid, the two differ in thread or
 * mask, or the stretch has no length. */
int scr_cpu_stretch_measure(const struct scr_cpu_sample *from, const struct scr_cpu_sample *to,
                            double library_cpu, struct scr_cpu_stretch *out);

#endif
