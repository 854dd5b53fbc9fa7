/* erasure_gf.h — arithmetic in GF(2^8), the field of the Reed-Solomon code,
 * exactly as ISA-L defines it.
 *
 * The field is built on the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d) with
 * generator 2, ISA-L's convention: scr_gf_mul and scr_gf_inv give the values
 * of ISA-L's gf_mul and gf_inv, scr_gf_cauchy_matrix the matrix of
 * gf_gen_cauchy1_matrix, and scr_gf_invert_matrix the inverse that
 * gf_invert_matrix finds (an inverse is unique). A code set up from these
 * functions therefore encodes to the same bytes with or without ISA-L.
 *
 * Portable C over constant tables: nothing to initialise, no allocation, no
 * global state, safe from any thread. Nothing here logs; callers that know
 * what a failure means say so. */
#ifndef SCR_ERASURE_GF_H
#define SCR_ERASURE_GF_H

#include <stddef.h>
#include <stdint.h>

/* a * b in the field. */
uint8_t scr_gf_mul(uint8_t a, uint8_t b);

/* The inverse of a (a * scr_gf_inv(a) == 1); 0 for 0, as in ISA-L. */
uint8_t scr_gf_inv(uint8_t a);

/* Fills a (rows x cols bytes, row-major) with ISA-L's Cauchy encoding
 * matrix: the cols x cols identity on top, then a[i][j] = 1 / (i ^ j) for
 * cols <= i < rows. Any cols rows of it form an invertible matrix, so any
 * cols of the rows blocks it defines rebuild the others.
 * Requires 1 <= cols <= rows <= 256. */
void scr_gf_cauchy_matrix(uint8_t *a, int rows, int cols);

/* out = in^-1 for n x n row-major matrices, by Gauss-Jordan elimination.
 * Destroys in (it is the work space). SCR_SUCCESS, or SCR_ERR_ARG when in is
 * singular or n < 1 (out is then undefined). */
int scr_gf_invert_matrix(uint8_t *in, uint8_t *out, int n);

/* dst[i] ^= c * src[i] for i < len: the multiply-accumulate of every
 * Reed-Solomon encode and decode, in portable C (a 256-byte product table
 * per call, on the stack). src and dst must not overlap, any alignment. */
void scr_gf_mul_add(uint8_t c, size_t len, const void *src, void *dst);

/* dst[i] ^= sum over j < nsrc of coefs[j] * srcs[j][i]: a dot product added
 * into dst, the same bytes as nsrc calls of scr_gf_mul_add but faster, as
 * it adds two sources per pass over dst. */
void scr_gf_dot_add(size_t nsrc, const uint8_t *coefs, size_t len, const void *const *srcs,
                    void *dst);

#endif
