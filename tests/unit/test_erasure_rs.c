/* test_erasure_rs.c — Reed-Solomon encode and decode: against a slow
 * matrix-times-vector reference, every pattern of lost blocks rebuilt, the
 * _update calls in any order, ISA-L and portable paths byte for byte, and
 * every kind of bad argument refused. */
#include "tap.h"
#include "erasure_test.h"

#include "erasure_gf.h"
#include "erasure_rs.h"
#include "scr_err.h"
#include "util_log.h"

#define MAXN SCR_RS_MAX_BLOCKS

typedef int (*encode_fn)(const scr_rs_code *, size_t, const void *const *, void *const *);
typedef int (*encode_update_fn)(const scr_rs_code *, size_t, int, const void *, void *const *);
typedef int (*decode_fn)(const scr_rs_decoder *, size_t, const void *const *, void *const *);
typedef int (*decode_update_fn)(const scr_rs_decoder *, size_t, int, const void *, void *const *);

static const struct {
    const char *name;
    encode_fn encode;
    encode_update_fn encode_update;
    decode_fn decode;
    decode_update_fn decode_update;
} impls[] = {
    {"default", scr_rs_encode, scr_rs_encode_update, scr_rs_decode, scr_rs_decode_update},
    {"portable", scr_rs_encode_portable, scr_rs_encode_update_portable, scr_rs_decode_portable,
     scr_rs_decode_update_portable},
};
#define NIMPLS 2

/* One code with the blocks of a code word and room for nparity outputs.
 * Data blocks are random; parity blocks come from the slow reference
 * encoder, or are random when the reference would be too slow. Every block
 * starts at a random distance from a 64-byte boundary. */
struct fixture {
    int ndata, nparity, n;
    size_t len;
    scr_rs_code code;
    unsigned char *block[MAXN], *outb[MAXN];
    size_t off[MAXN], out_off[MAXN];
    const void *in[MAXN]; /* block, as the type the calls take */
    void *out[MAXN];      /* outb, likewise */
};

/* parity[r][i] = sum over j of matrix[ndata + r][j] * data[j][i], one
 * multiplication at a time. */
static void reference_encode(struct fixture *f)
{
    uint8_t *m = malloc((size_t)f->n * (size_t)f->ndata);
    if (m == NULL) abort();
    scr_gf_cauchy_matrix(m, f->n, f->ndata);
    for (int r = 0; r < f->nparity; r++) {
        const uint8_t *row = m + (size_t)(f->ndata + r) * (size_t)f->ndata;
        for (size_t i = 0; i < f->len; i++) {
            uint8_t v = 0;
            for (int j = 0; j < f->ndata; j++) v ^= scr_gf_mul(row[j], f->block[j][i]);
            f->block[f->ndata + r][i] = v;
        }
    }
    free(m);
}

static void fixture_free(struct fixture *f)
{
    for (int b = 0; b < f->n; b++) free_block(f->block[b], f->off[b]);
    for (int r = 0; r < f->nparity; r++) free_block(f->outb[r], f->out_off[r]);
    scr_rs_free(&f->code);
}

static int fixture_setup(struct fixture *f, int ndata, int nparity, size_t len, int reference)
{
    memset(f, 0, sizeof(*f));
    f->ndata = ndata;
    f->nparity = nparity;
    f->n = ndata + nparity;
    f->len = len;
    for (int b = 0; b < f->n; b++) {
        f->off[b] = rng_below(64);
        if ((f->block[b] = alloc_block(len, f->off[b])) == NULL) return 0;
        f->in[b] = f->block[b];
    }
    for (int r = 0; r < nparity; r++) {
        f->out_off[r] = rng_below(64);
        if ((f->outb[r] = alloc_block(len, f->out_off[r])) == NULL) return 0;
        f->out[r] = f->outb[r];
    }
    if (scr_rs_init(&f->code, ndata, nparity) != SCR_SUCCESS) return 0;
    if (reference) reference_encode(f);
    return 1;
}

static void zero_outputs(struct fixture *f)
{
    for (int r = 0; r < f->nparity; r++) memset(f->outb[r], 0, f->len);
}

/* "{3,7}" for messages. */
static const char *pattern_text(const int *idx, int n)
{
    static char buf[2048];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 8 < sizeof(buf); i++)
        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d", i ? "," : "{", idx[i]);
    snprintf(buf + used, sizeof(buf) - used, "}");
    return buf;
}

/* 0 if output r holds block want[r] of the code word for every r < count;
 * else reports the first difference and returns 1. */
static int check_outputs(const struct fixture *f, const int *want, int count, const char *what,
                         const char *path)
{
    for (int r = 0; r < count; r++) {
        long at = first_difference(f->outb[r], f->block[want[r]], f->len);
        if (at >= 0) {
            CHECK(0, "(ndata %d, nparity %d) %s, %s path: block %d differs at byte %ld of %zu",
                  f->ndata, f->nparity, what, path, want[r], at, f->len);
            return 1;
        }
    }
    return 0;
}

/* The parity blocks, 0 .. nparity-1, as the outputs of an encode. */
static int check_parity(const struct fixture *f, const char *what, const char *path)
{
    int want[MAXN];
    for (int r = 0; r < f->nparity; r++) want[r] = f->ndata + r;
    return check_outputs(f, want, f->nparity, what, path);
}

/* Runs body on every code of 1 to 16 data and 1 to 4 parity blocks, with
 * blocks of a length per code (covering short tails and SIMD bodies) plus
 * extra bytes. */
static void for_each_small_code(size_t extra, void (*body)(struct fixture *))
{
    for (int nd = 1; nd <= 16; nd++)
        for (int np = 1; np <= 4; np++) {
            struct fixture f;
            size_t len = 1 + (size_t)((nd * 37 + np * 101) % 300) + extra;
            if (fixture_setup(&f, nd, np, len, 1))
                body(&f);
            else
                CHECK(0, "(ndata %d, nparity %d): no memory for the test", nd, np);
            fixture_free(&f);
        }
}

static void encode_matches_reference(struct fixture *f)
{
    for (int i = 0; i < NIMPLS; i++) {
        CHECK(impls[i].encode(&f->code, f->len, f->in, f->out) == SCR_SUCCESS, "encode");
        check_parity(f, "encode", impls[i].name);
    }
}

static void test_encode_equals_slow_reference_for_ndata_1_to_16_nparity_1_to_4(void)
{
    printf("# scr_rs_encode %s ISA-L\n", scr_rs_uses_isal() ? "uses" : "does not use");
    rng_seed(20);
    for_each_small_code(1000, encode_matches_reference);
}

static void shuffle(int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below((size_t)i + 1);
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* 1 to nparity lost blocks chosen at random; returns how many. */
static int random_lost(const struct fixture *f, int *lost)
{
    int order[MAXN];
    for (int b = 0; b < f->n; b++) order[b] = b;
    shuffle(order, f->n);
    int nlost = 1 + (int)rng_below((size_t)f->nparity);
    memcpy(lost, order, (size_t)nlost * sizeof(int));
    return nlost;
}

/* ndata surviving blocks chosen at random among those not lost. */
static void random_survivors(const struct fixture *f, const int *lost, int nlost, int *surviving)
{
    int pool[MAXN], npool = 0;
    for (int b = 0; b < f->n; b++) {
        int is_lost = 0;
        for (int r = 0; r < nlost; r++) is_lost |= lost[r] == b;
        if (!is_lost) pool[npool++] = b;
    }
    shuffle(pool, npool);
    memcpy(surviving, pool, (size_t)f->ndata * sizeof(int));
}

/* Rebuilds the lost blocks on both paths from the survivors (or from the
 * decoder's choice when surviving is NULL); 1 on a failure. */
static int rebuild(struct fixture *f, const int *lost, int nlost, const int *surviving)
{
    scr_rs_decoder dec;
    char what[2100];
    snprintf(what, sizeof(what), "lost %s", pattern_text(lost, nlost));
    int rc = scr_rs_decoder_init(&f->code, &dec, lost, nlost, surviving);
    if (rc != SCR_SUCCESS) {
        CHECK(0, "(ndata %d, nparity %d) %s: decoder init gives %d", f->ndata, f->nparity, what,
              rc);
        return 1;
    }
    const void *in[MAXN];
    for (int s = 0; s < f->ndata; s++) in[s] = f->block[dec.surviving[s]];
    int failed = 0;
    for (int i = 0; i < NIMPLS && !failed; i++) {
        CHECK(impls[i].decode(&dec, f->len, in, f->out) == SCR_SUCCESS, "decode");
        failed = check_outputs(f, lost, nlost, what, impls[i].name);
    }
    scr_rs_decoder_free(&dec);
    return failed;
}

#define MAX_PATTERNS 1000
static long patterns_tried;

/* Every pattern when the code has at most MAX_PATTERNS of them (a pattern
 * is a bit mask of blocks), else MAX_PATTERNS random ones. Half the time the
 * decoder picks the survivors, half the time the test does. */
static void every_pattern_is_rebuilt(struct fixture *f)
{
    long count = 0, c = 1;
    for (int l = 1; l <= f->nparity; l++) {
        c = c * (f->n - l + 1) / l;
        count += c;
    }
    int random = count > MAX_PATTERNS;
    unsigned end = random ? MAX_PATTERNS : (1u << f->n);
    for (unsigned mask = 1; mask < end; mask++) {
        int lost[MAXN], surviving[MAXN], nlost = 0;
        if (random) {
            nlost = random_lost(f, lost);
        } else {
            if (__builtin_popcount(mask) > f->nparity) continue;
            for (int b = 0; b < f->n; b++)
                if (mask & (1u << b)) lost[nlost++] = b;
        }
        int pick = mask % 2;
        if (!pick) random_survivors(f, lost, nlost, surviving);
        patterns_tried++;
        if (rebuild(f, lost, nlost, pick ? NULL : surviving)) return;
    }
}

static void test_decode_rebuilds_every_pattern_of_up_to_nparity_lost_blocks(void)
{
    rng_seed(21);
    for_each_small_code(0, every_pattern_is_rebuilt);
    printf("# %ld patterns of lost blocks rebuilt\n", patterns_tried);
}

/* mode 0 and 1: one path throughout; mode 2: the paths alternate, as when
 * the members of a ring run different builds. */
static const char *const mode_names[] = {"default", "portable", "alternating"};

static void update_in_any_order_matches_encode(struct fixture *f)
{
    int order[MAXN];
    for (int mode = 0; mode < 3; mode++) {
        for (int j = 0; j < f->ndata; j++) order[j] = j;
        shuffle(order, f->ndata);
        zero_outputs(f);
        for (int j = 0; j < f->ndata; j++) {
            int i = mode < 2 ? mode : j % 2;
            CHECK(impls[i].encode_update(&f->code, f->len, order[j], f->block[order[j]], f->out) ==
                      SCR_SUCCESS,
                  "update");
        }
        char what[2100];
        snprintf(what, sizeof(what), "encode update in order %s", pattern_text(order, f->ndata));
        check_parity(f, what, mode_names[mode]);
    }
}

static void test_encode_update_over_data_blocks_in_any_order_equals_encode(void)
{
    rng_seed(22);
    for_each_small_code(500, update_in_any_order_matches_encode);
}

static void decode_update_in_any_order_matches_decode(struct fixture *f)
{
    for (int trial = 0; trial < 4; trial++) {
        int lost[MAXN], surviving[MAXN];
        int nlost = random_lost(f, lost);
        random_survivors(f, lost, nlost, surviving);
        scr_rs_decoder dec;
        REQUIRE(scr_rs_decoder_init(&f->code, &dec, lost, nlost, surviving) == SCR_SUCCESS,
                "(ndata %d, nparity %d) decoder for lost %s", f->ndata, f->nparity,
                pattern_text(lost, nlost));
        int mode = trial % 3;
        shuffle(surviving, f->ndata);
        zero_outputs(f);
        for (int j = 0; j < f->ndata; j++) {
            int i = mode < 2 ? mode : j % 2;
            CHECK(impls[i].decode_update(&dec, f->len, surviving[j], f->block[surviving[j]],
                                         f->out) == SCR_SUCCESS,
                  "update");
        }
        char what[2100];
        snprintf(what, sizeof(what), "decode update of lost %s", pattern_text(lost, nlost));
        check_outputs(f, lost, nlost, what, mode_names[mode]);
        scr_rs_decoder_free(&dec);
    }
}

static void test_decode_update_over_survivors_in_any_order_equals_decode(void)
{
    rng_seed(23);
    for_each_small_code(500, decode_update_in_any_order_matches_decode);
}

/* Big blocks take ISA-L's SIMD loops end to end, and the portable loop
 * across several of its pieces. The reference encoder would be slow here:
 * the two paths are compared with each other, then the rebuilt blocks with
 * the originals. */
static void test_isal_and_portable_paths_give_identical_bytes_on_megabyte_blocks(void)
{
    static const int codes[][2] = {{6, 2}, {13, 3}, {4, 4}, {10, 7}};
    rng_seed(24);
    size_t len = (1u << 20) + 3;
    for (size_t t = 0; t < sizeof(codes) / sizeof(codes[0]); t++) {
        struct fixture f;
        int nd = codes[t][0], np = codes[t][1];
        REQUIRE(fixture_setup(&f, nd, np, len, 0), "memory");
        CHECK(scr_rs_encode_portable(&f.code, len, f.in, f.out) == SCR_SUCCESS, "encode");
        for (int r = 0; r < np; r++) memcpy(f.block[nd + r], f.outb[r], len);
        CHECK(scr_rs_encode(&f.code, len, f.in, f.out) == SCR_SUCCESS, "encode");
        check_parity(&f, "encode, against the portable path", impls[0].name);
        int lost[MAXN];
        rebuild(&f, lost, random_lost(&f, lost), NULL);
        fixture_free(&f);
    }
}

/* Codes of 255 blocks, the most GF(2^8) allows here, lose all they can. */
static void test_largest_codes_rebuild_nparity_lost_blocks(void)
{
    static const int codes[][2] = {{251, 4}, {128, 127}, {1, 254}, {254, 1}};
    rng_seed(25);
    for (size_t t = 0; t < sizeof(codes) / sizeof(codes[0]); t++) {
        struct fixture f;
        int nd = codes[t][0], np = codes[t][1];
        REQUIRE(fixture_setup(&f, nd, np, 96, 1), "memory");
        encode_matches_reference(&f);
        /* np lost blocks at random, the first of them data */
        int lost[MAXN];
        for (int b = 0; b < f.n; b++) lost[b] = b;
        shuffle(lost, f.n);
        for (int r = 0; r < f.n; r++)
            if (lost[r] < nd) {
                int data_block = lost[r];
                lost[r] = lost[0];
                lost[0] = data_block;
                break;
            }
        rebuild(&f, lost, np, NULL);
        fixture_free(&f);
    }
}

static void test_invalid_shapes_of_code_are_refused(void)
{
    static const int shapes[][2] = {{0, 1},   {1, 0},    {-1, 2},  {2, -1}, {255, 1},
                                    {254, 2}, {200, 56}, {1, 255}, {0, 0}};
    scr_log_set_quiet(1);
    for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
        scr_rs_code code;
        int rc = scr_rs_init(&code, shapes[t][0], shapes[t][1]);
        CHECK(rc == SCR_ERR_ARG, "%d data + %d parity blocks: %d, want SCR_ERR_ARG", shapes[t][0],
              shapes[t][1], rc);
        CHECK(code.matrix == NULL, "a refused code has a matrix");
        scr_rs_free(&code);
    }
    CHECK(scr_rs_init(NULL, 2, 2) == SCR_ERR_ARG, "init of NULL");
    scr_log_set_quiet(0);
}

static void test_invalid_lost_and_surviving_blocks_are_refused(void)
{
    scr_rs_code code;
    REQUIRE(scr_rs_init(&code, 4, 2) == SCR_SUCCESS, "init");
    static const struct {
        const char *what;
        int lost[3], nlost;
        int surviving[4];
        int give_surviving;
    } cases[] = {
        {"lost block -1", {-1}, 1, {0}, 0},
        {"lost block 6 of 6", {6}, 1, {0}, 0},
        {"lost block 300", {300}, 1, {0}, 0},
        {"lost block named twice", {2, 2}, 2, {0}, 0},
        {"no lost block", {0}, 0, {0}, 0},
        {"more lost than parity", {0, 1, 2}, 3, {0}, 0},
        {"surviving block also lost", {1}, 1, {0, 1, 2, 3}, 1},
        {"surviving block twice", {1}, 1, {0, 2, 2, 3}, 1},
        {"surviving block 6 of 6", {1}, 1, {0, 2, 3, 6}, 1},
        {"surviving block -1", {1}, 1, {0, 2, 3, -1}, 1},
    };
    scr_log_set_quiet(1);
    for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
        scr_rs_decoder dec;
        scr_clear_last_error();
        int rc = scr_rs_decoder_init(&code, &dec, cases[t].lost, cases[t].nlost,
                                     cases[t].give_surviving ? cases[t].surviving : NULL);
        CHECK(rc == SCR_ERR_ARG, "%s: %d, want SCR_ERR_ARG", cases[t].what, rc);
        CHECK(scr_last_error()[0] != '\0', "%s: nothing logged", cases[t].what);
        CHECK(dec.rows == NULL, "%s: a refused decoder has rows", cases[t].what);
        scr_rs_decoder_free(&dec);
    }
    scr_rs_decoder dec;
    int one = 1;
    CHECK(scr_rs_decoder_init(&code, &dec, NULL, 1, NULL) == SCR_ERR_ARG, "lost NULL");
    CHECK(scr_rs_decoder_init(&code, NULL, &one, 1, NULL) == SCR_ERR_ARG, "decoder NULL");
    CHECK(scr_rs_decoder_init(NULL, &dec, &one, 1, NULL) == SCR_ERR_ARG, "code NULL");
    scr_rs_decoder_free(&dec);
    scr_log_set_quiet(0);
    scr_rs_free(&code);
}

static void test_per_buffer_calls_refuse_bad_indices_and_unset_structs(void)
{
    scr_rs_code code, unset_code;
    scr_rs_decoder dec, unset_dec;
    memset(&unset_code, 0, sizeof(unset_code));
    memset(&unset_dec, 0, sizeof(unset_dec));
    REQUIRE(scr_rs_init(&code, 3, 2) == SCR_SUCCESS, "init");
    int lost[1] = {0}, surviving[3] = {1, 2, 4};
    REQUIRE(scr_rs_decoder_init(&code, &dec, lost, 1, surviving) == SCR_SUCCESS, "decoder");
    unsigned char buf[5][16] = {{0}};
    const void *in[3] = {buf[0], buf[1], buf[2]};
    void *out[2] = {buf[3], buf[4]};
    void *missing[2] = {buf[3], NULL};
    scr_log_set_quiet(1);
    for (int i = 0; i < NIMPLS; i++) {
        const char *p = impls[i].name;
        CHECK(impls[i].encode_update(&code, 16, 3, buf[0], out) == SCR_ERR_ARG,
              "%s: data index 3 of 3", p);
        CHECK(impls[i].encode_update(&code, 16, -1, buf[0], out) == SCR_ERR_ARG,
              "%s: data index -1", p);
        CHECK(impls[i].decode_update(&dec, 16, 3, buf[0], out) == SCR_ERR_ARG,
              "%s: block 3 is not read by the decoder", p);
        CHECK(impls[i].decode_update(&dec, 16, 0, buf[0], out) == SCR_ERR_ARG,
              "%s: block 0 is the lost one", p);
        CHECK(impls[i].decode_update(&dec, 16, 1000, buf[0], out) == SCR_ERR_ARG, "%s: block 1000",
              p);
        CHECK(impls[i].encode(&unset_code, 16, in, out) == SCR_ERR_ARG, "%s: unset code", p);
        CHECK(impls[i].encode(NULL, 16, in, out) == SCR_ERR_ARG, "%s: NULL code", p);
        CHECK(impls[i].decode(&unset_dec, 16, in, out) == SCR_ERR_ARG, "%s: unset decoder", p);
        CHECK(impls[i].encode(&code, 16, in, missing) == SCR_ERR_ARG, "%s: missing parity", p);
        CHECK(impls[i].decode(&dec, 16, NULL, out) == SCR_ERR_ARG, "%s: no inputs", p);
        CHECK(impls[i].encode_update(&code, 16, 0, NULL, out) == SCR_ERR_ARG, "%s: no block", p);
    }
    scr_log_set_quiet(0);
    scr_rs_decoder_free(&dec);
    scr_rs_free(&code);
}

/* A matrix whose surviving rows are dependent (never so for a Cauchy
 * matrix, so the test spoils one) gives an error, not a crash. */
static void test_singular_surviving_rows_are_reported(void)
{
    scr_rs_code code;
    scr_rs_decoder dec;
    REQUIRE(scr_rs_init(&code, 3, 2) == SCR_SUCCESS, "init");
    memcpy(code.matrix + 3 * 3, code.matrix + 1 * 3, 3); /* parity 0 := copy of data 1 */
    int lost[1] = {2}, surviving[3] = {0, 1, 3};
    scr_log_set_quiet(1);
    int rc = scr_rs_decoder_init(&code, &dec, lost, 1, surviving);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_ARG, "singular rows: %d, want SCR_ERR_ARG", rc);
    CHECK(strstr(scr_last_error(), "do not invert") != NULL, "message: %s", scr_last_error());
    scr_rs_decoder_free(&dec);
    scr_rs_free(&code);
}

static void test_zero_length_blocks_need_no_buffers(void)
{
    scr_rs_code code;
    scr_rs_decoder dec;
    REQUIRE(scr_rs_init(&code, 2, 2) == SCR_SUCCESS, "init");
    int lost[2] = {0, 3};
    REQUIRE(scr_rs_decoder_init(&code, &dec, lost, 2, NULL) == SCR_SUCCESS, "decoder");
    const void *in[2] = {NULL, NULL};
    void *out[2] = {NULL, NULL};
    for (int i = 0; i < NIMPLS; i++) {
        CHECK(impls[i].encode(&code, 0, in, out) == SCR_SUCCESS, "%s encode", impls[i].name);
        CHECK(impls[i].encode_update(&code, 0, 1, NULL, out) == SCR_SUCCESS, "%s update",
              impls[i].name);
        CHECK(impls[i].decode(&dec, 0, in, out) == SCR_SUCCESS, "%s decode", impls[i].name);
        CHECK(impls[i].decode_update(&dec, 0, 1, NULL, out) == SCR_SUCCESS, "%s update",
              impls[i].name);
    }
    CHECK(dec.surviving[0] == 1 && dec.surviving[1] == 2,
          "survivors picked: %d %d, want the lowest not lost, 1 and 2", dec.surviving[0],
          dec.surviving[1]);
    scr_rs_decoder_free(&dec);
    scr_rs_decoder_free(&dec); /* freeing twice is harmless */
    scr_rs_free(&code);
    scr_rs_free(&code);
}

int main(void)
{
    RUN(test_encode_equals_slow_reference_for_ndata_1_to_16_nparity_1_to_4);
    RUN(test_decode_rebuilds_every_pattern_of_up_to_nparity_lost_blocks);
    RUN(test_encode_update_over_data_blocks_in_any_order_equals_encode);
    RUN(test_decode_update_over_survivors_in_any_order_equals_decode);
    RUN(test_isal_and_portable_paths_give_identical_bytes_on_megabyte_blocks);
    RUN(test_largest_codes_rebuild_nparity_lost_blocks);
    RUN(test_invalid_shapes_of_code_are_refused);
    RUN(test_invalid_lost_and_surviving_blocks_are_refused);
    RUN(test_per_buffer_calls_refuse_bad_indices_and_unset_structs);
    RUN(test_singular_surviving_rows_are_reported);
    RUN(test_zero_length_blocks_need_no_buffers);
    return tap_done();
}
