/* bench_crc_file.c — the CRC pass over a cached file, as ratios to reading it.
 *
 * A file of --mib MiB (default 256) is written in --dir (default /dev/shm,
 * where SCR's cache usually lives) and, in alternating rounds, timed three
 * ways: read through a 1 MiB buffer as an application reads its restart
 * (the baseline), checksummed by scr_crc_file_l2 (util_copy.h: pieces
 * of 256 KiB that stay in L2), and checksummed through a shared mapping in
 * 64 MiB windows, the way libscr read such files before. Each figure is the
 * median of --rounds rounds (default 9) and every ratio is to the read of
 * the same run, so results compare across machines. Nothing is asserted;
 * `make bench-crc-file` prints the table. */
#define _POSIX_C_SOURCE 200809L
#include "scr_err.h"
#include "util_crc.h"
#include "util_copy.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define READ_PIECE ((size_t)1 << 20)
#define MAP_WINDOW ((size_t)64 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static volatile uint32_t sink;

/* Write size bytes of a pattern to path. */
static void make_file(const char *path, size_t size, unsigned char *buf)
{
    for (size_t i = 0; i < READ_PIECE; i++) buf[i] = (unsigned char)(i * 2654435761u >> 13);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die(path);
    for (size_t off = 0; off < size; off += READ_PIECE)
        if (write(fd, buf, READ_PIECE) != (ssize_t)READ_PIECE) die(path);
    if (close(fd) != 0) die(path);
}

static double time_read(const char *path, unsigned char *buf)
{
    double t = now();
    int fd = open(path, O_RDONLY);
    if (fd < 0) die(path);
    ssize_t n;
    while ((n = read(fd, buf, READ_PIECE)) > 0) sink ^= buf[n - 1];
    if (n < 0 || close(fd) != 0) die(path);
    return now() - t;
}

static double time_crc_file(const char *path, uint32_t *crc)
{
    double t = now();
    if (scr_crc_file_l2(path, crc, NULL) != SCR_SUCCESS) die("scr_crc_file_l2");
    return now() - t;
}

static double time_crc_mapped(const char *path, size_t size, uint32_t *crc)
{
    double t = now();
    int fd = open(path, O_RDONLY);
    if (fd < 0) die(path);
    uint32_t c = 0;
    for (size_t off = 0; off < size; off += MAP_WINDOW) {
        size_t len = size - off < MAP_WINDOW ? size - off : MAP_WINDOW;
        void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
        if (p == MAP_FAILED) die("mmap");
        (void)posix_madvise(p, len, POSIX_MADV_SEQUENTIAL);
        c = scr_crc32(c, p, len);
        if (munmap(p, len) != 0) die("munmap");
    }
    if (close(fd) != 0) die(path);
    *crc = c;
    return now() - t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    long mib = 256;
    int rounds = 9;
    const char *dir = "/dev/shm";
    static const struct option opts[] = {{"mib", required_argument, NULL, 'm'},
                                         {"rounds", required_argument, NULL, 'r'},
                                         {"dir", required_argument, NULL, 'd'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'm')
            mib = atol(optarg);
        else if (c == 'r')
            rounds = atoi(optarg);
        else if (c == 'd')
            dir = optarg;
        else
            return 2;
    }
    if (mib <= 0 || rounds <= 0 || rounds > 99) {
        fprintf(stderr, "bench_crc_file: --mib and --rounds (1-99) must be positive\n");
        return 2;
    }
    size_t size = (size_t)mib << 20;
    char path[4096];
    snprintf(path, sizeof(path), "%s/bench_crc_file.%ld", dir, (long)getpid());
    unsigned char *buf = malloc(READ_PIECE);
    if (buf == NULL) die("malloc");
    make_file(path, size, buf);
    double t_read[99], t_pieces[99], t_mapped[99];
    uint32_t crc_pieces = 0, crc_mapped = 0;
    for (int r = 0; r < rounds; r++) { /* the order turns, so none always runs first */
        int first = r % 3;
        for (int k = 0; k < 3; k++) {
            int which = (first + k) % 3;
            if (which == 0) t_read[r] = time_read(path, buf);
            if (which == 1) t_pieces[r] = time_crc_file(path, &crc_pieces);
            if (which == 2) t_mapped[r] = time_crc_mapped(path, size, &crc_mapped);
        }
    }
    unlink(path);
    free(buf);
    if (crc_pieces != crc_mapped) {
        fprintf(stderr, "bench_crc_file: CRC32 0x%08x in pieces, 0x%08x mapped\n", crc_pieces,
                crc_mapped);
        return 1;
    }
    double read = median(t_read, rounds), pieces = median(t_pieces, rounds),
           mapped = median(t_mapped, rounds);
    printf("bench_crc_file: CRC pass over %ld MiB in %s (median of %d rounds)\n", mib, dir, rounds);
    printf("  read, 1 MiB buffer        %7.4f s\n", read);
    printf("  scr_crc_file_l2, 256 KiB  %7.4f s   ratio to the read %.2f\n", pieces, pieces / read);
    printf("  mapped, 64 MiB windows    %7.4f s   ratio to the read %.2f\n", mapped, mapped / read);
    printf("  scr_crc_file_l2 / mapped  %.2f (below 1: the pieces are faster)\n", pieces / mapped);
    return 0;
}
