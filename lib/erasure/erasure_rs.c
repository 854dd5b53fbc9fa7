/* erasure_rs.c — Reed-Solomon codes: matrices and inverses set up here, the
 * per-buffer work done by ISA-L or by a portable loop. */
#include "build_config.h"
#include "erasure_rs.h"
#include "erasure_gf.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ISAL
#include <isa-l/erasure_code.h>
#endif

#ifdef HAVE_ISAL
#define TABLE_BYTES 32                 /* ec_init_tables' bytes per coefficient */
#define ISAL_MAX_LEN ((size_t)1 << 30) /* ec_encode_data takes an int length */
#else
#define TABLE_BYTES 0
#endif
/* The portable loop works through its blocks in pieces this long, so that an
 * output piece stays in cache while every input adds to it. */
#define PIECE ((size_t)32 << 10)

/* Encoding and decoding are both a linear map from nin input blocks to nout
 * output blocks: out[r] = sum over j of coef[r][j] * in[j]. */
struct linear_map {
    int nin, nout;
    const uint8_t *coef;   /* nout x nin */
    const uint8_t *tables; /* ISA-L's expansion of coef; NULL without ISA-L */
};

/* col < 0: out = map(in[0 .. nin-1]). col >= 0 names a column: out[r] ^=
 * coef[r][col] * in[0], the share of that one input. */
static void apply_portable(const struct linear_map *m, int col, size_t len, const void *const *in,
                           void *const *out)
{
    const void *piece[SCR_RS_MAX_BLOCKS]; /* the inputs from off on */
    for (size_t off = 0; off < len; off += PIECE) {
        size_t n = len - off < PIECE ? len - off : PIECE;
        for (int j = 0; j < (col < 0 ? m->nin : 1); j++) piece[j] = (const uint8_t *)in[j] + off;
        for (int r = 0; r < m->nout; r++) {
            const uint8_t *row = m->coef + (size_t)r * (size_t)m->nin;
            uint8_t *o = (uint8_t *)out[r] + off;
            if (col >= 0) {
                scr_gf_mul_add(row[col], n, piece[0], o);
                continue;
            }
            memset(o, 0, n);
            scr_gf_dot_add((size_t)m->nin, row, n, piece, o);
        }
    }
}

#ifdef HAVE_ISAL
/* The same through ec_encode_data and ec_encode_data_update. */
static void apply_isal(const struct linear_map *m, int col, size_t len, const void *const *in,
                       void *const *out)
{
    unsigned char *src[SCR_RS_MAX_BLOCKS], *dst[SCR_RS_MAX_BLOCKS];
    unsigned char *tables = (unsigned char *)m->tables;
    int nsrc = col < 0 ? m->nin : 1;
    for (size_t off = 0; off < len; off += ISAL_MAX_LEN) {
        size_t n = len - off < ISAL_MAX_LEN ? len - off : ISAL_MAX_LEN;
        for (int j = 0; j < nsrc; j++) src[j] = (unsigned char *)in[j] + off;
        for (int r = 0; r < m->nout; r++) dst[r] = (unsigned char *)out[r] + off;
        if (col < 0)
            ec_encode_data((int)n, m->nin, m->nout, tables, src, dst);
        else
            ec_encode_data_update((int)n, m->nin, m->nout, col, tables, src[0], dst);
    }
}
#endif

static void apply(const struct linear_map *m, int col, size_t len, const void *const *in,
                  void *const *out, int portable)
{
#ifdef HAVE_ISAL
    if (!portable) {
        apply_isal(m, col, len, in, out);
        return;
    }
#endif
    apply_portable(m, col, len, in, out);
}

/* 1 if the n blocks of len bytes are all there (none needed when len is 0). */
static int blocks_given(const void *const *blocks, int n, size_t len)
{
    if (blocks == NULL) return 0;
    for (int i = 0; i < n && len > 0; i++)
        if (blocks[i] == NULL) return 0;
    return 1;
}

/* out = map(in), once every block is known to be there. */
static int map_all(const struct linear_map *m, const char *what, size_t len, const void *const *in,
                   void *const *out, int portable)
{
    if (!blocks_given(in, m->nin, len) || !blocks_given((const void *const *)out, m->nout, len)) {
        scr_err("rs %s: an input or output block is missing", what);
        return SCR_ERR_ARG;
    }
    apply(m, -1, len, in, out, portable);
    return SCR_SUCCESS;
}

/* out ^= the share of input col, once every block is known to be there. */
static int map_one(const struct linear_map *m, const char *what, int col, size_t len,
                   const void *in, void *const *out, int portable)
{
    if ((len > 0 && in == NULL) || !blocks_given((const void *const *)out, m->nout, len)) {
        scr_err("rs %s: the input block or an output block is missing", what);
        return SCR_ERR_ARG;
    }
    apply(m, col, len, &in, out, portable);
    return SCR_SUCCESS;
}

static int code_is_set_up(const scr_rs_code *code, const char *what)
{
    if (code == NULL || code->matrix == NULL) {
        scr_err("rs %s: the code is not set up", what);
        return 0;
    }
    return 1;
}

int scr_rs_init(scr_rs_code *code, int ndata, int nparity)
{
    if (code == NULL) {
        scr_err("rs: init called without a code to set up");
        return SCR_ERR_ARG;
    }
    memset(code, 0, sizeof(*code));
    if (ndata < 1 || nparity < 1 || ndata > SCR_RS_MAX_BLOCKS - nparity) {
        scr_err("rs: no code of %d data and %d parity blocks: each needs at least 1, "
                "at most %d in all",
                ndata, nparity, SCR_RS_MAX_BLOCKS);
        return SCR_ERR_ARG;
    }
    size_t matrix_bytes = (size_t)(ndata + nparity) * (size_t)ndata;
    size_t table_bytes = (size_t)TABLE_BYTES * (size_t)ndata * (size_t)nparity;
    uint8_t *mem = malloc(matrix_bytes + table_bytes);
    if (mem == NULL) {
        scr_err("rs: out of memory setting up a code of %d data and %d parity blocks", ndata,
                nparity);
        return SCR_ERR_NOMEM;
    }
    code->ndata = ndata;
    code->nparity = nparity;
    code->matrix = mem;
    scr_gf_cauchy_matrix(code->matrix, ndata + nparity, ndata);
#ifdef HAVE_ISAL
    code->tables = mem + matrix_bytes;
    ec_init_tables(ndata, nparity, code->matrix + (size_t)ndata * (size_t)ndata, code->tables);
#endif
    return SCR_SUCCESS;
}

void scr_rs_free(scr_rs_code *code)
{
    if (code == NULL) return;
    free(code->matrix);
    memset(code, 0, sizeof(*code));
}

static struct linear_map code_map(const scr_rs_code *code)
{
    struct linear_map m = {code->ndata, code->nparity,
                           code->matrix + (size_t)code->ndata * (size_t)code->ndata, code->tables};
    return m;
}

static int encode(const scr_rs_code *code, size_t len, const void *const *data, void *const *parity,
                  int portable)
{
    if (!code_is_set_up(code, "encode")) return SCR_ERR_ARG;
    struct linear_map m = code_map(code);
    return map_all(&m, "encode", len, data, parity, portable);
}

static int encode_update(const scr_rs_code *code, size_t len, int data_index, const void *data,
                         void *const *parity, int portable)
{
    if (!code_is_set_up(code, "encode update")) return SCR_ERR_ARG;
    if (data_index < 0 || data_index >= code->ndata) {
        scr_err("rs encode update: data block %d is not one of the code's 0 to %d", data_index,
                code->ndata - 1);
        return SCR_ERR_ARG;
    }
    struct linear_map m = code_map(code);
    return map_one(&m, "encode update", data_index, len, data, parity, portable);
}

int scr_rs_encode(const scr_rs_code *code, size_t len, const void *const *data, void *const *parity)
{
    return encode(code, len, data, parity, 0);
}

int scr_rs_encode_portable(const scr_rs_code *code, size_t len, const void *const *data,
                           void *const *parity)
{
    return encode(code, len, data, parity, 1);
}

int scr_rs_encode_update(const scr_rs_code *code, size_t len, int data_index, const void *data,
                         void *const *parity)
{
    return encode_update(code, len, data_index, data, parity, 0);
}

int scr_rs_encode_update_portable(const scr_rs_code *code, size_t len, int data_index,
                                  const void *data, void *const *parity)
{
    return encode_update(code, len, data_index, data, parity, 1);
}

/* Checks the lost and surviving indices and records them in dec (with the
 * lowest blocks not lost as survivors when surviving is NULL). */
static int choose_blocks(const scr_rs_code *code, scr_rs_decoder *dec, const int *lost, int nlost,
                         const int *surviving)
{
    enum { UNUSED, LOST, READ };
    uint8_t role[SCR_RS_MAX_BLOCKS] = {UNUSED};
    int nblocks = code->ndata + code->nparity;
    if (lost == NULL || nlost < 1 || nlost > code->nparity) {
        scr_err("rs decoder: %d lost blocks, a code of %d parity blocks rebuilds 1 to %d",
                lost == NULL ? 0 : nlost, code->nparity, code->nparity);
        return SCR_ERR_ARG;
    }
    for (int r = 0; r < nlost; r++) {
        int b = lost[r];
        if (b < 0 || b >= nblocks) {
            scr_err("rs decoder: lost block %d is not one of the code's 0 to %d", b, nblocks - 1);
            return SCR_ERR_ARG;
        }
        if (role[b] == LOST) {
            scr_err("rs decoder: block %d is named lost twice", b);
            return SCR_ERR_ARG;
        }
        role[b] = LOST;
        dec->lost[r] = (uint8_t)b;
    }
    for (int s = 0, next = 0; s < code->ndata; s++) {
        int b;
        if (surviving == NULL) {
            while (role[next] == LOST) next++; /* nlost <= nparity: enough remain */
            b = next++;
        } else {
            b = surviving[s];
        }
        if (b < 0 || b >= nblocks) {
            scr_err("rs decoder: surviving block %d is not one of the code's 0 to %d", b,
                    nblocks - 1);
            return SCR_ERR_ARG;
        }
        if (role[b] != UNUSED) {
            scr_err("rs decoder: block %d is named %s", b,
                    role[b] == LOST ? "both lost and surviving" : "surviving twice");
            return SCR_ERR_ARG;
        }
        role[b] = READ;
        dec->surviving[s] = (uint8_t)b;
    }
    for (int b = 0; b < SCR_RS_MAX_BLOCKS; b++) dec->slot[b] = -1;
    for (int s = 0; s < code->ndata; s++) dec->slot[dec->surviving[s]] = (int16_t)s;
    dec->ndata = code->ndata;
    dec->nlost = nlost;
    return SCR_SUCCESS;
}

/* dec->rows from the inverse of the surviving rows of the matrix: a lost
 * data block is its row of the inverse, a lost parity block its row of the
 * matrix times the inverse. work holds 2 * ndata * ndata bytes. */
static int decoding_rows(const scr_rs_code *code, scr_rs_decoder *dec, uint8_t *work)
{
    size_t k = (size_t)code->ndata;
    uint8_t *sub = work, *inv = work + k * k;
    for (size_t s = 0; s < k; s++) memcpy(sub + s * k, code->matrix + dec->surviving[s] * k, k);
    if (scr_gf_invert_matrix(sub, inv, (int)k) != SCR_SUCCESS) {
        scr_err("rs decoder: the matrix rows of the %zu surviving blocks do not invert", k);
        return SCR_ERR_ARG;
    }
    for (int r = 0; r < dec->nlost; r++) {
        size_t b = dec->lost[r];
        uint8_t *row = dec->rows + (size_t)r * k;
        if (b < k) {
            memcpy(row, inv + b * k, k);
            continue;
        }
        const uint8_t *parity_row = code->matrix + b * k;
        for (size_t s = 0; s < k; s++) {
            uint8_t v = 0;
            for (size_t j = 0; j < k; j++) v ^= scr_gf_mul(parity_row[j], inv[j * k + s]);
            row[s] = v;
        }
    }
    return SCR_SUCCESS;
}

int scr_rs_decoder_init(const scr_rs_code *code, scr_rs_decoder *dec, const int *lost, int nlost,
                        const int *surviving)
{
    if (dec == NULL) {
        scr_err("rs decoder: init called without a decoder to set up");
        return SCR_ERR_ARG;
    }
    memset(dec, 0, sizeof(*dec));
    if (!code_is_set_up(code, "decoder")) return SCR_ERR_ARG;
    int rc = choose_blocks(code, dec, lost, nlost, surviving);
    if (rc != SCR_SUCCESS) return rc;

    size_t k = (size_t)code->ndata;
    size_t row_bytes = (size_t)nlost * k;
    dec->rows = malloc(row_bytes + (size_t)TABLE_BYTES * row_bytes);
    uint8_t *work = malloc(2 * k * k);
    if (dec->rows == NULL || work == NULL) {
        scr_err("rs decoder: out of memory for %d lost blocks of a code of %zu data blocks", nlost,
                k);
        free(work);
        return SCR_ERR_NOMEM;
    }
    rc = decoding_rows(code, dec, work);
    free(work);
    if (rc != SCR_SUCCESS) return rc;
#ifdef HAVE_ISAL
    dec->tables = dec->rows + row_bytes;
    ec_init_tables((int)k, nlost, dec->rows, dec->tables);
#endif
    return SCR_SUCCESS;
}

void scr_rs_decoder_free(scr_rs_decoder *dec)
{
    if (dec == NULL) return;
    free(dec->rows);
    memset(dec, 0, sizeof(*dec));
}

static int decoder_is_set_up(const scr_rs_decoder *dec, const char *what)
{
    if (dec == NULL || dec->rows == NULL) {
        scr_err("rs %s: the decoder is not set up", what);
        return 0;
    }
    return 1;
}

static struct linear_map decoder_map(const scr_rs_decoder *dec)
{
    struct linear_map m = {dec->ndata, dec->nlost, dec->rows, dec->tables};
    return m;
}

static int decode(const scr_rs_decoder *dec, size_t len, const void *const *blocks,
                  void *const *out, int portable)
{
    if (!decoder_is_set_up(dec, "decode")) return SCR_ERR_ARG;
    struct linear_map m = decoder_map(dec);
    return map_all(&m, "decode", len, blocks, out, portable);
}

static int decode_update(const scr_rs_decoder *dec, size_t len, int block_index, const void *block,
                         void *const *out, int portable)
{
    if (!decoder_is_set_up(dec, "decode update")) return SCR_ERR_ARG;
    if (block_index < 0 || block_index >= SCR_RS_MAX_BLOCKS || dec->slot[block_index] < 0) {
        scr_err("rs decode update: block %d is not one of the surviving blocks the decoder "
                "reads",
                block_index);
        return SCR_ERR_ARG;
    }
    struct linear_map m = decoder_map(dec);
    return map_one(&m, "decode update", dec->slot[block_index], len, block, out, portable);
}

int scr_rs_decode(const scr_rs_decoder *dec, size_t len, const void *const *blocks,
                  void *const *out)
{
    return decode(dec, len, blocks, out, 0);
}

int scr_rs_decode_portable(const scr_rs_decoder *dec, size_t len, const void *const *blocks,
                           void *const *out)
{
    return decode(dec, len, blocks, out, 1);
}

int scr_rs_decode_update(const scr_rs_decoder *dec, size_t len, int block_index, const void *block,
                         void *const *out)
{
    return decode_update(dec, len, block_index, block, out, 0);
}

int scr_rs_decode_update_portable(const scr_rs_decoder *dec, size_t len, int block_index,
                                  const void *block, void *const *out)
{
    return decode_update(dec, len, block_index, block, out, 1);
}

int scr_rs_uses_isal(void)
{
#ifdef HAVE_ISAL
    return 1;
#else
    return 0;
#endif
}
