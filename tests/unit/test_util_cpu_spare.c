/* test_util_cpu_spare.c — the idle seconds of a mask's CPUs are read from
 * /proc/stat's per-CPU lines only (the total line is no CPU), a CPU of the
 * mask without its line is a format error, two samples of different
 * threads or masks bound no stretch, the spare share counts the library's CPU time as spare and
 * the sampling thread's wait against it, a thread that computes on its
 * only CPU finds next to nothing spare and a sleeping one has no demand. */
#define _GNU_SOURCE /* CPU_* of sched.h */
#include "tap.h"

#include "scr_err.h"
#include "util_cpu_spare.h"

#include <time.h>

/* the kernel's layout: the total line, then one per CPU, then counters */
static const char *const stat_text = "cpu  900 10 300 5000 200 0 40 0 0 0\n"
                                     "cpu0 450 5 150 2400 100 0 20 0 0 0\n"
                                     "cpu1 450 5 150 2600 100 0 20 0 0 0\n"
                                     "cpu12 1 1 1 7 3 0 0 0 0 0\n"
                                     "intr 123456 0 9 0 0\n"
                                     "ctxt 987654\n";

static void test_idle_sums_idle_and_iowait_of_the_mask_cpus(void)
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    CPU_SET(1, &mask);
    CPU_SET(12, &mask);
    double s = -1;
    CHECK(scr_cpu_idle_parse(stat_text, &mask, 100, &s) == SCR_SUCCESS, "parse failed");
    /* cpu1: 2600 + 100, cpu12: 7 + 3 ticks; the total line is not a CPU */
    CHECK(s > 27.0999 && s < 27.1001, "idle %f s, 27.1 expected", s);
}

static void test_a_mask_cpu_without_its_line_is_a_format_error(void)
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    CPU_SET(0, &mask);
    CPU_SET(2, &mask);
    double s = -1;
    CHECK(scr_cpu_idle_parse(stat_text, &mask, 100, &s) == SCR_ERR_FORMAT && s == -1,
          "cpu2 has no line");
    CPU_ZERO(&mask);
    CPU_SET(0, &mask);
    CHECK(scr_cpu_idle_parse("cpu0 1 2 3\n", &mask, 100, &s) == SCR_ERR_FORMAT,
          "a line without iowait accepted");
    CHECK(scr_cpu_idle_parse(stat_text, &mask, 0, &s) == SCR_ERR_ARG,
          "0 ticks per second accepted");
    /* "cpu  900 10 ...", the total line, read as CPU 900, would count */
    CPU_ZERO(&mask);
    CPU_SET(900, &mask);
    CHECK(scr_cpu_idle_parse(stat_text, &mask, 100, &s) == SCR_ERR_FORMAT,
          "the total line taken for cpu900");
}

static void test_stretch_counts_library_cpu_as_spare_and_the_wait_against_it(void)
{
    struct scr_cpu_sample from = {
        .valid = 1, .tid = 7, .wall = 10.0, .idle = 100.0, .ran = 7.0, .waited = 3.0};
    struct scr_cpu_sample to = {
        .valid = 1, .tid = 7, .wall = 12.0, .idle = 100.5, .ran = 8.0, .waited = 3.5};
    CPU_ZERO(&from.mask);
    CPU_SET(1, &from.mask);
    to.mask = from.mask;
    struct scr_cpu_stretch st = {-1, -1, -1};
    /* 0.5 s idle + 1.5 s of the library's threads - 0.5 s waited, over 2 s */
    CHECK(scr_cpu_stretch_measure(&from, &to, 1.5, &st) == SCR_SUCCESS, "stretch refused");
    CHECK(st.spare > 0.7499 && st.spare < 0.7501, "spare %f, 0.75 expected", st.spare);
    /* 1 s ran + 0.5 s waited of 2 s */
    CHECK(st.demand > 0.7499 && st.demand < 0.7501, "demand %f, 0.75 expected", st.demand);
    CHECK(st.seconds == 2.0, "%f s, 2 expected", st.seconds);
    /* the library took more from the thread than it found idle: nothing spare */
    to.waited = 6.0;
    CHECK(scr_cpu_stretch_measure(&from, &to, 1.0, &st) == SCR_SUCCESS && st.spare == 0,
          "spare %f, 0 expected", st.spare);
    CHECK(st.demand == 1, "demand %f, capped at 1", st.demand);
    to.valid = 0;
    CHECK(scr_cpu_stretch_measure(&from, &to, 0, &st) == SCR_ERR_ARG, "an invalid sample accepted");
    to.valid = 1;
    to.tid = 8;
    CHECK(scr_cpu_stretch_measure(&from, &to, 0, &st) == SCR_ERR_ARG,
          "samples of two threads accepted");
    to.tid = 7;
    CPU_SET(2, &to.mask);
    CHECK(scr_cpu_stretch_measure(&from, &to, 0, &st) == SCR_ERR_ARG,
          "samples of two masks accepted");
    to.mask = from.mask;
    to.wall = from.wall;
    CHECK(scr_cpu_stretch_measure(&from, &to, 0, &st) == SCR_ERR_ARG,
          "a stretch of no length accepted");
}

static void test_a_thread_computing_on_its_only_cpu_finds_little_spare(void)
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    REQUIRE(sched_getaffinity(0, sizeof(mask), &mask) == 0, "sched_getaffinity");
    int cpu = 0;
    while (!CPU_ISSET(cpu, &mask)) cpu++;
    CPU_ZERO(&mask);
    CPU_SET(cpu, &mask);
    REQUIRE(sched_setaffinity(0, sizeof(mask), &mask) == 0, "binding to cpu %d", cpu);
    struct scr_cpu_sample from, to;
    REQUIRE(scr_cpu_sample_take(&from) == SCR_SUCCESS && from.valid,
            "no sample: this kernel's /proc has no schedstat or no per-CPU lines");
    /* 0.3 s of computation: the CPU is this thread's or another's, never idle */
    volatile unsigned long x = 1;
    do {
        for (int i = 0; i < 100000; i++) x = x * 2862933555777941757ul + 3037000493ul;
        scr_cpu_sample_take(&to);
    } while (to.wall - from.wall < 0.3);
    struct scr_cpu_stretch st;
    CHECK(scr_cpu_stretch_measure(&from, &to, 0, &st) == SCR_SUCCESS, "stretch refused");
    /* /proc/stat counts in ticks of 10 ms: a tick or two of idle at most */
    CHECK(st.spare < 0.2, "%.3f of a core spare while the thread computed", st.spare);
    CHECK(st.demand > 0.9, "the thread computed, but was runnable %.3f of the time", st.demand);
}

static void test_a_sleeping_thread_has_no_demand(void)
{
    struct scr_cpu_sample from, to;
    REQUIRE(scr_cpu_sample_take(&from) == SCR_SUCCESS, "no sample");
    struct timespec ts = {0, 200 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
    scr_cpu_sample_take(&to);
    struct scr_cpu_stretch st;
    CHECK(scr_cpu_stretch_measure(&from, &to, 0, &st) == SCR_SUCCESS, "stretch refused");
    CHECK(st.demand < 0.5, "the thread slept, but was runnable %.3f of the time", st.demand);
}

int main(void)
{
    RUN(test_idle_sums_idle_and_iowait_of_the_mask_cpus);
    RUN(test_a_mask_cpu_without_its_line_is_a_format_error);
    RUN(test_stretch_counts_library_cpu_as_spare_and_the_wait_against_it);
    RUN(test_a_thread_computing_on_its_only_cpu_finds_little_spare);
    RUN(test_a_sleeping_thread_has_no_demand);
    return tap_done();
}
