/* open_interpose.h — the entry points of a test shim that stands between a
 * program and open(2).
 *
 * A shim (stall_open.c, fail_open.c) defines
 *     static int interposed_open(int dirfd, const char *path, int flags, mode_t mode);
 * and then includes this file, which defines open, openat and their
 * large-file names to read the mode as open(2) does and hand every call to
 * it. The shim does its part and goes to the kernel with syscall(SYS_openat),
 * so that no libc entry is needed whether it was preloaded or linked in. */
#ifndef SCR_TEST_OPEN_INTERPOSE_H
#define SCR_TEST_OPEN_INTERPOSE_H

#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>

/* the mode argument is there only when the flags create a file */
static mode_t interposed_mode_of(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = interposed_mode_of(flags, ap);
    va_end(ap);
    return interposed_open(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = interposed_mode_of(flags, ap);
    va_end(ap);
    return interposed_open(dirfd, path, flags, mode);
}

/* the large-file names are the same calls on a 64-bit system */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

#endif
