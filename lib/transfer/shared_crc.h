/* shared_crc.h — a file several ranks list, read once for its CRC.
 *
 * A dataset on the prefix (written in place with SCR_CACHE_BYPASS=1, or
 * merged there at completion, shared_merge.h) may hold a file that several
 * ranks list in their filemaps: one shared file. Read for its CRC on each
 * of them, it would cost ranks × its size on the parallel file system.
 * Its flush and a restart from the records read it on one rank instead,
 * the lowest world rank that lists it (its reader): the flush then hands
 * the CRC to the other ranks that list it, whose records carry it too; a
 * restart's check reads it on the reader alone, the others checking its
 * size, and a mismatch the reader names fails the restart on every rank
 * (SCR_Complete_restart agrees on it).
 *
 * The dataset's descriptor counts such names (SHARED_NAMES, set at its
 * completion): a dataset without any (a file per process) costs nothing
 * here; one with them costs one gather of its names' hashes to learn the
 * readers (scr_shared_files_find) and, in a flush, one reduction of k
 * CRCs for its k shared names. */
#ifndef SCR_SHARED_CRC_H
#define SCR_SHARED_CRC_H

#include "dataset.h"
#include "dataset_view.h"
#include "scr_run.h"

#include <stdint.h>

/* Which rank reads each shared name of a dataset. */
struct scr_shared_crc {
    uint64_t *listed; /* (hash, nodes, reader) triples, sorted by hash (scr_shared_files_find) */
    int n;
};

/* The readers of dataset id's shared files (descriptor desc, the same on
 * every rank): an empty plan, with no communication, when desc counts no
 * shared names or SCR_CRC_ON_FLUSH is off (no CRC is read then).
 * Collective otherwise; all ranks agree on the outcome.
 * Release with scr_shared_crc_free. */
int scr_shared_crc_plan(struct scr_run *run, int id, const scr_dataset *desc,
                        struct scr_shared_crc *out);

void scr_shared_crc_free(struct scr_shared_crc *plan);

/* Whether this rank reads f (its own file of the dataset) for its CRC:
 * yes, unless another rank is the reader of its name. */
int scr_shared_crc_reads(const struct scr_shared_crc *plan, const struct scr_run *run,
                         const struct scr_dataset_view_file *f);

/* After a flush's copies of this rank's files (view; rc: how they went),
 * every reader's CRC of a shared file reaches the other ranks that list
 * it, recorded in their filemaps (then saved) as a copy's CRC is. Every
 * rank calls it whatever rc; collective when the plan is not empty.
 * Returns rc, else what failed here (a CRC its reader could not give is
 * named). */
int scr_shared_crc_share(struct scr_run *run, const struct scr_shared_crc *plan,
                         const struct scr_dataset_view *view, int rc);

#endif
