/* rank2file.c — reading SCR 3.1's rank-to-file map of a dataset. */
#include "rank2file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_RANKS "RANKS"
#define KEY_LEVEL "LEVEL"
#define KEY_RANK "RANK"
#define KEY_FILE "FILE"
#define KEY_OFFSET "OFFSET"
#define WHERE_MAX 512
/* SCR 3.1 uses two levels; deeper trees are allowed up to this */
#define MAX_LEVEL 8

/* What the walk of the parts shares. */
struct walk {
    const char *dsdir;
    int ranks;
    scr_kvtree *files; /* RANK <r> FILE <path> */
};

/* A path SCR 3.1 recorded relative to the prefix that stays inside it. */
static int path_stays_inside(const char *path)
{
    if (path == NULL || path[0] == '\0' || path[0] == '/') return 0;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.') return 0;
        p += len;
        while (*p == '/') p++;
    }
    return 1;
}

/* The int under key of tree, between min and max. */
static int get_int_in(const char *file, const scr_kvtree *tree, const char *key, int min, int max,
                      const char *expected, int *out)
{
    int v;
    if (scr_kvtree_util_get_int(tree, key, &v) != SCR_SUCCESS || v < min || v > max)
        return scr_record_bad_value(file, key, scr_kvtree_get(tree, key), expected);
    *out = v;
    return SCR_SUCCESS;
}

/* Rank r of a level-0 part (file) lists its files. */
static int take_rank(struct walk *w, const char *file, int r, const scr_kvtree *entry)
{
    char where[WHERE_MAX];
    scr_record_key_path(where, sizeof(where), "%s %d", KEY_RANK, r);
    if (scr_kvtree_get_kv_int(w->files, KEY_RANK, r) != NULL) {
        scr_err("%s: rank %d is listed twice in the rank2file of %s", file, r, w->dsdir);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *mine = scr_kvtree_set_kv_int(w->files, KEY_RANK, r);
    if (mine == NULL) return SCR_ERR_NOMEM;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(entry); e; e = scr_kvtree_elem_next(e)) {
        if (strcmp(scr_kvtree_elem_key(e), KEY_FILE) != 0)
            return scr_record_bad_key(file, where, scr_kvtree_elem_key(e), "FILE");
    }
    scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_RANK, r, KEY_FILE);
    for (scr_kvtree_elem *f = scr_kvtree_elem_first(scr_kvtree_get(entry, KEY_FILE)); f;
         f = scr_kvtree_elem_next(f)) {
        const char *path = scr_kvtree_elem_key(f);
        if (!path_stays_inside(path) || scr_kvtree_size(scr_kvtree_elem_hash(f)) != 0)
            return scr_record_bad_key(file, where, path,
                                      "paths relative to the prefix that stay inside it");
        if (scr_kvtree_set_kv(mine, KEY_FILE, path) == NULL) return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

static int read_part(struct walk *w, const char *name, int level_expected);

/* The parts a level above 0 names (in file), each read at level - 1. */
static int take_parts(struct walk *w, const char *file, int level, const scr_kvtree *ranks)
{
    char where[WHERE_MAX];
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(ranks); e; e = scr_kvtree_elem_next(e)) {
        const scr_kvtree *entry = scr_kvtree_elem_hash(e);
        const char *suffix;
        int offset;
        scr_record_key_path(where, sizeof(where), "%s %s %s", KEY_RANK, scr_kvtree_elem_key(e),
                            KEY_FILE);
        if (scr_kvtree_util_get_str(entry, KEY_FILE, &suffix) != SCR_SUCCESS || suffix[0] == '\0' ||
            strchr(suffix, '/') != NULL)
            return scr_record_bad_value(file, where, scr_kvtree_get(entry, KEY_FILE),
                                        "one part name (\".0.0\"), without '/'");
        scr_record_key_path(where, sizeof(where), "%s %s %s", KEY_RANK, scr_kvtree_elem_key(e),
                            KEY_OFFSET);
        if (scr_kvtree_get(entry, KEY_OFFSET) != NULL &&
            (scr_kvtree_util_get_int(entry, KEY_OFFSET, &offset) != SCR_SUCCESS || offset < 0))
            return scr_record_bad_value(file, where, scr_kvtree_get(entry, KEY_OFFSET),
                                        "an offset >= 0");
        char name[WHERE_MAX];
        snprintf(name, sizeof(name), "%s%s", SCR_RANK2FILE_NAME, suffix);
        int rc = read_part(w, name, level - 1);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* The part t read from file has no key at the top but RANKS, LEVEL and
 * RANK, and under RANK only ranks below ranks; the first other key is
 * named and fails. */
static int check_part_keys(const char *file, const scr_kvtree *t, int ranks)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(t); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_RANKS) != 0 && strcmp(key, KEY_LEVEL) != 0 &&
            strcmp(key, KEY_RANK) != 0)
            return scr_record_bad_key(file, "the top", key, "RANKS, LEVEL and RANK");
    }
    const scr_kvtree *rank_level = scr_kvtree_get(t, KEY_RANK);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(rank_level); e; e = scr_kvtree_elem_next(e)) {
        int r;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 0, &r) != SCR_SUCCESS || r >= ranks) {
            char expected[64];
            snprintf(expected, sizeof(expected), "ranks 0 to %d", ranks - 1);
            return scr_record_bad_key(file, KEY_RANK, scr_kvtree_elem_key(e), expected);
        }
    }
    return SCR_SUCCESS;
}

/* Read <dsdir>/<name>, which must be at level_expected (-1: any, the top). */
static int read_part(struct walk *w, const char *name, int level_expected)
{
    char *file = NULL;
    scr_kvtree *t = scr_kvtree_new();
    int rc = t ? scr_path_join(w->dsdir, name, &file) : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) goto out;
    struct stat st;
    if (level_expected >= 0 && stat(file, &st) != 0) {
        scr_err("%s: a part of the rank2file of %s is missing: %s", file, w->dsdir,
                strerror(errno));
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = scr_kvtree_read_file(file, t);
    if (rc != SCR_SUCCESS) goto out;
    int ranks = 0, level = 0;
    rc = get_int_in(file, t, KEY_RANKS, 1, 1 << 30, "a number of ranks (>= 1)", &ranks);
    if (rc != SCR_SUCCESS) goto out;
    if (level_expected < 0)
        w->ranks = ranks;
    else if (ranks != w->ranks) {
        char expected[64];
        snprintf(expected, sizeof(expected), "%d, as in %s", w->ranks, SCR_RANK2FILE_NAME);
        rc = scr_record_bad_value(file, KEY_RANKS, scr_kvtree_get(t, KEY_RANKS), expected);
        goto out;
    }
    rc = get_int_in(file, t, KEY_LEVEL, level_expected < 0 ? 0 : level_expected,
                    level_expected < 0 ? MAX_LEVEL : level_expected, "the level of this part",
                    &level);
    if (rc != SCR_SUCCESS) goto out;
    rc = check_part_keys(file, t, ranks);
    if (rc != SCR_SUCCESS) goto out;
    const scr_kvtree *rank_level = scr_kvtree_get(t, KEY_RANK);
    if (level == 0) {
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(rank_level); e && rc == SCR_SUCCESS;
             e = scr_kvtree_elem_next(e))
            rc = take_rank(w, file, atoi(scr_kvtree_elem_key(e)), scr_kvtree_elem_hash(e));
    } else {
        rc = take_parts(w, file, level, rank_level);
    }
out:
    if (rc == SCR_ERR_NOMEM) scr_err("%s: out of memory reading it", file ? file : name);
    scr_kvtree_delete(t);
    free(file);
    return rc;
}

int scr_rank2file_read(const char *dsdir, int *out_ranks, scr_kvtree **out_files)
{
    if (dsdir == NULL || out_ranks == NULL || out_files == NULL) {
        scr_err("rank2file: read called without a directory or a place for the result");
        return SCR_ERR_ARG;
    }
    struct walk w = {dsdir, 0, scr_kvtree_new()};
    if (w.files == NULL) return SCR_ERR_NOMEM;
    int rc = read_part(&w, SCR_RANK2FILE_NAME, -1);
    for (int r = 0; rc == SCR_SUCCESS && r < w.ranks; r++) {
        if (scr_kvtree_get_kv_int(w.files, KEY_RANK, r) == NULL) {
            scr_err("%s/%s: rank %d of %d is not listed, so its files are unknown", dsdir,
                    SCR_RANK2FILE_NAME, r, w.ranks);
            rc = SCR_ERR_FORMAT;
        }
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(w.files);
        return rc;
    }
    *out_ranks = w.ranks;
    *out_files = w.files;
    return SCR_SUCCESS;
}
