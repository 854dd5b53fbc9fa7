/* test_util_copy_timed.c — a timed copy gives what scr_copy_file gives when
 * it ends in time; a copy the kernel holds (a FIFO nobody opens from the
 * other side: open blocks in the kernel, no hook in the code) is abandoned
 * after its time, stays pending under its kind, and once the kernel lets
 * it go removes what it wrote and is pending no more. */
#include "tap.h"

#include "scr_err.h"
#include "util_copy.h"
#include "util_copy_timed.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

static void test_a_copy_in_time_gives_what_scr_copy_file_gives(void)
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
    struct scr_copy_result plain = {0, 0}, timed = {0, 0};
    REQUIRE(scr_copy_file(src, ref, buf, sizeof(buf), 1, &plain) == SCR_SUCCESS, "plain copy");
    CHECK(scr_copy_file_timed(src, dst, 4096, 1, 10, "test", &timed) == SCR_SUCCESS, "timed copy failed");
    CHECK(timed.bytes == 300000 && timed.crc == plain.crc, "timed copy: %llu bytes, CRC 0x%08x; plain 0x%08x",
          (unsigned long long)timed.bytes, timed.crc, plain.crc);
    struct scr_copy_result back = {0, 0};
    CHECK(scr_crc_file(dst, buf, sizeof(buf), &back) == SCR_SUCCESS && back.crc == plain.crc &&
              back.bytes == 300000,
          "the copy on disk differs from its source");
    CHECK(scr_copy_timed_pending(NULL, NULL, 0) == 0, "a copy that ended in time is pending");
    struct scr_copy_result none = {0, 0};
    scr_log_set_quiet(1);
    CHECK(scr_copy_file_timed(tap_path("missing.dat"), dst, 4096, 1, 10, "test", &none) == SCR_ERR_NOTFOUND,
          "a missing source is not reported as missing");
    scr_log_set_quiet(0);
}

static void test_a_copy_the_kernel_holds_is_abandoned_and_cleans_up_once_let_go(void)
{
    char src[8192], dst[8192], pending_dst[8192] = "";
    snprintf(src, sizeof(src), "%s", tap_path("fifo.in"));
    snprintf(dst, sizeof(dst), "%s", tap_path("late/out.dat"));
    REQUIRE(mkfifo(src, 0600) == 0, "mkfifo %s: %s", src, strerror(errno));
    struct scr_copy_result got = {0, 0};
    double t0 = now();
    int rc = scr_copy_file_timed(src, dst, 4096, 1, 1, "fetch", &got);
    double took = now() - t0;
    CHECK(rc == SCR_ERR_TIMEOUT, "rc %d, expected SCR_ERR_TIMEOUT", rc);
    CHECK(took >= 0.9 && took < 5, "gave up after %.2f s, the limit was 1 s", took);
    CHECK(scr_copy_timed_pending("fetch", pending_dst, sizeof(pending_dst)) == 1 && strcmp(pending_dst, dst) == 0,
          "pending: %d, destination '%s'", scr_copy_timed_pending("fetch", NULL, 0), pending_dst);
    CHECK(scr_copy_timed_pending("flush", NULL, 0) == 0, "the copy is pending under another kind");

    /* the file system answers again: the copy goes through, then removes its file */
    int w = open(src, O_WRONLY);
    REQUIRE(w >= 0, "opening the FIFO for writing: %s", strerror(errno));
    CHECK(write(w, "late bytes", 10) == 10, "writing to the FIFO");
    close(w);
    CHECK(wait_not_pending("fetch") == 0, "the copy is still pending once the kernel let it go");
    CHECK(!exists(dst), "the abandoned copy's file %s was left", dst);
}

static void test_a_destination_the_kernel_holds_is_abandoned_too(void)
{
    char src[8192], dst[8192];
    snprintf(src, sizeof(src), "%s", tap_path("small.dat"));
    snprintf(dst, sizeof(dst), "%s", tap_path("fifo.out"));
    FILE *f = fopen(src, "w");
    REQUIRE(f != NULL && fputs("checkpoint", f) >= 0 && fclose(f) == 0, "set-up");
    REQUIRE(mkfifo(dst, 0600) == 0, "mkfifo %s: %s", dst, strerror(errno));
    struct scr_copy_result got = {0, 0};
    /* once let go, fsync of a FIFO fails, said late by the copy's thread */
    scr_log_set_quiet(1);
    int rc = scr_copy_file_timed(src, dst, 4096, 1, 1, "flush", &got);
    CHECK(rc == SCR_ERR_TIMEOUT, "rc %d, expected SCR_ERR_TIMEOUT", rc);
    CHECK(scr_copy_timed_pending("flush", NULL, 0) == 1, "the copy is not pending");
    /* let it go: a reader takes the bytes */
    int r = open(dst, O_RDONLY);
    REQUIRE(r >= 0, "opening the FIFO for reading: %s", strerror(errno));
    char buf[64];
    while (read(r, buf, sizeof(buf)) > 0) {}
    close(r);
    CHECK(wait_not_pending("flush") == 0, "the copy is still pending once the kernel let it go");
    scr_log_set_quiet(0);
}

int main(void)
{
    RUN(test_a_copy_in_time_gives_what_scr_copy_file_gives);
    RUN(test_a_copy_the_kernel_holds_is_abandoned_and_cleans_up_once_let_go);
    RUN(test_a_destination_the_kernel_holds_is_abandoned_too);
    return tap_done();
}
