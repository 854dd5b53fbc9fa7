/* run_crc.h — the CRC-32 of every file this rank holds in cache.
 *
 * Filled where a dataset has none, checked before a rebuild reads what a
 * rank holds; a damaged file is reported in one line and counts as lost. Not
 * collective. */
#ifndef SCR_RUN_CRC_H
#define SCR_RUN_CRC_H

#include <stdint.h>
#include "scr_run.h"

/* Give each complete file of this rank's in dataset id that has no CRC yet
 * one, reading it now (where a flush that was to compute them failed;
 * otherwise run_crc_async.c does this off the application's time). Saves
 * the filemap. Not collective. */
int scr_crc_fill(struct scr_run *run, int id);

/* Read every complete file this rank holds of dataset id (its own, and
 * copies it keeps for others), before a rebuild reads them, and compare it
 * with its recorded CRC. A file
 * that differs is reported once (scr_crc_say_damaged) and marked incomplete, so
 * that it counts as lost; *out_damaged counts them. Saves the filemap when
 * it changed. Not collective. */
int scr_crc_check_held(struct scr_run *run, int id, int *out_damaged);

/* The one line that says file, held for rank in dataset id, is damaged:
 * "dataset <id> (<name>): rank <rank>'s file <file><how> is damaged: CRC32
 * 0x<found> found, 0x<recorded> recorded"; how (may be NULL) says how the
 * file came to be, e.g. " rebuilt from XOR". */
void scr_crc_say_damaged(const struct scr_run *run, int id, int rank, const char *file,
                         const char *how, uint32_t found, uint32_t recorded);

/* Set the CRC of file (held for rank in dataset id) in the filemap in
 * memory, and with complete 0 mark it incomplete; the caller saves. */
int scr_crc_record(struct scr_run *run, int id, int rank, const char *file, uint32_t crc,
                   int complete);

#endif
