/* util_path.c — lexical path operations. */
#include "util_path.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

/* Normalised copy of a non-empty path, NULL when out of memory. The result
 * is never longer than path (plus the "." a path like "a/.." becomes), so one
 * allocation suffices and components are copied in place. */
static char *normalize(const char *path)
{
    size_t len = strlen(path);
    char *out = malloc(len + 2);
    if (out == NULL) return NULL;

    int absolute = path[0] == '/';
    size_t n = 0;
    if (absolute) out[n++] = '/';
    size_t base = n;  /* where components start */
    size_t fixed = n; /* end of the leading "../.." a relative path keeps */

    const char *p = path;
    while (*p != '\0') {
        while (*p == '/') p++;
        if (*p == '\0') break;
        const char *end = strchr(p, '/');
        size_t clen = end ? (size_t)(end - p) : strlen(p);

        if (clen == 1 && p[0] == '.') {
            /* "." names the directory we are in */
        } else if (clen == 2 && p[0] == '.' && p[1] == '.') {
            if (n > fixed) {
                /* drop the last component and the slash before it */
                size_t i = n;
                while (i > base && out[i - 1] != '/') i--;
                n = i > base ? i - 1 : base;
            } else if (!absolute) {
                if (n > base) out[n++] = '/';
                out[n++] = '.';
                out[n++] = '.';
                fixed = n;
            }
            /* absolute: ".." of "/" is "/" */
        } else {
            if (n > base) out[n++] = '/';
            memcpy(out + n, p, clen);
            n += clen;
        }
        p += clen;
    }
    if (n == base && !absolute) out[n++] = '.';
    out[n] = '\0';
    return out;
}

int scr_path_normalize(const char *path, char **out_path)
{
    if (path == NULL || out_path == NULL) {
        scr_err("path: normalise called without a path");
        return SCR_ERR_ARG;
    }
    if (path[0] == '\0') {
        scr_err("path: the empty string is not a path");
        return SCR_ERR_ARG;
    }
    char *out = normalize(path);
    if (out == NULL) {
        scr_err("path: out of memory normalising %s", path);
        return SCR_ERR_NOMEM;
    }
    *out_path = out;
    return SCR_SUCCESS;
}

int scr_path_join(const char *dir, const char *name, char **out_path)
{
    if (dir == NULL || name == NULL || out_path == NULL) {
        scr_err("path: join called without a directory or a name");
        return SCR_ERR_ARG;
    }
    if (dir[0] == '\0' && name[0] == '\0') {
        scr_err("path: cannot join two empty paths");
        return SCR_ERR_ARG;
    }
    size_t dlen = strlen(dir), nlen = strlen(name);
    char *joined = malloc(dlen + nlen + 2);
    if (joined == NULL) {
        scr_err("path: out of memory joining %s and %s", dir, name);
        return SCR_ERR_NOMEM;
    }
    memcpy(joined, dir, dlen);
    size_t n = dlen;
    /* an empty dir must not turn a relative name into an absolute one */
    if (dlen > 0 && nlen > 0) joined[n++] = '/';
    memcpy(joined + n, name, nlen);
    joined[n + nlen] = '\0';
    int rc = scr_path_normalize(joined, out_path);
    free(joined);
    return rc;
}

/* *io_a and *io_b (components after the root of normalized paths) each
 * moved past the leading components the two share. */
static void skip_shared_components(const char **io_a, const char **io_b)
{
    const char *a = *io_a, *b = *io_b;
    while (*a != '\0' && *b != '\0') {
        size_t alen = strcspn(a, "/"), blen = strcspn(b, "/");
        if (alen != blen || memcmp(a, b, alen) != 0) break;
        a += alen;
        b += blen;
        if (*a == '/') a++;
        if (*b == '/') b++;
    }
    *io_a = a;
    *io_b = b;
}

/* How many components the relative path rest has. */
static size_t count_components(const char *rest)
{
    size_t n = 0;
    for (const char *q = rest; *q != '\0';) {
        n++;
        q += strcspn(q, "/");
        if (*q == '/') q++;
    }
    return n;
}

/* A new string (the caller frees it; NULL when out of memory): ups ".."
 * components then down, "." when both are empty. */
static char *climb_then_descend(size_t ups, const char *down)
{
    size_t dlen = strlen(down);
    char *rel = malloc(ups * 3 + dlen + 2);
    if (rel == NULL) return NULL;
    size_t n = 0;
    for (size_t k = 0; k < ups; k++) {
        if (n > 0) rel[n++] = '/';
        rel[n++] = '.';
        rel[n++] = '.';
    }
    if (dlen > 0) {
        if (n > 0) rel[n++] = '/';
        memcpy(rel + n, down, dlen);
        n += dlen;
    }
    if (n == 0) rel[n++] = '.';
    rel[n] = '\0';
    return rel;
}

int scr_path_relative(const char *base, const char *path, char **out_rel)
{
    if (base == NULL || path == NULL || out_rel == NULL) {
        scr_err("path: relative called without a base or a path");
        return SCR_ERR_ARG;
    }
    if (base[0] != '/' || path[0] != '/') {
        scr_err("path: relative path from %s to %s needs two absolute paths", base, path);
        return SCR_ERR_ARG;
    }
    char *b = normalize(base);
    char *t = normalize(path);
    char *rel = NULL;
    if (b != NULL && t != NULL) {
        /* skip the components both share; climb out of the rest of base with
         * "..", then descend into the rest of path */
        const char *b_rest = b + 1, *t_rest = t + 1;
        skip_shared_components(&b_rest, &t_rest);
        rel = climb_then_descend(count_components(b_rest), t_rest);
    }
    free(b);
    free(t);
    if (rel == NULL) {
        scr_err("path: out of memory finding %s relative to %s", path, base);
        return SCR_ERR_NOMEM;
    }
    *out_rel = rel;
    return SCR_SUCCESS;
}

int scr_path_dirname(const char *path, char **out_dir)
{
    char *norm;
    if (out_dir == NULL) {
        scr_err("path: dirname called without a result");
        return SCR_ERR_ARG;
    }
    int rc = scr_path_normalize(path, &norm);
    if (rc != SCR_SUCCESS) return rc;
    char *slash = strrchr(norm, '/');
    if (slash == NULL) {
        norm[0] = '.';
        norm[1] = '\0';
    } else if (slash == norm) {
        norm[1] = '\0';
    } else {
        *slash = '\0';
    }
    *out_dir = norm;
    return SCR_SUCCESS;
}

int scr_path_basename(const char *path, char **out_name)
{
    char *norm;
    if (out_name == NULL) {
        scr_err("path: basename called without a result");
        return SCR_ERR_ARG;
    }
    int rc = scr_path_normalize(path, &norm);
    if (rc != SCR_SUCCESS) return rc;
    char *slash = strrchr(norm, '/');
    if (slash != NULL && slash[1] != '\0') memmove(norm, slash + 1, strlen(slash + 1) + 1);
    *out_name = norm;
    return SCR_SUCCESS;
}

/* Does a normalised relative path begin with ".."? Normalising leaves ".."
 * only at the front, so this is the one way such a path leaves its base. */
static int climbs_out(const char *rel)
{
    return rel[0] == '.' && rel[1] == '.' && (rel[2] == '/' || rel[2] == '\0');
}

int scr_path_is_inside(const char *prefix, const char *path, int *out_inside)
{
    if (prefix == NULL || path == NULL || out_inside == NULL) {
        scr_err("path: is_inside called without a prefix or a path");
        return SCR_ERR_ARG;
    }
    if (prefix[0] == '\0' || path[0] == '\0') {
        scr_err("path: the empty string is not a path (prefix '%s', path '%s')", prefix, path);
        return SCR_ERR_ARG;
    }
    if ((prefix[0] == '/') != (path[0] == '/')) {
        scr_err("path: cannot tell whether %s is inside %s: one is absolute, the other relative",
                path, prefix);
        return SCR_ERR_ARG;
    }
    char *p = normalize(prefix);
    char *t = normalize(path);
    if (p == NULL || t == NULL) {
        free(p);
        free(t);
        scr_err("path: out of memory comparing %s with %s", path, prefix);
        return SCR_ERR_NOMEM;
    }
    int inside;
    if (strcmp(p, "/") == 0) {
        inside = 1;
    } else if (strcmp(p, ".") == 0) {
        inside = !climbs_out(t);
    } else {
        size_t plen = strlen(p);
        inside = strncmp(p, t, plen) == 0 &&
                 (t[plen] == '\0' || (t[plen] == '/' && !climbs_out(t + plen + 1)));
    }
    free(p);
    free(t);
    *out_inside = inside;
    return SCR_SUCCESS;
}
