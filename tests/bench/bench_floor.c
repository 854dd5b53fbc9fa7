/* bench_floor.c — the best each redundancy scheme could do on this machine:
 * the bare work it cannot avoid, timed with every rank doing it at once.
 *
 *   scr-sim-run -n 4 -N 4 bench_floor [--mib B] [--dir DIR]
 *
 * Run as the scheme runs of run-bench-scr.sh are (4 ranks as 4 nodes), each
 * rank with B MiB (default 256) in its own directory under DIR (default
 * /dev/shm), moved in pieces of 256 KiB (SCR_MPI_BUF_SIZE's default) with 4 in
 * flight each way (what libscr keeps with its 4 MB file buffer). No libscr
 * call but its XOR and RS kernels: only files, memory and MPI.
 *
 * Primitives, each the slowest rank's time between barriers, best of 3:
 *   write     B into a fresh file: the application's own write, which is all
 *             that SINGLE costs (the ratios below are to this time);
 *   pread     B back from that file (a scheme must read what it protects);
 *   exchange  B to the right neighbour while B comes from the left, from
 *             memory to memory (the least a copy to another node costs);
 *   write2    B into another fresh file while the first is still there (the
 *             redundancy data lands in fresh pages too).
 * A scheme's floor (model) is write / (write + the primitives it must add):
 *   PARTNER   pread B, send and receive B, write B:
 *             write / (write + pread + exchange + write2)
 *   XOR N=4   pread B, pass B on the ring (N-1 steps of B/(N-1)), write B/(N-1)
 *             (the XOR itself runs on pieces in cache and is left out):
 *             write / (write + pread + exchange + write2/3)
 *   RS N=4, k=2  pread B, pass k*B on the ring and spread (k-1) parity blocks
 *             of B/(N-k), write k*B/(N-k) = B (the Galois-field encode left out):
 *             write / (write + pread + 2.5*exchange + write2)
 * With more ranks than cores and a tmpfs cache all of these compete for the
 * same CPUs and memory bandwidth, so their sum is what a rank waits for;
 * nothing in libscr can make one of them cheaper.
 *
 * The model adds phases that a real scheme overlaps, so each scheme is also
 * timed composed (bare): the write, then the pipelined pread + send + receive
 * + encode + write of libscr's stream, XOR ring and RS ring (same order of
 * messages, same pieces in flight, libscr's XOR and RS kernels), with
 * nothing else (no records, no filemap, no header, no CRC). Its ratio
 * write / (write + scheme) is the floor measured rather than modelled. On a
 * machine with fewer cores than ranks it comes out below the model: ranks
 * that wait for a neighbour yield in MPI_Wait and the pieces go through
 * memory rather than cache. The model is then the bound (each part timed at
 * its cheapest), the bare figure what a pipelined design like libscr's
 * reaches here.
 *
 * The XOR and RS sets are all the ranks (RS with k = 2 parity blocks).
 * Prints the primitives and lines "  floor SCHEME model R bare R" that
 * run-bench-scr.sh reads; never fails on a figure. */
#define _GNU_SOURCE
#include "erasure_rs.h"
#include "erasure_xor.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE ((size_t)256 << 10) /* SCR_MPI_BUF_SIZE's default */
#define DEPTH 4                   /* pieces in flight each way, as libscr keeps */
#define ROUNDS 3
#define RS_K 2 /* parity blocks of the RS set (of all ranks), as in run-bench-scr.sh */
#define TAG 77

static int rank, ranks;

static void die(const char *what)
{
    fprintf(stderr, "bench_floor rank %d: %s failed: %s\n", rank, what, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void mpi_ok(int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return;
    fprintf(stderr, "bench_floor rank %d: %s failed (MPI error %d)\n", rank, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void *alloc_pages(size_t len)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, len) != 0) die("posix_memalign");
    memset(p, 0, len);
    return p;
}

static int create_fresh(const char *path)
{
    unlink(path); /* new pages, as a new checkpoint's files get */
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die(path);
    return fd;
}

static void pwrite_all(int fd, const char *buf, size_t len, off_t off, const char *path)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, buf, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die(path);
        buf += n, len -= (size_t)n, off += n;
    }
}

static void pread_all(int fd, char *buf, size_t len, off_t off, const char *path)
{
    while (len > 0) {
        ssize_t n = pread(fd, buf, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die(path);
        buf += n, len -= (size_t)n, off += n;
    }
}

/* The application's write: bytes into a fresh file, a piece per write(). */
static int write_fresh(const char *path, uint64_t bytes, const char *piece_buf)
{
    int fd = create_fresh(path);
    for (uint64_t off = 0; off < bytes; off += PIECE) {
        size_t len = bytes - off < PIECE ? (size_t)(bytes - off) : PIECE;
        pwrite_all(fd, piece_buf, len, (off_t)off, path);
    }
    return fd;
}

static void read_back(int fd, uint64_t bytes, char *piece_buf, const char *path)
{
    for (uint64_t off = 0; off < bytes; off += PIECE) {
        size_t len = bytes - off < PIECE ? (size_t)(bytes - off) : PIECE;
        pread_all(fd, piece_buf, len, (off_t)off, path);
    }
}

static size_t piece_len(uint64_t bytes, uint64_t i)
{
    uint64_t off = i * PIECE;
    return bytes - off < PIECE ? (size_t)(bytes - off) : PIECE;
}

/* bytes to the right neighbour while as many come from the left, DEPTH pieces
 * in flight each way, step i sending piece i and taking in piece i-1 (as
 * libscr's stream does). Read from src_fd and written to dst_fd when they
 * are >= 0; memory to memory otherwise. */
static void ring_stream(int src_fd, const char *src, int dst_fd, const char *dst, uint64_t bytes,
                        char *sendbuf, char *recvbuf)
{
    int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;
    uint64_t n = (bytes + PIECE - 1) / PIECE;
    MPI_Request sreq[DEPTH], rreq[DEPTH];
    for (int j = 0; j < DEPTH; j++) sreq[j] = rreq[j] = MPI_REQUEST_NULL;
    for (uint64_t r = 0; r < n && r < DEPTH; r++)
        mpi_ok(MPI_Irecv(recvbuf + r * PIECE, (int)piece_len(bytes, r), MPI_BYTE, left, TAG,
                         MPI_COMM_WORLD, &rreq[r]),
               "MPI_Irecv");
    for (uint64_t i = 0; i <= n; i++) {
        if (i < n) {
            int j = (int)(i % DEPTH);
            char *sb = sendbuf + (size_t)j * PIECE;
            mpi_ok(MPI_Wait(&sreq[j], MPI_STATUS_IGNORE), "MPI_Wait");
            if (src_fd >= 0) pread_all(src_fd, sb, piece_len(bytes, i), (off_t)(i * PIECE), src);
            mpi_ok(MPI_Isend(sb, (int)piece_len(bytes, i), MPI_BYTE, right, TAG, MPI_COMM_WORLD,
                             &sreq[j]),
                   "MPI_Isend");
        }
        if (i == 0) continue;
        uint64_t r = i - 1;
        int j = (int)(r % DEPTH);
        char *rb = recvbuf + (size_t)j * PIECE;
        mpi_ok(MPI_Wait(&rreq[j], MPI_STATUS_IGNORE), "MPI_Wait");
        if (dst_fd >= 0) pwrite_all(dst_fd, rb, piece_len(bytes, r), (off_t)(r * PIECE), dst);
        if (r + DEPTH < n)
            mpi_ok(MPI_Irecv(rb, (int)piece_len(bytes, r + DEPTH), MPI_BYTE, left, TAG,
                             MPI_COMM_WORLD, &rreq[j]),
                   "MPI_Irecv");
    }
    mpi_ok(MPI_Waitall(DEPTH, sreq, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

/* libscr's XOR ring reduce-scatter, bare: the data of src_fd is N-1 chunks of
 * chunk bytes in slots other than this rank's own; in step t each rank adds
 * its chunk of slot (rank-t-1) to what came from the left and passes it right,
 * in groups of DEPTH pieces; what arrives last is this rank's slot, written to
 * dst_fd. */
static void xor_ring(int src_fd, const char *src, int dst_fd, const char *dst, uint64_t chunk,
                     char *sendbuf, char *recvbuf)
{
    int N = ranks, right = (rank + 1) % N, left = (rank + N - 1) % N;
    MPI_Request sreq[DEPTH], rreq[DEPTH];
    for (int j = 0; j < DEPTH; j++) sreq[j] = rreq[j] = MPI_REQUEST_NULL;
    for (uint64_t p0 = 0; p0 < chunk; p0 += (uint64_t)DEPTH * PIECE) {
        int n = (int)((chunk - p0 + PIECE - 1) / PIECE);
        if (n > DEPTH) n = DEPTH;
        for (int t = 0; t < N - 1; t++) {
            int slot = ((rank - t - 1) % N + N) % N;
            uint64_t base =
                (uint64_t)(slot < rank ? slot : slot - 1) * chunk; /* no chunk in one's own slot */
            for (int g = 0; g < n; g++) {
                uint64_t off = p0 + (uint64_t)g * PIECE;
                size_t len = chunk - off < PIECE ? (size_t)(chunk - off) : PIECE;
                char *sb = sendbuf + (size_t)g * PIECE, *rb = recvbuf + (size_t)g * PIECE;
                mpi_ok(MPI_Wait(&sreq[g], MPI_STATUS_IGNORE), "MPI_Wait");
                pread_all(src_fd, sb, len, (off_t)(base + off), src);
                if (t > 0) {
                    mpi_ok(MPI_Wait(&rreq[g], MPI_STATUS_IGNORE), "MPI_Wait");
                    scr_xor_accumulate(sb, rb, len);
                }
                mpi_ok(MPI_Irecv(rb, (int)len, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &rreq[g]),
                       "MPI_Irecv");
                mpi_ok(MPI_Isend(sb, (int)len, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &sreq[g]),
                       "MPI_Isend");
            }
        }
        for (int g = 0; g < n; g++) {
            uint64_t off = p0 + (uint64_t)g * PIECE;
            size_t len = chunk - off < PIECE ? (size_t)(chunk - off) : PIECE;
            mpi_ok(MPI_Wait(&rreq[g], MPI_STATUS_IGNORE), "MPI_Wait");
            pwrite_all(dst_fd, recvbuf + (size_t)g * PIECE, len, (off_t)off, dst);
        }
    }
    mpi_ok(MPI_Waitall(DEPTH, sreq, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

/* All k requests of one piece. */
static void wait_all(int k, MPI_Request *reqs)
{
    mpi_ok(MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

/* libscr's Reed-Solomon ring, bare: the data of src_fd is d = N-k chunks of
 * chunk bytes; in step t each rank adds the share of its chunk t to the k
 * accumulators that came from the left and passes them right, in groups of
 * DEPTH pieces, two sets of accumulators per piece (one arriving, one worked
 * on); what arrives last is this rank's stripe parity: block 0 is written
 * to dst_fd and block j goes to the rank j to the right, which writes it at
 * j * chunk. */
static void rs_ring(const scr_rs_code *code, int src_fd, const char *src, int dst_fd,
                    const char *dst, uint64_t chunk, char *readbuf, char *acc)
{
    int N = ranks, k = code->nparity, d = code->ndata, right = (rank + 1) % N,
        left = (rank + N - 1) % N;
    MPI_Request
        reqs[2 * DEPTH * SCR_RS_MAX_BLOCKS]; /* piece g: sends at g*k, receives at (DEPTH+g)*k */
    for (int i = 0; i < 2 * DEPTH * k; i++) reqs[i] = MPI_REQUEST_NULL;
#define ACC(set, g, j) (acc + ((size_t)((set)*DEPTH + (g)) * (size_t)k + (size_t)(j)) * PIECE)
    for (uint64_t p0 = 0; p0 < chunk; p0 += (uint64_t)DEPTH * PIECE) {
        int n = (int)((chunk - p0 + PIECE - 1) / PIECE);
        if (n > DEPTH) n = DEPTH;
        for (int t = 0; t < d; t++) {
            for (int g = 0; g < n; g++) {
                uint64_t off = p0 + (uint64_t)g * PIECE;
                size_t len = chunk - off < PIECE ? (size_t)(chunk - off) : PIECE;
                MPI_Request *sreq = reqs + g * k, *rreq = reqs + (DEPTH + g) * k;
                char *work[SCR_RS_MAX_BLOCKS], *in = readbuf + (size_t)g * PIECE;
                for (int j = 0; j < k; j++) work[j] = ACC(t % 2, g, j);
                pread_all(src_fd, in, len, (off_t)((uint64_t)t * chunk + off), src);
                if (t == 0)
                    for (int j = 0; j < k; j++) memset(work[j], 0, len);
                else
                    wait_all(k, rreq);
                if (scr_rs_encode_update(code, len, t, in, (void *const *)work) != 0)
                    die("scr_rs_encode_update");
                wait_all(k, sreq);
                for (int j = 0; j < k; j++)
                    mpi_ok(MPI_Irecv(ACC((t + 1) % 2, g, j), (int)len, MPI_BYTE, left, TAG + 1 + j,
                                     MPI_COMM_WORLD, &rreq[j]),
                           "MPI_Irecv");
                for (int j = 0; j < k; j++)
                    mpi_ok(MPI_Isend(work[j], (int)len, MPI_BYTE, right, TAG + 1 + j,
                                     MPI_COMM_WORLD, &sreq[j]),
                           "MPI_Isend");
            }
        }
        for (int g = 0; g < n; g++) {
            uint64_t off = p0 + (uint64_t)g * PIECE;
            size_t len = chunk - off < PIECE ? (size_t)(chunk - off) : PIECE;
            MPI_Request *sreq = reqs + g * k, *rreq = reqs + (DEPTH + g) * k;
            wait_all(k, rreq);
            wait_all(k, sreq);
            pwrite_all(dst_fd, ACC(d % 2, g, 0), len, (off_t)off, dst);
            for (int j = 1; j < k; j++)
                mpi_ok(MPI_Irecv(ACC((d + 1) % 2, g, j), (int)len, MPI_BYTE, (rank + N - j) % N,
                                 TAG, MPI_COMM_WORLD, &rreq[j]),
                       "MPI_Irecv");
            for (int j = 1; j < k; j++)
                mpi_ok(MPI_Isend(ACC(d % 2, g, j), (int)len, MPI_BYTE, (rank + j) % N, TAG,
                                 MPI_COMM_WORLD, &sreq[j]),
                       "MPI_Isend");
        }
        for (int g = 0; g < n; g++) {
            uint64_t off = p0 + (uint64_t)g * PIECE;
            size_t len = chunk - off < PIECE ? (size_t)(chunk - off) : PIECE;
            wait_all(k, reqs + (DEPTH + g) * k);
            for (int j = 1; j < k; j++)
                pwrite_all(dst_fd, ACC((d + 1) % 2, g, j), len, (off_t)((uint64_t)j * chunk + off),
                           dst);
            wait_all(k, reqs + g * k);
        }
    }
#undef ACC
}

/* Seconds the slowest rank spent since start (taken after a barrier). */
static double slowest(double start)
{
    double mine = MPI_Wtime() - start, worst = 0;
    mpi_ok(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return worst;
}

static double start_together(void)
{
    mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    return MPI_Wtime();
}

static void keep_best(double *best, double t)
{
    if (t < *best) *best = t;
}

static void close_file(int fd, const char *path)
{
    if (close(fd) != 0) die(path);
}

/* rank 0 makes DIR/bench_floor.XXXXXX, every rank its own rank<r> in it */
static void make_rank_dir(const char *base, char *top, char *mine, size_t size)
{
    if (strlen(base) + 64 > size) {
        errno = ENAMETOOLONG;
        die(base);
    }
    if (rank == 0) {
        snprintf(top, size, "%s/bench_floor.XXXXXX", base);
        if (mkdtemp(top) == NULL) die(top);
    }
    mpi_ok(MPI_Bcast(top, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    if (snprintf(mine, size, "%s/rank%d", top, rank) >= (int)size) die("snprintf");
    if (mkdir(mine, 0700) != 0) die(mine);
}

int main(int argc, char **argv)
{
    mpi_ok(MPI_Init(&argc, &argv), "MPI_Init");
    mpi_ok(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    mpi_ok(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
    long mib = 256;
    const char *base = "/dev/shm";
    static const struct option opts[] = {{"mib", required_argument, NULL, 'm'},
                                         {"dir", required_argument, NULL, 'd'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'm')
            mib = atol(optarg);
        else if (c == 'd')
            base = optarg;
        else
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (mib < 1) {
        if (rank == 0) fprintf(stderr, "bench_floor: --mib must be at least 1\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t bytes = (uint64_t)mib << 20;

    char top[PATH_MAX], dir[PATH_MAX], data[PATH_MAX + 16], copy[PATH_MAX + 16];
    make_rank_dir(base, top, dir, sizeof(top));
    snprintf(data, sizeof(data), "%s/data", dir);
    snprintf(copy, sizeof(copy), "%s/copy", dir);

    char *piece_buf = alloc_pages(PIECE);
    for (size_t i = 0; i < PIECE; i++) piece_buf[i] = (char)(i * 31 + (size_t)rank);
    char *sendbuf = alloc_pages(DEPTH * PIECE), *recvbuf = alloc_pages(DEPTH * PIECE);
    /* RS: N-k data chunks, two sets of k accumulators for every piece in flight */
    int with_rs = ranks > RS_K;
    scr_rs_code code = {0};
    if (with_rs && scr_rs_init(&code, ranks - RS_K, RS_K) != 0) die("scr_rs_init");
    char *acc = with_rs ? alloc_pages(2 * DEPTH * RS_K * PIECE) : NULL;
    uint64_t rs_chunk =
        with_rs ? (bytes + (uint64_t)(ranks - RS_K) - 1) / (uint64_t)(ranks - RS_K) : 0;

    double t_write = 1e30, t_read = 1e30, t_xfer = 1e30, t_write2 = 1e30, t_partner = 1e30,
           t_xor = 1e30, t_rs = 1e30;
    /* the XOR ring covers the data in N-1 chunks (the last padded), one set of all ranks */
    uint64_t chunk = ranks > 1 ? (bytes + (uint64_t)ranks - 2) / (uint64_t)(ranks - 1) : bytes;
    for (int round = 0; round < ROUNDS; round++) {
        double t0 = start_together();
        int fd = write_fresh(data, bytes, piece_buf);
        keep_best(&t_write, slowest(t0));

        t0 = start_together();
        read_back(fd, bytes, piece_buf, data);
        keep_best(&t_read, slowest(t0));

        t0 = start_together();
        ring_stream(-1, NULL, -1, NULL, bytes, sendbuf, recvbuf);
        keep_best(&t_xfer, slowest(t0));

        t0 = start_together();
        close_file(write_fresh(copy, bytes, piece_buf), copy);
        keep_best(&t_write2, slowest(t0));
        close_file(fd, data);

        /* PARTNER, bare: write, then stream it to the right, keep the left's */
        t0 = start_together();
        fd = write_fresh(data, bytes, piece_buf);
        int cfd = create_fresh(copy);
        ring_stream(fd, data, cfd, copy, bytes, sendbuf, recvbuf);
        keep_best(&t_partner, slowest(t0));
        close_file(cfd, copy);
        close_file(fd, data);

        /* XOR, bare: write (padded to N-1 whole chunks), then the ring */
        t0 = start_together();
        fd = write_fresh(data, chunk * (uint64_t)(ranks - 1), piece_buf);
        cfd = create_fresh(copy);
        if (ranks > 1) xor_ring(fd, data, cfd, copy, chunk, sendbuf, recvbuf);
        keep_best(&t_xor, slowest(t0));
        close_file(cfd, copy);
        close_file(fd, data);
        if (unlink(copy) != 0 || unlink(data) != 0) die("unlink");

        /* RS, bare: write (padded to N-k whole chunks), then the ring */
        if (!with_rs) continue;
        t0 = start_together();
        fd = write_fresh(data, rs_chunk * (uint64_t)(ranks - RS_K), piece_buf);
        cfd = create_fresh(copy);
        rs_ring(&code, fd, data, cfd, copy, rs_chunk, sendbuf, acc);
        keep_best(&t_rs, slowest(t0));
        close_file(cfd, copy);
        close_file(fd, data);
        if (unlink(copy) != 0 || unlink(data) != 0) die("unlink");
    }

    if (rmdir(dir) != 0) die(dir);
    mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == 0 && rmdir(top) != 0) die(top);

    if (rank == 0) {
        double w = t_write;
        printf("bench_floor: bare work of %d ranks x %ld MiB at once, pieces of 256 KiB, %d in "
               "flight\n",
               ranks, mib, DEPTH);
        printf("  write     %7.3f s   (into a fresh file: the application's write, SINGLE)\n",
               t_write);
        printf("  pread     %7.3f s   (read back)\n", t_read);
        printf("  exchange  %7.3f s   (to the right neighbour, from the left, memory to memory)\n",
               t_xfer);
        printf("  write2    %7.3f s   (into a second fresh file)\n", t_write2);
        printf("  PARTNER   %7.3f s   (write, then pread + send + receive + write, pipelined)\n",
               t_partner);
        if (ranks > 1)
            printf("  XOR       %7.3f s   (write, then the ring of a set of %d, pipelined)\n",
                   t_xor, ranks);
        if (with_rs)
            printf("  RS        %7.3f s   (write, then the ring of a set of %d, k=%d, pipelined)\n",
                   t_rs, ranks, RS_K);
        double partner = w / (w + t_read + t_xfer + t_write2);
        double xor = w / (w + t_read + t_xfer + t_write2 / (ranks > 1 ? ranks - 1 : 1));
        /* RS passes k blocks of B on the ring, spreads k-1 parity blocks of
         * B/(N-k) and writes k*B/(N-k) */
        int d = ranks > RS_K ? ranks - RS_K : 1;
        double rs = w / (w + t_read + (RS_K + (double)(RS_K - 1) / d) * t_xfer +
                         (double)RS_K / d * t_write2);
        printf("  floor PARTNER model %.2f bare %.2f\n", partner, w / t_partner);
        if (ranks > 1) printf("  floor XOR model %.2f bare %.2f\n", xor, w / t_xor);
        if (with_rs) printf("  floor RS model %.2f bare %.2f\n", rs, w / t_rs);
    }
    free(piece_buf);
    free(sendbuf);
    free(recvbuf);
    free(acc);
    scr_rs_free(&code);
    mpi_ok(MPI_Finalize(), "MPI_Finalize");
    return 0;
}
