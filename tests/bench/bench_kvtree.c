/* bench_kvtree.c — speed of CRC32 and of the hash format, as ratios to memcpy.
 *
 * Every figure is measured in this run next to its baseline (memcpy of the
 * same bytes), so results compare across machines: a ratio of 2.0 means the
 * operation takes twice as long as copying its bytes once. Nothing is
 * asserted; `make bench` prints the table. */
#define _POSIX_C_SOURCE 200809L
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_pack.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_crc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint32_t sink;

/* Best of `reps` runs of memcpy over len bytes. */
static double time_memcpy(void *dst, const void *src, size_t len, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        memcpy(dst, src, len);
        t = now() - t;
        sink ^= ((unsigned char *)dst)[len / 2];
        if (t < best) best = t;
    }
    return best;
}

static double time_crc(uint32_t (*fn)(uint32_t, const void *, size_t), const void *buf, size_t len,
                       int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        sink ^= fn(0, buf, len);
        t = now() - t;
        if (t < best) best = t;
    }
    return best;
}

/* A filemap-shaped tree: ranks x files, each with a few typed values. */
static scr_kvtree *filemap_like(int ranks, int files)
{
    scr_kvtree *t = scr_kvtree_new();
    char name[64];
    for (int r = 0; r < ranks; r++) {
        scr_kvtree *rank = scr_kvtree_set_kv_int(t, "RANK", r);
        scr_kvtree *dset = scr_kvtree_set_kv_int(rank, "DSET", 7);
        scr_kvtree_util_set_int(dset, "FILES", files);
        for (int f = 0; f < files; f++) {
            snprintf(name, sizeof(name), "/dev/shm/user/scr.1234/scr.dataset.7/rank_%d.%d", r, f);
            scr_kvtree *meta = scr_kvtree_set_kv(dset, "FILE", name);
            scr_kvtree_util_set_uint64(meta, "SIZE", 1048576u + (unsigned)f);
            scr_kvtree_util_set_crc32(meta, "CRC", 0x1b39e4e4u ^ (unsigned)r);
            scr_kvtree_util_set_int(meta, "COMPLETE", 1);
        }
    }
    return t;
}

int main(void)
{
    const size_t len = 64u << 20;
    unsigned char *a = malloc(len), *b = malloc(len);
    if (a == NULL || b == NULL) return 1;
    for (size_t i = 0; i < len; i++) a[i] = (unsigned char)(i * 2654435761u >> 13);
    memcpy(b, a, len);

    double base = time_memcpy(b, a, len, 5);
    double zlib = time_crc(scr_crc32_zlib, a, len, 5);
    double isal = time_crc(scr_crc32_isal, a, len, 5);
    printf("%-40s %10s %10s\n", "operation", "GB/s", "x memcpy");
    printf("%-40s %10.2f %10.2f\n", "memcpy 64 MiB (baseline)", len / base / 1e9, 1.0);
    printf("%-40s %10.2f %10.2f\n", "crc32 zlib", len / zlib / 1e9, zlib / base);
    printf("%-40s %10.2f %10.2f%s\n", "crc32 isa-l", len / isal / 1e9, isal / base,
           scr_crc32_uses_isal() ? "" : "  (no ISA-L: zlib)");

    scr_kvtree *t = filemap_like(1024, 16);
    size_t packed = scr_kvtree_pack_size(t);
    unsigned char *buf = malloc(packed), *copy = malloc(packed);
    if (buf == NULL || copy == NULL) return 1;
    double best_pack = 1e30, best_unpack = 1e30;
    for (int r = 0; r < 3; r++) {
        double s = now();
        if (scr_kvtree_pack(buf, packed, t) != packed) return 1;
        double pt = now() - s;
        if (pt < best_pack) best_pack = pt;
        scr_kvtree *u = scr_kvtree_new();
        s = now();
        if (scr_kvtree_unpack(buf, packed, u, NULL, "bench") != SCR_SUCCESS) return 1;
        double el = now() - s;
        if (el < best_unpack) best_unpack = el;
        scr_kvtree_delete(u);
    }
    double pbase = time_memcpy(copy, buf, packed, 5);
    printf("%-40s %10.2f %10.2f\n", "pack filemap tree (16k files)", packed / best_pack / 1e9,
           best_pack / pbase);
    printf("%-40s %10.2f %10.2f\n", "unpack filemap tree (16k files)", packed / best_unpack / 1e9,
           best_unpack / pbase);
    scr_kvtree_delete(t);
    free(buf);
    free(copy);
    free(a);
    free(b);
    return 0;
}
