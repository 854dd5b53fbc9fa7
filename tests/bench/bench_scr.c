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
 * (which includes rebuilding a lost node's files). */
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

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long mine = ru.ru_maxrss, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

int main(int argc, char **argv)
{
    bench_name = "bench_scr";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long mib = 256;
    const char *plain_dir = "/dev/shm";
    int only_checkpoint = 0;
    static const struct option opts[] = {{"mib", required_argument, NULL, 'm'},
                                         {"plain-dir", required_argument, NULL, 'd'},
                                         {"only-checkpoint", no_argument, NULL, 'c'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'm') mib = atol(optarg);
        else if (c == 'd') plain_dir = optarg;
        else if (c == 'c') only_checkpoint = 1;
        else MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *buf = malloc(CHUNK);
    if (buf == NULL) die("malloc");
    for (int i = 0; i < CHUNK; i++) buf[i] = (char)(i * 31 + rank);

    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = MPI_Wtime();
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    double t_init = slowest(t_start);
    long rss_init = peak_rss_kib();
    if (rank == 0) printf("  SCR_Init               %7.3f s\n", t_init);
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
        if (rank == 0) printf("  checkpoint             %7.3f s (%d ranks x %ld MiB)\n", best, ranks, mib);
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
        printf("  checkpoint into cache  %7.3f s   plain write %7.3f s   ratio %.2f (target >= 0.90)\n",
               t_ckpt, t_plain, t_plain / t_ckpt);
        printf("  flush to the prefix    %7.3f s   cp + sync   %7.3f s   ratio %.2f (target >= 0.90)\n",
               t_flush, t_cp, t_cp / t_flush);
        double growth = (rss_flush - rss_init) / 1024.0;
        printf("  peak RSS of any rank   %7.1f MiB, %.1f MiB above SCR_Init (target < file buffer "
               "%s + 32 MiB)\n", rss_flush / 1024.0, growth,
               getenv("SCR_FILE_BUF_SIZE") ? getenv("SCR_FILE_BUF_SIZE") : "1MB");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
