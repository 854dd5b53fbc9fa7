/* bench_scale.c — the phases of an SCR application at scale, under SimGrid's
 * SMPI (doc/details.md, "Running under SimGrid's SMPI"; figures in
 * doc/performance.md; run by run-bench-scale.sh).
 *
 *   smpirun ... bench_scale --run write|rebuild|fetch [--kib N] [--checkpoints C]
 *
 * write:   SCR_Init on an empty cache, then C checkpoints (default 4) of N KiB
 *          per rank (default 64), ckpt.1 ... ckpt.C, each completion
 *          (SCR_Complete_output, which encodes and may flush) timed apart
 *          (SCR_FLUSH=2 in the environment flushes every second one), then
 *          SCR_Finalize;
 * rebuild: SCR_Init once a host's cache and control directories are gone
 *          (the caller deletes them), the restart read back with every byte
 *          checked, SCR_Finalize;
 * fetch:   the same once every cache is gone: SCR_Init fetches the
 *          checkpoint from the prefix.
 * For each phase rank 0 prints one line:
 *
 *   phase NAME sim_s S wall_s W p2p_msgs M p2p_bytes B coll_calls K coll_bytes Y rss_mib R polls T
 *
 * S: the slowest rank's simulated seconds from a barrier to its return; W:
 * the real seconds the simulation took for it; M, B: the point-to-point
 * messages rank 0 received in it and their bytes; K, Y: the collective calls
 * rank 0 made in it and the bytes its buffers received from other ranks in
 * them (what arrives whatever the algorithm: a broadcast's buffer, an
 * all-reduce's result, a gather's other parts); R: the peak resident memory
 * of the whole simulation so far, in MiB; T: the tests rank 0 made
 * (MPI_Iprobe, MPI_Test, MPI_Testall), each of which SMPI charges
 * simulated time.
 *
 * The counts come from the MPI functions libscr calls, defined here around
 * SMPI's PMPI ones; the application is linked with -Bsymbolic so that
 * libscr, linked into the same shared object, calls them. */
#include "scr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* SMPI's smpi_helpers.h puts clock_gettime on the simulated clock; the wall
 * time of the simulation is the real one */
#undef clock_gettime

static int rank = -1, ranks;

static void fail(const char *what)
{
    fprintf(stderr, "bench_scale rank %d: %s failed%s%s\n", rank, what, errno ? ": " : "",
            errno ? strerror(errno) : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* --- what arrives into this rank ------------------------------------------------ */

static long long p2p_msgs, p2p_bytes, coll_calls, coll_bytes, polls;

static long long bytes_of(MPI_Datatype type, long long count)
{
    int size = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
    return (long long)size * count;
}

static int rank_in(MPI_Comm comm)
{
    int r = -1;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static int size_of(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static void received(MPI_Datatype type, MPI_Status *status)
{
    int count = 0;
    if (PMPI_Get_count(status, type, &count) != MPI_SUCCESS || count < 0) count = 0;
    p2p_msgs++;
    p2p_bytes += bytes_of(type, count);
}

static void collective(long long bytes)
{
    coll_calls++;
    coll_bytes += bytes;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Status mine;
    if (status == MPI_STATUS_IGNORE) status = &mine;
    int rc = PMPI_Recv(buf, count, type, src, tag, comm, status);
    if (rc == MPI_SUCCESS) received(type, status);
    return rc;
}

/* counted when posted, at the size posted: libscr posts what it expects */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    p2p_msgs++;
    p2p_bytes += bytes_of(type, count);
    return PMPI_Irecv(buf, count, type, src, tag, comm, req);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    MPI_Status mine;
    if (status == MPI_STATUS_IGNORE) status = &mine;
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                           status);
    if (rc == MPI_SUCCESS) received(rtype, status);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    collective(rank_in(comm) == root ? 0 : bytes_of(type, count));
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    collective(size_of(comm) > 1 ? bytes_of(type, count) : 0);
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    collective(size_of(comm) > 1 ? bytes_of(type, count) : 0);
    return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    collective(rank_in(comm) == root && size_of(comm) > 1 ? bytes_of(type, count) : 0);
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    collective(rank_in(comm) == root ? bytes_of(rtype, (long long)rcount * (size_of(comm) - 1))
                                     : 0);
    return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    long long n = 0;
    int me = rank_in(comm);
    if (me == root)
        for (int i = 0; i < size_of(comm); i++) n += i == me ? 0 : rcounts[i];
    collective(bytes_of(rtype, n));
    return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    collective(bytes_of(rtype, (long long)rcount * (size_of(comm) - 1)));
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                   const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
    long long n = 0;
    int me = rank_in(comm);
    for (int i = 0; i < size_of(comm); i++) n += i == me ? 0 : rcounts[i];
    collective(bytes_of(rtype, n));
    return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}

/* the tests of a polling loop: SMPI charges each of them simulated time
 * (--cfg=smpi/iprobe, smpi/test: 0.1 ms by default) */
int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    polls++;
    return PMPI_Iprobe(src, tag, comm, flag, status);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    polls++;
    return PMPI_Test(req, flag, status);
}

int MPI_Testall(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses)
{
    polls++;
    return PMPI_Testall(n, reqs, flag, statuses);
}

int MPI_Barrier(MPI_Comm comm)
{
    collective(0);
    return PMPI_Barrier(comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    collective(0);
    return PMPI_Ibarrier(comm, req);
}

/* --- phases ----------------------------------------------------------------------- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct phase {
    double sim, wall;
    long long msgs, bytes, calls, cbytes, polls;
};

static void phase_begin(struct phase *p)
{
    if (PMPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) fail("MPI_Barrier");
    p->msgs = p2p_msgs, p->bytes = p2p_bytes, p->calls = coll_calls, p->cbytes = coll_bytes,
    p->polls = polls;
    p->wall = wall_now();
    p->sim = MPI_Wtime();
}

/* rank 0 prints the phase; what rank 0 received is counted before the
 * collective that finds the slowest rank */
static void phase_end(struct phase *p, const char *name)
{
    double mine = MPI_Wtime() - p->sim, slowest = 0;
    long long msgs = p2p_msgs - p->msgs, bytes = p2p_bytes - p->bytes;
    long long calls = coll_calls - p->calls, cbytes = coll_bytes - p->cbytes,
              npolls = polls - p->polls;
    if (PMPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Reduce");
    double wall = wall_now() - p->wall;
    if (rank != 0) return;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) fail("getrusage");
    printf("phase %s sim_s %.6f wall_s %.3f p2p_msgs %lld p2p_bytes %lld coll_calls %lld "
           "coll_bytes %lld "
           "rss_mib %ld polls %lld\n",
           name, slowest, wall, msgs, bytes, calls, cbytes, ru.ru_maxrss / 1024, npolls);
    fflush(stdout);
}

/* the byte at offset of rank r's file of checkpoint c */
static unsigned char byte_at(int r, int c, size_t offset)
{
    uint64_t x = ((uint64_t)r << 32) ^ ((uint64_t)c << 24) ^ offset;
    x *= 0x9e3779b97f4a7c15ull;
    return (unsigned char)(x >> 56);
}

static void write_checkpoint(int c, size_t bytes, unsigned char *buf)
{
    char dset[64], name[64], path[SCR_MAX_FILENAME];
    snprintf(dset, sizeof(dset), "ckpt.%d", c);
    snprintf(name, sizeof(name), "ckpt.%d/rank%d.dat", c, rank);
    if (SCR_Start_output(dset, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS) fail("SCR_Start_output");
    if (SCR_Route_file(name, path) != SCR_SUCCESS) fail("SCR_Route_file");
    for (size_t i = 0; i < bytes; i++) buf[i] = byte_at(rank, c, i);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, buf, bytes) != (ssize_t)bytes || close(fd) != 0) fail(path);
}

/* the restart SCR offers, every byte checked; the checkpoint's number */
static int read_restart(size_t bytes, unsigned char *buf)
{
    int have = 0;
    char dset[SCR_MAX_FILENAME], name[64], path[SCR_MAX_FILENAME];
    if (SCR_Have_restart(&have, dset) != SCR_SUCCESS) fail("SCR_Have_restart");
    if (!have) fail("SCR_Have_restart offering a checkpoint");
    if (SCR_Start_restart(dset) != SCR_SUCCESS) fail("SCR_Start_restart");
    int c = 0;
    if (sscanf(dset, "ckpt.%d", &c) != 1)
        fail("SCR_Have_restart offering a checkpoint called ckpt.<k>");
    snprintf(name, sizeof(name), "ckpt.%d/rank%d.dat", c, rank);
    if (SCR_Route_file(name, path) != SCR_SUCCESS) fail("SCR_Route_file");
    int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, buf, bytes + 1) != (ssize_t)bytes || close(fd) != 0) fail(path);
    int valid = 1;
    for (size_t i = 0; i < bytes && valid; i++)
        if (buf[i] != byte_at(rank, c, i)) {
            fprintf(stderr, "bench_scale rank %d: byte %zu of %s differs\n", rank, i, path);
            valid = 0;
        }
    if (SCR_Complete_restart(valid) != SCR_SUCCESS || !valid) fail("SCR_Complete_restart");
    return c;
}

int main(int argc, char **argv)
{
    const char *run = NULL;
    long kib = 64, checkpoints = 4;
    static const struct option opts[] = {{"run", required_argument, NULL, 'r'},
                                         {"kib", required_argument, NULL, 'k'},
                                         {"checkpoints", required_argument, NULL, 'c'},
                                         {NULL, 0, NULL, 0}};
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) fail("MPI_Init");
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'r')
            run = optarg;
        else if (c == 'k')
            kib = atol(optarg);
        else if (c == 'c')
            checkpoints = atol(optarg);
        else
            fail("usage: bench_scale --run write|rebuild|fetch [--kib N] [--checkpoints C]");
    }
    if (run == NULL || kib < 1 || checkpoints < 1)
        fail("usage: bench_scale --run write|rebuild|fetch");
    size_t bytes = (size_t)kib * 1024;
    unsigned char *buf = malloc(bytes + 1);
    if (buf == NULL) fail("malloc");
    struct phase p;
    if (strcmp(run, "write") == 0) {
        phase_begin(&p);
        if (SCR_Init() != SCR_SUCCESS) fail("SCR_Init");
        phase_end(&p, "init_empty_cache");
        for (int k = 1; k <= checkpoints; k++) {
            char name[64];
            write_checkpoint(k, bytes, buf);
            phase_begin(&p);
            if (SCR_Complete_output(1) != SCR_SUCCESS) fail("SCR_Complete_output");
            snprintf(name, sizeof(name), "complete_checkpoint_%d", k);
            phase_end(&p, name);
        }
    } else if (strcmp(run, "rebuild") == 0 || strcmp(run, "fetch") == 0) {
        phase_begin(&p);
        if (SCR_Init() != SCR_SUCCESS) fail("SCR_Init");
        phase_end(&p, strcmp(run, "rebuild") == 0 ? "init_rebuild_lost_host"
                                                  : "init_fetch_from_prefix");
        int from = read_restart(bytes, buf);
        if (rank == 0) printf("restarted from checkpoint %d, every byte checked\n", from);
    } else {
        fail("--run write|rebuild|fetch");
    }
    phase_begin(&p);
    if (SCR_Finalize() != SCR_SUCCESS) fail("SCR_Finalize");
    phase_end(&p, strcmp(run, "write") == 0 ? "finalize" : "finalize_after_restart");
    free(buf);
    MPI_Finalize();
    return 0;
}
