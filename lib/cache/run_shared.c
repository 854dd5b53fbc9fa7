/* run_shared.c — a file that ranks on more than one node routed into one dataset.
 *
 * SCR_Route_file is local: a file that every rank writes a part of (one
 * shared file) gets a path in each node's cache, and each node's copy holds
 * only the bytes its own ranks wrote. No copy is the file, and no rule can
 * merge them without knowing which bytes each rank wrote, so such a file
 * cannot be cached. Ranks of one node share one copy, which is whole.
 * scr_shared_file_check finds a file routed on several nodes when its
 * dataset completes (the first collective call after the routes), by the
 * hash of its name relative to the prefix: rank 0 gathers (hash, node)
 * pairs, O(files) bytes, once per dataset. */
#include "meta.h"
#include "mpi_comm.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_log.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits: names only need telling apart. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* (hash, node) pairs sort by hash, then node. */
static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Rank 0: the first hash that pairs with more than one node, and on how many. */
static void find_shared(uint64_t *pairs, int n, uint64_t out[2])
{
    out[0] = out[1] = 0;
    qsort(pairs, (size_t)n, 2 * sizeof(uint64_t), cmp_pair);
    for (int i = 0; i < n;) {
        int j = i + 1, nodes = 1;
        for (; j < n && pairs[2 * j] == pairs[2 * i]; j++)
            if (pairs[2 * j + 1] != pairs[2 * j - 1]) nodes++;
        if (nodes > 1) {
            out[0] = pairs[2 * i];
            out[1] = (uint64_t)nodes;
            return;
        }
        i = j;
    }
}

/* This rank's files of dataset id as (hash of the name relative to the
 * prefix, node) pairs in a new array. */
static int my_pairs(struct scr_run *run, int id, uint64_t node, uint64_t **out_pairs, int *out_n,
                    const char ***out_names)
{
    const char **files = NULL;
    int n = 0;
    *out_pairs = NULL;
    *out_names = NULL;
    *out_n = 0;
    if (scr_filemap_list_files(run->map, id, run->rank, &files, &n) != SCR_SUCCESS || n == 0) {
        free(files);
        return SCR_SUCCESS;
    }
    uint64_t *pairs = malloc(2 * sizeof(uint64_t) * (size_t)n);
    if (pairs == NULL) {
        free(files);
        scr_err("out of memory listing the files of dataset %d", id);
        return SCR_ERR_NOMEM;
    }
    for (int f = 0; f < n; f++) {
        const scr_meta *meta = NULL;
        const char *rel = files[f];
        if (scr_filemap_get_meta(run->map, id, run->rank, files[f], &meta) == SCR_SUCCESS)
            scr_meta_get_filename(meta, &rel);
        files[f] = rel;
        pairs[2 * f] = name_hash(rel);
        pairs[2 * f + 1] = node;
    }
    *out_pairs = pairs;
    *out_names = files;
    *out_n = n;
    return SCR_SUCCESS;
}

int scr_shared_file_check(struct scr_run *run, int id, const char *name, int *out_shared)
{
    *out_shared = 0;
    /* a node is known by the world rank of its first rank */
    int leader = run->rank;
    int rc = scr_mpi_check(MPI_Bcast(&leader, 1, MPI_INT, 0, run->node), "naming this node");
    uint64_t *pairs = NULL, *all = NULL, found[2] = {0, 0};
    const char **names = NULL;
    int n = 0, lrc = SCR_SUCCESS, *counts = NULL, *displs = NULL, total = 0, ok = 0;
    if (rc == SCR_SUCCESS) lrc = my_pairs(run, id, (uint64_t)leader, &pairs, &n, &names);
    if (rc == SCR_SUCCESS) rc = scr_comm_all_true(lrc == SCR_SUCCESS, run->world, &ok);
    if (rc == SCR_SUCCESS && !ok) rc = SCR_ERR_NOMEM;
    int mine = 2 * n;
    if (rc == SCR_SUCCESS && run->rank == 0) {
        counts = malloc(sizeof(int) * (size_t)run->ranks);
        displs = malloc(sizeof(int) * (size_t)run->ranks);
        lrc = counts && displs ? SCR_SUCCESS : SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = scr_comm_all_true(lrc == SCR_SUCCESS, run->world, &ok);
    if (rc == SCR_SUCCESS && !ok) rc = SCR_ERR_NOMEM;
    /* rank 0 learns how much comes */
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, run->world), "counting files");
    if (rc == SCR_SUCCESS && run->rank == 0) {
        for (int r = 0; r < run->ranks; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(sizeof(uint64_t) * (size_t)(total > 0 ? total : 1));
        if (all == NULL) lrc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) rc = scr_comm_all_true(lrc == SCR_SUCCESS, run->world, &ok);
    if (rc == SCR_SUCCESS && !ok) {
        if (run->rank == 0) scr_err("out of memory gathering the file names of dataset %d", id);
        rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Gatherv(pairs, mine, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, run->world),
                           "gathering file names");
    if (rc == SCR_SUCCESS && run->rank == 0) find_shared(all, total / 2, found);
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Bcast(found, 2, MPI_UINT64_T, 0, run->world), "sharing the verdict");
    if (rc == SCR_SUCCESS && found[1] > 1) {
        /* the lowest rank that routed it names it */
        int have = INT_MAX, teller = INT_MAX, which = -1;
        for (int f = 0; f < n && which < 0; f++)
            if (pairs[2 * f] == found[0]) which = f;
        if (which >= 0) have = run->rank;
        rc = scr_mpi_check(MPI_Allreduce(&have, &teller, 1, MPI_INT, MPI_MIN, run->world), "finding who reports");
        if (rc == SCR_SUCCESS && run->rank == teller)
            scr_err("dataset %d (%s): ranks on %d nodes wrote %s; each node's cache would hold only the part "
                    "its own ranks wrote, so a file shared across nodes cannot be cached: set "
                    "SCR_CACHE_BYPASS=1 to write the dataset in place on the prefix", id, name,
                    (int)found[1], names[which]);
        if (rc == SCR_SUCCESS) *out_shared = 1;
    }
    free(pairs);
    free(names);
    free(all);
    free(counts);
    free(displs);
    return rc;
}
