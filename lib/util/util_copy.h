/* util_copy.h — copy one file: every copy SCR makes is one call of
 * scr_copy, its options in a struct the caller fills by name.
 *
 * Memory use does not depend on the file's size. The copy is fsync'ed
 * before success is reported, and the destination's directories are
 * created (mode 0777 less the umask) when missing. A failure is logged once
 * with the file and the cause, and a partly written destination is
 * removed. Each piece written starts going to disk at once and the one
 * before it is waited for (sync_file_range, where the file system has it),
 * so that the disk works while the copy goes on, the final fsync has little
 * left to do, and dirty memory stays at two pieces.
 *
 * What a copy does is asked in struct scr_copy_opts:
 *   - crc: the CRC-32 of the bytes (the uncompressed ones) is computed in
 *     the same pass. Without it a raw copy moves the bytes inside the
 *     kernel (sendfile), where the file systems allow it;
 *   - form and level: store the destination as gzip, or expand a gzip
 *     source (util_compress.h);
 *   - pace: called after each piece with the bytes written to the
 *     destination (compressed ones for SCR_COPY_GZIP, so that a rate limit
 *     holds the destination's share), to hold the copy to a rate
 *     (util_pace.h) or report progress; one that returns non-zero stops the
 *     copy, which fails with what it returned (an SCR_ERR_* code; the pace
 *     says why). For a raw copy, when pace is called all but the last piece
 *     is on disk; a compressed one is known on disk only at its end;
 *   - timeout: the watchdog of a file system that may stop answering. A
 *     thread blocked in a system call on a hung file system cannot be
 *     cancelled, so the copy runs in a detached thread of its own (which
 *     makes no MPI call), with a buffer of its own, and the caller waits at
 *     most timeout seconds. When the copy ends in time the caller gets what
 *     it gave; when not, SCR_ERR_TIMEOUT at once (not logged here: the
 *     caller names the operation), and the copy is abandoned: its thread,
 *     descriptors, buffer and paths stay until the kernel returns; then the
 *     thread removes what it wrote (a late success too, since its caller
 *     counted it as failed) and frees what it owns. Until then the copy is
 *     pending under its kind (scr_copy_timed_pending): a caller about to
 *     write where it may still write asks first. A timed copy takes no pace.
 * Thread-safe. */
#ifndef SCR_UTIL_COPY_H
#define SCR_UTIL_COPY_H

#include <stddef.h>
#include <stdint.h>

/* How a copy stores its destination. */
enum scr_copy_form {
    SCR_COPY_RAW,    /* byte for byte */
    SCR_COPY_GZIP,   /* as gzip when the file compresses (util_compress.h), else byte for byte */
    SCR_COPY_GUNZIP, /* the source is gzip: the destination gets its uncompressed bytes */
};

/* What a copy is asked to do; zero is the default of every field. */
struct scr_copy_opts {
    void *buf; /* the buffer bytes pass through; NULL: the copy allocates one when it needs it */
    size_t bufsize; /* its size in bytes (> 0), whoever allocates it */
    int crc;        /* compute the CRC-32 of the (uncompressed) bytes */
    enum scr_copy_form form;
    int level;                                 /* SCR_COPY_GZIP: the zlib level, 1..9 */
    int (*pace)(void *pace_ctx, size_t bytes); /* may be NULL */
    void *pace_ctx;
    int timeout;      /* > 0: the watchdog, in seconds (buf is then not used) */
    const char *kind; /* with a timeout: a static tag ("flush") for scr_copy_timed_pending */
};

/* The compressed side of a copy: its bytes (written by SCR_COPY_GZIP, read
 * by SCR_COPY_GUNZIP; the file's size when it was copied raw) and whether
 * it is gzip. */
struct scr_copy_stored {
    uint64_t bytes;
    int compressed;
};

struct scr_copy_result {
    uint64_t bytes;                /* uncompressed bytes */
    uint32_t crc;                  /* their CRC-32, when asked for */
    struct scr_copy_stored stored; /* what the compressed side holds */
};

/* Copy src to dst as o says (see above); dst is replaced if it exists. A
 * gzip source that is damaged or truncated fails with SCR_ERR_FORMAT. */
int scr_copy(const char *src, const char *dst, const struct scr_copy_opts *o,
             struct scr_copy_result *out);

/* The copies of this kind (any kind: NULL) the watchdog abandoned that
 * have not returned yet; when there is one and out_dst is given, the
 * destination of the oldest goes there (at most len bytes with the
 * terminating NUL). */
int scr_copy_timed_pending(const char *kind, char *out_dst, size_t len);

/* Read path through buf and return its size and CRC-32. A file that is
 * only checksummed is best read in pieces of SCR_CRC_PIECE bytes: they stay
 * in a core's L2 cache, so the CRC runs over bytes the copy has just
 * brought in. Measured on tmpfs and on a cached ext4 file, that takes about
 * a fifth less time than mapping the file and checksumming it in place
 * (each mapped page costs a fault, which costs more than copying it; `make
 * bench-crc-file`), and a file that another process truncates meanwhile
 * gives a short length instead of a SIGBUS. */
#define SCR_CRC_PIECE ((size_t)256 << 10)
int scr_crc_file(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out);

/* The same through a buffer of SCR_CRC_PIECE bytes of its own: *out_crc,
 * and the length in *out_len when not NULL. */
int scr_crc_file_l2(const char *path, uint32_t *out_crc, uint64_t *out_len);

/* The uncompressed size and CRC-32 of the gzip file path, read through
 * buf; out->stored gets the bytes of path. SCR_ERR_FORMAT when the stream
 * is damaged or truncated. */
int scr_crc_file_gunzip(const char *path, void *buf, size_t bufsize, struct scr_copy_result *out);

#endif
