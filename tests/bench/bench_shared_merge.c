/* bench_shared_merge.c — one file every rank writes a part of, checkpointed.
 *
 * Each of --ckpts checkpoints: rank 0 creates ckpt.<n>/shared.dat, every
 * rank waits in a barrier, then writes its --mib MiB at offset rank * mib
 * MiB (as an MPI-IO application does), fsyncs it (as SCR 3.1's test_api
 * does: with bypass, the data is then on the prefix's disk, as the merge
 * leaves it), and SCR_Complete_checkpoint. Rank
 * 0 prints one line per checkpoint, "ckpt N seconds S": the time from
 * SCR_Start_checkpoint to SCR_Complete_checkpoint returning, the
 * application's writes included. run-bench-shared-merge.sh runs it with
 * the cache (the pieces merged on the prefix) and with SCR_CACHE_BYPASS=1
 * (the file written in place), the baseline. */
#include "bench_app.h"
#include "scr.h"

#include <getopt.h>

static void write_part(const char *path, long mib, const char *buf)
{
    int fd = -1;
    if (bench_rank == 0) fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) die("MPI_Barrier");
    if (bench_rank != 0) fd = open(path, O_WRONLY);
    if (fd < 0) die(path);
    off_t at = (off_t)bench_rank * mib * CHUNK;
    for (long i = 0; i < mib; i++)
        if (pwrite(fd, buf, CHUNK, at + (off_t)i * CHUNK) != CHUNK) die(path);
    if (fsync(fd) != 0) die(path);
    if (close(fd) != 0) die(path);
}

int main(int argc, char **argv)
{
    long mib = 64;
    int ckpts = 3;
    static const struct option longopts[] = {{"mib", required_argument, NULL, 'm'},
                                             {"ckpts", required_argument, NULL, 'c'},
                                             {NULL, 0, NULL, 0}};
    int c;
    bench_name = "bench_shared_merge";
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'm')
            mib = atol(optarg);
        else if (c == 'c')
            ckpts = atoi(optarg);
        else {
            errno = EINVAL;
            die("usage: bench_shared_merge [--mib M] [--ckpts N]");
        }
    }
    char *buf = malloc(CHUNK);
    if (buf == NULL) die("malloc");
    for (int i = 0; i < CHUNK; i++)
        buf[i] = (char)(1 + (i * 7 + bench_rank * 13) % 251); /* no zero bytes */
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    for (int n = 1; n <= ckpts; n++) {
        char name[64], path[SCR_MAX_FILENAME];
        snprintf(name, sizeof(name), "ckpt.%d/shared.dat", n);
        if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) die("MPI_Barrier");
        double t0 = MPI_Wtime();
        if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
        if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
        write_part(path, mib, buf);
        if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
        double t = MPI_Wtime() - t0, tmax = 0;
        if (MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            die("MPI_Reduce");
        if (bench_rank == 0) printf("ckpt %d seconds %.3f\n", n, tmax);
    }
    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    free(buf);
    MPI_Finalize();
    return 0;
}
