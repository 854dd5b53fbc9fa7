/* util_copy.c — file copies and file checksums in one pass through a buffer. */
#define _GNU_SOURCE /* sync_file_range */
#include "util_copy.h"
#include "scr_err.h"
#include "util_compress.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Open path as scr_open_regular does (no symbolic link, nothing but a
 * regular file), saying so when it is missing too: a copy or a checksum
 * names its file. */
static int open_file(const char *path, int flags, mode_t mode, int *out_fd)
{
    int rc = scr_open_regular(path, flags, mode, out_fd);
    if (rc == SCR_ERR_NOTFOUND) scr_err("cannot open %s: %s", path, strerror(ENOENT));
    return rc;
}

/* Write-behind of a paced copy: the piece at [off, off+len) of fd starts
 * going to disk now, and the one before it ([prev, off)) is waited for, so
 * that the pace sees the disk's time piece by piece and the final fsync
 * has little left to do. A file system that cannot (EINVAL, ENOSYS,
 * ESPIPE) is left to the fsync; *on is then cleared. */
static int write_behind(int fd, const char *dst, uint64_t prev, uint64_t off, size_t len, int *on)
{
    int rc = sync_file_range(fd, (off64_t)off, (off64_t)len, SYNC_FILE_RANGE_WRITE);
    if (rc == 0 && off > prev)
        rc = sync_file_range(fd, (off64_t)prev, (off64_t)(off - prev),
                             SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    if (rc == 0) return SCR_SUCCESS;
    if (errno == EINVAL || errno == ENOSYS || errno == ESPIPE) {
        *on = 0;
        return SCR_SUCCESS;
    }
    scr_err("writing %s to disk failed: %s", dst, strerror(errno));
    return SCR_ERR_IO;
}

/* Read all of fd through buf, writing to out_fd when it is >= 0. A paced
 * copy (pace set) writes behind (write_behind) and then calls pace. */
static int pump(int fd, const char *src, int out_fd, const char *dst, void *buf, size_t bufsize,
                int with_crc, int (*pace)(void *, size_t), void *pace_ctx, struct scr_copy_result *out)
{
    int behind = pace != NULL && out_fd >= 0;
    uint64_t prev = 0;
    out->bytes = 0;
    out->crc = 0;
    for (;;) {
        size_t got = 0;
        int rc = scr_read_full(fd, buf, bufsize, &got, src);
        if (rc != SCR_SUCCESS) return rc;
        if (got == 0) return SCR_SUCCESS;
        if (with_crc) out->crc = scr_crc32(out->crc, buf, got);
        if (out_fd >= 0) {
            rc = scr_write_full(out_fd, buf, got, dst);
            if (rc != SCR_SUCCESS) return rc;
        }
        if (behind) {
            rc = write_behind(out_fd, dst, prev, out->bytes, got, &behind);
            if (rc != SCR_SUCCESS) return rc;
            prev = out->bytes;
        }
        out->bytes += got;
        if (pace != NULL) {
            rc = pace(pace_ctx, got);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
}

int scr_crc_file(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out)
{
    int fd;
    int rc = open_file(path, O_RDONLY, 0, &fd);
    if (rc != SCR_SUCCESS) return rc;
    rc = pump(fd, path, -1, NULL, buf, bufsize, 1, NULL, NULL, out);
    close(fd);
    return rc;
}

int scr_crc_file_gunzip(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out,
                        struct scr_copy_stored *stored)
{
    struct scr_copy_stored ignored;
    int fd;
    int rc = open_file(path, O_RDONLY, 0, &fd);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_gunzip_pump(fd, path, -1, NULL, buf, bufsize, 1, NULL, NULL, out,
                             stored != NULL ? stored : &ignored);
    close(fd);
    return rc;
}

int scr_copy_file(const char *src, const char *dst, void *buf, size_t bufsize, int with_crc,
                  struct scr_copy_result *out)
{
    return scr_copy_file_paced(src, dst, buf, bufsize, with_crc, NULL, NULL, out);
}

int scr_copy_file_paced(const char *src, const char *dst, void *buf, size_t bufsize, int with_crc,
                        int (*pace)(void *pace_ctx, size_t bytes), void *pace_ctx, struct scr_copy_result *out)
{
    return scr_copy_file_as(src, dst, buf, bufsize, with_crc, SCR_COPY_RAW, 0, pace, pace_ctx, out, NULL);
}

/* Move the bytes of in to outfd in the form asked for. A file that does
 * not compress is copied raw from its start. */
static int pump_as(int in, const char *src, int outfd, const char *dst, void *buf, size_t bufsize, int with_crc,
                   enum scr_copy_form form, int level, int (*pace)(void *, size_t), void *pace_ctx,
                   struct scr_copy_result *out, struct scr_copy_stored *stored)
{
    int raw = 1, rc = SCR_SUCCESS;
    stored->compressed = 0;
    if (form == SCR_COPY_GUNZIP)
        return scr_gunzip_pump(in, src, outfd, dst, buf, bufsize, with_crc, pace, pace_ctx, out, stored);
    if (form == SCR_COPY_GZIP) {
        rc = scr_gzip_pump(in, src, outfd, dst, buf, bufsize, level, with_crc, pace, pace_ctx, out, stored, &raw);
        if (rc != SCR_SUCCESS || !raw) return rc;
        /* the probe did not shrink: the whole file goes raw, read again from its start */
        if (lseek(in, 0, SEEK_SET) != 0) {
            scr_err("cannot rewind %s to copy it uncompressed: %s", src, strerror(errno));
            return SCR_ERR_IO;
        }
    }
    rc = pump(in, src, outfd, dst, buf, bufsize, with_crc, pace, pace_ctx, out);
    stored->bytes = out->bytes;
    return rc;
}

int scr_copy_file_as(const char *src, const char *dst, void *buf, size_t bufsize, int with_crc,
                     enum scr_copy_form form, int level, int (*pace)(void *pace_ctx, size_t bytes), void *pace_ctx,
                     struct scr_copy_result *out, struct scr_copy_stored *stored)
{
    struct scr_copy_stored ignored;
    if (stored == NULL) stored = &ignored;
    if (form == SCR_COPY_GZIP && (level < 1 || level > 9)) {
        scr_err("compressed copy of %s asked for level %d; zlib's levels are 1 to 9", src ? src : "(null)", level);
        return SCR_ERR_ARG;
    }
    if (src == NULL || dst == NULL || buf == NULL || bufsize == 0 || out == NULL) {
        scr_err("file copy called without a source, a destination or a buffer");
        return SCR_ERR_ARG;
    }
    int in;
    int rc = open_file(src, O_RDONLY, 0, &in);
    if (rc != SCR_SUCCESS) return rc;
    char *dir = NULL;
    rc = scr_path_dirname(dst, &dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0777);
    free(dir);
    int outfd = -1;
    if (rc == SCR_SUCCESS) {
        rc = open_file(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666, &outfd);
        if (rc != SCR_SUCCESS) outfd = -1;
    }
    if (rc == SCR_SUCCESS)
        rc = pump_as(in, src, outfd, dst, buf, bufsize, with_crc, form, level, pace, pace_ctx, out, stored);
    if (rc == SCR_SUCCESS && fsync(outfd) != 0) {
        scr_err("fsync of %s failed: %s", dst, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (outfd >= 0 && close(outfd) != 0 && rc == SCR_SUCCESS) {
        scr_err("close of %s failed: %s", dst, strerror(errno));
        rc = SCR_ERR_IO;
    }
    close(in);
    if (rc != SCR_SUCCESS && outfd >= 0) unlink(dst); /* never leave half a copy */
    return rc;
}
