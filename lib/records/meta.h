/* meta.h — the properties of one file of a dataset: name, kind, size, CRC,
 * which rank wrote it and whether it is complete.
 *
 * A meta record is a scr_kvtree with these keys, each holding one value:
 *   FILE      the file's name, relative (never starts with '/')
 *   TYPE      FULL (written by the application), XOR, PARTNER or RS
 *             (redundancy data written by SCR)
 *   COMPLETE  1 if the file is thought to be valid, 0 otherwise
 *   SIZE      size in bytes
 *   CRC       CRC-32 of the contents, "0x" and hex digits
 *   RANK      MPI rank that wrote the file (>= 0)
 *   RANKS     number of ranks in the run that wrote it (>= 1)
 *   CKPT      checkpoint id (>= 1) when the dataset is a checkpoint
 *   NAME      name of the original file, without its directory
 *   PATH      absolute directory of the original file
 *   ORIG      the file name exactly as the application gave it
 *   COMPRESSED  on the prefix only: the file is stored there as gzip (one
 *             member, `gzip -d` restores it) and this many bytes long;
 *             SIZE and CRC stay those of the uncompressed bytes. Absent:
 *             stored as written.
 * Every key is optional; other keys are kept untouched. Meta records do not
 * live in files of their own: filemaps (filemap.h, rank_filemap.h) hold one
 * per file, and those modules check them with scr_meta_validate.
 *
 * Setters replace the value and refuse (SCR_ERR_ARG, logged) a value a reader
 * would refuse. Getters never log: SCR_ERR_NOTFOUND when the key is absent,
 * SCR_ERR_TYPE when it holds something other than one valid value. The
 * check functions compare a field with an expected value. Not thread-safe. */
#ifndef SCR_META_H
#define SCR_META_H

#include "kvtree.h"

#include <stdint.h>

typedef struct scr_kvtree scr_meta;

#define SCR_META_TYPE_FULL "FULL"
#define SCR_META_TYPE_XOR "XOR"
#define SCR_META_TYPE_PARTNER "PARTNER"
#define SCR_META_TYPE_RS "RS"

/* A new empty record (free with scr_meta_delete); NULL if out of memory. */
scr_meta *scr_meta_new(void);
void scr_meta_delete(scr_meta *meta);

/* Make dst an exact copy of src (dst's old keys are dropped). */
int scr_meta_copy(scr_meta *dst, const scr_meta *src);

/* --- setters --------------------------------------------------------------- */

int scr_meta_set_filename(scr_meta *meta, const char *name);
int scr_meta_set_filetype(scr_meta *meta, const char *type);
int scr_meta_set_complete(scr_meta *meta, int complete);
int scr_meta_set_filesize(scr_meta *meta, uint64_t size);
int scr_meta_set_crc32(scr_meta *meta, uint32_t crc);
int scr_meta_set_rank(scr_meta *meta, int rank);
int scr_meta_set_ranks(scr_meta *meta, int ranks);
int scr_meta_set_checkpoint(scr_meta *meta, int ckpt_id);
int scr_meta_set_origname(scr_meta *meta, const char *name);
int scr_meta_set_origpath(scr_meta *meta, const char *path);
int scr_meta_set_orig(scr_meta *meta, const char *orig);

/* The same, always written with 8 hex digits, so that a record's packed
 * length does not depend on the value: a redundancy file's header written
 * before its files' CRCs are known is written again in place once they are
 * (run_redundancy.c, run_rs.c). Readers take either form. */
int scr_meta_set_crc32_fixed(scr_meta *meta, uint32_t crc);

/* Forget the CRC, e.g. when the file is rewritten. */
int scr_meta_unset_crc32(scr_meta *meta);

/* COMPRESSED: the file is stored as gzip, stored_size bytes long; unset:
 * stored as written. The getter gives SCR_ERR_NOTFOUND for a raw file. */
int scr_meta_set_compressed(scr_meta *meta, uint64_t stored_size);
int scr_meta_unset_compressed(scr_meta *meta);
int scr_meta_get_compressed(const scr_meta *meta, uint64_t *out_stored_size);

/* --- getters (strings point into meta, valid until the key changes) --------- */

int scr_meta_get_filename(const scr_meta *meta, const char **out_name);
int scr_meta_get_filetype(const scr_meta *meta, const char **out_type);
int scr_meta_get_complete(const scr_meta *meta, int *out_complete);
int scr_meta_get_filesize(const scr_meta *meta, uint64_t *out_size);
int scr_meta_get_crc32(const scr_meta *meta, uint32_t *out_crc);
int scr_meta_get_rank(const scr_meta *meta, int *out_rank);
int scr_meta_get_ranks(const scr_meta *meta, int *out_ranks);
int scr_meta_get_checkpoint(const scr_meta *meta, int *out_ckpt_id);
int scr_meta_get_origname(const scr_meta *meta, const char **out_name);
int scr_meta_get_origpath(const scr_meta *meta, const char **out_path);
int scr_meta_get_orig(const scr_meta *meta, const char **out_orig);

/* --- checks ------------------------------------------------------------------
 * SCR_SUCCESS when the field is set to the value given, SCR_FAILURE when it
 * holds another valid value, and as the getters SCR_ERR_NOTFOUND /
 * SCR_ERR_TYPE otherwise. Nothing is logged. */

int scr_meta_check_filename(const scr_meta *meta, const char *name);
int scr_meta_check_filetype(const scr_meta *meta, const char *type);
int scr_meta_check_complete(const scr_meta *meta, int complete);
int scr_meta_check_filesize(const scr_meta *meta, uint64_t size);
int scr_meta_check_crc32(const scr_meta *meta, uint32_t crc);
int scr_meta_check_rank(const scr_meta *meta, int rank);
int scr_meta_check_ranks(const scr_meta *meta, int ranks);
int scr_meta_check_checkpoint(const scr_meta *meta, int ckpt_id);
int scr_meta_check_origname(const scr_meta *meta, const char *name);
int scr_meta_check_origpath(const scr_meta *meta, const char *path);
int scr_meta_check_orig(const scr_meta *meta, const char *orig);

/* 1 when COMPLETE holds 1; 0 when it holds 0, is absent or is damaged. */
int scr_meta_is_complete(const scr_meta *meta);

/* --- for the modules that store meta records ------------------------------- */

/* Check every known key of meta as read from file. where is the key path
 * that leads to the record (e.g. "RANK 2 DSET 6 FILE /c/a.ckpt META"), so
 * that a bad value is logged as
 *   "<file>: key <where> <KEY> holds '<text>', expected <what>"
 * and SCR_ERR_FORMAT is returned. A NULL meta is valid (empty). */
int scr_meta_validate(const scr_meta *meta, const char *file, const char *where);

#endif
