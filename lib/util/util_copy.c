/* util_copy.c — file copies and file checksums in one pass. */
#define _GNU_SOURCE /* sync_file_range */
#include "util_copy.h"
#include "scr_err.h"
#include "util_compress.h"
#include "util_copy_timed.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
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

/* Write-behind: the piece at [off, off+len) of fd starts going to disk
 * now, and the one before it ([prev, off)) is waited for, so that the disk
 * works while the copy goes on and the final fsync has little left to do.
 * A file system that cannot (EINVAL, ENOSYS, ESPIPE) is left to the fsync;
 * *on is then cleared. */
static int write_behind(int fd, const char *dst, uint64_t prev, uint64_t off, size_t len, int *on)
{
    int rc = sync_file_range(fd, (off64_t)off, (off64_t)len, SYNC_FILE_RANGE_WRITE);
    if (rc == 0 && off > prev)
        rc = sync_file_range(fd, (off64_t)prev, (off64_t)(off - prev),
                             SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                 SYNC_FILE_RANGE_WAIT_AFTER);
    if (rc == 0) return SCR_SUCCESS;
    if (errno == EINVAL || errno == ENOSYS || errno == ESPIPE) {
        *on = 0;
        return SCR_SUCCESS;
    }
    scr_err("writing %s to disk failed: %s", dst, strerror(errno));
    return SCR_ERR_IO;
}

/* Up to p->bufsize bytes from p->in to p->out inside the kernel; *got = 0
 * at the end of the file. A pair of files the kernel cannot do this for,
 * or any failure, clears *on and leaves the piece to read and write, which
 * then says what failed in the words every copy uses. */
static void send_piece(const struct scr_pump *p, size_t *got, int *on)
{
    ssize_t n;
    do n = sendfile(p->out, p->in, NULL, p->bufsize);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        *on = 0;
        n = 0;
    }
    *got = (size_t)n;
}

/* Read all of p->in, writing to p->out when it is >= 0, each piece
 * written behind (write_behind) before the pace is told. Without a CRC the
 * bytes move inside the kernel where it can. */
static int pump_raw(const struct scr_pump *p, struct scr_copy_result *out)
{
    int behind = p->out >= 0, in_kernel = p->out >= 0 && !p->o->crc;
    uint64_t prev = 0;
    out->bytes = 0;
    out->crc = 0;
    for (;;) {
        size_t got = 0;
        int rc = SCR_SUCCESS;
        if (in_kernel) send_piece(p, &got, &in_kernel);
        if (!in_kernel) {
            rc = scr_read_full(p->in, p->buf, p->bufsize, &got, p->src);
            if (rc != SCR_SUCCESS) return rc;
            if (p->o->crc) out->crc = scr_crc32(out->crc, p->buf, got);
            if (p->out >= 0 && got > 0) rc = scr_write_full(p->out, p->buf, got, p->dst);
            if (rc != SCR_SUCCESS) return rc;
        }
        if (got == 0) return SCR_SUCCESS;
        if (behind) {
            rc = write_behind(p->out, p->dst, prev, out->bytes, got, &behind);
            if (rc != SCR_SUCCESS) return rc;
            prev = out->bytes;
        }
        out->bytes += got;
        if (p->o->pace != NULL) {
            rc = p->o->pace(p->o->pace_ctx, got);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
}

/* Move the bytes of p->in to p->out in the form asked for. A file that does
 * not compress is copied raw from its start. */
static int pump_as(const struct scr_pump *p, struct scr_copy_result *out)
{
    int raw = 1, rc = SCR_SUCCESS;
    out->stored.compressed = 0;
    if (p->o->form == SCR_COPY_GUNZIP) return scr_gunzip_pump(p, out);
    if (p->o->form == SCR_COPY_GZIP) {
        rc = scr_gzip_pump(p, out, &raw);
        if (rc != SCR_SUCCESS || !raw) return rc;
        /* the probe did not shrink: the whole file goes raw, read again from its start */
        if (lseek(p->in, 0, SEEK_SET) != 0) {
            scr_err("cannot rewind %s to copy it uncompressed: %s", p->src, strerror(errno));
            return SCR_ERR_IO;
        }
    }
    rc = pump_raw(p, out);
    out->stored.bytes = out->bytes;
    return rc;
}

int scr_crc_file(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out)
{
    struct scr_copy_opts o = {.crc = 1};
    struct scr_pump p = {.src = path, .out = -1, .buf = buf, .bufsize = bufsize, .o = &o};
    int rc = open_file(path, O_RDONLY, 0, &p.in);
    if (rc != SCR_SUCCESS) return rc;
    rc = pump_raw(&p, out);
    out->stored.bytes = out->bytes;
    out->stored.compressed = 0;
    close(p.in);
    return rc;
}

int scr_crc_file_l2(const char *path, uint32_t *out_crc, uint64_t *out_len)
{
    void *buf = malloc(SCR_CRC_PIECE);
    if (buf == NULL) {
        scr_err("out of memory for a buffer of %zu bytes to check %s", SCR_CRC_PIECE, path);
        return SCR_ERR_NOMEM;
    }
    struct scr_copy_result got;
    int rc = scr_crc_file(path, buf, SCR_CRC_PIECE, &got);
    free(buf);
    if (rc != SCR_SUCCESS) return rc;
    *out_crc = got.crc;
    if (out_len != NULL) *out_len = got.bytes;
    return SCR_SUCCESS;
}

int scr_crc_file_gunzip(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out)
{
    struct scr_copy_opts o = {.crc = 1, .form = SCR_COPY_GUNZIP};
    struct scr_pump p = {.src = path, .out = -1, .buf = buf, .bufsize = bufsize, .o = &o};
    int rc = open_file(path, O_RDONLY, 0, &p.in);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_gunzip_pump(&p, out);
    close(p.in);
    return rc;
}

/* Open both ends of a copy (dst's directories made), pump, sync; a copy
 * that failed is removed. */
static int copy_here(const char *src, const char *dst, const struct scr_copy_opts *o, void *buf,
                     struct scr_copy_result *out)
{
    struct scr_pump p = {
        .src = src, .dst = dst, .out = -1, .buf = buf, .bufsize = o->bufsize, .o = o};
    int rc = open_file(src, O_RDONLY, 0, &p.in);
    if (rc != SCR_SUCCESS) return rc;
    char *dir = NULL;
    rc = scr_path_dirname(dst, &dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0777);
    free(dir);
    if (rc == SCR_SUCCESS) {
        rc = open_file(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666, &p.out);
        if (rc != SCR_SUCCESS) p.out = -1;
    }
    if (rc == SCR_SUCCESS) rc = pump_as(&p, out);
    if (rc == SCR_SUCCESS && fsync(p.out) != 0) {
        scr_err("fsync of %s failed: %s", dst, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (p.out >= 0 && close(p.out) != 0 && rc == SCR_SUCCESS) {
        scr_err("close of %s failed: %s", dst, strerror(errno));
        rc = SCR_ERR_IO;
    }
    close(p.in);
    if (rc != SCR_SUCCESS && p.out >= 0) unlink(dst); /* never leave half a copy */
    return rc;
}

int scr_copy(const char *src, const char *dst, const struct scr_copy_opts *o,
             struct scr_copy_result *out)
{
    if (o != NULL && o->form == SCR_COPY_GZIP && (o->level < 1 || o->level > 9)) {
        scr_err("compressed copy of %s asked for level %d; zlib's levels are 1 to 9",
                src ? src : "(null)", o->level);
        return SCR_ERR_ARG;
    }
    if (src == NULL || dst == NULL || o == NULL || o->bufsize == 0 || out == NULL) {
        scr_err("file copy called without a source, a destination or a buffer");
        return SCR_ERR_ARG;
    }
    if (o->timeout < 0 || (o->timeout > 0 && (o->kind == NULL || o->pace != NULL))) {
        scr_err("timed copy of %s called with a time limit of %d s, %s", src, o->timeout,
                o->timeout < 0    ? "below zero"
                : o->kind == NULL ? "without a kind"
                                  : "with a pace");
        return SCR_ERR_ARG;
    }
    memset(out, 0, sizeof(*out));
    if (o->timeout > 0) return scr_copy_in_thread(src, dst, o, out, scr_copy);
    void *buf = o->buf;
    if (buf == NULL && (buf = malloc(o->bufsize)) == NULL) {
        scr_err("out of memory for a copy of %s with a buffer of %zu bytes", src, o->bufsize);
        return SCR_ERR_NOMEM;
    }
    int rc = copy_here(src, dst, o, buf, out);
    if (buf != o->buf) free(buf);
    return rc;
}
