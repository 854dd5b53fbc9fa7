/* adopt_app.c — an MPI application that restarts from checkpoint files
 * written without SCR, for the test of scr-adopt.
 *
 * Each argument is ROUTE=EXPECTED, both with %d standing for the rank: the
 * rank asks SCR_Route_file for ROUTE (as the application names the file)
 * and compares every byte of the file it is given with EXPECTED, a pristine
 * copy outside the prefix. Prints, per rank, "rank R: restarted from NAME"
 * (or "rank R: no restart"), "rank R: routed ROUTE to PATH", and
 * "rank R: N bytes right" when every file read back whole; a difference is
 * named with its file and byte. SCR_Complete_restart is told whether the
 * bytes were right. Exit status 0 only if a restart was offered and every
 * call and byte was right; 1 otherwise, 3 when SCR_Init failed. */
#include "scr.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

/* pattern with its %d replaced by the rank, into out. */
static void with_rank(const char *pattern, char *out, size_t len)
{
    const char *d = strstr(pattern, "%d");
    if (d == NULL) {
        snprintf(out, len, "%s", pattern);
        return;
    }
    snprintf(out, len, "%.*s%d%s", (int)(d - pattern), pattern, rank, d + 2);
}

/* Bytes of path, in a new buffer (*out_len); NULL when it cannot be read (said). */
static unsigned char *slurp(const char *path, long *out_len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long len = -1;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) != NULL &&
        fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (f != NULL) fclose(f);
    if (buf == NULL) printf("rank %d: cannot read %s\n", rank, path);
    *out_len = len;
    return buf;
}

/* Route one ROUTE=EXPECTED argument and compare; bytes right go to *right. */
static int check_file(const char *arg, long *right)
{
    char route[SCR_MAX_FILENAME], expect[SCR_MAX_FILENAME], routed[SCR_MAX_FILENAME],
        pattern[SCR_MAX_FILENAME];
    const char *eq = strchr(arg, '=');
    if (eq == NULL) {
        printf("rank %d: argument %s is not ROUTE=EXPECTED\n", rank, arg);
        return 0;
    }
    snprintf(pattern, sizeof(pattern), "%.*s", (int)(eq - arg), arg);
    with_rank(pattern, route, sizeof(route));
    with_rank(eq + 1, expect, sizeof(expect));
    if (SCR_Route_file(route, routed) != SCR_SUCCESS) {
        printf("rank %d: SCR_Route_file %s failed\n", rank, route);
        return 0;
    }
    printf("rank %d: routed %s to %s\n", rank, route, routed);
    long got_len = 0, want_len = 0;
    unsigned char *got = slurp(routed, &got_len), *want = slurp(expect, &want_len);
    int good = got != NULL && want != NULL;
    if (good && got_len != want_len) {
        printf("rank %d: %s has %ld bytes, %ld expected\n", rank, routed, got_len, want_len);
        good = 0;
    }
    for (long i = 0; good && i < got_len; i++) {
        if (got[i] == want[i]) continue;
        printf("rank %d: %s differs at byte %ld\n", rank, routed, i);
        good = 0;
    }
    if (good) *right += got_len;
    free(got);
    free(want);
    return good;
}

int main(int argc, char **argv)
{
    char name[SCR_MAX_FILENAME] = "";
    int flag = 0, good = 1;
    long right = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (SCR_Init() != SCR_SUCCESS) {
        printf("rank %d: SCR_Init failed\n", rank);
        MPI_Finalize();
        return 3;
    }
    if (SCR_Have_restart(&flag, name) != SCR_SUCCESS) {
        printf("rank %d: SCR_Have_restart failed\n", rank);
        good = 0;
    } else if (!flag) {
        printf("rank %d: no restart\n", rank);
        good = 0;
    } else if (SCR_Start_restart(name) != SCR_SUCCESS) {
        printf("rank %d: SCR_Start_restart failed\n", rank);
        good = 0;
    } else {
        printf("rank %d: restarted from %s\n", rank, name);
        for (int i = 1; i < argc; i++)
            if (!check_file(argv[i], &right)) good = 0;
        if (SCR_Complete_restart(good) != SCR_SUCCESS) {
            printf("rank %d: SCR_Complete_restart failed\n", rank);
            good = 0;
        }
        if (good) printf("rank %d: %ld bytes right\n", rank, right);
    }
    fflush(stdout);
    if (SCR_Finalize() != SCR_SUCCESS) good = 0;
    MPI_Finalize();
    return good ? 0 : 1;
}
