/* crc_note.h — the CRCs a library thread computed for a rank's files in
 * cache, noted in the control directory until the rank records them in its
 * filemap.
 *
 * A SINGLE checkpoint's CRCs are computed after SCR_Complete_checkpoint
 * returned, by a thread that may not touch the filemap the rank owns
 * (run_crc_async.c). It leaves them in crc_<node rank>.scrinfo, a tree
 * DSET/<id>/RANK/<rank>/FILE/<path>/CRC, written atomically, so that a
 * process that dies before its rank recorded them loses nothing: the next
 * SCR_Init and scr-scavenge take them from the note (scr_crc_note_take).
 * A note only ever fills a CRC a complete file lacks; it never changes one
 * that is recorded. */
#ifndef SCR_CRC_NOTE_H
#define SCR_CRC_NOTE_H

#include "filemap.h"
#include "kvtree.h"

#include <stdint.h>

/* The note of the rank that is node_rank on its node, in a new string. */
int scr_crc_note_path(const char *cntl_dir, int node_rank, char **out_path);

/* Add the CRC of file, held for rank in dataset id, to note. */
int scr_crc_note_add(scr_kvtree *note, int id, int rank, const char *file, uint32_t crc);

/* Every note in cntl_dir, taken into map: each complete file the map holds
 * without a CRC gets the one noted for it. With remove, the notes are
 * deleted once read. Returns how many CRCs were taken; a note that cannot
 * be read is reported and skipped. */
int scr_crc_note_take(const char *cntl_dir, scr_filemap *map, int remove);

#endif
