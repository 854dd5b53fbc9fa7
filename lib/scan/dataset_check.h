/* dataset_check.h — whether the files a dataset's summary records are on
 * the prefix, at their recorded sizes.
 *
 * A summary (summary.h) calls a dataset complete when it is written, and
 * stays while its files may go: a deletion cut short, a file removed or
 * truncated by hand. Before a reader that has nothing else to go on (the
 * index rebuild, index_rebuild.h) believes it, every file it lists is
 * looked up: a file that is absent, not a regular file, or of a size other
 * than recorded (its COMPRESSED size when it is stored as gzip) is bad.
 * Sizes only, no bytes are read: CRCs are for scr-index --add --crc and for
 * the fetch.
 *
 * SCR 3.1 recorded no size per file: the files its rank2file lists
 * (rank2file.h) must exist, and their count and bytes must add up to the
 * descriptor's FILES and SIZE where it records them; a total that differs
 * is one bad entry naming the dataset directory. A summary of SCR 3.1
 * without a readable rank2file has one bad entry: the rank2file.
 *
 * Serial; what is bad is returned, not logged (the caller says it);
 * running out of memory is logged and returned as SCR_ERR_NOMEM. */
#ifndef SCR_DATASET_CHECK_H
#define SCR_DATASET_CHECK_H

#include "kvtree.h"

#include <stddef.h>

/* What a bad entry is about. */
enum scr_dataset_check_what {
    SCR_DATASET_CHECK_FILE,  /* one file: absent, not regular, or of another size */
    SCR_DATASET_CHECK_BYTES, /* SCR 3.1: the bytes of all files against SIZE */
    SCR_DATASET_CHECK_COUNT, /* SCR 3.1: the number of files against FILES */
};

/* One file, or one total, that is not as recorded. */
struct scr_dataset_check_bad {
    enum scr_dataset_check_what what;
    char *path;         /* the file, or the dataset directory for a total */
    int rank;           /* the rank the file belongs to, -1 for a total */
    long long size;     /* what it has: bytes, files; -1 when the file is absent
                         * or not a regular file */
    long long recorded; /* what was recorded, -1 when nothing was (SCR 3.1's files) */
};

/* What was found; the caller frees it with scr_dataset_check_free. */
struct scr_dataset_check {
    struct scr_dataset_check_bad *bad; /* ranks ascending, totals last */
    int nbad;
    int *ranks; /* the ranks with a bad file, ascending, each once */
    int nranks;
};

/* Check the files that summary, read from the dataset directory dsdir
 * (<prefix>/.scr/scr.dataset.<id>), lists, into *out (emptied first): nbad
 * is 0 when every one is there at its recorded size. SCR_ERR_NOMEM
 * (logged) is the only failure: everything else is a bad entry. */
int scr_dataset_check_files(const char *dsdir, const scr_kvtree *summary,
                            struct scr_dataset_check *out);

/* "/p/ckpt.4/rank0.dat is missing", "/p/ckpt.4/rank1.dat is 12 bytes, 4004
 * recorded", ... into buf (always terminated). */
void scr_dataset_check_describe(const struct scr_dataset_check_bad *bad, char *buf, size_t len);

void scr_dataset_check_free(struct scr_dataset_check *check);

#endif
