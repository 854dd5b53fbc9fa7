/* rank2file.h — SCR 3.1's list of the files of each rank of a dataset.
 *
 * SCR 3.1 keeps no rank filemaps on the prefix. Its dataset directory
 * (<prefix>/.scr/scr.dataset.<id>/) holds instead a tree of files that
 * together map each rank to the files it wrote:
 *
 *   rank2file            RANKS <n>  LEVEL 1
 *                        RANK <k> FILE <suffix> OFFSET <o>   one per part
 *   rank2file<suffix>    RANKS <n>  LEVEL 0                  (e.g. ".0.0")
 *                        RANK <r> FILE <path relative to the prefix> ...
 *
 * A part at a LEVEL above 0 names further parts the same way. No size or
 * CRC is recorded per file. Reading checks every value: RANKS the same in
 * every file, LEVEL one less than its parent's, part suffixes without '/',
 * every rank 0..n-1 listed exactly once (a rank may list no FILE), and every
 * path relative, non-empty and free of ".." components, so that it cannot
 * leave the prefix. A bad one is logged as "<file>: key <KEY...> holds
 * '<text>', expected <what>" (or a sentence naming the file and the rank)
 * and returned as SCR_ERR_FORMAT; a missing top file is SCR_ERR_NOTFOUND,
 * not logged, and a missing part is SCR_ERR_FORMAT, logged. Not thread-safe. */
#ifndef SCR_RANK2FILE_H
#define SCR_RANK2FILE_H

#include "kvtree.h"

/* Name of the top file in the dataset directory. */
#define SCR_RANK2FILE_NAME "rank2file"

/* Read the rank2file tree of the dataset directory dsdir. On success
 * *out_ranks is RANKS and *out_files a new tree the caller deletes:
 * RANK <r> FILE <path relative to the prefix> for every rank (a rank
 * without files has an empty RANK <r>). */
int scr_rank2file_read(const char *dsdir, int *out_ranks, scr_kvtree **out_files);

#endif
