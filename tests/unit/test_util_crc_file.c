/* test_util_crc_file.c — the CRC-32 of a file read in L2-sized pieces
 * (scr_crc_file_l2, util_copy.h) equals the CRC of its bytes read plainly,
 * for empty and small files and for sparse files of several pieces,
 * whatever their length is modulo the piece, and what cannot be read (a
 * missing file, a directory, a symbolic link, a FIFO) is refused without
 * blocking. */
#include "tap.h"

#include "scr_err.h"
#include "util_crc.h"
#include "util_copy.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The CRC of path read plainly, 1 MiB at a time; *len its length. */
static uint32_t crc_by_read(const char *path, uint64_t *len)
{
    static unsigned char buf[1 << 20];
    uint32_t crc = 0;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        crc = scr_crc32(crc, buf, (size_t)n);
        *len += (uint64_t)n;
    }
    close(fd);
    return crc;
}

/* path with size bytes: a pattern at the start, across the first piece boundary and at the end. */
static int make_file(const char *path, uint64_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) return -1;
    unsigned char pat[3000];
    for (size_t i = 0; i < sizeof(pat); i++) pat[i] = (unsigned char)(i * 2654435761u >> 11);
    uint64_t at[] = {0, SCR_CRC_PIECE - 1000, size > 3000 ? size - 3000 : 0};
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        if (at[i] >= size) continue;
        size_t len = size - at[i] < sizeof(pat) ? (size_t)(size - at[i]) : sizeof(pat);
        if (pwrite(fd, pat, len, (off_t)at[i]) != (ssize_t)len) return -1;
    }
    return close(fd);
}

static void expect_same_crc(uint64_t size)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/file.%llu", tap_tmpdir(), (unsigned long long)size);
    CHECK(make_file(path, size) == 0, "cannot make %s", path);
    uint64_t want_len = 0, got_len = 7;
    uint32_t want = crc_by_read(path, &want_len), got = 0;
    int rc = scr_crc_file_l2(path, &got, &got_len);
    CHECK(rc == SCR_SUCCESS, "%llu bytes: status %d", (unsigned long long)size, rc);
    CHECK(got == want, "%llu bytes: CRC32 0x%08x in pieces, 0x%08x read", (unsigned long long)size,
          got, want);
    CHECK(got_len == want_len && got_len == size, "%llu bytes: length %llu",
          (unsigned long long)size, (unsigned long long)got_len);
    unlink(path);
}

static void test_an_empty_file_has_crc_0(void)
{
    expect_same_crc(0);
}

static void test_a_small_file_gives_the_crc_of_its_bytes(void)
{
    expect_same_crc(1);
    expect_same_crc(4001);
}

static void test_a_file_of_several_pieces_gives_the_crc_of_its_bytes(void)
{
    expect_same_crc(SCR_CRC_PIECE);
    expect_same_crc(2 * SCR_CRC_PIECE + 12345);
    expect_same_crc((uint64_t)64 << 20);
}

static void test_a_missing_file_is_not_found(void)
{
    char path[4096];
    uint32_t crc = 0;
    snprintf(path, sizeof(path), "%s/never-written", tap_tmpdir());
    CHECK(scr_crc_file_l2(path, &crc, NULL) == SCR_ERR_NOTFOUND, "a missing file");
}

static void test_a_directory_is_refused(void)
{
    uint32_t crc = 0;
    CHECK(scr_crc_file_l2(tap_tmpdir(), &crc, NULL) != SCR_SUCCESS, "a directory has no CRC");
}

static void test_a_symbolic_link_is_refused(void)
{
    char target[4096], link[4096];
    uint32_t crc = 0;
    snprintf(target, sizeof(target), "%s/target", tap_tmpdir());
    snprintf(link, sizeof(link), "%s/link", tap_tmpdir());
    CHECK(make_file(target, 100) == 0 && symlink(target, link) == 0, "cannot make %s", link);
    CHECK(scr_crc_file_l2(link, &crc, NULL) != SCR_SUCCESS, "a symbolic link is not followed");
    unlink(link);
    unlink(target);
}

static void test_a_fifo_is_refused_without_blocking(void)
{
    char fifo[4096];
    uint32_t crc = 0;
    snprintf(fifo, sizeof(fifo), "%s/fifo", tap_tmpdir());
    CHECK(mkfifo(fifo, 0600) == 0, "cannot make %s", fifo);
    CHECK(scr_crc_file_l2(fifo, &crc, NULL) != SCR_SUCCESS, "a FIFO has no CRC");
    unlink(fifo);
}

int main(void)
{
    RUN(test_an_empty_file_has_crc_0);
    RUN(test_a_small_file_gives_the_crc_of_its_bytes);
    RUN(test_a_file_of_several_pieces_gives_the_crc_of_its_bytes);
    RUN(test_a_missing_file_is_not_found);
    RUN(test_a_directory_is_refused);
    RUN(test_a_symbolic_link_is_refused);
    RUN(test_a_fifo_is_refused_without_blocking);
    return tap_done();
}
