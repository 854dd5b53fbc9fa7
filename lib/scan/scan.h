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
 * with CRC checking), with no step quadratic in the number of ranks; each
 * rank filemap is checked and reduced to a few bytes per file as soon as it
 * is read, so memory holds names and sizes, not parsed records.
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

#include <stdint.h>

/* One file a rank filemap lists, as the scan and the summary need it. */
struct scr_scan_file {
    const char *name;     /* relative to the dataset directory */
    uint64_t size;        /* recorded size */
    uint64_t stored_size; /* its size on the prefix when compressed (stored as gzip) */
    uint32_t crc;         /* recorded CRC-32, when has_crc */
    int ranks;            /* RANKS of its meta, 0 when not recorded */
    unsigned char has_crc;
    unsigned char redundancy; /* not an application file: never fetched */
    unsigned char
        compressed;     /* stored as gzip (meta COMPRESSED): size and CRC are of its expansion */
    unsigned char good; /* present with its recorded size (and CRC) */
};

/* What the scan keeps of a rank: a few bytes per file, not the rank
 * filemap itself, so that a scan of 100,000 ranks stays small. */
struct scr_scan_rank {
    int listed;   /* 1 when its rank filemap was read */
    int expected; /* FILES, or -1 when unknown */
    int good;     /* listed files present with the right size (and CRC) */
    int missing;  /* 1 when the rank lacks any file */
    int nfiles;
    struct scr_scan_file *files; /* [nfiles], sorted by name; one block with the names */
};

/* A redundancy set seen through its members' file names. */
struct scr_scan_set {
    enum scr_redundancy_kind kind;
    int set_id;
    int size;         /* members */
    int *member_rank; /* [size]: world rank of each member, -1 when not seen */
    int *member_good; /* [size]: 1 when that member's redundancy file is good */
};

struct scr_scan {
    char *dir;                  /* the dataset directory, normalised */
    int id;                     /* dataset id */
    int ranks;                  /* ranks that wrote the dataset */
    scr_dataset *desc;          /* the dataset descriptor of the rank filemaps */
    struct scr_scan_rank *rank; /* [ranks] */
    struct scr_scan_set *sets;
    int nsets;
    int *missing; /* ranks missing files, ascending */
    int nmissing;
    int invalid;   /* 1: the records contradict each other */
    int *set_slot; /* internal: [2 * ranks] kind/set id -> index in sets, or -1 */
    int sets_cap;  /* internal: room in sets */
};

/* Scan dir (a dataset directory); with check_crc every file with a
 * recorded CRC is read and checked. *out_scan is new (scr_scan_free).
 * SCR_ERR_NOTFOUND when dir does not exist or holds no rank filemap,
 * SCR_ERR_FORMAT when no rank filemap could be read; both logged. An
 * incomplete or invalid dataset is a successful scan. */
int scr_scan_dataset(const char *dir, int check_crc, struct scr_scan **out_scan);
void scr_scan_free(struct scr_scan *scan);

/* Read the rank filemap of rank again from the scanned directory, for the
 * rebuild, which needs whole file metas: *out is new, or NULL (with
 * SCR_SUCCESS) when the rank has none or it cannot be used. */
int scr_scan_read_rank_filemap(const struct scr_scan *scan, int rank, scr_filemap **out);

/* 1 when every rank has all its files and the records agree. */
int scr_scan_is_complete(const struct scr_scan *scan);

/* The set of kind with id set_id, NULL when no file named it. */
struct scr_scan_set *scr_scan_find_set(const struct scr_scan *scan, enum scr_redundancy_kind kind,
                                       int set_id);

/* "3, 5, 7" (at most limit ranks, then "..."), into buf, for messages. */
void scr_scan_format_ranks(const int *ranks, int n, int limit, char *buf, size_t len);

#endif
