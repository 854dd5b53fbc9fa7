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
    scr_filemap *rmap;
};

void scr_scan_free(struct scr_scan *scan)
{
    if (scan == NULL) return;
    for (int r = 0; scan->rank && r < scan->ranks; r++) scr_filemap_delete(scan->rank[r].rmap);
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

/* 1 when the file exists with its recorded size (and CRC when checked). */
static int file_is_good(const char *path, const scr_meta *meta, void *buf)
{
    uint64_t size = 0;
    uint32_t crc = 0;
    struct stat st;
    if (meta == NULL || scr_meta_get_filesize(meta, &size) != SCR_SUCCESS) {
        scr_warn("%s: no recorded size", path);
        return 0;
    }
    if (!scr_meta_is_complete(meta)) {
        scr_warn("%s: recorded as incomplete", path);
        return 0;
    }
    if (stat(path, &st) != 0) {
        scr_dbg(1, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
        scr_warn("%s is %llu bytes, %llu recorded", path, (unsigned long long)st.st_size, (unsigned long long)size);
        return 0;
    }
    if (buf != NULL && scr_meta_get_crc32(meta, &crc) == SCR_SUCCESS) {
        struct scr_copy_result got = {0, 0};
        if (scr_crc_file(path, buf, CRC_BUF_SIZE, &got) != SCR_SUCCESS) return 0;
        if (got.crc != crc) {
            scr_err("%s is damaged: CRC32 0x%08x, 0x%08x recorded", path, got.crc, crc);
            return 0;
        }
    }
    return 1;
}

/* Check the files of one rank and note its redundancy files. */
static int check_rank(struct scr_scan *scan, int rank, void *crc_buf)
{
    struct scr_scan_rank *sr = &scan->rank[rank];
    struct scr_rank_filemap_file *files = NULL;
    int n = 0;
    if (scr_filemap_get_expected_files(sr->rmap, scan->id, rank, &sr->expected) != SCR_SUCCESS) sr->expected = -1;
    int rc = scr_rank_filemap_list_files(sr->rmap, scan->id, rank, &files, &n);
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        char *path = NULL;
        rc = scr_rank_filemap_file_path(scan->dir, files[i].name, &path);
        int good = rc == SCR_SUCCESS && file_is_good(path, files[i].meta, crc_buf);
        sr->good += good;
        if (rc == SCR_SUCCESS) rc = note_redundancy_file(scan, rank, files[i].name, good);
        free(path);
    }
    free(files);
    if (rc == SCR_SUCCESS && sr->expected >= 0 && sr->good > sr->expected) {
        char why[160];
        snprintf(why, sizeof(why), "rank %d has %d files, more than the %d it wrote", rank, sr->good, sr->expected);
        mark_invalid(scan, why);
    }
    sr->missing = sr->expected < 0 || sr->good < sr->expected || sr->good < n;
    return rc;
}

/* Read <dir>/<rank>.scrfilemap; a damaged one is logged and left out. */
static int read_rank_filemap(const char *dir, int rank, struct found *out, int *out_ok)
{
    char *path = NULL;
    *out_ok = 0;
    scr_filemap *rmap = scr_filemap_new();
    int rc = rmap ? scr_rank_filemap_path(dir, rank, &path) : SCR_ERR_NOMEM;
    int rrc = rc == SCR_SUCCESS ? scr_rank_filemap_read(path, rmap) : rc;
    int id = 0;
    if (rc == SCR_SUCCESS && rrc == SCR_SUCCESS &&
        (scr_filemap_num_datasets(rmap) != 1 || scr_filemap_latest_dataset(rmap, &id) != SCR_SUCCESS ||
         scr_filemap_num_ranks(rmap) != 1 || !scr_filemap_have_rank_by_dataset(rmap, id, rank))) {
        scr_err("%s: expected the files of rank %d in one dataset", path, rank);
        rrc = SCR_ERR_FORMAT;
    }
    if (rrc == SCR_ERR_NOMEM) rc = rrc;
    if (rc == SCR_SUCCESS && rrc == SCR_SUCCESS) {
        out->rank = rank;
        out->rmap = rmap;
        *out_ok = 1;
    } else {
        if (rc == SCR_SUCCESS && rrc != SCR_ERR_NOMEM) scr_err("%s cannot be used: rank %d counts as missing", path, rank);
        scr_filemap_delete(rmap);
    }
    free(path);
    return rc;
}

/* Every <rank>.scrfilemap of dir. *out_damaged collects ranks whose file
 * could not be read, so that they count as missing. */
static int read_dir(const char *dir, struct found **out, int *out_n, int **out_damaged, int *out_ndamaged)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        scr_err("cannot read the dataset directory %s: %s", dir, strerror(errno));
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
        if (rc == SCR_SUCCESS) rc = read_rank_filemap(dir, rank, &list[n], &ok);
        if (rc == SCR_SUCCESS && ok) n++;
        else if (rc == SCR_SUCCESS) damaged[nd++] = rank;
    }
    closedir(d);
    if (rc != SCR_SUCCESS) {
        for (int i = 0; i < n; i++) scr_filemap_delete(list[i].rmap);
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

/* The dataset id, descriptor and rank count the rank filemaps agree on. */
static int agree_on_dataset(struct scr_scan *scan, const struct found *list, int n, const int *damaged, int nd)
{
    int ranks = 0, highest = -1;
    for (int i = 0; i < nd; i++) if (damaged[i] > highest) highest = damaged[i];
    scr_filemap_latest_dataset(list[0].rmap, &scan->id);
    for (int i = 0; i < n; i++) {
        int id = 0;
        scr_filemap_latest_dataset(list[i].rmap, &id);
        if (id != scan->id) {
            char why[160];
            snprintf(why, sizeof(why), "rank %d's files belong to dataset %d, rank %d's to dataset %d",
                     list[0].rank, scan->id, list[i].rank, id);
            mark_invalid(scan, why);
        }
        if (list[i].rank > highest) highest = list[i].rank;
        const scr_dataset *desc = NULL;
        if (scan->desc == NULL && scr_filemap_get_dataset(list[i].rmap, id, list[i].rank, &desc) == SCR_SUCCESS) {
            scan->desc = scr_dataset_new();
            if (scan->desc == NULL || scr_dataset_copy(scan->desc, desc) != SCR_SUCCESS) return SCR_ERR_NOMEM;
        }
        struct scr_rank_filemap_file *files = NULL;
        int nf = 0;
        if (scr_rank_filemap_list_files(list[i].rmap, id, list[i].rank, &files, &nf) != SCR_SUCCESS) return SCR_ERR_NOMEM;
        for (int f = 0; f < nf; f++) {
            int r = 0;
            if (files[f].meta == NULL || scr_meta_get_ranks(files[f].meta, &r) != SCR_SUCCESS) continue;
            if (ranks != 0 && r != ranks) {
                char why[160];
                snprintf(why, sizeof(why), "the files say both %d and %d ranks wrote the dataset", ranks, r);
                mark_invalid(scan, why);
            }
            if (r > ranks) ranks = r;
        }
        free(files);
    }
    if (ranks == 0) ranks = highest + 1;
    if (highest >= ranks) {
        char why[160];
        snprintf(why, sizeof(why), "a rank filemap of rank %d, but %d ranks wrote the dataset", highest, ranks);
        mark_invalid(scan, why);
        ranks = highest + 1;
    }
    scan->ranks = ranks;
    return SCR_SUCCESS;
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
    if (rc == SCR_SUCCESS) rc = read_dir(scan->dir, &list, &n, &damaged, &nd);
    if (rc == SCR_SUCCESS && n == 0) {
        scr_err("%s: no readable rank filemap (<rank>%s), so nothing says what the dataset holds",
                scan->dir, SCR_RANK_FILEMAP_SUFFIX);
        rc = nd > 0 ? SCR_ERR_FORMAT : SCR_ERR_NOTFOUND;
    }
    if (rc == SCR_SUCCESS) rc = agree_on_dataset(scan, list, n, damaged, nd);
    if (rc == SCR_SUCCESS) {
        scan->rank = calloc((size_t)scan->ranks, sizeof(*scan->rank));
        scan->set_slot = malloc(sizeof(int) * 2 * (size_t)scan->ranks);
        if (scan->rank == NULL || scan->set_slot == NULL) rc = SCR_ERR_NOMEM;
    }
    for (int i = 0; rc == SCR_SUCCESS && i < 2 * scan->ranks; i++) scan->set_slot[i] = -1;
    for (int r = 0; rc == SCR_SUCCESS && r < scan->ranks; r++) {
        scan->rank[r].expected = -1;
        scan->rank[r].missing = 1;
    }
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) {
        scan->rank[list[i].rank].rmap = list[i].rmap;
        list[i].rmap = NULL;
    }
    if (rc == SCR_SUCCESS && check_crc && (crc_buf = malloc(CRC_BUF_SIZE)) == NULL) rc = SCR_ERR_NOMEM;
    for (int r = 0; rc == SCR_SUCCESS && r < scan->ranks; r++)
        if (scan->rank[r].rmap) rc = check_rank(scan, r, crc_buf);
    if (rc == SCR_SUCCESS) rc = list_missing(scan);
    for (int i = 0; list && i < n; i++) scr_filemap_delete(list[i].rmap);
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
