/* bench_scr.c — libscr against plain file I/O of the same bytes, in one run.
 *
 *   mpirun -np 4 bench_scr [--mib N] [--plain-dir DIR] [--only-checkpoint]
 *
 * Each rank writes N MiB (default 256):
 *   1. plainly, to PLAIN-DIR (default /dev/shm) — the baseline of a checkpoint;
 *   2. as an SCR checkpoint (SCR_FLUSH=0, so only the cache is written);
 *   3. as an SCR output dataset, whose SCR_Complete_output copies it to the
 *      prefix — compared with `cp` of the same file plus `sync` of the copy
 *      (SCR syncs what it flushes), run by every rank at once as the flush is.
 * Prints the slowest rank's times and the ratios baseline/SCR (1.0 = as fast
 * as plain I/O; higher is better), and the peak resident memory of any rank
 * against the flush buffer. Times are the slowest rank's, between barriers,
 * best of three alternating rounds.
 *
 * --only-checkpoint measures only the checkpoint (best of three), for
 * comparing redundancy schemes, and always prints how long SCR_Init took
 * (which includes rebuilding a lost node's files).
 *
 * --beside-plain (with --only-checkpoint) measures five rounds, each a
 * checkpoint and a plain write of the same bytes into the same cache
 * directory (a file beside the routed one, the application keeping its
 * last two as SCR_CACHE_SIZE=2 keeps two checkpoints), alternating, and
 * prints the medians of both ("  plain write in cache ..."); --gap-ms MS idles that
 * long between rounds, outside the times, as an application computes
 * between checkpoints (work SCR does in the background then gets a core).
 *
 * --restart times one restart from cache, SCR_Init through the first
 * successful SCR_Complete_restart with the application's read of its file
 * included, then the same read alone, three times (the median), and prints
 * both ("  restart from cache ... read alone ...").
 *
 * --thread-multiple asks MPI_Init_thread for MPI_THREAD_MULTIPLE, with which
 * libscr encodes PARTNER, XOR and RS in the background (SCR_ENCODE_ASYNC);
 * without it MPI_Init is called and the encode runs in the foreground. */
#define _GNU_SOURCE
#include "scr.h"
#include "bench_app.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int rank, ranks;

/* Seconds the slowest rank spent since start (after a barrier). */
static double slowest(double start)
{
    double mine = MPI_Wtime() - start, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* Read path whole through buf (CHUNK bytes at a time), as an application reads its restart. */
static void read_bytes(const char *path, char *buf)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die(path);
    ssize_t n;
    while ((n = read(fd, buf, CHUNK)) > 0) continue;
    if (n < 0 || close(fd) != 0) die(path);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --restart: SCR_Init through SCR_Complete_restart, then the read alone. */
static void time_restart(double t_start, char *buf)
{
    char name[SCR_MAX_FILENAME], path[SCR_MAX_FILENAME], want[64];
    int have = 0;
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    if (SCR_Have_restart(&have, name) != SCR_SUCCESS) die("SCR_Have_restart");
    if (!have) die("SCR_Have_restart offered no checkpoint");
    if (SCR_Start_restart(name) != SCR_SUCCESS) die("SCR_Start_restart");
    snprintf(want, sizeof(want), "rank_%d.ckpt", rank);
    if (SCR_Route_file(want, path) != SCR_SUCCESS) die("SCR_Route_file");
    read_bytes(path, buf);
    if (SCR_Complete_restart(1) != SCR_SUCCESS) die("SCR_Complete_restart");
    double t_scr = slowest(t_start), t_read[3];
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        read_bytes(path, buf);
        t_read[round] = slowest(t0);
    }
    qsort(t_read, 3, sizeof(double), cmp_double);
    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    if (rank == 0)
        printf("  restart from cache     %7.3f s   read alone %7.3f s\n", t_scr, t_read[1]);
}

/* --only-checkpoint --beside-plain: five alternating rounds, the medians. */
static void time_beside_plain(long mib, const char *buf, long gap_ms, double *out_ckpt,
                              double *out_plain)
{
    double ckpt[5], plain[5];
    char beside[5][SCR_MAX_FILENAME + 16];
    for (int round = 0; round < 5; round++) {
        char name[64], path[SCR_MAX_FILENAME];
        snprintf(name, sizeof(name), "bench/rank_%d.ckpt", rank);
        if (gap_ms > 0) usleep((useconds_t)gap_ms * 1000);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
        if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
        write_bytes(path, mib, buf);
        if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
        ckpt[round] = slowest(t0);
        /* the same bytes beside it, in the same cache, without SCR; like
         * SCR_CACHE_SIZE=2, the application keeps its last two and deletes
         * the oldest before it writes */
        snprintf(beside[round], sizeof(beside[round]), "%s.plain.%d", path, round);
        if (gap_ms > 0) usleep((useconds_t)gap_ms * 1000);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (round >= 2) unlink(beside[round - 2]);
        write_bytes(beside[round], mib, buf);
        plain[round] = slowest(t0);
    }
    unlink(beside[3]);
    unlink(beside[4]);
    qsort(ckpt, 5, sizeof(double), cmp_double);
    qsort(plain, 5, sizeof(double), cmp_double);
    *out_ckpt = ckpt[2];
    *out_plain = plain[2];
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long mine = ru.ru_maxrss, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

/* 1 when argv asks for --thread-multiple, which must be known before MPI starts. */
static int wants_thread_multiple(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--thread-multiple") == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    bench_name = "bench_scr";
    if (wants_thread_multiple(argc, argv)) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE) die("MPI_THREAD_MULTIPLE is not provided");
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long mib = 256;
    const char *plain_dir = "/dev/shm";
    int only_checkpoint = 0, beside_plain = 0, restart = 0;
    long gap_ms = 0;
    static const struct option opts[] = {
        {"mib", required_argument, NULL, 'm'},       {"plain-dir", required_argument, NULL, 'd'},
        {"only-checkpoint", no_argument, NULL, 'c'}, {"beside-plain", no_argument, NULL, 'b'},
        {"gap-ms", required_argument, NULL, 'g'},    {"restart", no_argument, NULL, 'r'},
        {"thread-multiple", no_argument, NULL, 't'}, {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'm')
            mib = atol(optarg);
        else if (c == 'd')
            plain_dir = optarg;
        else if (c == 'c')
            only_checkpoint = 1;
        else if (c == 'b')
            beside_plain = 1;
        else if (c == 'g')
            gap_ms = atol(optarg);
        else if (c == 'r')
            restart = 1;
        else if (c != 't') /* --thread-multiple: taken before MPI_Init_thread */
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *buf = malloc(CHUNK);
    if (buf == NULL) die("malloc");
    for (int i = 0; i < CHUNK; i++) buf[i] = (char)(i * 31 + rank);

    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = MPI_Wtime();
    if (restart) {
        time_restart(t_start, buf);
        free(buf);
        MPI_Finalize();
        return 0;
    }
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    double t_init = slowest(t_start);
    long rss_init = peak_rss_kib();
    if (rank == 0) printf("  SCR_Init               %7.3f s\n", t_init);
    if (only_checkpoint && beside_plain) {
        double t_ckpt = 0, t_plain = 0;
        time_beside_plain(mib, buf, gap_ms, &t_ckpt, &t_plain);
        if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
        if (rank == 0) {
            printf("  checkpoint             %7.3f s (%d ranks x %ld MiB, median of 5)\n", t_ckpt,
                   ranks, mib);
            printf("  plain write in cache   %7.3f s (median of 5)\n", t_plain);
        }
        free(buf);
        MPI_Finalize();
        return 0;
    }
    if (only_checkpoint) {
        double best = 1e30;
        for (int round = 0; round < 3; round++) {
            char name[64], path[SCR_MAX_FILENAME];
            snprintf(name, sizeof(name), "bench/rank_%d.ckpt", rank);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
            if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
            write_bytes(path, mib, buf);
            if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
            double t = slowest(t0);
            if (t < best) best = t;
        }
        if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
        if (rank == 0)
            printf("  checkpoint             %7.3f s (%d ranks x %ld MiB)\n", best, ranks, mib);
        free(buf);
        MPI_Finalize();
        return 0;
    }

    /* three rounds, alternating, keeping each measurement's best: the first
     * writes to a fresh tmpfs pay for page allocation whichever comes first */
    double t_plain = 1e30, t_ckpt = 1e30, t_flush = 1e30, t_cp = 1e30;
    long rss_flush = 0;
    for (int round = 0; round < 3; round++) {
        char plain[4096], name[64], path[SCR_MAX_FILENAME], dname[64];
        snprintf(plain, sizeof(plain), "%s/bench_scr_plain.%d.%d", plain_dir, (int)getppid(), rank);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        write_bytes(plain, mib, buf);
        double t = slowest(t0);
        if (t < t_plain) t_plain = t;
        unlink(plain);

        /* the same bytes as a checkpoint into cache */
        snprintf(name, sizeof(name), "bench/rank_%d.ckpt", rank);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
        if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
        write_bytes(path, mib, buf);
        if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
        t = slowest(t0);
        if (t < t_ckpt) t_ckpt = t;

        /* an output dataset: Complete_output flushes it to the prefix */
        snprintf(name, sizeof(name), "bench_out%d/rank_%d.dat", round, rank);
        snprintf(dname, sizeof(dname), "bench.output.%d", round);
        if (SCR_Start_output(dname, SCR_FLAG_OUTPUT) != SCR_SUCCESS) die("SCR_Start_output");
        if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
        write_bytes(path, mib, buf);
        char cached_copy[SCR_MAX_FILENAME + 16];
        snprintf(cached_copy, sizeof(cached_copy), "%s/bench_scr_cached.%d.%d", plain_dir,
                 (int)getppid(), rank);
        if (link(path, cached_copy) != 0) die("link"); /* the baseline copies the same file */
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (SCR_Complete_output(1) != SCR_SUCCESS) die("SCR_Complete_output");
        t = slowest(t0);
        if (t < t_flush) t_flush = t;
        rss_flush = peak_rss_kib();

        char cmd[3 * SCR_MAX_FILENAME];
        snprintf(cmd, sizeof(cmd), "cp '%s' bench_out%d/cp_%d.dat && sync bench_out%d/cp_%d.dat",
                 cached_copy, round, rank, round, rank);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (system(cmd) != 0) die("cp");
        t = slowest(t0);
        if (t < t_cp) t_cp = t;
        unlink(cached_copy);
        snprintf(cmd, sizeof(cmd), "bench_out%d/cp_%d.dat", round, rank);
        unlink(cmd);
        unlink(path);
        snprintf(cmd, sizeof(cmd), "bench_out%d/rank_%d.dat", round, rank);
        unlink(cmd); /* keep the prefix from filling the disk */
    }

    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    if (rank == 0) {
        double gib = (double)mib * ranks / 1024.0;
        printf("bench_scr: %d ranks x %ld MiB (%.2f GiB)\n", ranks, mib, gib);
        printf("  checkpoint into cache  %7.3f s   plain write %7.3f s   ratio %.2f (target >= "
               "0.90)\n",
               t_ckpt, t_plain, t_plain / t_ckpt);
        printf("  flush to the prefix    %7.3f s   cp + sync   %7.3f s   ratio %.2f (target >= "
               "0.90)\n",
               t_flush, t_cp, t_cp / t_flush);
        double growth = (rss_flush - rss_init) / 1024.0;
        printf("  peak RSS of any rank   %7.1f MiB, %.1f MiB above SCR_Init (target < file buffer "
               "%s + 32 MiB)\n",
               rss_flush / 1024.0, growth,
               getenv("SCR_FILE_BUF_SIZE") ? getenv("SCR_FILE_BUF_SIZE") : "1MB");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
