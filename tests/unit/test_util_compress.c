/* test_util_compress.c — a compressed copy writes a gzip file that zlib
 * (and so gzip -d) expands to the exact bytes, with the CRC of the
 * uncompressed bytes; a file that does not shrink, or an empty one, is
 * copied as written; expanding gives the bytes and CRC back, and refuses a
 * truncated, corrupted or extended stream, leaving no destination. */
#include "tap.h"

#include "scr_err.h"
#include "util_compress.h"
#include "util_copy.h"
#include "util_crc.h"
#include "util_log.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BUF_SIZE ((size_t)256 << 10)

static unsigned char buf[BUF_SIZE];

/* n bytes into path: text-like (lines of numbers) or xorshift noise */
static int write_sample(const char *path, size_t n, int noise, uint32_t *out_crc)
{
    unsigned char *data = malloc(n > 0 ? n : 1);
    if (data == NULL) return -1;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0, line = 0; i < n; line++) {
        char l[64];
        int len = snprintf(l, sizeof(l), "%zu %.6f\n", line, (double)line * 0.5);
        for (int k = 0; k < len && i < n; k++, i++) {
            if (noise) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data[i] = (unsigned char)(x >> 24);
            } else {
                data[i] = (unsigned char)l[k];
            }
        }
    }
    FILE *f = fopen(path, "wb");
    int rc = f != NULL && fwrite(data, 1, n, f) == n && fclose(f) == 0 ? 0 : -1;
    *out_crc = scr_crc32(0, data, n);
    free(data);
    return rc;
}

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* 1 when a and b hold the same bytes */
static int same_bytes(const char *a, const char *b)
{
    FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
    int same = x != NULL && y != NULL;
    while (same) {
        int c = fgetc(x), d = fgetc(y);
        if (c != d) same = 0;
        if (c == EOF || d == EOF) break;
    }
    if (x) fclose(x);
    if (y) fclose(y);
    return same;
}

/* Expand gz (a gzip file) with zlib's own gz reader into out. */
static int zlib_expand(const char *gz, const char *out)
{
    gzFile in = gzopen(gz, "rb");
    FILE *o = fopen(out, "wb");
    int rc = in != NULL && o != NULL ? 0 : -1;
    int n;
    while (rc == 0 && (n = gzread(in, buf, sizeof(buf))) > 0)
        if (fwrite(buf, 1, (size_t)n, o) != (size_t)n) rc = -1;
    if (in != NULL && gzclose(in) != Z_OK) rc = -1;
    if (o != NULL && fclose(o) != 0) rc = -1;
    return rc;
}

/* scr_copy of src to dst in form at level, with its CRC, through buf */
static int copy_as(const char *src, const char *dst, enum scr_copy_form form, int level,
                   struct scr_copy_result *got)
{
    const struct scr_copy_opts o = {
        .buf = buf, .bufsize = BUF_SIZE, .crc = 1, .form = form, .level = level};
    return scr_copy(src, dst, &o, got);
}

static void test_text_is_stored_as_gzip_that_zlib_expands_to_the_same_bytes(void)
{
    const char *src = tap_path("text.dat"), *dst = tap_path("prefix/text.dat"),
               *back = tap_path("text.back");
    uint32_t crc = 0;
    size_t n = (size_t)9 << 20; /* past the probe */
    REQUIRE(write_sample(src, n, 0, &crc) == 0, "write %s", src);
    struct scr_copy_result got = {0};
    int rc = copy_as(src, dst, SCR_COPY_GZIP, 1, &got);
    REQUIRE(rc == SCR_SUCCESS, "compressed copy: %s", scr_strstatus(rc));
    CHECK(got.stored.compressed == 1, "text was not stored compressed");
    CHECK(got.bytes == n && got.crc == crc, "got %llu bytes CRC 0x%08x, want %zu 0x%08x",
          (unsigned long long)got.bytes, got.crc, n, crc);
    CHECK((long)got.stored.bytes == size_of(dst), "stored %llu bytes, the file has %ld",
          (unsigned long long)got.stored.bytes, size_of(dst));
    CHECK(size_of(dst) < (long)n / 2, "%s is %ld bytes of %zu", dst, size_of(dst), n);
    REQUIRE(zlib_expand(dst, back) == 0, "zlib cannot expand %s", dst);
    CHECK(same_bytes(src, back), "%s expands to other bytes", dst);
}

static void test_expanding_gives_the_bytes_and_crc_back(void)
{
    const char *src = tap_path("text2.dat"), *gz = tap_path("text2.gz"),
               *back = tap_path("cache/text2.dat");
    uint32_t crc = 0;
    size_t n = 3 << 20;
    REQUIRE(write_sample(src, n, 0, &crc) == 0, "write");
    struct scr_copy_result got = {0};
    REQUIRE(copy_as(src, gz, SCR_COPY_GZIP, 9, &got) == 0, "gzip");
    REQUIRE(got.stored.compressed, "not compressed");
    struct scr_copy_result back_got = {0};
    int rc = copy_as(gz, back, SCR_COPY_GUNZIP, 0, &back_got);
    REQUIRE(rc == SCR_SUCCESS, "expand: %s", scr_strstatus(rc));
    CHECK(back_got.bytes == n && back_got.crc == crc, "expanded %llu bytes CRC 0x%08x",
          (unsigned long long)back_got.bytes, back_got.crc);
    CHECK(back_got.stored.bytes == got.stored.bytes, "read %llu of %llu stored bytes",
          (unsigned long long)back_got.stored.bytes, (unsigned long long)got.stored.bytes);
    CHECK(same_bytes(src, back), "expanded bytes differ");
    struct scr_copy_result crc_only = {0};
    CHECK(scr_crc_file_gunzip(gz, buf, BUF_SIZE, &crc_only) == SCR_SUCCESS && crc_only.crc == crc &&
              crc_only.bytes == n,
          "scr_crc_file_gunzip gave 0x%08x", crc_only.crc);
}

static void test_random_and_empty_files_are_copied_as_written(void)
{
    const char *src = tap_path("noise.dat"), *dst = tap_path("prefix/noise.dat");
    uint32_t crc = 0;
    size_t n = (size_t)5 << 20;
    REQUIRE(write_sample(src, n, 1, &crc) == 0, "write");
    struct scr_copy_result got = {0};
    got.stored = (struct scr_copy_stored){1, 1};
    REQUIRE(copy_as(src, dst, SCR_COPY_GZIP, 1, &got) == 0, "copy");
    CHECK(!got.stored.compressed, "random bytes were stored compressed");
    CHECK(got.stored.bytes == n && got.bytes == n && got.crc == crc,
          "stored %llu, got %llu CRC 0x%08x", (unsigned long long)got.stored.bytes,
          (unsigned long long)got.bytes, got.crc);
    CHECK(same_bytes(src, dst), "%s is not a copy as written", dst);

    const char *empty = tap_path("empty.dat"), *edst = tap_path("prefix/empty.dat");
    REQUIRE(write_sample(empty, 0, 0, &crc) == 0, "write empty");
    got.stored = (struct scr_copy_stored){1, 1};
    REQUIRE(copy_as(empty, edst, SCR_COPY_GZIP, 1, &got) == 0, "copy");
    CHECK(!got.stored.compressed && size_of(edst) == 0, "an empty file became %ld bytes",
          size_of(edst));
}

/* a gzip copy of a text sample at path, its size in *out_size */
static int make_gz(const char *name, const char *path, long *out_size)
{
    uint32_t crc;
    struct scr_copy_result got = {0};
    const char *src = tap_path(name);
    if (write_sample(src, 2 << 20, 0, &crc) != 0) return -1;
    if (copy_as(src, path, SCR_COPY_GZIP, 1, &got) != 0) return -1;
    *out_size = size_of(path);
    return got.stored.compressed ? 0 : -1;
}

/* expanding gz must fail with SCR_ERR_FORMAT and leave no destination */
static void expect_refused(const char *gz, const char *what)
{
    const char *dst = tap_path("cache/refused.dat");
    struct scr_copy_result got = {0};
    int rc = copy_as(gz, dst, SCR_COPY_GUNZIP, 0, &got);
    CHECK(rc == SCR_ERR_FORMAT, "%s: expanding gave %s", what, scr_strstatus(rc));
    CHECK(size_of(dst) < 0, "%s: a destination was left", what);
    rc = scr_crc_file_gunzip(gz, buf, BUF_SIZE, &got);
    CHECK(rc == SCR_ERR_FORMAT, "%s: its CRC gave %s", what, scr_strstatus(rc));
}

static void test_a_truncated_corrupted_or_extended_stream_is_refused(void)
{
    long size = 0;
    char gz[4096]; /* tap_path's buffers rotate */
    snprintf(gz, sizeof(gz), "%s", tap_path("damaged.gz"));
    REQUIRE(make_gz("t1.dat", gz, &size) == 0, "make gz");
    REQUIRE(truncate(gz, size / 2) == 0, "truncate");
    expect_refused(gz, "truncated");

    REQUIRE(make_gz("t2.dat", gz, &size) == 0, "make gz");
    REQUIRE(truncate(gz, size - 3) == 0, "truncate");
    expect_refused(gz, "its trailer cut");

    REQUIRE(make_gz("t3.dat", gz, &size) == 0, "make gz");
    int fd = open(gz, O_RDWR);
    REQUIRE(fd >= 0, "open");
    unsigned char c = 0;
    REQUIRE(pread(fd, &c, 1, size / 2) == 1, "read");
    c ^= 0xff;
    REQUIRE(pwrite(fd, &c, 1, size / 2) == 1, "write");
    close(fd);
    expect_refused(gz, "a byte flipped");

    REQUIRE(make_gz("t4.dat", gz, &size) == 0, "make gz");
    FILE *f = fopen(gz, "ab");
    REQUIRE(f != NULL && fputs("more", f) >= 0 && fclose(f) == 0, "append");
    expect_refused(gz, "bytes after its end");

    const char *plain = tap_path("plain.dat");
    uint32_t crc;
    REQUIRE(write_sample(plain, 1000, 0, &crc) == 0, "write");
    expect_refused(plain, "not gzip at all");
}

static void test_a_level_outside_1_to_9_is_refused(void)
{
    const char *src = tap_path("lvl.dat");
    uint32_t crc;
    REQUIRE(write_sample(src, 1000, 0, &crc) == 0, "write");
    struct scr_copy_result got = {0};
    CHECK(copy_as(src, tap_path("lvl.gz"), SCR_COPY_GZIP, 10, &got) == SCR_ERR_ARG,
          "level 10 accepted");
    CHECK(copy_as(src, tap_path("lvl.gz"), SCR_COPY_GZIP, 0, &got) == SCR_ERR_ARG,
          "level 0 accepted");
}

int main(void)
{
    RUN(test_text_is_stored_as_gzip_that_zlib_expands_to_the_same_bytes);
    RUN(test_expanding_gives_the_bytes_and_crc_back);
    RUN(test_random_and_empty_files_are_copied_as_written);
    RUN(test_a_truncated_corrupted_or_extended_stream_is_refused);
    RUN(test_a_level_outside_1_to_9_is_refused);
    return tap_done();
}
