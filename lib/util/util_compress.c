/* util_compress.c — gzip streams written and read by zlib, the CRC of the
 * uncompressed bytes taken on the way. */
#include "build_config.h"
#include "util_compress.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* windowBits for deflateInit2/inflateInit2: 15 (32 KiB) plus 16 asks for
 * the gzip header and trailer instead of zlib's */
#define GZIP_WINDOW (15 + 16)
#define MEM_LEVEL 8

/* zlib counts in uInt: a buffer handed to it at once stays below 1 GiB */
static uInt zlen(size_t n)
{
    return n > ((size_t)1 << 30) ? (uInt)1 << 30 : (uInt)n;
}

/* --- the deflater: ISA-L's igzip for level 1 where the build has it (about
 * six times zlib's speed at level 1, much the same size), zlib otherwise;
 * both write a standard gzip member --------------------------------------- */

struct deflater {
    z_stream zs;
#ifdef HAVE_ISAL
    int isal;
    struct isal_zstream is;
    unsigned char *level_buf;
#endif
};

static int deflater_init(struct deflater *d, int level, const char *src)
{
    memset(d, 0, sizeof(*d));
#ifdef HAVE_ISAL
    if (level == 1) {
        d->level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
        if (d->level_buf == NULL) {
            scr_err("out of memory to compress %s", src);
            return SCR_ERR_NOMEM;
        }
        isal_deflate_init(&d->is);
        d->is.gzip_flag = IGZIP_GZIP;
        d->is.level = 1;
        d->is.level_buf = d->level_buf;
        d->is.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
        d->is.flush = NO_FLUSH;
        d->isal = 1;
        return SCR_SUCCESS;
    }
#endif
    int z = deflateInit2(&d->zs, level, Z_DEFLATED, GZIP_WINDOW, MEM_LEVEL, Z_DEFAULT_STRATEGY);
    if (z != Z_OK) {
        scr_err("cannot compress %s at level %d: zlib says %s", src, level,
                z == Z_MEM_ERROR ? "out of memory" : "bad arguments");
        return z == Z_MEM_ERROR ? SCR_ERR_NOMEM : SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

static void deflater_end(struct deflater *d)
{
#ifdef HAVE_ISAL
    if (d->isal) {
        free(d->level_buf);
        return;
    }
#endif
    deflateEnd(&d->zs);
}

/* Take what it can of the len bytes at in (finish: they are the last),
 * writing at most room bytes to out: *used, *made, and *ended once the
 * stream's trailer is out. */
static int deflater_step(struct deflater *d, const char *dst, const void *in, size_t len, void *out,
                         size_t room, int finish, size_t *used, size_t *made, int *ended)
{
#ifdef HAVE_ISAL
    if (d->isal) {
        d->is.next_in = (uint8_t *)(uintptr_t)in;
        d->is.avail_in = (uint32_t)(len > ((size_t)1 << 30) ? (size_t)1 << 30 : len);
        d->is.next_out = out;
        d->is.avail_out = (uint32_t)(room > ((size_t)1 << 30) ? (size_t)1 << 30 : room);
        uint32_t in0 = d->is.avail_in, out0 = d->is.avail_out;
        d->is.end_of_stream = finish && in0 == len;
        int rc = isal_deflate(&d->is);
        if (rc != COMP_OK) {
            scr_err("compressing into %s failed: ISA-L's deflate returned %d", dst, rc);
            return SCR_FAILURE;
        }
        *used = in0 - d->is.avail_in;
        *made = out0 - d->is.avail_out;
        *ended = d->is.internal_state.state == ZSTATE_END;
        return SCR_SUCCESS;
    }
#endif
    d->zs.next_in = (Bytef *)(uintptr_t)in;
    d->zs.avail_in = zlen(len);
    d->zs.next_out = out;
    d->zs.avail_out = zlen(room);
    uInt in0 = d->zs.avail_in, out0 = d->zs.avail_out;
    int z = deflate(&d->zs, finish && in0 == len ? Z_FINISH : Z_NO_FLUSH);
    if (z == Z_STREAM_ERROR) {
        scr_err("compressing into %s failed: zlib's stream is inconsistent", dst);
        return SCR_FAILURE;
    }
    *used = in0 - d->zs.avail_in;
    *made = out0 - d->zs.avail_out;
    *ended = z == Z_STREAM_END;
    return SCR_SUCCESS;
}

/* Write the n bytes at bytes to p->out and tell the pace. */
static int emit(const struct scr_pump *p, const void *bytes, size_t n,
                struct scr_copy_stored *stored)
{
    if (n == 0) return SCR_SUCCESS;
    if (p->out >= 0) {
        int rc = scr_write_full(p->out, bytes, n, p->dst);
        if (rc != SCR_SUCCESS) return rc;
    }
    stored->bytes += n;
    return p->o->pace != NULL ? p->o->pace(p->o->pace_ctx, n) : SCR_SUCCESS;
}

/* Deflate the len bytes at in (finish: the last ones) through obuf (olen
 * bytes), writing each piece it makes. */
static int deflate_out(const struct scr_pump *p, struct deflater *d, const unsigned char *in,
                       size_t len, int finish, unsigned char *obuf, size_t olen,
                       struct scr_copy_stored *stored)
{
    size_t off = 0;
    for (;;) {
        size_t used = 0, made = 0;
        int ended = 0;
        int rc =
            deflater_step(d, p->dst, in + off, len - off, obuf, olen, finish, &used, &made, &ended);
        if (rc != SCR_SUCCESS) return rc;
        off += used;
        rc = emit(p, obuf, made, stored);
        if (rc != SCR_SUCCESS) return rc;
        /* done: the trailer is out, or (more to come) all taken and nothing held back */
        if (finish ? ended : off == len && made < olen) return SCR_SUCCESS;
    }
}

/* The probe: deflate up to SCR_COMPRESS_PROBE_BYTES of p->in into held (room
 * bytes). *out_made: the bytes held; *out_eof when the file ended within
 * the probe (the stream is then finished); *out_full when its output did
 * not fit in room, which no probe that shrinks comes near. */
static int deflate_probe(const struct scr_pump *p, struct deflater *d, unsigned char *held,
                         size_t room, struct scr_copy_result *res, size_t *out_made, int *out_eof,
                         int *out_full)
{
    unsigned char *buf = p->buf;
    *out_made = 0;
    *out_eof = 0;
    *out_full = 0;
    for (;;) {
        size_t got = 0;
        if (res->bytes < SCR_COMPRESS_PROBE_BYTES) {
            size_t want = SCR_COMPRESS_PROBE_BYTES - (size_t)res->bytes;
            int rc = scr_read_full(p->in, buf, want < p->bufsize ? want : p->bufsize, &got, p->src);
            if (rc != SCR_SUCCESS) return rc;
        }
        if (got == 0 && res->bytes < SCR_COMPRESS_PROBE_BYTES) *out_eof = 1;
        if (got == 0 && !*out_eof) return SCR_SUCCESS; /* the probe is read; the file goes on */
        if (p->o->crc) res->crc = scr_crc32(res->crc, buf, got);
        res->bytes += got;
        size_t off = 0;
        int ended = 0;
        do {
            size_t used = 0, made = 0;
            int rc = deflater_step(d, p->src, buf + off, got - off, held + *out_made,
                                   room - *out_made, *out_eof, &used, &made, &ended);
            if (rc != SCR_SUCCESS) return rc;
            off += used;
            *out_made += made;
            if (*out_made == room) {
                *out_full = 1;
                return SCR_SUCCESS;
            }
        } while (off < got || (*out_eof && !ended));
        if (*out_eof) return SCR_SUCCESS;
    }
}

/* The rest of p->in after the probe, deflated through obuf (p->bufsize bytes). */
static int deflate_rest(const struct scr_pump *p, struct deflater *d, unsigned char *obuf,
                        struct scr_copy_result *res)
{
    for (;;) {
        size_t got = 0;
        int rc = scr_read_full(p->in, p->buf, p->bufsize, &got, p->src);
        if (rc != SCR_SUCCESS) return rc;
        if (p->o->crc) res->crc = scr_crc32(res->crc, p->buf, got);
        res->bytes += got;
        rc = deflate_out(p, d, p->buf, got, got == 0, obuf, p->bufsize, &res->stored);
        if (rc != SCR_SUCCESS || got == 0) return rc;
    }
}

int scr_gzip_pump(const struct scr_pump *p, struct scr_copy_result *res, int *out_raw)
{
    struct deflater d;
    const char *src = p->src;
    size_t bufsize = p->bufsize;
    struct scr_copy_stored *stored = &res->stored;
    res->bytes = 0;
    res->crc = 0;
    stored->bytes = 0;
    stored->compressed = 0;
    *out_raw = 0;
    int rc = deflater_init(&d, p->o->level, src);
    if (rc != SCR_SUCCESS) return rc;
    /* room for the probe as it is, and then some: output that needs more
     * did not shrink, and the file goes raw */
    size_t room = SCR_COMPRESS_PROBE_BYTES + SCR_COMPRESS_PROBE_BYTES / 8 + 4096;
    unsigned char *held = malloc(room);
    unsigned char *obuf = malloc(bufsize);
    int eof = 0, full = 0;
    size_t made = 0;
    if (held == NULL || obuf == NULL) {
        scr_err("out of memory for the %zu + %zu bytes of compressing %s", room, bufsize, src);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    rc = deflate_probe(p, &d, held, room, res, &made, &eof, &full);
    if (rc != SCR_SUCCESS) goto out;
    /* not worth it: an empty file, or a probe that did not shrink enough */
    if (full || res->bytes == 0 || (uint64_t)made * 100 >= res->bytes * SCR_COMPRESS_KEEP_PERCENT) {
        scr_dbg(2, "%s: %llu bytes compress to %zu%s: stored as written", src,
                (unsigned long long)res->bytes, made, full ? " or more" : "");
        *out_raw = 1;
        goto out;
    }
    rc = emit(p, held, made, stored);
    if (rc != SCR_SUCCESS) goto out;
    if (!eof) rc = deflate_rest(p, &d, obuf, res);
    if (rc == SCR_SUCCESS) stored->compressed = 1;
out:
    deflater_end(&d);
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

/* All of the input in zs expanded, as long as output comes, into p->buf and
 * on to p->out (when open), through the CRC and byte count of res and the
 * pace of p; *io_z is inflate's last answer (Z_STREAM_END at the end of the
 * stream, Z_BUF_ERROR when it needs more input). */
static int inflate_input(const struct scr_pump *p, z_stream *zs, struct scr_copy_result *res,
                         int *io_z)
{
    void *buf = p->buf;
    size_t bufsize = p->bufsize;
    int rc = SCR_SUCCESS, z = *io_z;
    while (rc == SCR_SUCCESS && z != Z_STREAM_END && (zs->avail_in > 0 || zs->avail_out == 0)) {
        zs->next_out = buf;
        zs->avail_out = zlen(bufsize);
        z = inflate(zs, Z_NO_FLUSH);
        if (z != Z_OK && z != Z_STREAM_END && z != Z_BUF_ERROR) {
            rc = inflate_failed(p->src, zs, z);
            break;
        }
        size_t made = zlen(bufsize) - zs->avail_out;
        if (p->o->crc) res->crc = scr_crc32(res->crc, buf, made);
        res->bytes += made;
        if (made > 0 && p->out >= 0) rc = scr_write_full(p->out, buf, made, p->dst);
        if (rc == SCR_SUCCESS && made > 0 && p->o->pace != NULL)
            rc = p->o->pace(p->o->pace_ctx, made);
        if (z == Z_BUF_ERROR) break; /* needs more input */
    }
    *io_z = z;
    return rc;
}

/* One stream per file: SCR_ERR_FORMAT, said, when anything follows the end
 * of the gzip stream in zs (left in its input or still in p->in; ibuf, of
 * one byte at least, takes what is read). */
static int check_nothing_follows(const struct scr_pump *p, const z_stream *zs, unsigned char *ibuf)
{
    size_t more = zs->avail_in;
    int rc = SCR_SUCCESS;
    if (more == 0) rc = scr_read_full(p->in, ibuf, 1, &more, p->src);
    if (rc == SCR_SUCCESS && more > 0) {
        scr_err("%s is damaged: bytes follow the end of its gzip stream at byte %lu", p->src,
                (unsigned long)zs->total_in);
        rc = SCR_ERR_FORMAT;
    }
    return rc;
}

int scr_gunzip_pump(const struct scr_pump *p, struct scr_copy_result *res)
{
    int in = p->in;
    const char *src = p->src;
    size_t bufsize = p->bufsize;
    struct scr_copy_stored *stored = &res->stored;
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
    if (rc != SCR_SUCCESS)
        scr_err("out of memory for a %zu byte buffer to expand %s", bufsize, src);
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
        rc = inflate_input(p, &zs, res, &z);
    }
    if (rc == SCR_SUCCESS) rc = check_nothing_follows(p, &zs, ibuf);
    inflateEnd(&zs);
    free(ibuf);
    return rc;
}
