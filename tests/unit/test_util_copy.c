/* test_util_copy.c — scr_copy gives the source's bytes, size and CRC-32
 * whether the bytes pass through its buffer (with a CRC) or move inside the
 * kernel (without one), through the caller's buffer or one of its own; its
 * pace sees every byte in pieces of at most the buffer's size and can stop
 * it, leaving no destination; options that contradict each other are
 * refused. (Compressed copies: test_util_compress; the watchdog:
 * test_util_copy_timed.) */
#include "tap.h"

#include "scr_err.h"
#include "util_copy.h"
#include "util_crc.h"
#include "util_log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PIECE 4096

static char buf[PIECE];

/* n bytes of a pattern at path; *out_crc their CRC-32 */
static int write_sample(const char *path, size_t n, uint32_t *out_crc)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) return -1;
    uint32_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)((i * 131 + i / 977) & 0xff);
        crc = scr_crc32(crc, &c, 1);
        if (fputc(c, f) == EOF) break;
    }
    *out_crc = crc;
    return fclose(f) == 0 ? 0 : -1;
}

/* whether the files at a and b hold the same bytes */
static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    int same = fa != NULL && fb != NULL;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF) break;
    }
    if (fa != NULL) fclose(fa);
    if (fb != NULL) fclose(fb);
    return same;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void test_a_copy_gives_the_bytes_with_or_without_a_crc(void)
{
    /* empty, inside one piece, one piece exactly, several pieces and a part */
    const size_t sizes[] = {0, 1, PIECE - 1, PIECE, 3 * PIECE + 7};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char src[4096], dst[4096];
        uint32_t crc = 0;
        snprintf(src, sizeof(src), "%s", tap_path("src.dat"));
        REQUIRE(write_sample(src, sizes[i], &crc) == 0, "set-up");
        for (int with_crc = 0; with_crc <= 1; with_crc++) {
            snprintf(dst, sizeof(dst), "%s", tap_path(with_crc ? "out/crc.dat" : "out/kernel.dat"));
            const struct scr_copy_opts o = {.buf = buf, .bufsize = PIECE, .crc = with_crc};
            struct scr_copy_result got = {0};
            int rc = scr_copy(src, dst, &o, &got);
            CHECK(rc == SCR_SUCCESS, "%zu bytes, crc %d: %s", sizes[i], with_crc,
                  scr_strstatus(rc));
            CHECK(got.bytes == sizes[i] && got.stored.bytes == sizes[i] && !got.stored.compressed,
                  "%zu bytes, crc %d: counted %llu, stored %llu", sizes[i], with_crc,
                  (unsigned long long)got.bytes, (unsigned long long)got.stored.bytes);
            CHECK(!with_crc || got.crc == crc, "%zu bytes: CRC 0x%08x, want 0x%08x", sizes[i],
                  got.crc, crc);
            CHECK(same_bytes(src, dst), "%zu bytes, crc %d: %s differs from its source", sizes[i],
                  with_crc, dst);
        }
    }
}

static void test_a_copy_without_a_buffer_uses_one_of_its_own_and_replaces_the_destination(void)
{
    char src[4096], dst[4096];
    uint32_t crc = 0;
    snprintf(src, sizeof(src), "%s", tap_path("own.dat"));
    snprintf(dst, sizeof(dst), "%s", tap_path("deep/er/own.dat"));
    REQUIRE(write_sample(src, 2 * PIECE + 1, &crc) == 0, "set-up");
    const struct scr_copy_opts o = {.bufsize = PIECE, .crc = 1};
    struct scr_copy_result got = {0};
    CHECK(scr_copy(src, dst, &o, &got) == SCR_SUCCESS && got.crc == crc &&
              got.bytes == 2 * PIECE + 1,
          "copy into a new directory: %llu bytes, CRC 0x%08x", (unsigned long long)got.bytes,
          got.crc);
    REQUIRE(write_sample(src, PIECE / 2, &crc) == 0, "set-up");
    CHECK(scr_copy(src, dst, &o, &got) == SCR_SUCCESS && same_bytes(src, dst),
          "a shorter copy over an existing one is not the source");
}

struct counted {
    uint64_t bytes;
    size_t largest;
    int calls, stop_at;
};

static int count(void *ctx, size_t bytes)
{
    struct counted *c = ctx;
    c->bytes += bytes;
    if (bytes > c->largest) c->largest = bytes;
    return ++c->calls == c->stop_at ? SCR_ERR_STATE : SCR_SUCCESS;
}

static void test_the_pace_sees_every_byte_and_can_stop_the_copy(void)
{
    char src[4096], dst[4096];
    uint32_t crc = 0;
    const size_t n = 5 * PIECE + 3;
    snprintf(src, sizeof(src), "%s", tap_path("paced.dat"));
    snprintf(dst, sizeof(dst), "%s", tap_path("out/paced.dat"));
    REQUIRE(write_sample(src, n, &crc) == 0, "set-up");
    for (int with_crc = 0; with_crc <= 1; with_crc++) {
        struct counted c = {0};
        struct scr_copy_opts o = {
            .buf = buf, .bufsize = PIECE, .crc = with_crc, .pace = count, .pace_ctx = &c};
        struct scr_copy_result got = {0};
        CHECK(scr_copy(src, dst, &o, &got) == SCR_SUCCESS, "crc %d: the paced copy failed",
              with_crc);
        CHECK(c.bytes == n && c.largest <= PIECE && c.calls >= 6,
              "crc %d: the pace saw %llu bytes in %d calls, "
              "the largest %zu",
              with_crc, (unsigned long long)c.bytes, c.calls, c.largest);

        struct counted stop = {.stop_at = 2};
        o.pace_ctx = &stop;
        scr_log_set_quiet(1);
        int rc = scr_copy(src, dst, &o, &got);
        scr_log_set_quiet(0);
        CHECK(rc == SCR_ERR_STATE && stop.calls == 2,
              "crc %d: a pace that stops gave %s after %d calls", with_crc, scr_strstatus(rc),
              stop.calls);
        CHECK(!exists(dst), "crc %d: the stopped copy left %s", with_crc, dst);
    }
}

static int no_pace(void *ctx, size_t bytes)
{
    (void)ctx;
    (void)bytes;
    return SCR_SUCCESS;
}

static void test_options_that_contradict_each_other_are_refused(void)
{
    char src[4096];
    uint32_t crc = 0;
    snprintf(src, sizeof(src), "%s", tap_path("opts.dat"));
    REQUIRE(write_sample(src, 10, &crc) == 0, "set-up");
    const struct {
        const char *what;
        struct scr_copy_opts o;
    } bad[] = {
        {"no buffer size", {.crc = 1}},
        {"a time limit below zero", {.bufsize = PIECE, .timeout = -1, .kind = "test"}},
        {"a time limit without a kind", {.bufsize = PIECE, .timeout = 5}},
        {"a time limit with a pace",
         {.bufsize = PIECE, .timeout = 5, .kind = "test", .pace = no_pace}},
        {"gzip at level 0", {.bufsize = PIECE, .form = SCR_COPY_GZIP}},
    };
    scr_log_set_quiet(1);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct scr_copy_result got = {0};
        int rc = scr_copy(src, tap_path("out/refused.dat"), &bad[i].o, &got);
        CHECK(rc == SCR_ERR_ARG, "%s: %s", bad[i].what, scr_strstatus(rc));
    }
    scr_log_set_quiet(0);
    CHECK(!exists(tap_path("out/refused.dat")), "a refused copy wrote its destination");
}

int main(void)
{
    RUN(test_a_copy_gives_the_bytes_with_or_without_a_crc);
    RUN(test_a_copy_without_a_buffer_uses_one_of_its_own_and_replaces_the_destination);
    RUN(test_the_pace_sees_every_byte_and_can_stop_the_copy);
    RUN(test_options_that_contradict_each_other_are_refused);
    return tap_done();
}
