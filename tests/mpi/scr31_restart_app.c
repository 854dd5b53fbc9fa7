/* scr31_restart_app.c — restarts through libscr and keeps what it read, for tests.
 *
 *   scr31_restart_app OUTDIR [--checkpoint NAME] FILE...
 *
 * Each FILE is a name with "%d" for the rank ("rank_%d.ckpt"). The app asks
 * SCR_Have_restart for a checkpoint; for the one offered (NAME) every rank
 * routes NAME/FILE for each FILE, reads the routed file and writes its bytes
 * to OUTDIR/NAME/FILE, so that a test can compare them with what the
 * checkpoint held on the prefix. A file that cannot be routed, opened or
 * copied makes the rank report its read invalid, and the app asks again
 * (SCR offers an older checkpoint) as applications do. With --checkpoint it
 * then writes checkpoint NAME: every rank one file NAME/rank_<r>.ckpt of
 * 1000 + r bytes, each byte (r + offset) % 251.
 *
 * Prints "rank R: restarted from NAME", "rank R: restart from NAME failed"
 * or "rank R: fresh start", and "rank R: done". Exit code 0 only when every
 * SCR call it did not expect to fail succeeded. */
#include "scr.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpi_app_fail.h"

static int rank;

/* Copy src to dst; 0 on success, a message on stderr otherwise. */
static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    char buf[65536];
    size_t n;
    int rc = (in && out) ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (in && ferror(in)) rc = -1;
    if (in) fclose(in);
    if (out && fclose(out) != 0) rc = -1;
    if (rc != 0)
        fprintf(stderr, "rank %d: cannot copy %s to %s: %s\n", rank, src, dst, strerror(errno));
    return rc;
}

/* Read every FILE of checkpoint name into outdir/name; 1 when all were read. */
static int read_restart(const char *outdir, const char *name, char **files, int nfiles)
{
    char dir[4096], path[2 * SCR_MAX_FILENAME + 2], routed[SCR_MAX_FILENAME],
        dst[4096 + SCR_MAX_FILENAME + 2];
    snprintf(dir, sizeof(dir), "%s/%s", outdir, name);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return 0;
    int valid = 1;
    for (int f = 0; f < nfiles; f++) {
        char file[1024];
        snprintf(file, sizeof(file), files[f], rank);
        snprintf(path, sizeof(path), "%s/%s", name, file);
        snprintf(dst, sizeof(dst), "%s/%s", dir, file);
        if (SCR_Route_file(path, routed) != SCR_SUCCESS) {
            fprintf(stderr, "rank %d: SCR_Route_file %s failed\n", rank, path);
            valid = 0;
        } else if (copy_file(routed, dst) != 0) {
            valid = 0;
        }
    }
    return valid;
}

static void write_checkpoint(const char *name)
{
    char path[1024], routed[SCR_MAX_FILENAME];
    if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        FAIL("SCR_Start_output %s", name);
    snprintf(path, sizeof(path), "%s/rank_%d.ckpt", name, rank);
    if (SCR_Route_file(path, routed) != SCR_SUCCESS) FAIL("SCR_Route_file %s", path);
    FILE *out = fopen(routed, "wb");
    int valid = out != NULL;
    for (int i = 0; valid && i < 1000 + rank; i++) valid = fputc((rank + i) % 251, out) != EOF;
    if (out && fclose(out) != 0) valid = 0;
    if (SCR_Complete_output(valid) != SCR_SUCCESS) FAIL("SCR_Complete_output %s", name);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 3;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *outdir = argc > 1 ? argv[1] : NULL, *checkpoint = NULL;
    int first = 2;
    if (argc > 3 && strcmp(argv[2], "--checkpoint") == 0) {
        checkpoint = argv[3];
        first = 4;
    }
    if (outdir == NULL || first >= argc)
        FAIL("usage: scr31_restart_app OUTDIR [--checkpoint NAME] FILE...");
    if (SCR_Init() != SCR_SUCCESS) FAIL("SCR_Init");

    for (;;) {
        int have = 0;
        char name[SCR_MAX_FILENAME];
        if (SCR_Have_restart(&have, name) != SCR_SUCCESS) FAIL("SCR_Have_restart");
        if (!have) {
            printf("rank %d: fresh start\n", rank);
            break;
        }
        if (SCR_Start_restart(name) != SCR_SUCCESS) FAIL("SCR_Start_restart %s", name);
        int valid = read_restart(outdir, name, argv + first, argc - first);
        if (SCR_Complete_restart(valid) == SCR_SUCCESS) {
            printf("rank %d: restarted from %s\n", rank, name);
            break;
        }
        printf("rank %d: restart from %s failed\n", rank, name);
    }
    if (checkpoint != NULL) write_checkpoint(checkpoint);
    if (SCR_Finalize() != SCR_SUCCESS) FAIL("SCR_Finalize");
    printf("rank %d: done\n", rank);
    MPI_Finalize();
    return 0;
}
