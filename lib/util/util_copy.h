/* util_copy.h — copy one file with its CRC-32 computed on the way.
 *
 * Every byte is read once and written once through the caller's buffer, so
 * memory use does not depend on the file's size; the CRC (when asked for)
 * comes from the same pass. The copy is fsync'ed before success is reported,
 * and the destination's directories are created (mode 0777 less the umask)
 * when missing. A failure is logged once with the file and the cause, and a
 * partly written destination is removed. */
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

#endif
