/* summary.c — the summary of a dataset directory, versions 5 to 7. */
#include "summary.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "rank_filemap.h"
#include "record.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <inttypes.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_DSET "DSET"
#define KEY_RANK2FILE "RANK2FILE"
#define KEY_RANKS "RANKS"
#define KEY_RANK "RANK"
#define KEY_FILES "FILES"
#define KEY_FILE "FILE"
#define KEY_SIZE "SIZE"
#define KEY_CRC "CRC"
#define KEY_NOFETCH "NOFETCH"
#define KEY_COMPRESSED "COMPRESSED"
#define KEY_CKPT "CKPT"         /* version 5 */
#define KEY_COMPLETE "COMPLETE" /* version 5 */
#define KEY_PARTS "PARTS"       /* version 7 */
#define KEY_PART "PART"         /* version 7 */
#define KEY_FIRST "FIRST"       /* version 7 */

#define WHERE_MAX 4400

static int name_ok(const char *name)
{
    return name != NULL && name[0] != '\0' && name[0] != '/';
}

static scr_kvtree *rank_of(const scr_kvtree *summary, int rank)
{
    return scr_kvtree_get_kv_int(scr_kvtree_get(summary, KEY_RANK2FILE), KEY_RANK, rank);
}

static scr_kvtree *file_of(const scr_kvtree *summary, int rank, const char *name)
{
    return name ? scr_kvtree_get_kv(rank_of(summary, rank), KEY_FILE, name) : NULL;
}

/* A rank listed in one call, into a tree or a file written from lists:
 * a rank >= 0, relative file names, FILES >= 0. */
static int check_rank_list(int rank, int expected, const struct scr_summary_file *files, int n)
{
    if (rank < 0) {
        scr_err("summary: listing rank %d (needs a rank >= 0)", rank);
        return SCR_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (!name_ok(files[i].name)) {
            scr_err("summary: listing a file for rank %d, file '%s' (needs a relative name)", rank,
                    files[i].name ? files[i].name : "(null)");
            return SCR_ERR_ARG;
        }
    }
    if (expected < 0) {
        scr_err("summary: %d expected files for rank %d", expected, rank);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

static int check_args(const char *what, const scr_kvtree *summary, int rank, const char *name,
                      int need_name)
{
    if (summary == NULL || rank < 0 || (need_name && !name_ok(name))) {
        scr_err("summary: %s for rank %d, file '%s' (needs a tree, a rank >= 0 and a relative "
                "name)",
                what, rank, name ? name : "(null)");
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* RANK2FILE, created when missing; NULL only when out of memory. */
static scr_kvtree *r2f_make(scr_kvtree *summary)
{
    scr_kvtree *r2f = scr_kvtree_get(summary, KEY_RANK2FILE);
    return r2f ? r2f : scr_kvtree_set(summary, KEY_RANK2FILE, NULL);
}

/* --- dataset and ranks ---------------------------------------------------------- */

int scr_summary_set_dataset(scr_kvtree *summary, const scr_dataset *desc)
{
    if (summary == NULL || desc == NULL) {
        scr_err("summary: setting the dataset without a tree or a descriptor");
        return SCR_ERR_ARG;
    }
    scr_kvtree *copy = scr_kvtree_dup(desc);
    if (copy == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_set(summary, KEY_DSET, copy) ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

int scr_summary_get_dataset(const scr_kvtree *summary, const scr_dataset **out_desc)
{
    if (out_desc == NULL) return SCR_ERR_ARG;
    const scr_kvtree *desc = scr_kvtree_get(summary, KEY_DSET);
    if (desc == NULL) return SCR_ERR_NOTFOUND;
    *out_desc = desc;
    return SCR_SUCCESS;
}

int scr_summary_set_complete(scr_kvtree *summary, int complete)
{
    if (summary == NULL || (complete != 0 && complete != 1)) {
        scr_err("summary: setting COMPLETE to %d, expected 0 or 1, or without a tree", complete);
        return SCR_ERR_ARG;
    }
    scr_dataset *desc = scr_kvtree_get(summary, KEY_DSET);
    if (desc == NULL) {
        scr_err("summary: cannot set COMPLETE, it has no dataset descriptor");
        return SCR_ERR_NOTFOUND;
    }
    int rc = scr_dataset_set_complete(desc, complete);
    if (rc == SCR_SUCCESS && scr_kvtree_get(summary, KEY_COMPLETE) != NULL)
        rc = scr_kvtree_util_set_int(summary, KEY_COMPLETE, complete);
    return rc;
}

int scr_summary_is_complete(const scr_kvtree *summary)
{
    int complete = 1, top = 1;
    const scr_dataset *desc = scr_kvtree_get(summary, KEY_DSET);
    if (desc != NULL && scr_dataset_get_complete(desc, &complete) != SCR_SUCCESS) complete = 1;
    if (scr_kvtree_util_get_int(summary, KEY_COMPLETE, &top) != SCR_SUCCESS) top = 1;
    return complete != 0 && top != 0;
}

int scr_summary_set_ranks(scr_kvtree *summary, int ranks)
{
    if (summary == NULL || ranks < 1) {
        scr_err("summary: %d ranks (a run has at least one)", ranks);
        return SCR_ERR_ARG;
    }
    scr_kvtree *r2f = r2f_make(summary);
    if (r2f == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_int(r2f, KEY_RANKS, ranks);
}

/* The value of an integer key, SCR_ERR_TYPE when below min. */
static int get_int_min(const scr_kvtree *tree, const char *key, int min, int *out)
{
    int v;
    if (out == NULL) return SCR_ERR_ARG;
    int rc = scr_kvtree_util_get_int(tree, key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < min) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

int scr_summary_get_ranks(const scr_kvtree *summary, int *out_ranks)
{
    return get_int_min(scr_kvtree_get(summary, KEY_RANK2FILE), KEY_RANKS, 1, out_ranks);
}

/* The entry of rank, created when missing; NULL only when out of memory. */
static scr_kvtree *rank_make(scr_kvtree *summary, int rank)
{
    scr_kvtree *r2f = r2f_make(summary);
    return r2f ? scr_kvtree_set_kv_int(r2f, KEY_RANK, rank) : NULL;
}

int scr_summary_set_expected_files(scr_kvtree *summary, int rank, int count)
{
    int rc = check_args("setting the expected files", summary, rank, NULL, 0);
    if (rc != SCR_SUCCESS) return rc;
    if (count < 0) {
        scr_err("summary: %d expected files for rank %d", count, rank);
        return SCR_ERR_ARG;
    }
    scr_kvtree *entry = rank_make(summary, rank);
    if (entry == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_int(entry, KEY_FILES, count);
}

int scr_summary_get_expected_files(const scr_kvtree *summary, int rank, int *out_count)
{
    return get_int_min(rank_of(summary, rank), KEY_FILES, 0, out_count);
}

/* --- files ---------------------------------------------------------------------------- */

int scr_summary_set_file(scr_kvtree *summary, int rank, const char *name, uint64_t size)
{
    int rc = check_args("listing a file", summary, rank, name, 1);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *entry = rank_make(summary, rank);
    scr_kvtree *file = entry ? scr_kvtree_set_kv(entry, KEY_FILE, name) : NULL;
    if (file == NULL) return SCR_ERR_NOMEM;
    return scr_kvtree_util_set_uint64(file, KEY_SIZE, size);
}

/* A rank's level in entry: FILES expected, and FILE <name> with SIZE, CRC
 * and NOFETCH for each of the n files. */
static int fill_rank(scr_kvtree *entry, int expected, const struct scr_summary_file *files, int n)
{
    int rc = scr_kvtree_util_set_int(entry, KEY_FILES, expected);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0; i < n; i++) {
        scr_kvtree *file = scr_kvtree_set_kv(entry, KEY_FILE, files[i].name);
        if (file == NULL) return SCR_ERR_NOMEM;
        rc = scr_kvtree_util_set_uint64(file, KEY_SIZE, files[i].size);
        if (rc != SCR_SUCCESS) return rc;
        if (files[i].has_crc) {
            rc = scr_kvtree_util_set_crc32(file, KEY_CRC, files[i].crc);
            if (rc != SCR_SUCCESS) return rc;
        }
        if (files[i].nofetch && scr_kvtree_set(file, KEY_NOFETCH, NULL) == NULL)
            return SCR_ERR_NOMEM;
        if (files[i].compressed) {
            rc = scr_kvtree_util_set_uint64(file, KEY_COMPRESSED, files[i].stored_size);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    return SCR_SUCCESS;
}

int scr_summary_set_rank(scr_kvtree *summary, int rank, int expected,
                         const struct scr_summary_file *files, int n)
{
    int rc = summary != NULL ? check_rank_list(rank, expected, files, n)
                             : check_args("listing a rank", summary, rank, NULL, 0);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *entry = scr_kvtree_new();
    if (entry == NULL) return SCR_ERR_NOMEM;
    rc = fill_rank(entry, expected, files, n);
    if (rc != SCR_SUCCESS) goto out;
    scr_kvtree *r2f = r2f_make(summary);
    scr_kvtree *ranks = scr_kvtree_get(r2f, KEY_RANK);
    if (r2f != NULL && ranks == NULL) ranks = scr_kvtree_set(r2f, KEY_RANK, NULL);
    if (ranks == NULL) rc = SCR_ERR_NOMEM;
out:
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(entry);
        return rc;
    }
    char key[16];
    snprintf(key, sizeof(key), "%d", rank);
    return scr_kvtree_set(ranks, key, entry) ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

/* A listed file, for a setter; logs when it is not listed. */
static int listed_file(scr_kvtree *summary, int rank, const char *name, const char *what,
                       scr_kvtree **out_file)
{
    int rc = check_args(what, summary, rank, name, 1);
    if (rc != SCR_SUCCESS) return rc;
    *out_file = file_of(summary, rank, name);
    if (*out_file == NULL) {
        scr_err("summary: %s: rank %d has no file %s", what, rank, name);
        return SCR_ERR_NOTFOUND;
    }
    return SCR_SUCCESS;
}

int scr_summary_set_file_crc(scr_kvtree *summary, int rank, const char *name, uint32_t crc)
{
    scr_kvtree *file;
    int rc = listed_file(summary, rank, name, "setting a CRC", &file);
    if (rc != SCR_SUCCESS) return rc;
    return scr_kvtree_util_set_crc32(file, KEY_CRC, crc);
}

int scr_summary_set_file_nofetch(scr_kvtree *summary, int rank, const char *name, int nofetch)
{
    scr_kvtree *file;
    int rc = listed_file(summary, rank, name, "setting NOFETCH", &file);
    if (rc != SCR_SUCCESS) return rc;
    if (!nofetch) {
        scr_kvtree_unset(file, KEY_NOFETCH);
        return SCR_SUCCESS;
    }
    return scr_kvtree_set(file, KEY_NOFETCH, NULL) ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

int scr_summary_set_file_compressed(scr_kvtree *summary, int rank, const char *name,
                                    uint64_t stored_size)
{
    scr_kvtree *file;
    int rc = listed_file(summary, rank, name, "marking a file compressed", &file);
    if (rc != SCR_SUCCESS) return rc;
    return scr_kvtree_util_set_uint64(file, KEY_COMPRESSED, stored_size);
}

int scr_summary_get_file_compressed(const scr_kvtree *summary, int rank, const char *name,
                                    uint64_t *out_stored_size)
{
    if (out_stored_size == NULL) return SCR_ERR_ARG;
    const scr_kvtree *file = file_of(summary, rank, name);
    if (file == NULL) return SCR_ERR_NOTFOUND;
    return scr_kvtree_util_get_uint64(file, KEY_COMPRESSED, out_stored_size);
}

int scr_summary_get_file_size(const scr_kvtree *summary, int rank, const char *name,
                              uint64_t *out_size)
{
    if (out_size == NULL) return SCR_ERR_ARG;
    const scr_kvtree *file = file_of(summary, rank, name);
    if (file == NULL) return SCR_ERR_NOTFOUND;
    return scr_kvtree_util_get_uint64(file, KEY_SIZE, out_size);
}

int scr_summary_get_file_crc(const scr_kvtree *summary, int rank, const char *name,
                             uint32_t *out_crc)
{
    if (out_crc == NULL) return SCR_ERR_ARG;
    const scr_kvtree *file = file_of(summary, rank, name);
    if (file == NULL) return SCR_ERR_NOTFOUND;
    return scr_kvtree_util_get_crc32(file, KEY_CRC, out_crc);
}

/* NOFETCH is a flag: the key with nothing under it. */
static int nofetch_of(const scr_kvtree *file, int *out_flag)
{
    const scr_kvtree *flag = scr_kvtree_get(file, KEY_NOFETCH);
    if (flag != NULL && scr_kvtree_size(flag) != 0) return SCR_ERR_TYPE;
    *out_flag = flag != NULL;
    return SCR_SUCCESS;
}

int scr_summary_get_file_nofetch(const scr_kvtree *summary, int rank, const char *name,
                                 int *out_flag)
{
    if (out_flag == NULL) return SCR_ERR_ARG;
    const scr_kvtree *file = file_of(summary, rank, name);
    if (file == NULL) return SCR_ERR_NOTFOUND;
    return nofetch_of(file, out_flag);
}

int scr_summary_remove_file(scr_kvtree *summary, int rank, const char *name)
{
    int rc = check_args("removing a file", summary, rank, name, 1);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree_unset_kv(rank_of(summary, rank), KEY_FILE, name);
    return SCR_SUCCESS;
}

/* --- lists ------------------------------------------------------------------------------ */

int scr_summary_list_ranks(const scr_kvtree *summary, int **out_ranks, int *out_count)
{
    const scr_kvtree *ranks = scr_kvtree_get(scr_kvtree_get(summary, KEY_RANK2FILE), KEY_RANK);
    return scr_record_list_int_keys(ranks, 0, "summary", "ranks", out_ranks, out_count);
}

int scr_summary_list_files(const scr_kvtree *summary, int rank, const char ***out_names,
                           int *out_count)
{
    return scr_record_list_keys(scr_kvtree_get(rank_of(summary, rank), KEY_FILE), "summary",
                                "files", out_names, out_count);
}

int scr_summary_check_names(const scr_kvtree *summary, const char *dir, const char *path)
{
    int *ranks = NULL, nranks = 0;
    int rc = scr_summary_list_ranks(summary, &ranks, &nranks);
    for (int i = 0; rc == SCR_SUCCESS && i < nranks; i++) {
        const char **names = NULL;
        int n = 0;
        rc = scr_summary_list_files(summary, ranks[i], &names, &n);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* a rank without files */
        for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
            char *file = NULL;
            rc = scr_rank_filemap_file_path(dir, names[f], path, &file);
            free(file);
        }
        free(names);
    }
    free(ranks);
    return rc;
}

/* --- checking a summary as a reader ---------------------------------------------------------- */

static int validate_file(const char *path, const char *where, const scr_kvtree *file)
{
    char here[WHERE_MAX];
    uint64_t size;
    uint32_t crc;
    int flag;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(file); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        const scr_kvtree *value = scr_kvtree_elem_hash(e);
        scr_record_key_path(here, sizeof(here), "%s %s", where, key);
        if (strcmp(key, KEY_SIZE) == 0) {
            if (scr_kvtree_util_get_uint64(file, key, &size) != SCR_SUCCESS)
                return scr_record_bad_value(path, here, value, "a size in bytes");
        } else if (strcmp(key, KEY_CRC) == 0) {
            if (scr_kvtree_util_get_crc32(file, key, &crc) != SCR_SUCCESS)
                return scr_record_bad_value(path, here, value,
                                            "a CRC-32 written as 0x and hex digits");
        } else if (strcmp(key, KEY_NOFETCH) == 0) {
            if (nofetch_of(file, &flag) != SCR_SUCCESS)
                return scr_record_bad_value(path, here, value, "nothing (NOFETCH is a flag)");
        } else if (strcmp(key, KEY_COMPRESSED) == 0) {
            if (scr_kvtree_util_get_uint64(file, key, &size) != SCR_SUCCESS)
                return scr_record_bad_value(path, here, value,
                                            "the size in bytes of the file stored as gzip");
        } else {
            return scr_record_bad_key(path, where, key, "SIZE, CRC, NOFETCH or COMPRESSED");
        }
    }
    if (scr_kvtree_get(file, KEY_SIZE) == NULL) {
        scr_err("%s: key %s has no SIZE", path, where);
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

static int validate_rank(const char *path, int rank, const scr_kvtree *entry)
{
    char where[WHERE_MAX], here[WHERE_MAX];
    scr_record_key_path(where, sizeof(where), "%s %s %d", KEY_RANK2FILE, KEY_RANK, rank);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(entry); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_FILES) == 0) {
            int n;
            if (get_int_min(entry, key, 0, &n) != SCR_SUCCESS) {
                scr_record_key_path(here, sizeof(here), "%s %s", where, key);
                return scr_record_bad_value(path, here, scr_kvtree_elem_hash(e),
                                            "a number of files (>= 0)");
            }
        } else if (strcmp(key, KEY_FILE) != 0) {
            return scr_record_bad_key(path, where, key, "FILES or FILE");
        }
    }
    scr_record_key_path(where, sizeof(where), "%s %s %d %s", KEY_RANK2FILE, KEY_RANK, rank,
                        KEY_FILE);
    for (scr_kvtree_elem *f = scr_kvtree_elem_first(scr_kvtree_get(entry, KEY_FILE)); f;
         f = scr_kvtree_elem_next(f)) {
        const char *name = scr_kvtree_elem_key(f);
        if (!name_ok(name))
            return scr_record_bad_key(path, where, name, "names relative to the dataset directory");
        scr_record_key_path(here, sizeof(here), "%s %s", where, name);
        int rc = validate_file(path, here, scr_kvtree_elem_hash(f));
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

static int validate_rank2file(const char *path, const scr_kvtree *r2f)
{
    int ranks = INT_MAX;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(r2f); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_RANKS) == 0) {
            if (get_int_min(r2f, key, 1, &ranks) != SCR_SUCCESS)
                return scr_record_bad_value(path, KEY_RANK2FILE " " KEY_RANKS,
                                            scr_kvtree_elem_hash(e), "a number of ranks (>= 1)");
        } else if (strcmp(key, KEY_RANK) != 0) {
            return scr_record_bad_key(path, KEY_RANK2FILE, key, "RANKS or RANK");
        }
    }
    for (scr_kvtree_elem *r = scr_kvtree_elem_first(scr_kvtree_get(r2f, KEY_RANK)); r;
         r = scr_kvtree_elem_next(r)) {
        int rank;
        if (scr_record_key_int(scr_kvtree_elem_key(r), 0, &rank) != SCR_SUCCESS)
            return scr_record_bad_key(path, KEY_RANK2FILE " " KEY_RANK, scr_kvtree_elem_key(r),
                                      "ranks (integers >= 0)");
        if (rank >= ranks) {
            char expected[64];
            snprintf(expected, sizeof(expected), "ranks below RANKS (%d)", ranks);
            return scr_record_bad_key(path, KEY_RANK2FILE " " KEY_RANK, scr_kvtree_elem_key(r),
                                      expected);
        }
        int rc = validate_rank(path, rank, scr_kvtree_elem_hash(r));
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

static int validate(const char *path, const scr_kvtree *summary)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(summary); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        int rc = SCR_SUCCESS;
        if (strcmp(key, KEY_DSET) == 0) {
            rc = scr_dataset_validate(scr_kvtree_elem_hash(e), path, KEY_DSET);
        } else if (strcmp(key, KEY_RANK2FILE) == 0) {
            rc = validate_rank2file(path, scr_kvtree_elem_hash(e));
        } else if (strcmp(key, KEY_COMPLETE) == 0) { /* SCR 3.1 repeats the descriptor's here */
            int v;
            if (scr_kvtree_util_get_int(summary, key, &v) != SCR_SUCCESS || (v != 0 && v != 1))
                rc = scr_record_bad_value(path, key, scr_kvtree_elem_hash(e), "0 or 1");
        } else if (strcmp(key, SCR_RECORD_KEY_VERSION) != 0) {
            scr_err("%s: unexpected key '%s' at the top of a summary, expected %s and %s", path,
                    key, KEY_DSET, KEY_RANK2FILE);
            rc = SCR_ERR_FORMAT;
        }
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* --- version 5 ---------------------------------------------------------------------------- */

/* One rank of a version 5 summary into out. */
static int convert_v5_rank(const char *path, const char *where, int rank, const scr_kvtree *in,
                           scr_kvtree *out)
{
    char here[WHERE_MAX];
    int files = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(in); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), KEY_FILE) != 0)
            return scr_record_bad_key(path, where, scr_kvtree_elem_key(e), "FILE");
    for (scr_kvtree_elem *f = scr_kvtree_elem_first(scr_kvtree_get(in, KEY_FILE)); f;
         f = scr_kvtree_elem_next(f), files++) {
        const char *name = scr_kvtree_elem_key(f);
        const scr_kvtree *file = scr_kvtree_elem_hash(f);
        uint64_t size;
        uint32_t crc;
        scr_record_key_path(here, sizeof(here), "%s %s", where, KEY_FILE);
        if (!name_ok(name))
            return scr_record_bad_key(path, here, name,
                                      "names relative to the checkpoint directory");
        scr_record_key_path(here, sizeof(here), "%s %s %s", where, KEY_FILE, name);
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(file); e; e = scr_kvtree_elem_next(e))
            if (strcmp(scr_kvtree_elem_key(e), KEY_SIZE) != 0 &&
                strcmp(scr_kvtree_elem_key(e), KEY_CRC) != 0)
                return scr_record_bad_key(path, here, scr_kvtree_elem_key(e), "SIZE or CRC");
        scr_record_key_path(here, sizeof(here), "%s %s %s %s", where, KEY_FILE, name, KEY_SIZE);
        if (scr_kvtree_util_get_uint64(file, KEY_SIZE, &size) != SCR_SUCCESS)
            return scr_record_bad_value(path, here, scr_kvtree_get(file, KEY_SIZE),
                                        "a size in bytes");
        int rc = scr_summary_set_file(out, rank, name, size);
        if (rc != SCR_SUCCESS) return rc;
        if (scr_kvtree_get(file, KEY_CRC) == NULL) continue;
        scr_record_key_path(here, sizeof(here), "%s %s %s %s", where, KEY_FILE, name, KEY_CRC);
        if (scr_kvtree_util_get_crc32(file, KEY_CRC, &crc) != SCR_SUCCESS)
            return scr_record_bad_value(path, here, scr_kvtree_get(file, KEY_CRC),
                                        "a CRC-32 written as 0x and hex digits");
        rc = scr_summary_set_file_crc(out, rank, name, crc);
        if (rc != SCR_SUCCESS) return rc;
    }
    return scr_summary_set_expected_files(out, rank, files);
}

/* The descriptor of checkpoint id of a version 5 summary (ckpt) into out. */
static int convert_v5_dataset(const char *path, int id, const scr_kvtree *ckpt, scr_kvtree *out)
{
    char where[WHERE_MAX];
    int complete;
    scr_dataset *desc = scr_dataset_new();
    if (desc == NULL) return SCR_ERR_NOMEM;
    int rc = scr_dataset_set_id(desc, id);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_ckpt(desc, id);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_flags(desc, SCR_DATASET_FLAG_CHECKPOINT);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_kvtree_get(ckpt, KEY_COMPLETE) != NULL) {
        if (scr_kvtree_util_get_int(ckpt, KEY_COMPLETE, &complete) != SCR_SUCCESS ||
            (complete != 0 && complete != 1)) {
            scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_CKPT, id, KEY_COMPLETE);
            rc = scr_record_bad_value(path, where, scr_kvtree_get(ckpt, KEY_COMPLETE), "0 or 1");
            goto out;
        }
        rc = scr_dataset_set_complete(desc, complete);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_summary_set_dataset(out, desc);
out:
    scr_dataset_delete(desc);
    return rc;
}

/* The checkpoint of a version 5 summary into out, in the version 6 form. */
static int convert_v5(const char *path, const scr_kvtree *in, scr_kvtree *out)
{
    char where[WHERE_MAX];
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(in); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), KEY_CKPT) != 0) {
            scr_err("%s: unexpected key '%s' at the top of a version 5 summary, expected %s", path,
                    scr_kvtree_elem_key(e), KEY_CKPT);
            return SCR_ERR_FORMAT;
        }
    const scr_kvtree *ckpts = scr_kvtree_get(in, KEY_CKPT);
    int id;
    if (scr_kvtree_size(ckpts) != 1 ||
        scr_record_key_int(scr_kvtree_first_key(ckpts), 1, &id) != SCR_SUCCESS)
        return scr_record_bad_value(path, KEY_CKPT, ckpts, "one checkpoint id (>= 1)");
    const scr_kvtree *ckpt = scr_kvtree_get(ckpts, scr_kvtree_first_key(ckpts));
    scr_record_key_path(where, sizeof(where), "%s %d", KEY_CKPT, id);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(ckpt); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_COMPLETE) != 0 && strcmp(key, KEY_RANKS) != 0 &&
            strcmp(key, KEY_RANK) != 0)
            return scr_record_bad_key(path, where, key, "COMPLETE, RANKS or RANK");
    }

    int ranks;
    int rc = convert_v5_dataset(path, id, ckpt, out);
    if (rc != SCR_SUCCESS) return rc;

    if (scr_kvtree_get(ckpt, KEY_RANKS) != NULL) {
        if (get_int_min(ckpt, KEY_RANKS, 1, &ranks) != SCR_SUCCESS) {
            scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_CKPT, id, KEY_RANKS);
            return scr_record_bad_value(path, where, scr_kvtree_get(ckpt, KEY_RANKS),
                                        "a number of ranks (>= 1)");
        }
        rc = scr_summary_set_ranks(out, ranks);
        if (rc != SCR_SUCCESS) return rc;
    }
    scr_record_key_path(where, sizeof(where), "%s %d %s", KEY_CKPT, id, KEY_RANK);
    for (scr_kvtree_elem *r = scr_kvtree_elem_first(scr_kvtree_get(ckpt, KEY_RANK)); r;
         r = scr_kvtree_elem_next(r)) {
        int rank;
        char here[WHERE_MAX];
        if (scr_record_key_int(scr_kvtree_elem_key(r), 0, &rank) != SCR_SUCCESS)
            return scr_record_bad_key(path, where, scr_kvtree_elem_key(r), "ranks (integers >= 0)");
        scr_record_key_path(here, sizeof(here), "%s %d", where, rank);
        rc = convert_v5_rank(path, here, rank, scr_kvtree_elem_hash(r), out);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* --- version 7: a summary in parts -------------------------------------------------------- */

int scr_summary_part_path(const char *path, int part, char **out_path)
{
    if (path == NULL || part < 0 || out_path == NULL) {
        scr_err("summary: naming part %d needs the summary's path and a part >= 0", part);
        return SCR_ERR_ARG;
    }
    size_t len = strlen(path), stem = len;
    const char *ext = ".scr";
    if (len >= strlen(ext) && strcmp(path + len - strlen(ext), ext) == 0) stem -= strlen(ext);
    size_t size = stem + 16 + strlen(ext);
    char *name = malloc(size);
    if (name == NULL) {
        scr_err("summary: out of memory naming part %d of %s", part, path);
        return SCR_ERR_NOMEM;
    }
    snprintf(name, size, "%.*s.%d%s", (int)stem, path, part, ext);
    *out_path = name;
    return SCR_SUCCESS;
}

/* FIRST and RANKS of a part's level (at where in path): first >= 0,
 * count >= 1, first + count within an int. */
static int part_range(const char *path, const char *where, const scr_kvtree *part, int *out_first,
                      int *out_count)
{
    char here[WHERE_MAX];
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(part); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), KEY_FIRST) != 0 &&
            strcmp(scr_kvtree_elem_key(e), KEY_RANKS) != 0)
            return scr_record_bad_key(path, where, scr_kvtree_elem_key(e), "FIRST or RANKS");
    scr_record_key_path(here, sizeof(here), "%s %s", where, KEY_FIRST);
    if (get_int_min(part, KEY_FIRST, 0, out_first) != SCR_SUCCESS)
        return scr_record_bad_value(path, here, scr_kvtree_get(part, KEY_FIRST),
                                    "the part's first rank (>= 0)");
    scr_record_key_path(here, sizeof(here), "%s %s", where, KEY_RANKS);
    if (get_int_min(part, KEY_RANKS, 1, out_count) != SCR_SUCCESS ||
        *out_count > INT_MAX - *out_first)
        return scr_record_bad_value(path, here, scr_kvtree_get(part, KEY_RANKS),
                                    "the number of ranks in the part (>= 1)");
    return SCR_SUCCESS;
}

/* RANK2FILE of a version 7 summary: RANKS, PARTS and PART <k> {FIRST,
 * RANKS} for k = 0..PARTS-1, the parts covering ranks 0..RANKS-1 in order,
 * each rank once. *out_parts: PARTS. */
static int validate_top_rank2file(const char *path, const scr_kvtree *r2f, int *out_parts)
{
    char where[WHERE_MAX];
    int ranks = 0, parts = 0, next = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(r2f); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, KEY_RANKS) != 0 && strcmp(key, KEY_PARTS) != 0 &&
            strcmp(key, KEY_PART) != 0)
            return scr_record_bad_key(path, KEY_RANK2FILE, key, "RANKS, PARTS or PART");
    }
    if (get_int_min(r2f, KEY_RANKS, 1, &ranks) != SCR_SUCCESS)
        return scr_record_bad_value(path, KEY_RANK2FILE " " KEY_RANKS,
                                    scr_kvtree_get(r2f, KEY_RANKS), "a number of ranks (>= 1)");
    if (get_int_min(r2f, KEY_PARTS, 1, &parts) != SCR_SUCCESS)
        return scr_record_bad_value(path, KEY_RANK2FILE " " KEY_PARTS,
                                    scr_kvtree_get(r2f, KEY_PARTS), "a number of parts (>= 1)");
    const scr_kvtree *listed = scr_kvtree_get(r2f, KEY_PART);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(listed); e; e = scr_kvtree_elem_next(e)) {
        int k;
        if (scr_record_key_int(scr_kvtree_elem_key(e), 0, &k) != SCR_SUCCESS || k >= parts) {
            char expected[64];
            snprintf(expected, sizeof(expected), "parts 0 to %d (PARTS %d)", parts - 1, parts);
            return scr_record_bad_key(path, KEY_RANK2FILE " " KEY_PART, scr_kvtree_elem_key(e),
                                      expected);
        }
    }
    for (int k = 0; k < parts; k++) {
        int first, count;
        const scr_kvtree *part = scr_kvtree_get_kv_int(r2f, KEY_PART, k);
        if (part == NULL) {
            scr_err("%s: RANK2FILE PARTS is %d but part %d is not listed", path, parts, k);
            return SCR_ERR_FORMAT;
        }
        scr_record_key_path(where, sizeof(where), "%s %s %d", KEY_RANK2FILE, KEY_PART, k);
        int rc = part_range(path, where, part, &first, &count);
        if (rc != SCR_SUCCESS) return rc;
        if (first != next || count > ranks - first) {
            scr_err("%s: part %d holds ranks %d to %d, expected ranks from %d on up to at most %d: "
                    "the parts must cover ranks 0 to %d in order, each once",
                    path, k, first, first + count - 1, next, ranks - 1, ranks - 1);
            return SCR_ERR_FORMAT;
        }
        next = first + count;
    }
    if (next != ranks) {
        scr_err("%s: the parts cover ranks 0 to %d, but RANK2FILE RANKS is %d", path, next - 1,
                ranks);
        return SCR_ERR_FORMAT;
    }
    *out_parts = parts;
    return SCR_SUCCESS;
}

/* Whether tree (what: "a summary part", ...) holds no top key but a and b. */
static int only_keys(const char *path, const scr_kvtree *tree, const char *what, const char *a,
                     const char *b)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(tree); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        if (strcmp(key, a) != 0 && strcmp(key, b) != 0) {
            scr_err("%s: unexpected key '%s' at the top of %s, expected %s and %s", path, key, what,
                    a, b);
            return SCR_ERR_FORMAT;
        }
    }
    return SCR_SUCCESS;
}

/* A version 7 summary (without VERSION): DSET and RANK2FILE naming its
 * parts, *out_parts of them. */
static int check_top(const char *path, const scr_kvtree *top, int *out_parts)
{
    int krc = only_keys(path, top, "a version 7 summary", KEY_DSET, KEY_RANK2FILE);
    if (krc != SCR_SUCCESS) return krc;
    const scr_kvtree *desc = scr_kvtree_get(top, KEY_DSET);
    if (desc != NULL) {
        int rc = scr_dataset_validate(desc, path, KEY_DSET);
        if (rc != SCR_SUCCESS) return rc;
    }
    const scr_kvtree *r2f = scr_kvtree_get(top, KEY_RANK2FILE);
    if (r2f == NULL) {
        scr_err("%s: a version 7 summary without RANK2FILE, which names its parts", path);
        return SCR_ERR_FORMAT;
    }
    return validate_top_rank2file(path, r2f, out_parts);
}

static int validate_top(const char *path, const scr_kvtree *top)
{
    int parts;
    return check_top(path, top, &parts);
}

/* A part (without VERSION) is part of ranks first..first+count-1: its
 * header says so and it lists every rank of the range, no other. */
static int validate_part(const char *path, const scr_kvtree *tree, int part, int first, int count)
{
    char where[WHERE_MAX];
    int hfirst, hcount, k;
    int krc = only_keys(path, tree, "a summary part", KEY_PART, KEY_RANK2FILE);
    if (krc != SCR_SUCCESS) return krc;
    const scr_kvtree *header = scr_kvtree_get(tree, KEY_PART);
    if (scr_kvtree_size(header) != 1 ||
        scr_record_key_int(scr_kvtree_first_key(header), 0, &k) != SCR_SUCCESS)
        return scr_record_bad_value(path, KEY_PART, header, "one part index (>= 0)");
    scr_record_key_path(where, sizeof(where), "%s %d", KEY_PART, k);
    int rc = part_range(path, where, scr_kvtree_get(header, scr_kvtree_first_key(header)), &hfirst,
                        &hcount);
    if (rc != SCR_SUCCESS) return rc;
    if (k != part || hfirst != first || hcount != count) {
        scr_err("%s: holds part %d of ranks %d to %d, but the summary names it part %d of ranks %d "
                "to %d",
                path, k, hfirst, hfirst + hcount - 1, part, first, first + count - 1);
        return SCR_ERR_FORMAT;
    }
    const scr_kvtree *r2f = scr_kvtree_get(tree, KEY_RANK2FILE);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(r2f); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), KEY_RANK) != 0)
            return scr_record_bad_key(path, KEY_RANK2FILE, scr_kvtree_elem_key(e), "RANK");
    const scr_kvtree *ranks = scr_kvtree_get(r2f, KEY_RANK);
    for (scr_kvtree_elem *r = scr_kvtree_elem_first(ranks); r; r = scr_kvtree_elem_next(r)) {
        int rank;
        if (scr_record_key_int(scr_kvtree_elem_key(r), 0, &rank) != SCR_SUCCESS)
            return scr_record_bad_key(path, KEY_RANK2FILE " " KEY_RANK, scr_kvtree_elem_key(r),
                                      "ranks (integers >= 0)");
        if (rank < first || rank - first >= count) {
            scr_err("%s: lists rank %d, outside its part's ranks %d to %d", path, rank, first,
                    first + count - 1);
            return SCR_ERR_FORMAT;
        }
        rc = validate_rank(path, rank, scr_kvtree_elem_hash(r));
        if (rc != SCR_SUCCESS) return rc;
    }
    /* ranks in range and unique (keys of one level), so a short count means a gap */
    if (scr_kvtree_size(ranks) != count) {
        for (int r = first; r - first < count; r++)
            if (scr_kvtree_get_kv_int(r2f, KEY_RANK, r) == NULL) {
                scr_err("%s: does not list rank %d of its part (ranks %d to %d)", path, r, first,
                        first + count - 1);
                break;
            }
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

int scr_summary_read_part(const char *path, int part, int first, int count, scr_kvtree *summary)
{
    if (path == NULL || summary == NULL || part < 0 || first < 0 || count < 1 ||
        count > INT_MAX - first) {
        scr_err("summary: reading part %d of %d ranks from %d needs a path, a tree, a part >= 0 "
                "and a range of ranks >= 0",
                part, count, first);
        return SCR_ERR_ARG;
    }
    int64_t v = 0;
    scr_kvtree *raw = scr_kvtree_new();
    if (raw == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_read_file(path, raw);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_kvtree_util_get_int64(raw, SCR_RECORD_KEY_VERSION, &v) != SCR_SUCCESS ||
        v != SCR_SUMMARY_VERSION) {
        char expected[64];
        snprintf(expected, sizeof(expected), "%d, the version of summaries in parts",
                 SCR_SUMMARY_VERSION);
        rc = scr_record_bad_value(path, SCR_RECORD_KEY_VERSION,
                                  scr_kvtree_get(raw, SCR_RECORD_KEY_VERSION), expected);
        goto out;
    }
    scr_kvtree_unset(raw, SCR_RECORD_KEY_VERSION);
    rc = validate_part(path, raw, part, first, count);
    if (rc != SCR_SUCCESS) goto out;
    scr_kvtree_unset(raw, KEY_PART);
    return scr_kvtree_absorb(summary, raw);
out:
    scr_kvtree_delete(raw);
    return rc;
}

/* A version 7 summary read from path (top, without VERSION) into the
 * version 6 form: its parts' ranks in RANK2FILE, PARTS and PART gone. */
static int read_parts(const char *path, scr_kvtree *top)
{
    int parts = 0;
    int rc = check_top(path, top, &parts);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *r2f = scr_kvtree_get(top, KEY_RANK2FILE);
    scr_kvtree *ranks = scr_kvtree_new();
    if (ranks == NULL) return SCR_ERR_NOMEM;
    for (int k = 0; rc == SCR_SUCCESS && k < parts; k++) {
        const scr_kvtree *part = scr_kvtree_get_kv_int(r2f, KEY_PART, k);
        int first = 0, count = 0;
        char *ppath = NULL;
        scr_kvtree_util_get_int(part, KEY_FIRST, &first); /* checked above */
        scr_kvtree_util_get_int(part, KEY_RANKS, &count);
        rc = scr_summary_part_path(path, k, &ppath);
        if (rc == SCR_SUCCESS) rc = scr_summary_read_part(ppath, k, first, count, ranks);
        if (rc == SCR_ERR_NOTFOUND) {
            scr_err("%s: part %d (ranks %d to %d) is missing: no file %s", path, k, first,
                    first + count - 1, ppath);
            rc = SCR_ERR_FORMAT;
        }
        free(ppath);
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(ranks);
        return rc;
    }
    scr_kvtree_unset(r2f, KEY_PART);
    scr_kvtree_unset(r2f, KEY_PARTS);
    return scr_kvtree_absorb(top, ranks);
}

/* --- files -------------------------------------------------------------------------------- */

/* Which layout tree is in, checking and removing its VERSION. */
static int take_version(const char *path, scr_kvtree *tree, int *out_version)
{
    int64_t v = 0;
    if (scr_kvtree_get(tree, SCR_RECORD_KEY_VERSION) == NULL) {
        *out_version = scr_kvtree_get(tree, KEY_CKPT) ? 5 : SCR_SUMMARY_WHOLE_VERSION;
        return SCR_SUCCESS;
    }
    if (scr_kvtree_util_get_int64(tree, SCR_RECORD_KEY_VERSION, &v) == SCR_SUCCESS && v >= 1 &&
        v < SCR_SUMMARY_OLDEST_VERSION) {
        scr_err("%s: summary version %lld is older than this build reads (%d to %d)", path,
                (long long)v, SCR_SUMMARY_OLDEST_VERSION, SCR_SUMMARY_VERSION);
        return SCR_ERR_FORMAT;
    }
    int rc = scr_record_take_version(path, "summary", SCR_SUMMARY_VERSION, tree);
    if (rc != SCR_SUCCESS) return rc;
    *out_version = (int)v;
    return SCR_SUCCESS;
}

/* path into summary; with parts_too, a summary in parts is read with its
 * parts, otherwise as summary.scr alone (*out_parts: PARTS, 0 for a
 * summary in one file). */
static int read_summary(const char *path, scr_kvtree *summary, int parts_too, int *out_parts)
{
    if (path == NULL || summary == NULL) {
        scr_err("summary: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    scr_kvtree *raw = scr_kvtree_new();
    if (raw == NULL) return SCR_ERR_NOMEM;
    int version = SCR_SUMMARY_VERSION;
    *out_parts = 0;
    int rc = scr_kvtree_read_file(path, raw);
    if (rc != SCR_SUCCESS) goto out;
    rc = take_version(path, raw, &version);
    if (rc != SCR_SUCCESS) goto out;
    if (version == 5) {
        scr_kvtree *converted = scr_kvtree_new();
        rc = converted ? convert_v5(path, raw, converted) : SCR_ERR_NOMEM;
        scr_kvtree_delete(raw);
        raw = converted;
        if (rc != SCR_SUCCESS) goto out;
    }
    if (version == 7 && !parts_too) {
        rc = check_top(path, raw, out_parts);
        goto out;
    }
    if (version == 7) {
        rc = read_parts(path, raw);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = validate(path, raw);
out:
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(raw);
        return rc;
    }
    return scr_kvtree_absorb(summary, raw);
}

int scr_summary_read(const char *path, scr_kvtree *summary)
{
    int parts;
    return read_summary(path, summary, 1, &parts);
}

int scr_summary_read_top(const char *path, scr_kvtree *summary, int *out_parts)
{
    int parts = 0;
    if (out_parts == NULL) {
        scr_err("summary: reading the top of %s needs somewhere to put its parts",
                path ? path : "(null)");
        return SCR_ERR_ARG;
    }
    int rc = read_summary(path, summary, 0, &parts);
    if (rc == SCR_SUCCESS) *out_parts = parts;
    return rc;
}

int scr_summary_get_part(const scr_kvtree *summary, int part, int *out_first, int *out_count)
{
    const scr_kvtree *entry =
        scr_kvtree_get_kv_int(scr_kvtree_get(summary, KEY_RANK2FILE), KEY_PART, part);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    int rc = get_int_min(entry, KEY_FIRST, 0, out_first);
    return rc == SCR_SUCCESS ? get_int_min(entry, KEY_RANKS, 1, out_count) : rc;
}

/* What the file holds: VERSION, then DSET, SCR 3.1's COMPLETE when the
 * summary has it, and RANK2FILE, each sorted. */
static const char *const file_keys[] = {KEY_DSET, KEY_COMPLETE, KEY_RANK2FILE};

/* Only writing goes through scr_record: reading also takes versions 5 and 7. */
static const struct scr_record_kind summary_kind = {
    .name = "summary",
    .version = SCR_SUMMARY_WHOLE_VERSION,
    .validate = validate,
    .keys = file_keys,
    .nkeys = sizeof(file_keys) / sizeof(file_keys[0]),
};

int scr_summary_write(const char *path, const scr_kvtree *summary)
{
    if (path == NULL) {
        scr_err("summary: write called without a path");
        return SCR_ERR_ARG;
    }
    return scr_record_write(&summary_kind, path, summary);
}

/* --- writing from lists ------------------------------------------------------------------- */

/* A file of a rank in the order its level is written (kvtree_pack.h's
 * canonical order: names that are integers first, numerically). */
struct ordered_file {
    const struct scr_summary_file *file;
    size_t pos;
    struct scr_kvtree_sort_key k;
};

static int compare_files(const void *a, const void *b)
{
    const struct ordered_file *x = a, *y = b;
    int c = scr_kvtree_sort_key_compare(&x->k, &y->k);
    if (c == 0) c = (x->pos < y->pos) ? -1 : (x->pos > y->pos);
    return c;
}

/* One file's level, keys in canonical order: COMPRESSED, CRC, NOFETCH, SIZE. */
static void pack_file(scr_strbuf *b, const struct scr_summary_file *f)
{
    char text[32];
    scr_pack_key(b, f->name);
    scr_pack_count(b, 1 + (f->compressed != 0) + (f->has_crc != 0) + (f->nofetch != 0));
    if (f->compressed) {
        snprintf(text, sizeof(text), "%" PRIu64, f->stored_size);
        scr_pack_value(b, KEY_COMPRESSED, text);
    }
    if (f->has_crc) {
        snprintf(text, sizeof(text), "0x%x", f->crc);
        scr_pack_value(b, KEY_CRC, text);
    }
    if (f->nofetch) {
        scr_pack_key(b, KEY_NOFETCH);
        scr_pack_count(b, 0);
    }
    snprintf(text, sizeof(text), "%" PRIu64, f->size);
    scr_pack_value(b, KEY_SIZE, text);
}

/* One rank's level: FILE (when it has files), then FILES. */
static int pack_rank(scr_strbuf *b, int rank, int expected, const struct scr_summary_file *files,
                     int n, struct ordered_file **order, int *room)
{
    char text[32];
    int rc = check_rank_list(rank, expected, files, n);
    if (rc != SCR_SUCCESS) return rc;
    if (n > *room) {
        free(*order);
        *room = n;
        if ((*order = malloc(sizeof(**order) * (size_t)n)) == NULL) return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        (*order)[i].file = &files[i];
        (*order)[i].pos = (size_t)i;
        scr_kvtree_sort_key_init(&(*order)[i].k, files[i].name);
    }
    if (n > 1) qsort(*order, (size_t)n, sizeof(**order), compare_files);
    snprintf(text, sizeof(text), "%d", rank);
    scr_pack_key(b, text);
    scr_pack_count(b, n > 0 ? 2 : 1);
    if (n > 0) {
        scr_pack_key(b, KEY_FILE);
        scr_pack_count(b, (uint32_t)n);
        for (int i = 0; i < n; i++) pack_file(b, (*order)[i].file);
    }
    snprintf(text, sizeof(text), "%d", expected);
    scr_pack_value(b, KEY_FILES, text);
    return SCR_SUCCESS;
}

int scr_summary_write_ranks(const char *path, const scr_dataset *desc, int ranks,
                            scr_summary_rank_fn rank_files, void *ctx)
{
    char origin[4096 + 32], text[32];
    if (path == NULL || desc == NULL || ranks < 1) {
        scr_err("summary: writing %d ranks needs a path, a descriptor and at least one rank",
                ranks);
        return SCR_ERR_ARG;
    }
    /* never store what a reader would refuse */
    snprintf(origin, sizeof(origin), "%s (not written)", path);
    if (scr_dataset_validate(desc, origin, KEY_DSET) != SCR_SUCCESS) return SCR_ERR_TYPE;
    scr_strbuf b = SCR_STRBUF_INIT;
    struct ordered_file *order = NULL;
    int room = 0, rc = SCR_SUCCESS;
    scr_kvtree_file_begin(&b);
    scr_pack_count(&b, 3);
    snprintf(text, sizeof(text), "%d", SCR_SUMMARY_WHOLE_VERSION);
    scr_pack_value(&b, SCR_RECORD_KEY_VERSION, text);
    scr_pack_key(&b, KEY_DSET);
    scr_pack_tree(&b, desc);
    scr_pack_key(&b, KEY_RANK2FILE);
    scr_pack_count(&b, 2);
    scr_pack_key(&b, KEY_RANK);
    scr_pack_count(&b, (uint32_t)ranks);
    for (int r = 0; r < ranks; r++) {
        const struct scr_summary_file *files = NULL;
        int expected = 0, n = 0;
        rc = rank_files(ctx, r, &expected, &files, &n);
        if (rc != SCR_SUCCESS) goto out;
        rc = pack_rank(&b, r, expected, files, n, &order, &room);
        if (rc != SCR_SUCCESS) goto out;
    }
    snprintf(text, sizeof(text), "%d", ranks);
    scr_pack_value(&b, KEY_RANKS, text);
    rc = scr_kvtree_file_finish(&b);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_write_atomic(path, b.buf, b.len);
out:
    free(order);
    scr_strbuf_free(&b);
    return rc;
}

void scr_summary_rank_list_free(struct scr_summary_rank_list *list)
{
    free(list->files);
    free(list->listed);
    memset(list, 0, sizeof(*list));
}

int scr_summary_rank_list_of(const scr_filemap *rmap, int id, int rank,
                             struct scr_summary_rank_list *out)
{
    memset(out, 0, sizeof(*out));
    int rc = scr_rank_filemap_list_files(rmap, id, rank, &out->listed, &out->n);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* a rank the map does not list has no files */
    if (rc != SCR_SUCCESS) goto out;
    if (scr_filemap_get_expected_files(rmap, id, rank, &out->expected) != SCR_SUCCESS)
        out->expected = out->n;
    if (out->n > 0 && (out->files = calloc((size_t)out->n, sizeof(*out->files))) == NULL) {
        scr_err("summary: out of memory listing the %d files of rank %d", out->n, rank);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    for (int f = 0; f < out->n; f++) {
        struct scr_summary_file *file = &out->files[f];
        const scr_meta *meta = out->listed[f].meta;
        file->name = out->listed[f].name;
        rc = scr_meta_get_filesize(meta, &file->size);
        if (rc != SCR_SUCCESS) goto out;
        file->has_crc = scr_meta_get_crc32(meta, &file->crc) == SCR_SUCCESS;
        /* redundancy data is kept for rebuilds, never read back by a restart */
        file->nofetch = scr_meta_check_filetype(meta, SCR_META_TYPE_FULL) != SCR_SUCCESS;
        file->compressed = scr_meta_get_compressed(meta, &file->stored_size) == SCR_SUCCESS;
    }
out:
    if (rc != SCR_SUCCESS) scr_summary_rank_list_free(out);
    return rc;
}

int scr_summary_add_rank_files(scr_kvtree *summary, const scr_filemap *rmap, int id, int rank)
{
    struct scr_summary_rank_list list;
    int rc = scr_summary_rank_list_of(rmap, id, rank, &list);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_summary_set_rank(summary, rank, list.expected, list.files, list.n);
    scr_summary_rank_list_free(&list);
    return rc;
}

/* --- writing a summary in parts ----------------------------------------------------------- */

static const char *const top_keys[] = {KEY_DSET, KEY_RANK2FILE};

static const struct scr_record_kind summary_top_kind = {
    .name = "summary",
    .version = SCR_SUMMARY_VERSION,
    .validate = validate_top,
    .keys = top_keys,
    .nkeys = sizeof(top_keys) / sizeof(top_keys[0]),
};

int scr_summary_parts_of(int ranks, int part_ranks, int *out_parts)
{
    if (ranks < 1 || part_ranks < 1 || out_parts == NULL) {
        scr_err("summary: %d ranks in parts of %d (needs at least one of each)", ranks, part_ranks);
        return SCR_ERR_ARG;
    }
    *out_parts = ranks / part_ranks + (ranks % part_ranks != 0);
    return SCR_SUCCESS;
}

int scr_summary_write_top(const char *path, const scr_dataset *desc, int ranks, int part_ranks)
{
    int parts = 0;
    if (path == NULL || desc == NULL) {
        scr_err("summary: writing a summary in parts needs a path and a descriptor");
        return SCR_ERR_ARG;
    }
    int rc = scr_summary_parts_of(ranks, part_ranks, &parts);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *top = scr_kvtree_new();
    rc = top ? scr_summary_set_dataset(top, desc) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_summary_set_ranks(top, ranks);
    scr_kvtree *r2f = scr_kvtree_get(top, KEY_RANK2FILE);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(r2f, KEY_PARTS, parts);
    for (int k = 0; rc == SCR_SUCCESS && k < parts; k++) {
        int first = k * part_ranks;
        scr_kvtree *part = scr_kvtree_set_kv_int(r2f, KEY_PART, k);
        rc = part ? scr_kvtree_util_set_int(part, KEY_FIRST, first) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS)
            rc = scr_kvtree_util_set_int(part, KEY_RANKS,
                                         ranks - first < part_ranks ? ranks - first : part_ranks);
    }
    if (rc == SCR_SUCCESS) rc = scr_record_write(&summary_top_kind, path, top);
    scr_kvtree_delete(top);
    return rc;
}

int scr_summary_write_part(const char *path, int part, int first, int count,
                           scr_summary_rank_fn rank_files, void *ctx)
{
    char text[32];
    if (path == NULL || rank_files == NULL || part < 0 || first < 0 || count < 1 ||
        count > INT_MAX - first) {
        scr_err("summary: writing part %d of %d ranks from %d needs a path, a source of lists, a "
                "part >= 0 and a range of ranks >= 0",
                part, count, first);
        return SCR_ERR_ARG;
    }
    scr_strbuf b = SCR_STRBUF_INIT;
    struct ordered_file *order = NULL;
    int room = 0, rc = SCR_SUCCESS;
    /* the levels in canonical order: VERSION first, then PART and RANK2FILE */
    scr_kvtree_file_begin(&b);
    scr_pack_count(&b, 3);
    snprintf(text, sizeof(text), "%d", SCR_SUMMARY_VERSION);
    scr_pack_value(&b, SCR_RECORD_KEY_VERSION, text);
    scr_pack_key(&b, KEY_PART);
    scr_pack_count(&b, 1);
    snprintf(text, sizeof(text), "%d", part);
    scr_pack_key(&b, text);
    scr_pack_count(&b, 2);
    snprintf(text, sizeof(text), "%d", first);
    scr_pack_value(&b, KEY_FIRST, text);
    snprintf(text, sizeof(text), "%d", count);
    scr_pack_value(&b, KEY_RANKS, text);
    scr_pack_key(&b, KEY_RANK2FILE);
    scr_pack_count(&b, 1);
    scr_pack_key(&b, KEY_RANK);
    scr_pack_count(&b, (uint32_t)count);
    for (int i = 0; i < count; i++) {
        const struct scr_summary_file *files = NULL;
        int expected = 0, n = 0;
        rc = rank_files(ctx, first + i, &expected, &files, &n);
        if (rc != SCR_SUCCESS) goto out;
        rc = pack_rank(&b, first + i, expected, files, n, &order, &room);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_kvtree_file_finish(&b);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_write_atomic(path, b.buf, b.len);
out:
    free(order);
    scr_strbuf_free(&b);
    return rc;
}
