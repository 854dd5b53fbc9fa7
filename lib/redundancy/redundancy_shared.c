/* redundancy_shared.c — the chores every redundancy scheme needs
 * (redundancy_shared.h): a rank's files as one logical file, the records
 * of a redundancy file in the filemap, the CRCs of what a scheme read or
 * rebuilt. It calls no scheme. */
#include "redundancy_shared.h"
#include "redundancy.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- CRCs in the filemap ----------------------------------------------------------- */

int scr_redundancy_record_crc(scr_filemap *map, int id, int rank, const char *file, uint32_t crc,
                              int complete)
{
    const scr_meta *stored = NULL;
    scr_meta *meta = scr_meta_new();
    if (meta == NULL) return SCR_ERR_NOMEM;
    int rc = scr_filemap_get_meta(map, id, rank, file, &stored);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_copy(meta, stored);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_crc32(meta, crc);
    if (rc != SCR_SUCCESS) goto out;
    if (!complete) {
        rc = scr_meta_set_complete(meta, 0);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_filemap_set_meta(map, id, rank, file, meta);
out:
    scr_meta_delete(meta);
    return rc;
}

/* The dataset's name as this rank knows it, for messages. */
static const char *dataset_name(const scr_filemap *map, int my_rank, int id, int rank)
{
    const scr_dataset *d = NULL;
    const char *name = NULL;
    if ((scr_filemap_get_dataset(map, id, my_rank, &d) == SCR_SUCCESS ||
         scr_filemap_get_dataset(map, id, rank, &d) == SCR_SUCCESS) &&
        scr_dataset_get_name(d, &name) == SCR_SUCCESS)
        return name;
    return "?";
}

void scr_redundancy_say_damaged(const scr_filemap *map, int my_rank, int id, int rank,
                                const char *file, const char *how, uint32_t found,
                                uint32_t recorded)
{
    scr_err("dataset %d (%s): rank %d's file %s%s is damaged: CRC32 0x%08x found, 0x%08x recorded",
            id, dataset_name(map, my_rank, id, rank), rank, file, how ? how : "", found, recorded);
}

int scr_redundancy_record_read(const struct scr_redundancy_ctx *ctx, int id,
                               const struct scr_redundancy_files *files, uint32_t *out_crcs)
{
    const struct scr_padset *set = &files->set;
    for (int i = 0; i < set->count; i++) {
        const scr_meta *meta = NULL;
        uint32_t crc = 0, before = 0;
        if (scr_crc_parts_get(files->crc, (size_t)i, &crc) != SCR_SUCCESS) {
            scr_err("%s: its CRC32 could not be computed while its bytes were read", set->paths[i]);
            return SCR_FAILURE;
        }
        int rc = scr_filemap_get_meta(ctx->map, id, ctx->rank, set->paths[i], &meta);
        if (rc != SCR_SUCCESS) return rc;
        if (scr_meta_get_crc32(meta, &before) == SCR_SUCCESS && before != crc) {
            scr_err("%s changed after its dataset was complete: CRC32 0x%08x now, 0x%08x then",
                    set->paths[i], crc, before);
            return SCR_ERR_FORMAT;
        }
        rc = scr_redundancy_record_crc(ctx->map, id, ctx->rank, set->paths[i], crc, 1);
        if (rc != SCR_SUCCESS) return rc;
        out_crcs[i] = crc;
    }
    return set->count > 0 ? scr_redundancy_save_filemap(ctx) : SCR_SUCCESS;
}

/* One rebuilt file against its recorded CRC (see check_rebuilt); *out_bad:
 * it differs. */
static int check_one_rebuilt(const struct scr_redundancy_ctx *ctx, int id, const char *path,
                             uint32_t got, const char *how, int *out_bad)
{
    const scr_meta *meta = NULL;
    uint32_t recorded = 0;
    *out_bad = 0;
    int rc = scr_filemap_get_meta(ctx->map, id, ctx->rank, path, &meta);
    if (rc != SCR_SUCCESS) return rc;
    if (scr_meta_get_crc32(meta, &recorded) != SCR_SUCCESS)
        return scr_redundancy_record_crc(ctx->map, id, ctx->rank, path, got, 1);
    if (got == recorded) return SCR_SUCCESS;
    scr_redundancy_say_damaged(ctx->map, ctx->rank, id, ctx->rank, path, how, got, recorded);
    *out_bad = 1;
    return scr_redundancy_record_crc(ctx->map, id, ctx->rank, path, recorded, 0);
}

int scr_redundancy_check_rebuilt(const struct scr_redundancy_ctx *ctx, int id,
                                 const struct scr_redundancy_files *files, const char *how)
{
    const struct scr_padset *set = &files->set;
    int rc = SCR_SUCCESS;
    /* every file is checked and marked, whatever an earlier one gave */
    for (int i = 0; i < set->count && files->crc != NULL; i++) {
        uint32_t got = 0;
        int bad = 0;
        if (scr_crc_parts_get(files->crc, (size_t)i, &got) != SCR_SUCCESS) {
            scr_err("%s: its CRC32 could not be computed while it was%s", set->paths[i], how);
            rc = SCR_FAILURE;
            continue;
        }
        int frc = check_one_rebuilt(ctx, id, set->paths[i], got, how, &bad);
        if (rc == SCR_SUCCESS) rc = bad ? SCR_ERR_FORMAT : frc;
    }
    int src = scr_redundancy_save_filemap(ctx);
    return rc != SCR_SUCCESS ? rc : src;
}

int scr_redundancy_fix_width(scr_kvtree *desc, const uint32_t *crcs)
{
    int n = 0;
    int rc = scr_kvtree_util_get_int(desc, "FILES", &n);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        scr_meta *meta = scr_kvtree_get_kv_int(desc, "FILE", i);
        uint32_t crc = 0;
        if (meta == NULL) {
            rc = SCR_ERR_FORMAT;
            break;
        }
        if (crcs != NULL)
            crc = crcs[i];
        else if (scr_meta_get_crc32(meta, &crc) != SCR_SUCCESS)
            crc = 0;
        rc = scr_meta_set_crc32_fixed(meta, crc);
    }
    if (rc != SCR_SUCCESS)
        scr_err("a description of files to protect is malformed (%s)", scr_strstatus(rc));
    return rc;
}

int scr_redundancy_read_back(int fd, const char *path, char *buf, size_t bufsize, int known,
                             uint32_t *io_crc)
{
    uint32_t got = 0;
    int rc = scr_crc_fd(fd, path, buf, bufsize, &got, NULL);
    if (rc != SCR_SUCCESS) return rc;
    if (known && got != *io_crc) {
        scr_err("%s reads back with CRC32 0x%08x, 0x%08x written", path, got, *io_crc);
        return SCR_ERR_IO;
    }
    *io_crc = got;
    return SCR_SUCCESS;
}

/* --- files -------------------------------------------------------------------------- */

int scr_redundancy_save_filemap(const struct scr_redundancy_ctx *ctx)
{
    return scr_filemap_write(ctx->filemap_path, ctx->map);
}

void scr_redundancy_files_close(struct scr_redundancy_files *files)
{
    scr_padset_close(&files->set);
    scr_kvtree_delete(files->desc);
    scr_crc_parts_free(files->crc);
    memset(files, 0, sizeof(*files));
}

/* RANK rank, FILES n: how a description of files begins. */
static int new_desc(int rank, int n, scr_kvtree **out)
{
    scr_kvtree *t = scr_kvtree_new();
    if (t == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_util_set_int(t, "RANK", rank);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_int(t, "FILES", n);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(t);
        return rc;
    }
    *out = t;
    return SCR_SUCCESS;
}

/* The metas of this rank's FULL files of dataset id (pointers into the
 * filemap), in a new array of *out_n. */
static int full_files(const struct scr_redundancy_ctx *ctx, int id, const char ***out_files,
                      const scr_meta ***out_metas, int *out_n)
{
    const char **files = NULL;
    int n = 0, k = 0;
    int rc = scr_filemap_list_files(ctx->map, id, ctx->rank, &files, &n);
    if (rc != SCR_SUCCESS) return rc;
    const scr_meta **metas = calloc((size_t)(n > 0 ? n : 1), sizeof(*metas));
    if (metas == NULL) {
        free(files);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        const scr_meta *m = NULL;
        rc = scr_filemap_get_meta(ctx->map, id, ctx->rank, files[i], &m);
        if (rc != SCR_SUCCESS) {
            free(files);
            free(metas);
            return rc;
        }
        if (scr_meta_check_filetype(m, SCR_META_TYPE_FULL) != SCR_SUCCESS) continue;
        files[k] = files[i];
        metas[k++] = m;
    }
    *out_files = files;
    *out_metas = metas;
    *out_n = k;
    return SCR_SUCCESS;
}

int scr_redundancy_files_mine(const struct scr_redundancy_ctx *ctx, int id, int flags,
                              struct scr_redundancy_files *out)
{
    const char **files = NULL;
    const scr_meta **metas = NULL;
    int n = 0;
    memset(out, 0, sizeof(*out));
    int rc = full_files(ctx, id, &files, &metas, &n);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_padset_init(&out->set, n);
    if (rc != SCR_SUCCESS) goto out;
    rc = new_desc(ctx->rank, n, &out->desc);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        uint64_t size = 0;
        scr_kvtree *slot = scr_kvtree_set_kv_int(out->desc, "FILE", i);
        if (slot == NULL || scr_kvtree_copy(slot, metas[i]) != SCR_SUCCESS) {
            rc = SCR_ERR_NOMEM;
            break;
        }
        rc = scr_meta_get_filesize(metas[i], &size);
        if (rc == SCR_SUCCESS) rc = scr_padset_add(&out->set, files[i], size);
    }
    if (rc == SCR_SUCCESS && flags >= 0) rc = scr_padset_open(&out->set, flags);
out:
    free(files);
    free(metas);
    if (rc != SCR_SUCCESS) scr_redundancy_files_close(out);
    return rc;
}

/* File i of desc: its path under dir, listed in the filemap under owner. */
static int register_one(const struct scr_redundancy_ctx *ctx, int id, int owner, const scr_meta *m,
                        const char *dir, struct scr_padset *set)
{
    const char *rel = NULL;
    uint64_t size = 0;
    char *path = NULL;
    if (m == NULL || scr_meta_get_filename(m, &rel) != SCR_SUCCESS ||
        scr_meta_get_filesize(m, &size) != SCR_SUCCESS) {
        scr_err("a description of rank %d's files lacks the name or size of one", owner);
        return SCR_ERR_FORMAT;
    }
    int rc = scr_path_join(dir, rel, &path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_add_file(ctx->map, id, owner, path);
    if (rc == SCR_SUCCESS) rc = scr_filemap_set_meta(ctx->map, id, owner, path, m);
    if (rc == SCR_SUCCESS) rc = scr_padset_add(set, path, size);
    free(path);
    return rc;
}

int scr_redundancy_list_described(const struct scr_redundancy_ctx *ctx, int id, int owner,
                                  const scr_kvtree *desc, const char *subdir,
                                  struct scr_padset *out_set)
{
    char *dir = NULL;
    int n = 0;
    if (scr_kvtree_util_get_int(desc, "FILES", &n) != SCR_SUCCESS || n < 0) {
        scr_err("rank %d: no description of rank %d's files", ctx->rank, owner);
        return SCR_ERR_FORMAT;
    }
    int rc = scr_padset_init(out_set, n);
    if (rc != SCR_SUCCESS) return rc;
    if (subdir != NULL)
        rc = scr_path_join(ctx->dsdir, subdir, &dir);
    else if ((dir = strdup(ctx->dsdir)) == NULL)
        rc = SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++)
        rc = register_one(ctx, id, owner, scr_kvtree_get_kv_int(desc, "FILE", i), dir, out_set);
    free(dir);
    return rc;
}

int scr_redundancy_files_register(const struct scr_redundancy_ctx *ctx, int id, int owner,
                                  const scr_kvtree *desc, const char *subdir,
                                  struct scr_redundancy_files *out)
{
    memset(out, 0, sizeof(*out));
    int rc = (out->desc = scr_kvtree_dup(desc)) ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS)
        rc = scr_redundancy_list_described(ctx, id, owner, desc, subdir, &out->set);
    if (rc != SCR_SUCCESS) scr_redundancy_files_close(out);
    return rc;
}

int scr_redundancy_files_track(const struct scr_redundancy_ctx *ctx,
                               struct scr_redundancy_files *files)
{
    if (!ctx->crc_in_cache) return SCR_SUCCESS;
    files->crc = scr_crc_parts_new(files->set.parts, (size_t)files->set.count);
    return files->crc ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

int scr_redundancy_register_file(const struct scr_redundancy_ctx *ctx, int id, const char *path,
                                 const char *type, uint64_t size, int with_crc, uint32_t crc,
                                 int complete)
{
    scr_meta *m = scr_meta_new();
    char *name = NULL;
    if (m == NULL) return SCR_ERR_NOMEM;
    int rc = scr_path_basename(path, &name);
    if (rc != SCR_SUCCESS) goto out;
    if ((rc = scr_meta_set_filename(m, name)) != SCR_SUCCESS ||
        (rc = scr_meta_set_filetype(m, type)) != SCR_SUCCESS ||
        (rc = scr_meta_set_filesize(m, size)) != SCR_SUCCESS ||
        (rc = scr_meta_set_rank(m, ctx->rank)) != SCR_SUCCESS ||
        (rc = scr_meta_set_ranks(m, ctx->ranks)) != SCR_SUCCESS ||
        (rc = scr_meta_set_complete(m, complete)) != SCR_SUCCESS)
        goto out;
    if (with_crc && (rc = scr_meta_set_crc32(m, crc)) != SCR_SUCCESS) goto out;
    if (!scr_filemap_have_file(ctx->map, id, ctx->rank, path) &&
        (rc = scr_filemap_add_file(ctx->map, id, ctx->rank, path)) != SCR_SUCCESS)
        goto out;
    rc = scr_filemap_set_meta(ctx->map, id, ctx->rank, path, m);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_save_filemap(ctx);
out:
    free(name);
    scr_meta_delete(m);
    return rc;
}

int scr_redundancy_file_path(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                             int rs, char **out_path)
{
    struct scr_redundancy_name n = {rs ? SCR_REDUNDANCY_RS : SCR_REDUNDANCY_XOR, d->set_rank,
                                    d->set_size, d->set_id};
    char name[96];
    int rc = scr_redundancy_file_name(&n, name, sizeof(name));
    if (rc != SCR_SUCCESS) return rc;
    return scr_path_join(ctx->dsdir, name, out_path);
}

int scr_redundancy_find_file(const struct scr_redundancy_ctx *ctx, int id, const char *type,
                             char **out_path)
{
    const char **files = NULL;
    int n = 0;
    int rc = scr_filemap_list_files(ctx->map, id, ctx->rank, &files, &n);
    if (rc != SCR_SUCCESS) return rc;
    rc = SCR_ERR_NOTFOUND;
    for (int f = 0; f < n; f++) {
        const scr_meta *m = NULL;
        if (scr_filemap_get_meta(ctx->map, id, ctx->rank, files[f], &m) != SCR_SUCCESS ||
            scr_meta_check_filetype(m, type) != SCR_SUCCESS)
            continue;
        *out_path = strdup(files[f]);
        rc = *out_path ? SCR_SUCCESS : SCR_ERR_NOMEM;
        break;
    }
    free(files);
    return rc;
}

int scr_redundancy_forget_file(const struct scr_redundancy_ctx *ctx, int id, const char *type)
{
    char *path = NULL;
    int rc = scr_redundancy_find_file(ctx, id, type, &path);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS;
    if (rc != SCR_SUCCESS) return rc;
    if (unlink(path) != 0 && errno != ENOENT) {
        scr_err("cannot delete %s: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
        goto out;
    }
    rc = scr_filemap_remove_file(ctx->map, id, ctx->rank, path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_save_filemap(ctx);
out:
    free(path);
    return rc;
}
