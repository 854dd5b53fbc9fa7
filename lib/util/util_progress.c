/* util_progress.c — one progress line for a long operation, on stderr. */
#include "util_progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INTERVAL 5.0
#define TTY_INTERVAL 0.2 /* a terminal line is redrawn at most this often */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* $SCR_PROGRESS_INTERVAL when it is a number > 0, else 0. */
static double interval_from_env(void)
{
    const char *env = getenv("SCR_PROGRESS_INTERVAL");
    char *end = NULL;
    double v = env != NULL ? strtod(env, &end) : 0;
    return env != NULL && end != env && *end == '\0' && v > 0 ? v : 0;
}

void scr_progress_begin(struct scr_progress *p, FILE *out, const char *label,
                        enum scr_progress_unit unit, uint64_t total)
{
    memset(p, 0, sizeof(*p));
    p->out = out;
    snprintf(p->label, sizeof(p->label), "%s", label);
    p->unit = unit;
    p->total = total;
    p->tty = out != NULL && isatty(fileno(out));
    p->interval = interval_from_env();
    if (p->interval <= 0) p->interval = p->tty ? TTY_INTERVAL : DEFAULT_INTERVAL;
    p->start = p->last = now();
}

/* "120.0 MiB" or "37 ranks" */
static void amount(const struct scr_progress *p, uint64_t n, char *buf, size_t len)
{
    if (p->unit == SCR_PROGRESS_BYTES)
        snprintf(buf, len, "%.1f MiB", (double)n / (1024.0 * 1024.0));
    else
        snprintf(buf, len, "%llu rank%s", (unsigned long long)n, n == 1 ? "" : "s");
}

static void rate_text(const struct scr_progress *p, double rate, char *buf, size_t len)
{
    if (p->unit == SCR_PROGRESS_BYTES)
        snprintf(buf, len, "%.1f MiB/s", rate / (1024.0 * 1024.0));
    else
        snprintf(buf, len, "%.1f ranks/s", rate);
}

/* The state now, without a line end: "label: 1.0 of 4.0 MiB (25%), 2.0 MiB/s, ETA 0:02". */
static void print_state(struct scr_progress *p, double t)
{
    char done[48], total[48], rate[48];
    double secs = t - p->start, r = secs > 0 ? (double)p->done / secs : 0;
    amount(p, p->done, done, sizeof(done));
    rate_text(p, r, rate, sizeof(rate));
    if (p->total > 0) {
        amount(p, p->total, total, sizeof(total));
        int pct = (int)(100.0 * (double)p->done / (double)p->total);
        double eta = r > 0 && p->total > p->done ? (double)(p->total - p->done) / r : 0;
        /* "1.0 MiB of 4.0 MiB" reads worse than "1.0 of 4.0 MiB" */
        char *unit = strchr(done, ' ');
        if (unit != NULL) *unit = '\0';
        fprintf(p->out, "%s: %s of %s (%d%%), %s, ETA %d:%02d", p->label, done, total, pct, rate,
                (int)eta / 60, (int)eta % 60);
    } else {
        fprintf(p->out, "%s: %s, %s", p->label, done, rate);
    }
}

void scr_progress_update(struct scr_progress *p, uint64_t done)
{
    p->done = done;
    if (p->out == NULL) return;
    double t = now();
    if (t - p->last < p->interval) return;
    p->last = t;
    if (p->tty) {
        fputc('\r', p->out);
        print_state(p, t);
        fputs("\033[K", p->out); /* clear what a longer line left */
    } else {
        print_state(p, t);
        fputc('\n', p->out);
    }
    fflush(p->out);
    p->shown = 1;
}

void scr_progress_end(struct scr_progress *p)
{
    if (p->out == NULL || !p->shown) return;
    double t = now();
    if (p->tty) {
        fputc('\r', p->out);
        print_state(p, t);
        fputs("\033[K\n", p->out);
    } else {
        char done[48], rate[48];
        double secs = t - p->start;
        amount(p, p->done, done, sizeof(done));
        rate_text(p, secs > 0 ? (double)p->done / secs : 0, rate, sizeof(rate));
        fprintf(p->out, "%s: done, %s in %.1f s (%s)\n", p->label, done, secs, rate);
    }
    fflush(p->out);
    p->out = NULL;
}
