/* test_util_crc.c — CRC-32 known values, zlib against ISA-L, and chaining. */
#include "tap.h"

#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

/* Bit-at-a-time CRC-32 (reflected polynomial 0xedb88320), written straight
 * from the definition so that neither library is its own judge. */
static uint32_t crc32_bitwise(uint32_t crc, const unsigned char *p, size_t len)
{
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static const struct {
    const char *name;
    crc_fn fn;
} impls[] = {
    {"scr_crc32_zlib", scr_crc32_zlib},
    {"scr_crc32_isal", scr_crc32_isal},
    {"scr_crc32", scr_crc32},
};
#define NIMPLS (sizeof(impls) / sizeof(impls[0]))

static void test_known_check_values(void)
{
    unsigned char zeros[32], ones[32], ramp[1024];
    memset(zeros, 0, sizeof(zeros));
    memset(ones, 0xff, sizeof(ones));
    for (size_t i = 0; i < sizeof(ramp); i++) ramp[i] = (unsigned char)i;
    const char *fox = "The quick brown fox jumps over the lazy dog";
    const struct {
        const char *what;
        const void *buf;
        size_t len;
        uint32_t want;
    } vectors[] = {
        {"empty", "", 0, 0x00000000u},
        {"123456789", "123456789", 9, 0xcbf43926u},
        {"a", "a", 1, 0xe8b7be43u},
        {"fox", fox, strlen(fox), 0x414fa339u},
        {"32 zero bytes", zeros, sizeof(zeros), 0x190a55adu},
        {"32 0xff bytes", ones, sizeof(ones), 0xff6cab0bu},
        {"0..255 four times", ramp, sizeof(ramp), 0xb70b4c26u},
    };
    printf("# scr_crc32 %s ISA-L\n", scr_crc32_uses_isal() ? "uses" : "does not use");
    for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
        uint32_t ref = crc32_bitwise(0, vectors[v].buf, vectors[v].len);
        CHECK(ref == vectors[v].want, "reference of %s: 0x%08x, want 0x%08x", vectors[v].what, ref,
              vectors[v].want);
        for (size_t i = 0; i < NIMPLS; i++) {
            uint32_t got = impls[i].fn(0, vectors[v].buf, vectors[v].len);
            CHECK(got == vectors[v].want, "%s of %s: 0x%08x, want 0x%08x", impls[i].name,
                  vectors[v].what, got, vectors[v].want);
        }
    }
}

static void test_empty_input_leaves_crc_unchanged(void)
{
    for (size_t i = 0; i < NIMPLS; i++) {
        CHECK(impls[i].fn(0xcbf43926u, "", 0) == 0xcbf43926u, "%s changed the CRC", impls[i].name);
        CHECK(impls[i].fn(0x12345678u, NULL, 0) == 0x12345678u, "%s with NULL, 0", impls[i].name);
    }
}

/* Lengths around the block sizes of SIMD kernels, at every alignment of a
 * 64-byte line, on random bytes. */
static void test_implementations_agree_on_random_buffers(void)
{
    enum { MAXLEN = 5000 };
    unsigned char *mem = malloc(MAXLEN + 64);
    REQUIRE(mem != NULL, "memory");
    srand(4242);
    for (size_t i = 0; i < MAXLEN + 64; i++) mem[i] = (unsigned char)rand();
    static const size_t extra[] = {255,  256,  257,  511,  512,  513,   1023,
                                   1024, 1025, 4095, 4096, 4097, MAXLEN};
    int failures = 0;
    for (size_t align = 0; align < 64 && failures < 5; align++) {
        for (size_t n = 0; n < 300 + sizeof(extra) / sizeof(extra[0]) && failures < 5; n++) {
            size_t len = n < 300 ? n : extra[n - 300];
            const unsigned char *p = mem + align;
            uint32_t ref = crc32_bitwise(0, p, len);
            for (size_t i = 0; i < NIMPLS; i++) {
                uint32_t got = impls[i].fn(0, p, len);
                if (got != ref) {
                    CHECK(0, "%s: length %zu at alignment %zu gives 0x%08x, reference 0x%08x",
                          impls[i].name, len, align, got, ref);
                    failures++;
                }
            }
        }
    }
    free(mem);
}

static void test_chaining_equals_crc_of_concatenation(void)
{
    enum { LEN = 3000 };
    unsigned char *buf = malloc(LEN);
    REQUIRE(buf != NULL, "memory");
    srand(99);
    for (size_t i = 0; i < LEN; i++) buf[i] = (unsigned char)rand();
    static const size_t cuts[] = {0, 1, 7, 8, 63, 64, 65, 1000, 2047, 2999, 3000};
    for (size_t i = 0; i < NIMPLS; i++) {
        uint32_t whole = impls[i].fn(0, buf, LEN);
        for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
            size_t cut = cuts[c];
            uint32_t chained = impls[i].fn(impls[i].fn(0, buf, cut), buf + cut, LEN - cut);
            CHECK(chained == whole, "%s: split at %zu gives 0x%08x, whole 0x%08x", impls[i].name,
                  cut, chained, whole);
        }
        /* and across implementations: start in one, continue in the other */
        uint32_t mixed = scr_crc32_isal(scr_crc32_zlib(0, buf, 1234), buf + 1234, LEN - 1234);
        CHECK(mixed == whole, "%s: zlib then ISA-L gives 0x%08x, whole 0x%08x", impls[i].name,
              mixed, whole);
    }
    free(buf);
}

/* scr_crc_fd reads the whole file in pieces, from byte 0 wherever the
 * descriptor stands, and says which file it could not read. */
static void test_crc_of_an_open_file_is_the_crc_of_its_bytes(void)
{
    unsigned char data[10007], buf[64];
    const char *path = tap_path("crc_fd.dat");
    for (size_t i = 0; i < sizeof(data); i++) data[i] = (unsigned char)(i * 37 + (i >> 8));
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0 && scr_write_full(fd, data, sizeof(data), path) == SCR_SUCCESS, "set-up");
    uint32_t crc = 0;
    uint64_t len = 0;
    CHECK(scr_crc_fd(fd, path, buf, sizeof(buf), &crc, &len) == SCR_SUCCESS, "read");
    CHECK(crc == scr_crc32(0, data, sizeof(data)) && len == sizeof(data), "crc 0x%08x, %llu bytes",
          crc, (unsigned long long)len);
    close(fd);
    fd = open(path, O_WRONLY);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_crc_fd(fd, path, buf, sizeof(buf), &crc, NULL) == SCR_ERR_IO,
          "a descriptor not open for reading");
    CHECK(strstr(scr_last_error(), "crc_fd.dat") != NULL, "'%s'", scr_last_error());
    scr_log_set_quiet(0);
    close(fd);
}

int main(void)
{
    RUN(test_known_check_values);
    RUN(test_empty_input_leaves_crc_unchanged);
    RUN(test_implementations_agree_on_random_buffers);
    RUN(test_chaining_equals_crc_of_concatenation);
    RUN(test_crc_of_an_open_file_is_the_crc_of_its_bytes);
    return tap_done();
}
