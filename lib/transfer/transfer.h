/* transfer.h — moving a dataset between the cache and the prefix: the
 * flush (run_flush.c) and the fetch of a restart (run_fetch.c), whose files
 * read in place (run_fetch_in_place.c) are checked once the application
 * read them (run_fetch_check.c).
 *
 * Collective over run->world unless a function says "Rank 0"; every rank
 * returns the same status. Internal to libscr. */
#ifndef SCR_TRANSFER_H
#define SCR_TRANSFER_H

#include "scr_run.h"
#include "util_copy.h"

#include <stddef.h>
#include <stdint.h>

/* Where the restart dataset's files are read from. */
enum scr_restart_source {
    SCR_RESTART_NONE = 0,
    SCR_RESTART_CACHE,    /* this rank's files, in cache */
    SCR_RESTART_PREFIX,   /* this rank's files, read in place (SCR_FETCH_BYPASS) */
    SCR_RESTART_IN_PLACE, /* this rank's files of a checkpoint written in place (SCR_CACHE_BYPASS)
                           * that the filemap knows, read there as with SCR_RESTART_PREFIX */
    SCR_RESTART_WHOLE /* any file of a checkpoint of another number of ranks (run_fetch_whole.c) */
};

/* The restart the fetch decided. The API keeps it (api_state.h) and hands
 * it to each call of this layer that decides, prepares or checks a
 * restart; nothing below this layer sees it. */
struct scr_restart {
    int decided; /* Have_restart's answer is known */
    int id;      /* dataset to restart from, 0 if none */
    int below;   /* after a failed restart: only older datasets are offered (0: any) */
    char name[1024];
    enum scr_restart_source source;
    int fetched;       /* fetched into cache by this run: checked as it was copied */
    scr_kvtree *files; /* prefix reads: NAME -> PATH; ORIG -> PATH, SIZE, CRC when recorded
                        * (run_fetch_check.c); WHOLE: run_fetch_whole.c */
};

/* --- run_flush.c: copy a dataset to the prefix ---------------------------------- */

/* Copy dataset id from cache to its original paths under the prefix (or, for
 * a dataset written in place, in_cache 0, only record it), write its summary and rank
 * filemaps, then add it to the index; a checkpoint becomes current.
 * SCR_ERR_TIMEOUT on every rank when the watchdog (SCR_WATCHDOG_TIMEOUT_PFS)
 * abandoned a rank's copy, or one it abandoned earlier has not returned:
 * the dataset stays in cache, not flushed, and the caller may go on. */
int scr_flush_dataset(struct scr_run *run, int id, int in_cache);

/* A copy of op ("flush", "fetch") of dataset id, from src to dest, one side
 * on the prefix, was abandoned by the watchdog (SCR_WATCHDOG_TIMEOUT_PFS,
 * the copy's timeout, util_copy.h): say so in one line that ends with
 * consequence (what it means for the operation). */
void scr_transfer_say_abandoned(const struct scr_run *run, const char *op, int id, const char *src,
                                const char *dest, const char *consequence);

/* 1 when dataset id is recorded as being on the prefix. */
int scr_flush_is_flushed(struct scr_run *run, int id, int *out_flushed);

/* --- run_fetch.c: restart data from the prefix ------------------------------------- */

/* Decide the restart dataset into rs: the newest intact checkpoint in
 * cache (or the one current_name names, from SCR_Current or SCR_CURRENT;
 * NULL: none), else fetch from the prefix. After a failed restart
 * (rs->below set), the newest checkpoint older than the one that failed,
 * from cache when it is intact there, else fetched. Once rs->decided, it
 * returns at once. */
int scr_fetch_decide_restart(struct scr_run *run, struct scr_restart *rs, const char *current_name);

/* Rank 0: the dataset of the prefix a restart would fetch first (0 when
 * none) and its name, without fetching it or saying anything (for the init
 * event). */
int scr_fetch_peek(struct scr_run *run, int *out_id, char *name, size_t len);

/* --- run_fetch_in_place.c: a restart read where its files lie ---------------------- */

/* Not collective: note src, a file of this rank's restart read in place
 * (name: its base name, for SCR_Route_file; size and crc, NULL when none
 * is recorded: what run_fetch_check.c compares it with) in files (a
 * restart's rs->files), once its size is checked. A missing or short file
 * is named in one line and is SCR_ERR_NOTFOUND. */
int scr_fetch_note_in_place(scr_kvtree *files, const char *src, const char *name, uint64_t size,
                            const uint32_t *crc);

/* Prepare the restart from dataset id, a checkpoint written in place that
 * this rank's filemap lists (scr_cache_written_in_place): every rank notes
 * its files from their meta (scr_fetch_note_in_place). *out_ok: the same on
 * every rank. */
int scr_fetch_in_place_prepare(struct scr_run *run, struct scr_restart *rs, int id, int *out_ok);

/* --- run_fetch_check.c: the files of a restart read in place ------------------------ */

/* Not collective: for a restart read in place (SCR_FETCH_BYPASS, or a
 * checkpoint written in place), read this rank's files of the restart again
 * and compare them with the size and CRC32 recorded when they were flushed
 * (the CRC with SCR_CRC_ON_FLUSH, as a fetch does). Each file that differs or cannot be read is
 * named in one line and counted in *out_damaged. Nothing is read for a restart from cache, whose
 * files were checked when they got there, nor for one of another number of ranks
 * (scr_fetch_whole_route checks each file). */
void scr_fetch_check_in_place(struct scr_run *run, const struct scr_restart *rs, int *out_damaged);

/* --- run_fetch_whole.c: a checkpoint of another number of ranks ------------------ */

/* Prepare the restart from dataset id of the prefix, written by another
 * number of ranks than this run has, for any rank to read any of its
 * files: every file listed is checked to be there with its size, every
 * rank learns them all, and each node pools the copies its cache holds.
 * *out_ok: the same on every rank. */
int scr_fetch_whole_prepare(struct scr_run *run, struct scr_restart *rs, int id, int *out_ok);

/* Not collective: the path to read the restart file the application calls
 * name (abs: name as an absolute path) at: a copy in this node's cache, or
 * the file on the prefix, its CRC checked the first time. A bare name must
 * belong to one file only. */
int scr_fetch_whole_route(struct scr_run *run, struct scr_restart *rs, const char *name,
                          const char *abs, char **out_path);

/* Rank 0: record in the index that dataset id was read back (FETCHED, now
 * CURRENT) or could not be (FAILED, no longer CURRENT). SCR_ERR_NOTFOUND
 * when the index does not list it. */
int scr_fetch_record(struct scr_run *run, int id, int fetched);

#endif
