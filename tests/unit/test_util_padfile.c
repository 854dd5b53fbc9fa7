/* test_util_padfile.c — files read and written as one zero-padded logical file. */
#include "tap.h"

#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_padfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* Deterministic bytes so a failure can be reproduced. */
static unsigned char pattern_byte(uint64_t i, unsigned seed)
{
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
    x ^= x >> 29;
    return (unsigned char)(x | 1); /* never zero, so padding stands out */
}

/* Create name with len pattern bytes; return an open descriptor (flags). */
static int make_file(const char *name, size_t len, unsigned seed, int flags)
{
    const char *path = tap_path(name);
    unsigned char *buf = malloc(len + 1);
    for (size_t i = 0; i < len; i++) buf[i] = pattern_byte(i, seed);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || scr_write_full(fd, buf, len, path) != SCR_SUCCESS) {
        free(buf);
        return -1;
    }
    close(fd);
    free(buf);
    return open(path, flags);
}

/* Three files of 5, 0 and 7 bytes, with seeds 1, 2, 3. */
struct trio {
    scr_padfile_part parts[3];
    unsigned char expect[12];
};

static int open_trio(struct trio *t, int flags)
{
    static const size_t sizes[3] = {5, 0, 7};
    static const char *names[3] = {"a.dat", "b.dat", "c.dat"};
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        t->parts[i].path = tap_path(names[i]);
        t->parts[i].size = sizes[i];
        t->parts[i].fd = make_file(names[i], sizes[i], (unsigned)i + 1, flags);
        if (t->parts[i].fd < 0) return -1;
        for (size_t k = 0; k < sizes[i]; k++) t->expect[at++] = pattern_byte(k, (unsigned)i + 1);
    }
    return 0;
}

static void close_trio(struct trio *t)
{
    for (int i = 0; i < 3; i++)
        if (t->parts[i].fd >= 0) close(t->parts[i].fd);
}

static void test_every_range_reads_as_concatenation_then_zeros(void)
{
    struct trio t;
    REQUIRE(open_trio(&t, O_RDONLY) == 0, "set-up");
    uint64_t total = 0;
    CHECK(scr_padfile_size(t.parts, 3, &total) == SCR_SUCCESS && total == 12, "size %llu",
          (unsigned long long)total);
    unsigned char buf[40];
    for (uint64_t off = 0; off < 20; off++) {
        for (size_t len = 0; len <= 20; len++) {
            memset(buf, 0xee, sizeof(buf));
            int rc = scr_padfile_read(t.parts, 3, off, buf, len);
            CHECK(rc == SCR_SUCCESS, "read off %llu len %zu: rc %d", (unsigned long long)off, len,
                  rc);
            for (size_t k = 0; k < len; k++) {
                uint64_t at = off + k;
                unsigned char want = at < 12 ? t.expect[at] : 0;
                if (buf[k] != want) {
                    CHECK(0, "off %llu len %zu: logical byte %llu is 0x%02x, want 0x%02x",
                          (unsigned long long)off, len, (unsigned long long)at, buf[k], want);
                    break;
                }
            }
            CHECK(buf[len] == 0xee, "off %llu len %zu: wrote past the buffer",
                  (unsigned long long)off, len);
        }
    }
    close_trio(&t);
}

static void test_read_uses_only_declared_size_of_longer_file(void)
{
    int fd = make_file("long.dat", 100, 9, O_RDONLY);
    REQUIRE(fd >= 0, "set-up");
    scr_padfile_part part = {fd, "long.dat", 10};
    unsigned char buf[16];
    CHECK(scr_padfile_read(&part, 1, 0, buf, sizeof(buf)) == SCR_SUCCESS, "read");
    for (int i = 0; i < 16; i++)
        CHECK(buf[i] == (i < 10 ? pattern_byte((uint64_t)i, 9) : 0), "byte %d is 0x%02x", i,
              buf[i]);
    close(fd);
}

static void test_read_entirely_in_padding_touches_no_file(void)
{
    int fd = make_file("gone.dat", 4, 1, O_RDONLY);
    REQUIRE(fd >= 0, "set-up");
    close(fd); /* any use of this descriptor would now fail */
    scr_padfile_part part = {fd, "gone.dat", 4};
    unsigned char buf[8];
    memset(buf, 0xaa, sizeof(buf));
    CHECK(scr_padfile_read(&part, 1, 4, buf, sizeof(buf)) == SCR_SUCCESS, "read of padding");
    for (int i = 0; i < 8; i++) CHECK(buf[i] == 0, "padding byte %d is 0x%02x", i, buf[i]);
    CHECK(scr_padfile_read(NULL, 0, 0, buf, 8) == SCR_SUCCESS, "no files at all: all padding");
    CHECK(buf[7] == 0, "padding of an empty list");
}

static void test_read_of_file_shorter_than_declared_names_file_and_byte(void)
{
    int fd = make_file("short.dat", 6, 4, O_RDONLY);
    REQUIRE(fd >= 0, "set-up");
    const char *path = tap_path("short.dat");
    scr_padfile_part part = {fd, path, 10};
    unsigned char buf[10];
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_padfile_read(&part, 1, 2, buf, sizeof(buf));
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "rc %d", rc);
    CHECK(strstr(scr_last_error(), path) != NULL, "file not named: '%s'", scr_last_error());
    CHECK(strstr(scr_last_error(), "byte 6") != NULL, "end not named: '%s'", scr_last_error());
    close(fd);
}

static void test_read_from_failing_descriptor_names_file(void)
{
    /* a directory opens fine but cannot be read: EISDIR */
    int fd = open(tap_tmpdir(), O_RDONLY | O_DIRECTORY);
    REQUIRE(fd >= 0, "open dir");
    scr_padfile_part parts[2] = {{-1, "empty.dat", 0}, {fd, "the-directory", 8}};
    unsigned char buf[8];
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_padfile_read(parts, 2, 0, buf, sizeof(buf));
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_IO, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "the-directory") != NULL, "'%s'", scr_last_error());
    CHECK(strstr(scr_last_error(), strerror(EISDIR)) != NULL, "'%s'", scr_last_error());
    close(fd);
}

static void test_write_spans_files_and_leaves_the_rest_alone(void)
{
    struct trio t;
    REQUIRE(open_trio(&t, O_RDWR) == 0, "set-up");
    unsigned char data[6] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66};
    REQUIRE(scr_padfile_write(t.parts, 3, 3, data, sizeof(data)) == SCR_SUCCESS, "write");
    memcpy(t.expect + 3, data, sizeof(data));
    unsigned char buf[12];
    REQUIRE(scr_padfile_read(t.parts, 3, 0, buf, 12) == SCR_SUCCESS, "read back");
    for (int i = 0; i < 12; i++)
        CHECK(buf[i] == t.expect[i], "logical byte %d is 0x%02x, want 0x%02x", i, buf[i],
              t.expect[i]);
    struct stat st;
    CHECK(fstat(t.parts[0].fd, &st) == 0 && st.st_size == 5, "a.dat is %lld bytes",
          (long long)st.st_size);
    CHECK(fstat(t.parts[2].fd, &st) == 0 && st.st_size == 7, "c.dat is %lld bytes",
          (long long)st.st_size);
    close_trio(&t);
}

static void test_write_of_zero_padding_is_accepted_and_files_do_not_grow(void)
{
    struct trio t;
    REQUIRE(open_trio(&t, O_RDWR) == 0, "set-up");
    unsigned char data[10] = {0x77, 0x78, 0}; /* logical 10..19, real data ends at 12 */
    CHECK(scr_padfile_write(t.parts, 3, 10, data, sizeof(data)) == SCR_SUCCESS, "write");
    struct stat st;
    CHECK(fstat(t.parts[2].fd, &st) == 0 && st.st_size == 7, "c.dat grew to %lld bytes",
          (long long)st.st_size);
    unsigned char buf[2];
    CHECK(scr_padfile_read(t.parts, 3, 10, buf, 2) == SCR_SUCCESS && buf[0] == 0x77 &&
              buf[1] == 0x78,
          "last two bytes of c.dat");
    close_trio(&t);
}

static void test_write_with_nonzero_padding_is_refused_before_any_write(void)
{
    struct trio t;
    REQUIRE(open_trio(&t, O_RDWR) == 0, "set-up");
    unsigned char data[12] = {0};
    data[11] = 0x5a; /* logical byte 14, two past the end */
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_padfile_write(t.parts, 3, 3, data, sizeof(data));
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "rc %d", rc);
    CHECK(strstr(scr_last_error(), t.parts[2].path) != NULL, "'%s'", scr_last_error());
    CHECK(strstr(scr_last_error(), "offset 14") != NULL, "'%s'", scr_last_error());
    unsigned char buf[12];
    REQUIRE(scr_padfile_read(t.parts, 3, 0, buf, 12) == SCR_SUCCESS, "read back");
    CHECK(memcmp(buf, t.expect, 12) == 0, "files changed by a refused write");
    close_trio(&t);
}

static void test_write_to_read_only_descriptor_names_file(void)
{
    struct trio t;
    REQUIRE(open_trio(&t, O_RDONLY) == 0, "set-up");
    unsigned char data[4] = {1, 2, 3, 4};
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_padfile_write(t.parts, 3, 6, data, sizeof(data));
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_IO, "rc %d", rc);
    CHECK(strstr(scr_last_error(), t.parts[2].path) != NULL, "'%s'", scr_last_error());
    CHECK(strstr(scr_last_error(), "byte 1") != NULL, "'%s'", scr_last_error());
    close_trio(&t);
}

/* The file size limit makes the kernel write part of a request and then fail
 * with EFBIG: the loop must go on after the short write and report the byte
 * where the file system stopped it. */
static void test_short_write_continues_then_reports_where_it_stopped(void)
{
    const char *path = tap_path("limited.dat");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0, "open");
    unsigned char data[8192];
    for (size_t i = 0; i < sizeof(data); i++) data[i] = pattern_byte(i, 7);
    scr_padfile_part part = {fd, path, sizeof(data)};

    struct rlimit old, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
    lim = old;
    lim.rlim_cur = 5000;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = scr_padfile_write(&part, 1, 0, data, sizeof(data));
    scr_log_set_quiet(0);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);

    CHECK(rc == SCR_ERR_IO, "rc %d", rc);
    CHECK(strstr(scr_last_error(), path) != NULL, "'%s'", scr_last_error());
    CHECK(strstr(scr_last_error(), "byte 5000") != NULL, "'%s'", scr_last_error());
    unsigned char back[5000];
    scr_padfile_part have = {fd, path, 5000};
    CHECK(scr_padfile_read(&have, 1, 0, back, sizeof(back)) == SCR_SUCCESS &&
              memcmp(back, data, sizeof(back)) == 0,
          "the 5000 bytes before the limit");
    close(fd);
}

static void test_bad_arguments_are_refused(void)
{
    unsigned char buf[4];
    uint64_t size;
    scr_padfile_part no_fd = {-1, "nofd.dat", 3};
    scr_padfile_part huge[2] = {{0, "h1", UINT64_MAX / 2 + 1}, {0, "h2", UINT64_MAX / 2}};
    scr_padfile_part fine = {0, "fine", 1};
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_padfile_read(&no_fd, 1, 0, buf, 4) == SCR_ERR_ARG, "part without descriptor");
    CHECK(strstr(scr_last_error(), "nofd.dat") != NULL, "'%s'", scr_last_error());
    CHECK(scr_padfile_size(huge, 2, &size) == SCR_ERR_ARG, "sizes past 2^63");
    CHECK(scr_padfile_read(&fine, 1, UINT64_MAX - 1, buf, 4) == SCR_ERR_ARG, "offset overflow");
    CHECK(scr_padfile_write(&fine, 1, (uint64_t)INT64_MAX, buf, 1) == SCR_ERR_ARG,
          "range past 2^63");
    CHECK(scr_padfile_read(&fine, 1, 0, NULL, 4) == SCR_ERR_ARG, "NULL buffer");
    CHECK(scr_padfile_read(NULL, 2, 0, buf, 4) == SCR_ERR_ARG, "NULL list with a count");
    CHECK(scr_padfile_size(&fine, 1, NULL) == SCR_ERR_ARG, "NULL size result");
    scr_log_set_quiet(0);
}

/* A padset creates its files (and their directories) at their sizes, as
 * one logical file, and keeps its total when a file cannot be opened. */
static void test_padset_creates_sized_files_as_one_logical_file(void)
{
    struct scr_padset set = {0};
    char a[1024], b[1024];
    unsigned char buf[12], want[12] = {0};
    struct stat st;
    snprintf(a, sizeof(a), "%s/x/a.dat", tap_path("padset"));
    snprintf(b, sizeof(b), "%s/y/z/b.dat", tap_path("padset"));
    REQUIRE(scr_padset_init(&set, 2) == SCR_SUCCESS, "init");
    CHECK(scr_padset_add(&set, a, 5) == SCR_SUCCESS && scr_padset_add(&set, b, 4) == SCR_SUCCESS,
          "add");
    CHECK(set.count == 2 && set.total == 9 && set.parts[1].path == set.paths[1],
          "count %d total %llu", set.count, (unsigned long long)set.total);
    scr_log_set_quiet(1);
    CHECK(scr_padset_add(&set, a, 1) == SCR_ERR_ARG && set.total == 9, "a third file has no room");
    scr_log_set_quiet(0);
    CHECK(scr_padset_open(&set, O_RDWR | O_CREAT | O_TRUNC) == SCR_SUCCESS,
          "open creates the directories");
    CHECK(scr_padset_truncate(&set) == SCR_SUCCESS && scr_padset_sync(&set) == SCR_SUCCESS,
          "size and sync");
    CHECK(stat(b, &st) == 0 && st.st_size == 4, "b.dat has its 4 bytes");
    CHECK(scr_padfile_read(set.parts, (size_t)set.count, 0, buf, sizeof(buf)) == SCR_SUCCESS &&
              memcmp(buf, want, sizeof(buf)) == 0,
          "reads as zeros");
    int fd = set.parts[0].fd;
    scr_padset_release(&set);
    CHECK(set.parts[0].fd == -1 && set.parts[1].fd == -1 && fcntl(fd, F_GETFD) == -1,
          "release closes every descriptor");
    CHECK(set.count == 2 && set.total == 9 && strcmp(set.paths[1], b) == 0,
          "release keeps the list");
    scr_padset_release(&set);
    CHECK(set.parts[0].fd == -1, "a second release is harmless");
    scr_padset_close(&set);
    CHECK(set.count == 0 && set.paths == NULL && set.parts == NULL, "close empties the set");

    /* a file that cannot be opened is said; the total stays what was agreed */
    REQUIRE(scr_padset_init(&set, 1) == SCR_SUCCESS, "init");
    CHECK(scr_padset_add(&set, tap_path("padset/missing/c.dat"), 7) == SCR_SUCCESS, "add");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_padset_open(&set, O_RDONLY) == SCR_ERR_IO, "missing file");
    CHECK(strstr(scr_last_error(), "c.dat") != NULL, "'%s'", scr_last_error());
    scr_log_set_quiet(0);
    CHECK(set.total == 7 && set.parts[0].fd == -1, "total %llu", (unsigned long long)set.total);
    scr_padset_close(&set);
}

/* Many random files and ranges, checked against an in-memory model. */
static void test_random_reads_and_writes_match_a_model(void)
{
    enum { NFILES = 6, MAXSIZE = 3000 };
    scr_padfile_part parts[NFILES];
    char names[NFILES][16];
    unsigned char *model = calloc(NFILES * MAXSIZE + 4096, 1);
    unsigned char *buf = malloc(NFILES * MAXSIZE + 4096);
    REQUIRE(model && buf, "memory");
    srand(12345);
    uint64_t total = 0;
    for (int i = 0; i < NFILES; i++) {
        size_t size = (size_t)(rand() % 4 == 0 ? 0 : rand() % MAXSIZE);
        snprintf(names[i], sizeof(names[i]), "r%d.dat", i);
        parts[i].fd = make_file(names[i], size, (unsigned)i + 20, O_RDWR);
        parts[i].path = names[i];
        parts[i].size = size;
        for (size_t k = 0; k < size; k++) model[total + k] = pattern_byte(k, (unsigned)i + 20);
        total += size;
    }
    for (int round = 0; round < 300; round++) {
        uint64_t off = (uint64_t)rand() % (total + 100);
        size_t len = (size_t)rand() % 4000;
        if (round % 2 == 0) {
            for (size_t k = 0; k < len; k++) buf[k] = off + k < total ? (unsigned char)rand() : 0;
            if (scr_padfile_write(parts, NFILES, off, buf, len) != SCR_SUCCESS) {
                CHECK(0, "round %d: write off %llu len %zu", round, (unsigned long long)off, len);
                break;
            }
            for (size_t k = 0; k < len && off + k < total; k++) model[off + k] = buf[k];
        } else {
            if (scr_padfile_read(parts, NFILES, off, buf, len) != SCR_SUCCESS) {
                CHECK(0, "round %d: read off %llu len %zu", round, (unsigned long long)off, len);
                break;
            }
            for (size_t k = 0; k < len; k++) {
                unsigned char want = off + k < total ? model[off + k] : 0;
                if (buf[k] != want) {
                    CHECK(0, "round %d: logical byte %llu is 0x%02x, want 0x%02x", round,
                          (unsigned long long)(off + k), buf[k], want);
                    round = 1000;
                    break;
                }
            }
        }
    }
    for (int i = 0; i < NFILES; i++) close(parts[i].fd);
    free(model);
    free(buf);
}

int main(void)
{
    RUN(test_every_range_reads_as_concatenation_then_zeros);
    RUN(test_read_uses_only_declared_size_of_longer_file);
    RUN(test_read_entirely_in_padding_touches_no_file);
    RUN(test_read_of_file_shorter_than_declared_names_file_and_byte);
    RUN(test_read_from_failing_descriptor_names_file);
    RUN(test_write_spans_files_and_leaves_the_rest_alone);
    RUN(test_write_of_zero_padding_is_accepted_and_files_do_not_grow);
    RUN(test_write_with_nonzero_padding_is_refused_before_any_write);
    RUN(test_write_to_read_only_descriptor_names_file);
    RUN(test_short_write_continues_then_reports_where_it_stopped);
    RUN(test_bad_arguments_are_refused);
    RUN(test_random_reads_and_writes_match_a_model);
    RUN(test_padset_creates_sized_files_as_one_logical_file);
    return tap_done();
}
