/* util_cpu_spare.c — idle CPU time of the calling thread's cores, from /proc. */
#define _GNU_SOURCE /* CPU_* of sched.h, gettid */
#include "util_cpu_spare.h"

#include "scr_err.h"
#include "util_pace.h"
#include "util_strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/stat holds a line per CPU and one per interrupt source: a few
 * hundred KiB on the largest nodes */
#define PROC_STAT_MAX (16u << 20)

/* The next count of a /proc/stat line at *p, which is moved past it; 0
 * when none is there before the end of the line. */
static int next_count(const char **p, unsigned long long *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    char *end = NULL;
    errno = 0;
    *out = strtoull(s, &end, 10);
    if (errno != 0) return 0;
    *p = end;
    return 1;
}

int scr_cpu_idle_parse(const char *proc_stat, const cpu_set_t *mask, long ticks_per_second,
                       double *out_seconds)
{
    if (ticks_per_second <= 0) return SCR_ERR_ARG;
    int wanted = CPU_COUNT(mask), found = 0;
    unsigned long long ticks = 0;
    for (const char *line = proc_stat; line != NULL && *line != '\0';) {
        const char *next = strchr(line, '\n');
        /* "cpuN user nice system idle iowait ...": the total line, "cpu  ...", has no N */
        if (strncmp(line, "cpu", 3) == 0 && isdigit((unsigned char)line[3])) {
            const char *p = line + 3;
            unsigned long long cpu = 0, count[5];
            int counts = next_count(&p, &cpu) ? 0 : -1;
            while (counts >= 0 && counts < 5 && next_count(&p, &count[counts])) counts++;
            /* count: user nice system idle iowait */
            if (counts == 5 && cpu < CPU_SETSIZE && CPU_ISSET((int)cpu, mask)) {
                ticks += count[3] + count[4];
                found++;
            }
        }
        line = next != NULL ? next + 1 : NULL;
    }
    if (found != wanted) return SCR_ERR_FORMAT;
    *out_seconds = (double)ticks / (double)ticks_per_second;
    return SCR_SUCCESS;
}

/* The whole of a /proc file, NUL-terminated, in a buffer the caller frees;
 * NULL when it cannot be read. Silent but for a failed allocation: a
 * missing file is an answer here. */
static char *read_proc(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    scr_strbuf text = SCR_STRBUF_INIT;
    char *out = NULL;
    int rc = scr_strbuf_read_fd(&text, fd, PROC_STAT_MAX);
    close(fd);
    if (rc == SCR_SUCCESS) rc = scr_strbuf_detach(&text, &out, NULL);
    if (rc != SCR_SUCCESS) scr_strbuf_free(&text);
    return out;
}

int scr_cpu_sample_take(struct scr_cpu_sample *out)
{
    memset(out, 0, sizeof(*out));
    out->wall = scr_pace_now();
    out->tid = gettid();
    CPU_ZERO(&out->mask);
    long ticks = sysconf(_SC_CLK_TCK);
    if (sched_getaffinity(0, sizeof(out->mask), &out->mask) != 0 || ticks <= 0) return SCR_ERR_IO;
    /* "run_ns wait_ns timeslices" of this thread */
    char *sched = read_proc("/proc/thread-self/schedstat");
    unsigned long long run_ns = 0, wait_ns = 0;
    const char *p = sched;
    int have_times = sched != NULL && next_count(&p, &run_ns) && next_count(&p, &wait_ns);
    free(sched);
    if (!have_times) return sched != NULL ? SCR_ERR_FORMAT : SCR_ERR_IO;
    char *stat = read_proc("/proc/stat");
    int rc = stat != NULL ? scr_cpu_idle_parse(stat, &out->mask, ticks, &out->idle) : SCR_ERR_IO;
    free(stat);
    if (rc != SCR_SUCCESS) return rc;
    out->ran = (double)run_ns * 1e-9;
    out->waited = (double)wait_ns * 1e-9;
    out->valid = 1;
    return SCR_SUCCESS;
}

int scr_cpu_stretch_measure(const struct scr_cpu_sample *from, const struct scr_cpu_sample *to,
                            double library_cpu, struct scr_cpu_stretch *out)
{
    double wall = to->wall - from->wall;
    if (!from->valid || !to->valid || wall <= 0 || from->tid != to->tid ||
        !CPU_EQUAL(&from->mask, &to->mask))
        return SCR_ERR_ARG;
    double waited = to->waited - from->waited, ran = to->ran - from->ran;
    double spare = (to->idle - from->idle) + library_cpu - waited;
    double demand = (ran + waited) / wall;
    out->seconds = wall;
    out->demand = demand < 0 ? 0 : demand > 1 ? 1 : demand;
    out->spare = spare > 0 ? spare / wall : 0;
    return SCR_SUCCESS;
}
