/* rebuild_rs.c — up to k lost members of a Reed-Solomon set, rebuilt on the
 * prefix.
 *
 * The layout is run_rs.c's: with d = N - k, stripe s has data blocks
 * b < d, chunk b of member s+k+b, and parity blocks b >= d, slot b-d of
 * member s+b-d's RS file (indices mod N). For each stripe that lost blocks,
 * the d lowest surviving blocks are decoded into the lost ones, piece by
 * piece. */
#include "erasure_rs.h"
#include "kvtree_util.h"
#include "rebuild_member.h"
#include "rebuild_schemes.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

struct rs_set {
    int N, k, d;
    uint64_t chunk;
    struct rebuild_member *mem;
    unsigned char *is_lost;
};

static int block_owner(const struct rs_set *r, int s, int b)
{
    return b < r->d ? mod(s + r->k + b, r->N) : mod(s + b - r->d, r->N);
}

/* Read or write len bytes of block b of stripe s from offset p. */
static int block_io(struct rs_set *r, int s, int b, uint64_t p, void *buf, size_t len, int write)
{
    struct rebuild_member *m = &r->mem[block_owner(r, s, b)];
    if (b < r->d) {
        uint64_t off = (uint64_t)b * r->chunk + p;
        return write ? scr_padfile_write(m->parts, (size_t)m->nfiles, off, buf, len)
                     : scr_padfile_read(m->parts, (size_t)m->nfiles, off, buf, len);
    }
    scr_padfile_part part = {m->rfd, m->rpath, m->hlen + (uint64_t)r->k * r->chunk};
    uint64_t off = m->hlen + (uint64_t)(b - r->d) * r->chunk + p;
    return write ? scr_padfile_write(&part, 1, off, buf, len)
                 : scr_padfile_read(&part, 1, off, buf, len);
}

/* The metas of member x: its own CURRENT if it survived, else what a
 * survivor to its right keeps in PARTNERS. */
static const scr_kvtree *metas_of(const struct scr_scan_set *set, const struct rs_set *r, int x)
{
    if (!r->is_lost[x]) return scr_kvtree_get(r->mem[x].header, "CURRENT");
    for (int j = 1; j <= r->k; j++) {
        int y = mod(x + j, r->N);
        if (!r->is_lost[y]) return scr_rebuild_member_metas_of(&r->mem[y], set, y, x);
    }
    return NULL;
}

struct metas_ctx {
    const struct scr_scan_set *set;
    const struct rs_set *r;
};

/* metas_of as a scr_redundancy_metas_fn. */
static const scr_kvtree *set_metas(void *ctx, int x)
{
    const struct metas_ctx *c = ctx;
    return metas_of(c->set, c->r, x);
}

/* Lost member m's header, as run_rs.c builds it. */
static int lost_header(const struct scr_scan_set *set, const struct rs_set *r,
                       const scr_kvtree *base, int m, scr_kvtree **out)
{
    if (metas_of(set, r, m) == NULL) {
        scr_err("the RS headers of set %d keep no record of member %d's files", set->set_id, m);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *h = scr_kvtree_dup(base);
    if (h == NULL) return SCR_ERR_NOMEM;
    struct metas_ctx ctx = {set, r};
    int rc = scr_redundancy_file_set_rs_metas(h, m, r->N, r->k, set_metas, &ctx);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(h);
        return rc;
    }
    *out = h;
    return SCR_SUCCESS;
}

/* Decode stripe s when it lost blocks, piece by piece. */
static int decode_stripe(struct rs_set *r, const scr_rs_code *code, int s, char *blocks,
                         size_t bufsize)
{
    int lost[SCR_RS_MAX_BLOCKS], surv[SCR_RS_MAX_BLOCKS], nlost = 0, nsurv = 0;
    for (int b = 0; b < r->N; b++) {
        if (r->is_lost[block_owner(r, s, b)])
            lost[nlost++] = b;
        else if (nsurv < r->d)
            surv[nsurv++] = b;
    }
    if (nlost == 0) return SCR_SUCCESS;
    scr_rs_decoder dec = {0};
    int rc = scr_rs_decoder_init(code, &dec, lost, nlost, surv);
    if (rc != SCR_SUCCESS) goto out;
    const void *in[SCR_RS_MAX_BLOCKS];
    void *out[SCR_RS_MAX_BLOCKS];
    for (int i = 0; i < nsurv; i++) in[i] = blocks + (size_t)i * bufsize;
    for (int i = 0; i < nlost; i++) out[i] = blocks + (size_t)(r->d + i) * bufsize;
    for (uint64_t p = 0; p < r->chunk; p += bufsize) {
        size_t len = r->chunk - p < bufsize ? (size_t)(r->chunk - p) : bufsize;
        for (int i = 0; i < nsurv; i++) {
            rc = block_io(r, s, surv[i], p, blocks + (size_t)i * bufsize, len, 0);
            if (rc != SCR_SUCCESS) goto out;
        }
        rc = scr_rs_decode(&dec, len, in, out);
        if (rc != SCR_SUCCESS) goto out;
        for (int i = 0; i < nlost; i++) {
            rc = block_io(r, s, lost[i], p, out[i], len, 1);
            if (rc != SCR_SUCCESS) goto out;
        }
    }
out:
    scr_rs_decoder_free(&dec);
    return rc;
}

/* Decode every stripe that lost blocks. */
static int decode_all(struct rs_set *r, const scr_rs_code *code, char *blocks, size_t bufsize)
{
    for (int s = 0; s < r->N; s++) {
        int rc = decode_stripe(r, code, s, blocks, bufsize);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* Open every surviving member; *out_base is the first of them. */
static int open_survivors(const struct scr_scan *scan, const struct scr_scan_set *set,
                          struct rs_set *r, int *out_base)
{
    int base = -1;
    for (int i = 0; i < r->N; i++) {
        if (r->is_lost[i]) continue;
        int rc = scr_rebuild_member_open(scan, set, i, &r->mem[i]);
        if (rc != SCR_SUCCESS) return rc;
        if (base < 0) base = i;
    }
    if (base < 0) return SCR_ERR_FORMAT;
    *out_base = base;
    return SCR_SUCCESS;
}

/* The code's shape from the header bh of member base, checked against nlost. */
static int read_shape(const struct scr_scan_set *set, struct rs_set *r, const scr_kvtree *bh,
                      int base, int nlost)
{
    if (scr_kvtree_util_get_uint64(bh, "CHUNK", &r->chunk) != SCR_SUCCESS ||
        scr_kvtree_util_get_int(bh, "FAILURES", &r->k) != SCR_SUCCESS || r->k < 1 || r->k >= r->N) {
        scr_err("%s: its header gives no valid CHUNK and FAILURES", r->mem[base].rpath);
        return SCR_ERR_FORMAT;
    }
    if (nlost > r->k) {
        scr_err("RS set %d lost %d members; it can rebuild %d", set->set_id, nlost, r->k);
        return SCR_FAILURE;
    }
    r->d = r->N - r->k;
    return SCR_SUCCESS;
}

/* Create each lost member with the header run_rs.c would have given it. */
static int create_lost(const struct scr_scan *scan, const struct scr_scan_set *set,
                       struct rs_set *r, const scr_kvtree *bh, const int *group, const int *lost,
                       int nlost)
{
    for (int i = 0; i < nlost; i++) {
        scr_kvtree *h = NULL;
        int rc = lost_header(set, r, bh, lost[i], &h);
        if (rc != SCR_SUCCESS) return rc;
        rc = scr_rebuild_member_create(scan, set, lost[i], group[lost[i]],
                                       scr_kvtree_get(h, "CURRENT"), h, r->chunk * (uint64_t)r->k,
                                       &r->mem[lost[i]]);
        scr_kvtree_delete(h);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_rebuild_rs_set(const struct scr_scan *scan, const struct scr_scan_set *set, const int *lost,
                       int nlost, size_t bufsize)
{
    struct rs_set r = {0};
    scr_rs_code code = {0};
    char *blocks = NULL;
    int *group = NULL, gsize = 0, base = -1;
    r.N = set->size;
    r.mem = calloc((size_t)r.N, sizeof(*r.mem));
    r.is_lost = calloc((size_t)r.N, 1);
    int rc = SCR_ERR_NOMEM;
    for (int i = 0; r.mem && i < r.N; i++) r.mem[i].rfd = -1;
    if (r.mem == NULL || r.is_lost == NULL) goto out;
    for (int i = 0; i < nlost; i++) r.is_lost[lost[i]] = 1;
    rc = open_survivors(scan, set, &r, &base);
    if (rc != SCR_SUCCESS) goto out;
    const scr_kvtree *bh = r.mem[base].header;
    rc = read_shape(set, &r, bh, base, nlost);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_file_group(bh, r.mem[base].rpath, &group, &gsize);
    if (rc != SCR_SUCCESS) goto out;
    if (gsize != r.N) {
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = create_lost(scan, set, &r, bh, group, lost, nlost);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rs_init(&code, r.d, r.k);
    if (rc != SCR_SUCCESS) goto out;
    if ((blocks = malloc(bufsize * (size_t)(r.d + r.k))) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    rc = decode_all(&r, &code, blocks, bufsize);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < nlost; i++) {
        rc = scr_rebuild_member_commit(scan, set, &r.mem[lost[i]], blocks, bufsize);
        if (rc != SCR_SUCCESS) goto out;
    }
    scr_dbg(1, "%s: rebuilt %d member(s) of RS set %d", scan->dir, nlost, set->set_id);
out:
    for (int i = 0; r.mem && i < r.N; i++) scr_rebuild_member_close(&r.mem[i]);
    scr_rs_free(&code);
    free(r.mem);
    free(r.is_lost);
    free(blocks);
    free(group);
    return rc;
}
