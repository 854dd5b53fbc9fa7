/* bench_erasure.c — speed of the XOR and Reed-Solomon kernels, next to memcpy.
 *
 * A set has N members; XOR makes one parity block from N sources, RS makes
 * k parity blocks from N - k data blocks (k failures survived). Speeds are in
 * GB/s of source bytes (the blocks read), and each is set beside memcpy of
 * the same number of bytes measured in the same run: "x memcpy" is the
 * kernel's speed divided by memcpy's, so above 1 the kernel is faster than
 * copying its input once. Each figure is the best of 3 runs of about 0.2 s.
 * Nothing is asserted; the targets are printed with the figures. */
#define _POSIX_C_SOURCE 200809L
#include "erasure_rs.h"
#include "erasure_xor.h"
#include "scr_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK ((size_t)2 << 20) /* bytes per block */
#define MAXN 16

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What one measurement runs: a kernel over the blocks of a set. */
struct job {
    int kind; /* one of the enum below */
    int portable;
    int nsrc, nout;
    const void *src[MAXN];
    void *out[MAXN];
    const scr_rs_code *code;
    const scr_rs_decoder *dec;
    unsigned char *copy_from, *copy_to; /* for memcpy */
};
enum { MEMCPY, XOR, RS_ENCODE, RS_ENCODE_UPDATE, RS_DECODE };

static void run_once(const struct job *j)
{
    int rc = SCR_SUCCESS;
    switch (j->kind) {
    case MEMCPY: memcpy(j->copy_to, j->copy_from, (size_t)j->nsrc * BLOCK); break;
    case XOR:
        (j->portable ? scr_xor_gen_portable : scr_xor_gen)((size_t)j->nsrc, BLOCK, j->src,
                                                           j->out[0]);
        break;
    case RS_ENCODE:
        rc = (j->portable ? scr_rs_encode_portable : scr_rs_encode)(j->code, BLOCK, j->src, j->out);
        break;
    case RS_ENCODE_UPDATE:
        /* as a ring does it: every data block added in turn */
        for (int i = 0; i < j->nsrc && rc == SCR_SUCCESS; i++)
            rc = (j->portable ? scr_rs_encode_update_portable
                              : scr_rs_encode_update)(j->code, BLOCK, i, j->src[i], j->out);
        break;
    case RS_DECODE:
        rc = (j->portable ? scr_rs_decode_portable : scr_rs_decode)(j->dec, BLOCK, j->src, j->out);
        break;
    }
    if (rc != SCR_SUCCESS) {
        fprintf(stderr, "bench_erasure: a kernel failed (%d)\n", rc);
        exit(1);
    }
}

/* GB/s of source bytes: enough repetitions for about 0.2 s, best of 3. */
static double speed(const struct job *j)
{
    double t = now();
    run_once(j);
    t = now() - t;
    int reps = t > 0.2 ? 1 : (int)(0.2 / (t > 1e-6 ? t : 1e-6)) + 1;
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double s = now();
        for (int r = 0; r < reps; r++) run_once(j);
        double per = (now() - s) / reps;
        if (per < best) best = per;
    }
    return (double)j->nsrc * (double)BLOCK / best / 1e9;
}

static unsigned char *blocks[MAXN + 4];
static unsigned char *copy_from, *copy_to;

/* Prints one line: the kernel on both paths next to memcpy of its input. */
static void report(const char *what, struct job *j, double target_ratio, double target_gbs)
{
    struct job m = *j;
    m.kind = MEMCPY;
    m.copy_from = copy_from;
    m.copy_to = copy_to;
    double base = speed(&m);
    j->portable = 0;
    double fast = speed(j);
    j->portable = 1;
    double portable = speed(j);
    char target[64] = "";
    if (target_ratio > 0)
        snprintf(target, sizeof(target), ">= %.1fx memcpy: %s", target_ratio,
                 fast / base >= target_ratio ? "met" : "MISSED");
    if (target_gbs > 0) /* a target for ISA-L's kernels */
        snprintf(target, sizeof(target), ">= %.0f GB/s with ISA-L: %s", target_gbs,
                 !scr_rs_uses_isal()  ? "not built with it"
                 : fast >= target_gbs ? "met"
                                      : "MISSED");
    printf("%-34s %7.2f %7.2f %6.2f %9.2f %6.2f   %s\n", what, base, fast, fast / base, portable,
           portable / base, target);
    fflush(stdout);
}

int main(void)
{
    for (int i = 0; i < MAXN + 4; i++) {
        /* 64-byte aligned, as ISA-L's XOR wants */
        blocks[i] = aligned_alloc(64, BLOCK);
        if (blocks[i] == NULL) return 1;
        for (size_t b = 0; b < BLOCK; b++)
            blocks[i][b] = (unsigned char)((b * 2654435761u) >> (i % 13));
    }
    copy_from = malloc(MAXN * BLOCK);
    copy_to = malloc(MAXN * BLOCK);
    if (copy_from == NULL || copy_to == NULL) return 1;
    memset(copy_from, 1, MAXN * BLOCK);
    memset(copy_to, 2, MAXN * BLOCK);

    const char *isal = scr_rs_uses_isal() ? "ISA-L" : "no ISA-L in this build: portable twice";
    printf("erasure kernels, blocks of %zu MiB, GB/s of source bytes (default path: %s)\n",
           BLOCK >> 20, isal);
    printf("%-34s %7s %7s %6s %9s %6s   %s\n", "operation", "memcpy", "default", "x mcp",
           "portable", "x mcp", "target (default path)");

    char what[64];
    for (int n = 4; n <= 16; n *= 2) {
        struct job j = {.kind = XOR, .nsrc = n, .nout = 1};
        for (int i = 0; i < n; i++) j.src[i] = blocks[i];
        j.out[0] = blocks[MAXN];
        snprintf(what, sizeof(what), "xor N=%d (%d sources -> 1)", n, n);
        report(what, &j, 0.8, 0);
    }
    for (int n = 4; n <= 16; n *= 2)
        for (int k = 1; k <= 3; k++) {
            scr_rs_code code;
            if (scr_rs_init(&code, n - k, k) != SCR_SUCCESS) return 1;
            struct job j = {.kind = RS_ENCODE, .nsrc = n - k, .nout = k, .code = &code};
            for (int i = 0; i < n - k; i++) j.src[i] = blocks[i];
            for (int r = 0; r < k; r++) j.out[r] = blocks[MAXN + r];
            snprintf(what, sizeof(what), "rs encode N=%d k=%d (%d -> %d)", n, k, n - k, k);
            report(what, &j, 0, n == 8 && k == 2 ? 4.0 : 0);
            if (n == 8 && k == 2) {
                j.kind = RS_ENCODE_UPDATE;
                snprintf(what, sizeof(what), "rs encode_update N=8 k=2, ring");
                report(what, &j, 0, 0);
                /* two data blocks lost, rebuilt from the six others */
                int lost[2] = {0, 3};
                scr_rs_decoder dec;
                if (scr_rs_decoder_init(&code, &dec, lost, 2, NULL) != SCR_SUCCESS) return 1;
                j.kind = RS_DECODE;
                j.dec = &dec;
                snprintf(what, sizeof(what), "rs decode N=8 k=2, 2 data lost");
                report(what, &j, 0, 0);
                scr_rs_decoder_free(&dec);
            }
            scr_rs_free(&code);
        }
    for (int i = 0; i < MAXN + 4; i++) free(blocks[i]);
    free(copy_from);
    free(copy_to);
    return 0;
}
