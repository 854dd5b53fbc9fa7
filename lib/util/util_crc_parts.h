/* util_crc_parts.h — the CRC-32 of each file of a logical file
 * (util_padfile.h), from the pieces that pass by in whatever order.
 *
 * The redundancy encodings read every byte of a member's files anyway, and
 * a rebuild writes every byte of a lost member's, but not front to back: XOR
 * goes through its N-1 chunks side by side, RS through its N-k. A
 * scr_crc_parts is fed each piece as it passes (its offset in the logical
 * file and its bytes) and keeps, per file, the CRC of every run of
 * consecutive bytes seen so far; a piece continues the run that ends where
 * it starts, or begins a new one. Once every byte of a file has passed, the
 * file's CRC is its runs' CRCs joined (scr_crc32_combine): no byte is read
 * a second time. Bytes past the real data (the padding) are ignored.
 *
 * A byte fed twice, or a run that cannot be recorded for want of memory,
 * leaves that file's CRC unknown. Memory is one small record per run, so it
 * grows with the number of interleaved streams, not with the data. Only the
 * parts' sizes are used; their descriptors are never touched. Not
 * thread-safe. */
#ifndef SCR_UTIL_CRC_PARTS_H
#define SCR_UTIL_CRC_PARTS_H

#include "util_padfile.h"

#include <stddef.h>
#include <stdint.h>

typedef struct scr_crc_parts scr_crc_parts;

/* A new tracker for the count files of parts (free with scr_crc_parts_free);
 * NULL when out of memory (logged). */
scr_crc_parts *scr_crc_parts_new(const scr_padfile_part *parts, size_t count);
void scr_crc_parts_free(scr_crc_parts *cp);

/* len bytes of buf were the logical file's bytes at offset. A NULL cp does
 * nothing, so that callers may track or not with the same code. */
void scr_crc_parts_add(scr_crc_parts *cp, uint64_t offset, const void *buf, size_t len);

/* The CRC of file i once every byte of it has passed: SCR_SUCCESS; else
 * SCR_ERR_STATE (bytes missing or fed twice) or SCR_ERR_NOMEM, not logged:
 * the caller says what it was computing. */
int scr_crc_parts_get(const scr_crc_parts *cp, size_t i, uint32_t *out_crc);

#endif
