/* redundancy_file.c — names and headers of XOR and RS files: read, built, written. */
#include "redundancy_file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"
#include "util_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A header larger than this is damage, not data. */
#define HEADER_MAX ((uint64_t)1 << 30)

/* Parse a decimal int without sign or leading zeros at *s; advance *s. */
static int parse_count(const char **s, int *out)
{
    const char *p = *s;
    long long v = 0;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9')) return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > INT_MAX) return 0;
    }
    *out = (int)v;
    *s = p;
    return 1;
}

static int skip(const char **s, const char *text)
{
    size_t n = strlen(text);
    if (strncmp(*s, text, n) != 0) return 0;
    *s += n;
    return 1;
}

int scr_redundancy_file_parse_name(const char *name, struct scr_redundancy_name *out)
{
    struct scr_redundancy_name n;
    const char *p = name;
    int one_based = 0;
    if (name == NULL || out == NULL) return 0;
    if (!parse_count(&p, &one_based) || !skip(&p, "_of_") || !parse_count(&p, &n.size) ||
        !skip(&p, "_in_") || !parse_count(&p, &n.set))
        return 0;
    if (strcmp(p, ".xor") == 0)
        n.kind = SCR_REDUNDANCY_XOR;
    else if (strcmp(p, ".rs") == 0)
        n.kind = SCR_REDUNDANCY_RS;
    else
        return 0;
    if (one_based < 1 || one_based > n.size || n.size < 2) return 0;
    n.member = one_based - 1;
    *out = n;
    return 1;
}

int scr_redundancy_file_name(const struct scr_redundancy_name *n, char *buf, size_t len)
{
    int w = snprintf(buf, len, "%d_of_%d_in_%d.%s", n->member + 1, n->size, n->set,
                     n->kind == SCR_REDUNDANCY_XOR ? "xor" : "rs");
    if (w < 0 || (size_t)w >= len) {
        scr_err("redundancy file name of member %d of set %d does not fit in %zu bytes", n->member,
                n->set, len);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

int scr_redundancy_file_read_header(int fd, const char *path, scr_kvtree **out_header,
                                    uint64_t *out_len)
{
    unsigned char head[SCR_KVTREE_FILE_HEADER_SIZE];
    size_t got = 0;
    uint64_t size = 0;
    char *buf = NULL;
    scr_kvtree *h = NULL;
    int rc = scr_read_full(fd, head, sizeof(head), &got, path);
    if (rc != SCR_SUCCESS) return rc;
    if (got != sizeof(head)) {
        scr_err("%s: shorter than a redundancy file header", path);
        return SCR_ERR_FORMAT;
    }
    for (int i = 8; i < 16; i++) size = size << 8 | head[i];
    if (size < sizeof(head) || size > HEADER_MAX) {
        scr_err("%s: a redundancy file header of %llu bytes", path, (unsigned long long)size);
        return SCR_ERR_FORMAT;
    }
    if ((buf = malloc((size_t)size)) == NULL) {
        scr_err("%s: out of memory for a header of %llu bytes", path, (unsigned long long)size);
        return SCR_ERR_NOMEM;
    }
    rc = scr_pread_full(fd, buf, (size_t)size, 0, path);
    if (rc != SCR_SUCCESS) goto out;
    if ((h = scr_kvtree_new()) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    rc = scr_kvtree_parse_image(buf, (size_t)size, h, path);
out:
    free(buf);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(h);
        return rc;
    }
    *out_header = h;
    *out_len = size;
    return SCR_SUCCESS;
}

int scr_redundancy_file_write_header(int fd, const char *path, const scr_kvtree *header,
                                     uint64_t len, uint32_t *out_crc)
{
    void *image = NULL;
    size_t image_len = 0;
    int rc = scr_kvtree_file_image(header, &image, &image_len);
    if (rc != SCR_SUCCESS) goto out;
    if ((uint64_t)image_len != len) {
        scr_err("%s: its header would be %zu bytes, not the %llu it has; not rewritten", path,
                image_len, (unsigned long long)len);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = scr_pwrite_full(fd, image, image_len, 0, path);
    if (rc != SCR_SUCCESS) goto out;
    *out_crc = scr_crc32(0, image, image_len);
out:
    free(image);
    return rc;
}

int scr_redundancy_file_group(const scr_kvtree *header, const char *path, int **out_members,
                              int *out_size)
{
    const scr_kvtree *group = scr_kvtree_get(header, "GROUP");
    const scr_kvtree *ranks = scr_kvtree_get(group, "RANK");
    int n = 0;
    if (scr_kvtree_util_get_int(group, "RANKS", &n) != SCR_SUCCESS || n < 2 || n > 1 << 20 ||
        scr_kvtree_size(ranks) != n) {
        scr_err("%s: its header has no valid GROUP (RANKS and one RANK per member)", path);
        return SCR_ERR_FORMAT;
    }
    int *members = malloc(sizeof(int) * (size_t)n);
    if (members == NULL) return SCR_ERR_NOMEM;
    for (int i = 0; i < n; i++) members[i] = -1;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(ranks); e; e = scr_kvtree_elem_next(e)) {
        int64_t i = -1, w = -1;
        const scr_kvtree *v = scr_kvtree_elem_hash(e);
        /* XOR stores the world rank as the value, RS under WORLD */
        const char *text = scr_kvtree_get(v, "WORLD")
                               ? scr_kvtree_first_key(scr_kvtree_get(v, "WORLD"))
                               : scr_kvtree_first_key(v);
        if (scr_parse_int64(scr_kvtree_elem_key(e), &i) != SCR_SUCCESS || i < 0 || i >= n ||
            members[i] >= 0 || text == NULL || scr_parse_int64(text, &w) != SCR_SUCCESS || w < 0 ||
            w > INT_MAX) {
            scr_err("%s: its header's GROUP has a bad entry for member '%s'", path,
                    scr_kvtree_elem_key(e));
            free(members);
            return SCR_ERR_FORMAT;
        }
        members[i] = (int)w;
    }
    *out_members = members;
    *out_size = n;
    return SCR_SUCCESS;
}

int scr_redundancy_file_set_rs_metas(scr_kvtree *h, int m, int N, int k,
                                     scr_redundancy_metas_fn metas, void *ctx)
{
    scr_kvtree_unset(h, "CURRENT");
    scr_kvtree_unset(h, "PARTNERS");
    const scr_kvtree *mine = metas(ctx, m);
    if (mine == NULL) return SCR_ERR_FORMAT;
    if (scr_kvtree_set(h, "CURRENT", scr_kvtree_dup(mine)) == NULL) return SCR_ERR_NOMEM;
    for (int j = 1; j <= k; j++) {
        int left = ((m - j) % N + N) % N;
        const scr_kvtree *theirs = metas(ctx, left);
        if (theirs == NULL) return SCR_ERR_FORMAT;
        scr_kvtree *slot = scr_kvtree_set_kv_int(h, "PARTNERS", left);
        if (slot == NULL || scr_kvtree_copy(slot, theirs) != SCR_SUCCESS) return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* GROUP of a header: RANKS N, and RANK i -> world rank (XOR) or RANK i WORLD w (RS). */
static int set_group(scr_kvtree *h, const int *members, int N, int rs)
{
    scr_kvtree *group = scr_kvtree_set(h, "GROUP", scr_kvtree_new());
    if (group == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_util_set_int(group, "RANKS", N);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0; i < N; i++) {
        if (rs) {
            scr_kvtree *slot = scr_kvtree_set_kv_int(group, "RANK", i);
            rc = slot ? scr_kvtree_util_set_int(slot, "WORLD", members[i]) : SCR_ERR_NOMEM;
        } else {
            char key[16];
            snprintf(key, sizeof(key), "%d", i);
            scr_kvtree *ranks = scr_kvtree_get(group, "RANK");
            if (ranks == NULL) ranks = scr_kvtree_set(group, "RANK", scr_kvtree_new());
            rc = ranks ? scr_kvtree_util_set_int(ranks, key, members[i]) : SCR_ERR_NOMEM;
        }
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* DSET, RANKS, CHUNK: what both kinds of header start with. */
static int new_header(const scr_kvtree *dset, int ranks, uint64_t chunk, scr_kvtree **out)
{
    scr_kvtree *h = scr_kvtree_new();
    if (h == NULL) return SCR_ERR_NOMEM;
    int rc = SCR_ERR_NOMEM;
    if (scr_kvtree_set(h, "DSET", scr_kvtree_dup(dset)) == NULL) goto out;
    rc = scr_kvtree_util_set_int(h, "RANKS", ranks);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_util_set_uint64(h, "CHUNK", chunk);
out:
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(h);
        return rc;
    }
    *out = h;
    return SCR_SUCCESS;
}

int scr_redundancy_file_xor_header(const scr_kvtree *dset, int ranks, uint64_t chunk,
                                   const int *members, int N, scr_kvtree *current,
                                   scr_kvtree *partner, scr_kvtree **out_header)
{
    scr_kvtree *h = NULL;
    int rc = new_header(dset, ranks, chunk, &h);
    if (rc != SCR_SUCCESS) goto out;
    rc = set_group(h, members, N, 0);
    if (rc != SCR_SUCCESS) goto out;
    /* set() takes ownership, also when it fails */
    rc = scr_kvtree_set(h, "CURRENT", current) ? SCR_SUCCESS : SCR_ERR_NOMEM;
    current = NULL;
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_kvtree_set(h, "PARTNER", partner) ? SCR_SUCCESS : SCR_ERR_NOMEM;
    partner = NULL;
out:
    /* current and partner are ours to delete until h takes them */
    scr_kvtree_delete(current);
    scr_kvtree_delete(partner);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(h);
        return rc;
    }
    *out_header = h;
    return SCR_SUCCESS;
}

int scr_redundancy_file_rs_header(const scr_kvtree *dset, int ranks, uint64_t chunk, int k,
                                  const int *members, int N, int m, scr_redundancy_metas_fn metas,
                                  void *ctx, scr_kvtree **out_header)
{
    scr_kvtree *h = NULL;
    int rc = new_header(dset, ranks, chunk, &h);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int(h, "FAILURES", k);
    if (rc != SCR_SUCCESS) goto out;
    rc = set_group(h, members, N, 1);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_file_set_rs_metas(h, m, N, k, metas, ctx);
out:
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(h);
        return rc;
    }
    *out_header = h;
    return SCR_SUCCESS;
}

int scr_redundancy_file_create(const char *path, const void *image, size_t image_len,
                               uint64_t data_len, int *out_fd)
{
    int fd;
    int rc = scr_open_regular(path, O_RDWR | O_CREAT | O_TRUNC, 0600, &fd);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_write_full(fd, image, image_len, path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_truncate_fd(fd, (uint64_t)image_len + data_len, path);
out:
    if (rc != SCR_SUCCESS) {
        close(fd);
        return rc;
    }
    *out_fd = fd;
    return SCR_SUCCESS;
}
