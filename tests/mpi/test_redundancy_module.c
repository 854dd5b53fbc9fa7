/* test_redundancy_module.c — a redundancy scheme (redundancy.h) on its own,
 * without SCR_Init: what it applies, it rebuilds byte for byte.
 *
 *   test_redundancy_module SCHEME DIR      SCHEME: PARTNER, XOR or RS
 *
 * Run on 4 ranks, each a simulated node of its own (SCR_NODE_NAME, from
 * tests/mpi/scr-sim-run), as one set of 4 (RS with 2 failures). Every rank
 * writes dataset 1: three files of odd sizes, different per rank, in
 * DIR/<node>/scr.dataset.1, listed in its filemap DIR/<node>/filemap. The
 * scheme is applied; then, twice, the members of a loss lose their files
 * (data and what the scheme keeps there: scr_redundancy_forget), the set
 * rebuilds them, and every rank compares each of its files with what it
 * wrote. The second loss strikes members that kept redundancy data for the
 * first one, so it proves that a rebuild also gives back what a member
 * holds for others (PARTNER: after scr_redundancy_protect_again).
 *
 * Prints "rank R: SCHEME rebuilt every file" on success; a difference is
 * named by rank, file and byte. Exits non-zero on any failure. */
#include "dataset.h"
#include "filemap.h"
#include "meta.h"
#include "reddesc.h"
#include "redundancy.h"
#include "scr_err.h"
#include "util_io.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RANKS 4
#define FILES 3
#define ID 1

static int me;

/* Byte i of file f of rank r: a pattern no other file shares. */
static unsigned char byte_of(int r, int f, uint64_t i)
{
    return (unsigned char)((i * 131u + (uint64_t)r * 17u + (uint64_t)f * 7u + (i >> 9)) & 0xff);
}

/* Sizes differ per rank and are odd, so the padding of the logical file matters. */
static uint64_t size_of(int r, int f)
{
    static const uint64_t base[FILES] = {70001, 1, 150003};
    return base[f] + (uint64_t)r * 4099u;
}

static int fail(const char *what)
{
    fprintf(stderr, "rank %d: %s\n", me, what);
    return 1;
}

/* snprintf that fails the test rather than cut a path short. */
#define PRINT(buf, ...)                                                             \
    do {                                                                            \
        int n_ = snprintf(buf, sizeof(buf), __VA_ARGS__);                           \
        if (n_ < 0 || (size_t)n_ >= sizeof(buf)) return fail("a path is too long"); \
    } while (0)

/* Write this rank's files and list them in map with the dataset. */
static int write_dataset(scr_filemap *map, const char *dsdir)
{
    char path[4096], rel[256], sub[4096];
    PRINT(sub, "%s/rank%d", dsdir, me);
    if (scr_mkdir_p(sub, 0700) != SCR_SUCCESS) return fail("cannot make the dataset directory");
    scr_dataset *dset = scr_dataset_new();
    if (dset == NULL || scr_dataset_set_id(dset, ID) != SCR_SUCCESS ||
        scr_dataset_set_name(dset, "ckpt.1") != SCR_SUCCESS ||
        scr_filemap_set_dataset(map, ID, me, dset) != SCR_SUCCESS)
        return fail("cannot record the dataset");
    scr_dataset_delete(dset);
    for (int f = 0; f < FILES; f++) {
        uint64_t n = size_of(me, f);
        unsigned char *buf = malloc(n);
        if (buf == NULL) return fail("out of memory");
        for (uint64_t i = 0; i < n; i++) buf[i] = byte_of(me, f, i);
        PRINT(path, "%s/rank%d/file%d.dat", dsdir, me, f);
        PRINT(rel, "rank%d/file%d.dat", me, f);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int rc = fd >= 0 ? scr_write_full(fd, buf, n, path) : SCR_ERR_IO;
        if (fd >= 0) close(fd);
        free(buf);
        scr_meta *m = scr_meta_new();
        if (rc != SCR_SUCCESS || m == NULL || scr_meta_set_filename(m, rel) != SCR_SUCCESS ||
            scr_meta_set_filetype(m, SCR_META_TYPE_FULL) != SCR_SUCCESS ||
            scr_meta_set_filesize(m, n) != SCR_SUCCESS ||
            scr_meta_set_complete(m, 1) != SCR_SUCCESS || scr_meta_set_rank(m, me) != SCR_SUCCESS ||
            scr_meta_set_ranks(m, RANKS) != SCR_SUCCESS ||
            scr_filemap_add_file(map, ID, me, path) != SCR_SUCCESS ||
            scr_filemap_set_meta(map, ID, me, path, m) != SCR_SUCCESS)
            return fail("cannot write or list a file");
        scr_meta_delete(m);
    }
    return scr_filemap_set_expected_files(map, ID, me, FILES) == SCR_SUCCESS
               ? 0
               : fail("cannot set the file count");
}

/* A lost member: its files gone from disk and from its filemap, and what
 * the scheme kept here forgotten. */
static int lose_files(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d)
{
    char path[4096];
    for (int f = 0; f < FILES; f++) {
        PRINT(path, "%s/rank%d/file%d.dat", ctx->dsdir, me, f);
        if (unlink(path) != 0 && errno != ENOENT) return fail("cannot delete a file");
        if (scr_filemap_remove_file(ctx->map, ID, me, path) != SCR_SUCCESS)
            return fail("cannot unlist a file");
    }
    return scr_redundancy_forget(ctx, d, ID) == SCR_SUCCESS ? 0 : fail("forget failed");
}

/* Every file of this rank as written: the first difference is named. */
static int compare_files(const char *dsdir)
{
    char path[4096];
    int bad = 0;
    for (int f = 0; f < FILES; f++) {
        uint64_t n = size_of(me, f);
        void *got = NULL;
        size_t len = 0;
        PRINT(path, "%s/rank%d/file%d.dat", dsdir, me, f);
        if (scr_read_file(path, n + 1, &got, &len) != SCR_SUCCESS) {
            fprintf(stderr, "rank %d: file %s cannot be read\n", me, path);
            bad = 1;
            continue;
        }
        if (len != n) {
            fprintf(stderr, "rank %d: file %s has %zu bytes, %llu written\n", me, path, len,
                    (unsigned long long)n);
            bad = 1;
        }
        for (uint64_t i = 0; i < len && i < n; i++) {
            unsigned char b = ((unsigned char *)got)[i];
            if (b == byte_of(me, f, i)) continue;
            fprintf(stderr, "rank %d: file %s differs at byte %llu: 0x%02x, 0x%02x written\n", me,
                    path, (unsigned long long)i, b, byte_of(me, f, i));
            bad = 1;
            break;
        }
        free(got);
    }
    return bad;
}

/* Lose the files of the members in lost[] (by rank), rebuild, compare. */
static int lose_and_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                            const int *lost, const char *round)
{
    int bad = lost[me] ? lose_files(ctx, d) : 0, all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all_bad) return 1;
    int rc = scr_redundancy_rebuild(ctx, d, ID, lost[me]);
    if (rc != SCR_SUCCESS) {
        fprintf(stderr, "rank %d: the rebuild after %s failed (%s)\n", me, round,
                scr_strstatus(rc));
        return 1;
    }
    bad = compare_files(ctx->dsdir);
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all_bad;
}

static int run(const char *scheme, const char *dir)
{
    const char *node = getenv("SCR_NODE_NAME");
    char dsdir[4096], mapdir[4096], mappath[4096];
    if (node == NULL) return fail("SCR_NODE_NAME is not set (run through scr-sim-run)");
    PRINT(dsdir, "%s/%s/scr.dataset.%d", dir, node, ID);
    PRINT(mapdir, "%s/%s/cntl", dir, node);
    PRINT(mappath, "%s/filemap_%d.scrinfo", mapdir, me);
    if (scr_mkdir_p(mapdir, 0700) != SCR_SUCCESS) return fail("cannot make the control directory");

    struct scr_reddesc d;
    memset(&d, 0, sizeof(d));
    d.type = strcmp(scheme, "PARTNER") == 0 ? SCR_COPY_PARTNER
             : strcmp(scheme, "XOR") == 0   ? SCR_COPY_XOR
                                            : SCR_COPY_RS;
    d.failures = d.type == SCR_COPY_RS ? 2 : 1;
    d.hop = 1;
    snprintf(d.group, sizeof(d.group), "NODE");
    d.set_id = 0;
    d.set_rank = me;
    d.set_size = RANKS;
    d.members = malloc(RANKS * sizeof(int));
    if (d.members == NULL || MPI_Comm_dup(MPI_COMM_WORLD, &d.set) != MPI_SUCCESS)
        return fail("no set");
    for (int i = 0; i < RANKS; i++) d.members[i] = i;

    scr_filemap *map = scr_filemap_new();
    struct scr_redundancy_ctx ctx = {.world = MPI_COMM_WORLD,
                                     .rank = me,
                                     .ranks = RANKS,
                                     .node_name = node,
                                     .map = map,
                                     .filemap_path = mappath,
                                     .dsdir = dsdir,
                                     .buf_size = 64 * 1024 + 3,
                                     .piece = 16 * 1024 + 1,
                                     .crc_in_cache = 1,
                                     .crc_on_copy = 1};
    ctx.bufs[0] = malloc(ctx.buf_size);
    ctx.bufs[1] = malloc(ctx.buf_size);
    int bad = map == NULL ? 1 : write_dataset(map, dsdir), all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!all_bad && scr_redundancy_apply(&ctx, &d, ID) != SCR_SUCCESS)
        all_bad = fail("apply failed");

    /* first loss: member 1 (RS: 1 and 2); second: those that kept its redundancy data */
    int first[RANKS] = {0, 1, d.type == SCR_COPY_RS, 0};
    int second[RANKS] = {d.type != SCR_COPY_XOR, 0, d.type == SCR_COPY_XOR, d.type == SCR_COPY_RS};
    if (!all_bad) all_bad = lose_and_rebuild(&ctx, &d, first, "the first loss");
    /* a lost PARTNER member held its left neighbour's copy: it is made again */
    if (!all_bad && d.type == SCR_COPY_PARTNER &&
        scr_redundancy_protect_again(&ctx, &d, ID, !first[me]) != SCR_SUCCESS)
        all_bad = fail("protecting again failed");
    if (!all_bad) all_bad = lose_and_rebuild(&ctx, &d, second, "the second loss");
    if (!all_bad) printf("rank %d: %s rebuilt every file\n", me, scheme);
    free(ctx.bufs[0]);
    free(ctx.bufs[1]);
    scr_filemap_delete(map);
    scr_reddesc_clear(&d);
    return all_bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int size = 0, bad = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || size != RANKS ||
        (strcmp(argv[1], "PARTNER") != 0 && strcmp(argv[1], "XOR") != 0 &&
         strcmp(argv[1], "RS") != 0)) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -np %d test_redundancy_module PARTNER|XOR|RS DIR\n",
                    RANKS);
        bad = 1;
    } else {
        bad = run(argv[1], argv[2]);
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}
