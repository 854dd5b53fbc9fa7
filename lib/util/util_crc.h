/* util_crc.h — CRC-32 as zlib defines it (the gzip/PNG polynomial, reflected).
 *
 * scr_crc32 uses ISA-L's SIMD kernel when the build has it and zlib
 * otherwise; both give identical values and chain the same way:
 * scr_crc32(scr_crc32(0, a, n), b, m) is the CRC of a followed by b.
 * Start a new checksum with crc = 0. */
#ifndef SCR_UTIL_CRC_H
#define SCR_UTIL_CRC_H

#include <stddef.h>
#include <stdint.h>

uint32_t scr_crc32(uint32_t crc, const void *buf, size_t len);

/* The CRC of a followed by b, from crc_a, crc_b and b's length (zlib's
 * crc32_combine): a checksum computed in pieces is joined without reading
 * the bytes again. */
uint32_t scr_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* Each implementation on its own, for tests and benchmarks. The ISA-L one
 * returns the zlib value when the build has no ISA-L. */
uint32_t scr_crc32_zlib(uint32_t crc, const void *buf, size_t len);
uint32_t scr_crc32_isal(uint32_t crc, const void *buf, size_t len);

/* The CRC-32 of the whole open file fd, read from byte 0 to its end in
 * pieces of bufsize bytes through buf (the file position is left alone);
 * *out_len (when not NULL) is the number of bytes read. A failed read is
 * logged once with path (util_io.h). */
int scr_crc_fd(int fd, const char *path, void *buf, size_t bufsize, uint32_t *out_crc,
               uint64_t *out_len);

/* 1 if scr_crc32 runs on ISA-L. */
int scr_crc32_uses_isal(void);

#endif
