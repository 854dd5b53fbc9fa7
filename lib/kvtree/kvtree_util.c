/* kvtree_util.c — typed single values over kvtree. */
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_parse.h"

#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int scr_kvtree_util_set_str(scr_kvtree *tree, const char *key, const char *value)
{
    if (tree == NULL || key == NULL || value == NULL) return SCR_ERR_ARG;
    scr_kvtree *v = scr_kvtree_set(tree, key, NULL); /* replaces the old value */
    if (v == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_set(v, value, NULL) ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

static int set_formatted(scr_kvtree *tree, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int set_formatted(scr_kvtree *tree, const char *key, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(buf)) return SCR_ERR_ARG;
    return scr_kvtree_util_set_str(tree, key, buf);
}

int scr_kvtree_util_set_int(scr_kvtree *tree, const char *key, int value)
{
    return set_formatted(tree, key, "%d", value);
}

int scr_kvtree_util_set_int64(scr_kvtree *tree, const char *key, int64_t value)
{
    return set_formatted(tree, key, "%" PRId64, value);
}

int scr_kvtree_util_set_uint64(scr_kvtree *tree, const char *key, uint64_t value)
{
    return set_formatted(tree, key, "%" PRIu64, value);
}

int scr_kvtree_util_set_double(scr_kvtree *tree, const char *key, double value)
{
    if (!isfinite(value)) return SCR_ERR_ARG;
    return set_formatted(tree, key, "%f", value);
}

int scr_kvtree_util_set_crc32(scr_kvtree *tree, const char *key, uint32_t value)
{
    return set_formatted(tree, key, "0x%x", value);
}

int scr_kvtree_util_get_str(const scr_kvtree *tree, const char *key, const char **out)
{
    scr_kvtree *v = scr_kvtree_get(tree, key);
    if (v == NULL) return SCR_ERR_NOTFOUND;
    if (scr_kvtree_size(v) != 1) return SCR_ERR_TYPE;
    scr_kvtree_elem *e = scr_kvtree_elem_first(v);
    if (scr_kvtree_size(scr_kvtree_elem_hash(e)) != 0) return SCR_ERR_TYPE;
    *out = scr_kvtree_elem_key(e);
    return SCR_SUCCESS;
}

int scr_kvtree_util_get_int(const scr_kvtree *tree, const char *key, int *out)
{
    int64_t v;
    int rc = scr_kvtree_util_get_int64(tree, key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < INT_MIN || v > INT_MAX) return SCR_ERR_TYPE;
    *out = (int)v;
    return SCR_SUCCESS;
}

int scr_kvtree_util_get_int64(const scr_kvtree *tree, const char *key, int64_t *out)
{
    const char *s;
    int rc = scr_kvtree_util_get_str(tree, key, &s);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_int64(s, out);
}

int scr_kvtree_util_get_uint64(const scr_kvtree *tree, const char *key, uint64_t *out)
{
    const char *s;
    int rc = scr_kvtree_util_get_str(tree, key, &s);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_uint64(s, out);
}

int scr_kvtree_util_get_double(const scr_kvtree *tree, const char *key, double *out)
{
    const char *s;
    int rc = scr_kvtree_util_get_str(tree, key, &s);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_double(s, out);
}

int scr_kvtree_util_get_crc32(const scr_kvtree *tree, const char *key, uint32_t *out)
{
    const char *s;
    int rc = scr_kvtree_util_get_str(tree, key, &s);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_crc32(s, out);
}
