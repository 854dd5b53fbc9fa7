/* summary.h — summary.scr: what a dataset on the prefix consists of.
 *
 * The summary lives in the dataset directory (<prefix>/.scr/scr.dataset.<id>/)
 * and is written once the dataset's files have been copied and checked. A
 * fetch reads it to learn which files each rank needs back and what size and
 * CRC each should have. A flush writes version 7, a summary in parts, so
 * that no rank holds every rank's list (SCR 3.1 splits its rank2file in the
 * same way, rank2file.h); summary.scr names the parts:
 *
 *   VERSION 7
 *   DSET {dataset descriptor}                    dataset.h
 *   RANK2FILE
 *     RANKS <ranks in the run that wrote it>
 *     PARTS <number of parts>
 *     PART <k>                                   k = 0 .. PARTS-1
 *       FIRST <its first rank>
 *       RANKS <its number of ranks>
 *
 * and each part is a file beside it, named after it (summary.<k>.scr for
 * summary.scr), that lists the ranks FIRST .. FIRST+RANKS-1 of its part:
 *
 *   VERSION 7
 *   PART <k>  FIRST <first rank>  RANKS <ranks in the part>
 *   RANK2FILE
 *     RANK <rank>                                as in version 6 below
 *
 * The parts cover ranks 0..RANKS-1 in order of k, each rank in exactly one
 * part, and a part lists every rank of its range. Reading gives the tree of
 * version 6, a summary in one file (what the scavenge, adopt and a prefix
 * trim that marks a dataset incomplete write):
 *
 *   VERSION 6
 *   DSET {dataset descriptor}                    dataset.h
 *   RANK2FILE
 *     RANKS <ranks in the run that wrote it>
 *     RANK <rank>
 *       FILES <files the rank wrote>
 *       FILE <name relative to the dataset directory>
 *         SIZE <bytes>
 *         CRC <0x...>                            when known
 *         NOFETCH                                flag: redundancy data, not
 *                                                fetched on restart
 *         COMPRESSED <bytes>                     when the file is stored as
 *                                                gzip (meta.h): its size there;
 *                                                SIZE and CRC are of the bytes
 *                                                the application wrote
 *
 * SCR 3.1 writes version 6 as VERSION, DSET and a top-level COMPLETE 0/1
 * (kept in the tree and written back), with no RANK2FILE: its files are
 * listed in rank2file.h's tree beside it (scan_scr31.h completes it).
 *
 * Older writers used version 5, keyed by checkpoint id:
 *   VERSION 5
 *   CKPT <id>  COMPLETE 0/1  RANKS <n>  RANK <rank> FILE <name> {SIZE, CRC}
 * Reading turns it into the form above: a checkpoint descriptor with ID and
 * CKPT set to the id and COMPLETE copied, FILES the number of files listed.
 * A summary without VERSION is read by its layout (a CKPT key means version
 * 5); versions before 5 and after 7 are refused with a message naming the
 * file and the version.
 *
 * The record is a scr_kvtree the caller owns. Setters check their arguments
 * (SCR_ERR_ARG, logged); getters never log: SCR_ERR_NOTFOUND for an absent
 * rank, file or key, SCR_ERR_TYPE for a damaged value. Reading checks every
 * value, ranks below RANKS and that each file has a SIZE, and reports a bad
 * one as "<file>: key <KEY...> holds '<text>', expected <what>" with
 * SCR_ERR_FORMAT, leaving the caller's tree as it was; the VERSION key is
 * not kept in the tree. In version 7 a missing part, a part whose VERSION,
 * index or range differs from what summary.scr says, a rank outside its
 * part's range (or listed twice) and parts that do not cover the ranks
 * exactly are refused the same way, naming the file. Writing checks the
 * same, puts VERSION first and sorts every level (ranks numerically). Not
 * thread-safe. */
#ifndef SCR_SUMMARY_H
#define SCR_SUMMARY_H

#include "dataset.h"
#include "filemap.h"
#include "kvtree.h"

#include <stdint.h>

/* Format version a flush writes (in parts), the version of a summary in
 * one file (scr_summary_write, scr_summary_write_ranks), and the oldest
 * version read. */
#define SCR_SUMMARY_VERSION 7
#define SCR_SUMMARY_WHOLE_VERSION 6
#define SCR_SUMMARY_OLDEST_VERSION 5

/* Ranks in each part of a version 7 summary (the last may have fewer).
 * Each part's writer receives this many ranks' lists and holds their
 * entries (about half a kilobyte a rank: under a megabyte), whatever the
 * size of the job; 100,000 ranks make 98 parts, which summary.scr names in
 * a few kilobytes. A job of at most this many ranks writes one part. */
#define SCR_SUMMARY_PART_RANKS 1024

/* Name of the file in the dataset directory. */
#define SCR_SUMMARY_FILE_NAME "summary.scr"

/* The dataset descriptor: set stores a copy, get points into summary. */
int scr_summary_set_dataset(scr_kvtree *summary, const scr_dataset *desc);
int scr_summary_get_dataset(const scr_kvtree *summary, const scr_dataset **out_desc);

/* Whether the dataset is complete. set writes complete (0 or 1) into the
 * descriptor's COMPLETE, and into SCR 3.1's top-level COMPLETE when the
 * summary has one; SCR_ERR_NOTFOUND (logged) without a descriptor. is_complete
 * is 0 when either says 0, 1 otherwise (a summary is written once the copy
 * is whole, so one that says nothing is complete). */
int scr_summary_set_complete(scr_kvtree *summary, int complete);
int scr_summary_is_complete(const scr_kvtree *summary);

/* Number of ranks in the run that wrote the dataset (>= 1). */
int scr_summary_set_ranks(scr_kvtree *summary, int ranks);
int scr_summary_get_ranks(const scr_kvtree *summary, int *out_ranks);

/* Number of files rank wrote (>= 0); setting it lists the rank. */
int scr_summary_set_expected_files(scr_kvtree *summary, int rank, int count);
int scr_summary_get_expected_files(const scr_kvtree *summary, int rank, int *out_count);

/* List file name (relative) for rank with its size, keeping its CRC and
 * NOFETCH flag if it was listed already. */
int scr_summary_set_file(scr_kvtree *summary, int rank, const char *name, uint64_t size);

/* CRC and NOFETCH of a listed file (SCR_ERR_NOTFOUND, logged, when it is
 * not listed). nofetch 0 clears the flag. */
int scr_summary_set_file_crc(scr_kvtree *summary, int rank, const char *name, uint32_t crc);
int scr_summary_set_file_nofetch(scr_kvtree *summary, int rank, const char *name, int nofetch);

/* One file of a rank, for scr_summary_set_rank. */
struct scr_summary_file {
    const char *name; /* relative to the dataset directory */
    uint64_t size;
    uint32_t crc;
    int has_crc;
    int nofetch;
    int compressed; /* stored as gzip, stored_size bytes long */
    uint64_t stored_size;
};

/* List rank with FILES expected and the n files given, replacing whatever
 * the rank listed: what set_expected_files and set_file, set_file_crc and
 * set_file_nofetch per file give, with one lookup of the rank instead of
 * one per call (a summary of 100,000 ranks is built this way). */
int scr_summary_set_rank(scr_kvtree *summary, int rank, int expected,
                         const struct scr_summary_file *files, int n);

/* What scr_summary_write_ranks asks for each rank in turn: FILES and the
 * files listed (valid until the next call). Non-zero stops the writing. */
typedef int (*scr_summary_rank_fn)(void *ctx, int rank, int *out_expected,
                                   const struct scr_summary_file **out_files, int *out_n);

/* Write path with the bytes scr_summary_write gives for a summary of desc
 * and ranks in which each rank 0..ranks-1 was listed by
 * scr_summary_set_rank with what rank_files returns, without building
 * that tree: a summary of 100,000 ranks costs the caller's lists and the
 * file's bytes. Arguments are checked as the setters check them. */
int scr_summary_write_ranks(const char *path, const scr_dataset *desc, int ranks,
                            scr_summary_rank_fn rank_files, void *ctx);

int scr_summary_get_file_size(const scr_kvtree *summary, int rank, const char *name,
                              uint64_t *out_size);
int scr_summary_get_file_crc(const scr_kvtree *summary, int rank, const char *name,
                             uint32_t *out_crc);
/* *out_flag is 1 for a NOFETCH file, 0 otherwise; SCR_ERR_NOTFOUND when the
 * file is not listed. */
int scr_summary_get_file_nofetch(const scr_kvtree *summary, int rank, const char *name,
                                 int *out_flag);

/* COMPRESSED of a listed file: set logs when the file is not listed; get
 * gives SCR_ERR_NOTFOUND (not logged) for a file stored as written. */
int scr_summary_set_file_compressed(scr_kvtree *summary, int rank, const char *name,
                                    uint64_t stored_size);
int scr_summary_get_file_compressed(const scr_kvtree *summary, int rank, const char *name,
                                    uint64_t *out_stored_size);

/* Unlist a file (no-op when absent); the rank stays listed. */
int scr_summary_remove_file(scr_kvtree *summary, int rank, const char *name);

/* Ranks listed, ascending; files of rank in byte order, pointing into
 * summary. New arrays the caller frees (NULL when empty). */
int scr_summary_list_ranks(const scr_kvtree *summary, int **out_ranks, int *out_count);
int scr_summary_list_files(const scr_kvtree *summary, int rank, const char ***out_names,
                           int *out_count);

/* Every file the summary read from path lists must lie inside the prefix
 * of its dataset directory dir, as rank_filemap.h holds a rank filemap's
 * names: SCR_ERR_FORMAT, logged naming path and the first file that does
 * not. A summary that fails is not to be indexed or fetched from. */
int scr_summary_check_names(const scr_kvtree *summary, const char *dir, const char *path);

/* List every file of rank's entry in the rank filemap rmap (dataset id)
 * with its size, CRC when known, COMPRESSED when its meta has it, and
 * NOFETCH for redundancy data; FILES is
 * the number the rank wrote (the count listed when the entry has none). */
int scr_summary_add_rank_files(scr_kvtree *summary, const scr_filemap *rmap, int id, int rank);

/* The files of rank's entry in the rank filemap rmap (dataset id) as
 * scr_summary_add_rank_files lists them, for scr_summary_write_part: names
 * and metadata point into rmap; free with scr_summary_rank_list_free. */
struct scr_summary_rank_list {
    int expected; /* FILES */
    int n;
    struct scr_summary_file *files;
    struct scr_rank_filemap_file *listed;
};
int scr_summary_rank_list_of(const scr_filemap *rmap, int id, int rank,
                             struct scr_summary_rank_list *out);
void scr_summary_rank_list_free(struct scr_summary_rank_list *list);

/* Read path (version 5, 6 or 7 with all its parts) and merge it into
 * summary, in the form of version 6. A missing file returns SCR_ERR_NOTFOUND
 * without logging (a missing part is SCR_ERR_FORMAT, logged). */
int scr_summary_read(const char *path, scr_kvtree *summary);

/* Replace path with summary as version 6, in one file. */
int scr_summary_write(const char *path, const scr_kvtree *summary);

/* --- version 7: a summary in parts ---------------------------------------- */

/* The file of part k of the summary at path, in a new string: path with
 * ".<k>" before its ".scr" (summary.scr: summary.<k>.scr in its directory). */
int scr_summary_part_path(const char *path, int part, char **out_path);

/* The number of parts of part_ranks ranks (the last may have fewer) that
 * cover ranks ranks. */
int scr_summary_parts_of(int ranks, int part_ranks, int *out_parts);

/* Replace path with a version 7 summary of desc for ranks ranks in parts
 * of part_ranks: part k holds ranks k * part_ranks on. */
int scr_summary_write_top(const char *path, const scr_dataset *desc, int ranks, int part_ranks);

/* Replace path (scr_summary_part_path) with part k of ranks first ..
 * first+count-1, asking rank_files for each of them in that order, as
 * scr_summary_write_ranks does: the writer holds one rank's list at a
 * time and the part's bytes. */
int scr_summary_write_part(const char *path, int part, int first, int count,
                           scr_summary_rank_fn rank_files, void *ctx);

/* Read path as scr_summary_read does, except that of a summary in parts
 * only summary.scr itself is read: its DSET, RANK2FILE RANKS and the parts
 * it names (scr_summary_get_part), checked as scr_summary_read checks
 * them, go into summary, and *out_parts is the number of parts. A summary
 * in one file is read whole, with *out_parts 0. */
int scr_summary_read_top(const char *path, scr_kvtree *summary, int *out_parts);

/* FIRST and RANKS of part k of a summary read by scr_summary_read_top;
 * SCR_ERR_NOTFOUND when it names no such part. */
int scr_summary_get_part(const scr_kvtree *summary, int part, int *out_first, int *out_count);

/* Read the part at path alone, checking it is part k of ranks first ..
 * first+count-1 (as summary.scr says) and lists each of them once, and
 * merge its RANK2FILE RANK entries into summary (nothing else: no DSET,
 * no RANKS). A missing file returns SCR_ERR_NOTFOUND without logging. */
int scr_summary_read_part(const char *path, int part, int first, int count, scr_kvtree *summary);

#endif
