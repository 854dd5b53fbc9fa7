/* bench_flush_compress.c — the application of the compressed flush
 * benchmark (run-bench-flush-compress.sh, which sets SCR_FLUSH_COMPRESS and
 * judges the figures) and of the synchronous flush against cp + fsync
 * (run-bench-flush-sync.sh).
 *
 *   mpirun -np 2 bench_flush_compress [--mib N] [--kind text|random] [--ckpts K]
 *
 * Each rank writes K checkpoints (default 1) of one file ckpt.<i>/rank<r>.dat
 * of N MiB (default 128) and completes each; with SCR_FLUSH=1 the flush runs
 * in SCR_Complete_checkpoint (or in the background with SCR_FLUSH_ASYNC=1,
 * which SCR_Finalize waits for). The bytes are one MiB chunk written N
 * times: --kind text is lines of numbers as a simulation's text output has
 * them (deflate shrinks them to about a third), --kind random is bytes from
 * a xorshift generator, which no compressor shrinks. A repeated chunk is
 * no easier for deflate than a fresh one: its window is 32 KiB.
 *
 * Rank 0 prints, per checkpoint, the slowest rank's time from
 * SCR_Start_checkpoint to SCR_Complete_checkpoint returning, and at the end
 * that of SCR_Finalize:
 *
 *   ckpt I complete SECONDS
 *   finalize SECONDS
 *
 * The flush's own time and bytes come from the prefix (its event log and
 * its files); this program judges nothing. */
#include "scr.h"
#include "bench_app.h"

#include <getopt.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One MiB of text lines: "step, cell, value" as a solver prints them. */
static void fill_text(char *buf, int rank)
{
    size_t off = 0;
    for (long line = 0; off < CHUNK; line++) {
        char l[96];
        int n = snprintf(l, sizeof(l), "%6ld %4d %12.6f %12.6e\n", line, rank,
                         (double)line * 0.001 + rank, 1.0 / (double)(line + 1));
        for (int i = 0; i < n && off < CHUNK; i++) buf[off++] = l[i];
    }
}

/* One MiB that no compressor shrinks. */
static void fill_random(char *buf, int rank)
{
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(rank + 1);
    for (size_t i = 0; i < CHUNK; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(buf + i, &x, 8);
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"mib", required_argument, NULL, 'm'},
        {"kind", required_argument, NULL, 'k'},
        {"ckpts", required_argument, NULL, 'c'},
        {NULL, 0, NULL, 0},
    };
    long mib = 128;
    int ckpts = 1, random_kind = 0, c;
    bench_name = "bench_flush_compress";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': mib = atol(optarg); break;
        case 'k':
            if (strcmp(optarg, "random") != 0 && strcmp(optarg, "text") != 0) {
                fprintf(stderr, "bench_flush_compress: --kind is text or random, not %s\n", optarg);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            random_kind = strcmp(optarg, "random") == 0;
            break;
        case 'c': ckpts = atoi(optarg); break;
        default:
            fprintf(stderr,
                    "usage: bench_flush_compress [--mib N] [--kind text|random] [--ckpts K]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    char *buf = malloc(CHUNK);
    if (buf == NULL) die("malloc");
    if (random_kind)
        fill_random(buf, bench_rank);
    else
        fill_text(buf, bench_rank);
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    for (int i = 1; i <= ckpts; i++) {
        char name[64], want[128], path[SCR_MAX_FILENAME];
        snprintf(name, sizeof(name), "ckpt.%d", i);
        snprintf(want, sizeof(want), "ckpt.%d/rank%d.dat", i, bench_rank);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS) die("SCR_Start_output");
        if (SCR_Route_file(want, path) != SCR_SUCCESS) die("SCR_Route_file");
        write_bytes(path, mib, buf);
        if (SCR_Complete_output(1) != SCR_SUCCESS) die("SCR_Complete_output");
        double t = now() - t0, slowest = 0;
        if (MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            die("MPI_Reduce");
        if (bench_rank == 0) printf("ckpt %d complete %.3f\n", i, slowest);
    }
    double t0 = now();
    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    double t = now() - t0, slowest = 0;
    if (MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("MPI_Reduce");
    if (bench_rank == 0) printf("finalize %.3f\n", slowest);
    free(buf);
    MPI_Finalize();
    return 0;
}
