/* kvtree.c — tree of string keys: storage, lookup, iteration, merge, sort.
 *
 * Each level keeps its elements on a doubly linked list in insertion order
 * (the order pack and print use). Small levels are searched linearly; once a
 * level holds INDEX_MIN keys it also gets a chained hash index, so that large
 * levels (thousands of ranks or files) keep O(1) lookups. */
#include "kvtree.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_MIN 16

struct scr_kvtree_elem {
    scr_kvtree_elem *prev, *next; /* insertion-order list */
    scr_kvtree_elem *chain;       /* next element in the same hash bucket */
    scr_kvtree *hash;             /* value, never NULL */
    uint32_t hashval;
    char key[]; /* NUL-terminated, allocated with the element */
};

struct scr_kvtree {
    scr_kvtree_elem *head, *tail;
    int count;
    scr_kvtree_elem **buckets; /* NULL until the level reaches INDEX_MIN keys */
    uint32_t nbuckets;         /* power of two */
};

static uint32_t key_hash(const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 16777619u;
    }
    return h;
}

scr_kvtree *scr_kvtree_new(void)
{
    scr_kvtree *t = calloc(1, sizeof(*t));
    if (t == NULL) scr_err("kvtree: out of memory allocating a tree");
    return t;
}

static void elem_free(scr_kvtree_elem *e)
{
    scr_kvtree_delete(e->hash);
    free(e);
}

void scr_kvtree_unset_all(scr_kvtree *tree)
{
    if (tree == NULL) return;
    scr_kvtree_elem *e = tree->head;
    while (e != NULL) {
        scr_kvtree_elem *next = e->next;
        elem_free(e);
        e = next;
    }
    free(tree->buckets);
    tree->buckets = NULL;
    tree->nbuckets = 0;
    tree->head = tree->tail = NULL;
    tree->count = 0;
}

void scr_kvtree_delete(scr_kvtree *tree)
{
    if (tree == NULL) return;
    scr_kvtree_unset_all(tree);
    free(tree);
}

int scr_kvtree_size(const scr_kvtree *tree)
{
    return tree ? tree->count : 0;
}

/* (Re)build the bucket array with nbuckets slots; on allocation failure the
 * level simply stays without (or with its old) index: lookups remain correct. */
static void index_rebuild(scr_kvtree *tree, uint32_t nbuckets)
{
    scr_kvtree_elem **b = calloc(nbuckets, sizeof(*b));
    if (b == NULL) return;
    for (scr_kvtree_elem *e = tree->head; e != NULL; e = e->next) {
        uint32_t slot = e->hashval & (nbuckets - 1);
        e->chain = b[slot];
        b[slot] = e;
    }
    free(tree->buckets);
    tree->buckets = b;
    tree->nbuckets = nbuckets;
}

static scr_kvtree_elem *find(const scr_kvtree *tree, const char *key, uint32_t h)
{
    if (tree->buckets != NULL) {
        for (scr_kvtree_elem *e = tree->buckets[h & (tree->nbuckets - 1)]; e; e = e->chain)
            if (e->hashval == h && strcmp(e->key, key) == 0) return e;
        return NULL;
    }
    for (scr_kvtree_elem *e = tree->head; e != NULL; e = e->next)
        if (e->hashval == h && strcmp(e->key, key) == 0) return e;
    return NULL;
}

scr_kvtree_elem *scr_kvtree_elem_get(const scr_kvtree *tree, const char *key)
{
    if (tree == NULL || key == NULL) return NULL;
    return find(tree, key, key_hash(key));
}

scr_kvtree *scr_kvtree_get(const scr_kvtree *tree, const char *key)
{
    scr_kvtree_elem *e = scr_kvtree_elem_get(tree, key);
    return e ? e->hash : NULL;
}

/* Append a new element (key must not exist yet). Takes ownership of value. */
static scr_kvtree_elem *append(scr_kvtree *tree, const char *key, uint32_t h, scr_kvtree *value)
{
    size_t len = strlen(key);
    scr_kvtree_elem *e = malloc(sizeof(*e) + len + 1);
    if (e == NULL) {
        scr_err("kvtree: out of memory adding key '%.64s'", key);
        scr_kvtree_delete(value);
        return NULL;
    }
    memcpy(e->key, key, len + 1);
    e->hashval = h;
    e->hash = value;
    e->next = NULL;
    e->prev = tree->tail;
    if (tree->tail)
        tree->tail->next = e;
    else
        tree->head = e;
    tree->tail = e;
    tree->count++;

    if (tree->buckets != NULL) {
        uint32_t slot = h & (tree->nbuckets - 1);
        e->chain = tree->buckets[slot];
        tree->buckets[slot] = e;
        if ((uint32_t)tree->count > tree->nbuckets) index_rebuild(tree, tree->nbuckets * 2);
    } else if (tree->count >= INDEX_MIN) {
        index_rebuild(tree, 2 * INDEX_MIN);
    }
    return e;
}

scr_kvtree *scr_kvtree_set(scr_kvtree *tree, const char *key, scr_kvtree *value)
{
    if (tree == NULL || key == NULL) {
        scr_kvtree_delete(value);
        return NULL;
    }
    if (value == NULL && (value = scr_kvtree_new()) == NULL) return NULL;
    uint32_t h = key_hash(key);
    scr_kvtree_elem *e = find(tree, key, h);
    if (e != NULL) {
        if (e->hash != value) scr_kvtree_delete(e->hash);
        e->hash = value;
        return value;
    }
    e = append(tree, key, h, value);
    return e ? e->hash : NULL;
}

void scr_kvtree_unset(scr_kvtree *tree, const char *key)
{
    if (tree == NULL || key == NULL) return;
    uint32_t h = key_hash(key);
    scr_kvtree_elem *e = find(tree, key, h);
    if (e == NULL) return;
    if (tree->buckets != NULL) {
        scr_kvtree_elem **pp = &tree->buckets[h & (tree->nbuckets - 1)];
        while (*pp != e) pp = &(*pp)->chain;
        *pp = e->chain;
    }
    if (e->prev)
        e->prev->next = e->next;
    else
        tree->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        tree->tail = e->prev;
    tree->count--;
    elem_free(e);
}

scr_kvtree_elem *scr_kvtree_elem_first(const scr_kvtree *tree)
{
    return tree ? tree->head : NULL;
}

scr_kvtree_elem *scr_kvtree_elem_next(const scr_kvtree_elem *elem)
{
    return elem ? elem->next : NULL;
}

const char *scr_kvtree_elem_key(const scr_kvtree_elem *elem)
{
    return elem ? elem->key : NULL;
}

scr_kvtree *scr_kvtree_elem_hash(const scr_kvtree_elem *elem)
{
    return elem ? elem->hash : NULL;
}

const char *scr_kvtree_first_key(const scr_kvtree *tree)
{
    return (tree && tree->head) ? tree->head->key : NULL;
}

/* --- key/value pairs ------------------------------------------------------- */

scr_kvtree *scr_kvtree_get_kv(const scr_kvtree *tree, const char *key, const char *value)
{
    return scr_kvtree_get(scr_kvtree_get(tree, key), value);
}

scr_kvtree *scr_kvtree_get_kv_int(const scr_kvtree *tree, const char *key, long long value)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", value);
    return scr_kvtree_get_kv(tree, key, buf);
}

/* The subtree under key, created empty if missing. */
static scr_kvtree *get_or_create(scr_kvtree *tree, const char *key)
{
    scr_kvtree *t = scr_kvtree_get(tree, key);
    return t ? t : scr_kvtree_set(tree, key, NULL);
}

scr_kvtree *scr_kvtree_set_kv(scr_kvtree *tree, const char *key, const char *value)
{
    if (tree == NULL || key == NULL || value == NULL) return NULL;
    scr_kvtree *k = get_or_create(tree, key);
    return k ? get_or_create(k, value) : NULL;
}

scr_kvtree *scr_kvtree_set_kv_int(scr_kvtree *tree, const char *key, long long value)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", value);
    return scr_kvtree_set_kv(tree, key, buf);
}

void scr_kvtree_unset_kv(scr_kvtree *tree, const char *key, const char *value)
{
    scr_kvtree *k = scr_kvtree_get(tree, key);
    if (k == NULL) return;
    scr_kvtree_unset(k, value);
    if (scr_kvtree_size(k) == 0) scr_kvtree_unset(tree, key);
}

void scr_kvtree_unset_kv_int(scr_kvtree *tree, const char *key, long long value)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", value);
    scr_kvtree_unset_kv(tree, key, buf);
}

/* --- getf / setf ----------------------------------------------------------- */

/* The one conversion of spec in *out_pct (NULL when spec is a literal, %%
 * aside); SCR_ERR_ARG when spec has two. */
static int find_conversion(const char *spec, const char **out_pct)
{
    const char *pct = NULL;
    for (const char *p = spec; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        if (pct != NULL) return SCR_ERR_ARG; /* two conversions in one key */
        pct = p;
    }
    *out_pct = pct;
    return SCR_SUCCESS;
}

/* Print spec into key with its one argument taken from ap as the conversion
 * c with longs 'l' modifiers says; *out_n is what snprintf returned.
 * SCR_ERR_ARG for a conversion or modifier not supported. */
static int print_conversion(char *key, size_t keylen, const char *spec, char c, int longs,
                            va_list *ap, int *out_n)
{
    switch (c) {
    case 's':
        if (longs) return SCR_ERR_ARG;
        *out_n = snprintf(key, keylen, spec, va_arg(*ap, const char *));
        return SCR_SUCCESS;
    case 'd':
    case 'i':
        if (longs == 0)
            *out_n = snprintf(key, keylen, spec, va_arg(*ap, int));
        else if (longs == 1)
            *out_n = snprintf(key, keylen, spec, va_arg(*ap, long));
        else if (longs == 2)
            *out_n = snprintf(key, keylen, spec, va_arg(*ap, long long));
        else
            return SCR_ERR_ARG;
        return SCR_SUCCESS;
    case 'u':
    case 'x':
        if (longs == 0)
            *out_n = snprintf(key, keylen, spec, va_arg(*ap, unsigned int));
        else if (longs == 1)
            *out_n = snprintf(key, keylen, spec, va_arg(*ap, unsigned long));
        else if (longs == 2)
            *out_n = snprintf(key, keylen, spec, va_arg(*ap, unsigned long long));
        else
            return SCR_ERR_ARG;
        return SCR_SUCCESS;
    case 'f':
        if (longs > 1) return SCR_ERR_ARG;
        *out_n = snprintf(key, keylen, spec, va_arg(*ap, double));
        return SCR_SUCCESS;
    default: return SCR_ERR_ARG;
    }
}

/* Format one space-separated token of fmt (at most one conversion) into key,
 * consuming its argument from ap. SCR_ERR_ARG for an unsupported token or
 * a key too long. */
static int format_token(char *key, size_t keylen, const char *tok, size_t toklen, va_list *ap)
{
    char spec[64];
    if (toklen >= sizeof(spec)) return SCR_ERR_ARG;
    memcpy(spec, tok, toklen);
    spec[toklen] = '\0';

    const char *pct = NULL;
    if (find_conversion(spec, &pct) != SCR_SUCCESS) return SCR_ERR_ARG;
    if (pct == NULL) { /* literal key (with %% unescaped by snprintf) */
        snprintf(key, keylen, spec, 0);
        return SCR_SUCCESS;
    }
    const char *c = pct + 1;
    int longs = 0;
    while (*c == 'l') {
        longs++;
        c++;
    }
    int n;
    if (print_conversion(key, keylen, spec, *c, longs, ap, &n) != SCR_SUCCESS) return SCR_ERR_ARG;
    if (c[1] != '\0' && strchr(c + 1, '%') != NULL) return SCR_ERR_ARG;
    return (n < 0 || (size_t)n >= keylen) ? SCR_ERR_ARG : SCR_SUCCESS;
}

/* Walk fmt; for every key but the last call step(level), for the last call
 * last(level). Both return the next level (NULL stops the walk). */
static scr_kvtree *walk_format(scr_kvtree *tree, scr_kvtree *value, int create, const char *fmt,
                               va_list *ap)
{
    char key[4096];
    const char *p = fmt;
    scr_kvtree *level = tree;
    if (fmt == NULL || *fmt == '\0') {
        scr_kvtree_delete(value);
        return NULL;
    }
    while (*p) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || format_token(key, sizeof(key), p, len, ap) != SCR_SUCCESS) {
            scr_err("kvtree: unsupported key format '%s'", fmt);
            scr_kvtree_delete(value);
            return NULL;
        }
        int is_last = (end == NULL);
        if (!create) {
            level = scr_kvtree_get(level, key);
        } else if (is_last) {
            return scr_kvtree_set(level, key, value);
        } else {
            level = get_or_create(level, key);
        }
        if (level == NULL) {
            scr_kvtree_delete(value);
            return NULL;
        }
        if (is_last) break;
        p = end + 1;
    }
    return level;
}

scr_kvtree *scr_kvtree_getf(const scr_kvtree *tree, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    scr_kvtree *t = walk_format((scr_kvtree *)tree, NULL, 0, fmt, &ap);
    va_end(ap);
    return t;
}

scr_kvtree *scr_kvtree_setf(scr_kvtree *tree, scr_kvtree *value, const char *fmt, ...)
{
    if (tree == NULL) {
        scr_kvtree_delete(value);
        return NULL;
    }
    va_list ap;
    va_start(ap, fmt);
    scr_kvtree *t = walk_format(tree, value, 1, fmt, &ap);
    va_end(ap);
    return t;
}

/* --- whole trees ----------------------------------------------------------- */

int scr_kvtree_merge(scr_kvtree *dst, const scr_kvtree *src)
{
    if (dst == NULL) return src ? SCR_ERR_ARG : SCR_SUCCESS;
    if (dst == src) return SCR_SUCCESS;
    for (scr_kvtree_elem *e = src ? src->head : NULL; e != NULL; e = e->next) {
        scr_kvtree *d = get_or_create(dst, e->key);
        if (d == NULL) return SCR_ERR_NOMEM;
        int rc = scr_kvtree_merge(d, e->hash);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_kvtree_absorb(scr_kvtree *dst, scr_kvtree *src)
{
    if (src == NULL || dst == src) return SCR_SUCCESS;
    if (dst == NULL) {
        scr_kvtree_delete(src);
        return SCR_ERR_ARG;
    }
    if (dst->count == 0) { /* take over src's elements and index wholesale */
        free(dst->buckets);
        *dst = *src;
        free(src);
        return SCR_SUCCESS;
    }
    int rc = SCR_SUCCESS;
    scr_kvtree_elem *e = src->head;
    while (e != NULL && rc == SCR_SUCCESS) {
        scr_kvtree_elem *next = e->next;
        scr_kvtree_elem *d = find(dst, e->key, e->hashval);
        if (d != NULL) {
            rc = scr_kvtree_absorb(d->hash, e->hash);
        } else if (append(dst, e->key, e->hashval, e->hash) == NULL) {
            rc = SCR_ERR_NOMEM; /* append freed the subtree */
        }
        free(e); /* its subtree now belongs to dst (or was freed) */
        e = next;
    }
    while (e != NULL) { /* after a failure, free what was not moved */
        scr_kvtree_elem *next = e->next;
        elem_free(e);
        e = next;
    }
    free(src->buckets);
    free(src);
    return rc;
}

int scr_kvtree_copy(scr_kvtree *dst, const scr_kvtree *src)
{
    return scr_kvtree_merge(dst, src);
}

scr_kvtree *scr_kvtree_dup(const scr_kvtree *src)
{
    scr_kvtree *t = scr_kvtree_new();
    if (t != NULL && scr_kvtree_merge(t, src) != SCR_SUCCESS) {
        scr_kvtree_delete(t);
        return NULL;
    }
    return t;
}

struct sort_item {
    scr_kvtree_elem *elem;
    size_t pos;
    struct scr_kvtree_sort_key k;
};

/* qsort has no context argument in C99; one per thread, since the library
 * sorts in its background threads too */
static __thread int sort_order;

static int compare_str(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    int c = strcmp(x->elem->key, y->elem->key);
    if (sort_order == SCR_KVTREE_SORT_DESCENDING) c = -c;
    if (c == 0) c = (x->pos < y->pos) ? -1 : (x->pos > y->pos);
    return c;
}

static int compare_int(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    int c = scr_kvtree_sort_key_compare(&x->k, &y->k);
    /* integers come first in either order */
    if (sort_order == SCR_KVTREE_SORT_DESCENDING && x->k.is_int == y->k.is_int) c = -c;
    if (c == 0) c = (x->pos < y->pos) ? -1 : (x->pos > y->pos);
    return c;
}

static int key_as_int(const char *s, long long *out)
{
    char *end;
    if (*s == '\0') return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno != 0) return 0;
    *out = v;
    return 1;
}

void scr_kvtree_sort_key_init(struct scr_kvtree_sort_key *k, const char *key)
{
    k->key = key;
    k->value = 0;
    k->is_int = key_as_int(key, &k->value);
}

int scr_kvtree_sort_key_compare(const struct scr_kvtree_sort_key *a,
                                const struct scr_kvtree_sort_key *b)
{
    if (a->is_int && b->is_int) return (a->value < b->value) ? -1 : (a->value > b->value);
    if (a->is_int != b->is_int) return a->is_int ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int sort_level(scr_kvtree *tree, int order, int (*cmp)(const void *, const void *))
{
    if (tree == NULL || tree->count < 2) return SCR_SUCCESS;
    struct sort_item *items = malloc((size_t)tree->count * sizeof(*items));
    if (items == NULL) {
        scr_err("kvtree: out of memory sorting %d keys", tree->count);
        return SCR_ERR_NOMEM;
    }
    size_t n = 0;
    for (scr_kvtree_elem *e = tree->head; e != NULL; e = e->next, n++) {
        items[n].elem = e;
        items[n].pos = n;
        scr_kvtree_sort_key_init(&items[n].k, e->key);
    }
    sort_order = order;
    qsort(items, n, sizeof(*items), cmp);
    for (size_t i = 0; i < n; i++) {
        items[i].elem->prev = i ? items[i - 1].elem : NULL;
        items[i].elem->next = (i + 1 < n) ? items[i + 1].elem : NULL;
    }
    tree->head = items[0].elem;
    tree->tail = items[n - 1].elem;
    free(items);
    return SCR_SUCCESS;
}

int scr_kvtree_sort(scr_kvtree *tree, int order)
{
    return sort_level(tree, order, compare_str);
}

int scr_kvtree_sort_int(scr_kvtree *tree, int order)
{
    return sort_level(tree, order, compare_int);
}

int scr_kvtree_equal(const scr_kvtree *a, const scr_kvtree *b)
{
    if (scr_kvtree_size(a) != scr_kvtree_size(b)) return 0;
    for (scr_kvtree_elem *e = a ? a->head : NULL; e != NULL; e = e->next) {
        scr_kvtree_elem *f = scr_kvtree_elem_get(b, e->key);
        if (f == NULL || !scr_kvtree_equal(e->hash, f->hash)) return 0;
    }
    return 1;
}

static int fprint_level(FILE *out, const scr_kvtree *tree, int indent, int depth)
{
    for (scr_kvtree_elem *e = tree ? tree->head : NULL; e != NULL; e = e->next) {
        if (fprintf(out, "%*s%s\n", indent * depth, "", e->key) < 0) return SCR_ERR_IO;
        int rc = fprint_level(out, e->hash, indent, depth + 1);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_kvtree_fprint(FILE *out, const scr_kvtree *tree, int indent)
{
    if (indent < 0) indent = 0;
    return fprint_level(out, tree, indent, 0);
}

void scr_kvtree_print(const scr_kvtree *tree, int indent)
{
    (void)scr_kvtree_fprint(stdout, tree, indent);
}
