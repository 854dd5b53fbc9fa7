/* rebuild.c — decide which missing ranks of a scan can be rebuilt, and how. */
#include "rebuild.h"
#include "rebuild_schemes.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_BUF_SIZE ((size_t)1 << 20)

/* Fill the members of set that no file named (their ranks lost their rank
 * filemaps) from the GROUP of a member's header. */
static int complete_members(const struct scr_scan *scan, struct scr_scan_set *set)
{
    int known = -1, unknown = 0;
    for (int i = 0; i < set->size; i++) {
        if (set->member_rank[i] < 0)
            unknown++;
        else if (set->member_good[i] && known < 0)
            known = i;
    }
    if (unknown == 0 || known < 0) return SCR_SUCCESS;
    char name[128], *path = NULL;
    struct scr_redundancy_name rn = {set->kind, known, set->size, set->set_id};
    scr_kvtree *header = NULL;
    uint64_t hlen = 0;
    int *group = NULL, n = 0, fd = -1;
    int rc = scr_redundancy_file_name(&rn, name, sizeof(name));
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_join(scan->dir, name, &path);
    if (rc != SCR_SUCCESS) goto out;
    if ((rc = scr_open_regular(path, O_RDONLY, 0, &fd)) != SCR_SUCCESS) {
        if (rc == SCR_ERR_NOTFOUND) scr_err("cannot open %s: %s", path, strerror(ENOENT));
        fd = -1;
        rc = SCR_ERR_IO;
        goto out;
    }
    rc = scr_redundancy_file_read_header(fd, path, &header, &hlen);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_file_group(header, path, &group, &n);
    if (rc != SCR_SUCCESS) goto out;
    if (n != set->size) {
        scr_err("%s: its GROUP has %d members, its name says %d", path, n, set->size);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (group[i] >= scan->ranks ||
            (set->member_rank[i] >= 0 && set->member_rank[i] != group[i])) {
            scr_err("%s: its GROUP names rank %d as member %d, which the rank filemaps contradict",
                    path, group[i], i);
            rc = SCR_ERR_FORMAT;
            goto out;
        }
        set->member_rank[i] = group[i];
    }
out:
    if (fd >= 0) close(fd);
    free(path);
    free(group);
    scr_kvtree_delete(header);
    return rc;
}

/* Rebuild the lost members of one set when the scheme allows; marks the
 * ranks it rebuilt in done[]. */
static int rebuild_set(const struct scr_scan *scan, struct scr_scan_set *set,
                       const char *is_missing, char *done, size_t bufsize, int *out_rebuilt)
{
    int lost[256], nlost = 0, unknown = 0;
    if (complete_members(scan, set) != SCR_SUCCESS) return SCR_FAILURE;
    for (int i = 0; i < set->size; i++) {
        int r = set->member_rank[i];
        if (r < 0)
            unknown++;
        else if (is_missing[r] && !done[r] && nlost < 256)
            lost[nlost++] = i;
    }
    if (nlost == 0) return SCR_SUCCESS;
    const char *kind = set->kind == SCR_REDUNDANCY_XOR ? "XOR" : "RS";
    if (unknown > 0) {
        scr_err("%s: %s set %d: no surviving member tells which ranks %d of its members are",
                scan->dir, kind, set->set_id, unknown);
        return SCR_FAILURE;
    }
    if (set->kind == SCR_REDUNDANCY_XOR && nlost > 1) {
        scr_err("%s: XOR set %d lost %d members; it can rebuild one", scan->dir, set->set_id,
                nlost);
        return SCR_FAILURE;
    }
    int rc = set->kind == SCR_REDUNDANCY_XOR ? scr_rebuild_xor_set(scan, set, lost[0], bufsize)
                                             : scr_rebuild_rs_set(scan, set, lost, nlost, bufsize);
    if (rc != SCR_SUCCESS) return rc;
    for (int i = 0; i < nlost; i++) done[set->member_rank[lost[i]]] = 1;
    *out_rebuilt += nlost;
    return SCR_SUCCESS;
}

int scr_rebuild_dataset(const struct scr_scan *scan, size_t bufsize, int *out_rebuilt)
{
    *out_rebuilt = 0;
    if (scan->invalid) {
        scr_err("%s: its records contradict each other; not rebuilding anything", scan->dir);
        return SCR_ERR_STATE;
    }
    if (scan->nmissing == 0) return SCR_SUCCESS;
    if (bufsize == 0) bufsize = DEFAULT_BUF_SIZE;
    char *is_missing = calloc((size_t)scan->ranks, 1), *done = calloc((size_t)scan->ranks, 1);
    int *left = NULL, nleft = 0;
    int rc = SCR_ERR_NOMEM;
    if (is_missing == NULL || done == NULL) goto out;
    for (int i = 0; i < scan->nmissing; i++) is_missing[scan->missing[i]] = 1;

    /* a PARTNER copy is the cheapest source; a rank without a usable one
     * is not a failure here but left to its redundancy set, so only a lack
     * of memory stops the loop */
    for (int i = 0; i < scan->nmissing; i++) {
        int r = scan->missing[i];
        int prc = scr_rebuild_partner_rank(scan, r, bufsize);
        if (prc == SCR_SUCCESS) {
            done[r] = 1;
            (*out_rebuilt)++;
        } else if (prc == SCR_ERR_NOMEM) {
            rc = prc;
            goto out;
        }
    }
    /* then each redundancy set that lost members; a set that cannot be
     * rebuilt (it said why) goes on to the next: its ranks stay undone and
     * are named below */
    for (int s = 0; s < scan->nsets; s++)
        rebuild_set(scan, &scan->sets[s], is_missing, done, bufsize, out_rebuilt);

    if ((left = malloc(sizeof(int) * (size_t)scan->nmissing)) == NULL) goto out;
    for (int i = 0; i < scan->nmissing; i++)
        if (!done[scan->missing[i]]) left[nleft++] = scan->missing[i];
    rc = SCR_SUCCESS;
    if (nleft > 0) {
        char list[256];
        scr_scan_format_ranks(left, nleft, 20, list, sizeof(list));
        scr_err("%s: the files of %d rank(s) cannot be rebuilt: %s", scan->dir, nleft, list);
        rc = SCR_FAILURE;
    }
out:
    free(left);
    free(is_missing);
    free(done);
    return rc;
}
