/* tap.h — a tiny TAP producer for the C tests.
 *
 * Each test is a void function; main() runs them with RUN(name), which prints
 * "ok N - name" or "not ok N - name", then returns tap_done() as the exit
 * status. CHECK(cond, fmt, ...) records a failure with a diagnostic line
 * ("# file:line: cond: message") and lets the test go on; REQUIRE returns
 * from the test at once. tap_tmpdir() gives a fresh directory per program,
 * removed at exit unless the program failed (kept for inspection). */
#ifndef SCR_TESTS_TAP_H
#define SCR_TESTS_TAP_H

#define _GNU_SOURCE
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_number;
static int tap_failures;
static int tap_current_failed;
static char tap_dir[4096];

static void tap_diag(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), unused));

static void tap_diag(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    printf("# %s:%d: check failed: %s: ", file, line, cond);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    tap_current_failed = 1;
}

#define CHECK(cond, ...)                                               \
    do {                                                               \
        if (!(cond)) tap_diag(__FILE__, __LINE__, #cond, __VA_ARGS__); \
    } while (0)

#define REQUIRE(cond, ...)                                    \
    do {                                                      \
        if (!(cond)) {                                        \
            tap_diag(__FILE__, __LINE__, #cond, __VA_ARGS__); \
            return;                                           \
        }                                                     \
    } while (0)

#define RUN(test)                                                                        \
    do {                                                                                 \
        tap_current_failed = 0;                                                          \
        test();                                                                          \
        tap_number++;                                                                    \
        if (tap_current_failed) tap_failures++;                                          \
        printf("%s %d - %s\n", tap_current_failed ? "not ok" : "ok", tap_number, #test); \
        fflush(stdout);                                                                  \
    } while (0)

static int tap_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void tap_cleanup(void)
{
    if (tap_dir[0] != '\0' && tap_failures == 0)
        nftw(tap_dir, tap_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A scratch directory for this test program (created on first use). */
static const char *tap_tmpdir(void) __attribute__((unused));
static const char *tap_tmpdir(void)
{
    if (tap_dir[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(tap_dir, sizeof(tap_dir), "%s/scr-test.XXXXXX", base ? base : "/tmp");
        if (mkdtemp(tap_dir) == NULL) {
            perror("mkdtemp");
            exit(99);
        }
        atexit(tap_cleanup);
    }
    return tap_dir;
}

/* Path of name inside the scratch directory (static buffer, rotates 8 slots). */
static const char *tap_path(const char *name) __attribute__((unused));
static const char *tap_path(const char *name)
{
    static char bufs[8][8192];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 8192, "%s/%s", tap_tmpdir(), name);
    return b;
}

/* Path of a file in the source tree's tests/data directory. */
static const char *tap_data(const char *name) __attribute__((unused));
static const char *tap_data(const char *name)
{
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next++ % 4];
    const char *top = getenv("top_srcdir");
    snprintf(b, 4096, "%s/tests/data/%s", top ? top : ".", name);
    return b;
}

static int tap_done(void)
{
    printf("1..%d\n", tap_number);
    return tap_failures ? 1 : 0;
}

#endif
