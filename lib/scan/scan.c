/* scan.c — what a dataset directory holds: the ranks and sets its rank
 * filemaps (scan_read.h) agree on, and what each rank misses. */
#include "scan.h"
#include "rank_filemap.h"
#include "scan_read.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct scr_scan_set *scr_scan_find_set(const struct scr_scan *scan, enum scr_redundancy_kind kind,
                                       int set_id)
{
    if (set_id < 0 || set_id >= scan->ranks) return NULL;
    int slot = scan->set_slot[(int)kind * scan->ranks + set_id];
    return slot < 0 ? NULL : &scan->sets[slot];
}

/* The set of a redundancy file name, created on first sight. */
static int set_of(struct scr_scan *scan, const struct scr_redundancy_name *n,
                  struct scr_scan_set **out)
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
        snprintf(why, sizeof(why), "rank %d lists %s, a set that cannot exist among %d ranks", rank,
                 name, scan->ranks);
        mark_invalid(scan, why);
        return SCR_SUCCESS;
    }
    struct scr_scan_set *set = NULL;
    int rc = set_of(scan, &n, &set);
    if (rc != SCR_SUCCESS) return rc;
    if (set->size != n.size ||
        (set->member_rank[n.member] >= 0 && set->member_rank[n.member] != rank)) {
        snprintf(why, sizeof(why), "rank %d lists %s, which another rank's files contradict", rank,
                 name);
        mark_invalid(scan, why);
        return SCR_SUCCESS;
    }
    set->member_rank[n.member] = rank;
    set->member_good[n.member] = good;
    return SCR_SUCCESS;
}

int scr_scan_read_rank_filemap(const struct scr_scan *scan, int rank, scr_filemap **out)
{
    int id = 0;
    *out = NULL;
    if (rank < 0 || rank >= scan->ranks || !scan->rank[rank].listed) return SCR_SUCCESS;
    int rc = scr_scan_read_one(scan->dir, rank, out, &id);
    if (rc == SCR_SUCCESS && *out != NULL && id != scan->id) {
        scr_filemap_delete(*out);
        *out = NULL;
    }
    return rc;
}

/* The dataset id and rank count the rank filemaps agree on. */
static void agree_on_dataset(struct scr_scan *scan, const struct scr_scan_found *list, int n,
                             const int *damaged, int nd)
{
    int ranks = 0, highest = -1;
    char why[160];
    for (int i = 0; i < nd; i++)
        if (damaged[i] > highest) highest = damaged[i];
    scan->id = list[0].id;
    for (int i = 0; i < n; i++) {
        if (list[i].id != scan->id) {
            snprintf(why, sizeof(why),
                     "rank %d's files belong to dataset %d, rank %d's to dataset %d", list[0].rank,
                     scan->id, list[i].rank, list[i].id);
            mark_invalid(scan, why);
        }
        if (list[i].rank > highest) highest = list[i].rank;
        for (int f = 0; f < list[i].rec.nfiles; f++) {
            int r = list[i].rec.files[f].ranks;
            if (r == 0) continue;
            if (ranks != 0 && r != ranks) {
                snprintf(why, sizeof(why), "the files say both %d and %d ranks wrote the dataset",
                         ranks, r);
                mark_invalid(scan, why);
            }
            if (r > ranks) ranks = r;
        }
    }
    if (ranks == 0) ranks = highest + 1;
    if (highest >= ranks) {
        snprintf(why, sizeof(why), "a rank filemap of rank %d, but %d ranks wrote the dataset",
                 highest, ranks);
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
        snprintf(why, sizeof(why), "rank %d has %d files, more than the %d it wrote", rank,
                 sr->good, sr->expected);
        mark_invalid(scan, why);
    }
    sr->missing = sr->expected < 0 || sr->good < sr->expected || sr->good < sr->nfiles;
    return rc;
}

static int list_missing(struct scr_scan *scan)
{
    for (int r = 0; r < scan->ranks; r++) {
        if (!scan->rank[r].missing) continue;
        if (scan->missing == NULL &&
            (scan->missing = malloc(sizeof(int) * (size_t)scan->ranks)) == NULL)
            return SCR_ERR_NOMEM;
        scan->missing[scan->nmissing++] = r;
    }
    return SCR_SUCCESS;
}

int scr_scan_dataset(const char *dir, int check_crc, struct scr_scan **out_scan)
{
    struct scr_scan_found *list = NULL;
    int *damaged = NULL, n = 0, nd = 0;
    struct scr_scan *scan = calloc(1, sizeof(*scan));
    int rc = scan ? scr_path_normalize(dir, &scan->dir) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS)
        rc = scr_scan_read_dir(scan->dir, check_crc, &list, &n, &damaged, &nd, &scan->desc);
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
    if (rc != SCR_SUCCESS) {
        scr_scan_free(scan);
        return rc;
    }
    *out_scan = scan;
    return SCR_SUCCESS;
}
