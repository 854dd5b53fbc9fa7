/* scan_index.h — put a dataset directory of the prefix into the index.
 *
 * What scr-index --add and --build (and the end-of-allocation scavenge)
 * do once every node's files are on the prefix, to a directory
 * <prefix>/.scr/<name> (any other is refused), whose records may name no
 * file outside the prefix (rank_filemap.h; a summary or a rank filemap
 * that does is refused, naming it and the path, before anything is
 * written):
 *   0. an index missing while other datasets have summaries is rebuilt from
 *      them (index_rebuild.h); a damaged one is refused, left as it is,
 *      before anything is written;
 *   1. a directory with a summary (summary.h) was flushed complete: its
 *      descriptor goes into the index as is. With check_crc the summary is
 *      not taken on trust: a directory with rank filemaps goes on to step 2
 *      as if it had none (and loses its summary if it turns out
 *      incomplete); one without is checked file by file against the
 *      summary, a rank with a file that differs counting as missing;
 *   2. otherwise scan it (scan.h); if ranks miss files, rebuild what the
 *      redundancy allows (rebuild.h) and scan again;
 *   3. when every file is there, write the summary;
 *   4. add the dataset to <prefix>/.scr/index.scr with one locked update:
 *      COMPLETE 1, or COMPLETE 0 with MISSING naming the ranks that lack
 *      files; FLUSHED now; and a complete checkpoint becomes CURRENT unless
 *      CURRENT names a newer dataset, while an incomplete one that CURRENT
 *      named is current no more.
 * A restart never picks an incomplete dataset, so indexing one is safe and
 * tells the user what was lost. */
#ifndef SCR_SCAN_INDEX_H
#define SCR_SCAN_INDEX_H

#include <stddef.h>

struct scr_scan_index_options {
    const char *prefix; /* the prefix directory (absolute) */
    const char *dir;    /* the dataset directory (absolute) */
    int check_crc;      /* read every file and check its recorded CRC */
    size_t buf_size;    /* I/O buffer of the rebuild; 0: 1 MiB */
};

struct scr_scan_index_result {
    int id; /* the dataset indexed */
    int complete;
    int rebuilt;  /* ranks rebuilt */
    int *missing; /* ranks still missing files (caller frees) */
    int nmissing;
};

/* Steps 1-4 above. SCR_SUCCESS when the dataset was indexed (complete or
 * not; see out); an error when it could not be (no rank filemap, records
 * that contradict each other, the index is damaged or could not be
 * updated), logged. */
int scr_scan_index_dataset(const struct scr_scan_index_options *opts,
                           struct scr_scan_index_result *out);

#endif
