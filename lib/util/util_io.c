/* util_io.c — full reads and writes, whole-file reads, atomic replacement,
 * directories made and removed. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "util_io.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int scr_read_full(int fd, void *buf, size_t len, size_t *out_got, const char *path)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            scr_err("read of %s failed: %s", path, strerror(errno));
            return SCR_ERR_IO;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    if (out_got) *out_got = got;
    return SCR_SUCCESS;
}

int scr_write_full(int fd, const void *buf, size_t len, const char *path)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, (const char *)buf + done, len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            scr_err("write to %s failed: %s", path, strerror(errno));
            return SCR_ERR_IO;
        }
        if (n == 0) { /* should not happen for regular files; do not spin */
            scr_err("write to %s made no progress", path);
            return SCR_ERR_IO;
        }
        done += (size_t)n;
    }
    return SCR_SUCCESS;
}

int scr_pread_full(int fd, void *buf, size_t len, uint64_t offset, const char *path)
{
    size_t got = 0;
    int rc = scr_pread_upto(fd, buf, len, offset, &got, path);
    if (rc != SCR_SUCCESS) return rc;
    if (got < len) {
        scr_err("%s ends at byte %llu, before the %zu bytes wanted at byte %llu", path,
                (unsigned long long)(offset + got), len, (unsigned long long)offset);
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

int scr_pwrite_full(int fd, const void *buf, size_t len, uint64_t offset, const char *path)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            scr_err("write to %s at byte %llu failed: %s", path,
                    (unsigned long long)(offset + done), strerror(errno));
            return SCR_ERR_IO;
        }
        if (n == 0) { /* not expected of a regular file; do not spin */
            scr_err("write to %s at byte %llu made no progress", path,
                    (unsigned long long)(offset + done));
            return SCR_ERR_IO;
        }
        done += (size_t)n;
    }
    return SCR_SUCCESS;
}

int scr_pread_upto(int fd, void *buf, size_t len, uint64_t offset, size_t *out_got,
                   const char *path)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            scr_err("read of %s at byte %llu failed: %s", path, (unsigned long long)(offset + done),
                    strerror(errno));
            return SCR_ERR_IO;
        }
        if (n == 0) break;
        done += (size_t)n;
    }
    *out_got = done;
    return SCR_SUCCESS;
}

int scr_fsync_fd(int fd, const char *path)
{
    if (fsync(fd) == 0) return SCR_SUCCESS;
    scr_err("fsync of %s failed: %s", path, strerror(errno));
    return SCR_ERR_IO;
}

int scr_truncate_fd(int fd, uint64_t size, const char *path)
{
    if (ftruncate(fd, (off_t)size) == 0) return SCR_SUCCESS;
    scr_err("cannot size %s to %llu bytes: %s", path, (unsigned long long)size, strerror(errno));
    return SCR_ERR_IO;
}

const char *scr_file_kind(mode_t mode)
{
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a regular file";
}

/* Why open(2) of path with O_NOFOLLOW failed with errno err, in words:
 * ELOOP there means the last component is a symbolic link. */
static void log_open_failure(const char *path, int err)
{
    struct stat st;
    if (err == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        scr_err("refusing %s: it is a symbolic link, and files here are never opened through one",
                path);
    else if (err == ENXIO && lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        scr_err("refusing %s: it is %s, not a regular file", path, scr_file_kind(st.st_mode));
    else
        scr_err("open of %s failed: %s", path, strerror(err));
}

/* scr_open_regular, with symbolic links followed when follow is set. */
static int open_regular(const char *path, int flags, mode_t mode, int follow, int *out_fd)
{
    int fd;
    do {
        fd =
            open(path, flags | (follow ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int err = errno;
        if (err == ENOENT && !(flags & O_CREAT)) return SCR_ERR_NOTFOUND;
        log_open_failure(path, err);
        return SCR_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        scr_err("stat of %s failed: %s", path, strerror(errno));
        close(fd);
        return SCR_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        scr_err("refusing %s: it is %s, not a regular file", path, scr_file_kind(st.st_mode));
        close(fd);
        return SCR_ERR_IO;
    }
    /* O_NONBLOCK only kept open(2) from waiting on a FIFO's other end; on a
     * regular file it is harmless, but a locked region must still wait */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || ((fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)) {
        scr_err("fcntl of %s failed: %s", path, strerror(errno));
        close(fd);
        return SCR_ERR_IO;
    }
    *out_fd = fd;
    return SCR_SUCCESS;
}

int scr_open_regular(const char *path, int flags, mode_t mode, int *out_fd)
{
    return open_regular(path, flags, mode, 0, out_fd);
}

int scr_read_fd(int fd, const char *path, size_t max_bytes, void **out_buf, size_t *out_len)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        scr_err("stat of %s failed: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        scr_err("refusing %s: it is %s, not a regular file", path, scr_file_kind(st.st_mode));
        return SCR_ERR_IO;
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > max_bytes) {
        scr_err("%s: file of %lld bytes is larger than the %zu bytes accepted", path,
                (long long)st.st_size, max_bytes);
        return SCR_ERR_FORMAT;
    }
    size_t size = (size_t)st.st_size;
    /* one spare byte lets us notice a file that grew since fstat */
    char *buf = malloc(size + 1);
    if (buf == NULL) {
        scr_err("%s: out of memory reading %zu bytes", path, size);
        return SCR_ERR_NOMEM;
    }
    /* from byte 0 wherever the descriptor stands; a short read of a regular
     * file is its end, so a file read whole costs one call, which matters
     * to a scan of 100,000 rank filemaps */
    size_t got = 0;
    int rc = SCR_SUCCESS;
    while (got <= size) {
        ssize_t n = pread(fd, buf + got, size + 1 - got, (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            scr_err("read of %s failed: %s", path, strerror(errno));
            rc = SCR_ERR_IO;
            break;
        }
        got += (size_t)n;
        if (n == 0 || (got == size && S_ISREG(st.st_mode))) break;
    }
    if (rc == SCR_SUCCESS && got != size) {
        scr_err("%s changed size while being read (%zu bytes, expected %zu)", path, got, size);
        rc = SCR_ERR_IO;
    }
    if (rc != SCR_SUCCESS) {
        free(buf);
        return rc;
    }
    *out_buf = buf;
    *out_len = size;
    return SCR_SUCCESS;
}

/* A whole file read as scr_read_file says, links followed or not. */
static int read_file(const char *path, int follow, size_t max_bytes, void **out_buf,
                     size_t *out_len)
{
    int fd;
    int rc = open_regular(path, O_RDONLY, 0, follow, &fd);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_read_fd(fd, path, max_bytes, out_buf, out_len);
    close(fd);
    return rc;
}

int scr_read_file(const char *path, size_t max_bytes, void **out_buf, size_t *out_len)
{
    return read_file(path, 0, max_bytes, out_buf, out_len);
}

int scr_read_file_following(const char *path, size_t max_bytes, void **out_buf, size_t *out_len)
{
    return read_file(path, 1, max_bytes, out_buf, out_len);
}

/* Directory part of path ("." when it has none), in a new string. */
static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int scr_fsync_parent(const char *path)
{
    char *dir = parent_of(path);
    if (dir == NULL) {
        scr_err("out of memory syncing the directory of %s", path);
        return SCR_ERR_NOMEM;
    }
    int rc = SCR_SUCCESS;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        scr_err("open of directory %s failed: %s", dir, strerror(errno));
        rc = SCR_ERR_IO;
    } else {
        /* some file systems cannot fsync a directory; their renames are durable anyway */
        if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP) {
            scr_err("fsync of directory %s failed: %s", dir, strerror(errno));
            rc = SCR_ERR_IO;
        }
        close(fd);
    }
    free(dir);
    return rc;
}

/* Create a temporary file next to path, honouring the umask. Returns its
 * descriptor, as open() does, or -1 when none could be made (logged). */
static int open_temp(const char *path, char *tmp, size_t tmplen)
{
    static unsigned counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned r = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL) ^ (++counter * 40503u);
        int n = snprintf(tmp, tmplen, "%s.tmp.%d.%08x", path, (int)getpid(), r);
        if (n < 0 || (size_t)n >= tmplen) {
            scr_err("path too long for a temporary file: %s", path);
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) {
            if (fd < 0) scr_err("create of %s failed: %s", tmp, strerror(errno));
            return fd;
        }
    }
    scr_err("could not create a unique temporary file next to %s", path);
    return -1;
}

/* Write len bytes of buf to a new temporary file next to path and sync it;
 * with keep_mode, it takes the mode of an existing path. The name is left in
 * tmp; on failure nothing is left behind. */
static int write_temp(const char *path, const void *buf, size_t len, int keep_mode, char *tmp,
                      size_t tmplen)
{
    int fd = open_temp(path, tmp, tmplen);
    if (fd < 0) return SCR_ERR_IO;
    int rc = SCR_SUCCESS;
    struct stat st;
    if (keep_mode && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        fchmod(fd, st.st_mode & 07777) != 0) {
        scr_err("chmod of %s failed: %s", tmp, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) rc = scr_write_full(fd, buf, len, tmp);
    if (rc == SCR_SUCCESS && fsync(fd) != 0) {
        scr_err("fsync of %s failed: %s", tmp, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (close(fd) != 0 && rc == SCR_SUCCESS) {
        scr_err("close of %s failed: %s", tmp, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc != SCR_SUCCESS) unlink(tmp);
    return rc;
}

int scr_write_atomic(const char *path, const void *buf, size_t len)
{
    char tmp[4096 + 64];
    int rc = write_temp(path, buf, len, 1, tmp, sizeof(tmp));
    if (rc != SCR_SUCCESS) return rc;
    if (rename(tmp, path) != 0) {
        scr_err("rename of %s to %s failed: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return SCR_ERR_IO;
    }
    return scr_fsync_parent(path);
}

/* Where the file system has no hard links: create path exclusively and
 * write it in place (for a moment it is shorter than buf). */
static int create_in_place(const char *path, const void *buf, size_t len, int *out_created)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == EEXIST) return SCR_SUCCESS;
        scr_err("create of %s failed: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    *out_created = 1;
    int rc = scr_write_full(fd, buf, len, path);
    if (rc == SCR_SUCCESS && fsync(fd) != 0) {
        scr_err("fsync of %s failed: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (close(fd) != 0 && rc == SCR_SUCCESS) {
        scr_err("close of %s failed: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    return rc;
}

int scr_write_new(const char *path, const void *buf, size_t len, int *out_created)
{
    char tmp[4096 + 64], *dir = parent_of(path);
    struct stat st;
    *out_created = 0;
    if (dir == NULL) {
        scr_err("out of memory creating %s", path);
        return SCR_ERR_NOMEM;
    }
    int missing_dir = stat(dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
    free(dir);
    if (missing_dir) return SCR_ERR_NOTFOUND;
    int rc = write_temp(path, buf, len, 0, tmp, sizeof(tmp));
    if (rc != SCR_SUCCESS) return rc;
    /* link() never replaces path, so a file someone else created meanwhile stays */
    if (link(tmp, path) == 0) {
        *out_created = 1;
    } else if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS) {
        rc = create_in_place(path, buf, len, out_created);
    } else if (errno != EEXIST) {
        scr_err("link of %s to %s failed: %s", tmp, path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (unlink(tmp) != 0 && rc == SCR_SUCCESS) {
        scr_err("cannot remove %s: %s", tmp, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS && *out_created) rc = scr_fsync_parent(path);
    return rc;
}

int scr_mkdir_p(const char *path, mode_t mode)
{
    char *copy = strdup(path);
    if (copy == NULL) {
        scr_err("out of memory creating directory %s", path);
        return SCR_ERR_NOMEM;
    }
    int rc = SCR_SUCCESS;
    for (char *p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, mode) != 0 && errno != EEXIST) {
            scr_err("mkdir of %s failed: %s", copy, strerror(errno));
            rc = SCR_ERR_IO;
            break;
        }
        *p = saved;
        if (saved == '\0') break;
    }
    if (rc == SCR_SUCCESS) {
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            scr_err("%s exists but is not a directory", path);
            rc = SCR_ERR_IO;
        }
    }
    free(copy);
    return rc;
}

static __thread int
    remove_tree_failed; /* an entry stayed, in the walk under way (nftw has no context) */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    if (remove(path) != 0 && errno != ENOENT) {
        scr_warn("cannot remove %s: %s", path, strerror(errno));
        remove_tree_failed = 1;
    }
    return 0; /* go on: remove what can be removed */
}

int scr_remove_tree(const char *dir)
{
    remove_tree_failed = 0;
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        if (errno == ENOENT) return SCR_SUCCESS; /* nothing there */
        scr_warn("cannot remove all of %s: %s", dir, strerror(errno));
        return SCR_ERR_IO;
    }
    return remove_tree_failed ? SCR_ERR_IO : SCR_SUCCESS;
}
