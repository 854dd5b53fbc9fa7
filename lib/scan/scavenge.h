/* scavenge.h — copy one node's part of a dataset from cache to the prefix.
 *
 * At the end of an allocation the newest dataset in cache may never have
 * reached the prefix (no flush was asked for, or the run died). Run once on
 * every node, without MPI, a scavenge copies what this node's filemaps (in
 * its control directory) list for the dataset into the dataset directory
 * the library's flush uses, <prefix>/.scr/scr.dataset.<id>:
 *   - each rank's application files, back to their original paths, and its
 *     XOR or RS files, into the dataset directory;
 *   - for each such rank, <rank>.scrfilemap (rank_filemap.h) naming its
 *     files with the CRC-32 computed on the way; a file that could not be
 *     copied is listed with what the cache recorded and is absent from the
 *     prefix, so the scan counts it missing and checks its rebuild;
 *   - PARTNER copies this node holds for a rank of a failed node or a failed
 *     rank (only those asked for), under partner.<owner>/ (partner_copy.h).
 * The filemaps are not taken on trust (scavenge_paths.h): a file read from
 * outside the dataset's cache directory or to be written outside the
 * prefix stops the scavenge before anything is copied, and a file under
 * the prefix the job recorded goes to the same place under opts->prefix.
 * A file missing or damaged in cache (its size or recorded CRC differ) is
 * reported, not copied (a copy already at its place is removed), and does
 * not stop the others. The scan of the whole
 * dataset (scan.h), run once after every node is scavenged, rebuilds what
 * is missing, writes the summary and indexes it; a scavenge does neither.
 *
 * A dataset the flush file marks as on the prefix (PFS) is skipped unless
 * forced. After a complete copy the scavenge marks it so in this node's
 * flush file, as the library's flush does (CACHE and PFS, FLUSHING cleared),
 * so a second scavenge of the node skips it; the mark is per node, saying
 * that this node's part is on the prefix, not that the dataset is complete
 * there (the index says that). A forced copy that loses a file clears it.
 * Memory use does not depend on file sizes (one buffer). Errors are logged
 * once where they happen. */
#ifndef SCR_SCAVENGE_H
#define SCR_SCAVENGE_H

#include <stddef.h>
#include <stdint.h>

struct scr_scavenge_options {
    const char *cntl_dir;    /* this node's control directory (required) */
    const char *prefix;      /* the prefix directory, absolute (required) */
    int id;                  /* dataset to copy; 0: the newest in this node's cache */
    int force;               /* copy even when the flush file says it is on the prefix */
    const int *failed_ranks; /* PARTNER copies to take for these ranks */
    int nfailed_ranks;
    const char *const *failed_nodes; /* ... and for every rank of these nodes */
    int nfailed_nodes;
    const char *const *live_nodes; /* when set: ... and for every rank of a node */
    int nlive_nodes;               /* not in this list (one that left the job) */
    size_t buf_size;               /* copy buffer; 0: 1 MiB */
    /* called after each piece copied, when set */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
};

struct scr_scavenge_report {
    int id;              /* the dataset considered */
    int already_flushed; /* 1: skipped, the flush file says it is on the prefix */
    int ranks;           /* rank filemaps written (own files) */
    int partner_ranks;   /* rank filemaps written for PARTNER copies */
    int files_copied;
    uint64_t bytes_copied;
    int files_failed; /* missing or damaged in cache, or not copied */
};

/* Copy this node's part of the dataset; *report is filled in whenever the
 * dataset could be determined. SCR_SUCCESS when every file was copied (or
 * the dataset was skipped), SCR_FAILURE when some file could not be,
 * SCR_ERR_ARG (logged) when opts or report is NULL or an option is bad,
 * SCR_ERR_NOTFOUND (logged) when the node has no such dataset in cache,
 * SCR_ERR_FORMAT (logged) when a filemap names a path that is refused, or
 * another error when records or the prefix cannot be used. */
int scr_scavenge_node(const struct scr_scavenge_options *opts, struct scr_scavenge_report *report);

/* The newest dataset of this node's cache and whether the flush file marks
 * it as on the prefix; its name (new string, caller frees) when known, else
 * NULL. SCR_ERR_NOTFOUND (not logged) when the cache holds no dataset. */
int scr_scavenge_newest(const char *cntl_dir, int *out_id, int *out_flushed, char **out_name);

#endif
