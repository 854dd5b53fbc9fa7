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

/* Copy the partner copy of name to <name>.rebuild in the dataset directory,
 * checked against meta; *out_tmp is where it went. */
static int copy_back(const struct scr_scan *scan, const char *pdir, const char *name, scr_meta *meta, void *buf,
                     size_t bufsize, char **out_tmp)
{
    char *src = NULL, *dest = NULL;
    uint64_t size = 0;
    uint32_t crc = 0;
    struct scr_copy_result got = {0, 0};
    int rc = scr_partner_copy_path(pdir, name, &src);
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_file_path(scan->dir, name, &dest);
    size_t len = dest ? strlen(dest) + 9 : 0;
    if (rc == SCR_SUCCESS && (*out_tmp = malloc(len)) == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) snprintf(*out_tmp, len, "%s.rebuild", dest);
    if (rc == SCR_SUCCESS) rc = scr_copy_file(src, *out_tmp, buf, bufsize, 1, &got);
    if (rc == SCR_SUCCESS && (scr_meta_get_filesize(meta, &size) != SCR_SUCCESS || size != got.bytes)) {
        scr_err("%s: %llu bytes, %llu recorded", src, (unsigned long long)got.bytes, (unsigned long long)size);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS && scr_meta_get_crc32(meta, &crc) == SCR_SUCCESS && crc != got.crc) {
        scr_err("%s is damaged: CRC32 0x%08x, 0x%08x recorded", src, got.crc, crc);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS) rc = scr_meta_set_crc32(meta, got.crc);
    free(src);
    free(dest);
    return rc;
}

int scr_rebuild_partner_rank(const struct scr_scan *scan, int rank, size_t bufsize)
{
    char *pdir = NULL, *path = NULL, **tmps = NULL;
    struct scr_rank_filemap_file *files = NULL;
    int n = 0, done = 0;
    scr_filemap *rmap = scr_filemap_new();
    void *buf = malloc(bufsize);
    int rc = (rmap && buf) ? scr_partner_copy_dir(scan->dir, rank, &pdir) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_path(pdir, rank, &path);
    if (rc == SCR_SUCCESS && access(path, F_OK) != 0) rc = SCR_ERR_NOTFOUND;
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_read(path, rmap);
    if (rc == SCR_SUCCESS && !scr_filemap_have_rank_by_dataset(rmap, scan->id, rank)) {
        scr_err("%s does not describe rank %d in dataset %d", path, rank, scan->id);
        rc = SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_list_files(rmap, scan->id, rank, &files, &n);
    if (rc == SCR_SUCCESS && n > 0 && (tmps = calloc((size_t)n, sizeof(char *))) == NULL) rc = SCR_ERR_NOMEM;
    for (; rc == SCR_SUCCESS && done < n; done++) {
        scr_meta *meta = scr_meta_new();
        rc = meta ? scr_meta_copy(meta, files[done].meta) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = copy_back(scan, pdir, files[done].name, meta, buf, bufsize, &tmps[done]);
        /* files[] points into rmap: keep the name before the meta is replaced */
        char *name = rc == SCR_SUCCESS ? strdup(files[done].name) : NULL;
        if (rc == SCR_SUCCESS) rc = name ? scr_filemap_set_meta(rmap, scan->id, rank, name, meta) : SCR_ERR_NOMEM;
        free(name);
        scr_meta_delete(meta);
    }
    /* every copy checked: give each its final name, then the rank filemap */
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        size_t len = strlen(tmps[i]) - strlen(".rebuild");
        char *final = strndup(tmps[i], len);
        if (final == NULL) rc = SCR_ERR_NOMEM;
        else if (rename(tmps[i], final) != 0) {
            scr_err("cannot rename %s to %s: %s", tmps[i], final, strerror(errno));
            rc = SCR_ERR_IO;
        }
        free(final);
    }
    free(path);
    path = NULL;
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_path(scan->dir, rank, &path);
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_write(path, rmap);
    if (rc == SCR_SUCCESS) scr_dbg(1, "%s: rebuilt rank %d from its PARTNER copy", scan->dir, rank);
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
