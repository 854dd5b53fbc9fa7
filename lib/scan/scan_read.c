/* scan_read.c — read the rank filemaps of a dataset directory, checking
 * each rank's files as its record is read; many ranks are shared among a
 * few threads. */
#include "scan_read.h"
#include "meta.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "util_copy.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CRC_BUF_SIZE ((size_t)1 << 20)

/* Below this many rank filemaps one thread reads them all (and messages
 * come in directory order); above, up to MAX_READERS threads share them. */
#define PARALLEL_MIN_RANKS 512
#define MAX_READERS 8

/* The progress hook and its count, shared by the reader threads. */
static void (*progress_fn)(void *ctx, int done, int total);
static void *progress_ctx;
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_done;

void scr_scan_set_progress(void (*fn)(void *ctx, int done, int total), void *ctx)
{
    progress_fn = fn;
    progress_ctx = ctx;
}

static void rank_read(int total)
{
    if (progress_fn == NULL) return;
    pthread_mutex_lock(&progress_lock);
    progress_fn(progress_ctx, ++progress_done, total);
    pthread_mutex_unlock(&progress_lock);
}

/* What the meta of a listed file records, into f (name aside); 0 when it
 * cannot describe a usable file (no size, or written incomplete). */
static int take_meta(const char *name, const scr_meta *meta, struct scr_scan_file *f)
{
    if (meta == NULL || scr_meta_get_filesize(meta, &f->size) != SCR_SUCCESS) {
        scr_warn("%s: no recorded size", name);
        return 0;
    }
    f->has_crc = scr_meta_get_crc32(meta, &f->crc) == SCR_SUCCESS;
    f->compressed = scr_meta_get_compressed(meta, &f->stored_size) == SCR_SUCCESS;
    if (scr_meta_get_ranks(meta, &f->ranks) != SCR_SUCCESS) f->ranks = 0;
    /* redundancy data is kept for rebuilds, never read back by a restart */
    f->redundancy = scr_meta_check_filetype(meta, SCR_META_TYPE_FULL) != SCR_SUCCESS;
    if (!scr_meta_is_complete(meta)) {
        scr_warn("%s: recorded as incomplete", name);
        return 0;
    }
    return 1;
}

/* 1 when name, relative to a directory, cannot lead out of it lexically. */
static int stays_inside(const char *name)
{
    if (name[0] == '/') return 0;
    for (const char *p = name; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p))
        if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0')) return 0;
    return 1;
}

/* 1 when the file exists with its recorded size (its COMPRESSED size when
 * stored as gzip) and, when checked, CRC (of its expansion when gzip).
 * It is looked up from the open dataset directory when its name stays
 * inside it: the kernel then walks one name, not the whole path, for each
 * of the many files of a large dataset. */
static int file_is_good(int dir_fd, const char *name, const char *path,
                        const struct scr_scan_file *f, void *buf)
{
    struct stat st;
    int found = dir_fd >= 0 && stays_inside(name) ? fstatat(dir_fd, name, &st, 0) : stat(path, &st);
    if (found != 0) {
        scr_dbg(1, "%s: %s", path, strerror(errno));
        return 0;
    }
    uint64_t size = f->compressed ? f->stored_size : f->size;
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
        scr_warn("%s is %llu bytes, %llu recorded%s", path, (unsigned long long)st.st_size,
                 (unsigned long long)size, f->compressed ? " (compressed)" : "");
        return 0;
    }
    if (buf != NULL && f->has_crc) {
        struct scr_copy_result got = {0};
        int rc = f->compressed ? scr_crc_file_gunzip(path, buf, CRC_BUF_SIZE, &got)
                               : scr_crc_file(path, buf, CRC_BUF_SIZE, &got);
        if (rc != SCR_SUCCESS) return 0;
        if (f->compressed && got.bytes != f->size) {
            scr_err("%s expands to %llu bytes, %llu recorded", path, (unsigned long long)got.bytes,
                    (unsigned long long)f->size);
            return 0;
        }
        if (got.crc != f->crc) {
            scr_err("%s is damaged: CRC32 0x%08x, 0x%08x recorded", path, got.crc, f->crc);
            return 0;
        }
    }
    return 1;
}

/* Reduce the files rank lists in dataset id to out (one allocation for the
 * array and the names) and check each against the directory. */
static int take_rank(const char *dir, int dir_fd, const scr_filemap *rmap, int id, int rank,
                     void *crc_buf, struct scr_scan_rank *out)
{
    struct scr_rank_filemap_file *files = NULL;
    int n = 0;
    memset(out, 0, sizeof(*out));
    out->listed = 1;
    if (scr_filemap_get_expected_files(rmap, id, rank, &out->expected) != SCR_SUCCESS)
        out->expected = -1;
    char *record = NULL;
    int rc = scr_rank_filemap_list_files(rmap, id, rank, &files, &n);
    if (rc == SCR_SUCCESS) rc = scr_rank_filemap_path(dir, rank, &record);
    size_t text = 0;
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) text += strlen(files[i].name) + 1;
    if (rc == SCR_SUCCESS && n > 0) {
        out->files = malloc(sizeof(*out->files) * (size_t)n + text);
        if (out->files == NULL) rc = SCR_ERR_NOMEM;
    }
    char *names = rc == SCR_SUCCESS && n > 0 ? (char *)(out->files + n) : NULL;
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        struct scr_scan_file *f = &out->files[i];
        size_t len = strlen(files[i].name) + 1;
        memset(f, 0, sizeof(*f));
        f->name = memcpy(names, files[i].name, len);
        names += len;
        out->nfiles++;
        char *path = NULL;
        rc = scr_rank_filemap_file_path(dir, f->name, record, &path);
        if (rc == SCR_SUCCESS && take_meta(path, files[i].meta, f))
            f->good = (unsigned char)file_is_good(dir_fd, f->name, path, f, crc_buf);
        out->good += f->good;
        free(path);
    }
    free(record);
    free(files);
    return rc;
}

int scr_scan_read_one(const char *dir, int rank, scr_filemap **out, int *out_id)
{
    char *path = NULL;
    *out = NULL;
    scr_filemap *rmap = scr_filemap_new();
    int rc = rmap ? scr_rank_filemap_path(dir, rank, &path) : SCR_ERR_NOMEM;
    int rrc = rc == SCR_SUCCESS ? scr_rank_filemap_read(path, rmap) : rc;
    if (rc == SCR_SUCCESS && rrc == SCR_SUCCESS &&
        (scr_filemap_num_datasets(rmap) != 1 ||
         scr_filemap_latest_dataset(rmap, out_id) != SCR_SUCCESS ||
         scr_filemap_num_ranks(rmap) != 1 ||
         !scr_filemap_have_rank_by_dataset(rmap, *out_id, rank))) {
        scr_err("%s: expected the files of rank %d in one dataset", path, rank);
        rrc = SCR_ERR_FORMAT;
    }
    if (rrc == SCR_ERR_NOMEM) rc = rrc;
    if (rc == SCR_SUCCESS && rrc == SCR_SUCCESS) {
        *out = rmap;
    } else {
        if (rc == SCR_SUCCESS && rrc != SCR_ERR_NOMEM)
            scr_err("%s cannot be used: rank %d counts as missing", path, rank);
        scr_filemap_delete(rmap);
    }
    free(path);
    return rc;
}

/* One rank filemap: read, reduced to what the scan keeps, files checked;
 * *first_desc receives a copy of its descriptor when it has none yet. */
static int take_rank_filemap(const char *dir, int dir_fd, int rank, void *crc_buf,
                             struct scr_scan_found *out, scr_dataset **first_desc)
{
    scr_filemap *rmap = NULL;
    const scr_dataset *desc = NULL;
    out->ok = 0;
    out->rank = rank;
    int rc = scr_scan_read_one(dir, rank, &rmap, &out->id);
    if (rc != SCR_SUCCESS || rmap == NULL) return rc;
    if (*first_desc == NULL && scr_filemap_get_dataset(rmap, out->id, rank, &desc) == SCR_SUCCESS) {
        *first_desc = scr_dataset_new();
        if (*first_desc == NULL || scr_dataset_copy(*first_desc, desc) != SCR_SUCCESS)
            rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = take_rank(dir, dir_fd, rmap, out->id, rank, crc_buf, &out->rec);
    if (rc == SCR_SUCCESS) out->ok = 1;
    scr_filemap_delete(rmap);
    return rc;
}

/* The ranks of every <rank>.scrfilemap in d, in directory order. */
static int list_rank_filemaps(DIR *d, int **out, int *out_n)
{
    int *ranks = NULL, n = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        int rank = -1;
        if (!scr_rank_filemap_is_name(de->d_name, &rank)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            int *grown = realloc(ranks, sizeof(int) * (size_t)cap);
            if (grown == NULL) {
                free(ranks);
                return SCR_ERR_NOMEM;
            }
            ranks = grown;
        }
        ranks[n++] = rank;
    }
    *out = ranks;
    *out_n = n;
    return SCR_SUCCESS;
}

/* A share of the rank filemaps: [lo, hi) of the list. */
struct reader {
    const char *dir;
    int dir_fd;
    int check_crc;
    const int *ranks;
    struct scr_scan_found *found;
    int lo, hi, total;
    scr_dataset *first_desc;
    int rc;
};

static void *read_share(void *arg)
{
    struct reader *r = arg;
    void *crc_buf = NULL;
    r->rc = SCR_SUCCESS;
    if (r->check_crc && (crc_buf = malloc(CRC_BUF_SIZE)) == NULL) r->rc = SCR_ERR_NOMEM;
    for (int i = r->lo; r->rc == SCR_SUCCESS && i < r->hi; i++) {
        r->rc = take_rank_filemap(r->dir, r->dir_fd, r->ranks[i], crc_buf, &r->found[i],
                                  &r->first_desc);
        rank_read(r->total);
    }
    free(crc_buf);
    return NULL;
}

static int reader_count(int n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < PARALLEL_MIN_RANKS || cpus < 2) return 1;
    return cpus < MAX_READERS ? (int)cpus : MAX_READERS;
}

/* Read the listed rank filemaps, in contiguous shares, so that the first
 * descriptor in list order is that of the first share that found one. A
 * share whose thread cannot be started is read by this one. */
static int read_all(const char *dir, int dir_fd, int check_crc, const int *ranks, int n,
                    struct scr_scan_found *found, scr_dataset **out_desc)
{
    int nreaders = reader_count(n), rc = SCR_SUCCESS;
    struct reader readers[MAX_READERS];
    pthread_t threads[MAX_READERS];
    int started[MAX_READERS] = {0};
    scr_log_level(); /* read SCR_DEBUG before any thread logs */
    progress_done = 0;
    for (int t = 0; t < nreaders; t++) {
        readers[t] = (struct reader){dir,
                                     dir_fd,
                                     check_crc,
                                     ranks,
                                     found,
                                     (int)((long)n * t / nreaders),
                                     (int)((long)n * (t + 1) / nreaders),
                                     n,
                                     NULL,
                                     SCR_SUCCESS};
        if (t > 0) started[t] = pthread_create(&threads[t], NULL, read_share, &readers[t]) == 0;
    }
    read_share(&readers[0]);
    for (int t = 1; t < nreaders; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        else
            read_share(&readers[t]);
    }
    *out_desc = NULL;
    for (int t = 0; t < nreaders; t++) {
        if (readers[t].rc != SCR_SUCCESS && rc == SCR_SUCCESS) rc = readers[t].rc;
        if (*out_desc == NULL)
            *out_desc = readers[t].first_desc;
        else
            scr_dataset_delete(readers[t].first_desc);
    }
    return rc;
}

int scr_scan_read_dir(const char *dir, int check_crc, struct scr_scan_found **out, int *out_n,
                      int **out_damaged, int *out_ndamaged, scr_dataset **out_desc)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        scr_err("cannot read the dataset directory %s: %s", dir, strerror(errno));
        return errno == ENOENT || errno == ENOTDIR ? SCR_ERR_NOTFOUND : SCR_ERR_IO;
    }
    int *ranks = NULL, n = 0, good = 0, nd = 0;
    int rc = list_rank_filemaps(d, &ranks, &n);
    struct scr_scan_found *found = NULL;
    scr_dataset *desc = NULL;
    if (rc == SCR_SUCCESS && n > 0 && (found = calloc((size_t)n, sizeof(*found))) == NULL)
        rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = read_all(dir, dirfd(d), check_crc, ranks, n, found, &desc);
    closedir(d);
    /* the unreadable ones count as missing; the rest keep directory order */
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        if (found[i].ok)
            found[good++] = found[i];
        else
            ranks[nd++] = found[i].rank;
    }
    if (rc != SCR_SUCCESS) {
        for (int i = 0; found && i < n; i++) free(found[i].rec.files);
        free(found);
        free(ranks);
        scr_dataset_delete(desc);
        return rc;
    }
    *out = found;
    *out_n = good;
    *out_damaged = ranks;
    *out_ndamaged = nd;
    *out_desc = desc;
    return SCR_SUCCESS;
}
