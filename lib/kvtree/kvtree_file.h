/* kvtree_file.h — trees stored in files, in SCR's hash file format.
 *
 * Layout (all integers big-endian):
 *   u32 magic 0x951fc3f5 | u16 file type 1 | u16 version 1 |
 *   u64 size of the whole file | u32 flags | packed tree | [u32 CRC-32]
 * Flag 0x1 means a CRC-32 (zlib's) of every byte before it ends the file. We
 * always write the CRC and accept files with or without it.
 *
 * Every write replaces the file atomically (util_io.h). Reading checks the
 * header, the size field against the real length, the CRC, and the packed
 * tree (kvtree_pack.h); any fault is logged with the file name and returns
 * SCR_ERR_FORMAT, leaving the caller's tree as it was.
 *
 * A hash file is never empty: an existing file of 0 bytes is damaged like
 * any other short one, and is reported so (naming the file), by every read.
 *
 * Files several processes update use the locked calls: fcntl() record locks,
 * which NFS honours too. Because a write replaces the file, a process that
 * waited for a lock re-checks that its descriptor still names the file and
 * retries on the new one if not. Taking the lock of a missing file creates
 * it holding an empty tree, hard-linked into place complete (util_io.h
 * scr_write_new), so that no reader ever meets it half made. */
#ifndef SCR_KVTREE_FILE_H
#define SCR_KVTREE_FILE_H

#include "kvtree.h"
#include "kvtree_pack.h"

#include <stddef.h>
#include <stdint.h>

#define SCR_KVTREE_FILE_MAGIC 0x951fc3f5u
#define SCR_KVTREE_FILE_TYPE 1
#define SCR_KVTREE_FILE_VERSION 1
#define SCR_KVTREE_FILE_FLAG_CRC32 0x1u
#define SCR_KVTREE_FILE_HEADER_SIZE 20

/* Largest hash file we agree to read (guards against absurd allocations). */
#define SCR_KVTREE_FILE_MAX_BYTES ((size_t)1 << 31)

/* Write tree to path (atomic replace, with CRC). */
int scr_kvtree_write_file(const char *path, const scr_kvtree *tree);

/* Read path and merge its tree into tree. A missing file returns
 * SCR_ERR_NOTFOUND without logging; anything else that fails is logged. */
int scr_kvtree_read_file(const char *path, scr_kvtree *tree);

/* The file image of tree (header, packed tree, CRC) in a new buffer. */
int scr_kvtree_file_image(const scr_kvtree *tree, void **out_buf, size_t *out_len);

/* The file image of a tree whose top level is the n pairs keys[i] ->
 * values[i], in that order (keys distinct), without building that tree.
 * With canonical, each value is packed with every level sorted
 * (scr_kvtree_pack_canonical); otherwise as it is. */
int scr_kvtree_file_image_of(const char *const *keys, const scr_kvtree *const *values, size_t n,
                             int canonical, void **out_buf, size_t *out_len);

/* A file image packed element by element (kvtree_pack.h): begin reserves
 * the header, the caller packs one tree, finish fills in the header and
 * appends the CRC. finish returns SCR_ERR_NOMEM when an append failed. */
void scr_kvtree_file_begin(scr_strbuf *b);
int scr_kvtree_file_finish(scr_strbuf *b);

/* Parse a complete file image of len bytes; origin names it in messages. */
int scr_kvtree_parse_image(const void *buf, size_t len, scr_kvtree *tree, const char *origin);

/* Read under a shared lock. A missing file reads as an empty tree; an empty
 * (0-byte) file is damaged (SCR_ERR_FORMAT, logged). */
int scr_kvtree_read_with_lock(const char *path, scr_kvtree *tree);

/* Create path if needed (holding an empty tree), take an exclusive lock and
 * read it. On success *out_fd holds the lock; finish with
 * scr_kvtree_write_close_unlock (or scr_kvtree_close_unlock to abandon).
 * A missing directory is SCR_ERR_NOTFOUND, not logged. */
int scr_kvtree_lock_open_read(const char *path, int *out_fd, scr_kvtree *tree);

/* Take the exclusive lock of the existing file path and read its bytes,
 * whatever they hold (a new buffer the caller frees), for a caller that must
 * look at a file the readers refuse. SCR_ERR_NOTFOUND, not logged, when
 * there is no file. Finish as after scr_kvtree_lock_open_read. */
int scr_kvtree_lock_open_image(const char *path, int *out_fd, void **out_buf, size_t *out_len);

/* Atomically replace path with tree, then release the lock and close *fd
 * (set to -1). The lock is released even if the write fails. */
int scr_kvtree_write_close_unlock(const char *path, int *fd, const scr_kvtree *tree);

/* Release the lock without writing. */
void scr_kvtree_close_unlock(int *fd);

/* Take the exclusive lock of path and remove the file, whatever it holds; a
 * process waiting for the lock then finds the file gone. *out_removed is 0
 * when there was no file. */
int scr_kvtree_lock_unlink(const char *path, int *out_removed);

#endif
