/* util_padfile.h — several open files used as one zero-padded logical file.
 *
 * A process's files of a dataset are seen by the redundancy code as if they
 * were concatenated, in the order given, into one file whose length is the
 * sum of their sizes; beyond that length the logical file goes on as zeros
 * (the padding that makes every member of a redundancy set equally long).
 *
 * Reads and writes take an offset and a length in this logical file and use
 * pread/pwrite, so they neither need nor move a file position and several
 * threads may work on the same parts at once. Interrupted calls (EINTR) are
 * retried and short transfers continued.
 *
 * - A read returns zeros for the part of the range past the real data. A file
 *   that ends before its declared size is damaged: SCR_ERR_FORMAT, naming the
 *   file and the byte where it ended.
 * - A write stores the bytes that fall on real data. The bytes that fall on
 *   the padding must be zero: padding is zero by definition, so a non-zero
 *   byte there means the caller's data is wrong (for example a rebuild from
 *   damaged redundancy data). Such a write is refused with SCR_ERR_FORMAT
 *   before any file is touched, rather than dropped silently.
 *
 * Every failure is logged once with the file, the offset and strerror(errno). */
#ifndef SCR_UTIL_PADFILE_H
#define SCR_UTIL_PADFILE_H

#include <stddef.h>
#include <stdint.h>

/* One real file of the logical file: an open descriptor (readable for reads,
 * writable for writes), its name for messages, and the number of bytes it
 * contributes. A part of size 0 is skipped and its descriptor never used. */
typedef struct scr_padfile_part {
    int fd;
    const char *path;
    uint64_t size;
} scr_padfile_part;

/* Sum of the sizes: the length of the real data. SCR_ERR_ARG when it does
 * not fit in 63 bits (no file offset could reach it). */
int scr_padfile_size(const scr_padfile_part *parts, size_t count, uint64_t *out_size);

/* Fill buf with len bytes of the logical file starting at offset. */
int scr_padfile_read(const scr_padfile_part *parts, size_t count, uint64_t offset,
                     void *buf, size_t len);

/* Write len bytes of buf to the logical file starting at offset. */
int scr_padfile_write(const scr_padfile_part *parts, size_t count, uint64_t offset,
                      const void *buf, size_t len);

#endif
