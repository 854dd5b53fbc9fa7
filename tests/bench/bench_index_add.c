/* bench_index_add.c — scr-index --add of a dataset of many small ranks.
 *
 * Builds the dataset directory a scavenge of N ranks leaves on the prefix
 * (bench_dataset.h: a rank filemap and two 16-byte files per rank, XOR sets
 * of 8, no summary), then runs the command `scr-index --add` on it as a
 * child and takes its wall time and its peak resident memory (ru_maxrss of
 * wait4). It does so at N/4, N/2 and N ranks (default N = 100000), three
 * times each (the summary and index removed before each run; the best time
 * and the highest peak kept), with the page cache warm (the files were just
 * written), in $BENCH_DIR (default /dev/shm). Baselines measured in the same run: a walk that reads
 * every rank filemap and stats every file of the same directory, and the peak memory of `scr-index
 * --version` (the process alone). Prints time and memory per rank at each size, and their ratios to
 * the N/4 run: near 1 when the cost is linear in the ranks. No assertions on the figures.
 *
 *   tests/bench/bench_index_add [--index PATH] [RANKS]
 *   (run by `make bench-index-add`; PATH defaults to cli/scr-index) */
#include "bench_dataset.h"

/* Where the prefix goes: $BENCH_DIR, else /dev/shm, so that the figures
 * are the command's own work and not a shared disk's queue. */
static const char *bench_dir(void)
{
    const char *dir = getenv("BENCH_DIR");
    return dir && dir[0] ? dir : "/dev/shm";
}

struct size_run {
    int ranks;
    struct bench_child add;
    double walk;
};

static struct size_run measure(const char *index, int ranks)
{
    char prefix[PATH_BUF], dir[PATH_BUF], path[PATH_BUF];
    bench_path(prefix, "%s/bench-index-add.XXXXXX", bench_dir());
    if (mkdtemp(prefix) == NULL) bench_die("mkdtemp");
    bench_path(dir, "%s/.scr", prefix);
    if (mkdir(dir, 0700) != 0) bench_die(dir);
    bench_path(dir, "%s/.scr/scr.dataset.1", prefix);
    if (mkdir(dir, 0700) != 0) bench_die(dir);
    bench_build_dataset(dir, ranks);

    struct size_run s = {ranks, {1e30, 1e30, 0}, 1e30};
    char *argv[] = {(char *)index, "--add", dir, "--prefix", prefix, NULL};
    for (int i = 0; i < 3; i++) {
        bench_path(path, "%s/summary.scr", dir);
        unlink(path);
        bench_path(path, "%s/.scr/index.scr", prefix);
        unlink(path);
        double walk = bench_baseline(dir, ranks);
        struct bench_child r = bench_run_child(argv);
        if (walk < s.walk) s.walk = walk;
        if (r.seconds < s.add.seconds) s.add.seconds = r.seconds;
        if (r.cpu < s.add.cpu) s.add.cpu = r.cpu;
        if (r.maxrss_kib > s.add.maxrss_kib) s.add.maxrss_kib = r.maxrss_kib;
    }
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", prefix);
    if (system(cmd) != 0) bench_die(cmd);
    return s;
}

int main(int argc, char **argv)
{
    char program[PATH_BUF];
    const char *index = "cli/scr-index";
    int arg = 1;
    if (argc > 2 && strcmp(argv[1], "--index") == 0) {
        index = argv[2];
        arg = 3;
    }
    index = bench_program(index, program);
    int ranks = argc > arg ? atoi(argv[arg]) : 100000;
    if (ranks < 40) ranks = 40;
    char *version[] = {(char *)index, "--version", NULL};
    long base_kib = bench_run_child(version).maxrss_kib;

    struct size_run runs[3];
    int sizes[3] = {ranks / 4, ranks / 2, ranks};
    for (int i = 0; i < 3; i++) runs[i] = measure(index, sizes[i]);

    printf("scr-index --add of N ranks (2 files of 16 B each, XOR sets of 8) in %s, warm page "
           "cache, best of 3\n",
           bench_dir());
    printf("process alone (scr-index --version): peak RSS %.1f MiB\n", base_kib / 1024.0);
    printf("%8s %9s %9s %8s %9s %9s %10s %12s %13s %12s\n", "ranks", "add [s]", "cpu [s]",
           "us/rank", "walk [s]", "add/walk", "peak MiB", "KiB/rank", "us/rank vs", "KiB/rank vs");
    double us0 = 0, kib0 = 0;
    for (int i = 0; i < 3; i++) {
        const struct size_run *s = &runs[i];
        double us = s->add.seconds / s->ranks * 1e6;
        double kib = (double)(s->add.maxrss_kib - base_kib) / s->ranks;
        if (i == 0) {
            us0 = us;
            kib0 = kib;
        }
        printf("%8d %9.3f %9.3f %8.1f %9.3f %9.2f %10.1f %12.3f %12.2fx %12.2fx\n", s->ranks,
               s->add.seconds, s->add.cpu, us, s->walk, s->add.seconds / s->walk,
               s->add.maxrss_kib / 1024.0, kib, us / us0, kib0 > 0 ? kib / kib0 : 0.0);
    }
    printf("(add: wall time of the command; cpu: its user + system time; walk: read every rank "
           "filemap and stat\n"
           " every file, in this process; peak: ru_maxrss; KiB/rank: peak above the process alone; "
           "\"vs\": ratio\n"
           " to the %d-rank run)\n",
           sizes[0]);
    return 0;
}
