/* bench_dataset.h — what the benchmarks of the commands share: a dataset
 * directory of many small ranks, as a scavenge
 * leaves it on the prefix (for the scan and scr-index --add), running a
 * command as a child, the clock, the error exit.
 *
 * bench_build_dataset(dir, N) writes, for each rank r of N, the rank
 * filemap <dir>/<r>.scrfilemap of dataset 1 (ckpt.1, a checkpoint) naming
 * two 16-byte files in dir: r.dat and its XOR file (sets of 8 consecutive
 * ranks), with sizes and no CRC. bench_baseline(dir, N) does the least any
 * scan of it must: read every rank filemap and stat every file.
 * bench_run_child runs a command (bench_program: the binary behind a
 * libtool wrapper) and returns its wall time, CPU time and peak memory. Header-only (static
 * inline): each benchmark is one program. */
#ifndef SCR_BENCH_DATASET_H
#define SCR_BENCH_DATASET_H

#include "dataset.h"
#include "kvtree_file.h"
#include "meta.h"
#include "rank_filemap.h"
#include "scr_err.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void bench_die(const char *what)
{
    perror(what);
    exit(1);
}

/* snprintf into a PATH_BUF-sized buffer; a path that does not fit ends the run. */
#define PATH_BUF 4096
static inline void bench_path(char *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void bench_path(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, PATH_BUF, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= PATH_BUF) {
        fprintf(stderr, "bench: a path is too long\n");
        exit(1);
    }
}

static inline void bench_write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd) != 0) bench_die(path);
}

static inline scr_meta *bench_meta(const char *name, const char *type, int rank, int ranks,
                                   uint64_t size)
{
    scr_meta *m = scr_meta_new();
    if (m == NULL) bench_die("meta");
    scr_meta_set_filename(m, name);
    scr_meta_set_filetype(m, type);
    scr_meta_set_filesize(m, size);
    scr_meta_set_complete(m, 1);
    scr_meta_set_rank(m, rank);
    scr_meta_set_ranks(m, ranks);
    return m;
}

/* The XOR file name of rank r: sets of 8 consecutive ranks; returns the set's size. */
static inline int bench_xor_name(int r, int ranks, char *buf, size_t len)
{
    int set = r / 8 * 8, size = ranks - set < 8 ? ranks - set : 8;
    snprintf(buf, len, "%d_of_%d_in_%d.xor", r - set + 1, size, set);
    return size;
}

static inline void bench_build_dataset(const char *dir, int ranks)
{
    char name[64], xname[64], path[PATH_BUF];
    scr_dataset *desc = scr_dataset_new();
    if (desc == NULL || scr_dataset_set_id(desc, 1) != SCR_SUCCESS ||
        scr_dataset_set_name(desc, "ckpt.1") != SCR_SUCCESS ||
        scr_dataset_set_ckpt(desc, 1) != SCR_SUCCESS ||
        scr_dataset_set_flags(desc, 1) != SCR_SUCCESS)
        bench_die("dataset descriptor");
    for (int r = 0; r < ranks; r++) {
        snprintf(name, sizeof(name), "%d.dat", r);
        int size = bench_xor_name(r, ranks, xname, sizeof(xname));
        scr_filemap *rmap = scr_filemap_new();
        scr_meta *a = bench_meta(name, SCR_META_TYPE_FULL, r, ranks, 16);
        scr_meta *x =
            bench_meta(xname, size > 1 ? SCR_META_TYPE_XOR : SCR_META_TYPE_FULL, r, ranks, 16);
        if (rmap == NULL || scr_filemap_set_dataset(rmap, 1, r, desc) != SCR_SUCCESS ||
            scr_filemap_set_expected_files(rmap, 1, r, 2) != SCR_SUCCESS ||
            scr_filemap_set_meta(rmap, 1, r, name, a) != SCR_SUCCESS ||
            scr_filemap_set_meta(rmap, 1, r, xname, x) != SCR_SUCCESS)
            bench_die("rank filemap");
        void *image = NULL;
        size_t len = 0;
        if (scr_kvtree_file_image(rmap, &image, &len) != SCR_SUCCESS) bench_die("image");
        bench_path(path, "%s/%d.scrfilemap", dir, r);
        bench_write_file(path, image, len);
        bench_path(path, "%s/%s", dir, name);
        bench_write_file(path, "0123456789abcdef", 16);
        bench_path(path, "%s/%s", dir, xname);
        bench_write_file(path, "0123456789abcdef", 16);
        free(image);
        scr_meta_delete(a);
        scr_meta_delete(x);
        scr_filemap_delete(rmap);
    }
    scr_dataset_delete(desc);
}

static inline double bench_baseline(const char *dir, int ranks)
{
    char path[PATH_BUF], buf[4096], xname[64];
    double t0 = bench_now();
    for (int r = 0; r < ranks; r++) {
        struct stat st;
        bench_path(path, "%s/%d.scrfilemap", dir, r);
        int fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) bench_die(path);
        close(fd);
        bench_path(path, "%s/%d.dat", dir, r);
        if (stat(path, &st) != 0) bench_die(path);
        bench_xor_name(r, ranks, xname, sizeof(xname));
        bench_path(path, "%s/%s", dir, xname);
        if (stat(path, &st) != 0) bench_die(path);
    }
    return bench_now() - t0;
}

struct bench_child {
    double seconds;
    double cpu; /* user + system, which a busy machine inflates less than wall time */
    long maxrss_kib;
};

/* The program to time for path: in a libtool build tree path is a shell
 * script that sets the library path and runs dir/.libs/name; the
 * benchmark (itself started through such a script, so the library path is
 * already set) runs that binary directly, so that the shell's start-up is
 * not counted. path itself otherwise. Points at path or at buf. */
static inline const char *bench_program(const char *path, char *buf)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return path;
    bench_path(buf, "%.*s/.libs/%s", (int)(slash - path), path, slash + 1);
    return access(buf, X_OK) == 0 ? buf : path;
}

/* Run argv with stdout and stderr to /dev/null; exits on a failure. */
static inline struct bench_child bench_run_child(char *const argv[])
{
    struct rusage ru;
    int status = 0;
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0) bench_die("fork");
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDOUT_FILENO) < 0) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) != pid) bench_die("wait4");
    struct bench_child r = {bench_now() - t0,
                            (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6,
                            ru.ru_maxrss};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench: %s %s failed (status 0x%x)\n", argv[0], argv[1], status);
        exit(1);
    }
    return r;
}

#endif
