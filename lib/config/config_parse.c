/* config_parse.c — lexing SCR configuration lines into KEY=VALUE pairs. */
#include "config_parse.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_FILE_MAX (1u << 20)

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
static int is_key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}
static int is_name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}
static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Where the lexer is: the rest of the current line, for messages. */
struct lexer {
    const char *p, *end; /* the line, without its newline */
    const char *source;
    int line;
};

/* "<source>:<line>", or "<source>" for a value that has no line. */
static void where_of(char *buf, size_t len, const char *source, int line)
{
    if (line > 0)
        snprintf(buf, len, "%s:%d", source, line);
    else
        snprintf(buf, len, "%s", source);
}

/* The name of the ${NAME} that starts at v[i] of the raw value [v, v+n):
 * [*out_start, *out_start + *out_len), the value going on at *out_next;
 * SCR_ERR_FORMAT, said (where names the value), when it is unterminated or
 * not a variable name. */
static int braced_name(const char *where, const char *v, size_t n, size_t i, size_t *out_start,
                       size_t *out_len, size_t *out_next)
{
    size_t name_start = i + 2, j = name_start;
    while (j < n && v[j] != '}') j++;
    if (j == n) {
        scr_err("%s: unterminated '${' in value '%.*s'", where, (int)n, v);
        return SCR_ERR_FORMAT;
    }
    size_t name_len = j - name_start;
    int ok = name_len > 0 && is_name_start(v[name_start]);
    for (size_t k = name_start; ok && k < j; k++) ok = is_name_char(v[k]);
    if (!ok) {
        scr_err("%s: '${%.*s}' is not a variable name", where, (int)name_len, v + name_start);
        return SCR_ERR_FORMAT;
    }
    *out_start = name_start;
    *out_len = name_len;
    *out_next = j + 1;
    return SCR_SUCCESS;
}

/* The value of the environment variable named [name, name+len) appended to
 * out; one not set expands to nothing, with a warning (where names the
 * value), and one too long fails with SCR_ERR_FORMAT. */
static int append_variable(const char *where, const char *name, size_t len, scr_strbuf *out)
{
    char buf[256];
    if (len >= sizeof(buf)) {
        scr_err("%s: variable name '%.*s' is too long", where, (int)len, name);
        return SCR_ERR_FORMAT;
    }
    memcpy(buf, name, len);
    buf[len] = '\0';
    const char *val = getenv(buf);
    if (val == NULL) {
        scr_warn("%s: environment variable %s is not set; it expands to nothing", where, buf);
        val = "";
    }
    return scr_strbuf_append_str(out, val);
}

/* Expand $NAME and ${NAME} in the raw value [v, v+n) into out; where names
 * the value in messages. */
static int expand_value(const char *where, const char *v, size_t n, scr_strbuf *out)
{
    size_t i = 0;
    while (i < n) {
        if (v[i] != '$') {
            size_t j = i;
            while (j < n && v[j] != '$') j++;
            int rc = scr_strbuf_append(out, v + i, j - i);
            if (rc != SCR_SUCCESS) return rc;
            i = j;
            continue;
        }
        size_t name_start, name_len, next;
        if (i + 1 < n && v[i + 1] == '{') {
            int rc = braced_name(where, v, n, i, &name_start, &name_len, &next);
            if (rc != SCR_SUCCESS) return rc;
        } else if (i + 1 < n && is_name_start(v[i + 1])) {
            name_start = i + 1;
            size_t j = name_start;
            while (j < n && is_name_char(v[j])) j++;
            name_len = j - name_start;
            next = j;
        } else {
            /* a lone '$' (e.g. at the end) is literal */
            int rc = scr_strbuf_append(out, "$", 1);
            if (rc != SCR_SUCCESS) return rc;
            i++;
            continue;
        }
        int rc = append_variable(where, v + name_start, name_len, out);
        if (rc != SCR_SUCCESS) return rc;
        i = next;
    }
    return SCR_SUCCESS;
}

int scr_config_expand(const char *value, const char *source, int line, char **out_value)
{
    if (value == NULL || source == NULL || out_value == NULL) {
        scr_err("configuration: expansion called without a value, source or result");
        return SCR_ERR_ARG;
    }
    char where[4200];
    where_of(where, sizeof(where), source, line);
    scr_strbuf val = SCR_STRBUF_INIT;
    int rc = expand_value(where, value, strlen(value), &val);
    if (rc != SCR_SUCCESS) {
        scr_strbuf_free(&val);
        return rc;
    }
    return scr_strbuf_detach(&val, out_value, NULL);
}

static void free_pairs(struct scr_config_pair *pairs, int n)
{
    for (int i = 0; i < n; i++) {
        free(pairs[i].key);
        free(pairs[i].value);
    }
    free(pairs);
}

/* Read one KEY=VALUE at lx->p (blanks already skipped) into *pair. */
static int lex_pair(struct lexer *lx, struct scr_config_pair *pair)
{
    const char *k = lx->p;
    while (lx->p < lx->end && is_key_char(*lx->p)) lx->p++;
    size_t klen = (size_t)(lx->p - k);
    if (klen == 0) {
        if (*lx->p == '=')
            scr_err("%s:%d: '=' without a key before it", lx->source, lx->line);
        else
            scr_err("%s:%d: '%c' cannot start a key (keys are letters, digits, '_', '.', '-')",
                    lx->source, lx->line, *lx->p);
        return SCR_ERR_FORMAT;
    }
    while (lx->p < lx->end && is_blank(*lx->p)) lx->p++;
    if (lx->p == lx->end || *lx->p != '=') {
        if (lx->p < lx->end && !is_blank(*lx->p) && *lx->p != '#' && lx->p == k + klen)
            scr_err("%s:%d: '%c' is not allowed in key '%.*s'", lx->source, lx->line, *lx->p,
                    (int)klen, k);
        else
            scr_err("%s:%d: key '%.*s' has no '=VALUE'", lx->source, lx->line, (int)klen, k);
        return SCR_ERR_FORMAT;
    }
    lx->p++; /* '=' */
    while (lx->p < lx->end && is_blank(*lx->p)) lx->p++;
    const char *v = lx->p;
    while (lx->p < lx->end && !is_blank(*lx->p)) lx->p++;
    size_t vlen = (size_t)(lx->p - v);
    if (vlen == 0 || *v == '#') {
        scr_err("%s:%d: key '%.*s' has an empty value", lx->source, lx->line, (int)klen, k);
        return SCR_ERR_FORMAT;
    }

    pair->key = strndup(k, klen);
    if (pair->key == NULL) {
        scr_err("out of memory reading configuration");
        return SCR_ERR_NOMEM;
    }
    for (char *c = pair->key; *c; c++) *c = (char)toupper((unsigned char)*c);
    scr_strbuf val = SCR_STRBUF_INIT;
    char where[4200];
    where_of(where, sizeof(where), lx->source, lx->line);
    int rc = expand_value(where, v, vlen, &val);
    if (rc == SCR_SUCCESS) rc = scr_strbuf_detach(&val, &pair->value, NULL);
    if (rc != SCR_SUCCESS) {
        scr_strbuf_free(&val);
        free(pair->key);
        pair->key = NULL;
    }
    return rc;
}

/* Lex the line [p, end) and hand its pairs to fn. */
static int parse_line(struct lexer *lx, scr_config_line_fn fn, void *ctx)
{
    struct scr_config_pair *pairs = NULL;
    int n = 0, cap = 0, rc = SCR_SUCCESS;
    for (;;) {
        while (lx->p < lx->end && is_blank(*lx->p)) lx->p++;
        if (lx->p == lx->end || *lx->p == '#') break;
        if (n == cap) {
            int ncap = cap ? 2 * cap : 4;
            struct scr_config_pair *np = realloc(pairs, (size_t)ncap * sizeof(*np));
            if (np == NULL) {
                scr_err("out of memory reading configuration");
                rc = SCR_ERR_NOMEM;
                break;
            }
            pairs = np;
            cap = ncap;
        }
        pairs[n].key = pairs[n].value = NULL;
        rc = lex_pair(lx, &pairs[n]);
        if (rc != SCR_SUCCESS) break;
        n++;
    }
    if (rc == SCR_SUCCESS && n > 0) rc = fn(ctx, lx->source, lx->line, pairs, n);
    free_pairs(pairs, n);
    return rc;
}

int scr_config_parse_text(const char *text, size_t len, const char *source, scr_config_line_fn fn,
                          void *ctx)
{
    if ((text == NULL && len > 0) || source == NULL || fn == NULL) {
        scr_err("configuration parse called without text, source or callback");
        return SCR_ERR_ARG;
    }
    struct lexer lx = {.source = source, .line = 0};
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        lx.line++;
        if (memchr(p, '\0', (size_t)(eol - p)) != NULL) {
            scr_err("%s:%d: NUL byte in a configuration line (binary file?)", source, lx.line);
            return SCR_ERR_FORMAT;
        }
        lx.p = p;
        lx.end = eol;
        int rc = parse_line(&lx, fn, ctx);
        if (rc != SCR_SUCCESS) return rc;
        p = nl ? nl + 1 : end;
    }
    return SCR_SUCCESS;
}

int scr_config_pair_is_writable(const char *key, const char *value)
{
    if (key == NULL || value == NULL || key[0] == '\0' || value[0] == '\0' || value[0] == '#')
        return 0;
    for (const char *c = key; *c; c++)
        if (!is_key_char(*c) || toupper((unsigned char)*c) != *c) return 0;
    for (const char *c = value; *c; c++) {
        if (is_blank(*c) || *c == '\n') return 0;
        if (*c == '$' && (c[1] == '{' || is_name_start(c[1]))) return 0;
    }
    return 1;
}

int scr_config_parse_file(const char *path, scr_config_line_fn fn, void *ctx)
{
    void *buf = NULL;
    size_t len = 0;
    int rc = scr_read_file_following(path, CONFIG_FILE_MAX, &buf, &len);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_config_parse_text(buf, len, path, fn, ctx);
    free(buf);
    return rc;
}
