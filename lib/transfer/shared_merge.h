/* shared_merge.h — a file ranks on several nodes wrote, merged on the prefix.
 *
 * With the cache (SCR_CACHE_BYPASS=0, the default), each node's copy of a
 * file that ranks on several nodes routed (run_shared.c finds them) is a
 * piece: the bytes that node's ranks wrote, every other byte a hole or
 * zero. At SCR_Complete_output the pieces are merged into the file at its
 * place on the prefix, the path it has with SCR_CACHE_BYPASS=1, written in
 * parallel: each node writes the data extents (SEEK_DATA / SEEK_HOLE) only
 * it has, so a sparse piece costs what its ranks wrote; where the extents
 * of two nodes overlap (a block both wrote part of), the bytes are reduced
 * to the lowest rank that routed the file, which writes them.
 *
 * The rule for overlaps: at a byte that two pieces' data extents cover, a
 * zero yields to a non-zero byte (the zero is the fill of a block the node
 * wrote only part of); two different non-zero bytes mean two nodes wrote
 * that byte, and the file cannot be known: the dataset is refused, naming
 * the file and the offset. Two nodes that both wrote zero there, or both the
 * same byte, give that byte, which is what the file holds either way. The
 * one case the rule cannot see is a node writing a zero over a byte another
 * node wrote non-zero: the non-zero byte is kept.
 *
 * The dataset then lives on the prefix as a dataset written with
 * SCR_CACHE_BYPASS=1 does: its other files (file per process) go there
 * too, and the caller continues as for a bypass dataset (size, CRC,
 * summary, index: the flush of a dataset written in place), so a restart
 * reads it in place and SCR_Complete_restart checks the CRCs. Why not keep
 * them in cache: the merged file is not in any node's cache, so neither a
 * restart from cache nor the redundancy schemes could cover the whole
 * dataset; a dataset in one place is restarted, scavenged and evicted by
 * the paths every other dataset takes. The copy of the other files costs
 * what SCR_CACHE_BYPASS=1 would have spent writing them. */
#ifndef SCR_SHARED_MERGE_H
#define SCR_SHARED_MERGE_H

#include "scr_run.h"

#include <stdint.h>

/* Merge the nshared files of dataset id (named name in messages) listed in
 * shared as (hash, nodes) pairs (scr_shared_files_find) on the prefix and
 * move the rest of the dataset there, its filemap entries naming the
 * prefix paths. *out_refused = 1 (and SCR_SUCCESS) when two nodes wrote a
 * same byte of a file: the lowest rank that routed it said which, nothing
 * merged stays on the prefix, and the dataset is still in cache. A merge
 * or a move that fails (SCR_ERR_IO, SCR_ERR_NOMEM) takes back the same
 * way what it wrote on the prefix, the files merged and the copies it
 * created; the filemap then names the cache paths alone, unless the cache
 * had let go of the dataset already. Collective; all ranks agree on the
 * outcome. */
int scr_shared_merge(struct scr_run *run, int id, const char *name, const uint64_t *shared,
                     int nshared, int *out_refused);

#endif
