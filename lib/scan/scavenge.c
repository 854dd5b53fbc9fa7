/* scavenge.c — one node's part of a dataset, from cache to the prefix. */
#include "crc_note.h"
#include "scavenge.h"
#include "dataset.h"
#include "filemap.h"
#include "flush_file.h"
#include "kvtree_file.h"
#include "meta.h"
#include "partner_copy.h"
#include "rank_filemap.h"
#include "scavenge_paths.h"
#include "scr_err.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MASTER_FILE "filemap.scrinfo"
#define MASTER_KEY "Filemap"
#define DEFAULT_BUF_SIZE ((size_t)1 << 20)

/* Everything one scavenge works with. */
struct scavenge {
    const struct scr_scavenge_options *o;
    struct scr_scavenge_report *report;
    scr_filemap *map; /* every filemap of the node, merged */
    char *dsdir;
    void *buf;
    size_t bufsize;
    uint64_t total; /* bytes to copy, for progress */
};

/* --- the node's records ----------------------------------------------------- */

/* The filemap at path merged into all; with bounds, its paths checked
 * first (scavenge_paths.h), a refusal stopping the scavenge. A damaged
 * filemap is left out, said in a warning. */
static int read_one_filemap(const char *path, const struct scr_scavenge_paths *bounds,
                            scr_filemap *all)
{
    scr_filemap *one = scr_filemap_new();
    if (one == NULL) return SCR_ERR_NOMEM;
    int rc = scr_filemap_read(path, one);
    if (rc == SCR_SUCCESS) {
        if (bounds != NULL) rc = scr_scavenge_paths_apply(bounds, path, one);
        if (rc == SCR_SUCCESS) rc = scr_filemap_merge(all, one);
    } else if (rc != SCR_ERR_NOMEM) {
        if (rc != SCR_ERR_NOTFOUND)
            scr_warn("ignoring damaged filemap %s: the files it names are not copied", path);
        rc = SCR_SUCCESS;
    }
    scr_filemap_delete(one);
    return rc;
}

/* Every filemap_*.scrinfo of the control directory. */
static int read_every_filemap(const char *cntl_dir, const struct scr_scavenge_paths *bounds,
                              scr_filemap *all)
{
    DIR *d = opendir(cntl_dir);
    if (d == NULL) {
        scr_err("cannot read the control directory %s: %s", cntl_dir, strerror(errno));
        return errno == ENOENT ? SCR_ERR_NOTFOUND : SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t n = strlen(de->d_name);
        if (strncmp(de->d_name, "filemap_", 8) != 0 || n < 16 ||
            strcmp(de->d_name + n - 8, ".scrinfo") != 0)
            continue;
        char *path = NULL;
        rc = scr_path_join(cntl_dir, de->d_name, &path);
        if (rc == SCR_SUCCESS) rc = read_one_filemap(path, bounds, all);
        free(path);
        if (rc != SCR_SUCCESS) break;
    }
    closedir(d);
    return rc;
}

/* The filemaps the master list names; without a master list, every
 * filemap_*.scrinfo of the control directory. With bounds, every path is
 * checked (scavenge_paths.h); NULL only to find which datasets there are. */
static int read_node_filemaps(const char *cntl_dir, const struct scr_scavenge_paths *bounds,
                              scr_filemap *all)
{
    char *master = NULL;
    scr_kvtree *list = scr_kvtree_new();
    if (list == NULL) return SCR_ERR_NOMEM;
    int rc = scr_path_join(cntl_dir, MASTER_FILE, &master);
    if (rc != SCR_SUCCESS) goto out;
    int lrc = scr_kvtree_read_file(master, list);
    if (lrc != SCR_SUCCESS) {
        if (lrc != SCR_ERR_NOTFOUND)
            scr_warn("ignoring damaged %s; reading every filemap of %s", master, cntl_dir);
        rc = read_every_filemap(cntl_dir, bounds, all);
        goto out;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(list, MASTER_KEY)); e;
         e = scr_kvtree_elem_next(e)) {
        if (bounds != NULL)
            rc = scr_scavenge_paths_check_filemap(bounds, master, scr_kvtree_elem_key(e));
        if (rc == SCR_SUCCESS) rc = read_one_filemap(scr_kvtree_elem_key(e), bounds, all);
        if (rc != SCR_SUCCESS) goto out;
    }
out:
    free(master);
    scr_kvtree_delete(list);
    return rc;
}

/* This node's flush file, a new tree the caller deletes; an empty one when
 * there is no flush file yet. */
static int read_flush_file(const char *cntl_dir, scr_kvtree **out_flush)
{
    char *path = NULL;
    scr_kvtree *flush = scr_kvtree_new();
    if (flush == NULL) return SCR_ERR_NOMEM;
    int rc = scr_path_join(cntl_dir, SCR_FLUSH_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_flush_file_read(path, flush);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* an empty record */
    if (rc != SCR_SUCCESS) goto out;
    *out_flush = flush;
    flush = NULL;
out:
    free(path);
    scr_kvtree_delete(flush);
    return rc;
}

int scr_scavenge_newest(const char *cntl_dir, int *out_id, int *out_flushed, char **out_name)
{
    scr_kvtree *flush = NULL;
    scr_filemap *map = NULL;
    const char *name = NULL;
    int id = 0, flushed = 0;
    *out_name = NULL;
    int rc = read_flush_file(cntl_dir, &flush);
    if (rc != SCR_SUCCESS) return rc;
    if (scr_flush_file_newest_cached_is_flushed(flush, &id, &flushed) != SCR_SUCCESS) {
        /* no flush file (or nothing marked in cache): ask the filemaps */
        map = scr_filemap_new();
        if (map == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
        rc = read_node_filemaps(cntl_dir, NULL, map);
        if (rc != SCR_SUCCESS) goto out;
        if (scr_filemap_latest_dataset(map, &id) != SCR_SUCCESS) {
            rc = SCR_ERR_NOTFOUND;
            goto out;
        }
        if (scr_flush_file_has_location(flush, id, SCR_FLUSH_LOCATION_PFS, &flushed) != SCR_SUCCESS)
            flushed = 0;
    }
    if (scr_flush_file_get_name(flush, id, &name) == SCR_SUCCESS &&
        (*out_name = strdup(name)) == NULL) {
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    *out_id = id;
    *out_flushed = flushed;
out:
    scr_kvtree_delete(flush);
    scr_filemap_delete(map);
    return rc;
}

/* --- which entries to copy ------------------------------------------------------ */

/* 1 when the entry of rank holds PARTNER copies this scavenge was asked to take. */
static int wanted_partner_copy(const struct scr_scavenge_options *o, const scr_filemap *map, int id,
                               int rank)
{
    const char *node = NULL;
    for (int i = 0; i < o->nfailed_ranks; i++)
        if (o->failed_ranks[i] == rank) return 1;
    if (scr_filemap_get_tag(map, id, rank, "NODE", &node) != SCR_SUCCESS) return 0;
    for (int i = 0; i < o->nfailed_nodes; i++)
        if (strcmp(o->failed_nodes[i], node) == 0) return 1;
    if (o->nlive_nodes <= 0) return 0;
    for (int i = 0; i < o->nlive_nodes; i++)
        if (strcmp(o->live_nodes[i], node) == 0) return 0;
    return 1;
}

static int is_partner_copy(const scr_filemap *map, int id, int rank)
{
    const char *holder = NULL;
    return scr_filemap_get_tag(map, id, rank, "HOLDER", &holder) == SCR_SUCCESS &&
           strcmp(holder, "PARTNER") == 0;
}

/* 0: skip the entry; 1: the rank's own files; 2: PARTNER copies to take.
 * An entry without FILES only records a neighbour's redundancy descriptor. */
static int entry_kind(const struct scr_scavenge_options *o, const scr_filemap *map, int id,
                      int rank)
{
    int expected = 0;
    if (scr_filemap_get_expected_files(map, id, rank, &expected) != SCR_SUCCESS) return 0;
    if (!is_partner_copy(map, id, rank)) return 1;
    return wanted_partner_copy(o, map, id, rank) ? 2 : 0;
}

/* --- copying ------------------------------------------------------------------ */

/* Copy (or, when the file already is at dest, checksum) one file of the
 * entry, checking it against its meta; *out_crc is its CRC. A failure is
 * logged, the destination removed, and SCR_FAILURE returned. */
static int copy_one(struct scavenge *s, const char *src, const char *dest, const scr_meta *meta,
                    uint32_t *out_crc)
{
    uint64_t size = 0;
    uint32_t recorded = 0;
    struct stat st;
    if (!scr_meta_is_complete(meta)) {
        scr_err("%s is not marked complete in cache; not copied", src);
        return SCR_FAILURE;
    }
    if (scr_meta_get_filesize(meta, &size) != SCR_SUCCESS) {
        scr_err("%s has no recorded size; not copied", src);
        return SCR_FAILURE;
    }
    if (stat(src, &st) != 0) {
        scr_err("%s is missing from cache: %s", src, strerror(errno));
        return SCR_FAILURE;
    }
    if ((uint64_t)st.st_size != size) {
        scr_err("%s is %llu bytes in cache, %llu recorded; not copied", src,
                (unsigned long long)st.st_size, (unsigned long long)size);
        return SCR_FAILURE;
    }
    struct scr_copy_result got = {0};
    int in_place = strcmp(src, dest) == 0;
    const struct scr_copy_opts opts = {.buf = s->buf, .bufsize = s->bufsize, .crc = 1};
    int rc =
        in_place ? scr_crc_file(src, s->buf, s->bufsize, &got) : scr_copy(src, dest, &opts, &got);
    if (rc != SCR_SUCCESS) return SCR_FAILURE;
    if (scr_meta_get_crc32(meta, &recorded) == SCR_SUCCESS && recorded != got.crc) {
        scr_err("%s is damaged in cache: CRC32 0x%08x, 0x%08x recorded; not copied", src, got.crc,
                recorded);
        return SCR_FAILURE;
    }
    *out_crc = got.crc;
    return SCR_SUCCESS;
}

static void progress(struct scavenge *s)
{
    if (s->o->progress) s->o->progress(s->o->progress_ctx, s->report->bytes_copied, s->total);
}

/* In rmap, rel's meta gets crc: the CRC of the copy on the prefix, which
 * a scavenge always stores uncompressed (whatever a flush of the same
 * dataset that did not finish may have recorded in cache). */
static int record_crc(scr_filemap *rmap, int id, int rank, const char *rel, uint32_t crc)
{
    const scr_meta *listed = NULL;
    scr_meta *m = scr_meta_new();
    if (m == NULL) return SCR_ERR_NOMEM;
    int rc = scr_filemap_get_meta(rmap, id, rank, rel, &listed);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_copy(m, listed);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_crc32(m, crc);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_unset_compressed(m);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_meta(rmap, id, rank, rel, m);
out:
    scr_meta_delete(m);
    return rc;
}

/* Copy one file of the entry and record its CRC (or its absence) in rmap. */
static int copy_listed_file(struct scavenge *s, int rank, const char *file, const scr_meta *meta,
                            const char *pdir, scr_filemap *rmap)
{
    int id = s->report->id;
    char *rel = NULL, *dest = NULL;
    uint32_t crc = 0;
    uint64_t size = 0;
    int rc = scr_rank_filemap_name_of(s->dsdir, file, meta, &rel);
    if (rc != SCR_SUCCESS) goto out;
    /* the filemaps' paths were checked as they were read (scavenge_paths.h) */
    rc = pdir ? scr_partner_copy_path(pdir, rel, &dest)
              : scr_rank_filemap_file_path(s->dsdir, rel, "the filemaps of the control directory",
                                           &dest);
    if (rc != SCR_SUCCESS) goto out;
    if (copy_one(s, file, dest, meta, &crc) != SCR_SUCCESS) {
        /* the rank filemap still lists it, with the size and CRC recorded in
         * cache, so that the scan counts it missing and checks a rebuild
         * against them; nothing of another dataset may stand in for it */
        s->report->files_failed++;
        if (strcmp(file, dest) != 0 && unlink(dest) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s, which is not this dataset's copy: %s", dest,
                     strerror(errno));
        goto out;
    }
    /* the file is on the prefix and counted even when its CRC cannot be recorded */
    rc = record_crc(rmap, id, rank, rel, crc);
    scr_meta_get_filesize(meta, &size);
    s->report->files_copied++;
    s->report->bytes_copied += size;
    progress(s);
out:
    free(rel);
    free(dest);
    return rc;
}

/* Copy the files of rank's entry and write its rank filemap: into the
 * dataset directory, or for PARTNER copies into partner.<rank>/. */
static int scavenge_entry(struct scavenge *s, int rank, int partner)
{
    int id = s->report->id;
    scr_filemap *rmap = NULL;
    char *pdir = NULL, *path = NULL;
    const char **files = NULL;
    int n = 0;
    int rc = scr_rank_filemap_build(s->map, id, rank, s->dsdir, &rmap);
    if (rc != SCR_SUCCESS) goto out;
    if (partner) {
        rc = scr_partner_copy_dir(s->dsdir, rank, &pdir);
        if (rc != SCR_SUCCESS) goto out;
        rc = scr_mkdir_p(pdir, 0700);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_filemap_list_files(s->map, id, rank, &files, &n);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < n; i++) {
        const scr_meta *meta = NULL;
        scr_filemap_get_meta(s->map, id, rank, files[i], &meta);
        rc = copy_listed_file(s, rank, files[i], meta, pdir, rmap);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_rank_filemap_path(partner ? pdir : s->dsdir, rank, &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_write(path, rmap);
    if (rc != SCR_SUCCESS) goto out;
    if (partner)
        s->report->partner_ranks++;
    else
        s->report->ranks++;
out:
    free(files);
    free(pdir);
    free(path);
    scr_filemap_delete(rmap);
    return rc;
}

/* Bytes the scavenge will copy, for progress. */
static uint64_t bytes_to_copy(const struct scavenge *s, const int *ranks, int nranks)
{
    uint64_t total = 0;
    int id = s->report->id;
    for (int r = 0; r < nranks; r++) {
        if (entry_kind(s->o, s->map, id, ranks[r]) == 0) continue;
        const char **files = NULL;
        int n = 0;
        if (scr_filemap_list_files(s->map, id, ranks[r], &files, &n) != SCR_SUCCESS) continue;
        for (int i = 0; i < n; i++) {
            const scr_meta *m = NULL;
            uint64_t size = 0;
            if (scr_filemap_get_meta(s->map, id, ranks[r], files[i], &m) == SCR_SUCCESS &&
                scr_meta_get_filesize(m, &size) == SCR_SUCCESS)
                total += size;
        }
        free(files);
    }
    return total;
}

/* Record in this node's flush file whether the prefix holds a complete copy
 * of this node's part of the dataset, as the library's flush does: CACHE
 * and PFS, not FLUSHING, with the name and kind from the filemaps. A
 * complete copy of one node does not make the dataset complete on the
 * prefix (the index says that); the mark only lets the next scavenge of
 * this node skip what it already copied. An incomplete copy clears PFS, as
 * a forced scavenge may have removed files of the earlier copy. */
static int mark_flush_file(const struct scavenge *s, scr_kvtree *flush, int on_prefix)
{
    int id = s->report->id, rank = -1, ckpt = 0;
    const scr_dataset *desc = NULL;
    const char *name = NULL;
    char *path = NULL;
    int *ranks = NULL, n = 0;
    if (scr_filemap_list_ranks_by_dataset(s->map, id, &ranks, &n) == SCR_SUCCESS && n > 0)
        rank = ranks[0];
    free(ranks);
    int rc = scr_flush_file_set_location(flush, id, SCR_FLUSH_LOCATION_CACHE);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_flush_file_unset_location(flush, id, SCR_FLUSH_LOCATION_FLUSHING);
    if (rc != SCR_SUCCESS) return rc;
    rc = on_prefix ? scr_flush_file_set_location(flush, id, SCR_FLUSH_LOCATION_PFS)
                   : scr_flush_file_unset_location(flush, id, SCR_FLUSH_LOCATION_PFS);
    if (rc != SCR_SUCCESS) return rc;
    if (rank >= 0 && scr_filemap_get_dataset(s->map, id, rank, &desc) == SCR_SUCCESS) {
        if (scr_dataset_get_name(desc, &name) == SCR_SUCCESS) {
            rc = scr_flush_file_set_name(flush, id, name);
            if (rc != SCR_SUCCESS) return rc;
        }
        if (scr_dataset_get_ckpt(desc, &ckpt) == SCR_SUCCESS) {
            rc = scr_flush_file_set_checkpoint_id(flush, id, ckpt);
            if (rc != SCR_SUCCESS) return rc;
        }
        if (scr_dataset_is_output(desc)) {
            rc = scr_flush_file_set_output(flush, id, 1);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    rc = scr_path_join(s->o->cntl_dir, SCR_FLUSH_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_flush_file_write(path, flush);
    free(path);
    return rc;
}

static int check_options(const struct scr_scavenge_options *o)
{
    if (o->cntl_dir == NULL || o->cntl_dir[0] == '\0') {
        scr_err("scavenge: no control directory given");
        return SCR_ERR_ARG;
    }
    if (o->prefix == NULL || o->prefix[0] != '/') {
        scr_err("scavenge: the prefix '%s' is not an absolute path",
                o->prefix ? o->prefix : "(none)");
        return SCR_ERR_ARG;
    }
    struct stat st;
    if (stat(o->prefix, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scr_err("scavenge: the prefix %s is not a directory", o->prefix);
        return SCR_ERR_NOTFOUND;
    }
    if (o->id < 0) {
        scr_err("scavenge: %d is not a dataset id", o->id);
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

static int dataset_dir(const char *prefix, int id, char **out)
{
    char sub[64];
    snprintf(sub, sizeof(sub), ".scr/scr.dataset.%d", id);
    return scr_path_join(prefix, sub, out);
}

/* Read this node's filemaps (with the CRCs a thread noted but its rank never
 * recorded) into s->map and its flush file into *out_flush; the caller frees
 * both and bounds, also on failure. */
static int load_node_records(struct scavenge *s, struct scr_scavenge_paths *bounds,
                             scr_kvtree **out_flush)
{
    const struct scr_scavenge_options *o = s->o;
    s->map = scr_filemap_new();
    if (s->map == NULL) return SCR_ERR_NOMEM;
    int rc = scr_scavenge_paths_load(o->cntl_dir, o->prefix, bounds);
    if (rc != SCR_SUCCESS) return rc;
    rc = read_node_filemaps(o->cntl_dir, bounds, s->map);
    /* CRCs a thread computed that its rank never recorded (the run died first) */
    if (rc == SCR_SUCCESS) scr_crc_note_take(o->cntl_dir, s->map, 0);
    if (rc != SCR_SUCCESS) return rc;
    return read_flush_file(o->cntl_dir, out_flush);
}

/* Settle which dataset to copy (the one asked for, or the newest in cache when
 * none was) into s->report->id, failing with SCR_ERR_NOTFOUND when this node's
 * cache does not hold it; *out_flushed says whether the flush file marks it as
 * already on the prefix. */
static int pick_dataset(struct scavenge *s, scr_kvtree *flush, int *out_flushed)
{
    const struct scr_scavenge_options *o = s->o;
    struct scr_scavenge_report *report = s->report;
    if (report->id == 0) {
        char *name = NULL;
        int rc = scr_scavenge_newest(o->cntl_dir, &report->id, out_flushed, &name);
        free(name);
        if (rc == SCR_ERR_NOTFOUND) scr_err("scavenge: no dataset in the cache of %s", o->cntl_dir);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (!scr_filemap_num_ranks_by_dataset(s->map, report->id)) {
        scr_err("scavenge: dataset %d is not in the cache of this node (%s)", report->id,
                o->cntl_dir);
        return SCR_ERR_NOTFOUND;
    }
    if (scr_flush_file_has_location(flush, report->id, SCR_FLUSH_LOCATION_PFS, out_flushed) !=
        SCR_SUCCESS)
        *out_flushed = 0;
    return SCR_SUCCESS;
}

/* Copy every entry of dataset s->report->id that this node holds into its
 * directory on the prefix (made if missing, kept in s->dsdir), counting in
 * s->report the files copied and those that failed; stops at the first error
 * that is not one file's. */
static int copy_dataset(struct scavenge *s)
{
    const struct scr_scavenge_options *o = s->o;
    int id = s->report->id, *ranks = NULL, nranks = 0;
    s->bufsize = o->buf_size ? o->buf_size : DEFAULT_BUF_SIZE;
    s->buf = malloc(s->bufsize);
    if (s->buf == NULL) {
        scr_err("scavenge: out of memory for a copy buffer of %zu bytes", s->bufsize);
        return SCR_ERR_NOMEM;
    }
    int rc = dataset_dir(o->prefix, id, &s->dsdir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mkdir_p(s->dsdir, 0700);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_list_ranks_by_dataset(s->map, id, &ranks, &nranks);
    if (rc != SCR_SUCCESS) return rc;
    s->total = bytes_to_copy(s, ranks, nranks);
    for (int r = 0; r < nranks; r++) {
        int kind = entry_kind(o, s->map, id, ranks[r]);
        if (kind == 0) continue;
        rc = scavenge_entry(s, ranks[r], kind == 2);
        if (rc != SCR_SUCCESS) break;
    }
    free(ranks);
    return rc;
}

int scr_scavenge_node(const struct scr_scavenge_options *o, struct scr_scavenge_report *report)
{
    if (o == NULL || report == NULL) {
        scr_err("scavenge: no %s given", o == NULL ? "options" : "report to fill in");
        return SCR_ERR_ARG;
    }
    struct scavenge s = {0};
    struct scr_scavenge_paths bounds = {0};
    int flushed = 0;
    scr_kvtree *flush = NULL;
    memset(report, 0, sizeof(*report));
    s.o = o;
    s.report = report;
    report->id = o->id;
    int rc = check_options(o);
    if (rc != SCR_SUCCESS) goto out;
    rc = load_node_records(&s, &bounds, &flush);
    if (rc != SCR_SUCCESS) goto out;
    rc = pick_dataset(&s, flush, &flushed);
    if (rc != SCR_SUCCESS) goto out;
    if (flushed && !o->force) {
        report->already_flushed = 1;
        goto out;
    }
    rc = copy_dataset(&s);
    if (rc != SCR_SUCCESS) goto out; /* a copy that stopped on an error marks nothing */
    /* a copy that lost files clears an earlier mark */
    if (report->files_failed == 0 || flushed) {
        rc = mark_flush_file(&s, flush, report->files_failed == 0);
        if (rc != SCR_SUCCESS) goto out;
    }
    if (report->files_failed > 0) {
        scr_err(
            "scavenge of dataset %d: %d file(s) could not be copied; a scan of %s may rebuild them",
            report->id, report->files_failed, s.dsdir);
        rc = SCR_FAILURE;
    }
out:
    free(s.buf);
    free(s.dsdir);
    scr_kvtree_delete(flush);
    scr_filemap_delete(s.map);
    scr_scavenge_paths_free(&bounds);
    return rc;
}
