/* bench_flush_async.c — what the background flush (SCR_FLUSH_ASYNC=1) costs
 * the application, and how well it keeps to its limits.
 *
 *   mpirun -np 2 bench_flush_async [--mib N] [--ckpts K] [--gap SECONDS] [--wait-flushed]
 * [--overlap] bench_flush_async --watch TRANSFER_FILE        (no MPI)
 *
 * The first form is the application: each rank writes K checkpoints of N
 * MiB (default 256, K 5), with a compute gap of SECONDS (a sleep, default
 * 3) between two, ending with SCR_Need_checkpoint, which concludes a
 * background flush that has landed. --wait-flushed makes the gap long
 * enough for the flush to land: after SECONDS the application goes on
 * computing, calling SCR_Need_checkpoint every 20 ms, until the prefix's
 * event log (SCR_LOG_ENABLE=1) has a flush event for every checkpoint so
 * far. Whether a checkpoint is flushed, and how, is the environment's
 * (SCR_FLUSH, SCR_FLUSH_ASYNC, ...). Rank 0 prints a line per checkpoint
 * and one per gap,
 *
 *   ckpt I complete SECONDS end MONO write SECONDS call SECONDS
 *   gap I conclude SECONDS extra SECONDS
 *
 * where complete is the slowest rank's time from SCR_Start_checkpoint to
 * SCR_Complete_checkpoint returning, end the CLOCK_MONOTONIC second at which
 * rank 0's SCR_Complete_checkpoint returned, write and call the slowest
 * rank's time to start the checkpoint and write its file and that of the
 * SCR_Complete_checkpoint call alone, conclude the slowest rank's last
 * SCR_Need_checkpoint of the gap after checkpoint I and extra how much
 * longer than SECONDS the gap was before that call (the last checkpoint has
 * no gap: SCR_Finalize waits for its flush, if any).
 *
 * --overlap then writes one checkpoint more and, once every rank has
 * written its files and computed for half a second more, while the flush of
 * the previous one still runs, takes the peak resident memory (at the mark
 * MONO):
 *
 *   overlap MONO
 *
 * and then completes it. Then, for every rank, its peak RSS after SCR_Init
 * and at the overlap (at the end of the run when there is no --overlap),
 * and the largest growth between the two of any rank:
 *
 *   rss rank R init KIB peak KIB
 *   rss growth KIB
 *
 * The last line is `finalize SECONDS`, the slowest rank's SCR_Finalize.
 *
 * The second form watches a node's transfer file (transfer_file.h), as
 * another process would, and prints the CLOCK_MONOTONIC second at which a
 * flush's list appeared and at which FLAG DONE did, with what the file
 * holds then (bytes listed, the BW and PERCENT limits):
 *
 *   start MONO
 *   done MONO BYTES BW PERCENT
 *
 * It stats the file every 2 ms and reads it (under the shared lock) only
 * when it was replaced; it runs until it is killed. A separate process, not
 * a thread of rank 0: the file's fcntl locks belong to the process, and a
 * thread of the flushing process that closed the file would drop the flush
 * thread's lock. Neither form judges a figure: run-bench-flush-async.sh
 * does, against the targets. */
#define _GNU_SOURCE
#include "scr.h"
#include "bench_app.h"
#include "transfer_file.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rank, ranks;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* --- the watcher ------------------------------------------------------------ */

_Noreturn static void watch(const char *path)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct stat last = {0};
    int state = -1; /* -1 nothing seen, 0 a flush listed, 1 DONE */
    for (;;) {
        struct stat st;
        if (stat(path, &st) == 0 &&
            (st.st_ino != last.st_ino || st.st_mtim.tv_sec != last.st_mtim.tv_sec ||
             st.st_mtim.tv_nsec != last.st_mtim.tv_nsec || st.st_size != last.st_size)) {
            double seen = mono();
            last = st;
            scr_kvtree *t = scr_kvtree_new();
            int done = 0;
            if (t != NULL && scr_transfer_file_read(path, t) == SCR_SUCCESS &&
                scr_transfer_file_is_done(t, &done) == SCR_SUCCESS) {
                const char **src = NULL;
                int n = 0;
                if (scr_transfer_file_list_sources(t, &src, &n) == SCR_SUCCESS && n > 0) {
                    if (!done && state != 0) printf("start %.6f\n", seen);
                    if (done && state != 1) {
                        unsigned long long bytes = 0;
                        for (int i = 0; i < n; i++) {
                            uint64_t size = 0;
                            if (scr_transfer_file_get_size(t, src[i], &size) == SCR_SUCCESS)
                                bytes += size;
                        }
                        double bw = 0, percent = 0;
                        scr_transfer_file_get_bw(t, &bw);
                        scr_transfer_file_get_percent(t, &percent);
                        printf("done %.6f %llu %.0f %.1f\n", seen, bytes, bw, percent);
                    }
                    state = done;
                }
                free(src);
            }
            scr_kvtree_delete(t);
        }
        sleep_seconds(0.002);
    }
}

/* --- the application ---------------------------------------------------------- */

/* Seconds the slowest rank spent since start (after a barrier). */
static double slowest(double start)
{
    double mine = MPI_Wtime() - start, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static long my_peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Flush events in the prefix's event log (SCR_LOG_ENABLE=1): every flush
 * concluded so far. Read by rank 0 between API calls, when the library
 * holds no lock of the file. */
static int count_flush_events(void)
{
    const char *prefix = getenv("SCR_PREFIX");
    char path[4096], line[8192];
    snprintf(path, sizeof(path), "%s/.scr/events.jsonl", prefix != NULL ? prefix : ".");
    FILE *f = fopen(path, "r");
    int n = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strstr(line, "\"event\":\"flush\"") != NULL) n++;
    if (f != NULL) fclose(f);
    return n;
}

/* Start a checkpoint and write this rank's file of it. */
static void write_checkpoint(long mib, const char *buf)
{
    char name[64], path[SCR_MAX_FILENAME];
    snprintf(name, sizeof(name), "bench/rank_%d.ckpt", rank);
    if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
    if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
    write_bytes(path, mib, buf);
}

int main(int argc, char **argv)
{
    bench_name = "bench_flush_async";
    long mib = 256;
    int ckpts = 5, overlap = 0, wait_flushed = 0;
    double gap = 3;
    const char *watch_path = NULL;
    static const struct option opts[] = {{"mib", required_argument, NULL, 'm'},
                                         {"ckpts", required_argument, NULL, 'k'},
                                         {"gap", required_argument, NULL, 'g'},
                                         {"overlap", no_argument, NULL, 'o'},
                                         {"wait-flushed", no_argument, NULL, 'f'},
                                         {"watch", required_argument, NULL, 'w'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'm')
            mib = atol(optarg);
        else if (c == 'k')
            ckpts = atoi(optarg);
        else if (c == 'g')
            gap = atof(optarg);
        else if (c == 'o')
            overlap = 1;
        else if (c == 'f')
            wait_flushed = 1;
        else if (c == 'w')
            watch_path = optarg;
        else {
            fprintf(stderr, "usage: bench_flush_async [--mib N] [--ckpts K] [--gap S] "
                            "[--wait-flushed] [--overlap]\n"
                            "       bench_flush_async --watch FILE\n");
            return 1;
        }
    }
    if (watch_path != NULL) watch(watch_path);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    char *buf = malloc(CHUNK);
    if (buf == NULL) die("malloc");
    for (int i = 0; i < CHUNK; i++) buf[i] = (char)(i * 31 + rank);

    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    long rss_init = my_peak_rss_kib();
    for (int i = 1; i <= ckpts; i++) {
        if (i > 1) {
            /* the application computes; then asks whether to checkpoint,
             * which concludes the flush that has landed meanwhile; with
             * --wait-flushed it goes on computing, asking every 20 ms,
             * until the flush of every checkpoint so far is concluded */
            sleep_seconds(gap);
            double t_end = mono(), conclude = 0;
            for (;;) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                int flag = 0;
                if (SCR_Need_checkpoint(&flag) != SCR_SUCCESS) die("SCR_Need_checkpoint");
                conclude = slowest(t0);
                int flushes = rank == 0 && wait_flushed ? count_flush_events() : 0;
                MPI_Bcast(&flushes, 1, MPI_INT, 0, MPI_COMM_WORLD);
                if (!wait_flushed || flushes >= i - 1) break;
                if (mono() - t_end > 120) {
                    errno = ETIMEDOUT;
                    die("waiting 120 s for a flush event");
                }
                sleep_seconds(0.02);
            }
            if (rank == 0)
                printf("gap %d conclude %.6f extra %.6f\n", i - 1, conclude,
                       mono() - t_end - conclude);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        write_checkpoint(mib, buf);
        double t1 = MPI_Wtime();
        if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
        double end = mono();
        double t = slowest(t0);
        double parts[2] = {t1 - t0, MPI_Wtime() - t1}, worst[2];
        MPI_Reduce(parts, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("ckpt %d complete %.6f end %.6f write %.6f call %.6f\n", i, t, end, worst[0],
                   worst[1]);
        fflush(stdout);
    }
    long rss_peak = 0;
    if (overlap) {
        /* the next checkpoint's files, written while the last one is flushed */
        MPI_Barrier(MPI_COMM_WORLD);
        write_checkpoint(mib, buf);
        sleep_seconds(0.5); /* and computes a little (the flush thread gets going) */
        rss_peak = my_peak_rss_kib();
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) printf("overlap %.6f\n", mono());
        if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    double t_fin = slowest(t0);
    if (!overlap) rss_peak = my_peak_rss_kib();
    long mine[2] = {rss_init, rss_peak}, *all = malloc(sizeof(mine) * (size_t)ranks);
    if (all == NULL) die("malloc");
    MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long most = 0;
        for (int r = 0; r < ranks; r++) {
            printf("rss rank %d init %ld peak %ld\n", r, all[2 * r], all[2 * r + 1]);
            if (all[2 * r + 1] - all[2 * r] > most) most = all[2 * r + 1] - all[2 * r];
        }
        printf("rss growth %ld\n", most);
        printf("finalize %.6f\n", t_fin);
    }
    free(all);
    free(buf);
    MPI_Finalize();
    return 0;
}
