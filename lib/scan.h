/* scan.h — what a dataset directory on the prefix holds, and what it lacks.
 *
 * A dataset copied to the prefix by a scavenge (or a flush) has one rank
 * filemap per rank, <dir>/<rank>.scrfilemap (rank_filemap.h), that names
 * the rank's files and how many it wrote (FILES). The scan reads every rank
 * filemap, checks that each listed file exists with its recorded size (and,
 * when asked, its recorded CRC-32) and works out:
 *   - the dataset (id and descriptor) and how many ranks wrote it (RANKS of
 *     the file metas), every rank filemap having to agree;
 *   - for each rank, the files found good, and whether it is missing
 *     anything (no rank filemap, a damaged one, fewer good files than
 *     FILES);
 *   - the redundancy sets, from the names of the XOR and RS files
 *     (redundancy_file.h): which member each rank is.
 * The scan never changes the directory. It costs one directory listing, one
 * read per rank filemap and one stat per file (plus a read of every byte
 * with CRC checking), with no step quadratic in the number of ranks.
 *
 * A damaged rank filemap is logged with its name and its rank counted as
 * missing (its files may still be rebuilt). Records that contradict each
 * other (two dataset ids, disagreeing RANKS, a rank at or above RANKS, more
 * good files than FILES) make the scan "invalid", logged with the reason: a
 * rebuild is not attempted on such a directory. */
#ifndef SCR_SCAN_H
#define SCR_SCAN_H

#include "dataset.h"
#include "filemap.h"
#include "redundancy_file.h"

struct scr_scan_rank {
    scr_filemap *rmap;  /* the rank filemap as read; NULL when absent or damaged */
    int expected;       /* FILES, or -1 when unknown */
    int good;           /* listed files present with the right size (and CRC) */
    int missing;        /* 1 when the rank lacks any file */
};

/* A redundancy set seen through its members' file names. */
struct scr_scan_set {
    enum scr_redundancy_kind kind;
    int set_id;
    int size;           /* members */
    int *member_rank;   /* [size]: world rank of each member, -1 when not seen */
    int *member_good;   /* [size]: 1 when that member's redundancy file is good */
};

struct scr_scan {
    char *dir;          /* the dataset directory, normalised */
    int id;             /* dataset id */
    int ranks;          /* ranks that wrote the dataset */
    scr_dataset *desc;  /* the dataset descriptor of the rank filemaps */
    struct scr_scan_rank *rank;   /* [ranks] */
    struct scr_scan_set *sets;
    int nsets;
    int *missing;       /* ranks missing files, ascending */
    int nmissing;
    int invalid;        /* 1: the records contradict each other */
    int *set_slot;      /* internal: [2 * ranks] kind/set id -> index in sets, or -1 */
    int sets_cap;       /* internal: room in sets */
};

/* Scan dir (a dataset directory); with check_crc every file with a
 * recorded CRC is read and checked. *out_scan is new (scr_scan_free).
 * SCR_ERR_NOTFOUND when dir does not exist or holds no rank filemap,
 * SCR_ERR_FORMAT when no rank filemap could be read; both logged. An
 * incomplete or invalid dataset is a successful scan. */
int scr_scan_dataset(const char *dir, int check_crc, struct scr_scan **out_scan);
void scr_scan_free(struct scr_scan *scan);

/* 1 when every rank has all its files and the records agree. */
int scr_scan_is_complete(const struct scr_scan *scan);

/* The set of kind with id set_id, NULL when no file named it. */
struct scr_scan_set *scr_scan_find_set(const struct scr_scan *scan, enum scr_redundancy_kind kind,
                                       int set_id);

/* "3, 5, 7" (at most limit ranks, then "..."), into buf, for messages. */
void scr_scan_format_ranks(const int *ranks, int n, int limit, char *buf, size_t len);

#endif
