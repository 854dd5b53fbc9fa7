/* redundancy_shared.h — what the redundancy schemes share, below all of
 * them: a rank's files of a dataset as one logical file and their
 * description, the records of a redundancy file in the filemap, and the
 * CRCs of the bytes a scheme read, wrote or rebuilt. Private to
 * redundancy*.c; calls no scheme and not the dispatcher.
 *
 * Every function that saves the filemap says so; the others leave saving
 * to the caller. Not collective. */
#ifndef SCR_REDUNDANCY_SHARED_H
#define SCR_REDUNDANCY_SHARED_H

#include "kvtree.h"
#include "redundancy.h"
#include "util_crc_parts.h"
#include "util_padfile.h"

#include <stdint.h>

/* XOR and RS forget alike: this rank's redundancy file of type (a
 * SCR_META_TYPE_*), its filemap entry, and a saved filemap. */
int scr_redundancy_forget_file(const struct scr_redundancy_ctx *ctx, int id, const char *type);

/* --- the chores the schemes share --------------------------------------------------- */

/* A rank's files of a dataset as one logical file (util_padfile.h), their
 * description as redundancy records hold it (RANK r, FILES n, FILE i {meta}),
 * and, when tracked, the CRC of every file from the bytes that pass. */
struct scr_redundancy_files {
    struct scr_padset set;
    scr_kvtree *desc;
    scr_crc_parts *crc;
};

/* This rank's FULL files of dataset id, in filemap order, opened with
 * flags (flags < 0: listed and described, not opened). */
int scr_redundancy_files_mine(const struct scr_redundancy_ctx *ctx, int id, int flags,
                              struct scr_redundancy_files *out);

/* The files desc describes, listed in the filemap under owner at
 * <dsdir>[/subdir]/<name> with their metas (not opened; the filemap is not
 * saved). */
int scr_redundancy_files_register(const struct scr_redundancy_ctx *ctx, int id, int owner,
                                  const scr_kvtree *desc, const char *subdir,
                                  struct scr_redundancy_files *out);

/* Track the CRCs of what passes through files from here on, when files in
 * cache get CRCs (ctx->crc_in_cache); otherwise nothing. */
int scr_redundancy_files_track(const struct scr_redundancy_ctx *ctx,
                               struct scr_redundancy_files *files);

void scr_redundancy_files_close(struct scr_redundancy_files *files);

/* Write this rank's filemap to ctx->filemap_path. */
int scr_redundancy_save_filemap(const struct scr_redundancy_ctx *ctx);

/* List the redundancy file path of this rank in dataset id (of type
 * SCR_META_TYPE_XOR or _RS) with its size and completeness, and its CRC
 * when with_crc; saves the filemap. */
int scr_redundancy_register_file(const struct scr_redundancy_ctx *ctx, int id, const char *path,
                                 const char *type, uint64_t size, int with_crc, uint32_t crc,
                                 int complete);

/* <dsdir>/<set rank+1>_of_<N>_in_<set id>.xor (rs: .rs), in a new string. */
int scr_redundancy_file_path(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                             int rs, char **out_path);

/* The path of this rank's redundancy file of type in dataset id, in a new
 * string; SCR_ERR_NOTFOUND (not logged) when the filemap lists none. */
int scr_redundancy_find_file(const struct scr_redundancy_ctx *ctx, int id, const char *type,
                             char **out_path);

/* The CRCs the pass that read files computed: each is compared with a CRC
 * the filemap holds already, if any (SCR_CRC_ON_COPY computes one as the
 * dataset completes; a difference means the file changed since, an error),
 * then recorded; out_crcs[i] is file i's. Saves the filemap. */
int scr_redundancy_record_read(const struct scr_redundancy_ctx *ctx, int id,
                               const struct scr_redundancy_files *files, uint32_t *out_crcs);

/* After a rebuild wrote this rank's files: each file's CRC as written is
 * compared with the one the filemap records; one that differs is reported (how:
 * " rebuilt from XOR", say), marked incomplete, and the rebuild fails with
 * SCR_ERR_FORMAT, since the data it came from was damaged. A file without a
 * recorded CRC gets the one computed. Saves the filemap. */
int scr_redundancy_check_rebuilt(const struct scr_redundancy_ctx *ctx, int id,
                                 const struct scr_redundancy_files *files, const char *how);

/* In a description of files (FILES n, FILE i {meta}) write each file's CRC
 * with 8 hex digits (scr_meta_set_crc32_fixed): crcs[i] when crcs is given,
 * else the CRC the meta holds, else 0 until it is known. The header's
 * length then stays the same when it is written again with the real values. */
int scr_redundancy_fix_width(scr_kvtree *desc, const uint32_t *crcs);

/* SCR_CRC_ON_COPY: read back a file SCR wrote and synced, and compare it
 * with the CRC of the bytes that were written (when known); *io_crc is then
 * the CRC of the file as read. */
int scr_redundancy_read_back(int fd, const char *path, char *buf, size_t bufsize, int known,
                             uint32_t *io_crc);

/* a mod n in 0..n-1. */
static inline int scr_redundancy_mod(int a, int n)
{
    return ((a % n) + n) % n;
}

#endif
