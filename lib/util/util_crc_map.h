/* util_crc_map.h — the CRC-32 of a file read through a shared mapping.
 *
 * A file that is only checksummed need not be copied into a buffer: the
 * pages of the page cache (or of tmpfs) are mapped read-only, in windows of
 * SCR_CRC_MAP_WINDOW bytes, and scr_crc32 (util_crc.h) runs over them. The
 * kernel is told the reading is sequential, and each window is unmapped once
 * read, so the address space used stays small. A file that cannot be mapped
 * (a FIFO, a file system without mmap) is read through a small buffer
 * instead: the result is the same. Thread-safe: it touches no shared state,
 * so a library thread may use it; it makes no MPI call.
 *
 * What went wrong is logged once, naming the file (util_log.h). */
#ifndef SCR_UTIL_CRC_MAP_H
#define SCR_UTIL_CRC_MAP_H

#include <stdint.h>

#define SCR_CRC_MAP_WINDOW ((uint64_t)64 << 20)

/* The CRC-32 of the regular file at path and its length in bytes
 * (*out_len may be NULL). SCR_ERR_NOTFOUND when it is missing (logged),
 * SCR_ERR_IO when it cannot be opened or read. */
int scr_crc_map_file(const char *path, uint32_t *out_crc, uint64_t *out_len);

#endif
