/* bench_scan.c — the scan of a dataset directory with many small ranks.
 *
 * Builds a dataset directory of N ranks (default 100000), each with a rank
 * filemap naming one 16-byte file and an XOR file name (sets of 8), then
 * times scr_scan_dataset against a baseline that only opens and reads every
 * rank filemap and stats every file (the least any scan must do). Prints
 * both and their ratio, and the time per rank at N/10 ranks and at N, whose
 * ratio stays near 1 when the scan is linear.
 *
 *   tests/bench/bench_scan [RANKS]   (run by `make bench-scan`) */
#include "kvtree_file.h"
#include "meta.h"
#include "rank_filemap.h"
#include "scan.h"
#include "scr_err.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd) != 0) die(path);
}

static scr_meta *meta_of(const char *name, const char *type, int rank, int ranks, uint64_t size)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, name);
    scr_meta_set_filetype(m, type);
    scr_meta_set_filesize(m, size);
    scr_meta_set_complete(m, 1);
    scr_meta_set_rank(m, rank);
    scr_meta_set_ranks(m, ranks);
    return m;
}

/* The XOR file name of rank r: sets of 8 consecutive ranks. */
static int xor_name(int r, int ranks, char *buf, size_t len)
{
    int set = r / 8 * 8, size = ranks - set < 8 ? ranks - set : 8;
    snprintf(buf, len, "%d_of_%d_in_%d.xor", r - set + 1, size, set);
    return size;
}

/* N ranks in dir: rank r has r.dat (16 bytes) and its XOR file (16 bytes). */
static void build(const char *dir, int ranks)
{
    char name[64], xname[64], path[4096];
    for (int r = 0; r < ranks; r++) {
        snprintf(name, sizeof(name), "%d.dat", r);
        int size = xor_name(r, ranks, xname, sizeof(xname));
        scr_filemap *rmap = scr_filemap_new();
        scr_meta *a = meta_of(name, SCR_META_TYPE_FULL, r, ranks, 16);
        scr_meta *x = meta_of(xname, size > 1 ? SCR_META_TYPE_XOR : SCR_META_TYPE_FULL, r, ranks, 16);
        scr_filemap_set_expected_files(rmap, 1, r, 2);
        scr_filemap_set_meta(rmap, 1, r, name, a);
        scr_filemap_set_meta(rmap, 1, r, xname, x);
        void *image = NULL;
        size_t len = 0;
        if (scr_kvtree_file_image(rmap, &image, &len) != SCR_SUCCESS) die("image");
        snprintf(path, sizeof(path), "%s/%d.scrfilemap", dir, r);
        write_file(path, image, len);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        write_file(path, "0123456789abcdef", 16);
        snprintf(path, sizeof(path), "%s/%s", dir, xname);
        write_file(path, "0123456789abcdef", 16);
        free(image);
        scr_meta_delete(a);
        scr_meta_delete(x);
        scr_filemap_delete(rmap);
    }
}

/* What any scan must do: read every rank filemap, stat every file. */
static double baseline(const char *dir, int ranks)
{
    char path[4096], buf[4096], xname[64];
    double t0 = now();
    for (int r = 0; r < ranks; r++) {
        struct stat st;
        snprintf(path, sizeof(path), "%s/%d.scrfilemap", dir, r);
        int fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) die(path);
        close(fd);
        snprintf(path, sizeof(path), "%s/%d.dat", dir, r);
        if (stat(path, &st) != 0) die(path);
        xor_name(r, ranks, xname, sizeof(xname));
        snprintf(path, sizeof(path), "%s/%s", dir, xname);
        if (stat(path, &st) != 0) die(path);
    }
    return now() - t0;
}

static double scan_time(const char *dir, int ranks)
{
    struct scr_scan *scan = NULL;
    double t0 = now();
    if (scr_scan_dataset(dir, 0, &scan) != SCR_SUCCESS) die("scan");
    double t = now() - t0;
    if (scan->ranks != ranks || scan->nmissing != 0 || scan->nsets != (ranks + 7) / 8 - (ranks % 8 == 1)) {
        fprintf(stderr, "bench_scan: the scan saw %d ranks, %d missing, %d sets\n", scan->ranks, scan->nmissing,
                scan->nsets);
        exit(1);
    }
    scr_scan_free(scan);
    return t;
}

int main(int argc, char **argv)
{
    int ranks = argc > 1 ? atoi(argv[1]) : 100000;
    if (ranks < 10) ranks = 10;
    char small[] = "/tmp/bench-scan-small.XXXXXX", big[] = "/tmp/bench-scan-big.XXXXXX";
    if (mkdtemp(small) == NULL || mkdtemp(big) == NULL) die("mkdtemp");
    build(small, ranks / 10);
    build(big, ranks);
    double base = baseline(big, ranks), t_big = scan_time(big, ranks);
    double t_small = scan_time(small, ranks / 10);
    double per_big = t_big / ranks * 1e6, per_small = t_small / (ranks / 10) * 1e6;
    printf("scan of %d ranks: %.3f s (%.1f us/rank); read+stat baseline %.3f s; scan/baseline %.2f\n", ranks, t_big,
           per_big, base, t_big / base);
    printf("scan of %d ranks: %.3f s (%.1f us/rank); per-rank cost at %d vs %d ranks: %.2f\n", ranks / 10, t_small,
           per_small, ranks, ranks / 10, per_big / per_small);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf %s %s", small, big);
    return system(cmd) == 0 ? 0 : 1;
}
