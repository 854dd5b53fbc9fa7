/* util_pace.c — sleeping a copy loop down to its bandwidth and CPU share. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "util_pace.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

double scr_pace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double scr_pace_thread_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0.0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

void scr_pace_start(struct scr_pace *p, double bw, double percent)
{
    memset(p, 0, sizeof(*p));
    p->bw = bw > 0 ? bw : 0;
    p->share = percent > 0 && percent < 100 ? percent / 100.0 : 0;
    p->t0 = scr_pace_now();
    p->cpu0 = scr_pace_thread_cpu();
}

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void scr_pace_account(struct scr_pace *p, size_t bytes)
{
    p->bytes += bytes;
    double elapsed = scr_pace_now() - p->t0;
    double wait = 0;
    /* the rate: bytes so far may not arrive before bytes / bw seconds */
    if (p->bw > 0) {
        double due = (double)p->bytes / p->bw;
        if (due > elapsed) wait = due - elapsed;
    }
    /* the share: cpu / elapsed <= share, so elapsed >= cpu / share */
    if (p->share > 0) {
        double cpu = scr_pace_thread_cpu() - p->cpu0;
        double due = cpu / p->share;
        if (due - elapsed > wait) wait = due - elapsed;
    }
    if (wait > 0) {
        sleep_seconds(wait);
        p->slept += wait;
    }
}

void scr_pace_measured(const struct scr_pace *p, double *out_bw, double *out_percent,
                       double *out_seconds)
{
    double elapsed = scr_pace_now() - p->t0;
    double cpu = scr_pace_thread_cpu() - p->cpu0;
    if (out_bw) *out_bw = elapsed > 0 ? (double)p->bytes / elapsed : 0;
    if (out_percent) *out_percent = elapsed > 0 ? 100.0 * cpu / elapsed : 0;
    if (out_seconds) *out_seconds = elapsed;
}
