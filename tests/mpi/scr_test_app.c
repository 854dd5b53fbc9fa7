/* scr_test_app.c — an MPI application that checkpoints through libscr, for tests.
 *
 * Each step it writes a checkpoint: every rank writes --files files of --size
 * bytes under ckpt.<step>/ (or deeper with --nested), named rank<r>_f<f>.dat;
 * ranks listed in --no-files write none; --uneven varies the sizes by rank
 * and file, with some files empty. Every byte is a function of (rank,
 * file, step, offset), so a restart checks every byte it reads and says from
 * which step it resumed. --output-every K adds an output-only dataset
 * out.<step>/rank<r>.txt every K steps. --crash-after S kills rank
 * --crash-rank with SIGKILL right after checkpoint S completes (a node
 * failure as the application sees it). Runs until --steps in total.
 * --mkdir makes the app create the directories of the files it writes, as an
 * application must when SCR is disabled (SCR_ENABLE=0) and does not route.
 * --drop NAME and --delete NAME call SCR_Drop / SCR_Delete right after
 * SCR_Init, --current NAME then SCR_Current, before SCR_Have_restart; a failed
 * call prints "rank R: SCR_Xxx NAME failed" and the app exits with status 4.
 * A failed SCR_Init ends every rank with status 3, through MPI_Finalize
 * rather than MPI_Abort, so that no rank's message is cut off.
 * --need-checkpoint writes a checkpoint only when SCR_Need_checkpoint says so,
 * printing "rank R: step S checkpoint yes" (or no) every step; --sleep-ms N
 * sleeps N ms at the start of every step, and --compute-ms N computes for
 * N ms there (keeping its core busy, as a CPU-bound application does).
 * --config TEXT (repeatable) calls SCR_Config(TEXT) before SCR_Init and
 * prints "rank R: SCR_Config TEXT = VALUE" for a question (VALUE "(null)"
 * when it gets none); --ask TEXT (repeatable) asks SCR_Config(TEXT) right
 * after SCR_Init and prints "rank R: after SCR_Init: SCR_Config TEXT =
 * VALUE", the value the run uses. --shared-file makes every rank write, instead of its
 * own files, its part of one file ckpt.<step>/shared.dat: --size bytes at
 * offset 4 + rank * --size (rank 0 also writes the 4-byte step first), as
 * an application writing one file from every rank does.
 * --first-creates makes that file as SCR 3.1's test_api --shared-file and
 * MPI-IO do: rank 0 creates it (O_CREAT|O_TRUNC) and sizes it whole, every
 * rank waits in a barrier, and the others open it without O_CREAT; an open that fails
 * prints "rank R: could not open file PATH: ..." and the rank tells
 * SCR_Complete_checkpoint its output is not valid, as test_api does.
 * --own-files writes each rank's own files (--files) beside it.
 * --exclusive creates each rank's own files with O_CREAT|O_EXCL, as an
 * application that must not find a file there before it does.
 * --overlap also has every rank write the byte 0x80 + rank at offset 0
 * (ranks on two nodes then write a same byte differently).
 * --thread-multiple initialises MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE),
 * as an application that lets SCR encode in the background does.
 * --written-by N restarts from a checkpoint that N ranks wrote, whatever
 * the number of ranks now: rank r reads the files of every writer w with
 * w % ranks == r, and a rank r >= N also those of writer r % N (so every
 * file is read, some by two ranks).
 * --compressible K makes the first K files of each rank compressible (runs
 * of 512 equal bytes, still a function of rank, file, step and offset), as
 * a file a compressed flush shrinks; the others stay random-looking.
 * --damage-after S makes rank --damage-rank (default 0) invert one byte of
 * its first file of checkpoint S in cache right after that checkpoint
 * completes (a stray write or a failing disk once SCR recorded the file's
 * CRC), printing "rank R: damaged byte B of PATH"; the run goes on.
 *
 * The restart loops as SCR applications do: when SCR_Complete_restart says
 * some rank could not read the checkpoint, every rank prints "rank R: restart
 * from NAME failed" and asks SCR_Have_restart again, which offers an older
 * one. --fail-restart-of NAME makes the last rank report its read of
 * checkpoint NAME invalid (its bytes are still checked); --fail-restart-of
 * COUNT (a number) does so for the first COUNT checkpoints offered.
 * --leave-check-to-scr still checks every byte read, but tells
 * SCR_Complete_restart the read was valid, so that only SCR's own checks
 * can refuse a damaged checkpoint; SCR accepting one whose bytes differ
 * ends the job with "rank R: FAIL: SCR_Complete_restart accepted ...".
 *
 * Prints one line per rank: "rank R: restarted from step S" or "rank R: fresh
 * start", then "rank R: finished step N". Exit code 0 only if every SCR call
 * succeeded and every byte read back was right. */
#include "scr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct options {
    int steps, files, crash_after, crash_rank, output_every, nested, restart_bare, mkdirs, uneven;
    int need_checkpoint, sleep_ms, compute_ms, shared_file, nconfig, nask, written_by,
        leave_check_to_scr;
    int damage_after, damage_rank, first_creates, overlap, own_files;
    const char *config[8], *ask[4];
    long size;
    char no_files[256];
    const char *current, *drop, *delete_name;
    const char *fail_restart_of; /* a checkpoint name, or a count of first attempts */
};

static int rank, ranks;
static int exclusive_files;    /* --exclusive: own files are created with O_EXCL */
static int compressible_files; /* --compressible: files below this number are */

#include "mpi_app_fail.h"

static unsigned char byte_at(int r, int f, int step, long off)
{
    if (f < compressible_files)
        return (unsigned char)('a' + (r * 3 + f * 5 + step * 7 + off / 512) % 26);
    uint32_t x = (uint32_t)(r * 7919 + f * 104729 + step * 1299709) ^ (uint32_t)off * 2654435761u;
    x ^= x >> 15;
    return (unsigned char)(x * 2246822519u >> 24);
}

/* Bytes of file f (after its 4-byte step): --uneven varies them by rank and
 * file, with the first file of every third rank empty. */
static long file_size(const struct options *o, int f)
{
    if (!o->uneven) return o->size;
    return (o->size * (rank % 3)) / 2 + f * 7L;
}

static int has_no_files(const struct options *o, int r)
{
    char key[32];
    snprintf(key, sizeof(key), ",%d,", r);
    char list[300];
    snprintf(list, sizeof(list), ",%s,", o->no_files);
    return strstr(list, key) != NULL;
}

static void file_name_of(const struct options *o, int r, int step, int f, char *buf, size_t len)
{
    if (o->nested)
        snprintf(buf, len, "ckpt.%d/a/b%d/rank%d_f%d.dat", step, f % 2, r, f);
    else
        snprintf(buf, len, "ckpt.%d/rank%d_f%d.dat", step, r, f);
}

static void file_name(const struct options *o, int step, int f, char *buf, size_t len)
{
    file_name_of(o, rank, step, f, buf, len);
}

/* mkdir -p of the directory of path. */
static void make_parent_dirs(const char *path)
{
    char dir[SCR_MAX_FILENAME];
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            FAIL("cannot create directory %s: %s", dir, strerror(errno));
        *p = '/';
    }
}

static void write_file(const char *path, int f, int step, long size)
{
    FILE *fp = fopen(path, exclusive_files ? "wbx" : "wb");
    if (fp == NULL) FAIL("cannot create %s: %s", path, strerror(errno));
    /* the first 4 bytes say which step wrote the file */
    int32_t s = step;
    if (fwrite(&s, sizeof(s), 1, fp) != 1) FAIL("write %s", path);
    for (long off = 0; off < size; off++)
        if (fputc(byte_at(rank, f, step, off), fp) == EOF) FAIL("write %s", path);
    if (fclose(fp) != 0) FAIL("close %s: %s", path, strerror(errno));
}

/* The step stored in path, file f of writer w, after checking every byte;
 * -1 if anything is wrong. */
static int check_file_of(const char *path, int w, int f, long size)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        fprintf(stderr, "rank %d: cannot open restart file %s: %s\n", rank, path, strerror(errno));
        return -1;
    }
    int32_t s = -1;
    int step = -1;
    if (fread(&s, sizeof(s), 1, fp) == 1) {
        step = s;
        for (long off = 0; off < size && step >= 0; off++) {
            int c = fgetc(fp);
            if (c == EOF || (unsigned char)c != byte_at(w, f, s, off)) {
                fprintf(stderr, "rank %d: %s differs at byte %ld\n", rank, path, off + 4);
                step = -1;
            }
        }
        if (step >= 0 && fgetc(fp) != EOF) {
            fprintf(stderr, "rank %d: %s is longer than %ld bytes\n", rank, path, size + 4);
            step = -1;
        }
    }
    fclose(fp);
    return step;
}

static int check_file(const char *path, int f, long size)
{
    return check_file_of(path, rank, f, size);
}

/* The shared file at path open for writing (-1 when it cannot be): by
 * every rank, or (--first-creates) created by rank 0 before the others
 * open it. */
static int open_shared(const struct options *o, const char *path)
{
    if (!o->first_creates) return open(path, O_WRONLY | O_CREAT, 0600);
    int fd = rank == 0 ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
    int err = errno;
    /* sized whole first, as test_api does (and MPI_File_set_size): rank 0's
     * node's piece is then a hole where the other nodes write */
    if (fd >= 0 && ftruncate(fd, 4 + (off_t)ranks * o->size) != 0)
        FAIL("ftruncate %s: %s", path, strerror(errno));
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) FAIL("MPI_Barrier");
    if (rank != 0) {
        fd = open(path, O_WRONLY);
        err = errno;
    }
    if (fd < 0) printf("rank %d: could not open file %s: %s\n", rank, path, strerror(err));
    return fd;
}

/* This rank's part of the shared file of step at path (rank 0: the step
 * too); 0 when it could not be opened. */
static int write_shared(const struct options *o, const char *path, int step, long size)
{
    int fd = open_shared(o, path);
    if (fd < 0 && o->first_creates) return 0;
    if (fd < 0) FAIL("could not open file %s: %s", path, strerror(errno));
    int32_t s = step;
    if (rank == 0 && pwrite(fd, &s, sizeof(s), 0) != (ssize_t)sizeof(s)) FAIL("write %s", path);
    unsigned char mark = (unsigned char)(0x80 + rank);
    if (o->overlap && pwrite(fd, &mark, 1, 0) != 1) FAIL("write %s: %s", path, strerror(errno));
    for (long off = 0; off < size; off++) {
        unsigned char c = byte_at(rank, 0, step, off);
        if (pwrite(fd, &c, 1, 4 + (off_t)rank * size + off) != 1)
            FAIL("write %s: %s", path, strerror(errno));
    }
    if (close(fd) != 0) FAIL("close %s: %s", path, strerror(errno));
    return 1;
}

/* The step of the shared file at path after checking this rank's part; -1 if wrong. */
static int check_shared(const char *path, long size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "rank %d: cannot open restart file %s: %s\n", rank, path, strerror(errno));
        return -1;
    }
    int32_t s = -1;
    int step = pread(fd, &s, sizeof(s), 0) == (ssize_t)sizeof(s) ? s : -1;
    for (long off = 0; off < size && step >= 0; off++) {
        unsigned char c;
        if (pread(fd, &c, 1, 4 + (off_t)rank * size + off) != 1 || c != byte_at(rank, 0, s, off)) {
            fprintf(stderr, "rank %d: %s differs at byte %ld\n", rank, path,
                    4 + (long)rank * size + off);
            step = -1;
        }
    }
    close(fd);
    return step;
}

/* Does --fail-restart-of make this rank call attempt (from 0) at name invalid? */
static int told_to_fail(const struct options *o, int attempt, const char *name)
{
    const char *what = o->fail_restart_of;
    if (what == NULL || rank != ranks - 1) return 0;
    if (what[0] != '\0' && strspn(what, "0123456789") == strlen(what)) return attempt < atoi(what);
    return strcmp(what, name) == 0;
}

/* One attempt at the checkpoint SCR offers: the step read back, 0 when
 * there is none, -1 when this attempt failed and another may be offered. */
static int restart_once(const struct options *o, int attempt)
{
    int have = 0;
    char name[SCR_MAX_FILENAME];
    if (SCR_Have_restart(&have, name) != SCR_SUCCESS) FAIL("SCR_Have_restart");
    if (!have) {
        printf("rank %d: fresh start\n", rank);
        return 0;
    }
    char started[SCR_MAX_FILENAME];
    if (SCR_Start_restart(started) != SCR_SUCCESS) FAIL("SCR_Start_restart");
    if (strcmp(started, name) != 0) FAIL("Start_restart gave %s, Have_restart %s", started, name);
    int step = -1, valid = 1;
    if (sscanf(name, "ckpt.%d", &step) != 1) FAIL("unexpected checkpoint name %s", name);
    if (o->shared_file) {
        char want[512], path[SCR_MAX_FILENAME];
        snprintf(want, sizeof(want), "ckpt.%d/shared.dat", step);
        if (SCR_Route_file(want, path) != SCR_SUCCESS || check_shared(path, o->size) != step)
            valid = 0;
    }
    for (int f = 0; (!o->shared_file || o->own_files) && !o->written_by && !has_no_files(o, rank) &&
                    f < o->files;
         f++) {
        char want[512], path[SCR_MAX_FILENAME];
        if (o->restart_bare)
            snprintf(want, sizeof(want), "rank%d_f%d.dat", rank, f);
        else
            file_name(o, step, f, want, sizeof(want));
        if (SCR_Route_file(want, path) != SCR_SUCCESS) {
            valid = 0;
            continue;
        }
        if (check_file(path, f, file_size(o, f)) != step) valid = 0;
    }
    for (int w = 0; o->written_by > 0 && w < o->written_by; w++) {
        if (w % ranks != rank && !(rank >= o->written_by && w == rank % o->written_by)) continue;
        for (int f = 0; !has_no_files(o, w) && f < o->files; f++) {
            char want[512], path[SCR_MAX_FILENAME];
            if (o->restart_bare)
                snprintf(want, sizeof(want), "rank%d_f%d.dat", w, f);
            else
                file_name_of(o, w, step, f, want, sizeof(want));
            if (SCR_Route_file(want, path) != SCR_SUCCESS ||
                check_file_of(path, w, f, o->size) != step)
                valid = 0;
        }
    }
    int bytes_ok = valid;
    if (o->leave_check_to_scr) valid = 1;
    if (told_to_fail(o, attempt, name)) valid = 0;
    if (SCR_Complete_restart(valid) != SCR_SUCCESS) {
        printf("rank %d: restart from %s failed\n", rank, name);
        return -1;
    }
    if (!bytes_ok) FAIL("SCR_Complete_restart accepted checkpoint %s, whose bytes differ", name);
    printf("rank %d: restarted from step %d\n", rank, step);
    return step;
}

/* Restart from the newest checkpoint every rank can read; 0: a fresh start. */
static int restart(const struct options *o)
{
    for (int attempt = 0;; attempt++) {
        if (attempt == 100) FAIL("SCR offered 100 checkpoints in a row that could not be read");
        int step = restart_once(o, attempt);
        if (step >= 0) return step;
    }
}

/* --damage-after: invert the middle byte of the cached file at path in place. */
static void damage_file(const char *path, long size)
{
    off_t off = (off_t)(4 + size) / 2;
    unsigned char c;
    int fd = open(path, O_RDWR);
    if (fd < 0) FAIL("cannot open %s to damage it: %s", path, strerror(errno));
    if (pread(fd, &c, 1, off) != 1)
        FAIL("cannot read byte %ld of %s: %s", (long)off, path, strerror(errno));
    c ^= 0xff;
    if (pwrite(fd, &c, 1, off) != 1)
        FAIL("cannot write byte %ld of %s: %s", (long)off, path, strerror(errno));
    if (close(fd) != 0) FAIL("close %s: %s", path, strerror(errno));
    printf("rank %d: damaged byte %ld of %s\n", rank, (long)off, path);
}

static void checkpoint(const struct options *o, int step)
{
    char dname[64], first[SCR_MAX_FILENAME] = "";
    snprintf(dname, sizeof(dname), "ckpt.%d", step);
    if (SCR_Start_output(dname, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        FAIL("SCR_Start_output %s", dname);
    int valid = 1;
    if (o->shared_file) {
        char want[512], path[SCR_MAX_FILENAME];
        snprintf(want, sizeof(want), "ckpt.%d/shared.dat", step);
        if (SCR_Route_file(want, path) != SCR_SUCCESS) FAIL("SCR_Route_file %s", want);
        if (o->mkdirs) make_parent_dirs(path);
        valid = write_shared(o, path, step, o->size);
    }
    for (int f = 0; (!o->shared_file || o->own_files) && !has_no_files(o, rank) && f < o->files;
         f++) {
        char want[512], path[SCR_MAX_FILENAME];
        file_name(o, step, f, want, sizeof(want));
        if (SCR_Route_file(want, path) != SCR_SUCCESS) FAIL("SCR_Route_file %s", want);
        if (o->mkdirs) make_parent_dirs(path);
        write_file(path, f, step, file_size(o, f));
        if (f == 0) snprintf(first, sizeof(first), "%s", path);
    }
    if (SCR_Complete_output(valid) != SCR_SUCCESS) FAIL("SCR_Complete_output %s", dname);
    if (step == o->damage_after && rank == o->damage_rank) {
        if (first[0] == '\0')
            FAIL("--damage-after %d: rank %d wrote no file to damage", step, rank);
        damage_file(first, file_size(o, 0));
    }
}

static void output(const struct options *o, int step)
{
    char dname[64], want[128], path[SCR_MAX_FILENAME];
    snprintf(dname, sizeof(dname), "out.%d", step);
    snprintf(want, sizeof(want), "out.%d/rank%d.txt", step, rank);
    if (SCR_Start_output(dname, SCR_FLAG_OUTPUT) != SCR_SUCCESS) FAIL("SCR_Start_output %s", dname);
    if (SCR_Route_file(want, path) != SCR_SUCCESS) FAIL("SCR_Route_file %s", want);
    if (o->mkdirs) make_parent_dirs(path);
    FILE *fp = fopen(path, "w");
    if (fp == NULL || fprintf(fp, "output of rank %d at step %d\n", rank, step) < 0 ||
        fclose(fp) != 0)
        FAIL("writing %s", path);
    if (SCR_Complete_output(1) != SCR_SUCCESS) FAIL("SCR_Complete_output %s", dname);
}

static void parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"steps", required_argument, NULL, 's'},
        {"files", required_argument, NULL, 'f'},
        {"size", required_argument, NULL, 'z'},
        {"crash-after", required_argument, NULL, 'c'},
        {"crash-rank", required_argument, NULL, 'r'},
        {"output-every", required_argument, NULL, 'o'},
        {"nested", no_argument, NULL, 'n'},
        {"no-files", required_argument, NULL, 'x'},
        {"restart-by-path", no_argument, NULL, 'p'},
        {"mkdir", no_argument, NULL, 'm'},
        {"uneven", no_argument, NULL, 'u'},
        {"current", required_argument, NULL, 'C'},
        {"drop", required_argument, NULL, 'D'},
        {"delete", required_argument, NULL, 'X'},
        {"need-checkpoint", no_argument, NULL, 'N'},
        {"sleep-ms", required_argument, NULL, 'S'},
        {"fail-restart-of", required_argument, NULL, 'F'},
        {"config", required_argument, NULL, 'K'},
        {"shared-file", no_argument, NULL, 'H'},
        {"thread-multiple", no_argument, NULL, 'T'},
        {"written-by", required_argument, NULL, 'W'},
        {"compressible", required_argument, NULL, 'Z'},
        {"compute-ms", required_argument, NULL, 'M'},
        {"leave-check-to-scr", no_argument, NULL, 'L'},
        {"damage-after", required_argument, NULL, 'A'},
        {"damage-rank", required_argument, NULL, 'R'},
        {"first-creates", no_argument, NULL, 'P'},
        {"overlap", no_argument, NULL, 'O'},
        {"own-files", no_argument, NULL, 'I'},
        {"exclusive", no_argument, NULL, 'E'},
        {"ask", required_argument, NULL, 'Q'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.steps = 3,
                          .files = 1,
                          .size = 1000,
                          .crash_after = -1,
                          .restart_bare = 1,
                          .damage_after = -1};
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 's': o->steps = atoi(optarg); break;
        case 'f': o->files = atoi(optarg); break;
        case 'z': o->size = atol(optarg); break;
        case 'c': o->crash_after = atoi(optarg); break;
        case 'r': o->crash_rank = atoi(optarg); break;
        case 'o': o->output_every = atoi(optarg); break;
        case 'n': o->nested = 1; break;
        case 'x': snprintf(o->no_files, sizeof(o->no_files), "%s", optarg); break;
        case 'p': o->restart_bare = 0; break;
        case 'u': o->uneven = 1; break;
        case 'm': o->mkdirs = 1; break;
        case 'C': o->current = optarg; break;
        case 'D': o->drop = optarg; break;
        case 'X': o->delete_name = optarg; break;
        case 'N': o->need_checkpoint = 1; break;
        case 'S': o->sleep_ms = atoi(optarg); break;
        case 'M': o->compute_ms = atoi(optarg); break;
        case 'F': o->fail_restart_of = optarg; break;
        case 'K':
            if (o->nconfig == (int)(sizeof(o->config) / sizeof(o->config[0])))
                FAIL("too many --config");
            o->config[o->nconfig++] = optarg;
            break;
        case 'Q':
            if (o->nask == (int)(sizeof(o->ask) / sizeof(o->ask[0]))) FAIL("too many --ask");
            o->ask[o->nask++] = optarg;
            break;
        case 'H': o->shared_file = 1; break;
        case 'T': break; /* read before MPI_Init */
        case 'W': o->written_by = atoi(optarg); break;
        case 'Z': compressible_files = atoi(optarg); break;
        case 'L': o->leave_check_to_scr = 1; break;
        case 'A': o->damage_after = atoi(optarg); break;
        case 'R': o->damage_rank = atoi(optarg); break;
        case 'P': o->first_creates = 1; break;
        case 'O': o->overlap = 1; break;
        case 'I': o->own_files = 1; break;
        case 'E': exclusive_files = 1; break;
        default: FAIL("usage: scr_test_app [--steps N] [--files F] [--size B] ...");
        }
    }
}

/* Arithmetic for ms milliseconds of wall time. */
static volatile unsigned long compute_sink;
static void compute_for(int ms)
{
    double end = MPI_Wtime() + ms / 1000.0;
    unsigned long x = 1;
    while (MPI_Wtime() < end)
        for (int i = 0; i < 10000; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
    compute_sink = x;
}

/* --thread-multiple: MPI_Init_thread asks for MPI_THREAD_MULTIPLE */
static int wants_thread_multiple(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--thread-multiple") == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    /* a line as soon as it is printed: a run that hangs or is killed
     * still shows how far each rank got */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (wants_thread_multiple(argc, argv)) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE)
            fprintf(stderr, "MPI does not give MPI_THREAD_MULTIPLE\n");
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    struct options o;
    parse(argc, argv, &o);
    for (int i = 0; i < o.nconfig; i++) {
        const char *v = SCR_Config(o.config[i]);
        if (strchr(o.config[i], '=') == NULL || strchr(o.config[i], ' ') != NULL)
            printf("rank %d: SCR_Config %s = %s\n", rank, o.config[i], v ? v : "(null)");
        free((void *)v);
    }
    /* every rank learns that SCR_Init failed and the job ends without
     * MPI_Abort, so no rank's error message is cut off by the abort */
    int init_failed = SCR_Init() != SCR_SUCCESS, any_failed = 0;
    if (MPI_Allreduce(&init_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        FAIL("MPI_Allreduce");
    if (any_failed) {
        if (init_failed) fprintf(stderr, "rank %d: FAIL: SCR_Init\n", rank);
        MPI_Finalize();
        return 3;
    }
    for (int i = 0; i < o.nask; i++) {
        const char *v = SCR_Config(o.ask[i]);
        printf("rank %d: after SCR_Init: SCR_Config %s = %s\n", rank, o.ask[i], v ? v : "(null)");
        free((void *)v);
    }
    struct {
        const char *call, *name;
        int (*fn)(const char *);
    } manage[] = {
        {"SCR_Drop", o.drop, SCR_Drop},
        {"SCR_Delete", o.delete_name, SCR_Delete},
        {"SCR_Current", o.current, SCR_Current},
    };
    for (size_t i = 0; i < sizeof(manage) / sizeof(manage[0]); i++) {
        if (manage[i].name == NULL || manage[i].fn(manage[i].name) == SCR_SUCCESS) continue;
        fprintf(stderr, "rank %d: %s %s failed\n", rank, manage[i].call, manage[i].name);
        SCR_Finalize();
        MPI_Finalize();
        return 4;
    }
    int step = restart(&o);
    while (step < o.steps) {
        step++;
        if (o.sleep_ms > 0) usleep((useconds_t)o.sleep_ms * 1000);
        if (o.compute_ms > 0) compute_for(o.compute_ms);
        int need = 1;
        if (o.need_checkpoint) {
            if (SCR_Need_checkpoint(&need) != SCR_SUCCESS) FAIL("SCR_Need_checkpoint");
            printf("rank %d: step %d checkpoint %s\n", rank, step, need ? "yes" : "no");
        }
        if (need) checkpoint(&o, step);
        if (o.output_every > 0 && step % o.output_every == 0) output(&o, step);
        if (step == o.crash_after && rank == o.crash_rank) {
            fflush(stdout);
            kill(getpid(), SIGKILL);
        }
        int stop = 0;
        if (SCR_Should_exit(&stop) != SCR_SUCCESS) FAIL("SCR_Should_exit");
        if (stop) {
            printf("rank %d: asked to exit after step %d\n", rank, step);
            break;
        }
    }
    if (SCR_Finalize() != SCR_SUCCESS) FAIL("SCR_Finalize");
    printf("rank %d: finished step %d\n", rank, step);
    MPI_Finalize();
    return 0;
}
