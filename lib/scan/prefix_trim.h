/* prefix_trim.h — keep only the newest checkpoints on a prefix (SCR_PREFIX_SIZE).
 *
 * After a flush, the checkpoints the index lists beyond the newest keep are
 * deleted: their index entries, their dataset directories
 * (<prefix>/.scr/scr.dataset.<id>) and the application files their summaries
 * list under the prefix. Never deleted: the dataset CURRENT names, an output
 * dataset (one that is also a checkpoint included), the dataset busy_id (one
 * being flushed), and a file that a dataset the index keeps lists too (an
 * application that writes every checkpoint to the same paths).
 *
 * Order of steps, so that a crash at any point leaves the index true:
 *   1. the entries leave the index, in one atomic replace of the file;
 *   2. each dataset directory is renamed scr.deleting.<id> (one rename), a
 *      name that neither the index rebuild (index_rebuild.h) nor the id scan
 *      (dataset_claim.h) reads, so a dataset half deleted is never indexed
 *      again, not even by scr-index --rebuild-index;
 *   3. the files its summary lists are removed (then directories left empty
 *      up to the prefix), and last the scr.deleting.<id> directory.
 * A crash after 1 leaves a whole dataset no entry lists (a rebuild may list
 * it again: it is complete); after 2, a scr.deleting.<id> directory that the
 * next trim of the prefix finishes deleting.
 *
 * Serial (libscr-core, no MPI): the library's rank 0 runs it after a flush
 * completes. Logs what it cannot delete and goes on; not thread-safe. */
#ifndef SCR_PREFIX_TRIM_H
#define SCR_PREFIX_TRIM_H

/* Name of a dataset directory being deleted, in <prefix>/.scr. */
#define SCR_PREFIX_TRIM_DIR_PREFIX "scr.deleting."

/* Keep the newest keep checkpoints of prefix (keep >= 1) and delete the
 * older ones as above, busy_id aside (0: none). Finishes first what an
 * earlier trim left in scr.deleting.* directories. *out_deleted (may be
 * NULL) counts the datasets that left the index. SCR_ERR_* when the index
 * cannot be read or replaced (then nothing was deleted); a file that cannot
 * be removed is only said. */
int scr_prefix_trim(const char *prefix, int keep, int busy_id, int *out_deleted);

#endif
