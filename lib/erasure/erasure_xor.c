/* erasure_xor.c — XOR of buffers through ISA-L when it suits, a portable loop otherwise. */
#include "build_config.h"
#include "erasure_xor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ISAL
#include <isa-l/raid.h>
#endif

/* The portable loop moves four chunks of each source per turn, through
 * memcpy so that any alignment works, into four accumulators the compiler
 * keeps in registers. GCC and Clang get a 16-byte vector type (one SIMD
 * register on x86-64 and arm64); other compilers work on 64-bit words. */
#if defined(__GNUC__)
typedef uint64_t chunk __attribute__((vector_size(16)));
#else
typedef uint64_t chunk;
#endif
#define STEP (4 * sizeof(chunk))

static inline chunk load(const void *base, size_t at)
{
    chunk v;
    memcpy(&v, (const unsigned char *)base + at, sizeof(v));
    return v;
}

static inline void store(void *base, size_t at, chunk v)
{
    memcpy((unsigned char *)base + at, &v, sizeof(v));
}

void scr_xor_gen_portable(size_t nsrc, size_t len, const void *const *srcs, void *dst)
{
    if (nsrc == 0) {
        memset(dst, 0, len);
        return;
    }
    /* each turn reads all the sources before it stores, so dst may be srcs[0] */
    const size_t c = sizeof(chunk);
    size_t i = 0;
    for (; i + STEP <= len; i += STEP) {
        chunk a0 = load(srcs[0], i), a1 = load(srcs[0], i + c);
        chunk a2 = load(srcs[0], i + 2 * c), a3 = load(srcs[0], i + 3 * c);
        for (size_t k = 1; k < nsrc; k++) {
            a0 ^= load(srcs[k], i);
            a1 ^= load(srcs[k], i + c);
            a2 ^= load(srcs[k], i + 2 * c);
            a3 ^= load(srcs[k], i + 3 * c);
        }
        store(dst, i, a0);
        store(dst, i + c, a1);
        store(dst, i + 2 * c, a2);
        store(dst, i + 3 * c, a3);
    }
    unsigned char *d = dst;
    for (; i < len; i++) {
        unsigned char b = ((const unsigned char *)srcs[0])[i];
        for (size_t k = 1; k < nsrc; k++) b ^= ((const unsigned char *)srcs[k])[i];
        d[i] = b;
    }
}

void scr_xor_accumulate_portable(void *dst, const void *src, size_t len)
{
    const void *srcs[2] = {dst, src};
    scr_xor_gen_portable(2, len, srcs, dst);
}

#ifdef HAVE_ISAL
#define ISAL_ALIGN 32                  /* xor_gen's rule for every pointer */
#define ISAL_MAX_VECTS 64              /* pointers per xor_gen call, on our stack */
#define ISAL_MAX_LEN ((size_t)1 << 30) /* xor_gen takes an int length */

static int suits_isal(size_t nsrc, size_t len, const void *const *srcs, const void *dst)
{
    /* xor_gen wants two sources at least */
    if (nsrc < 2 || len == 0 || (uintptr_t)dst % ISAL_ALIGN != 0) return 0;
    for (size_t k = 0; k < nsrc; k++)
        if ((uintptr_t)srcs[k] % ISAL_ALIGN != 0) return 0;
    return 1;
}

/* xor_gen over pieces of at most ISAL_MAX_LEN bytes and groups of at most
 * ISAL_MAX_VECTS - 1 sources; after the first group, the parity so far is a
 * source of the next. */
static void xor_isal(size_t nsrc, size_t len, const void *const *srcs, void *dst)
{
    void *v[ISAL_MAX_VECTS];
    for (size_t off = 0; off < len; off += ISAL_MAX_LEN) {
        size_t n = len - off < ISAL_MAX_LEN ? len - off : ISAL_MAX_LEN;
        unsigned char *d = (unsigned char *)dst + off;
        size_t done = 0;
        while (done < nsrc) {
            int m = 0;
            if (done > 0) v[m++] = d;
            while (m < ISAL_MAX_VECTS - 1 && done < nsrc)
                v[m++] = (unsigned char *)srcs[done++] + off;
            v[m++] = d;
            /* xor_gen refuses only fewer than three vectors, and m >= 3 */
            if (xor_gen(m, (int)n, v) != 0) abort();
        }
    }
}
#endif

void scr_xor_gen(size_t nsrc, size_t len, const void *const *srcs, void *dst)
{
#ifdef HAVE_ISAL
    if (suits_isal(nsrc, len, srcs, dst)) {
        xor_isal(nsrc, len, srcs, dst);
        return;
    }
#endif
    scr_xor_gen_portable(nsrc, len, srcs, dst);
}

void scr_xor_accumulate(void *dst, const void *src, size_t len)
{
    const void *srcs[2] = {dst, src};
    scr_xor_gen(2, len, srcs, dst);
}

int scr_xor_uses_isal(void)
{
#ifdef HAVE_ISAL
    return 1;
#else
    return 0;
#endif
}
