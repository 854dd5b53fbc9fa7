/* rebuild_member.c — a redundancy set member's files during a rebuild. */
#include "rebuild_member.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "rank_filemap.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TMP_SUFFIX ".rebuild"

const scr_kvtree *scr_rebuild_member_metas_of(const struct rebuild_member *m,
                                              const struct scr_scan_set *set, int self, int other)
{
    if (other == self) return scr_kvtree_get(m->header, "CURRENT");
    if (set->kind == SCR_REDUNDANCY_XOR)
        return (other + 1) % set->size == self ? scr_kvtree_get(m->header, "PARTNER") : NULL;
    return scr_kvtree_get_kv_int(m->header, "PARTNERS", other);
}

/* The name under which rank lists the file meta describes: found among
 * the files of its rank filemap (listed) by original path and name, else as
 * a scavenge would name it. */
static int name_of(const struct scr_scan *scan, int rank,
                   const struct scr_rank_filemap_file *listed, int nlisted, const scr_meta *meta,
                   char **out)
{
    const char *path = NULL, *name = NULL, *file = NULL;
    scr_meta_get_origpath(meta, &path);
    scr_meta_get_origname(meta, &name);
    for (int i = 0; path != NULL && name != NULL && i < nlisted; i++) {
        if (listed[i].meta == NULL ||
            scr_meta_check_origpath(listed[i].meta, path) != SCR_SUCCESS ||
            scr_meta_check_origname(listed[i].meta, name) != SCR_SUCCESS)
            continue;
        *out = strdup(listed[i].name);
        return *out != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    }
    if (scr_meta_get_filename(meta, &file) != SCR_SUCCESS) {
        scr_err("%s: a file of rank %d has no name in the redundancy header", scan->dir, rank);
        return SCR_ERR_FORMAT;
    }
    return scr_rank_filemap_name_of(scan->dir, file, meta, out);
}

/* 1 when the rank filemap lists name as stored compressed (meta.h
 * COMPRESSED): a rebuild reads a member's bytes as they lie on the prefix,
 * which only a scavenge puts there, always uncompressed. */
static int listed_compressed(const struct scr_rank_filemap_file *listed, int nlisted,
                             const char *name)
{
    uint64_t stored = 0;
    for (int i = 0; i < nlisted; i++)
        if (strcmp(listed[i].name, name) == 0)
            return scr_meta_get_compressed(listed[i].meta, &stored) == SCR_SUCCESS;
    return 0;
}

/* Fill names/paths/parts for the n files of the header's record (FILE i {meta}),
 * with the rank filemap of rank, when it has a usable one, read once for all. */
static int name_files(const struct scr_scan *scan, int rank, const scr_kvtree *current, int n,
                      struct rebuild_member *m)
{
    scr_filemap *rmap = NULL;
    struct scr_rank_filemap_file *listed = NULL;
    int nlisted = 0;
    int rc = scr_scan_read_rank_filemap(scan, rank, &rmap);
    if (rc != SCR_SUCCESS) goto out;
    /* a rank filemap that lists nothing usable only costs us its names:
     * the files are then named as a scavenge would name them */
    if (rmap != NULL &&
        scr_rank_filemap_list_files(rmap, scan->id, rank, &listed, &nlisted) != SCR_SUCCESS) {
        listed = NULL;
        nlisted = 0;
    }
    for (int i = 0; i < n; i++) {
        const scr_meta *meta = scr_kvtree_get_kv_int(current, "FILE", i);
        uint64_t size = 0;
        if (meta == NULL || scr_meta_get_filesize(meta, &size) != SCR_SUCCESS) {
            scr_err("%s: the redundancy header gives no size for file %d of rank %d", scan->dir, i,
                    rank);
            rc = SCR_ERR_FORMAT;
            goto out;
        }
        m->parts[i].size = size;
        rc = name_of(scan, rank, listed, nlisted, meta, &m->names[i]);
        if (rc != SCR_SUCCESS) goto out;
        if (listed_compressed(listed, nlisted, m->names[i])) {
            scr_err("%s/%s of rank %d is stored compressed; a rebuild reads redundancy set members "
                    "as written, which is how a scavenge stores them",
                    scan->dir, m->names[i], rank);
            rc = SCR_ERR_FORMAT;
            goto out;
        }
        char record[4300];
        snprintf(record, sizeof(record),
                 "%s (rank %d, as its rank filemap or redundancy data name it)", scan->dir, rank);
        rc = scr_rank_filemap_file_path(scan->dir, m->names[i], record, &m->paths[i]);
        if (rc != SCR_SUCCESS) goto out;
    }
out:
    free(listed);
    scr_filemap_delete(rmap);
    return rc;
}

/* Fill names/parts from the metas of current (RANK, FILES, FILE i {meta}). */
static int describe(const struct scr_scan *scan, int rank, const scr_kvtree *current,
                    struct rebuild_member *m)
{
    int n = 0, r = -1;
    if (scr_kvtree_util_get_int(current, "FILES", &n) != SCR_SUCCESS || n < 0 || n > 1 << 20 ||
        scr_kvtree_util_get_int(current, "RANK", &r) != SCR_SUCCESS || r != rank) {
        scr_err("%s: the redundancy header's record of rank %d's files is damaged", scan->dir,
                rank);
        return SCR_ERR_FORMAT;
    }
    m->current = scr_kvtree_dup(current);
    m->names = calloc((size_t)n + 1, sizeof(char *));
    m->paths = calloc((size_t)n + 1, sizeof(char *));
    m->parts = calloc((size_t)n + 1, sizeof(scr_padfile_part));
    if (m->current == NULL || m->names == NULL || m->paths == NULL || m->parts == NULL)
        return SCR_ERR_NOMEM;
    for (int i = 0; i < n; i++) m->parts[i].fd = -1;
    m->nfiles = n;
    return name_files(scan, rank, current, n, m);
}

static int open_file(const char *path, int flags, int *out_fd)
{
    int rc = scr_open_regular(path, flags, 0600, out_fd);
    if (rc == SCR_SUCCESS) return SCR_SUCCESS;
    *out_fd = -1;
    if (rc == SCR_ERR_NOTFOUND) scr_err("cannot open %s: %s", path, strerror(ENOENT));
    return SCR_ERR_IO;
}

int scr_rebuild_member_open(const struct scr_scan *scan, const struct scr_scan_set *set, int i,
                            struct rebuild_member *m)
{
    char name[128];
    struct scr_redundancy_name rn = {set->kind, i, set->size, set->set_id};
    memset(m, 0, sizeof(*m));
    m->rfd = -1;
    m->rank = set->member_rank[i];
    /* what is open or allocated on failure is the caller's to close */
    int rc = scr_redundancy_file_name(&rn, name, sizeof(name));
    if (rc != SCR_SUCCESS) return rc;
    if ((m->rname = strdup(name)) == NULL) return SCR_ERR_NOMEM;
    rc = scr_path_join(scan->dir, name, &m->rpath);
    if (rc != SCR_SUCCESS) return rc;
    rc = open_file(m->rpath, O_RDONLY, &m->rfd);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_redundancy_file_read_header(m->rfd, m->rpath, &m->header, &m->hlen);
    if (rc != SCR_SUCCESS) return rc;
    rc = describe(scan, m->rank, scr_kvtree_get(m->header, "CURRENT"), m);
    if (rc != SCR_SUCCESS) return rc;
    for (int f = 0; f < m->nfiles; f++) {
        m->parts[f].path = m->paths[f];
        if (m->parts[f].size == 0) continue;
        rc = open_file(m->paths[f], O_RDONLY, &m->parts[f].fd);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

static int tmp_path(const char *path, char **out)
{
    size_t len = strlen(path) + sizeof(TMP_SUFFIX);
    if ((*out = malloc(len)) == NULL) return SCR_ERR_NOMEM;
    snprintf(*out, len, "%s%s", path, TMP_SUFFIX);
    return SCR_SUCCESS;
}

/* Create path (its directory too) at size bytes, open for reading and writing. */
static int create_sized(const char *path, uint64_t size, int *out_fd)
{
    char *dir = NULL;
    int rc = scr_path_dirname(path, &dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mkdir_p(dir, 0700);
    free(dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = open_file(path, O_RDWR | O_CREAT | O_TRUNC, out_fd);
    if (rc != SCR_SUCCESS) return rc;
    if (ftruncate(*out_fd, (off_t)size) != 0) {
        scr_err("cannot make %s %llu bytes long: %s", path, (unsigned long long)size,
                strerror(errno));
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

/* The lost member's redundancy file: its name, and the temporary path it is written under. */
static int name_redundancy_file(const struct scr_scan *scan, const struct scr_scan_set *set, int i,
                                struct rebuild_member *m)
{
    char name[128];
    struct scr_redundancy_name rn = {set->kind, i, set->size, set->set_id};
    char *final = NULL;
    int rc = scr_redundancy_file_name(&rn, name, sizeof(name));
    if (rc != SCR_SUCCESS) return rc;
    if ((m->rname = strdup(name)) == NULL) return SCR_ERR_NOMEM;
    rc = scr_path_join(scan->dir, name, &final);
    if (rc != SCR_SUCCESS) return rc;
    rc = tmp_path(final, &m->rpath);
    free(final);
    return rc;
}

/* Each data file of the lost member, created at its size under its temporary name. */
static int create_data_files(struct rebuild_member *m)
{
    for (int f = 0; f < m->nfiles; f++) {
        char *tmp = NULL;
        int rc = tmp_path(m->paths[f], &tmp);
        if (rc != SCR_SUCCESS) return rc;
        free(m->paths[f]);
        m->paths[f] = tmp;
        m->parts[f].path = tmp;
        rc = create_sized(tmp, m->parts[f].size, &m->parts[f].fd);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* The redundancy file, data_len bytes of redundancy data after header's image. */
static int create_redundancy_file(const scr_kvtree *header, uint64_t data_len,
                                  struct rebuild_member *m)
{
    void *image = NULL;
    size_t image_len = 0;
    int rc = scr_kvtree_file_image(header, &image, &image_len);
    if (rc != SCR_SUCCESS) goto out;
    rc = create_sized(m->rpath, image_len + data_len, &m->rfd);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_write_full(m->rfd, image, image_len, m->rpath);
out:
    m->hlen = image_len;
    free(image);
    return rc;
}

int scr_rebuild_member_create(const struct scr_scan *scan, const struct scr_scan_set *set, int i,
                              int rank, const scr_kvtree *current, const scr_kvtree *header,
                              uint64_t data_len, struct rebuild_member *m)
{
    memset(m, 0, sizeof(*m));
    m->rfd = -1;
    m->rank = rank;
    m->lost = 1;
    /* what is created on failure is the caller's to close (and remove) */
    int rc = describe(scan, rank, current, m);
    if (rc != SCR_SUCCESS) return rc;
    if ((m->header = scr_kvtree_dup(header)) == NULL) return SCR_ERR_NOMEM;
    rc = name_redundancy_file(scan, set, i, m);
    if (rc != SCR_SUCCESS) return rc;
    rc = create_data_files(m);
    if (rc != SCR_SUCCESS) return rc;
    return create_redundancy_file(header, data_len, m);
}

/* Sync fd and checksum its size bytes. */
static int sync_and_crc(int fd, const char *path, uint64_t size, void *buf, size_t bufsize,
                        uint32_t *out)
{
    uint64_t len = 0;
    int rc = scr_fsync_fd(fd, path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_crc_fd(fd, path, buf, bufsize, out, &len);
    if (rc != SCR_SUCCESS) return rc;
    if (len != size) {
        scr_err("cannot read back %s: it is shorter than written (%llu of %llu bytes)", path,
                (unsigned long long)len, (unsigned long long)size);
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

/* Record name in rmap with meta base (may be NULL), checking and setting its CRC. */
static int record_file(const struct scr_scan *scan, scr_filemap *rmap, int rank, const char *name,
                       const scr_meta *base, uint32_t crc)
{
    const scr_meta *listed = NULL;
    uint32_t want = 0;
    scr_filemap_get_meta(rmap, scan->id, rank, name, &listed);
    const scr_meta *known = listed ? listed : base;
    if (known && scr_meta_get_crc32(known, &want) == SCR_SUCCESS && want != crc) {
        scr_err("%s/%s: the rebuilt file has CRC32 0x%08x, 0x%08x recorded; the redundancy data is "
                "damaged",
                scan->dir, name, crc, want);
        return SCR_ERR_FORMAT;
    }
    scr_meta *m = scr_meta_new();
    if (m == NULL) return SCR_ERR_NOMEM;
    int rc = SCR_SUCCESS;
    if (known) {
        rc = scr_meta_copy(m, known);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_meta_set_filename(m, name);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_unset_compressed(m); /* a rebuild writes the bytes as they are */
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_crc32(m, crc);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_complete(m, 1);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_meta(rmap, scan->id, rank, name, m);
out:
    scr_meta_delete(m);
    return rc;
}

/* The meta of a rebuilt redundancy file that no rank filemap lists yet. */
static int redundancy_meta(const struct scr_scan *scan, const struct scr_scan_set *set,
                           const struct rebuild_member *m, uint64_t size, scr_meta **out)
{
    scr_meta *meta = scr_meta_new();
    if (meta == NULL) return SCR_ERR_NOMEM;
    int rc = scr_meta_set_filename(meta, m->rname);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_filetype(meta, set->kind == SCR_REDUNDANCY_XOR ? SCR_META_TYPE_XOR
                                                                     : SCR_META_TYPE_RS);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_filesize(meta, size);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_rank(meta, m->rank);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_ranks(meta, scan->ranks);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_complete(meta, 1);
out:
    if (rc != SCR_SUCCESS) {
        scr_meta_delete(meta);
        return rc;
    }
    *out = meta;
    return SCR_SUCCESS;
}

/* Into rmap: the member's scanned rank filemap (if any), with the expected
 * file count and the dataset taken from the header where it has none. */
static int start_rank_filemap(const struct scr_scan *scan, const struct rebuild_member *m,
                              scr_filemap *rmap)
{
    int id = scan->id, rank = m->rank, expected = 0;
    scr_filemap *scanned = NULL;
    int rc = scr_scan_read_rank_filemap(scan, rank, &scanned);
    if (rc != SCR_SUCCESS) return rc;
    if (scanned) {
        rc = scr_filemap_merge(rmap, scanned);
        scr_filemap_delete(scanned);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_filemap_get_expected_files(rmap, id, rank, &expected) != SCR_SUCCESS) {
        rc = scr_filemap_set_expected_files(rmap, id, rank, m->nfiles + 1);
        if (rc != SCR_SUCCESS) return rc;
    }
    const scr_dataset *desc = NULL;
    if (scr_filemap_get_dataset(rmap, id, rank, &desc) != SCR_SUCCESS)
        return scr_filemap_set_dataset(rmap, id, rank, scr_kvtree_get(m->header, "DSET"));
    return SCR_SUCCESS;
}

/* The member's rank filemap: the one scanned (if any) with the rebuilt
 * files, each checked against the CRC recorded for it. */
static int build_rank_filemap(const struct scr_scan *scan, const struct scr_scan_set *set,
                              const struct rebuild_member *m, const uint32_t *crcs, uint64_t rsize,
                              scr_filemap **out)
{
    int rank = m->rank;
    scr_filemap *rmap = scr_filemap_new();
    scr_meta *rmeta = NULL;
    if (rmap == NULL) return SCR_ERR_NOMEM;
    int rc = start_rank_filemap(scan, m, rmap);
    if (rc != SCR_SUCCESS) goto out;
    for (int f = 0; f < m->nfiles; f++) {
        rc = record_file(scan, rmap, rank, m->names[f],
                         scr_kvtree_get_kv_int(m->current, "FILE", f), crcs[f]);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = redundancy_meta(scan, set, m, rsize, &rmeta);
    if (rc != SCR_SUCCESS) goto out;
    rc = record_file(scan, rmap, rank, m->rname, rmeta, crcs[m->nfiles]);
out:
    scr_meta_delete(rmeta);
    if (rc != SCR_SUCCESS) {
        scr_filemap_delete(rmap);
        return rc;
    }
    *out = rmap;
    return SCR_SUCCESS;
}

static int rename_into_place(const char *tmp)
{
    size_t len = strlen(tmp) - strlen(TMP_SUFFIX);
    char *final = strndup(tmp, len);
    if (final == NULL) return SCR_ERR_NOMEM;
    int rc = SCR_SUCCESS;
    if (rename(tmp, final) != 0) {
        scr_err("cannot rename %s to %s: %s", tmp, final, strerror(errno));
        rc = SCR_ERR_IO;
    }
    free(final);
    return rc;
}

/* Sync every file of the member and take its CRC into crcs (the data files,
 * then the redundancy file, whose length goes to *rsize). */
static int sync_member(const struct scr_scan_set *set, const struct rebuild_member *m, void *buf,
                       size_t bufsize, uint32_t *crcs, uint64_t *rsize)
{
    uint64_t chunk_bytes = 0;
    int k = 1;
    for (int f = 0; f < m->nfiles; f++) {
        int rc =
            sync_and_crc(m->parts[f].fd, m->paths[f], m->parts[f].size, buf, bufsize, &crcs[f]);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_kvtree_util_get_uint64(m->header, "CHUNK", &chunk_bytes) != SCR_SUCCESS)
        return SCR_ERR_FORMAT;
    if (set->kind == SCR_REDUNDANCY_RS &&
        scr_kvtree_util_get_int(m->header, "FAILURES", &k) != SCR_SUCCESS)
        return SCR_ERR_FORMAT;
    *rsize = m->hlen + chunk_bytes * (uint64_t)k;
    return sync_and_crc(m->rfd, m->rpath, *rsize, buf, bufsize, &crcs[m->nfiles]);
}

/* Every file of the member under its final name. */
static int rename_member(struct rebuild_member *m)
{
    for (int f = 0; f < m->nfiles; f++) {
        int rc = rename_into_place(m->paths[f]);
        if (rc != SCR_SUCCESS) return rc;
    }
    int rc = rename_into_place(m->rpath);
    if (rc != SCR_SUCCESS) return rc;
    m->lost = 0; /* nothing temporary left to remove */
    return SCR_SUCCESS;
}

int scr_rebuild_member_commit(const struct scr_scan *scan, const struct scr_scan_set *set,
                              struct rebuild_member *m, void *buf, size_t bufsize)
{
    uint32_t *crcs = calloc((size_t)m->nfiles + 1, sizeof(uint32_t));
    uint64_t rsize = 0;
    scr_filemap *rmap = NULL;
    char *path = NULL;
    if (crcs == NULL) return SCR_ERR_NOMEM;
    int rc = sync_member(set, m, buf, bufsize, crcs, &rsize);
    if (rc != SCR_SUCCESS) goto out;
    /* check every CRC before any file takes its final name */
    rc = build_rank_filemap(scan, set, m, crcs, rsize, &rmap);
    if (rc != SCR_SUCCESS) goto out;
    rc = rename_member(m);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_path(scan->dir, m->rank, &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_write(path, rmap);
out:
    scr_filemap_delete(rmap);
    free(path);
    free(crcs);
    return rc;
}

void scr_rebuild_member_close(struct rebuild_member *m)
{
    for (int f = 0; f < m->nfiles; f++) {
        if (m->parts && m->parts[f].fd >= 0) close(m->parts[f].fd);
        if (m->lost && m->paths && m->paths[f]) unlink(m->paths[f]);
        if (m->names) free(m->names[f]);
        if (m->paths) free(m->paths[f]);
    }
    if (m->rfd >= 0) close(m->rfd);
    if (m->lost && m->rpath) unlink(m->rpath);
    free(m->names);
    free(m->paths);
    free(m->parts);
    free(m->rname);
    free(m->rpath);
    scr_kvtree_delete(m->current);
    scr_kvtree_delete(m->header);
    memset(m, 0, sizeof(*m));
    m->rfd = -1;
}
