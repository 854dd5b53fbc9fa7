/* index_rebuild.h — the index of a prefix made again from its datasets' summaries.
 *
 * <prefix>/.scr/index.scr (index_file.h) lists the datasets of a prefix, and
 * every dataset whose copy to the prefix finished has a summary,
 * <prefix>/.scr/scr.dataset.<id>/summary.scr (summary.h), written just
 * before its index entry. When the index is damaged (a 0-byte file
 * included), or missing while dataset directories hold records, its entries
 * are made again from those summaries, so that a restart finds the datasets
 * instead of starting over on top of them:
 *   - each readable summary of the dataset its directory is named for gives
 *     an entry: the summary's descriptor, its NAME (scr.dataset.<id> when it
 *     has none), COMPLETE and FLUSHED the time the summary was written; of
 *     two datasets of one name only the newer is indexed (its files
 *     replaced the older one's);
 *   - COMPLETE is 1 only when the summary does not say 0 and every file it
 *     records is on the prefix at its recorded size (dataset_check.h): a
 *     summary outlives its files when a deletion was cut short or a file
 *     was removed or truncated by hand, and a restart must not be offered
 *     such a dataset. Otherwise the entry is COMPLETE 0 with the ranks of
 *     the files that differ as MISSING, and one warning per dataset names
 *     those files;
 *   - CURRENT is the newest complete checkpoint;
 *   - what no summary holds is lost: FETCHED, FAILED, and MISSING beyond
 *     the ranks found short here;
 *   - a dataset directory that holds rank filemaps but no usable summary
 *     is not indexed and is named in the report (scr-index --add indexes
 *     what it holds); one with neither (empty, or left by a copy in which
 *     no rank finished) is ignored.
 * A damaged index is first kept beside itself as
 * index.scr.damaged.<YYYYmmdd-HHMMSS> (a hard link: its very bytes, never
 * overwritten), then the rebuilt index replaces it, all under the index's
 * exclusive lock: other processes wait, then read the new one. An index
 * written by a newer version of SCR is not damaged and is never rebuilt.
 *
 * Serial (libscr-core, no MPI): SCR_Init runs it on rank 0 before anything
 * reads the index, scan_index.h before it would create a missing index, and
 * scr-index --rebuild-index on request. Not thread-safe. */
#ifndef SCR_INDEX_REBUILD_H
#define SCR_INDEX_REBUILD_H

#include "dataset_check.h"

/* What the index was before the call. */
enum scr_index_found {
    SCR_INDEX_FOUND_READABLE, /* it reads: nothing was done */
    SCR_INDEX_FOUND_MISSING,  /* there was no file */
    SCR_INDEX_FOUND_DAMAGED,  /* a reader refuses it (said once, as it was read) */
    SCR_INDEX_FOUND_NEWER,    /* a newer version of SCR wrote it: left as it is */
};

struct scr_index_rebuild_options {
    int damaged;       /* rebuild a damaged index; 0: SCR_ERR_FORMAT, the file left as it is */
    int require;       /* a missing index with dataset directories holding records and
                        * nothing to rebuild it from is an error (SCR_ERR_NOTFOUND) */
    int announce;      /* say what was rebuilt in one line (a warning) */
    const int *cached; /* ids of datasets the caller still holds and will copy
                        * again (SCR_Init: in cache), whose directories are
                        * copies that did not finish: they do not count for
                        * require */
    int ncached;
};

/* One dataset the rebuilt index lists. */
struct scr_index_rebuild_dataset {
    int id;
    char *name;
    int complete;
    int checkpoint;                 /* scr_dataset_is_checkpoint of its descriptor */
    int output;                     /* scr_dataset_is_output */
    struct scr_dataset_check check; /* its files not on the prefix as its summary
                                     * records them (nbad 0: none) */
};

/* One dataset directory that holds records but gives no entry. */
struct scr_index_rebuild_skip {
    int id;
    char why[160]; /* "no summary", "its summary is damaged", ... */
};

/* What was found and done; every pointer is owned by the report
 * (scr_index_rebuild_report_free). */
struct scr_index_rebuild_report {
    enum scr_index_found found;
    int rebuilt;      /* 1 when an index was written from the summaries */
    char *index_path; /* <prefix>/.scr/index.scr */
    char *kept_as;    /* where the damaged index was kept, NULL when none */
    struct scr_index_rebuild_dataset *datasets; /* what went in, ascending ids */
    int ndatasets;
    int current;                            /* id made CURRENT, 0 when none */
    struct scr_index_rebuild_skip *skipped; /* ascending ids */
    int nskipped;
};

/* Look at the index of prefix and rebuild it when it must be (above):
 *   readable                                   SCR_SUCCESS, nothing done;
 *   missing, no dataset directory with records SCR_SUCCESS, nothing done
 *                                              (a fresh prefix);
 *   missing, summaries                         rebuilt;
 *   missing, records but no usable summary     SCR_SUCCESS, nothing done,
 *                                              nskipped > 0; with require,
 *                                              SCR_ERR_NOTFOUND, logged,
 *                                              unless every such directory
 *                                              is of a dataset in cached;
 *   damaged, summaries or no dataset directory rebuilt (with opts->damaged);
 *   damaged, records but no usable summary     SCR_ERR_FORMAT, logged, the
 *                                              file left as it is;
 *   of a newer version                         SCR_ERR_FORMAT, logged, the
 *                                              file left as it is.
 * Errors of the file system are returned as they were logged. *out is
 * filled in either way (free it with scr_index_rebuild_report_free). */
int scr_index_rebuild(const char *prefix, const struct scr_index_rebuild_options *opts,
                      struct scr_index_rebuild_report *out);

/* One line saying what a rebuild did and from where, in a new string the
 * caller frees: "rebuilt <index> from the summaries of its datasets (it was
 * damaged; kept as <file>): ckpt.1 (dataset 1, complete), ...; current:
 * ckpt.3; not indexed: scr.dataset.4 (no summary)". */
int scr_index_rebuild_describe(const struct scr_index_rebuild_report *report, char **out_text);

void scr_index_rebuild_report_free(struct scr_index_rebuild_report *report);

#endif
