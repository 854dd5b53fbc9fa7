/* test_erasure_xor.c — XOR of buffers against a byte-by-byte reference, for
 * the ISA-L and the portable paths, at every kind of length and alignment. */
#include "tap.h"
#include "erasure_test.h"

#include "erasure_xor.h"

typedef void (*gen_fn)(size_t, size_t, const void *const *, void *);
typedef void (*acc_fn)(void *, const void *, size_t);

static const struct {
    const char *name;
    gen_fn gen;
    acc_fn acc;
} impls[] = {
    {"scr_xor_gen", scr_xor_gen, scr_xor_accumulate},
    {"scr_xor_gen_portable", scr_xor_gen_portable, scr_xor_accumulate_portable},
};
#define NIMPLS (sizeof(impls) / sizeof(impls[0]))

/* Lengths around the 8, 32, 128-byte steps of the kernels. */
static const size_t lens[] = {0,   1,   2,   7,   8,    9,    31,   32,        33,
                              127, 128, 129, 255, 1000, 4096, 4099, 65536 + 13};
#define NLENS (sizeof(lens) / sizeof(lens[0]))

/* Source counts around ISA-L's limits: it needs two, and we give it at most
 * 63 per call. */
static const size_t counts[] = {0, 1, 2, 3, 4, 5, 8, 16, 17, 63, 64, 70};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))
#define MAXSRC 70

/* Sources and a destination of len bytes; with aligned, every pointer is on
 * a 64-byte boundary (what ISA-L takes), otherwise each is at a random
 * distance from one. */
struct case_buffers {
    size_t nsrc, len;
    unsigned char *src[MAXSRC], *dst, *want;
    const void *srcv[MAXSRC]; /* src, as the type the calls take */
    size_t src_off[MAXSRC], dst_off;
};

static int make_case(struct case_buffers *c, size_t nsrc, size_t len, int aligned)
{
    memset(c, 0, sizeof(*c));
    c->nsrc = nsrc;
    c->len = len;
    for (size_t k = 0; k < nsrc; k++) {
        c->src_off[k] = aligned ? 0 : 1 + rng_below(63);
        if ((c->src[k] = alloc_block(len, c->src_off[k])) == NULL) return 0;
        c->srcv[k] = c->src[k];
    }
    c->dst_off = aligned ? 0 : rng_below(64);
    c->dst = alloc_block(len, c->dst_off);
    c->want = malloc(len + 1);
    if (c->dst == NULL || c->want == NULL) return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = 0;
        for (size_t k = 0; k < nsrc; k++) b ^= c->src[k][i];
        c->want[i] = b;
    }
    return 1;
}

static void free_case(struct case_buffers *c)
{
    for (size_t k = 0; k < c->nsrc; k++) free_block(c->src[k], c->src_off[k]);
    free_block(c->dst, c->dst_off);
    free(c->want);
}

/* 0 if got holds the XOR of the case's sources, else reports the first
 * byte that differs and returns 1. */
static int check_result(const struct case_buffers *c, const unsigned char *got, size_t impl,
                        const char *what, int aligned)
{
    long at = first_difference(got, c->want, c->len);
    if (at < 0) return 0;
    CHECK(0, "%s%s, %zu sources of %zu bytes, %s: byte %ld is 0x%02x, want 0x%02x",
          impls[impl].name, what, c->nsrc, c->len, aligned ? "aligned" : "unaligned", at, got[at],
          c->want[at]);
    return 1;
}

static void check_gen(size_t impl, int aligned)
{
    int failures = 0;
    for (size_t ci = 0; ci < NCOUNTS && failures < 5; ci++)
        for (size_t li = 0; li < NLENS && failures < 5; li++) {
            struct case_buffers c;
            REQUIRE(make_case(&c, counts[ci], lens[li], aligned), "memory");
            impls[impl].gen(c.nsrc, c.len, c.srcv, c.dst);
            failures += check_result(&c, c.dst, impl, "", aligned);
            free_case(&c);
        }
}

static void test_gen_equals_bytewise_xor_on_aligned_buffers(void)
{
    printf("# scr_xor_gen %s ISA-L\n", scr_xor_uses_isal() ? "uses" : "does not use");
    rng_seed(10);
    for (size_t i = 0; i < NIMPLS; i++) check_gen(i, 1);
}

static void test_gen_equals_bytewise_xor_on_unaligned_buffers(void)
{
    rng_seed(11);
    for (size_t i = 0; i < NIMPLS; i++) check_gen(i, 0);
}

/* dst == srcs[0]: the running parity of a ring, added to in place. */
static void test_gen_into_its_first_source_adds_the_others_to_it(void)
{
    rng_seed(12);
    for (size_t impl = 0; impl < NIMPLS; impl++)
        for (int aligned = 0; aligned < 2; aligned++)
            for (size_t ci = 2; ci < NCOUNTS; ci++) {
                struct case_buffers c;
                REQUIRE(make_case(&c, counts[ci], 4099, aligned), "memory");
                impls[impl].gen(c.nsrc, c.len, c.srcv, c.src[0]);
                check_result(&c, c.src[0], impl, " in place", aligned);
                free_case(&c);
            }
}

static void test_accumulate_equals_bytewise_xor_at_any_alignment(void)
{
    rng_seed(13);
    for (size_t impl = 0; impl < NIMPLS; impl++)
        for (int aligned = 0; aligned < 2; aligned++)
            for (size_t li = 0; li < NLENS; li++) {
                struct case_buffers c;
                REQUIRE(make_case(&c, 2, lens[li], aligned), "memory");
                memcpy(c.dst, c.src[0], c.len);
                impls[impl].acc(c.dst, c.src[1], c.len);
                check_result(&c, c.dst, impl, " accumulate", aligned);
                free_case(&c);
            }
}

/* A ring: each member adds its block to the parity it receives. */
static void test_accumulating_every_block_in_turn_equals_gen(void)
{
    rng_seed(14);
    struct case_buffers c;
    REQUIRE(make_case(&c, 8, 100003, 1), "memory");
    memset(c.dst, 0, c.len);
    for (size_t k = 0; k < c.nsrc; k++) impls[k % NIMPLS].acc(c.dst, c.src[k], c.len);
    long at = first_difference(c.dst, c.want, c.len);
    CHECK(at < 0, "8 blocks accumulated, alternating ISA-L and portable: byte %ld differs", at);
    free_case(&c);
}

static void test_isal_and_portable_paths_give_identical_bytes_on_megabyte_blocks(void)
{
    rng_seed(15);
    size_t len = (1u << 20) + 5;
    for (int aligned = 0; aligned < 2; aligned++) {
        struct case_buffers c;
        REQUIRE(make_case(&c, 16, len, aligned), "memory");
        unsigned char *other = malloc(len);
        REQUIRE(other != NULL, "memory");
        scr_xor_gen(c.nsrc, len, c.srcv, c.dst);
        scr_xor_gen_portable(c.nsrc, len, c.srcv, other);
        long at = first_difference(c.dst, other, len);
        CHECK(at < 0, "16 sources of %zu bytes, %s: paths differ at byte %ld", len,
              aligned ? "aligned" : "unaligned", at);
        CHECK(first_difference(c.dst, c.want, len) < 0, "differs from the reference");
        free(other);
        free_case(&c);
    }
}

int main(void)
{
    RUN(test_gen_equals_bytewise_xor_on_aligned_buffers);
    RUN(test_gen_equals_bytewise_xor_on_unaligned_buffers);
    RUN(test_gen_into_its_first_source_adds_the_others_to_it);
    RUN(test_accumulate_equals_bytewise_xor_at_any_alignment);
    RUN(test_accumulating_every_block_in_turn_equals_gen);
    RUN(test_isal_and_portable_paths_give_identical_bytes_on_megabyte_blocks);
    return tap_done();
}
