/* rebuild_partner.c — a rank's files from the PARTNER copy a scavenge put
 * under partner.<rank>/ (partner_copy.h). */
#include "meta.h"
#include "partner_copy.h"
#include "rank_filemap.h"
#include "rebuild_schemes.h"
#include "scr_err.h"
#include "util_copy.h"
#include "util_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copy the partner copy of name (listed by the rank filemap of rank in
 * pdir) to <name>.rebuild in the dataset directory, checked against meta;
 * *out_tmp is where it went. */
static int copy_back(const struct scr_scan *scan, int rank, const char *pdir, const char *name,
                     scr_meta *meta, void *buf, size_t bufsize, char **out_tmp)
{
    char *src = NULL, *dest = NULL;
    uint64_t size = 0;
    uint32_t crc = 0;
    struct scr_copy_result got = {0};
    char *record = NULL;
    int rc = scr_partner_copy_path(pdir, name, &src);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_path(pdir, rank, &record);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_file_path(scan->dir, name, record, &dest);
    if (rc != SCR_SUCCESS) goto out;
    size_t len = strlen(dest) + 9;
    if ((*out_tmp = malloc(len)) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    snprintf(*out_tmp, len, "%s.rebuild", dest);
    rc = scr_copy(src, *out_tmp, &(struct scr_copy_opts){.buf = buf, .bufsize = bufsize, .crc = 1},
                  &got);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_meta_get_filesize(meta, &size) != SCR_SUCCESS || size != got.bytes) {
        scr_err("%s: %llu bytes, %llu recorded", src, (unsigned long long)got.bytes,
                (unsigned long long)size);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    if (scr_meta_get_crc32(meta, &crc) == SCR_SUCCESS && crc != got.crc) {
        scr_err("%s is damaged: CRC32 0x%08x, 0x%08x recorded", src, got.crc, crc);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc = scr_meta_set_crc32(meta, got.crc);
    if (rc == SCR_SUCCESS) rc = scr_meta_unset_compressed(meta); /* copied as it is */
out:
    free(src);
    free(dest);
    free(record);
    return rc;
}

/* Read into rmap the rank filemap of rank's PARTNER copy under pdir; a rank
 * without one is SCR_ERR_NOTFOUND, silently: the caller tries other sources. */
static int read_partner_filemap(const struct scr_scan *scan, int rank, const char *pdir,
                                scr_filemap *rmap)
{
    char *path = NULL;
    int rc = scr_rank_filemap_path(pdir, rank, &path);
    if (rc != SCR_SUCCESS) return rc;
    if (access(path, F_OK) != 0) {
        rc = SCR_ERR_NOTFOUND;
        goto out;
    }
    rc = scr_rank_filemap_read(path, rmap);
    if (rc != SCR_SUCCESS) goto out;
    if (!scr_filemap_have_rank_by_dataset(rmap, scan->id, rank)) {
        scr_err("%s does not describe rank %d in dataset %d", path, rank, scan->id);
        rc = SCR_ERR_FORMAT;
    }
out:
    free(path);
    return rc;
}

/* Copy file back to *out_tmp and record its checked meta in rmap. */
static int copy_file_back(const struct scr_scan *scan, int rank, const char *pdir,
                          const struct scr_rank_filemap_file *file, scr_filemap *rmap, void *buf,
                          size_t bufsize, char **out_tmp)
{
    char *name = NULL;
    scr_meta *meta = scr_meta_new();
    if (meta == NULL) return SCR_ERR_NOMEM;
    int rc = scr_meta_copy(meta, file->meta);
    if (rc != SCR_SUCCESS) goto out;
    rc = copy_back(scan, rank, pdir, file->name, meta, buf, bufsize, out_tmp);
    if (rc != SCR_SUCCESS) goto out;
    /* file points into rmap: keep the name before the meta is replaced */
    if ((name = strdup(file->name)) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    rc = scr_filemap_set_meta(rmap, scan->id, rank, name, meta);
out:
    free(name);
    scr_meta_delete(meta);
    return rc;
}

/* Give each of the n checked copies its final name (tmps without ".rebuild"). */
static int rename_copies(char **tmps, int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = strlen(tmps[i]) - strlen(".rebuild");
        char *final = strndup(tmps[i], len);
        if (final == NULL) return SCR_ERR_NOMEM;
        if (rename(tmps[i], final) != 0) {
            scr_err("cannot rename %s to %s: %s", tmps[i], final, strerror(errno));
            free(final);
            return SCR_ERR_IO;
        }
        free(final);
    }
    return SCR_SUCCESS;
}

int scr_rebuild_partner_rank(const struct scr_scan *scan, int rank, size_t bufsize)
{
    char *pdir = NULL, *path = NULL, **tmps = NULL;
    struct scr_rank_filemap_file *files = NULL;
    int n = 0;
    scr_filemap *rmap = scr_filemap_new();
    void *buf = malloc(bufsize);
    int rc = SCR_ERR_NOMEM;
    if (rmap == NULL || buf == NULL) goto out;
    rc = scr_partner_copy_dir(scan->dir, rank, &pdir);
    if (rc != SCR_SUCCESS) goto out;
    rc = read_partner_filemap(scan, rank, pdir, rmap);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_list_files(rmap, scan->id, rank, &files, &n);
    if (rc != SCR_SUCCESS) goto out;
    if (n > 0 && (tmps = calloc((size_t)n, sizeof(char *))) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        rc = copy_file_back(scan, rank, pdir, &files[i], rmap, buf, bufsize, &tmps[i]);
        if (rc != SCR_SUCCESS) goto out;
    }
    /* every copy checked: give each its final name, then the rank filemap */
    rc = rename_copies(tmps, n);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_path(scan->dir, rank, &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_write(path, rmap);
    if (rc != SCR_SUCCESS) goto out;
    scr_dbg(1, "%s: rebuilt rank %d from its PARTNER copy", scan->dir, rank);
out:
    for (int i = 0; tmps && i < n; i++) {
        if (rc != SCR_SUCCESS && tmps[i]) unlink(tmps[i]);
        free(tmps[i]);
    }
    free(tmps);
    free(files);
    free(pdir);
    free(path);
    free(buf);
    scr_filemap_delete(rmap);
    return rc;
}
