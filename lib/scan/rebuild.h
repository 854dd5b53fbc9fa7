/* rebuild.h — rebuild the missing files of a scanned dataset directory.
 *
 * Serial, on the prefix, from what the scavenge brought there:
 *   XOR      one missing member per set: its files and its XOR file are the
 *            XOR of the other members' data and XOR files (seeds/003 §7.3);
 *   RS       up to k missing members per set (k = FAILURES of the headers),
 *            decoded stripe by stripe (erasure_rs.h; layout in run_rs.c);
 *   PARTNER  a copy of the rank's files under partner.<rank>/ (partner_copy.h).
 * A rank that lost its rank filemap too is rebuilt from the metas its
 * neighbours' redundancy headers keep (CURRENT, PARTNER, PARTNERS), and
 * gets a new rank filemap. Rebuilt files are written under temporary names,
 * checked against the recorded sizes and CRC-32 (when recorded), and only
 * then renamed into place, so a failed rebuild leaves nothing half-written.
 * Data moves in pieces of bufsize bytes: memory does not grow with files. */
#ifndef SCR_REBUILD_H
#define SCR_REBUILD_H

#include "scan.h"

#include <stddef.h>

/* Rebuild every missing rank of scan that its redundancy allows. On
 * return *out_rebuilt counts the ranks rebuilt; SCR_FAILURE (logged,
 * naming the ranks) when some could not be, SCR_ERR_STATE when the scan is
 * invalid. The scan is not updated: scan the directory again. */
int scr_rebuild_dataset(const struct scr_scan *scan, size_t bufsize, int *out_rebuilt);

#endif
