/* dataset_check.c — the files of a summary looked up on the prefix, by size. */
#include "dataset_check.h"
#include "dataset.h"
#include "rank2file.h"
#include "scan_scr31.h"
#include "scr_err.h"
#include "summary.h"
#include "util_log.h"
#include "util_path.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A bad entry onto the end of c; path is copied. */
static int add_bad(struct scr_dataset_check *c, enum scr_dataset_check_what what, const char *path,
                   int rank, long long size, long long recorded)
{
    struct scr_dataset_check_bad *more = realloc(c->bad, sizeof(*more) * (size_t)(c->nbad + 1));
    char *copy = strdup(path);
    if (more != NULL) c->bad = more;
    if (more == NULL || copy == NULL) {
        free(copy);
        scr_err("out of memory noting that %s is not as recorded", path);
        return SCR_ERR_NOMEM;
    }
    c->bad[c->nbad++] = (struct scr_dataset_check_bad){what, copy, rank, size, recorded};
    /* ranks come in ascending order: a repeat can only be the last one */
    if (rank < 0 || (c->nranks > 0 && c->ranks[c->nranks - 1] == rank)) return SCR_SUCCESS;
    int *ranks = realloc(c->ranks, sizeof(int) * (size_t)(c->nranks + 1));
    if (ranks == NULL) {
        scr_err("out of memory noting that %s is not as recorded", path);
        return SCR_ERR_NOMEM;
    }
    c->ranks = ranks;
    c->ranks[c->nranks++] = rank;
    return SCR_SUCCESS;
}

/* The size path has as a regular file, -1 when it has none. */
static long long size_on_disk(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return (long long)st.st_size;
}

/* Every file of rank that summary lists, against its recorded size. */
static int check_rank(const char *dsdir, const scr_kvtree *summary, int rank,
                      struct scr_dataset_check *c)
{
    const char **names = NULL;
    int n = 0;
    int rc = scr_summary_list_files(summary, rank, &names, &n);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS; /* a rank that wrote nothing */
    if (rc != SCR_SUCCESS) return rc;
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
        uint64_t size = 0, stored = 0;
        char *path = NULL;
        rc = scr_path_join(dsdir, names[f], &path);
        if (rc != SCR_SUCCESS) break;
        if (scr_summary_get_file_compressed(summary, rank, names[f], &stored) == SCR_SUCCESS)
            size = stored;
        else
            scr_summary_get_file_size(summary, rank, names[f],
                                      &size); /* reading checked that it has one */
        long long has = size_on_disk(path);
        if (has != (long long)size)
            rc = add_bad(c, SCR_DATASET_CHECK_FILE, path, rank, has, (long long)size);
        free(path);
    }
    free(names);
    return rc;
}

/* SCR 3.1's dataset: the files of its rank2file exist, and add up to the
 * descriptor's totals. */
static int check_scr31(const char *dsdir, const scr_kvtree *summary, struct scr_dataset_check *c)
{
    scr_kvtree *files = NULL;
    char *scrdir = NULL, *prefix = NULL;
    int ranks = 0, count = 0;
    long long bytes = 0;
    int got = scr_rank2file_read(dsdir, &ranks, &files); /* a damaged one says why */
    if (got == SCR_ERR_NOMEM) return got;
    if (got != SCR_SUCCESS) {
        char *path = NULL;
        int rc = scr_path_join(dsdir, SCR_RANK2FILE_NAME, &path);
        if (rc == SCR_SUCCESS) rc = add_bad(c, SCR_DATASET_CHECK_FILE, path, -1, -1, -1);
        free(path);
        return rc;
    }
    /* SCR 3.1 names files relative to the prefix, two levels above dsdir */
    int rc = scr_path_dirname(dsdir, &scrdir);
    if (rc == SCR_SUCCESS) rc = scr_path_dirname(scrdir, &prefix);
    for (int r = 0; rc == SCR_SUCCESS && r < ranks; r++) {
        const scr_kvtree *listed = scr_kvtree_get(scr_kvtree_get_kv_int(files, "RANK", r), "FILE");
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(listed); rc == SCR_SUCCESS && e;
             e = scr_kvtree_elem_next(e)) {
            char *path = NULL;
            rc = scr_path_join(prefix, scr_kvtree_elem_key(e), &path);
            if (rc != SCR_SUCCESS) break;
            long long has = size_on_disk(path);
            if (has < 0)
                rc = add_bad(c, SCR_DATASET_CHECK_FILE, path, r, -1, -1);
            else
                bytes += has;
            count++;
            free(path);
        }
    }
    const scr_dataset *desc = NULL;
    uint64_t size = 0;
    int nfiles = 0;
    scr_summary_get_dataset(summary, &desc);
    if (rc == SCR_SUCCESS && desc != NULL && scr_dataset_get_files(desc, &nfiles) == SCR_SUCCESS &&
        nfiles != count)
        rc = add_bad(c, SCR_DATASET_CHECK_COUNT, dsdir, -1, count, nfiles);
    /* the bytes of a missing file are missing from the total already */
    if (rc == SCR_SUCCESS && c->nbad == 0 && desc != NULL &&
        scr_dataset_get_size(desc, &size) == SCR_SUCCESS && (uint64_t)bytes != size)
        rc = add_bad(c, SCR_DATASET_CHECK_BYTES, dsdir, -1, bytes, (long long)size);
    scr_kvtree_delete(files);
    free(scrdir);
    free(prefix);
    return rc;
}

int scr_dataset_check_files(const char *dsdir, const scr_kvtree *summary,
                            struct scr_dataset_check *out)
{
    if (dsdir == NULL || summary == NULL || out == NULL) {
        scr_err("checking a dataset's files needs its directory, its summary and a place for the "
                "result");
        return SCR_ERR_ARG;
    }
    memset(out, 0, sizeof(*out));
    if (scr_scan_scr31_is_bare_summary(summary)) return check_scr31(dsdir, summary, out);
    int *ranks = NULL, nranks = 0;
    int rc = scr_summary_list_ranks(summary, &ranks, &nranks);
    for (int i = 0; rc == SCR_SUCCESS && i < nranks; i++)
        rc = check_rank(dsdir, summary, ranks[i], out);
    free(ranks);
    if (rc == SCR_ERR_NOMEM) scr_err("%s: out of memory checking the files of the dataset", dsdir);
    return rc;
}

void scr_dataset_check_describe(const struct scr_dataset_check_bad *b, char *buf, size_t len)
{
    if (buf == NULL || len == 0) return;
    switch (b->what) {
    case SCR_DATASET_CHECK_BYTES:
        snprintf(buf, len, "%s: its files hold %lld bytes, %lld recorded", b->path, b->size,
                 b->recorded);
        break;
    case SCR_DATASET_CHECK_COUNT:
        snprintf(buf, len, "%s: its rank2file lists %lld files, %lld recorded", b->path, b->size,
                 b->recorded);
        break;
    default:
        if (b->size < 0)
            snprintf(buf, len, "%s is missing", b->path);
        else if (b->recorded < 0)
            snprintf(buf, len, "%s is %lld bytes", b->path, b->size);
        else
            snprintf(buf, len, "%s is %lld bytes, %lld recorded", b->path, b->size, b->recorded);
        break;
    }
}

void scr_dataset_check_free(struct scr_dataset_check *c)
{
    if (c == NULL) return;
    for (int i = 0; i < c->nbad; i++) free(c->bad[i].path);
    free(c->bad);
    free(c->ranks);
    memset(c, 0, sizeof(*c));
}
