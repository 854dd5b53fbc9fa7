/* fail_open.c — a file that cannot be read, for tests.
 *
 * Preloaded (LD_PRELOAD) into a program, it fails with EIO every open(2)
 * for reading only of a path that matches the shell pattern
 * $SCR_TEST_FAIL_OPEN ('*' matches '/' too), as a disk that lost the file's
 * blocks would; opens for writing, and every open without the variable, go
 * through. Nothing in the library knows of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fails(const char *path, int flags)
{
    const char *pattern = getenv("SCR_TEST_FAIL_OPEN");
    return pattern != NULL && pattern[0] != '\0' && path != NULL && (flags & O_ACCMODE) == O_RDONLY &&
           fnmatch(pattern, path, 0) == 0;
}

static mode_t mode_of(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/* The open itself goes to the kernel directly: no libc entry is needed. */
static int checked_open(int dirfd, const char *path, int flags, mode_t mode)
{
    if (fails(path, flags)) {
        errno = EIO;
        return -1;
    }
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return checked_open(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return checked_open(dirfd, path, flags, mode);
}

/* the large-file names are the same calls on a 64-bit system */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));
