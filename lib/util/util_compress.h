/* util_compress.h — the byte pumps of a copy that stores a file as gzip, and
 * of one that reads such a file back.
 *
 * A compressed file is one gzip member (RFC 1952: deflate data between the
 * gzip header and trailer), so `gzip -d` restores it by hand. Level 1 is
 * written by ISA-L's igzip where the build has ISA-L (several times zlib's
 * speed at level 1, about the same size), every other level by zlib;
 * either is read back by zlib. The CRC-32 a
 * pump returns is always of the uncompressed bytes, the application's,
 * computed in the same pass that (de)compresses them; the gzip trailer
 * checks the stream on its own.
 *
 * Compressing first deflates a probe (the first SCR_COMPRESS_PROBE_BYTES
 * of the file) into memory without writing anything. When the probe does
 * not shrink below SCR_COMPRESS_KEEP_PERCENT of its size (random or already
 * compressed data, or an empty file), the pump writes nothing and says so
 * (*out_raw = 1): the caller copies the file raw from its start, having
 * read at most the probe twice. Otherwise the probe's output is written and
 * the rest of the file follows in the same stream.
 *
 * Expanding refuses, with SCR_ERR_FORMAT and a message naming the file, a
 * stream that is not gzip, is damaged (deflate data or trailer CRC), ends
 * before its end (a truncated file) or is followed by more bytes.
 *
 * The pumps read from and write to open descriptors; util_copy.h opens,
 * syncs and removes files around them. A pace (util_copy.h) is called with
 * the bytes written to the destination. Thread-safe: no shared state. */
#ifndef SCR_UTIL_COMPRESS_H
#define SCR_UTIL_COMPRESS_H

#include "util_copy.h"

#include <stddef.h>

#define SCR_COMPRESS_PROBE_BYTES ((size_t)4 << 20)
#define SCR_COMPRESS_KEEP_PERCENT 90

/* The two ends of a pump and what the copy asked for (o: crc, level,
 * pace). out is -1 when the bytes are only counted and checksummed. */
struct scr_pump {
    int in;
    const char *src;
    int out;
    const char *dst;
    void *buf;
    size_t bufsize;
    const struct scr_copy_opts *o;
};

/* Deflate all of p->in into p->out at p->o->level (1..9) through p->buf
 * and memory of its own (the probe's output and an output buffer, freed
 * before it returns). On success either *out_raw = 1 and nothing was
 * written (in's position is then wherever the probe left it), or
 * *out_raw = 0 with res filled: the raw bytes and their CRC (p->o->crc),
 * res->stored the bytes written, compressed = 1. */
int scr_gzip_pump(const struct scr_pump *p, struct scr_copy_result *res, int *out_raw);

/* Inflate the gzip stream of p->in into p->out through p->buf and an
 * input buffer of its own. res gets the uncompressed bytes and their CRC
 * (p->o->crc), res->stored the bytes read from p->src. */
int scr_gunzip_pump(const struct scr_pump *p, struct scr_copy_result *res);

#endif
