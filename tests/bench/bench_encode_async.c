/* bench_encode_async.c — what the background encode (SCR_ENCODE_ASYNC=1 with
 * MPI_THREAD_MULTIPLE) saves the application, and what it costs.
 *
 *   mpirun -np R bench_encode_async --thread single|multiple [--mib N] MODE
 *
 * --thread names the level asked of MPI_Init_thread: with single, libscr
 * applies the redundancy scheme inside SCR_Complete_checkpoint; with
 * multiple (and SCR_ENCODE_ASYNC=1, the default) it applies it in a thread
 * of its own after SCR_Complete_checkpoint returned. The scheme, the cache
 * and the log are the environment's (SCR_COPY_TYPE, SCR_SET_SIZE,
 * SCR_CACHE_SIZE, SCR_LOG_ENABLE=1: the encode events are read back from
 * $SCR_PREFIX/.scr/events.jsonl by rank 0). MODE is one of:
 *
 * --rounds K   K checkpoints of N MiB (default 256) per rank, each timed
 *              from SCR_Start_checkpoint until SCR_Complete_checkpoint
 *              returns (the slowest rank's time). Between two, outside the
 *              timing, the ranks call SCR_Need_checkpoint every 10 ms until
 *              the encode event of the last checkpoint is in the log, so
 *              that no checkpoint starts with an encode still running.
 *              Prints
 *                checkpoint BEST s  mean MEAN s  encode SECONDS s
 *                encodes COUNT background COUNT
 *                rss growth KIB KiB
 *              (the best of the K, their mean, the slowest encode the log
 *              records, how many encode events it has (of XOR, PARTNER or
 *              RS) and how many of them say "background":1, and the
 *              largest peak RSS of any rank above its own after SCR_Init,
 *              whose peak is reset then).
 *
 * --loop K     the compute-and-checkpoint loop of an application: K times
 *              { SCR_Need_checkpoint, SCR_Start_checkpoint, write N MiB,
 *              SCR_Complete_checkpoint, compute }, then SCR_Finalize, where
 *              compute is
 *                --gap S   a nanosleep of S seconds: the cores stay idle
 *                          (an application whose CPU waits on a device);
 *                --spin I  I iterations of integer arithmetic on every
 *                          rank: the cores are busy, the same work whatever
 *                          runs beside it.
 *              With --warmup W, W more checkpoints go first, untimed, and
 *              their encodes are let finish: the loop then runs as an
 *              application's does after its first checkpoints, its cache
 *              full and each checkpoint's memory taken from the one it
 *              evicts (a fresh page costs more than a reused one, on a VM
 *              whose host takes freed memory back, several times more).
 *              Prints the slowest rank's time in each part, summed over the
 *              loop, and the total (from the barrier before the loop until
 *              every rank returned from SCR_Finalize, which waits for the
 *              last encode):
 *                loop need S start S write S complete S compute S finalize S total S
 *                encodes COUNT sum S max S background COUNT
 *                rss growth KIB KiB
 *                cpu all S main S
 *              (the CPU seconds, user and system, of the processes, the
 *              library's threads included, and of the main threads alone,
 *              summed over the ranks).
 *
 * --calibrate S  (no libscr) every rank spins at once, in ten windows of
 *              0.1 s, and prints the iterations that take S seconds at the
 *              slowest rank's best rate: "spin ITERATIONS".
 *
 * Never judges a figure: run-bench-encode-async.sh does. */
#define _GNU_SOURCE
#include "scr.h"
#include "bench_app.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rank, ranks;
static long events_from; /* the log's size when counting began: older events are another run's or
                            the warm-up's */

static double max_over_ranks(double mine)
{
    double worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* "VmHWM" (the peak) or "VmRSS" (now) of this process, in KiB. */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    size_t n = strlen(field);
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, field, n) == 0 && line[n] == ':') kib = atol(line + n + 1);
    if (f != NULL) fclose(f);
    return kib;
}

/* From here on the peak counts: the peak RSS is reset to the RSS now
 * (Linux's clear_refs 5), so that what MPI_Init and SCR_Init once held and
 * freed does not hide what comes later. Returns the RSS now. */
static long reset_peak_rss(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd < 0 || write(fd, "5", 1) != 1) die("resetting the peak RSS (/proc/self/clear_refs)");
    close(fd);
    return status_kib("VmRSS");
}

/* CPU seconds (user + system) of the process (who = RUSAGE_SELF: every
 * thread, the library's included) or of the calling thread (RUSAGE_THREAD). */
static double cpu_seconds(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

/* The busy work: a chain of dependent multiply-adds the compiler cannot
 * fold, so that I iterations take the same time whatever the variant. */
static volatile uint64_t spin_sink;
static void spin(long iterations)
{
    uint64_t s = (uint64_t)rank + 1;
    for (long i = 0; i < iterations; i++) s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    spin_sink = s;
}

static void idle(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The prefix's event log, where the encode events are read back. */
static void events_path(char *path, size_t len)
{
    const char *prefix = getenv("SCR_PREFIX");
    snprintf(path, len, "%s/.scr/events.jsonl", prefix != NULL ? prefix : ".");
}

/* The encode events of this run that rank 0 finds in the log: their number,
 * how many ran in the background, and the largest and summed "seconds".
 * Broadcast to every rank. */
static int background_encodes;
static void encode_events(int *count, double *max, double *sum)
{
    double v[4] = {0, 0, 0, 0};
    if (rank == 0) {
        char path[4096];
        events_path(path, sizeof(path));
        FILE *f = fopen(path, "r");
        if (f != NULL && fseek(f, events_from, SEEK_SET) != 0) die(path);
        char line[8192];
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
            if (strstr(line, "\"event\":\"encode\"") == NULL) continue;
            if (strstr(line, "\"scheme\":\"SINGLE\"") != NULL) continue; /* no data moved */
            const char *s = strstr(line, "\"seconds\":");
            double secs = s != NULL ? atof(s + strlen("\"seconds\":")) : 0;
            v[0] += 1;
            if (secs > v[1]) v[1] = secs;
            v[2] += secs;
            v[3] += strstr(line, "\"background\":1") != NULL;
        }
        if (f != NULL) fclose(f);
    }
    MPI_Bcast(v, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    background_encodes = (int)v[3];
    *count = (int)v[0];
    *max = v[1];
    *sum = v[2];
}

/* Until the log has `want` encode events: concluded at SCR_Need_checkpoint,
 * as an application's next call would. Gives up after 120 s (no encode is
 * logged for SINGLE, nor without SCR_LOG_ENABLE=1). */
static void wait_for_encodes(int want)
{
    for (int i = 0; i < 12000; i++) {
        int n = 0, flag = 0;
        double mx = 0, sum = 0;
        encode_events(&n, &mx, &sum);
        if (n >= want) return;
        idle(0.01);
        if (SCR_Need_checkpoint(&flag) != SCR_SUCCESS) die("SCR_Need_checkpoint");
    }
}

static void checkpoint(long mib, const char *buf)
{
    char name[64], path[SCR_MAX_FILENAME];
    snprintf(name, sizeof(name), "bench/rank_%d.ckpt", rank);
    if (SCR_Route_file(name, path) != SCR_SUCCESS) die("SCR_Route_file");
    write_bytes(path, mib, buf);
}

static void rounds(int k, long mib, const char *buf, int wait)
{
    long rss_init = reset_peak_rss();
    double best = 1e30, sum = 0;
    for (int r = 0; r < k; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
        checkpoint(mib, buf);
        if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (t < best) best = t;
        sum += t;
        if (wait) wait_for_encodes(r + 1);
    }
    long growth = status_kib("VmHWM") - rss_init, most = 0;
    MPI_Allreduce(&growth, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    int n = 0;
    double mx = 0, esum = 0;
    encode_events(&n, &mx, &esum);
    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    if (rank == 0) {
        printf("checkpoint %.3f s  mean %.3f s  encode %.3f s\n", best, sum / k, mx);
        printf("encodes %d background %d\n", n, background_encodes);
        printf("rss growth %ld KiB\n", most);
    }
}

/* One turn of the loop: need, start, write, complete, compute; the seconds
 * of the parts in t[0..4] (added to). */
static void loop_turn(long mib, const char *buf, double gap, long iterations, double *t)
{
    int flag = 0;
    double a = MPI_Wtime();
    if (SCR_Need_checkpoint(&flag) != SCR_SUCCESS) die("SCR_Need_checkpoint");
    double b = MPI_Wtime();
    if (SCR_Start_checkpoint() != SCR_SUCCESS) die("SCR_Start_checkpoint");
    double c = MPI_Wtime();
    checkpoint(mib, buf);
    double d = MPI_Wtime();
    if (SCR_Complete_checkpoint(1) != SCR_SUCCESS) die("SCR_Complete_checkpoint");
    double e = MPI_Wtime();
    if (iterations > 0)
        spin(iterations);
    else
        idle(gap);
    double f = MPI_Wtime();
    t[0] += b - a;
    t[1] += c - b;
    t[2] += d - c;
    t[3] += e - d;
    t[4] += f - e;
}

/* The log's length now, at rank 0: encode_events counts from there on. */
static void events_from_now(void)
{
    if (rank != 0) return;
    char path[4096];
    struct stat st;
    events_path(path, sizeof(path));
    events_from = stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static void loop(int k, int warm, int encodes, long mib, const char *buf, double gap,
                 long iterations)
{
    double parts[5] = {0, 0, 0, 0, 0}, untimed[5] = {0, 0, 0, 0, 0};
    long rss_init = reset_peak_rss();
    for (int i = 0; i < warm; i++) loop_turn(mib, buf, gap, iterations, untimed);
    if (warm > 0 && encodes) wait_for_encodes(warm);
    events_from_now();
    MPI_Barrier(MPI_COMM_WORLD);
    double cpu_all = cpu_seconds(RUSAGE_SELF), cpu_main = cpu_seconds(RUSAGE_THREAD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < k; i++) loop_turn(mib, buf, gap, iterations, parts);
    int n = 0;
    double mx = 0, esum = 0;
    double a = MPI_Wtime();
    if (SCR_Finalize() != SCR_SUCCESS) die("SCR_Finalize");
    double t_finalize = MPI_Wtime() - a, t_total = MPI_Wtime() - t0;
    double cpu[2] = {cpu_seconds(RUSAGE_SELF) - cpu_all, cpu_seconds(RUSAGE_THREAD) - cpu_main},
           cpus[2];
    MPI_Allreduce(cpu, cpus, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    encode_events(&n, &mx, &esum); /* Finalize concluded the last encode */
    long growth = status_kib("VmHWM") - rss_init, most = 0;
    MPI_Allreduce(&growth, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    double t[7] = {parts[0], parts[1], parts[2], parts[3], parts[4], t_finalize, t_total}, w[7];
    MPI_Allreduce(t, w, 7, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("loop need %.3f start %.3f write %.3f complete %.3f compute %.3f finalize %.3f "
               "total %.3f\n",
               w[0], w[1], w[2], w[3], w[4], w[5], w[6]);
        printf("encodes %d sum %.3f max %.3f background %d\n", n, esum, mx, background_encodes);
        printf("rss growth %ld KiB\n", most);
        printf("cpu all %.3f main %.3f\n", cpus[0], cpus[1]);
    }
}

/* The iterations that take `seconds`: every rank spins in windows of about
 * 0.1 s for about 1 s, and the fastest window counts (other work on the
 * machine only ever slows a window down); the slowest rank's rate is used. */
static void calibrate(double seconds)
{
    long n = 1 << 20;
    double rate = 0, slowest = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int w = 0; w < 10; w++) {
        long done = 0;
        double t0 = MPI_Wtime(), t = 0;
        while ((t = MPI_Wtime() - t0) < 0.1) {
            spin(n);
            done += n;
        }
        if ((double)done / t > rate) rate = (double)done / t;
    }
    MPI_Allreduce(&rate, &slowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) printf("spin %ld\n", (long)(slowest * seconds));
}

int main(int argc, char **argv)
{
    bench_name = "bench_encode_async";
    const char *thread = NULL;
    long mib = 256, iterations = 0;
    int nrounds = 0, nloop = 0, nwarm = 0;
    double gap = 0, cal = 0;
    static const struct option opts[] = {{"thread", required_argument, NULL, 't'},
                                         {"mib", required_argument, NULL, 'm'},
                                         {"rounds", required_argument, NULL, 'r'},
                                         {"loop", required_argument, NULL, 'l'},
                                         {"warmup", required_argument, NULL, 'w'},
                                         {"gap", required_argument, NULL, 'g'},
                                         {"spin", required_argument, NULL, 's'},
                                         {"calibrate", required_argument, NULL, 'c'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 't')
            thread = optarg;
        else if (c == 'm')
            mib = atol(optarg);
        else if (c == 'r')
            nrounds = atoi(optarg);
        else if (c == 'l')
            nloop = atoi(optarg);
        else if (c == 'w')
            nwarm = atoi(optarg);
        else if (c == 'g')
            gap = atof(optarg);
        else if (c == 's')
            iterations = atol(optarg);
        else if (c == 'c')
            cal = atof(optarg);
        else
            return 1;
    }
    int multiple = thread != NULL && strcmp(thread, "multiple") == 0;
    if ((thread == NULL || (!multiple && strcmp(thread, "single") != 0)) && cal <= 0) {
        fprintf(stderr,
                "usage: bench_encode_async --thread single|multiple [--mib N] "
                "(--rounds K | --loop K [--warmup W] (--gap S | --spin I)) | --calibrate S\n");
        return 1;
    }
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (multiple && provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0) fprintf(stderr, "bench_encode_async: MPI gives no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (cal > 0) {
        calibrate(cal);
        MPI_Finalize();
        return 0;
    }
    char *buf = malloc(CHUNK);
    if (buf == NULL) die("malloc");
    for (int i = 0; i < CHUNK; i++) buf[i] = (char)(i * 31 + rank);

    events_from_now();
    MPI_Barrier(MPI_COMM_WORLD);
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init");
    const char *type = getenv("SCR_COPY_TYPE");
    int single_type = type != NULL && strcasecmp(type, "SINGLE") == 0;
    if (nrounds > 0)
        rounds(nrounds, mib, buf, multiple && !single_type);
    else if (nloop > 0)
        loop(nloop, nwarm, multiple && !single_type, mib, buf, gap, iterations);
    else if (SCR_Finalize() != SCR_SUCCESS)
        die("SCR_Finalize");
    free(buf);
    MPI_Finalize();
    return 0;
}
