/* stall_open.c — a file system that stops answering, for tests.
 *
 * Preloaded (LD_PRELOAD) into a program, or linked into a test program,
 * it holds every open(2) of a path that contains $SCR_TEST_STALL_OPEN until
 * the file $SCR_TEST_STALL_RELEASE exists, as a hung NFS or Lustre server
 * holds the call in the kernel; then the open goes on as it would have.
 * Nothing in the library knows of it: the library sees an open that takes
 * as long as the file system takes. Without $SCR_TEST_STALL_OPEN every
 * open goes straight through. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Hold the caller while path is one the test stalls and no release is there. */
static void stall_if_asked(const char *path)
{
    const char *part = getenv("SCR_TEST_STALL_OPEN");
    const char *release = getenv("SCR_TEST_STALL_RELEASE");
    if (part == NULL || part[0] == '\0' || path == NULL || strstr(path, part) == NULL) return;
    struct timespec nap = {0, 20 * 1000 * 1000};
    struct stat st;
    while (release == NULL || stat(release, &st) != 0) nanosleep(&nap, NULL);
}

/* The open itself goes to the kernel directly: the library's calls come
 * here whether it was preloaded or linked in, and no libc entry is needed. */
static int interposed_open(int dirfd, const char *path, int flags, mode_t mode)
{
    stall_if_asked(path);
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

#include "open_interpose.h"
