/* kvtree_pack.c — serialise trees to the packed-hash byte format and back. */
#include "kvtree_pack.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Smallest packed element: an empty key (its NUL) and an empty tree (count). */
#define MIN_ELEM_BYTES 5

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

size_t scr_kvtree_pack_size(const scr_kvtree *tree)
{
    size_t size = 4;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(tree); e; e = scr_kvtree_elem_next(e))
        size += strlen(scr_kvtree_elem_key(e)) + 1 + scr_kvtree_pack_size(scr_kvtree_elem_hash(e));
    return size;
}

/* An element's key with its NUL; 0 when buf is too small. */
static size_t pack_key(unsigned char *buf, size_t size, const char *key)
{
    size_t klen = strlen(key) + 1;
    if (size < klen) return 0;
    memcpy(buf, key, klen);
    return klen;
}

static size_t pack_level(unsigned char *buf, size_t size, const scr_kvtree *tree)
{
    if (size < 4) return 0;
    put_u32(buf, (uint32_t)scr_kvtree_size(tree));
    size_t off = 4;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(tree); e; e = scr_kvtree_elem_next(e)) {
        size_t k = pack_key(buf + off, size - off, scr_kvtree_elem_key(e));
        size_t v = k ? pack_level(buf + off + k, size - off - k, scr_kvtree_elem_hash(e)) : 0;
        if (v == 0) return 0;
        off += k + v;
    }
    return off;
}

size_t scr_kvtree_pack(void *buf, size_t size, const scr_kvtree *tree)
{
    if (buf == NULL) return 0;
    return pack_level(buf, size, tree);
}

/* --- canonical order --------------------------------------------------------- */

/* An element of a level packed in canonical order; the items of every level
 * on the way down share one stack (a string buffer of items), so packing
 * allocates a few times in all, not per level. */
struct canon_item {
    const scr_kvtree_elem *elem;
    size_t pos;
    struct scr_kvtree_sort_key k;
};

/* The items on the stack; malloc'ed bytes, aligned for any type. */
static struct canon_item *canon_items(const scr_strbuf *stack)
{
    return (struct canon_item *)(void *)stack->buf;
}

/* The order scr_kvtree_sort_int gives, ascending: integers first. */
static int canon_compare(const void *a, const void *b)
{
    const struct canon_item *x = a, *y = b;
    int c = scr_kvtree_sort_key_compare(&x->k, &y->k);
    if (c == 0) c = (x->pos < y->pos) ? -1 : (x->pos > y->pos);
    return c;
}

static size_t pack_canonical_level(unsigned char *buf, size_t size, const scr_kvtree *tree,
                                   scr_strbuf *stack, int *nomem);

/* One element, its value level in canonical order; 0 as for the level. */
static size_t pack_canonical_elem(unsigned char *buf, size_t size, const scr_kvtree_elem *e,
                                  scr_strbuf *stack, int *nomem)
{
    size_t k = pack_key(buf, size, scr_kvtree_elem_key(e));
    size_t v =
        k ? pack_canonical_level(buf + k, size - k, scr_kvtree_elem_hash(e), stack, nomem) : 0;
    return v ? k + v : 0;
}

/* Like pack_level with the elements of every level sorted; 0 when buf is
 * too small, with *nomem set when the stack could not grow (said). */
static size_t pack_canonical_level(unsigned char *buf, size_t size, const scr_kvtree *tree,
                                   scr_strbuf *stack, int *nomem)
{
    size_t n = (size_t)scr_kvtree_size(tree), off = 4;
    if (size < 4) return 0;
    put_u32(buf, (uint32_t)n);
    if (n < 2) { /* nothing to order: most levels hold one value */
        const scr_kvtree_elem *e = scr_kvtree_elem_first(tree);
        if (e == NULL) return off;
        size_t len = pack_canonical_elem(buf + off, size - off, e, stack, nomem);
        return len ? off + len : 0;
    }
    size_t held = stack->len, base = held / sizeof(struct canon_item);
    if (n > SIZE_MAX / sizeof(struct canon_item)) {
        scr_err("kvtree: out of memory ordering a level of %zu elements to pack it", n);
        *nomem = 1;
        return 0;
    }
    if (scr_strbuf_append_space(stack, n * sizeof(struct canon_item)) == NULL) { /* says so */
        *nomem = 1;
        return 0;
    }
    struct canon_item *items = canon_items(stack) + base;
    size_t i = 0;
    for (const scr_kvtree_elem *e = scr_kvtree_elem_first(tree); e;
         e = scr_kvtree_elem_next(e), i++) {
        items[i].elem = e;
        items[i].pos = i;
        scr_kvtree_sort_key_init(&items[i].k, scr_kvtree_elem_key(e));
    }
    qsort(items, n, sizeof(*items), canon_compare);
    for (i = 0; i < n; i++) {
        /* the stack may move while the levels below are packed: index it afresh */
        size_t len = pack_canonical_elem(buf + off, size - off, canon_items(stack)[base + i].elem,
                                         stack, nomem);
        if (len == 0) return 0;
        off += len;
    }
    scr_strbuf_truncate(stack, held);
    return off;
}

int scr_kvtree_pack_canonical(void *buf, size_t size, const scr_kvtree *tree, size_t *out_len)
{
    scr_strbuf stack = SCR_STRBUF_INIT;
    int nomem = 0;
    size_t n = buf ? pack_canonical_level(buf, size, tree, &stack, &nomem) : 0;
    scr_strbuf_free(&stack);
    if (nomem) return SCR_ERR_NOMEM; /* the stack said so */
    if (n == 0) return SCR_ERR_ARG;
    *out_len = n;
    return SCR_SUCCESS;
}

/* --- packing element by element ------------------------------------------------------ */

void scr_pack_count(scr_strbuf *b, uint32_t n)
{
    unsigned char *p = scr_strbuf_append_space(b, 4);
    if (p) put_u32(p, n);
}

void scr_pack_key(scr_strbuf *b, const char *key)
{
    size_t len = strlen(key) + 1;
    unsigned char *p = scr_strbuf_append_space(b, len);
    if (p) memcpy(p, key, len);
}

void scr_pack_value(scr_strbuf *b, const char *key, const char *value)
{
    scr_pack_key(b, key);
    scr_pack_count(b, 1);
    scr_pack_key(b, value);
    scr_pack_count(b, 0);
}

void scr_pack_tree(scr_strbuf *b, const scr_kvtree *tree)
{
    size_t size = scr_kvtree_pack_size(tree), used = 0;
    unsigned char *p = scr_strbuf_append_space(b, size);
    if (p && scr_kvtree_pack_canonical(p, size, tree, &used) != SCR_SUCCESS)
        b->failed = 1; /* already said: the ordering's scratch space */
}

struct reader {
    const unsigned char *buf;
    size_t len;
    size_t off;
    const char *origin;
};

static int damaged(const struct reader *r, const char *fault)
{
    scr_err("%s: damaged hash at byte %zu: %s", r->origin, r->off, fault);
    return SCR_ERR_FORMAT;
}

static int unpack_level(struct reader *r, scr_kvtree *tree, int depth)
{
    if (depth > SCR_KVTREE_MAX_DEPTH) return damaged(r, "nesting deeper than 64 levels");
    if (r->len - r->off < 4) return damaged(r, "element count cut off (truncated)");
    uint32_t count = get_u32(r->buf + r->off);
    size_t remaining = r->len - r->off - 4;
    if (count > remaining / MIN_ELEM_BYTES) {
        char fault[128];
        snprintf(fault, sizeof(fault), "count of %u elements exceeds the %zu bytes that remain",
                 count, remaining);
        return damaged(r, fault);
    }
    r->off += 4;
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *key = r->buf + r->off;
        const unsigned char *nul = memchr(key, '\0', r->len - r->off);
        if (nul == NULL) return damaged(r, "key without terminating NUL (truncated)");
        if (scr_kvtree_get(tree, (const char *)key) != NULL) {
            char fault[160];
            snprintf(fault, sizeof(fault), "key '%.64s' repeats within one level", key);
            return damaged(r, fault);
        }
        scr_kvtree *child = scr_kvtree_set(tree, (const char *)key, NULL);
        if (child == NULL) return SCR_ERR_NOMEM;
        r->off += (size_t)(nul - key) + 1;
        int rc = unpack_level(r, child, depth + 1);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_kvtree_unpack(const void *buf, size_t len, scr_kvtree *tree, size_t *out_used,
                      const char *origin)
{
    struct reader r = {buf, len, 0, origin ? origin : "packed hash"};
    if (tree == NULL || (buf == NULL && len > 0)) return SCR_ERR_ARG;
    /* unpack into a fresh tree so that damaged input leaves tree untouched */
    scr_kvtree *fresh = scr_kvtree_new();
    if (fresh == NULL) return SCR_ERR_NOMEM;
    int rc = unpack_level(&r, fresh, 1);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    rc = scr_kvtree_absorb(tree, fresh);
    if (rc == SCR_SUCCESS && out_used) *out_used = r.off;
    return rc;
}
