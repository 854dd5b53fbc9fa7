/* util_compress.c — gzip streams written and read by zlib, the CRC of the
 * uncompressed bytes taken on the way. */
#include "util_compress.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* windowBits for deflateInit2/inflateInit2: 15 (32 KiB) plus 16 asks for
 * the gzip header and trailer instead of zlib's */
#define GZIP_WINDOW (15 + 16)
#define MEM_LEVEL 8

/* zlib counts in uInt: a buffer handed to it at once stays below 1 GiB */
static uInt zlen(size_t n)
{
    return n > ((size_t)1 << 30) ? (uInt)1 << 30 : (uInt)n;
}

/* Write the n bytes at p to out and tell the pace. */
static int emit(int out, const char *dst, const void *p, size_t n, int (*pace)(void *, size_t), void *pace_ctx,
                struct scr_copy_stored *stored)
{
    if (n == 0) return SCR_SUCCESS;
    if (out >= 0) {
        int rc = scr_write_full(out, p, n, dst);
        if (rc != SCR_SUCCESS) return rc;
    }
    stored->bytes += n;
    return pace != NULL ? pace(pace_ctx, n) : SCR_SUCCESS;
}

/* Deflate what zs holds as input (flush: Z_NO_FLUSH or Z_FINISH) into
 * obuf (olen bytes), writing each full buffer. */
static int deflate_out(z_stream *zs, int flush, unsigned char *obuf, size_t olen, int out, const char *dst,
                       int (*pace)(void *, size_t), void *pace_ctx, struct scr_copy_stored *stored)
{
    for (;;) {
        zs->next_out = obuf;
        zs->avail_out = zlen(olen);
        int z = deflate(zs, flush);
        if (z == Z_STREAM_ERROR) {
            scr_err("compressing into %s failed: zlib's stream is inconsistent", dst);
            return SCR_FAILURE;
        }
        size_t made = zlen(olen) - zs->avail_out;
        int rc = emit(out, dst, obuf, made, pace, pace_ctx, stored);
        if (rc != SCR_SUCCESS) return rc;
        if (flush == Z_FINISH ? z == Z_STREAM_END : zs->avail_out != 0) return SCR_SUCCESS;
    }
}

/* The probe: deflate up to SCR_COMPRESS_PROBE_BYTES of in into held (room
 * bytes, enough for deflateBound of the probe, so it never fills up).
 * *out_eof when the file ended within the probe (the stream is then
 * finished). */
static int deflate_probe(z_stream *zs, int in, const char *src, void *buf, size_t bufsize, int with_crc,
                         unsigned char *held, size_t room, struct scr_copy_result *res, int *out_eof)
{
    zs->next_out = held;
    zs->avail_out = zlen(room);
    *out_eof = 0;
    while (res->bytes < SCR_COMPRESS_PROBE_BYTES) {
        size_t want = SCR_COMPRESS_PROBE_BYTES - (size_t)res->bytes;
        size_t got = 0;
        int rc = scr_read_full(in, buf, want < bufsize ? want : bufsize, &got, src);
        if (rc != SCR_SUCCESS) return rc;
        if (got == 0) {
            *out_eof = 1;
            break;
        }
        if (with_crc) res->crc = scr_crc32(res->crc, buf, got);
        res->bytes += got;
        zs->next_in = buf;
        zs->avail_in = zlen(got);
        if (deflate(zs, Z_NO_FLUSH) != Z_OK || zs->avail_in != 0) {
            scr_err("compressing %s failed: the probe's output outgrew its %zu bytes", src, room);
            return SCR_FAILURE;
        }
    }
    if (*out_eof && deflate(zs, Z_FINISH) != Z_STREAM_END) {
        scr_err("compressing %s failed: the probe's output outgrew its %zu bytes", src, room);
        return SCR_FAILURE;
    }
    return SCR_SUCCESS;
}

/* The rest of in after the probe, deflated through obuf. */
static int deflate_rest(z_stream *zs, int in, const char *src, int out, const char *dst, void *buf, size_t bufsize,
                        unsigned char *obuf, size_t olen, int with_crc, int (*pace)(void *, size_t), void *pace_ctx,
                        struct scr_copy_result *res, struct scr_copy_stored *stored)
{
    for (;;) {
        size_t got = 0;
        int rc = scr_read_full(in, buf, bufsize, &got, src);
        if (rc != SCR_SUCCESS) return rc;
        if (got == 0) return deflate_out(zs, Z_FINISH, obuf, olen, out, dst, pace, pace_ctx, stored);
        if (with_crc) res->crc = scr_crc32(res->crc, buf, got);
        res->bytes += got;
        zs->next_in = buf;
        zs->avail_in = zlen(got);
        rc = deflate_out(zs, Z_NO_FLUSH, obuf, olen, out, dst, pace, pace_ctx, stored);
        if (rc != SCR_SUCCESS) return rc;
    }
}

int scr_gzip_pump(int in, const char *src, int out, const char *dst, void *buf, size_t bufsize, int level,
                  int with_crc, int (*pace)(void *, size_t), void *pace_ctx, struct scr_copy_result *res,
                  struct scr_copy_stored *stored, int *out_raw)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    res->bytes = 0;
    res->crc = 0;
    stored->bytes = 0;
    stored->compressed = 0;
    *out_raw = 0;
    int z = deflateInit2(&zs, level, Z_DEFLATED, GZIP_WINDOW, MEM_LEVEL, Z_DEFAULT_STRATEGY);
    if (z != Z_OK) {
        scr_err("cannot compress %s at level %d: zlib says %s", src, level, z == Z_MEM_ERROR ? "out of memory" : "bad arguments");
        return z == Z_MEM_ERROR ? SCR_ERR_NOMEM : SCR_ERR_ARG;
    }
    size_t room = deflateBound(&zs, SCR_COMPRESS_PROBE_BYTES);
    unsigned char *held = malloc(room);
    unsigned char *obuf = malloc(bufsize);
    int rc = SCR_SUCCESS, eof = 0;
    if (held == NULL || obuf == NULL) {
        scr_err("out of memory for the %zu + %zu bytes of compressing %s", room, bufsize, src);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    rc = deflate_probe(&zs, in, src, buf, bufsize, with_crc, held, room, res, &eof);
    if (rc != SCR_SUCCESS) goto out;
    size_t made = room - zs.avail_out;
    /* not worth it: an empty file, or a probe that did not shrink enough */
    if (res->bytes == 0 || (uint64_t)made * 100 >= res->bytes * SCR_COMPRESS_KEEP_PERCENT) {
        scr_dbg(2, "%s: %llu bytes compress to %zu: stored raw", src, (unsigned long long)res->bytes, made);
        *out_raw = 1;
        goto out;
    }
    rc = emit(out, dst, held, made, pace, pace_ctx, stored);
    if (rc != SCR_SUCCESS) goto out;
    if (!eof) rc = deflate_rest(&zs, in, src, out, dst, buf, bufsize, obuf, bufsize, with_crc, pace, pace_ctx, res, stored);
    if (rc == SCR_SUCCESS) stored->compressed = 1;
out:
    deflateEnd(&zs);
    free(held);
    free(obuf);
    return rc;
}

/* What inflate's failure z means for src, logged. */
static int inflate_failed(const char *src, const z_stream *zs, int z)
{
    if (z == Z_MEM_ERROR) {
        scr_err("out of memory expanding %s", src);
        return SCR_ERR_NOMEM;
    }
    scr_err("%s is not a valid gzip file (damaged after %lu compressed bytes): %s", src,
            (unsigned long)zs->total_in, zs->msg != NULL ? zs->msg : "bad data");
    return SCR_ERR_FORMAT;
}

int scr_gunzip_pump(int in, const char *src, int out, const char *dst, void *buf, size_t bufsize, int with_crc,
                    int (*pace)(void *, size_t), void *pace_ctx, struct scr_copy_result *res,
                    struct scr_copy_stored *stored)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    res->bytes = 0;
    res->crc = 0;
    stored->bytes = 0;
    stored->compressed = 1;
    if (inflateInit2(&zs, GZIP_WINDOW) != Z_OK) {
        scr_err("out of memory to expand %s", src);
        return SCR_ERR_NOMEM;
    }
    unsigned char *ibuf = malloc(bufsize);
    int rc = ibuf != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) scr_err("out of memory for a %zu byte buffer to expand %s", bufsize, src);
    int z = Z_OK;
    while (rc == SCR_SUCCESS && z != Z_STREAM_END) {
        size_t got = 0;
        rc = scr_read_full(in, ibuf, bufsize, &got, src);
        if (rc != SCR_SUCCESS) break;
        if (got == 0) {
            scr_err("%s is truncated: its gzip stream stops after %llu bytes, before its end", src,
                    (unsigned long long)stored->bytes);
            rc = SCR_ERR_FORMAT;
            break;
        }
        stored->bytes += got;
        zs.next_in = ibuf;
        zs.avail_in = zlen(got);
        /* all of the input, as long as output comes */
        while (rc == SCR_SUCCESS && z != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0)) {
            zs.next_out = buf;
            zs.avail_out = zlen(bufsize);
            z = inflate(&zs, Z_NO_FLUSH);
            if (z != Z_OK && z != Z_STREAM_END && z != Z_BUF_ERROR) {
                rc = inflate_failed(src, &zs, z);
                break;
            }
            size_t made = zlen(bufsize) - zs.avail_out;
            if (with_crc) res->crc = scr_crc32(res->crc, buf, made);
            res->bytes += made;
            if (made > 0 && out >= 0) rc = scr_write_full(out, buf, made, dst);
            if (rc == SCR_SUCCESS && made > 0 && pace != NULL) rc = pace(pace_ctx, made);
            if (z == Z_BUF_ERROR) break; /* needs more input */
        }
    }
    /* one stream per file: anything after its end is damage */
    if (rc == SCR_SUCCESS) {
        size_t more = zs.avail_in;
        if (more == 0) rc = scr_read_full(in, ibuf, 1, &more, src);
        if (rc == SCR_SUCCESS && more > 0) {
            scr_err("%s is damaged: bytes follow the end of its gzip stream at byte %lu", src,
                    (unsigned long)zs.total_in);
            rc = SCR_ERR_FORMAT;
        }
    }
    inflateEnd(&zs);
    free(ibuf);
    return rc;
}
