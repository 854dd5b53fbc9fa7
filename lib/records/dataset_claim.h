/* dataset_claim.h — a dataset directory on the prefix belongs to one dataset.
 *
 * Dataset ids are numbered per job from what the prefix held at SCR_Init,
 * so two jobs flushing to one prefix at once (its lock broken by hand) can
 * pick the same id. Before a flush writes anything into
 * <prefix>/.scr/scr.dataset.<id>/, rank 0 claims the directory by creating
 * claim.scr in it, a copy of the dataset's descriptor (ID, NAME, JOBID,
 * CREATED, ...), in one atomic step: a complete file is linked into place
 * and the link fails when one is there already. A claim by the same dataset
 * (same job id, name and creation time: a flush tried again) holds; a claim
 * by any other dataset refuses the flush, so a second job never overwrites
 * the first one's summary, rank filemaps or redundancy files. A directory
 * without a claim (written by an older version, or scavenged) is claimed.
 * scr_dataset_claim_highest_id gives the highest id among the prefix's
 * dataset directories, those being deleted too, so that a new dataset never takes the id of one
 * that left the index but not the disk (SCR_Drop). */
#ifndef SCR_DATASET_CLAIM_H
#define SCR_DATASET_CLAIM_H

#include "dataset.h"

#define SCR_DATASET_CLAIM_NAME "claim.scr"

/* Claim dir (which must exist) for desc. SCR_SUCCESS when dir is desc's,
 * with *out_created 1 when this call made the claim (a flush that fails
 * takes it back) and 0 when desc had claimed it before; SCR_ERR_STATE
 * (logged, naming the other dataset and its job) when it belongs to
 * another; SCR_ERR_IO or SCR_ERR_FORMAT (logged) otherwise. */
int scr_dataset_claim(const char *dir, const scr_dataset *desc, int *out_created);

/* 1 when a and b describe the same dataset: same ID, NAME, JOBID and CREATED. */
int scr_dataset_claim_same(const scr_dataset *a, const scr_dataset *b);

/* The id of a dataset directory's name, "scr.dataset.<id>" with <id> a
 * plain decimal >= 1 (scr_record_key_int): SCR_SUCCESS, or SCR_ERR_NOTFOUND
 * (not logged) for any other name. */
int scr_dataset_dir_name_id(const char *name, int *out_id);

/* The highest <id> of the directories <prefix>/.scr/scr.dataset.<id> and
 * of those a deletion has not finished, scr.deleting.<id>[.<n>], 0 when
 * there are none (or no .scr). SCR_ERR_IO (logged) when .scr cannot
 * be read. */
int scr_dataset_claim_highest_id(const char *prefix, int *out_id);

#endif
