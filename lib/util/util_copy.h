/* util_copy.h — copy one file with its CRC-32 computed on the way.
 *
 * Every byte is read once and written once through the caller's buffer, so
 * memory use does not depend on the file's size; the CRC (when asked for)
 * comes from the same pass. The copy is fsync'ed before success is reported,
 * and the destination's directories are created (mode 0777 less the umask)
 * when missing. A failure is logged once with the file and the cause, and a
 * partly written destination is removed.
 *
 * A copy may also store its destination as gzip, or expand a gzip source
 * (scr_copy_file_as, util_compress.h); the CRC is then still that of the
 * uncompressed bytes. */
#ifndef SCR_UTIL_COPY_H
#define SCR_UTIL_COPY_H

#include <stddef.h>
#include <stdint.h>

struct scr_copy_result {
    uint64_t bytes;
    uint32_t crc; /* valid when the copy was asked to compute it */
};

/* Copy src to dst using buf (bufsize bytes). dst is replaced if it exists. */
int scr_copy_file(const char *src, const char *dst, void *buf, size_t bufsize, int with_crc,
                  struct scr_copy_result *out);

/* scr_copy_file, calling pace(pace_ctx, n) after each n bytes written
 * (to hold the copy to a rate, util_pace.h, or to report progress); pace
 * may be NULL. A pace that returns non-zero stops the copy, which then
 * fails with what it returned (an SCR_ERR_* code; the pace says why).
 * With a pace, each piece starts going to disk as it is written and the
 * piece before it is waited for (sync_file_range, where the file system
 * has it), so that a paced copy is paced by the disk too, and when pace is
 * called all but the last piece is on disk. */
int scr_copy_file_paced(const char *src, const char *dst, void *buf, size_t bufsize, int with_crc,
                        int (*pace)(void *pace_ctx, size_t bytes), void *pace_ctx, struct scr_copy_result *out);

/* Read path through buf and return its size and CRC-32. */
int scr_crc_file(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out);

/* How a copy stores its destination. */
enum scr_copy_form {
    SCR_COPY_RAW,    /* byte for byte */
    SCR_COPY_GZIP,   /* as gzip when the file compresses (util_compress.h), else byte for byte */
    SCR_COPY_GUNZIP, /* the source is gzip: the destination gets its uncompressed bytes */
};

/* The compressed side of a copy: its bytes (written by SCR_COPY_GZIP, read
 * by SCR_COPY_GUNZIP; the file's size when it was copied raw) and whether
 * it is gzip. */
struct scr_copy_stored {
    uint64_t bytes;
    int compressed;
};

/* scr_copy_file_paced in the form asked for, at level (1..9) for
 * SCR_COPY_GZIP. out->bytes and out->crc are of the uncompressed bytes;
 * stored (may be NULL) says what the compressed side holds. pace is told
 * the bytes written to dst (compressed ones for SCR_COPY_GZIP, so that a
 * rate limit holds the prefix's share). A gzip source that is damaged or
 * truncated fails with SCR_ERR_FORMAT. Write-behind is
 * done for raw copies only; a compressed one is synced at its end. */
int scr_copy_file_as(const char *src, const char *dst, void *buf, size_t bufsize, int with_crc,
                     enum scr_copy_form form, int level, int (*pace)(void *pace_ctx, size_t bytes), void *pace_ctx,
                     struct scr_copy_result *out, struct scr_copy_stored *stored);

/* The uncompressed size and CRC-32 of the gzip file path, read through
 * buf; stored (may be NULL) gets the bytes of path. SCR_ERR_FORMAT when the
 * stream is damaged or truncated. */
int scr_crc_file_gunzip(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out,
                        struct scr_copy_stored *stored);

#endif
