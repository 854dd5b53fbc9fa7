/* util_strbuf.c — a growable string of bytes whose every allocation is checked. */
#include "util_strbuf.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIRST_CAP 64
/* what scr_strbuf_read_fd asks of read() at a time, at least */
#define READ_CHUNK 4096

void scr_strbuf_init(scr_strbuf *sb)
{
    sb->buf = NULL;
    sb->len = 0;
    sb->cap = 0;
    sb->failed = 0;
}

void scr_strbuf_reset(scr_strbuf *sb)
{
    sb->len = 0;
    sb->failed = 0;
    if (sb->buf != NULL) sb->buf[0] = '\0';
}

void scr_strbuf_truncate(scr_strbuf *sb, size_t len)
{
    if (len >= sb->len) return;
    sb->len = len;
    sb->buf[len] = '\0';
}

void scr_strbuf_free(scr_strbuf *sb)
{
    free(sb->buf);
    scr_strbuf_init(sb);
}

int scr_strbuf_reserve(scr_strbuf *sb, size_t extra)
{
    if (sb->failed) return SCR_ERR_NOMEM;
    /* room for the bytes held, the new ones and the NUL, refusing a sum that wraps */
    if (extra > SIZE_MAX - 1 - sb->len) {
        scr_err("out of memory: a buffer of %zu bytes cannot grow by %zu more", sb->len, extra);
        sb->failed = 1;
        return SCR_ERR_NOMEM;
    }
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap) return SCR_SUCCESS;
    size_t cap = sb->cap ? sb->cap : FIRST_CAP;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *grown = realloc(sb->buf, cap);
    if (grown == NULL) {
        scr_err("out of memory growing a buffer to %zu bytes", cap);
        sb->failed = 1;
        return SCR_ERR_NOMEM;
    }
    sb->buf = grown;
    sb->cap = cap;
    return SCR_SUCCESS;
}

void *scr_strbuf_append_space(scr_strbuf *sb, size_t n)
{
    if (scr_strbuf_reserve(sb, n) != SCR_SUCCESS) return NULL;
    char *at = sb->buf + sb->len;
    sb->len += n;
    sb->buf[sb->len] = '\0';
    return at;
}

int scr_strbuf_append(scr_strbuf *sb, const void *bytes, size_t n)
{
    char *at = scr_strbuf_append_space(sb, n);
    if (at == NULL) return SCR_ERR_NOMEM;
    if (n > 0) memcpy(at, bytes, n);
    return SCR_SUCCESS;
}

int scr_strbuf_append_str(scr_strbuf *sb, const char *s)
{
    return scr_strbuf_append(sb, s, strlen(s));
}

int scr_strbuf_vappendf(scr_strbuf *sb, const char *fmt, va_list ap)
{
    if (sb->failed) return SCR_ERR_NOMEM;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) {
        va_end(again);
        scr_err("cannot format \"%s\": %s", fmt, strerror(errno));
        return SCR_ERR_FORMAT;
    }
    int rc = scr_strbuf_reserve(sb, (size_t)n);
    if (rc == SCR_SUCCESS) {
        /* the room for the NUL is reserved, so the text fits whole */
        vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
    return rc;
}

int scr_strbuf_appendf(scr_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = scr_strbuf_vappendf(sb, fmt, ap);
    va_end(ap);
    return rc;
}

int scr_strbuf_read_fd(scr_strbuf *sb, int fd, size_t max_bytes)
{
    size_t start = sb->len;
    for (;;) {
        int rc = scr_strbuf_reserve(sb, READ_CHUNK);
        if (rc != SCR_SUCCESS) return rc;
        /* all the free room but the NUL's */
        ssize_t got = read(fd, sb->buf + sb->len, sb->cap - 1 - sb->len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            sb->buf[sb->len] = '\0';
            return SCR_ERR_IO;
        }
        sb->len += (size_t)got;
        sb->buf[sb->len] = '\0';
        if (sb->len - start > max_bytes) return SCR_ERR_FORMAT;
        if (got == 0) return SCR_SUCCESS;
    }
}

int scr_strbuf_status(const scr_strbuf *sb)
{
    return sb->failed ? SCR_ERR_NOMEM : SCR_SUCCESS;
}

int scr_strbuf_detach(scr_strbuf *sb, char **out_buf, size_t *out_len)
{
    *out_buf = NULL;
    if (out_len != NULL) *out_len = 0;
    if (sb->failed) {
        scr_strbuf_free(sb);
        return SCR_ERR_NOMEM;
    }
    if (sb->buf == NULL && scr_strbuf_reserve(sb, 0) != SCR_SUCCESS) return SCR_ERR_NOMEM;
    sb->buf[sb->len] = '\0';
    *out_buf = sb->buf;
    if (out_len != NULL) *out_len = sb->len;
    scr_strbuf_init(sb);
    return SCR_SUCCESS;
}
