/* bench_app.h — what the MPI application benchmarks share (bench_scr,
 * bench_flush_async, bench_encode_async): the error exit that names the
 * benchmark and the rank, and the writing of a checkpoint file of MiB
 * chunks. Header-only (static): each benchmark is one program, which sets
 * bench_name and bench_rank before it writes. */
#ifndef SCR_BENCH_APP_H
#define SCR_BENCH_APP_H

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static const char *bench_name = "bench";
static int bench_rank;

static void die(const char *what)
{
    fprintf(stderr, "%s rank %d: %s failed: %s\n", bench_name, bench_rank, what, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* path, mib chunks of buf (CHUNK bytes). */
static inline void write_bytes(const char *path, long mib, const char *buf)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die(path);
    for (long i = 0; i < mib; i++)
        if (write(fd, buf, CHUNK) != CHUNK) die(path);
    if (close(fd) != 0) die(path);
}

#endif
