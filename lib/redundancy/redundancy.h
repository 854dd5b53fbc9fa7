/* redundancy.h — protect a dataset in cache with its redundancy scheme, and
 * rebuild a member's files from the rest of its set.
 *
 * The schemes (PARTNER, XOR, RS: redundancy_partner.c, redundancy_xor.c,
 * redundancy_rs.c) each offer apply / rebuild / forget; this module picks
 * the one a descriptor names and does what every scheme needs around it
 * (the records of the scheme in the filemap, the buffers, the agreement of
 * all ranks). A scheme sees the narrow context below, never the state of
 * libscr: who this rank is, the communicator, the filemap and where it is
 * saved, the dataset's cache directory, two I/O buffers, and the CRC
 * settings. A context is made for one dataset (its directory) by the run
 * layer (run_redundancy_ctx.c) or by a test; the callers save nothing of
 * it and log no events here.
 *
 * Promises:
 * - apply, protect_again and rebuild are collective over ctx->world (every
 *   rank calls them, whatever its set) and return the same status on every
 *   rank; forget is not collective.
 * - Every file a scheme creates is listed in the filemap before it exists
 *   and marked complete (with its CRC-32 when ctx->crc_in_cache) only once
 *   its bytes are synced; the filemap is saved at ctx->filemap_path at
 *   those points, so that after a crash every file in cache is named there.
 * - With ctx->crc_in_cache every file's CRC comes from the bytes the scheme
 *   reads or writes anyway; a rebuilt file whose CRC differs from the one
 *   recorded is reported, marked incomplete and fails the rebuild. With
 *   ctx->crc_on_copy, copies and redundancy files are read back after their
 *   fsync and checked.
 * - Formats: PARTNER copies live under <dsdir>/partner.<owner rank>/, XOR
 *   and RS files are <set rank+1>_of_<N>_in_<set id>.xor/.rs in <dsdir>
 *   (redundancy_file.h). */
#ifndef SCR_REDUNDANCY_H
#define SCR_REDUNDANCY_H

#include "filemap.h"
#include "kvtree.h"
#include "reddesc.h"
#include "util_padfile.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct scr_redundancy_ctx {
    MPI_Comm world;           /* every rank of the run; descriptors' members are its ranks */
    int rank, ranks;          /* this rank in world, and world's size */
    const char *node_name;    /* this rank's node (PARTNER tags the copies it sends with it) */
    scr_filemap *map;         /* this rank's filemap */
    const char *filemap_path; /* where map is saved */
    const char *dsdir;        /* the dataset's directory in cache */
    char *bufs[2];   /* two I/O buffers of buf_size bytes (NULL: none; apply fails on every rank) */
    size_t buf_size; /* SCR_FILE_BUF_SIZE */
    size_t piece;    /* bytes that travel in one message (SCR_MPI_BUF_SIZE), <= buf_size */
    int crc_in_cache; /* files in cache get CRCs */
    int crc_on_copy;  /* SCR_CRC_ON_COPY: read copies back and check them */
};

/* Record d as dataset id's scheme in the filemap (with the records of the
 * left neighbours this rank helps rebuild) and apply it: PARTNER copies
 * every rank's files to its right neighbour, XOR and RS write a redundancy
 * file. The expected file count then includes what the scheme added. A set
 * of one member (SINGLE) only records. */
int scr_redundancy_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d, int id);

/* After a rebuild of dataset id, protect it as apply did: the records of
 * left neighbours are kept again and, with PARTNER, files are copied to
 * every right neighbour that lacks them (have_left_copy: this rank holds an
 * intact copy of its left neighbour's files). XOR and RS files came back
 * with their member's data and are not computed again. */
int scr_redundancy_protect_again(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                 int id, int have_left_copy);

/* Rebuild the files of every member of this rank's set that lost them
 * (lost: this rank did), from the rest of the set: PARTNER from the copy
 * the right neighbour holds, XOR one lost member, RS up to d->failures.
 * Every rank calls it; a set that lost nothing does nothing, and one that
 * lost more than its scheme survives fails (the caller says so first). */
int scr_redundancy_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                           int id, int lost);

/* Forget what the scheme keeps on this rank for dataset id: delete the
 * redundancy files (PARTNER: the copy of the left neighbour's files; XOR,
 * RS: this rank's .xor/.rs file) and their filemap entries, and save the
 * filemap. The application's own files stay. Not collective. */
int scr_redundancy_forget(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                          int id);

/* The files a description names (FILES n, FILE i {meta}, as redundancy
 * records and the announcements of a rebuild hold them), listed in the
 * filemap under owner at <dsdir>[/subdir]/<name> with their metas, before
 * they exist, and in *out_set (a zeroed set, closed by the caller with
 * scr_padset_close, also on failure). Not opened; the filemap is not saved.
 * Not collective. */
int scr_redundancy_list_described(const struct scr_redundancy_ctx *ctx, int id, int owner,
                                  const scr_kvtree *desc, const char *subdir,
                                  struct scr_padset *out_set);

/* Set the CRC of file (held for rank in dataset id) in map, and with
 * complete 0 mark it incomplete; the caller saves. */
int scr_redundancy_record_crc(scr_filemap *map, int id, int rank, const char *file, uint32_t crc,
                              int complete);

/* The one line that says file, held for rank in dataset id, is damaged:
 * "dataset <id> (<name>): rank <rank>'s file <file><how> is damaged: CRC32
 * 0x<found> found, 0x<recorded> recorded"; the name comes from map (as seen
 * by my_rank); how (may be NULL) says how the file came to be. */
void scr_redundancy_say_damaged(const scr_filemap *map, int my_rank, int id, int rank,
                                const char *file, const char *how, uint32_t found,
                                uint32_t recorded);

#endif
