/* adopt_records.h — the records a flush would have written for the files
 * of a directory adopted by scr-adopt (adopt.h), and its index entry.
 *
 * For dataset id of the prefix, whose files stay in the adopted directory,
 * writes <prefix>/.scr/scr.dataset.<id>/: claim.scr (dataset_claim.h),
 * <rank>.scrfilemap for every rank 0..ranks-1 (a rank without files gets
 * FILES 0) and summary.scr, each file named relative to that directory
 * ("../../ckpt/rank_3.ckpt") with its size, CRC32 and the meta PATH, NAME
 * and ORIG a file routed by an application in the prefix would have had;
 * then adds the dataset to the index in one locked update (COMPLETE 1,
 * FLUSHED now, a checkpoint, CURRENT when asked). The caller has checked
 * everything, numbered the dataset and holds the prefix (prefix_lock.h).
 * When a step fails, what was written is removed again (util_undo.h) and
 * the index is left as it was. Not thread-safe. */
#ifndef SCR_ADOPT_RECORDS_H
#define SCR_ADOPT_RECORDS_H

#include "adopt_files.h"

/* Who wrote the records: the descriptor's JOBID (claims compare it) and
 * the holder named in the prefix's lock while they are written. */
#define SCR_ADOPT_JOBID "scr-adopt"

struct scr_adopt_records {
    const char *prefix;  /* absolute, normalised, as the user names it */
    const char *dir_rel; /* the adopted directory, relative to the prefix */
    const char *name;    /* the dataset's name */
    int id;              /* the dataset id, free on the prefix */
    int ckpt;            /* its checkpoint number */
    int ranks;           /* ranks of the dataset; every file's rank is below */
    int make_current;    /* 1: CURRENT names it */
};

/* Write the records of r for the files of list (ranks, sizes and CRCs
 * set; the list is sorted by rank and name here). SCR_SUCCESS, or the
 * error of the step that failed (logged), with nothing of it left. */
int scr_adopt_records_write(const struct scr_adopt_records *r, struct scr_adopt_list *list);

#endif
