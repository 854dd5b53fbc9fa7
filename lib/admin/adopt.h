/* adopt.h — make a directory of files an application wrote without SCR a
 * checkpoint of the prefix, so that a restart through the SCR API loads it.
 *
 * The files stay where they are, inside the prefix; what a flush would have
 * written about them is written beside the other datasets (adopt_records.h):
 *   <prefix>/.scr/scr.dataset.<id>/claim.scr, <rank>.scrfilemap for every
 *   rank (files named relative to that directory, "../../ckpt/rank_3.ckpt",
 *   with the meta PATH, NAME and ORIG a routed file would have had) and
 *   summary.scr (sizes and CRC32s), then the index entry: COMPLETE 1,
 *   FLUSHED now, FLAGS checkpoint, and CURRENT unless asked otherwise.
 * A restart's fetch reads it as any flushed checkpoint, and SCR_Route_file
 * gives a rank its file under the path it had in the prefix (or its bare
 * name). The id is the next free one: above every id of the index and every
 * dataset directory; CKPT is above every checkpoint id of the index.
 *
 * Everything is checked before anything is written, and every refusal is
 * logged naming what was wrong: a missing or empty directory, one outside
 * the prefix (or the prefix itself, or its .scr), one holding files of an
 * indexed dataset, a name the index has already, an entry that cannot be
 * adopted (adopt_files.h), a rule that matches no file or leaves files
 * unowned (named), a rank with no file, a damaged index. The prefix is
 * taken for the duration (prefix_lock.h) so that no job numbers a dataset
 * meanwhile; a failure while writing takes back what was written
 * (util_undo.h). Not thread-safe. */
#ifndef SCR_ADOPT_H
#define SCR_ADOPT_H

#include <stdint.h>

struct scr_adopt_options {
    const char *prefix; /* the prefix directory (relative: to the current directory) */
    const char *dir;    /* the directory to adopt: absolute, or relative to the prefix */
    const char *name;   /* the dataset's name */
    const char *owner;  /* ownership rule (adopt_rule.h); NULL with global */
    int global;         /* every file to rank 0 of a dataset of 1 rank */
    int ranks;          /* ranks of the dataset; 0: the highest rank owning a file + 1,
                           and every rank below must own one */
    int make_current;   /* 1: the dataset becomes CURRENT */
};

struct scr_adopt_result {
    int id; /* the dataset id given */
    int ranks;
    int files;
    uint64_t bytes;
};

/* Adopt o->dir as described above. SCR_SUCCESS with *out filled; an error
 * (logged) and no record of the directory left otherwise (a refusal changes
 * nothing at all; a failure while writing may leave the .scr directory and
 * its lock file it made): SCR_ERR_ARG for bad
 * input, SCR_ERR_STATE when the prefix is in use by a job, SCR_ERR_FORMAT
 * for a damaged index, SCR_ERR_IO or SCR_ERR_NOMEM. */
int scr_adopt_dataset(const struct scr_adopt_options *o, struct scr_adopt_result *out);

#endif
