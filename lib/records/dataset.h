/* dataset.h — the dataset descriptor (DSETDESC): what a dataset is.
 *
 * Every checkpoint or output the application writes is a dataset, numbered
 * from 1 in the order they are started. Its descriptor is a scr_kvtree with
 * these keys, each holding one value:
 *   ID        dataset id (>= 1)
 *   NAME      dataset name (non-empty), e.g. "ckpt.6" or the output's name
 *   FLAGS     bit 1 checkpoint, bit 2 output (SCR_FLAG_CHECKPOINT and
 *             SCR_FLAG_OUTPUT of the public API); both may be set
 *   CREATED   when it was started, microseconds since the epoch
 *   USER      user name;  JOBNAME  job name;  JOBID  job id (text)
 *   CLUSTER   name of the cluster that wrote it (SCR_CLUSTER_NAME)
 *   CKPT      checkpoint id (>= 1), for checkpoints
 *   SIZE      total bytes of the application's files, over all ranks
 *   FILES     number of the application's files, over all ranks
 *   COMPLETE  1 if every rank reported its files valid, 0 otherwise
 *   FLAG_CKPT, FLAG_OUTPUT  0 or 1 each: how SCR 3.1 writes FLAGS. A
 *             descriptor without FLAGS takes its flags from these two; this
 *             build writes them only beside SCR 3.1's own records
 * Every key is optional; other keys are kept untouched. A descriptor is not
 * a file of its own: filemaps, the rank filemaps, the summary and the index
 * embed one, and check it with scr_dataset_validate.
 *
 * Setters replace the value and refuse (SCR_ERR_ARG, logged) a value a reader
 * would refuse. Getters never log: SCR_ERR_NOTFOUND when the key is absent,
 * SCR_ERR_TYPE when it holds something other than one valid value.
 * Not thread-safe. */
#ifndef SCR_DATASET_H
#define SCR_DATASET_H

#include "kvtree.h"

#include <stdint.h>

typedef struct scr_kvtree scr_dataset;

/* The FLAGS bits; equal to SCR_FLAG_CHECKPOINT and SCR_FLAG_OUTPUT of scr.h. */
#define SCR_DATASET_FLAG_CHECKPOINT 1
#define SCR_DATASET_FLAG_OUTPUT 2

/* A new empty descriptor (free with scr_dataset_delete); NULL if out of memory. */
scr_dataset *scr_dataset_new(void);
void scr_dataset_delete(scr_dataset *dset);

/* Make dst an exact copy of src (dst's old keys are dropped). */
int scr_dataset_copy(scr_dataset *dst, const scr_dataset *src);

/* --- setters ------------------------------------------------------------------ */

int scr_dataset_set_id(scr_dataset *dset, int id);
int scr_dataset_set_name(scr_dataset *dset, const char *name);
int scr_dataset_set_flags(scr_dataset *dset, int flags);
int scr_dataset_set_created(scr_dataset *dset, int64_t usecs);
int scr_dataset_set_username(scr_dataset *dset, const char *user);
int scr_dataset_set_jobname(scr_dataset *dset, const char *jobname);
int scr_dataset_set_cluster(scr_dataset *dset, const char *cluster);
int scr_dataset_set_jobid(scr_dataset *dset, const char *jobid);
int scr_dataset_set_ckpt(scr_dataset *dset, int ckpt_id);
int scr_dataset_set_size(scr_dataset *dset, uint64_t bytes);
int scr_dataset_set_files(scr_dataset *dset, int files);
int scr_dataset_set_complete(scr_dataset *dset, int complete);
/* SHARED_NAMES: how many of the names of a dataset written in place (or
 * merged there) several ranks list; 0 or absent, none (file per process).
 * The flush and a restart from the records read such a file once for its
 * CRC (shared_crc.h), and only when this is above 0 do they ask which. */
int scr_dataset_set_shared_names(scr_dataset *dset, int names);

/* --- getters (strings point into dset, valid until the key changes) ---------- */

int scr_dataset_get_id(const scr_dataset *dset, int *out_id);
int scr_dataset_get_name(const scr_dataset *dset, const char **out_name);
int scr_dataset_get_flags(const scr_dataset *dset, int *out_flags);
int scr_dataset_get_created(const scr_dataset *dset, int64_t *out_usecs);
int scr_dataset_get_username(const scr_dataset *dset, const char **out_user);
int scr_dataset_get_jobname(const scr_dataset *dset, const char **out_jobname);
int scr_dataset_get_cluster(const scr_dataset *dset, const char **out_cluster);
int scr_dataset_get_jobid(const scr_dataset *dset, const char **out_jobid);
int scr_dataset_get_ckpt(const scr_dataset *dset, int *out_ckpt_id);
int scr_dataset_get_size(const scr_dataset *dset, uint64_t *out_bytes);
int scr_dataset_get_files(const scr_dataset *dset, int *out_files);
int scr_dataset_get_complete(const scr_dataset *dset, int *out_complete);
int scr_dataset_get_shared_names(const scr_dataset *dset, int *out_names);

/* FLAG_CKPT and FLAG_OUTPUT set from the flags (FLAGS, or a CKPT id when
 * there are none), so that SCR 3.1 reads the descriptor as this build does. */
int scr_dataset_set_scr31_flags(scr_dataset *dset);

/* --- questions ------------------------------------------------------------------ */

/* 1 if the dataset is a checkpoint. Without FLAGS (descriptors written
 * before output datasets existed) a dataset with a CKPT id is one. */
int scr_dataset_is_checkpoint(const scr_dataset *dset);

/* 1 if FLAGS marks the dataset as output. */
int scr_dataset_is_output(const scr_dataset *dset);

/* --- for the modules that store descriptors ------------------------------------ */

/* Check every known key of dset as read from file; where is the key path
 * leading to the descriptor (e.g. "RANK 2 DSET 6 DSETDESC"). A bad value is
 * logged as "<file>: key <where> <KEY> holds '<text>', expected <what>" and
 * SCR_ERR_FORMAT returned. A NULL dset is valid (empty). */
int scr_dataset_validate(const scr_dataset *dset, const char *file, const char *where);

#endif
