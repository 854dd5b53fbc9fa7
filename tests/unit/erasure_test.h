/* erasure_test.h — helpers shared by the erasure tests: a seeded random
 * generator (runs repeat exactly), buffers at a chosen distance from a
 * 64-byte boundary, and the first byte where two buffers differ. */
#ifndef SCR_TESTS_ERASURE_TEST_H
#define SCR_TESTS_ERASURE_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static void rng_seed(uint64_t seed) __attribute__((unused));
static void rng_seed(uint64_t seed)
{
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
}

/* xorshift64* */
static uint64_t rng_next(void) __attribute__((unused));
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* A number in [0, n). */
static size_t rng_below(size_t n) __attribute__((unused));
static size_t rng_below(size_t n)
{
    return (size_t)(rng_next() % n);
}

static void fill_random(void *buf, size_t len) __attribute__((unused));
static void fill_random(void *buf, size_t len)
{
    unsigned char *p = buf;
    uint64_t w = 0;
    for (size_t i = 0; i < len; i++) {
        if (i % 8 == 0) w = rng_next();
        p[i] = (unsigned char)(w >> (8 * (i % 8)));
    }
}

/* len bytes starting offset bytes past a 64-byte boundary, filled with
 * random bytes; free with free_block(p, offset). NULL if out of memory. */
static unsigned char *alloc_block(size_t len, size_t offset) __attribute__((unused));
static unsigned char *alloc_block(size_t len, size_t offset)
{
    size_t size = (len + offset + 63) / 64 * 64 + 64;
    unsigned char *base = aligned_alloc(64, size);
    if (base == NULL) return NULL;
    fill_random(base, size);
    return base + offset;
}

static void free_block(unsigned char *p, size_t offset) __attribute__((unused));
static void free_block(unsigned char *p, size_t offset)
{
    if (p != NULL) free(p - offset);
}

/* Offset of the first byte where a and b differ, or -1 if they are equal. */
static long first_difference(const void *a, const void *b, size_t len) __attribute__((unused));
static long first_difference(const void *a, const void *b, size_t len)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < len; i++)
        if (x[i] != y[i]) return (long)i;
    return -1;
}

#endif
