/* prefix_trim.h — delete datasets from a prefix, their records with their
 * files: the checkpoints beyond the newest SCR_PREFIX_SIZE, and one
 * dataset SCR_Delete names.
 *
 * The trim runs after a flush: the checkpoints the index lists beyond the
 * newest keep are deleted. Never deleted by it: the dataset CURRENT names,
 * an output dataset (one that is also a checkpoint included), the dataset
 * busy_id (one being flushed). Either way, a dataset goes whole: its index
 * entry, the application files its summary lists under the prefix (not a
 * file a dataset the index keeps lists too: an application that writes
 * every checkpoint to the same paths), and its records, the directory
 * <prefix>/.scr/scr.dataset.<id> (summary, rank filemaps, redundancy
 * files). A dataset the index no longer lists whose summary names a file
 * being deleted (an older dataset of the same name, whose files a newer one
 * overwrote and takes with it; one dropped from the index) goes too: its
 * records would outlive their data.
 *
 * No record outlives its data, even across a crash: at no instant is
 * there a summary that says COMPLETE, or a directory any reader takes for
 * a dataset, while some of that dataset's files are gone. Each step is
 * taken for every dataset going before the next step begins:
 *   1. the entries leave the index, in one atomic replace of the file (the
 *      caller does it for SCR_Delete): a restart no longer picks them;
 *   2. each dataset directory is renamed scr.deleting.<id> (one atomic
 *      rename; scr.deleting.<id>.<n> when an unfinished deletion left that
 *      name), a name the index rebuild (index_rebuild.h) does not read and
 *      the id scan (dataset_claim.h) counts, so no new dataset takes the
 *      id; then the same for every dataset the index no longer lists that
 *      shares a file with one going (found from the summaries, before any
 *      file goes). One that cannot be renamed stays whole: the files it
 *      lists are not deleted;
 *   3. each summary is replaced, atomically, by one that says COMPLETE 0,
 *      so that even a reader given the scr.deleting.<id> directory by hand
 *      never takes the dataset for whole; it still lists the files, which
 *      step 4 and a later trim need;
 *   4. the files the summaries list are removed (then directories left
 *      empty up to the prefix);
 *   5. last the records: in each scr.deleting.<id>, the summary first,
 *      then the rest (rank filemaps, redundancy files) and the directory.
 *      When a file of step 4 could not be removed, the records all stay,
 *      so that the next trim tries again.
 * A crash after 1 leaves whole datasets no entry lists (a rebuild of the
 * index may list them again: they are complete); after 2, scr.deleting.<id>
 * directories of whole datasets, and after 3, 4 or during 5, ones whose
 * summary says COMPLETE 0 or is gone: the next trim or delete finishes
 * them from step 3, with their files as above. The index rebuild also
 * checks every file a summary lists (dataset_check.h), which catches what
 * no order can: a file removed or truncated by hand.
 *
 * Serial (libscr-core, no MPI): the library's rank 0 runs it. Logs what it
 * cannot delete and goes on; not thread-safe. */
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

/* Delete dataset id, which the caller took out of the index of prefix, as
 * above from step 2 (its files but those a dataset the index lists names
 * too, and its records), with what earlier deletions left. A dataset
 * without a directory on the prefix is no error. SCR_ERR_* when the index
 * cannot be read (then nothing was deleted); a file that cannot be
 * removed is only said. */
int scr_prefix_delete_dataset(const char *prefix, int id);

#endif
