/* rebuild_xor.c — one lost member of an XOR set, rebuilt on the prefix.
 *
 * Member i's files are one logical file cut into N-1 chunks; slot s of
 * member i is chunk (s < i ? s : s-1), slot i holds no data, and member i's
 * XOR file holds X_i = XOR of every other member's slot i. So the lost
 * member m gets, for each slot s != m, X_s XOR the slot s of every member
 * other than s and m, and for its own XOR file, X_m = XOR of the slot m of
 * every other member. Piece by piece, two buffers. */
#include "erasure_xor.h"
#include "kvtree_util.h"
#include "rebuild_member.h"
#include "rebuild_schemes.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

/* Offset in member's logical file of its slot s. */
static uint64_t slot_offset(int member, int slot, uint64_t chunk)
{
    return (uint64_t)(slot < member ? slot : slot - 1) * chunk;
}

/* The XOR data of member m from offset off, as a one-part padded file. */
static int xor_data(struct rebuild_member *m, uint64_t chunk, uint64_t off, void *buf, size_t len,
                    int write)
{
    scr_padfile_part part = {m->rfd, m->rpath, m->hlen + chunk};
    return write ? scr_padfile_write(&part, 1, m->hlen + off, buf, len)
                 : scr_padfile_read(&part, 1, m->hlen + off, buf, len);
}

/* The lost member's header: its right neighbour's, with its own files as
 * CURRENT and its left neighbour's as PARTNER (as the library writes it). */
static int lost_header(const struct scr_scan_set *set, struct rebuild_member *mem, int lost,
                       scr_kvtree **out_h, const scr_kvtree **out_current)
{
    int N = set->size, right = (lost + 1) % N, left = (lost + N - 1) % N;
    const scr_kvtree *mine = scr_rebuild_member_metas_of(&mem[right], set, right, lost);
    const scr_kvtree *lefts = scr_kvtree_get(mem[left].header, "CURRENT");
    if (mine == NULL || lefts == NULL) {
        scr_err("%s: the XOR headers of set %d keep no record of member %d's files",
                mem[right].rpath, set->set_id, lost);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *h = scr_kvtree_dup(mem[right].header);
    if (h == NULL) return SCR_ERR_NOMEM;
    scr_kvtree_unset(h, "CURRENT");
    scr_kvtree_unset(h, "PARTNER");
    if (scr_kvtree_set(h, "CURRENT", scr_kvtree_dup(mine)) == NULL ||
        scr_kvtree_set(h, "PARTNER", scr_kvtree_dup(lefts)) == NULL) {
        scr_kvtree_delete(h);
        return SCR_ERR_NOMEM;
    }
    *out_h = h;
    *out_current = scr_kvtree_get(h, "CURRENT");
    return SCR_SUCCESS;
}

/* Compute every slot of the lost member, piece by piece. */
static int compute(const struct scr_scan_set *set, struct rebuild_member *mem, int lost,
                   uint64_t chunk, char *acc, char *buf, size_t bufsize)
{
    int N = set->size, rc = SCR_SUCCESS;
    for (int s = 0; s < N; s++) {
        for (uint64_t p = 0; p < chunk; p += bufsize) {
            size_t len = chunk - p < bufsize ? (size_t)(chunk - p) : bufsize;
            memset(acc, 0, len);
            for (int j = 0; j < N; j++) {
                if (j == lost) continue;
                if (j == s)
                    rc = xor_data(&mem[j], chunk, p, buf, len, 0);
                else
                    rc = scr_padfile_read(mem[j].parts, (size_t)mem[j].nfiles,
                                          slot_offset(j, s, chunk) + p, buf, len);
                if (rc != SCR_SUCCESS) return rc;
                scr_xor_accumulate(acc, buf, len);
            }
            if (s == lost)
                rc = xor_data(&mem[lost], chunk, p, acc, len, 1);
            else
                rc = scr_padfile_write(mem[lost].parts, (size_t)mem[lost].nfiles,
                                       slot_offset(lost, s, chunk) + p, acc, len);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    return SCR_SUCCESS;
}

/* Open every member but the lost one, and read the CHUNK their headers agree on. */
static int open_survivors(const struct scr_scan *scan, const struct scr_scan_set *set,
                          struct rebuild_member *mem, int lost, uint64_t *out_chunk)
{
    int N = set->size, right = (lost + 1) % N;
    uint64_t chunk = 0, other = 0;
    for (int i = 0; i < N; i++) {
        if (i == lost) continue;
        int rc = scr_rebuild_member_open(scan, set, i, &mem[i]);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (scr_kvtree_util_get_uint64(mem[right].header, "CHUNK", &chunk) != SCR_SUCCESS)
        return SCR_ERR_FORMAT;
    for (int i = 0; i < N; i++) {
        if (i == lost) continue;
        if (scr_kvtree_util_get_uint64(mem[i].header, "CHUNK", &other) != SCR_SUCCESS ||
            other != chunk) {
            scr_err("%s: its CHUNK differs from the rest of XOR set %d", mem[i].rpath, set->set_id);
            return SCR_ERR_FORMAT;
        }
    }
    *out_chunk = chunk;
    return SCR_SUCCESS;
}

int scr_rebuild_xor_set(const struct scr_scan *scan, const struct scr_scan_set *set, int lost,
                        size_t bufsize)
{
    int N = set->size, right = (lost + 1) % N;
    struct rebuild_member *mem = calloc((size_t)N, sizeof(*mem));
    char *acc = malloc(bufsize), *buf = malloc(bufsize);
    scr_kvtree *header = NULL;
    const scr_kvtree *current = NULL;
    uint64_t chunk = 0;
    int *group = NULL, gsize = 0;
    int rc = SCR_ERR_NOMEM;
    for (int i = 0; mem && i < N; i++) mem[i].rfd = -1;
    if (mem == NULL || acc == NULL || buf == NULL) goto out;
    rc = open_survivors(scan, set, mem, lost, &chunk);
    if (rc != SCR_SUCCESS) goto out;
    rc = lost_header(set, mem, lost, &header, &current);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_redundancy_file_group(header, mem[right].rpath, &group, &gsize);
    if (rc != SCR_SUCCESS) goto out;
    if (gsize != N) {
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    rc =
        scr_rebuild_member_create(scan, set, lost, group[lost], current, header, chunk, &mem[lost]);
    if (rc != SCR_SUCCESS) goto out;
    rc = compute(set, mem, lost, chunk, acc, buf, bufsize);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rebuild_member_commit(scan, set, &mem[lost], buf, bufsize);
    if (rc != SCR_SUCCESS) goto out;
    scr_dbg(1, "%s: rebuilt rank %d from XOR set %d", scan->dir, group[lost], set->set_id);
out:
    for (int i = 0; mem && i < N; i++) scr_rebuild_member_close(&mem[i]);
    free(mem);
    free(acc);
    free(buf);
    free(group);
    scr_kvtree_delete(header);
    return rc;
}
