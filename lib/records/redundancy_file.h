/* redundancy_file.h — the XOR and RS files of a dataset: names and headers.
 *
 * The redundancy layer of libscr writes, for member m (0-based) of a set of
 * N members with id s, the file "<m+1>_of_<N>_in_<s>.xor" (XOR) or ".rs"
 * (Reed-Solomon). It starts with a header, a kvtree file image
 * (kvtree_file.h), followed by the redundancy data:
 *
 *   DSET {dataset descriptor}  RANKS <ranks of the run>  CHUNK <bytes>
 *   GROUP  RANKS <N>  RANK <i> <world rank>            XOR
 *          RANKS <N>  RANK <i> WORLD <world rank>      RS
 *   FAILURES <k>                                       RS only
 *   CURRENT  RANK <r> FILES <n> FILE <i> {meta}        this member's files,
 *                                                      in logical-file order
 *   PARTNER  {as CURRENT}                              XOR: the left neighbour's
 *   PARTNERS <member> {as CURRENT}                     RS: the k left neighbours'
 *
 * XOR data is one chunk; RS data is k chunks. Both the library (to rebuild
 * a cache) and the scan of a dataset directory (to rebuild files on the
 * prefix) read these files through this module, which needs no MPI.
 *
 * The headers are built here too (scr_redundancy_file_xor_header, _rs_header)
 * and a file is created with its header in place (scr_redundancy_file_create);
 * the MPI code that computes the data only fills in the bytes after it.
 *
 * Readers never trust a length from the file: a header above 1 GiB or one
 * that does not parse is refused with SCR_ERR_FORMAT, naming the file. */
#ifndef SCR_REDUNDANCY_FILE_H
#define SCR_REDUNDANCY_FILE_H

#include "kvtree.h"

#include <stddef.h>
#include <stdint.h>

enum scr_redundancy_kind { SCR_REDUNDANCY_XOR = 0, SCR_REDUNDANCY_RS = 1 };

/* What a redundancy file's name says. */
struct scr_redundancy_name {
    enum scr_redundancy_kind kind;
    int member; /* 0-based position in the set */
    int size;   /* members in the set (>= 2) */
    int set;    /* set id (>= 0) */
};

/* 1 if name (a file name without directory) is a redundancy file name with
 * member < size, filling *out; 0 otherwise. Never logs. */
int scr_redundancy_file_parse_name(const char *name, struct scr_redundancy_name *out);

/* The file name of *n into buf (len bytes). SCR_ERR_ARG when it does not fit. */
int scr_redundancy_file_name(const struct scr_redundancy_name *n, char *buf, size_t len);

/* Read the header at the start of the open file fd (path names it in
 * messages): *out_header is a new tree the caller deletes, *out_len the
 * header's length in bytes (where the data starts). */
int scr_redundancy_file_read_header(int fd, const char *path, scr_kvtree **out_header,
                                    uint64_t *out_len);

/* Write header at the start of fd (path names it in messages) and give the
 * CRC-32 of its bytes. len is the length the header must have: a header
 * written before its files' CRCs were known, with CRC fields of fixed width
 * (scr_meta_set_crc32_fixed), is written again in place, and the data after
 * it stays where it is. SCR_ERR_FORMAT (logged) when the new header is not
 * len bytes long; nothing is written then. */
int scr_redundancy_file_write_header(int fd, const char *path, const scr_kvtree *header,
                                     uint64_t len, uint32_t *out_crc);

/* The world rank of every member of the set the header describes, in a new
 * array of *out_size entries the caller frees. SCR_ERR_FORMAT (logged with
 * path) when GROUP is missing, incomplete or names a rank twice. */
int scr_redundancy_file_group(const scr_kvtree *header, const char *path, int **out_members,
                              int *out_size);

/* The file metas (a CURRENT subtree) of member x of an RS set as the caller
 * knows them, or NULL when it does not. */
typedef const scr_kvtree *(*scr_redundancy_metas_fn)(void *ctx, int member);

/* Put into RS header h the metas of member m (CURRENT) and of its k left
 * neighbours in a set of N (PARTNERS), replacing what h held there: the
 * same for the file written at a checkpoint and for one rebuilt later.
 * SCR_ERR_FORMAT when metas knows one of them not, SCR_ERR_NOMEM. */
int scr_redundancy_file_set_rs_metas(scr_kvtree *h, int m, int N, int k,
                                     scr_redundancy_metas_fn metas, void *ctx);

/* A new XOR header for a member of a set of N (members: world ranks by set
 * rank) of a run of ranks ranks: DSET (a copy of dset), RANKS, CHUNK, GROUP,
 * and CURRENT and PARTNER, whose trees it takes (also when it fails). */
int scr_redundancy_file_xor_header(const scr_kvtree *dset, int ranks, uint64_t chunk,
                                   const int *members, int N, scr_kvtree *current,
                                   scr_kvtree *partner, scr_kvtree **out_header);

/* A new RS header for member m: DSET, RANKS, CHUNK, FAILURES k, GROUP, and
 * CURRENT and PARTNERS as scr_redundancy_file_set_rs_metas puts them. */
int scr_redundancy_file_rs_header(const scr_kvtree *dset, int ranks, uint64_t chunk, int k,
                                  const int *members, int N, int m, scr_redundancy_metas_fn metas,
                                  void *ctx, scr_kvtree **out_header);

/* Create (or empty) path, write the header image (image_len bytes, a
 * kvtree file image of the header) at its start and size it to hold
 * data_len bytes after it; *out_fd is open for reading and writing. */
int scr_redundancy_file_create(const char *path, const void *image, size_t image_len,
                               uint64_t data_len, int *out_fd);

#endif
