/* scan.c — read a dataset directory's rank filemaps and check its files. */
#include "scan.h"
#include "meta.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "util_copy.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CRC_BUF_SIZE ((size_t)1 << 20)

/* A rank filemap read from the directory, before the rank count is known. */
struct found {
    int rank;
    int id;
    struct scr_scan_rank rec;
};

void scr_scan_free(struct scr_scan *scan)
{
    if (scan == NULL) return;
    for (int r = 0; scan->rank && r < scan->ranks; r++) free(scan->rank[r].files);
    for (int i = 0; i < scan->nsets; i++) {
        free(scan->sets[i].member_rank);
        free(scan->sets[i].member_good);
    }
    free(scan->rank);
    free(scan->sets);
    free(scan->missing);
    free(scan->set_slot);
    scr_dataset_delete(scan->desc);
    free(scan->dir);
    free(scan);
}

int scr_scan_is_complete(const struct scr_scan *scan)
{
    return scan != NULL && !scan->invalid && scan->nmissing == 0;
}

void scr_scan_format_ranks(const int *ranks, int n, int limit, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0) return;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 1 < len; i++) {
        int w = i == limit ? snprintf(buf + used, len - used, ", ...")
                           : snprintf(buf + used, len - used, "%s%d", i ? ", " : "", ranks[i]);
        if (w < 0) break;
        used += (size_t)w;
        if (i == limit) break;
    }
}

struct scr_scan_set *scr_scan_find_set(const struct scr_scan *scan, enum scr_redundancy_kind kind, int set_id)
{
    if (set_id < 0 || set_id >= scan->ranks) return NULL;
    int slot = scan->set_slot[(int)kind * scan->ranks + set_id];
    return slot < 0 ? NULL : &scan->sets[slot];
}

/* The set of a redundancy file name, created on first sight. */
static int set_of(struct scr_scan *scan, const struct scr_redundancy_name *n, struct scr_scan_set **out)
{
    struct scr_scan_set *set = scr_scan_find_set(scan, n->kind, n->set);
    if (set == NULL) {
        /* grow by doubling: a dataset of many small sets stays linear */
        if (scan->nsets == scan->sets_cap) {
            int cap = scan->sets_cap ? 2 * scan->sets_cap : 16;
            struct scr_scan_set *grown = realloc(scan->sets, sizeof(*grown) * (size_t)cap);
            if (grown == NULL) return SCR_ERR_NOMEM;
            scan->sets = grown;
            scan->sets_cap = cap;
        }
        set = &scan->sets[scan->nsets];
        memset(set, 0, sizeof(*set));
        set->kind = n->kind;
        set->set_id = n->set;
        set->size = n->size;
        set->member_rank = malloc(sizeof(int) * (size_t)n->size);
        set->member_good = calloc((size_t)n->size, sizeof(int));
        if (set->member_rank == NULL || set->member_good == NULL) {
            free(set->member_rank);
            free(set->member_good);
            return SCR_ERR_NOMEM;
        }
        for (int i = 0; i < n->size; i++) set->member_rank[i] = -1;
        scan->set_slot[(int)n->kind * scan->ranks + n->set] = scan->nsets++;
    }
    *out = set;
    return SCR_SUCCESS;
}

static void mark_invalid(struct scr_scan *scan, const char *why)
{
    scr_err("%s: %s; the dataset cannot be trusted", scan->dir, why);
    scan->invalid = 1;
}

/* Note the redundancy file name of rank, if it is one. */
static int note_redundancy_file(struct scr_scan *scan, int rank, const char *name, int good)
{
    struct scr_redundancy_name n;
    if (strchr(name, '/') != NULL || !scr_redundancy_file_parse_name(name, &n)) return SCR_SUCCESS;
    char why[512];
    if (n.set >= scan->ranks || n.size > scan->ranks) {
        snprintf(why, sizeof(why), "rank %d lists %s, a set that cannot exist among %d ranks", rank, name, scan->ranks);
        mark_invalid(scan, why);
        return SCR_SUCCESS;
    }
    struct scr_scan_set *set = NULL;
    int rc = set_of(scan, &n, &set);
    if (rc != SCR_SUCCESS) return rc;
    if (set->size != n.size || (set->member_rank[n.member] >= 0 && set->member_rank[n.member] != rank)) {
        snprintf(why, sizeof(why), "rank %d lists %s, which another rank's files contradict", rank, name);
        mark_invalid(scan, why);
        return SCR_SUCCESS;
    }
    set->member_rank[n.member] = rank;
    set->member_good[n.member] = good;
    return SCR_SUCCESS;
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

/* 1 when the file exists with its recorded size (and CRC when checked).
 * It is looked up from the open dataset directory when its name stays
 * inside it: the kernel then walks one name, not the whole path, for each
 * of the many files of a large dataset. */
static int file_is_good(int dir_fd, const char *name, const char *path, const struct scr_scan_file *f, void *buf)
{
    struct stat st;
    int found = dir_fd >= 0 && stays_inside(name) ? fstatat(dir_fd, name, &st, 0) : stat(path, &st);
    if (found != 0) {
        scr_dbg(1, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != f->size) {
        scr_warn("%s is %llu bytes, %llu recorded", path, (unsigned long long)st.st_size,
                 (unsigned long long)f->size);
        return 0;
    }
    if (buf != NULL && f->has_crc) {
        struct scr_copy_result got = {0, 0};
        if (scr_crc_file(path, buf, CRC_BUF_SIZE, &got) != SCR_SUCCESS) return 0;
        if (got.crc != f->crc) {
            scr_err("%s is damaged: CRC32 0x%08x, 0x%08x recorded", path, got.crc, f->crc);
            return 0;
        }
    }
    return 1;
}

/* Reduce the files rank lists in dataset id to out (one allocation for the
 * array and the names) and check each against the directory. */
static int take_rank(const char *dir, int dir_fd, const scr_filemap *rmap, int id, int rank, void *crc_buf,
                     struct scr_scan_rank *out)
{
    struct scr_rank_filemap_file *files = NULL;
    int n = 0;
    memset(out, 0, sizeof(*out));
    out->listed = 1;
    if (scr_filemap_get_expected_files(rmap, id, rank, &out->expected) != SCR_SUCCESS) out->expected = -1;
    int rc = scr_rank_filemap_list_files(rmap, id, rank, &files, &n);
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
        rc = scr_rank_filemap_file_path(dir, f->name, &path);
        if (rc == SCR_SUCCESS && take_meta(path, files[i].meta, f)) f->good = (unsigned char)file_is_good(dir_fd, f->name, path, f, crc_buf);
        out->good += f->good;
        free(path);
    }
    free(files);
    return rc;
}

/* Read <dir>/<rank>.scrfilemap into a new rmap; *out NULL when it is
 * damaged (logged) or does not hold the files of rank in one dataset. */
static int read_rank_filemap(const char *dir, int rank, scr_filemap **out, int *out_id)
{
    char *path = NULL;
    *out = NULL;
    scr_filemap *rmap = scr_filemap_new();
    int rc = rmap ? scr_rank_filemap_path(dir, rank, &path) : SCR_ERR_NOMEM;
    int rrc = rc == SCR_SUCCESS ? scr_rank_filemap_read(path, rmap) : rc;
    if (rc == SCR_SUCCESS && rrc == SCR_SUCCESS &&
        (scr_filemap_num_datasets(rmap) != 1 || scr_filemap_latest_dataset(rmap, out_id) != SCR_SUCCESS ||
         scr_filemap_num_ranks(rmap) != 1 || !scr_filemap_have_rank_by_dataset(rmap, *out_id, rank))) {
        scr_err("%s: expected the files of rank %d in one dataset", path, rank);
        rrc = SCR_ERR_FORMAT;
    }
    if (rrc == SCR_ERR_NOMEM) rc = rrc;
    if (rc == SCR_SUCCESS && rrc == SCR_SUCCESS) {
        *out = rmap;
    } else {
        if (rc == SCR_SUCCESS && rrc != SCR_ERR_NOMEM) scr_err("%s cannot be used: rank %d counts as missing", path, rank);
        scr_filemap_delete(rmap);
    }
    free(path);
    return rc;
}

int scr_scan_read_rank_filemap(const struct scr_scan *scan, int rank, scr_filemap **out)
{
    int id = 0;
    *out = NULL;
    if (rank < 0 || rank >= scan->ranks || !scan->rank[rank].listed) return SCR_SUCCESS;
    int rc = read_rank_filemap(scan->dir, rank, out, &id);
    if (rc == SCR_SUCCESS && *out != NULL && id != scan->id) {
        scr_filemap_delete(*out);
        *out = NULL;
    }
    return rc;
}

/* One rank filemap of the directory: read, reduced to what the scan keeps
 * (the first descriptor seen becomes the dataset's), files checked. */
static int take_rank_filemap(struct scr_scan *scan, int dir_fd, int rank, void *crc_buf, struct found *out,
                             int *out_ok)
{
    scr_filemap *rmap = NULL;
    const scr_dataset *desc = NULL;
    *out_ok = 0;
    int rc = read_rank_filemap(scan->dir, rank, &rmap, &out->id);
    if (rc != SCR_SUCCESS || rmap == NULL) return rc;
    if (scan->desc == NULL && scr_filemap_get_dataset(rmap, out->id, rank, &desc) == SCR_SUCCESS) {
        scan->desc = scr_dataset_new();
        if (scan->desc == NULL || scr_dataset_copy(scan->desc, desc) != SCR_SUCCESS) rc = SCR_ERR_NOMEM;
    }
    out->rank = rank;
    if (rc == SCR_SUCCESS) rc = take_rank(scan->dir, dir_fd, rmap, out->id, rank, crc_buf, &out->rec);
    if (rc == SCR_SUCCESS) *out_ok = 1;
    else free(out->rec.files);
    scr_filemap_delete(rmap);
    return rc;
}

/* Every <rank>.scrfilemap of the directory. *out_damaged collects ranks
 * whose file could not be read, so that they count as missing. */
static int read_dir(struct scr_scan *scan, void *crc_buf, struct found **out, int *out_n, int **out_damaged,
                    int *out_ndamaged)
{
    DIR *d = opendir(scan->dir);
    if (d == NULL) {
        scr_err("cannot read the dataset directory %s: %s", scan->dir, strerror(errno));
        return errno == ENOENT || errno == ENOTDIR ? SCR_ERR_NOTFOUND : SCR_ERR_IO;
    }
    struct found *list = NULL;
    int *damaged = NULL, n = 0, cap = 0, nd = 0, rc = SCR_SUCCESS;
    for (struct dirent *de; rc == SCR_SUCCESS && (de = readdir(d)) != NULL;) {
        int rank = -1, ok = 0;
        if (!scr_rank_filemap_is_name(de->d_name, &rank)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            struct found *grown = realloc(list, sizeof(*grown) * (size_t)cap);
            int *dgrown = realloc(damaged, sizeof(int) * (size_t)cap);
            if (grown) list = grown;
            if (dgrown) damaged = dgrown;
            if (grown == NULL || dgrown == NULL) rc = SCR_ERR_NOMEM;
        }
        if (rc == SCR_SUCCESS) rc = take_rank_filemap(scan, dirfd(d), rank, crc_buf, &list[n], &ok);
        if (rc == SCR_SUCCESS && ok) n++;
        else if (rc == SCR_SUCCESS) damaged[nd++] = rank;
    }
    closedir(d);
    if (rc != SCR_SUCCESS) {
        for (int i = 0; i < n; i++) free(list[i].rec.files);
        free(list);
        free(damaged);
        return rc;
    }
    *out = list;
    *out_n = n;
    *out_damaged = damaged;
    *out_ndamaged = nd;
    return SCR_SUCCESS;
}

/* The dataset id and rank count the rank filemaps agree on. */
static void agree_on_dataset(struct scr_scan *scan, const struct found *list, int n, const int *damaged, int nd)
{
    int ranks = 0, highest = -1;
    char why[160];
    for (int i = 0; i < nd; i++) if (damaged[i] > highest) highest = damaged[i];
    scan->id = list[0].id;
    for (int i = 0; i < n; i++) {
        if (list[i].id != scan->id) {
            snprintf(why, sizeof(why), "rank %d's files belong to dataset %d, rank %d's to dataset %d",
                     list[0].rank, scan->id, list[i].rank, list[i].id);
            mark_invalid(scan, why);
        }
        if (list[i].rank > highest) highest = list[i].rank;
        for (int f = 0; f < list[i].rec.nfiles; f++) {
            int r = list[i].rec.files[f].ranks;
            if (r == 0) continue;
            if (ranks != 0 && r != ranks) {
                snprintf(why, sizeof(why), "the files say both %d and %d ranks wrote the dataset", ranks, r);
                mark_invalid(scan, why);
            }
            if (r > ranks) ranks = r;
        }
    }
    if (ranks == 0) ranks = highest + 1;
    if (highest >= ranks) {
        snprintf(why, sizeof(why), "a rank filemap of rank %d, but %d ranks wrote the dataset", highest, ranks);
        mark_invalid(scan, why);
        ranks = highest + 1;
    }
    scan->ranks = ranks;
}

/* With the rank count known: the sets a rank's redundancy files belong to,
 * and whether it misses anything. */
static int place_rank(struct scr_scan *scan, int rank)
{
    struct scr_scan_rank *sr = &scan->rank[rank];
    int rc = SCR_SUCCESS;
    for (int i = 0; rc == SCR_SUCCESS && i < sr->nfiles; i++)
        rc = note_redundancy_file(scan, rank, sr->files[i].name, sr->files[i].good);
    if (rc == SCR_SUCCESS && sr->expected >= 0 && sr->good > sr->expected) {
        char why[160];
        snprintf(why, sizeof(why), "rank %d has %d files, more than the %d it wrote", rank, sr->good, sr->expected);
        mark_invalid(scan, why);
    }
    sr->missing = sr->expected < 0 || sr->good < sr->expected || sr->good < sr->nfiles;
    return rc;
}

static int list_missing(struct scr_scan *scan)
{
    for (int r = 0; r < scan->ranks; r++) {
        if (!scan->rank[r].missing) continue;
        if (scan->missing == NULL && (scan->missing = malloc(sizeof(int) * (size_t)scan->ranks)) == NULL)
            return SCR_ERR_NOMEM;
        scan->missing[scan->nmissing++] = r;
    }
    return SCR_SUCCESS;
}

int scr_scan_dataset(const char *dir, int check_crc, struct scr_scan **out_scan)
{
    struct found *list = NULL;
    int *damaged = NULL, n = 0, nd = 0;
    void *crc_buf = NULL;
    struct scr_scan *scan = calloc(1, sizeof(*scan));
    int rc = scan ? scr_path_normalize(dir, &scan->dir) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && check_crc && (crc_buf = malloc(CRC_BUF_SIZE)) == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = read_dir(scan, crc_buf, &list, &n, &damaged, &nd);
    if (rc == SCR_SUCCESS && n == 0) {
        scr_err("%s: no readable rank filemap (<rank>%s), so nothing says what the dataset holds",
                scan->dir, SCR_RANK_FILEMAP_SUFFIX);
        rc = nd > 0 ? SCR_ERR_FORMAT : SCR_ERR_NOTFOUND;
    }
    if (rc == SCR_SUCCESS) {
        agree_on_dataset(scan, list, n, damaged, nd);
        scan->rank = calloc((size_t)scan->ranks, sizeof(*scan->rank));
        scan->set_slot = malloc(sizeof(int) * 2 * (size_t)scan->ranks);
        if (scan->rank == NULL || scan->set_slot == NULL) rc = SCR_ERR_NOMEM;
    }
    for (int i = 0; rc == SCR_SUCCESS && i < 2 * scan->ranks; i++) scan->set_slot[i] = -1;
    for (int r = 0; rc == SCR_SUCCESS && r < scan->ranks; r++) {
        scan->rank[r].expected = -1;
        scan->rank[r].missing = 1;
    }
    /* a rank filemap of another dataset makes the scan invalid; its files are not this dataset's */
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        if (list[i].id != scan->id) continue;
        scan->rank[list[i].rank] = list[i].rec;
        list[i].rec.files = NULL;
    }
    for (int r = 0; rc == SCR_SUCCESS && r < scan->ranks; r++)
        if (scan->rank[r].listed) rc = place_rank(scan, r);
    if (rc == SCR_SUCCESS) rc = list_missing(scan);
    for (int i = 0; list && i < n; i++) free(list[i].rec.files);
    free(list);
    free(damaged);
    free(crc_buf);
    if (rc != SCR_SUCCESS) {
        scr_scan_free(scan);
        return rc;
    }
    *out_scan = scan;
    return SCR_SUCCESS;
}
