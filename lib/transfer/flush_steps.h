/* flush_steps.h — the steps of a flush that the synchronous flush
 * (run_flush.c) and the background one (flush_async.c) share.
 *
 * A flush is begun (the dataset directory on the prefix made and claimed,
 * the node's flush file saying FLUSHING), then every rank's application
 * files are copied by someone (this rank in its own thread, or its node's
 * flush thread), and the flush is concluded: each rank records the CRCs of
 * its copies and writes its rank filemap, rank 0 the summary and then the
 * index entry, or, when any rank failed, every rank takes back what the
 * attempt created. begin and conclude are collective over run->world and
 * return the same status on every rank. Internal to the transfer layer. */
#ifndef SCR_FLUSH_STEPS_H
#define SCR_FLUSH_STEPS_H

#include "dataset_view.h"
#include "event_log.h"
#include "scr_run.h"
#include "util_copy.h"
#include "util_undo.h"

struct scr_flush_attempt {
    int id;                               /* the dataset */
    struct scr_dataset_view *view;        /* this rank's part of it, read once at the begin */
    const scr_dataset *desc;              /* its descriptor (the view's) */
    char *dsdir;                          /* <prefix>/.scr/scr.dataset.<id> */
    struct scr_undo undo;                 /* what this rank created on the prefix */
    int in_cache;                         /* the dataset is in cache (not written in place) */
    double t0;                            /* when it began */
    const struct scr_event_field *fields; /* more fields of the flush event (may be NULL) */
    int nfields;
};

/* Begin the flush of dataset id (*out, freed by scr_flush_attempt_free on
 * success; nothing to free on failure). SCR_ERR_NOTFOUND when a rank has no
 * record of it, SCR_ERR_TIMEOUT while a copy the watchdog abandoned is out. */
int scr_flush_begin(struct scr_run *run, int id, int in_cache, struct scr_flush_attempt *out);

/* Conclude attempt a, whose copies on this rank's behalf went as copy_rc
 * says (SCR_ERR_TIMEOUT: the watchdog abandoned one); the flush event is
 * logged with a->fields. SCR_ERR_TIMEOUT on every rank when any rank's copy
 * was abandoned. */
int scr_flush_conclude(struct scr_run *run, struct scr_flush_attempt *a, int copy_rc);

void scr_flush_attempt_free(struct scr_flush_attempt *a);

/* Where file f (this rank's, of dataset id) goes on the prefix, in a new
 * string; SCR_ERR_NOTFOUND when f has no meta. The filemap is not taken
 * on trust: a destination outside the prefix, or a file neither in the
 * dataset's cache directory nor written in place on the prefix, is refused
 * with SCR_ERR_FORMAT, logged naming the filemap and the path. */
int scr_flush_destination(const struct scr_run *run, int id, const char *dsdir,
                          const struct scr_dataset_view_file *f, char **out_dest);

/* Before writing dest: note in undo the directories missing on the way,
 * and *out_new whether dest itself is missing. */
int scr_flush_note_destination(struct scr_undo *undo, const char *dest, int *out_new);

/* The zlib level at which the flush of a dataset described by desc stores
 * its files: SCR_FLUSH_COMPRESS for a checkpoint, 0 (as written) for an
 * output dataset, whose files people and programs read on the prefix. */
int scr_flush_compress_level(const struct scr_run *run, const scr_dataset *desc);

/* Record in this rank's filemap (in memory) what the copy of file gave: with
 * SCR_CRC_ON_FLUSH its CRC, which must equal the one recorded when it was
 * written (else SCR_ERR_FORMAT, said: the file in cache is damaged); and
 * got->stored, how the prefix holds it (COMPRESSED and its size when gzip;
 * not compressed: as written). */
int scr_flush_record_copy(struct scr_run *run, int id, const char *file,
                          const struct scr_copy_result *got);

#endif
