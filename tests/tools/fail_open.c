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
    return pattern != NULL && pattern[0] != '\0' && path != NULL &&
           (flags & O_ACCMODE) == O_RDONLY && fnmatch(pattern, path, 0) == 0;
}

/* The open itself goes to the kernel directly: no libc entry is needed. */
static int interposed_open(int dirfd, const char *path, int flags, mode_t mode)
{
    if (fails(path, flags)) {
        errno = EIO;
        return -1;
    }
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

#include "open_interpose.h"
