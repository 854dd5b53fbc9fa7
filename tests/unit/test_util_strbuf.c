/* test_util_strbuf.c — the growable string: many appends keep every byte in
 * order while capacity grows geometrically; appendf longer than the room
 * left; detach hands out the bytes and leaves an empty, reusable buffer; an
 * empty buffer owns nothing and detaches as ""; a failed allocation (a size
 * no allocator grants, and one that would overflow) is refused, keeps what
 * was held, is logged once and sticks until reset; reading a descriptor to
 * its end, and refusing more than asked for; truncating pops the bytes
 * pushed last and keeps the memory. */
#include "tap.h"

#include "scr_err.h"
#include "util_log.h"
#include "util_strbuf.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under AddressSanitizer a request no allocator grants must come back as
 * NULL, as it does from the C library, rather than stop the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static void test_many_appends_grow_geometrically_and_keep_every_byte(void)
{
    scr_strbuf sb = SCR_STRBUF_INIT;
    size_t expect = 0, grows = 0, last_cap = 0;
    for (int i = 0; i < 20000; i++) {
        char piece[16];
        int n = snprintf(piece, sizeof(piece), "%d,", i);
        REQUIRE(scr_strbuf_append(&sb, piece, (size_t)n) == SCR_SUCCESS, "append %d", i);
        expect += (size_t)n;
        if (sb.cap != last_cap) grows++;
        last_cap = sb.cap;
    }
    CHECK(sb.len == expect, "len %zu, expected %zu", sb.len, expect);
    CHECK(sb.cap > sb.len && sb.cap / 2 <= sb.len, "cap %zu for len %zu is not within a doubling",
          sb.cap, sb.len);
    CHECK(grows < 20, "%zu reallocations for %zu bytes: growth is not geometric", grows, sb.len);
    CHECK(sb.buf[sb.len] == '\0', "no NUL after the bytes");
    /* every piece in order */
    const char *p = sb.buf;
    for (int i = 0; i < 20000; i++) {
        char *end;
        long v = strtol(p, &end, 10);
        REQUIRE(end != p && *end == ',' && v == i, "piece %d reads %ld at byte %zu", i, v,
                (size_t)(p - sb.buf));
        p = end + 1;
    }
    CHECK(*p == '\0', "bytes after the last piece");
    scr_strbuf_free(&sb);
    CHECK(sb.buf == NULL && sb.len == 0 && sb.cap == 0, "free leaves an empty buffer");
}

static void test_appendf_longer_than_the_room_left(void)
{
    scr_strbuf sb = SCR_STRBUF_INIT;
    REQUIRE(scr_strbuf_append_str(&sb, "head:") == SCR_SUCCESS, "append");
    size_t cap = sb.cap;
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    REQUIRE(cap < sizeof(big), "first capacity %zu is already large", cap);
    REQUIRE(scr_strbuf_appendf(&sb, "%s|%d|%s", big, 42, "tail") == SCR_SUCCESS, "appendf");
    CHECK(sb.len == 5 + 2999 + 4 + 4, "len %zu", sb.len);
    CHECK(strncmp(sb.buf, "head:", 5) == 0 && strspn(sb.buf + 5, "x") == 2999, "head or body lost");
    CHECK(strcmp(sb.buf + 5 + 2999, "|42|tail") == 0, "ends with '%s'", sb.buf + 5 + 2999);
    /* an appendf that fits exactly the room left, its NUL included */
    scr_strbuf_reset(&sb);
    CHECK(sb.len == 0 && sb.buf[0] == '\0', "reset keeps no bytes");
    size_t room = sb.cap - 1;
    char *fill = malloc(room + 1);
    REQUIRE(fill != NULL, "malloc");
    memset(fill, 'y', room);
    fill[room] = '\0';
    cap = sb.cap;
    CHECK(scr_strbuf_appendf(&sb, "%s", fill) == SCR_SUCCESS, "appendf of the room left");
    CHECK(sb.cap == cap && sb.len == room && strspn(sb.buf, "y") == room,
          "exact fit: cap %zu len %zu", sb.cap, sb.len);
    free(fill);
    scr_strbuf_free(&sb);
}

static void test_detach_hands_out_the_bytes(void)
{
    scr_strbuf sb;
    scr_strbuf_init(&sb);
    REQUIRE(scr_strbuf_append(&sb, "a\0b", 3) == SCR_SUCCESS, "append with a NUL inside");
    char *out = NULL;
    size_t len = 0;
    REQUIRE(scr_strbuf_detach(&sb, &out, &len) == SCR_SUCCESS, "detach");
    CHECK(len == 3 && memcmp(out, "a\0b", 4) == 0, "detached %zu bytes", len);
    CHECK(sb.buf == NULL && sb.len == 0 && sb.cap == 0,
          "the buffer still holds memory after detach");
    free(out);
    /* the buffer is usable again */
    REQUIRE(scr_strbuf_appendf(&sb, "%s", "again") == SCR_SUCCESS, "append after detach");
    REQUIRE(scr_strbuf_detach(&sb, &out, NULL) == SCR_SUCCESS, "detach without a length");
    CHECK(strcmp(out, "again") == 0, "detached '%s'", out);
    free(out);
}

static void test_an_empty_buffer_owns_nothing_and_detaches_as_empty_text(void)
{
    scr_strbuf sb = SCR_STRBUF_INIT;
    CHECK(scr_strbuf_status(&sb) == SCR_SUCCESS, "status of an empty buffer");
    scr_strbuf_reset(&sb);
    scr_strbuf_free(&sb);
    CHECK(sb.buf == NULL, "reset or free of an empty buffer allocated");
    char *out = NULL;
    size_t len = 99;
    REQUIRE(scr_strbuf_detach(&sb, &out, &len) == SCR_SUCCESS, "detach of an empty buffer");
    CHECK(out != NULL && out[0] == '\0' && len == 0, "empty detach gave %s, %zu",
          out ? "text" : "NULL", len);
    free(out);
    /* appending nothing gives an empty C string */
    REQUIRE(scr_strbuf_append(&sb, "", 0) == SCR_SUCCESS &&
                scr_strbuf_append_str(&sb, "") == SCR_SUCCESS,
            "append nothing");
    CHECK(sb.len == 0 && sb.buf != NULL && sb.buf[0] == '\0',
          "an append of nothing is not an empty string");
    scr_strbuf_free(&sb);
}

static void test_a_failed_allocation_is_refused_once_and_sticks(void)
{
    scr_strbuf sb = SCR_STRBUF_INIT;
    REQUIRE(scr_strbuf_append_str(&sb, "kept") == SCR_SUCCESS, "append");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    /* more than any address space holds, yet a size valgrind takes as sane */
    CHECK(scr_strbuf_reserve(&sb, (size_t)1 << 60) == SCR_ERR_NOMEM,
          "a reserve of 2^60 bytes succeeded");
    CHECK(strstr(scr_last_error(), "out of memory") != NULL, "logged '%s'", scr_last_error());
    CHECK(sb.len == 4 && strcmp(sb.buf, "kept") == 0, "the failure lost the bytes held");
    /* sticky, and said once */
    scr_clear_last_error();
    CHECK(scr_strbuf_append_str(&sb, "more") == SCR_ERR_NOMEM,
          "an append after a failure succeeded");
    CHECK(scr_strbuf_appendf(&sb, "%d", 1) == SCR_ERR_NOMEM,
          "an appendf after a failure succeeded");
    CHECK(scr_strbuf_append_space(&sb, 1) == NULL, "space after a failure");
    CHECK(scr_last_error()[0] == '\0', "logged again: '%s'", scr_last_error());
    CHECK(scr_strbuf_status(&sb) == SCR_ERR_NOMEM, "status forgets the failure");
    /* reset clears it */
    scr_strbuf_reset(&sb);
    CHECK(scr_strbuf_append_str(&sb, "ok") == SCR_SUCCESS && strcmp(sb.buf, "ok") == 0,
          "append after reset");
    /* a size that wraps around is refused before any allocation */
    CHECK(scr_strbuf_append_space(&sb, SIZE_MAX - 1) == NULL, "a size that overflows was granted");
    CHECK(sb.len == 2, "the overflow changed len to %zu", sb.len);
    char *out = (char *)"untouched";
    CHECK(scr_strbuf_detach(&sb, &out, NULL) == SCR_ERR_NOMEM && out == NULL,
          "detach after a failure");
    CHECK(sb.buf == NULL && sb.cap == 0 && sb.failed == 0, "detach after a failure kept memory");
    scr_log_set_quiet(0);
    scr_clear_last_error();
}

static void test_read_fd_to_its_end_and_no_more_than_asked(void)
{
    int fds[2];
    REQUIRE(pipe(fds) == 0, "pipe");
    char data[10000];
    for (size_t i = 0; i < sizeof(data); i++) data[i] = (char)('a' + i % 26);
    REQUIRE(write(fds[1], data, sizeof(data)) == (ssize_t)sizeof(data), "write");
    close(fds[1]);
    scr_strbuf sb = SCR_STRBUF_INIT;
    REQUIRE(scr_strbuf_append_str(&sb, ">") == SCR_SUCCESS, "append");
    CHECK(scr_strbuf_read_fd(&sb, fds[0], sizeof(data)) == SCR_SUCCESS, "read");
    CHECK(sb.len == 1 + sizeof(data) && memcmp(sb.buf + 1, data, sizeof(data)) == 0 &&
              sb.buf[sb.len] == '\0',
          "read %zu bytes", sb.len);
    close(fds[0]);

    REQUIRE(pipe(fds) == 0, "pipe");
    REQUIRE(write(fds[1], data, 100) == 100, "write");
    close(fds[1]);
    scr_strbuf_reset(&sb);
    CHECK(scr_strbuf_read_fd(&sb, fds[0], 99) == SCR_ERR_FORMAT,
          "100 bytes read with a limit of 99");
    close(fds[0]);
    scr_strbuf_reset(&sb);
    int dir = open("/", O_RDONLY | O_DIRECTORY);
    REQUIRE(dir >= 0, "open /");
    CHECK(scr_strbuf_read_fd(&sb, dir, 99) == SCR_ERR_IO, "a read of a directory succeeded");
    close(dir);
    scr_strbuf_free(&sb);
}

static void test_truncate_pops_what_was_pushed_last_and_keeps_the_memory(void)
{
    scr_strbuf sb = SCR_STRBUF_INIT;
    REQUIRE(scr_strbuf_append_str(&sb, "base") == SCR_SUCCESS &&
                scr_strbuf_append_str(&sb, "+pushed") == 0,
            "push");
    char *before = sb.buf;
    size_t cap = sb.cap;
    scr_strbuf_truncate(&sb, 4);
    CHECK(sb.len == 4 && strcmp(sb.buf, "base") == 0, "after truncating to 4: %zu bytes, '%s'",
          sb.len, sb.buf);
    CHECK(sb.buf == before && sb.cap == cap, "truncating moved or shrank the memory");
    scr_strbuf_truncate(&sb, 10);
    CHECK(sb.len == 4 && strcmp(sb.buf, "base") == 0,
          "truncating to more than it holds changed it");
    REQUIRE(scr_strbuf_append_str(&sb, "!") == SCR_SUCCESS, "push again");
    CHECK(strcmp(sb.buf, "base!") == 0, "a push after the pop gave '%s'", sb.buf);
    scr_strbuf_free(&sb);
    scr_strbuf_truncate(&sb, 0); /* an empty buffer owns nothing: nothing to do */
    CHECK(sb.buf == NULL && sb.len == 0, "truncating an empty buffer allocated");
}

int main(void)
{
    RUN(test_many_appends_grow_geometrically_and_keep_every_byte);
    RUN(test_appendf_longer_than_the_room_left);
    RUN(test_detach_hands_out_the_bytes);
    RUN(test_an_empty_buffer_owns_nothing_and_detaches_as_empty_text);
    RUN(test_a_failed_allocation_is_refused_once_and_sticks);
    RUN(test_read_fd_to_its_end_and_no_more_than_asked);
    RUN(test_truncate_pops_what_was_pushed_last_and_keeps_the_memory);
    return tap_done();
}
