/* scan_scr31.c — completing an SCR 3.1 summary from its rank2file. */
#include "scan_scr31.h"
#include "dataset.h"
#include "rank2file.h"
#include "scr_err.h"
#include "summary.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_RANK2FILE "RANK2FILE"
#define KEY_RANK "RANK"
#define KEY_FILE "FILE"

int scr_scan_scr31_is_bare_summary(const scr_kvtree *summary)
{
    return scr_kvtree_get(summary, KEY_RANK2FILE) == NULL;
}

/* What the files add up to on the prefix. */
struct tally {
    uint64_t bytes;
    int files;
};

/* Rank r's files (rel: relative to the prefix) listed in out with their sizes
 * on the prefix. */
static int list_rank(const char *dsdir, const char *prefix, int r, const scr_kvtree *entry,
                     scr_kvtree *out, struct tally *t)
{
    const scr_kvtree *files = scr_kvtree_get(entry, KEY_FILE);
    int rc = scr_summary_set_expected_files(out, r, scr_kvtree_size(files));
    for (scr_kvtree_elem *f = scr_kvtree_elem_first(files); rc == SCR_SUCCESS && f;
         f = scr_kvtree_elem_next(f)) {
        const char *rel = scr_kvtree_elem_key(f);
        char *path = NULL, *name = NULL;
        struct stat st;
        rc = scr_path_join(prefix, rel, &path);
        if (rc == SCR_SUCCESS) rc = scr_path_relative(dsdir, path, &name);
        if (rc == SCR_SUCCESS && stat(path, &st) != 0) {
            scr_err("%s: file %s of rank %d, listed in its rank2file, cannot be read: %s", dsdir,
                    path, r, strerror(errno));
            rc = SCR_ERR_FORMAT;
        } else if (rc == SCR_SUCCESS && !S_ISREG(st.st_mode)) {
            scr_err("%s: file %s of rank %d, listed in its rank2file, is not a regular file", dsdir,
                    path, r);
            rc = SCR_ERR_FORMAT;
        }
        if (rc == SCR_SUCCESS) rc = scr_summary_set_file(out, r, name, (uint64_t)st.st_size);
        if (rc == SCR_SUCCESS) {
            t->bytes += (uint64_t)st.st_size;
            t->files++;
        }
        free(path);
        free(name);
    }
    return rc;
}

/* The tally against what the descriptor records. */
static int check_tally(const char *dsdir, const scr_dataset *desc, const struct tally *t)
{
    uint64_t size;
    int files, have_size = scr_dataset_get_size(desc, &size) == SCR_SUCCESS;
    int have_files = scr_dataset_get_files(desc, &files) == SCR_SUCCESS;
    if (have_files && files != t->files) {
        scr_err("%s: its rank2file lists %d files, its summary's descriptor records FILES %d",
                dsdir, t->files, files);
        return SCR_ERR_FORMAT;
    }
    if (have_size && size != t->bytes) {
        scr_err("%s: its files hold %" PRIu64
                " bytes on the prefix, its summary's descriptor records SIZE %" PRIu64
                " (a file was truncated, extended or replaced)",
                dsdir, t->bytes, size);
        return SCR_ERR_FORMAT;
    }
    if (!have_size || !have_files)
        scr_warn("%s: SCR 3.1 recorded no %s for this dataset and no size or CRC per file: its "
                 "files are "
                 "accepted unverified",
                 dsdir, have_size ? "FILES" : "SIZE");
    return SCR_SUCCESS;
}

int scr_scan_scr31_complete_summary(const char *dsdir, scr_kvtree *summary)
{
    if (dsdir == NULL || summary == NULL) {
        scr_err("completing an SCR 3.1 summary needs a dataset directory and the summary");
        return SCR_ERR_ARG;
    }
    if (!scr_scan_scr31_is_bare_summary(summary)) return SCR_SUCCESS;
    const scr_dataset *desc = NULL;
    if (scr_summary_get_dataset(summary, &desc) != SCR_SUCCESS) {
        scr_err("%s: its summary lists no files and has no dataset descriptor", dsdir);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *files = NULL, *out = scr_kvtree_new();
    char *prefix = NULL, *scrdir = NULL;
    struct tally t = {0, 0};
    int ranks = 0;
    int rc = out ? scr_rank2file_read(dsdir, &ranks, &files) : SCR_ERR_NOMEM;
    if (rc == SCR_ERR_NOTFOUND)
        scr_err(
            "%s: its summary lists no files and there is no %s beside it (SCR 3.1's list of them)",
            dsdir, SCR_RANK2FILE_NAME);
    if (rc != SCR_SUCCESS) goto out;
    /* SCR 3.1 names files relative to the prefix, two levels above dsdir */
    rc = scr_path_dirname(dsdir, &scrdir);
    if (rc == SCR_SUCCESS) rc = scr_path_dirname(scrdir, &prefix);
    if (rc == SCR_SUCCESS) rc = scr_summary_set_ranks(out, ranks);
    for (int r = 0; rc == SCR_SUCCESS && r < ranks; r++)
        rc = list_rank(dsdir, prefix, r, scr_kvtree_get_kv_int(files, KEY_RANK, r), out, &t);
    if (rc == SCR_SUCCESS) rc = check_tally(dsdir, desc, &t);
    if (rc == SCR_SUCCESS) { /* summary changes only now, when all is well */
        scr_kvtree *r2f = scr_kvtree_dup(scr_kvtree_get(out, KEY_RANK2FILE));
        if (r2f == NULL || scr_kvtree_set(summary, KEY_RANK2FILE, r2f) == NULL) rc = SCR_ERR_NOMEM;
    }
out:
    if (rc == SCR_ERR_NOMEM) scr_err("%s: out of memory reading its rank2file", dsdir);
    scr_kvtree_delete(files);
    scr_kvtree_delete(out);
    free(prefix);
    free(scrdir);
    return rc;
}
