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
#include "bench_dataset.h"
#include "scan.h"

static double scan_time(const char *dir, int ranks)
{
    struct scr_scan *scan = NULL;
    double t0 = bench_now();
    if (scr_scan_dataset(dir, 0, &scan) != SCR_SUCCESS) bench_die("scan");
    double t = bench_now() - t0;
    if (scan->ranks != ranks || scan->nmissing != 0 ||
        scan->nsets != (ranks + 7) / 8 - (ranks % 8 == 1)) {
        fprintf(stderr, "bench_scan: the scan saw %d ranks, %d missing, %d sets\n", scan->ranks,
                scan->nmissing, scan->nsets);
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
    if (mkdtemp(small) == NULL || mkdtemp(big) == NULL) bench_die("mkdtemp");
    bench_build_dataset(small, ranks / 10);
    bench_build_dataset(big, ranks);
    double base = bench_baseline(big, ranks), t_big = scan_time(big, ranks);
    double t_small = scan_time(small, ranks / 10);
    double per_big = t_big / ranks * 1e6, per_small = t_small / (ranks / 10) * 1e6;
    printf(
        "scan of %d ranks: %.3f s (%.1f us/rank); read+stat baseline %.3f s; scan/baseline %.2f\n",
        ranks, t_big, per_big, base, t_big / base);
    printf("scan of %d ranks: %.3f s (%.1f us/rank); per-rank cost at %d vs %d ranks: %.2f\n",
           ranks / 10, t_small, per_small, ranks, ranks / 10, per_big / per_small);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf %s %s", small, big);
    return system(cmd) == 0 ? 0 : 1;
}
