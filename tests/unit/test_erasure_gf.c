/* test_erasure_gf.c — GF(2^8) arithmetic: the field of polynomial 0x11d, its
 * laws, Cauchy matrices and inverses, and the same values as ISA-L's. */
#include "tap.h"
#include "erasure_test.h"

#include "build_config.h"
#include "erasure_gf.h"
#include "scr_err.h"

#ifdef HAVE_ISAL
#include <isa-l/erasure_code.h>
#endif

/* a * b from the definition: carry-less product, reduced by 0x11d. */
static uint8_t mul_by_definition(uint8_t a, uint8_t b)
{
    unsigned p = 0;
    for (int bit = 0; bit < 8; bit++)
        if (b & (1u << bit)) p ^= (unsigned)a << bit;
    for (int bit = 14; bit >= 8; bit--)
        if (p & (1u << bit)) p ^= 0x11du << (bit - 8);
    return (uint8_t)p;
}

static void test_mul_equals_polynomial_product_mod_0x11d_for_all_pairs(void)
{
    int failures = 0;
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++) {
            uint8_t want = mul_by_definition((uint8_t)a, (uint8_t)b);
            uint8_t got = scr_gf_mul((uint8_t)a, (uint8_t)b);
            if (got != want && failures++ < 5)
                CHECK(0, "%d * %d = %d, by definition %d", a, b, got, want);
        }
    CHECK(failures == 0, "%d products differ", failures);
}

static void test_every_nonzero_element_has_its_inverse_and_zero_maps_to_zero(void)
{
    CHECK(scr_gf_inv(0) == 0, "inverse of 0 is %d, ISA-L says 0", scr_gf_inv(0));
    for (int a = 1; a < 256; a++) {
        uint8_t inv = scr_gf_inv((uint8_t)a);
        CHECK(mul_by_definition((uint8_t)a, inv) == 1, "%d * inv %d = %d", a, inv,
              mul_by_definition((uint8_t)a, inv));
    }
}

static void test_field_laws_hold_on_random_triples(void)
{
    rng_seed(1);
    for (int i = 0; i < 200000; i++) {
        uint8_t a = (uint8_t)rng_next(), b = (uint8_t)rng_next(), c = (uint8_t)rng_next();
        REQUIRE(scr_gf_mul(a, b) == scr_gf_mul(b, a), "%d * %d is not commutative", a, b);
        REQUIRE(scr_gf_mul(scr_gf_mul(a, b), c) == scr_gf_mul(a, scr_gf_mul(b, c)),
                "(%d * %d) * %d is not associative", a, b, c);
        REQUIRE(scr_gf_mul(a, b ^ c) == (scr_gf_mul(a, b) ^ scr_gf_mul(a, c)),
                "%d * (%d + %d) does not distribute", a, b, c);
        REQUIRE(scr_gf_mul(a, 1) == a, "%d * 1 = %d", a, scr_gf_mul(a, 1));
    }
}

static void test_mul_and_inv_equal_isal_gf_mul_and_gf_inv(void)
{
#ifdef HAVE_ISAL
    int failures = 0;
    for (int a = 0; a < 256; a++) {
        if (scr_gf_inv((uint8_t)a) != gf_inv((unsigned char)a) && failures++ < 5)
            CHECK(0, "inverse of %d: %d, ISA-L %d", a, scr_gf_inv((uint8_t)a),
                  gf_inv((unsigned char)a));
        for (int b = 0; b < 256; b++)
            if (scr_gf_mul((uint8_t)a, (uint8_t)b) != gf_mul((unsigned char)a, (unsigned char)b) &&
                failures++ < 5)
                CHECK(0, "%d * %d: %d, ISA-L %d", a, b, scr_gf_mul((uint8_t)a, (uint8_t)b),
                      gf_mul((unsigned char)a, (unsigned char)b));
    }
#else
    printf("# built without ISA-L: nothing to compare with\n");
#endif
}

static const struct {
    int rows, cols;
} cauchy_shapes[] = {{1, 1},   {2, 1},     {5, 3},   {8, 4},     {10, 6},   {12, 8},
                     {20, 16}, {255, 128}, {255, 1}, {256, 200}, {255, 254}};
#define NSHAPES (sizeof(cauchy_shapes) / sizeof(cauchy_shapes[0]))

static void test_cauchy_matrix_is_identity_over_inverse_of_i_xor_j_as_in_isal(void)
{
    for (size_t t = 0; t < NSHAPES; t++) {
        int rows = cauchy_shapes[t].rows, cols = cauchy_shapes[t].cols;
        uint8_t *a = malloc((size_t)rows * (size_t)cols);
        REQUIRE(a != NULL, "memory");
        scr_gf_cauchy_matrix(a, rows, cols);
        int bad = 0;
        for (int i = 0; i < rows && !bad; i++)
            for (int j = 0; j < cols && !bad; j++) {
                uint8_t want = i < cols ? (i == j) : scr_gf_inv((uint8_t)(i ^ j));
                if (a[i * cols + j] != want) {
                    CHECK(0, "%dx%d matrix: a[%d][%d] = %d, want %d", rows, cols, i, j,
                          a[i * cols + j], want);
                    bad = 1;
                }
            }
#ifdef HAVE_ISAL
        uint8_t *b = malloc((size_t)rows * (size_t)cols);
        REQUIRE(b != NULL, "memory");
        gf_gen_cauchy1_matrix(b, rows, cols);
        long at = first_difference(a, b, (size_t)rows * (size_t)cols);
        CHECK(at < 0, "%dx%d matrix differs from ISA-L's at row %ld column %ld", rows, cols,
              at / cols, at % cols);
        free(b);
#endif
        free(a);
    }
}

/* Inverts the rows chosen of a (cols of them, cols wide) into inv. */
static int invert_rows(const uint8_t *a, const int *chosen, int cols, uint8_t *inv)
{
    uint8_t sub[16 * 16];
    for (int r = 0; r < cols; r++) memcpy(sub + r * cols, a + chosen[r] * cols, (size_t)cols);
    return scr_gf_invert_matrix(sub, inv, cols);
}

/* Every choice of cols rows of small Cauchy matrices inverts, which is what
 * lets any cols surviving blocks rebuild the others. */
static void test_every_choice_of_cols_rows_of_a_cauchy_matrix_inverts(void)
{
    static const struct {
        int rows, cols;
    } shapes[] = {{2, 1}, {5, 3}, {6, 4}, {8, 4}, {10, 6}, {12, 8}, {13, 9}};
    for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
        int rows = shapes[t].rows, cols = shapes[t].cols;
        uint8_t a[13 * 9], inv[16 * 16];
        scr_gf_cauchy_matrix(a, rows, cols);
        long tried = 0;
        /* subsets of size cols as bit masks of rows */
        for (unsigned mask = 0; mask < (1u << rows); mask++) {
            if (__builtin_popcount(mask) != cols) continue;
            int chosen[16], n = 0;
            for (int r = 0; r < rows; r++)
                if (mask & (1u << r)) chosen[n++] = r;
            tried++;
            if (invert_rows(a, chosen, cols, inv) != SCR_SUCCESS) {
                CHECK(0, "%dx%d matrix: rows of mask 0x%x do not invert", rows, cols, mask);
                break;
            }
        }
        printf("# %dx%d: %ld choices of %d rows invert\n", rows, cols, tried, cols);
    }
}

static void mat_mul(const uint8_t *a, const uint8_t *b, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint8_t v = 0;
            for (int k = 0; k < n; k++) v ^= scr_gf_mul(a[i * n + k], b[k * n + j]);
            out[i * n + j] = v;
        }
}

static int is_identity(const uint8_t *m, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (m[i * n + j] != (i == j)) return 0;
    return 1;
}

static void test_inverse_of_random_matrices_multiplies_to_identity(void)
{
    enum { MAXN = 24 };
    uint8_t a[MAXN * MAXN], work[MAXN * MAXN], inv[MAXN * MAXN], prod[MAXN * MAXN];
    rng_seed(2);
    int singular = 0;
    for (int trial = 0; trial < 400; trial++) {
        int n = 1 + (int)rng_below(MAXN);
        fill_random(a, (size_t)n * (size_t)n);
        if (trial % 4 == 0) a[0] = 0; /* a zero pivot: forces a row swap */
        memcpy(work, a, (size_t)n * (size_t)n);
        int rc = scr_gf_invert_matrix(work, inv, n);
#ifdef HAVE_ISAL
        uint8_t isal_work[MAXN * MAXN], isal_inv[MAXN * MAXN];
        memcpy(isal_work, a, (size_t)n * (size_t)n);
        int isal_rc = gf_invert_matrix(isal_work, isal_inv, n);
        CHECK((rc == SCR_SUCCESS) == (isal_rc == 0), "trial %d (n %d): we say %d, ISA-L %d", trial,
              n, rc, isal_rc);
        if (rc == SCR_SUCCESS && isal_rc == 0)
            CHECK(first_difference(inv, isal_inv, (size_t)n * (size_t)n) < 0,
                  "trial %d (n %d): inverse differs from ISA-L's", trial, n);
#endif
        if (rc != SCR_SUCCESS) {
            singular++;
            continue;
        }
        mat_mul(a, inv, prod, n);
        CHECK(is_identity(prod, n), "trial %d (n %d): A * inverse is not I", trial, n);
        mat_mul(inv, a, prod, n);
        CHECK(is_identity(prod, n), "trial %d (n %d): inverse * A is not I", trial, n);
    }
    printf("# %d of 400 random matrices were singular\n", singular);
}

static void test_singular_matrices_are_reported(void)
{
    uint8_t out[16];
    uint8_t zero_row[9] = {1, 2, 3, 0, 0, 0, 7, 8, 9};
    CHECK(scr_gf_invert_matrix(zero_row, out, 3) == SCR_ERR_ARG, "a zero row inverts");
    uint8_t equal_rows[9] = {4, 5, 6, 1, 1, 1, 4, 5, 6};
    CHECK(scr_gf_invert_matrix(equal_rows, out, 3) == SCR_ERR_ARG, "equal rows invert");
    /* row 2 = row 0 + 3 * row 1 in the field */
    uint8_t dependent[9] = {1, 2, 3, 4, 5, 6, 0, 0, 0};
    for (int k = 0; k < 3; k++)
        dependent[6 + k] = (uint8_t)(dependent[k] ^ scr_gf_mul(3, dependent[3 + k]));
    CHECK(scr_gf_invert_matrix(dependent, out, 3) == SCR_ERR_ARG, "dependent rows invert");
    uint8_t zero[1] = {0};
    CHECK(scr_gf_invert_matrix(zero, out, 1) == SCR_ERR_ARG, "[0] inverts");
    CHECK(scr_gf_invert_matrix(zero, out, 0) == SCR_ERR_ARG, "an empty matrix inverts");
}

static void test_mul_add_equals_bytewise_multiply_for_any_length_and_alignment(void)
{
    static const uint8_t coefs[] = {0, 1, 2, 3, 0x1d, 0x53, 0x80, 0x8e, 0xfe, 0xff};
    static const size_t lens[] = {0, 1, 2, 7, 8, 31, 64, 255, 256, 1000, 4099, 70001};
    rng_seed(3);
    for (size_t ci = 0; ci < sizeof(coefs); ci++)
        for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
            size_t len = lens[li], soff = rng_below(64), doff = rng_below(64);
            unsigned char *src = alloc_block(len, soff), *dst = alloc_block(len, doff);
            unsigned char *want = malloc(len + 1);
            REQUIRE(src && dst && want, "memory");
            for (size_t i = 0; i < len; i++)
                want[i] = (unsigned char)(dst[i] ^ mul_by_definition(coefs[ci], src[i]));
            scr_gf_mul_add(coefs[ci], len, src, dst);
            long at = first_difference(dst, want, len);
            CHECK(at < 0, "c %d, length %zu, src +%zu, dst +%zu: byte %ld is %d, want %d",
                  coefs[ci], len, soff, doff, at, at < 0 ? 0 : dst[at], at < 0 ? 0 : want[at]);
            free_block(src, soff);
            free_block(dst, doff);
            free(want);
        }
}

/* Source counts odd and even, with zero and one among the coefficients. */
static void test_dot_add_equals_one_mul_add_per_source(void)
{
    enum { MAXSRC = 7, LEN = 3001 };
    rng_seed(4);
    for (size_t nsrc = 0; nsrc <= MAXSRC; nsrc++)
        for (int trial = 0; trial < 4; trial++) {
            unsigned char *src[MAXSRC], *dst = alloc_block(LEN, 3), *want = malloc(LEN);
            const void *srcv[MAXSRC];
            uint8_t coefs[MAXSRC];
            REQUIRE(dst && want, "memory");
            for (size_t j = 0; j < nsrc; j++) {
                REQUIRE((src[j] = alloc_block(LEN, j)) != NULL, "memory");
                srcv[j] = src[j];
                coefs[j] = (uint8_t)(trial == 0 ? j % 3 : rng_next()); /* 0, 1, 2, ... */
            }
            memcpy(want, dst, LEN);
            for (size_t j = 0; j < nsrc; j++) scr_gf_mul_add(coefs[j], LEN, src[j], want);
            scr_gf_dot_add(nsrc, coefs, LEN, srcv, dst);
            long at = first_difference(dst, want, LEN);
            CHECK(at < 0, "%zu sources, trial %d: byte %ld differs", nsrc, trial, at);
            for (size_t j = 0; j < nsrc; j++) free_block(src[j], j);
            free_block(dst, 3);
            free(want);
        }
}

int main(void)
{
    RUN(test_mul_equals_polynomial_product_mod_0x11d_for_all_pairs);
    RUN(test_every_nonzero_element_has_its_inverse_and_zero_maps_to_zero);
    RUN(test_field_laws_hold_on_random_triples);
    RUN(test_mul_and_inv_equal_isal_gf_mul_and_gf_inv);
    RUN(test_cauchy_matrix_is_identity_over_inverse_of_i_xor_j_as_in_isal);
    RUN(test_every_choice_of_cols_rows_of_a_cauchy_matrix_inverts);
    RUN(test_inverse_of_random_matrices_multiplies_to_identity);
    RUN(test_singular_matrices_are_reported);
    RUN(test_mul_add_equals_bytewise_multiply_for_any_length_and_alignment);
    RUN(test_dot_add_equals_one_mul_add_per_source);
    return tap_done();
}
