/* test_util_crc_parts.c — per-file CRC-32 from pieces of a logical file
 * seen out of order, as the XOR and RS rings read them. */
#include "tap.h"

#include "scr_err.h"
#include "util_crc.h"
#include "util_crc_parts.h"

#include <stdint.h>

/* Four files of 700, 0, 1 and 2300 bytes: 3001 bytes of real data. */
#define NFILES 4
static const uint64_t sizes[NFILES] = {700, 0, 1, 2300};
static unsigned char data[3001];

static void fill_data(void)
{
    for (size_t i = 0; i < sizeof(data); i++) data[i] = (unsigned char)(i * 2654435761u >> 13);
}

static void setup(scr_padfile_part parts[NFILES])
{
    fill_data();
    for (int i = 0; i < NFILES; i++) parts[i] = (scr_padfile_part){-1, "f", sizes[i]};
}

/* CRC of file i computed front to back. */
static uint32_t want_crc(int i)
{
    uint64_t at = 0;
    for (int k = 0; k < i; k++) at += sizes[k];
    return scr_crc32(0, data + at, (size_t)sizes[i]);
}

/* Feed [from, to) of the logical file in pieces of step bytes, zeros past the data. */
static void feed(scr_crc_parts *cp, uint64_t from, uint64_t to, size_t step)
{
    unsigned char buf[4096];
    for (uint64_t at = from; at < to; at += step) {
        size_t len = to - at < step ? (size_t)(to - at) : step;
        for (size_t k = 0; k < len; k++) buf[k] = at + k < sizeof(data) ? data[at + k] : 0;
        scr_crc_parts_add(cp, at, buf, len);
    }
}

static void check_all(const scr_crc_parts *cp, const char *how)
{
    for (int i = 0; i < NFILES; i++) {
        uint32_t got = 0;
        int rc = scr_crc_parts_get(cp, (size_t)i, &got);
        CHECK(rc == SCR_SUCCESS, "%s: file %d: status %d", how, i, rc);
        CHECK(got == want_crc(i), "%s: file %d: CRC32 0x%08x, want 0x%08x", how, i, got,
              want_crc(i));
    }
}

static void test_front_to_back_gives_each_files_own_crc(void)
{
    scr_padfile_part parts[NFILES];
    setup(parts);
    scr_crc_parts *cp = scr_crc_parts_new(parts, NFILES);
    REQUIRE(cp != NULL, "no tracker");
    feed(cp, 0, 3001, 256);
    check_all(cp, "front to back");
    scr_crc_parts_free(cp);
}

/* Three chunks of 1001 bytes (the last one padded), read side by side in
 * pieces as the XOR ring of a set of 4 does, chunk 2 first. */
static void test_interleaved_chunks_give_the_same_crcs(void)
{
    scr_padfile_part parts[NFILES];
    setup(parts);
    scr_crc_parts *cp = scr_crc_parts_new(parts, NFILES);
    REQUIRE(cp != NULL, "no tracker");
    const uint64_t chunk = 1001;
    const size_t piece = 97;
    for (uint64_t off = 0; off < chunk; off += piece)
        for (int c = 2; c >= 0; c--) {
            uint64_t to = off + piece < chunk ? off + piece : chunk;
            feed(cp, (uint64_t)c * chunk + off, (uint64_t)c * chunk + to, piece);
        }
    check_all(cp, "interleaved");
    scr_crc_parts_free(cp);
}

static void test_padding_past_the_data_is_ignored(void)
{
    scr_padfile_part parts[NFILES];
    setup(parts);
    scr_crc_parts *cp = scr_crc_parts_new(parts, NFILES);
    REQUIRE(cp != NULL, "no tracker");
    feed(cp, 0, 5000, 1000);
    check_all(cp, "with padding");
    scr_crc_parts_free(cp);
}

static void test_a_missing_piece_leaves_the_crc_unknown(void)
{
    scr_padfile_part parts[NFILES];
    setup(parts);
    scr_crc_parts *cp = scr_crc_parts_new(parts, NFILES);
    REQUIRE(cp != NULL, "no tracker");
    feed(cp, 0, 1000, 100);
    feed(cp, 1100, 3001, 100); /* bytes 1000-1099 of file 3 never pass */
    uint32_t got;
    CHECK(scr_crc_parts_get(cp, 0, &got) == SCR_SUCCESS && got == want_crc(0),
          "file 0 was seen whole");
    CHECK(scr_crc_parts_get(cp, 1, &got) == SCR_SUCCESS && got == 0, "an empty file has CRC 0");
    CHECK(scr_crc_parts_get(cp, 3, &got) == SCR_ERR_STATE, "file 3 lacks 100 bytes");
    scr_crc_parts_free(cp);
}

static void test_a_piece_fed_twice_leaves_the_crc_unknown(void)
{
    scr_padfile_part parts[NFILES];
    setup(parts);
    scr_crc_parts *cp = scr_crc_parts_new(parts, NFILES);
    REQUIRE(cp != NULL, "no tracker");
    feed(cp, 0, 3001, 500);
    feed(cp, 800, 900, 100);
    uint32_t got;
    CHECK(scr_crc_parts_get(cp, 0, &got) == SCR_SUCCESS, "file 0 was not fed twice");
    CHECK(scr_crc_parts_get(cp, 3, &got) == SCR_ERR_STATE, "bytes 99-198 of file 3 were fed twice");
    scr_crc_parts_free(cp);
}

static void test_a_null_tracker_is_ignored(void)
{
    scr_crc_parts_add(NULL, 0, data, 10);
    uint32_t got;
    CHECK(scr_crc_parts_get(NULL, 0, &got) == SCR_ERR_ARG, "no tracker, no CRC");
}

static void test_combine_joins_two_crcs(void)
{
    fill_data();
    uint32_t a = scr_crc32(0, data, 1234), b = scr_crc32(0, data + 1234, 1767);
    CHECK(scr_crc32_combine(a, b, 1767) == scr_crc32(0, data, 3001), "combined 0x%08x",
          scr_crc32_combine(a, b, 1767));
    CHECK(scr_crc32_combine(a, 0, 0) == a, "an empty tail changes nothing");
}

int main(void)
{
    RUN(test_front_to_back_gives_each_files_own_crc);
    RUN(test_interleaved_chunks_give_the_same_crcs);
    RUN(test_padding_past_the_data_is_ignored);
    RUN(test_a_missing_piece_leaves_the_crc_unknown);
    RUN(test_a_piece_fed_twice_leaves_the_crc_unknown);
    RUN(test_a_null_tracker_is_ignored);
    RUN(test_combine_joins_two_crcs);
    return tap_done();
}
