/* meta.c — typed fields of a file's meta record. */
#include "meta.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* --- what each field may hold ----------------------------------------------- */

static int text_relative(const char *s)
{
    return s[0] != '\0' && s[0] != '/';
}
static int text_absolute(const char *s)
{
    return s[0] == '/';
}
static int text_nonempty(const char *s)
{
    return s[0] != '\0';
}
static int text_basename(const char *s)
{
    return s[0] != '\0' && strchr(s, '/') == NULL;
}

static int text_filetype(const char *s)
{
    return strcmp(s, SCR_META_TYPE_FULL) == 0 || strcmp(s, SCR_META_TYPE_XOR) == 0 ||
           strcmp(s, SCR_META_TYPE_PARTNER) == 0 || strcmp(s, SCR_META_TYPE_RS) == 0;
}

enum kind { TEXT, INT, SIZE64, CRC32 };

struct field {
    const char *key;
    enum kind kind;
    int (*text_ok)(const char *); /* TEXT */
    int min, max;                 /* INT */
    const char *expected;         /* for messages */
};

enum {
    F_FILE,
    F_TYPE,
    F_COMPLETE,
    F_SIZE,
    F_CRC,
    F_RANK,
    F_RANKS,
    F_CKPT,
    F_NAME,
    F_PATH,
    F_ORIG,
    F_COMPRESSED
};

static const struct field fields[] = {
    [F_FILE] = {"FILE", TEXT, text_relative, 0, 0, "a relative file name"},
    [F_TYPE] = {"TYPE", TEXT, text_filetype, 0, 0, "FULL, XOR, PARTNER or RS"},
    [F_COMPLETE] = {"COMPLETE", INT, NULL, 0, 1, "0 or 1"},
    [F_SIZE] = {"SIZE", SIZE64, NULL, 0, 0, "a size in bytes"},
    [F_CRC] = {"CRC", CRC32, NULL, 0, 0, "a CRC-32 written as 0x and hex digits"},
    [F_RANK] = {"RANK", INT, NULL, 0, INT_MAX, "a rank (an integer >= 0)"},
    [F_RANKS] = {"RANKS", INT, NULL, 1, INT_MAX, "a number of ranks (an integer >= 1)"},
    [F_CKPT] = {"CKPT", INT, NULL, 1, INT_MAX, "a checkpoint id (an integer >= 1)"},
    [F_NAME] = {"NAME", TEXT, text_basename, 0, 0, "a file name without a directory"},
    [F_PATH] = {"PATH", TEXT, text_absolute, 0, 0, "an absolute directory"},
    [F_ORIG] = {"ORIG", TEXT, text_nonempty, 0, 0, "a non-empty file name"},
    [F_COMPRESSED] = {"COMPRESSED", SIZE64, NULL, 0, 0,
                      "the size in bytes of the file stored as gzip"},
};
#define NFIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

static int get_text(const scr_meta *meta, int f, const char **out)
{
    const char *s;
    if (out == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_str(meta, fields[f].key, &s);
    if (rc != SCR_SUCCESS) return rc;
    if (!fields[f].text_ok(s)) return SCR_ERR_TYPE;
    *out = s;
    return SCR_SUCCESS;
}

static int get_int(const scr_meta *meta, int f, int *out)
{
    int v;
    if (out == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int(meta, fields[f].key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < fields[f].min || v > fields[f].max) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

/* SCR_SUCCESS, SCR_ERR_NOTFOUND or SCR_ERR_TYPE for field f, whatever its kind. */
static int check_field(const scr_meta *meta, int f)
{
    const char *s;
    int i;
    uint64_t u;
    uint32_t c;
    switch (fields[f].kind) {
    case TEXT: return get_text(meta, f, &s);
    case INT: return get_int(meta, f, &i);
    case SIZE64: return scr_kvtree_util_get_uint64(meta, fields[f].key, &u);
    case CRC32: return scr_kvtree_util_get_crc32(meta, fields[f].key, &c);
    }
    return SCR_ERR_TYPE;
}

/* --- allocation ------------------------------------------------------------- */

scr_meta *scr_meta_new(void)
{
    return scr_kvtree_new();
}

void scr_meta_delete(scr_meta *meta)
{
    scr_kvtree_delete(meta);
}

int scr_meta_copy(scr_meta *dst, const scr_meta *src)
{
    if (dst == NULL) return SCR_ERR_ARG;
    if (dst == src) return SCR_SUCCESS;
    scr_kvtree_unset_all(dst);
    return scr_kvtree_copy(dst, src);
}

/* --- setters ----------------------------------------------------------------- */

static int set_text(scr_meta *meta, int f, const char *value)
{
    if (meta == NULL || value == NULL || !fields[f].text_ok(value)) {
        scr_err("meta: refusing %s '%s', expected %s", fields[f].key, value ? value : "(null)",
                fields[f].expected);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_str(meta, fields[f].key, value);
}

static int set_int(scr_meta *meta, int f, int value)
{
    if (meta == NULL || value < fields[f].min || value > fields[f].max) {
        scr_err("meta: refusing %s %d, expected %s", fields[f].key, value, fields[f].expected);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_int(meta, fields[f].key, value);
}

int scr_meta_set_filename(scr_meta *meta, const char *name)
{
    return set_text(meta, F_FILE, name);
}

int scr_meta_set_filetype(scr_meta *meta, const char *type)
{
    return set_text(meta, F_TYPE, type);
}

int scr_meta_set_complete(scr_meta *meta, int complete)
{
    return set_int(meta, F_COMPLETE, complete);
}

int scr_meta_set_rank(scr_meta *meta, int rank)
{
    return set_int(meta, F_RANK, rank);
}

int scr_meta_set_ranks(scr_meta *meta, int ranks)
{
    return set_int(meta, F_RANKS, ranks);
}

int scr_meta_set_checkpoint(scr_meta *meta, int ckpt_id)
{
    return set_int(meta, F_CKPT, ckpt_id);
}

int scr_meta_set_origname(scr_meta *meta, const char *name)
{
    return set_text(meta, F_NAME, name);
}

int scr_meta_set_origpath(scr_meta *meta, const char *path)
{
    return set_text(meta, F_PATH, path);
}

int scr_meta_set_orig(scr_meta *meta, const char *orig)
{
    return set_text(meta, F_ORIG, orig);
}

int scr_meta_set_filesize(scr_meta *meta, uint64_t size)
{
    if (meta == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_set_uint64(meta, fields[F_SIZE].key, size);
}

int scr_meta_set_crc32(scr_meta *meta, uint32_t crc)
{
    if (meta == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_set_crc32(meta, fields[F_CRC].key, crc);
}

int scr_meta_set_crc32_fixed(scr_meta *meta, uint32_t crc)
{
    char text[16];
    if (meta == NULL) return SCR_ERR_ARG;
    snprintf(text, sizeof(text), "0x%08x", crc);
    return scr_kvtree_util_set_str(meta, fields[F_CRC].key, text);
}

int scr_meta_unset_crc32(scr_meta *meta)
{
    if (meta == NULL) return SCR_ERR_ARG;
    scr_kvtree_unset(meta, fields[F_CRC].key);
    return SCR_SUCCESS;
}

int scr_meta_set_compressed(scr_meta *meta, uint64_t stored_size)
{
    if (meta == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_set_uint64(meta, fields[F_COMPRESSED].key, stored_size);
}

int scr_meta_unset_compressed(scr_meta *meta)
{
    if (meta == NULL) return SCR_ERR_ARG;
    scr_kvtree_unset(meta, fields[F_COMPRESSED].key);
    return SCR_SUCCESS;
}

int scr_meta_get_compressed(const scr_meta *meta, uint64_t *out_stored_size)
{
    if (out_stored_size == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_get_uint64(meta, fields[F_COMPRESSED].key, out_stored_size);
}

/* --- getters ----------------------------------------------------------------- */

int scr_meta_get_filename(const scr_meta *meta, const char **out)
{
    return get_text(meta, F_FILE, out);
}

int scr_meta_get_filetype(const scr_meta *meta, const char **out)
{
    return get_text(meta, F_TYPE, out);
}

int scr_meta_get_complete(const scr_meta *meta, int *out)
{
    return get_int(meta, F_COMPLETE, out);
}

int scr_meta_get_rank(const scr_meta *meta, int *out)
{
    return get_int(meta, F_RANK, out);
}

int scr_meta_get_ranks(const scr_meta *meta, int *out)
{
    return get_int(meta, F_RANKS, out);
}

int scr_meta_get_checkpoint(const scr_meta *meta, int *out)
{
    return get_int(meta, F_CKPT, out);
}

int scr_meta_get_origname(const scr_meta *meta, const char **out)
{
    return get_text(meta, F_NAME, out);
}

int scr_meta_get_origpath(const scr_meta *meta, const char **out)
{
    return get_text(meta, F_PATH, out);
}

int scr_meta_get_orig(const scr_meta *meta, const char **out)
{
    return get_text(meta, F_ORIG, out);
}

int scr_meta_get_filesize(const scr_meta *meta, uint64_t *out)
{
    if (out == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_get_uint64(meta, fields[F_SIZE].key, out);
}

int scr_meta_get_crc32(const scr_meta *meta, uint32_t *out)
{
    if (out == NULL) return SCR_ERR_ARG;
    return scr_kvtree_util_get_crc32(meta, fields[F_CRC].key, out);
}

/* --- checks ------------------------------------------------------------------ */

static int check_text(const scr_meta *meta, int f, const char *want)
{
    const char *s;
    int rc = get_text(meta, f, &s);
    if (rc != SCR_SUCCESS) return rc;
    return want != NULL && strcmp(s, want) == 0 ? SCR_SUCCESS : SCR_FAILURE;
}

static int check_int(const scr_meta *meta, int f, int want)
{
    int v;
    int rc = get_int(meta, f, &v);
    if (rc != SCR_SUCCESS) return rc;
    return v == want ? SCR_SUCCESS : SCR_FAILURE;
}

int scr_meta_check_filename(const scr_meta *meta, const char *name)
{
    return check_text(meta, F_FILE, name);
}

int scr_meta_check_filetype(const scr_meta *meta, const char *type)
{
    return check_text(meta, F_TYPE, type);
}

int scr_meta_check_complete(const scr_meta *meta, int complete)
{
    return check_int(meta, F_COMPLETE, complete);
}

int scr_meta_check_rank(const scr_meta *meta, int rank)
{
    return check_int(meta, F_RANK, rank);
}

int scr_meta_check_ranks(const scr_meta *meta, int ranks)
{
    return check_int(meta, F_RANKS, ranks);
}

int scr_meta_check_checkpoint(const scr_meta *meta, int ckpt_id)
{
    return check_int(meta, F_CKPT, ckpt_id);
}

int scr_meta_check_origname(const scr_meta *meta, const char *name)
{
    return check_text(meta, F_NAME, name);
}

int scr_meta_check_origpath(const scr_meta *meta, const char *path)
{
    return check_text(meta, F_PATH, path);
}

int scr_meta_check_orig(const scr_meta *meta, const char *orig)
{
    return check_text(meta, F_ORIG, orig);
}

int scr_meta_check_filesize(const scr_meta *meta, uint64_t size)
{
    uint64_t v;
    int rc = scr_meta_get_filesize(meta, &v);
    if (rc != SCR_SUCCESS) return rc;
    return v == size ? SCR_SUCCESS : SCR_FAILURE;
}

int scr_meta_check_crc32(const scr_meta *meta, uint32_t crc)
{
    uint32_t v;
    int rc = scr_meta_get_crc32(meta, &v);
    if (rc != SCR_SUCCESS) return rc;
    return v == crc ? SCR_SUCCESS : SCR_FAILURE;
}

int scr_meta_is_complete(const scr_meta *meta)
{
    return scr_meta_check_complete(meta, 1) == SCR_SUCCESS;
}

/* --- validation -------------------------------------------------------------- */

int scr_meta_validate(const scr_meta *meta, const char *file, const char *where)
{
    char key[4352];
    for (int f = 0; f < NFIELDS; f++) {
        if (check_field(meta, f) != SCR_ERR_TYPE) continue;
        if (where != NULL && where[0] != '\0')
            snprintf(key, sizeof(key), "%s %s", where, fields[f].key);
        else
            snprintf(key, sizeof(key), "%s", fields[f].key);
        return scr_record_bad_value(file, key, scr_kvtree_get(meta, fields[f].key),
                                    fields[f].expected);
    }
    return SCR_SUCCESS;
}
