/* test_util_progress.c — the progress line off a terminal: nothing for an
 * operation shorter than the interval, then plain lines with the amount,
 * the share, the rate and the time left, and a closing line with the
 * totals; ranks counted as ranks; no stream, no output. */
#include "tap.h"

#include "util_progress.h"

#include <stdint.h>
#include <time.h>

/* What a progress p wrote to its temporary stream, in buf. */
static void written(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
}

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void test_a_short_operation_prints_nothing(void)
{
    char buf[512];
    FILE *f = tmpfile();
    REQUIRE(f != NULL, "tmpfile");
    struct scr_progress p;
    unsetenv("SCR_PROGRESS_INTERVAL"); /* 5 s off a terminal */
    scr_progress_begin(&p, f, "copy", SCR_PROGRESS_BYTES, 1 << 20);
    scr_progress_update(&p, 1 << 19);
    scr_progress_update(&p, 1 << 20);
    scr_progress_end(&p);
    written(f, buf, sizeof(buf));
    CHECK(buf[0] == '\0', "printed '%s'", buf);
    fclose(f);
}

static void test_lines_after_each_interval_then_the_totals(void)
{
    char buf[1024];
    FILE *f = tmpfile();
    REQUIRE(f != NULL, "tmpfile");
    struct scr_progress p;
    setenv("SCR_PROGRESS_INTERVAL", "0.5", 1);
    scr_progress_begin(&p, f, "copy", SCR_PROGRESS_BYTES, 4 << 20);
    pause_ms(600);
    scr_progress_update(&p, 1 << 20);
    scr_progress_update(&p, 2 << 20); /* too soon after the last line */
    scr_progress_end(&p);
    written(f, buf, sizeof(buf));
    CHECK(strncmp(buf, "copy: 1.0 of 4.0 MiB (25%), ", 28) == 0, "first line '%s'", buf);
    CHECK(strstr(buf, " MiB/s, ETA 0:") != NULL, "rate and time left in '%s'", buf);
    CHECK(strstr(buf, "2.0 of") == NULL, "an update within the interval was printed: '%s'", buf);
    const char *last = strstr(buf, "\ncopy: done, 2.0 MiB in ");
    CHECK(last != NULL && strchr(last + 1, '\n') != NULL && strchr(last + 1, '\r') == NULL,
          "closing line in '%s'", buf);
    unsetenv("SCR_PROGRESS_INTERVAL");
    fclose(f);
}

static void test_ranks_are_counted_as_ranks(void)
{
    char buf[512];
    FILE *f = tmpfile();
    REQUIRE(f != NULL, "tmpfile");
    struct scr_progress p;
    setenv("SCR_PROGRESS_INTERVAL", "0.001", 1);
    scr_progress_begin(&p, f, "flush of dataset 3", SCR_PROGRESS_RANKS, 8);
    pause_ms(5);
    scr_progress_update(&p, 5);
    scr_progress_end(&p);
    written(f, buf, sizeof(buf));
    CHECK(strncmp(buf, "flush of dataset 3: 5 of 8 ranks (62%), ", 40) == 0, "'%s'", buf);
    CHECK(strstr(buf, "ranks/s") != NULL, "'%s'", buf);
    unsetenv("SCR_PROGRESS_INTERVAL");
    fclose(f);
}

static void test_without_a_stream_nothing_is_shown(void)
{
    struct scr_progress p;
    setenv("SCR_PROGRESS_INTERVAL", "0.001", 1);
    scr_progress_begin(&p, NULL, "quiet", SCR_PROGRESS_BYTES, 10);
    pause_ms(5);
    scr_progress_update(&p, 5);
    scr_progress_end(&p);
    CHECK(p.done == 5 && !p.shown, "done %llu, shown %d", (unsigned long long)p.done, p.shown);
    unsetenv("SCR_PROGRESS_INTERVAL");
}

int main(void)
{
    RUN(test_a_short_operation_prints_nothing);
    RUN(test_lines_after_each_interval_then_the_totals);
    RUN(test_ranks_are_counted_as_ranks);
    RUN(test_without_a_stream_nothing_is_shown);
    return tap_done();
}
