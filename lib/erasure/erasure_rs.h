/* erasure_rs.h — Reed-Solomon encode and decode over GF(2^8), as ISA-L does it.
 *
 * A code has ndata data blocks and nparity parity blocks, all of one length,
 * numbered as in ISA-L: blocks 0 .. ndata-1 are data, blocks ndata ..
 * ndata+nparity-1 are parity. Block i is row i of an (ndata+nparity) x ndata
 * Cauchy matrix (erasure_gf.h) applied to the data: the identity on top, so a
 * data block is itself, and any ndata blocks rebuild all the others. Up to
 * nparity lost blocks, data or parity, can be rebuilt.
 *
 * In SCR's RS scheme every member of a set holds both data and parity. For
 * example, a set of N members that survives k failures splits each member's
 * (padded) data into N - k chunks and forms N stripes, each a code with
 * ndata = N - k and nparity = k: its data blocks are chunks of N - k
 * different members and its parity blocks are held by the k others. The
 * redundancy layer chooses that placement; this module only sees blocks.
 *
 * For a pipelined ring, where no member holds all the data blocks of a
 * stripe, the _update calls add one block's share to accumulators that travel
 * round the ring: zero the nparity (or nlost) accumulators, let every member
 * add its block in any order, and the result equals the all-at-once call.
 *
 * Like ISA-L: set up once (scr_rs_init, scr_rs_decoder_init allocate the
 * matrices and tables, and pair with _free), then one call per buffer with
 * pointers and a length. The per-buffer calls do no allocation, no I/O and
 * no MPI, never modify the code or decoder, and may run from many threads at
 * once on one code. They use ISA-L's SIMD kernels when the build has ISA-L
 * and a portable loop otherwise; both give the same bytes, and the _portable
 * calls run the portable loop whatever the build.
 *
 * Blocks have any alignment and any length (0 included). Output blocks must
 * not overlap inputs or each other. Every call that can fail returns
 * SCR_SUCCESS or an error code (SCR_ERR_ARG for a bad argument,
 * SCR_ERR_NOMEM), logged once; none aborts. */
#ifndef SCR_ERASURE_RS_H
#define SCR_ERASURE_RS_H

#include <stddef.h>
#include <stdint.h>

/* ndata + nparity may not exceed this. */
#define SCR_RS_MAX_BLOCKS 255

/* An encoding: read-only for callers. */
typedef struct scr_rs_code {
    int ndata;       /* data blocks, the sources of the encoding (>= 1) */
    int nparity;     /* parity blocks made from them (>= 1) */
    uint8_t *matrix; /* (ndata + nparity) x ndata: row i makes block i */
    uint8_t *tables; /* ISA-L's expanded parity rows; NULL without ISA-L */
} scr_rs_code;

/* A rebuild of chosen lost blocks from ndata chosen surviving blocks:
 * read-only for callers. */
typedef struct scr_rs_decoder {
    int ndata;                            /* surviving blocks read */
    int nlost;                            /* lost blocks rebuilt */
    uint8_t lost[SCR_RS_MAX_BLOCKS];      /* their indices, in output order */
    uint8_t surviving[SCR_RS_MAX_BLOCKS]; /* indices read, in input order */
    int16_t slot[SCR_RS_MAX_BLOCKS];      /* block index -> position in surviving, or -1 */
    uint8_t *rows;   /* nlost x ndata: lost[r] = sum over s of rows[r][s] * surviving[s] */
    uint8_t *tables; /* ISA-L's expanded rows; NULL without ISA-L */
} scr_rs_decoder;

/* Sets up the code of ndata data and nparity parity blocks. Needs
 * ndata >= 1, nparity >= 1, ndata + nparity <= SCR_RS_MAX_BLOCKS; otherwise
 * SCR_ERR_ARG. Allocates: release with scr_rs_free (also after a failed
 * init, and on a zeroed struct). */
int scr_rs_init(scr_rs_code *code, int ndata, int nparity);
void scr_rs_free(scr_rs_code *code);

/* parity[0 .. nparity-1] = the parity blocks of data[0 .. ndata-1], len
 * bytes each. */
int scr_rs_encode(const scr_rs_code *code, size_t len, const void *const *data,
                  void *const *parity);

/* parity[r] ^= the share of data block data_index (0 <= data_index < ndata)
 * in parity block r, for every r < nparity. Over all data blocks, starting
 * from zeroed parity, this gives scr_rs_encode's bytes. SCR_ERR_ARG for an
 * index out of range. */
int scr_rs_encode_update(const scr_rs_code *code, size_t len, int data_index, const void *data,
                         void *const *parity);

/* Prepares to rebuild the nlost blocks lost[0 .. nlost-1] (data or parity
 * indices of the code, distinct, 1 <= nlost <= nparity) from the ndata
 * blocks surviving[0 .. ndata-1] (distinct, none of them lost). With
 * surviving NULL, the decoder reads the ndata lowest-numbered blocks that are
 * not lost. SCR_ERR_ARG for an index out of range, a duplicate, a block both
 * lost and surviving, or too many lost; SCR_ERR_ARG also if the surviving
 * rows do not invert (a Cauchy code never does that). Allocates: release
 * with scr_rs_decoder_free (also after a failed init, and on a zeroed
 * struct). The decoder does not refer to the code afterwards. */
int scr_rs_decoder_init(const scr_rs_code *code, scr_rs_decoder *dec, const int *lost, int nlost,
                        const int *surviving);
void scr_rs_decoder_free(scr_rs_decoder *dec);

/* out[r] = lost block dec->lost[r], for r < nlost, from blocks[s] = the
 * surviving block dec->surviving[s], for s < ndata; len bytes each. */
int scr_rs_decode(const scr_rs_decoder *dec, size_t len, const void *const *blocks,
                  void *const *out);

/* out[r] ^= the share of surviving block block_index (a block index of the
 * code, one of dec->surviving) in lost block r, for every r < nlost. Over
 * all surviving blocks, starting from zeroed out, this gives scr_rs_decode's
 * bytes. SCR_ERR_ARG if block_index is not one the decoder reads. */
int scr_rs_decode_update(const scr_rs_decoder *dec, size_t len, int block_index, const void *block,
                         void *const *out);

/* The same four calls on the portable loop, whatever the build. */
int scr_rs_encode_portable(const scr_rs_code *code, size_t len, const void *const *data,
                           void *const *parity);
int scr_rs_encode_update_portable(const scr_rs_code *code, size_t len, int data_index,
                                  const void *data, void *const *parity);
int scr_rs_decode_portable(const scr_rs_decoder *dec, size_t len, const void *const *blocks,
                           void *const *out);
int scr_rs_decode_update_portable(const scr_rs_decoder *dec, size_t len, int block_index,
                                  const void *block, void *const *out);

/* 1 if the calls without _portable run on ISA-L. */
int scr_rs_uses_isal(void);

#endif
