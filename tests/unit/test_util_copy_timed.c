/* test_util_copy_timed.c — a timed copy gives what an untimed one gives when
 * it ends in time; a copy the file system holds (tests/tools/stall_open.c,
 * linked in: an open of the source or the destination waits as a hung
 * server makes it wait, with no hook in the library) is abandoned after its
 * time, stays pending under its kind, and once let go removes what it wrote
 * and is pending no more. A FIFO in place of a file is refused at once. */
#include "tap.h"

#include "scr_err.h"
#include "util_copy.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Wait up to 10 s for the pending copies of kind to drop to zero. */
static int wait_not_pending(const char *kind)
{
    for (int i = 0; i < 1000 && scr_copy_timed_pending(kind, NULL, 0) > 0; i++) usleep(10000);
    return scr_copy_timed_pending(kind, NULL, 0);
}

/* scr_copy of src to dst with its CRC, abandoned after seconds under kind */
static int timed_copy(const char *src, const char *dst, int seconds, const char *kind,
                      struct scr_copy_result *got)
{
    const struct scr_copy_opts o = {.bufsize = 4096, .crc = 1, .timeout = seconds, .kind = kind};
    return scr_copy(src, dst, &o, got);
}

static void test_a_copy_in_time_gives_what_an_untimed_copy_gives(void)
{
    char src[8192], dst[8192], ref[8192];
    snprintf(src, sizeof(src), "%s", tap_path("in.dat"));
    snprintf(dst, sizeof(dst), "%s", tap_path("out/timed.dat"));
    snprintf(ref, sizeof(ref), "%s", tap_path("out/plain.dat"));
    FILE *f = fopen(src, "w");
    REQUIRE(f != NULL, "set-up");
    for (int i = 0; i < 300000; i++) fputc((i * 7) & 0xff, f);
    REQUIRE(fclose(f) == 0, "set-up");
    char buf[4096];
    struct scr_copy_result plain = {0}, timed = {0};
    const struct scr_copy_opts untimed = {.buf = buf, .bufsize = sizeof(buf), .crc = 1};
    REQUIRE(scr_copy(src, ref, &untimed, &plain) == SCR_SUCCESS, "plain copy");
    CHECK(timed_copy(src, dst, 10, "test", &timed) == SCR_SUCCESS, "timed copy failed");
    CHECK(timed.bytes == 300000 && timed.crc == plain.crc,
          "timed copy: %llu bytes, CRC 0x%08x; plain 0x%08x", (unsigned long long)timed.bytes,
          timed.crc, plain.crc);
    struct scr_copy_result back = {0};
    CHECK(scr_crc_file(dst, buf, sizeof(buf), &back) == SCR_SUCCESS && back.crc == plain.crc &&
              back.bytes == 300000,
          "the copy on disk differs from its source");
    CHECK(scr_copy_timed_pending(NULL, NULL, 0) == 0, "a copy that ended in time is pending");
    struct scr_copy_result none = {0};
    scr_log_set_quiet(1);
    CHECK(timed_copy(tap_path("missing.dat"), dst, 10, "test", &none) == SCR_ERR_NOTFOUND,
          "a missing source is not reported as missing");
    scr_log_set_quiet(0);
}

/* Make opens of paths containing part wait until release is created. */
static void stall_opens_of(const char *part, const char *release)
{
    REQUIRE(setenv("SCR_TEST_STALL_OPEN", part, 1) == 0 &&
                setenv("SCR_TEST_STALL_RELEASE", release, 1) == 0,
            "setenv");
}

static void let_go(const char *release)
{
    FILE *f = fopen(release, "w");
    REQUIRE(f != NULL && fclose(f) == 0, "creating %s", release);
}

static void write_small(const char *path)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL && fputs("checkpoint", f) >= 0 && fclose(f) == 0, "set-up");
}

static void test_a_copy_the_kernel_holds_is_abandoned_and_cleans_up_once_let_go(void)
{
    char src[8192], dst[8192], release[8192], pending_dst[8192] = "";
    snprintf(src, sizeof(src), "%s", tap_path("stalled.in"));
    snprintf(dst, sizeof(dst), "%s", tap_path("late/out.dat"));
    snprintf(release, sizeof(release), "%s", tap_path("release.in"));
    write_small(src);
    stall_opens_of("stalled.in", release);
    struct scr_copy_result got = {0};
    double t0 = now();
    int rc = timed_copy(src, dst, 1, "fetch", &got);
    double took = now() - t0;
    CHECK(rc == SCR_ERR_TIMEOUT, "rc %d, expected SCR_ERR_TIMEOUT", rc);
    CHECK(took >= 0.9 && took < 5, "gave up after %.2f s, the limit was 1 s", took);
    CHECK(scr_copy_timed_pending("fetch", pending_dst, sizeof(pending_dst)) == 1 &&
              strcmp(pending_dst, dst) == 0,
          "pending: %d, destination '%s'", scr_copy_timed_pending("fetch", NULL, 0), pending_dst);
    CHECK(scr_copy_timed_pending("flush", NULL, 0) == 0, "the copy is pending under another kind");

    /* the file system answers again: the copy goes through, then removes its file */
    let_go(release);
    CHECK(wait_not_pending("fetch") == 0, "the copy is still pending once the kernel let it go");
    CHECK(!exists(dst), "the abandoned copy's file %s was left", dst);
}

static void test_a_destination_the_kernel_holds_is_abandoned_too(void)
{
    char src[8192], dst[8192], release[8192];
    snprintf(src, sizeof(src), "%s", tap_path("small.dat"));
    snprintf(dst, sizeof(dst), "%s", tap_path("stalled.out"));
    snprintf(release, sizeof(release), "%s", tap_path("release.out"));
    write_small(src);
    stall_opens_of("stalled.out", release);
    struct scr_copy_result got = {0};
    int rc = timed_copy(src, dst, 1, "flush", &got);
    CHECK(rc == SCR_ERR_TIMEOUT, "rc %d, expected SCR_ERR_TIMEOUT", rc);
    CHECK(scr_copy_timed_pending("flush", NULL, 0) == 1, "the copy is not pending");
    let_go(release);
    CHECK(wait_not_pending("flush") == 0, "the copy is still pending once the kernel let it go");
    CHECK(!exists(dst), "the abandoned copy's file %s was left", dst);
}

static void test_a_fifo_is_refused_at_once_not_waited_on(void)
{
    char src[8192], dst[8192];
    snprintf(src, sizeof(src), "%s", tap_path("fifo.in"));
    snprintf(dst, sizeof(dst), "%s", tap_path("fifo-copy.dat"));
    REQUIRE(mkfifo(src, 0600) == 0, "mkfifo %s: %s", src, strerror(errno));
    struct scr_copy_result got = {0};
    double t0 = now();
    scr_log_set_quiet(1);
    int rc = timed_copy(src, dst, 10, "fetch", &got);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_IO, "rc %d, expected SCR_ERR_IO", rc);
    CHECK(now() - t0 < 5, "took %.2f s", now() - t0);
    CHECK(scr_copy_timed_pending("fetch", NULL, 0) == 0 && !exists(dst),
          "the refused copy left something");
}

int main(void)
{
    RUN(test_a_copy_in_time_gives_what_an_untimed_copy_gives);
    RUN(test_a_copy_the_kernel_holds_is_abandoned_and_cleans_up_once_let_go);
    RUN(test_a_destination_the_kernel_holds_is_abandoned_too);
    RUN(test_a_fifo_is_refused_at_once_not_waited_on);
    return tap_done();
}
