/* test_util_lines.c — a growing file read line by line in bounded memory:
 * lines and their offsets; a line of exactly the longest length whole, a
 * longer one cut and its rest skipped; holes and zero bytes after a line,
 * before one and inside one skipped without losing the lines around them;
 * a last line without its newline handed out as incomplete; the end
 * offset respected. */
#include "tap.h"

#include "scr_err.h"
#include "util_lines.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A new file holding each piece at its offset (holes between); its
 * descriptor, or -1. */
static int file_with(const char *name, const char *const *pieces, const long *offsets, int n)
{
    int fd = open(tap_path(name), O_RDWR | O_CREAT | O_TRUNC, 0600);
    for (int i = 0; fd >= 0 && i < n; i++) {
        if (pwrite(fd, pieces[i], strlen(pieces[i]), offsets[i]) != (ssize_t)strlen(pieces[i])) {
            close(fd);
            fd = -1;
        }
    }
    return fd;
}

/* Read fd's lines into out (joined by '|', cut ones marked '~', incomplete
 * ones '?'), with max_line. */
static void lines_of(int fd, size_t max_line, char *out, size_t len, uint64_t *out_skipped)
{
    struct scr_lines l;
    off_t end = lseek(fd, 0, SEEK_END);
    out[0] = '\0';
    *out_skipped = 0;
    REQUIRE(scr_lines_init(&l, fd, "test", 0, (uint64_t)end, max_line) == SCR_SUCCESS, "init");
    struct scr_line ln;
    int more = 1;
    while (scr_lines_next(&l, &ln, &more) == SCR_SUCCESS && more) {
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s%s", at ? "|" : "", ln.text,
                 ln.cut        ? "~"
                 : ln.complete ? ""
                               : "?");
    }
    *out_skipped = l.skipped;
    scr_lines_free(&l);
}

static void test_lines_and_the_longest_line(void)
{
    const char *p[] = {"ab\nabcd\nabcdef\nxy"};
    long o[] = {0};
    int fd = file_with("plain", p, o, 1);
    REQUIRE(fd >= 0, "set-up");
    char got[256];
    uint64_t skipped;
    lines_of(fd, 4, got, sizeof(got), &skipped);
    CHECK(strcmp(got, "ab|abcd|abcd~|xy?") == 0, "got %s", got);
    close(fd);
}

static void test_holes_and_zeros_between_and_inside_lines(void)
{
    /* a hole after a whole line, one after half a line, zeros written by hand */
    const char *p[] = {"{\"a\":1}\n", "{\"b\":2}\n{\"half", "{\"c\":3}\n", "\0\0\0", "{\"d\":4}\n"};
    long o[] = {0, 1 << 20, 3 << 20, (3 << 20) + 8, (3 << 20) + 11};
    int fd = file_with("holes", p, o, 5);
    REQUIRE(fd >= 0, "set-up");
    /* the third piece is three zero bytes: strlen is 0, so write them apart */
    REQUIRE(pwrite(fd, "\0\0\0", 3, (3 << 20) + 8) == 3, "write zeros");
    char got[256];
    uint64_t skipped;
    lines_of(fd, 64, got, sizeof(got), &skipped);
    CHECK(strcmp(got, "{\"a\":1}|{\"b\":2}|{\"half?|{\"c\":3}|{\"d\":4}") == 0, "got %s", got);
    CHECK(skipped >= (3u << 20) - 64, "skipped only %llu bytes of zeros",
          (unsigned long long)skipped);
    close(fd);
}

static void test_a_cut_line_does_not_take_the_next(void)
{
    const char *p[] = {"0123456789012345678901234567890123456789\nnext\n"};
    long o[] = {0};
    int fd = file_with("cut", p, o, 1);
    REQUIRE(fd >= 0, "set-up");
    char got[256];
    uint64_t skipped;
    lines_of(fd, 8, got, sizeof(got), &skipped);
    CHECK(strcmp(got, "01234567~|next") == 0, "got %s", got);
    close(fd);
}

static void test_offsets_and_the_end(void)
{
    const char *p[] = {"one\ntwo\nthree\n"};
    long o[] = {0};
    int fd = file_with("offsets", p, o, 1);
    REQUIRE(fd >= 0, "set-up");
    struct scr_lines l;
    REQUIRE(scr_lines_init(&l, fd, "test", 4, 8, 16) == SCR_SUCCESS, "init");
    struct scr_line ln;
    int more = 0;
    CHECK(scr_lines_next(&l, &ln, &more) == SCR_SUCCESS && more && strcmp(ln.text, "two") == 0 &&
              ln.offset == 4 && ln.complete,
          "first line from offset 4: %s at %llu", more ? ln.text : "(none)",
          (unsigned long long)ln.offset);
    CHECK(scr_lines_next(&l, &ln, &more) == SCR_SUCCESS && !more, "a line past the end offset");
    CHECK(scr_lines_offset(&l) == 8, "offset %llu", (unsigned long long)scr_lines_offset(&l));
    scr_lines_free(&l);
    close(fd);
}

int main(void)
{
    RUN(test_lines_and_the_longest_line);
    RUN(test_holes_and_zeros_between_and_inside_lines);
    RUN(test_a_cut_line_does_not_take_the_next);
    RUN(test_offsets_and_the_end);
    return tap_done();
}
