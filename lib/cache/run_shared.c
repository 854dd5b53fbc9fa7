/* run_shared.c — a file that ranks on more than one node routed into one dataset.
 *
 * SCR_Route_file is local: a file that every rank writes a part of (one
 * shared file) gets a path in each node's cache, and each node's copy, a
 * piece, holds only the bytes its own ranks wrote. Ranks of one node share
 * one copy, which is whole. scr_shared_files_find finds the files routed on
 * several nodes when their dataset completes (the first collective call
 * after the routes), by the hash of their names relative to the prefix:
 * each rank sends its (hash, node, rank) triples to the rank that owns the
 * hash (mpi_owners.h), which finds the names several ranks list; those
 * alone reach rank 0, which shares them. A dataset of a file per process
 * costs each rank its own triples and one reduction, whatever P. The same list names the files
 * several ranks list (of one node or several), each of which the flush of a dataset written in
 * place reads once for its CRC, on the lowest of those ranks (shared_crc.h). The pieces are merged
 * on the prefix by shared_merge.h (transfer layer).
 *
 * A rank may open a file that a rank on another node created, without
 * O_CREAT (MPI-IO and HDF5 do: the first rank creates, the others open
 * after a barrier). That file does not exist in this node's cache, so the
 * second rank of a node to route a name creates the node's piece, empty:
 * two ranks of a node routing one name is what marks it shared. A name only
 * one rank of the node routes is left alone, as SCR 3.1 leaves it: not
 * created (an application that routes a name and never writes it leaves
 * no file), and O_CREAT|O_EXCL still creates it. Which ranks routed a name
 * is kept by a marker per (dataset, name) in the node's control directory,
 * created with O_EXCL so that exactly one rank is first; the markers go
 * when the dataset completes.
 *
 * A node that runs one rank of a job on several nodes has no second rank
 * to tell a shared name from its own, so its rank's route creates the
 * piece: MPI-IO opens the file without O_CREAT on every rank but the
 * first, and a job of one rank per node (MPI with threads) is common.
 * O_CREAT|O_EXCL on a routed name fails there, which doc/details.md says. */
#include "run_shared.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_owners.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* FNV-1a, 64 bits: names only need telling apart. */
uint64_t scr_shared_name_hash(const char *rel)
{
    uint64_t h = 1469598103934665603ull;
    for (; *rel; rel++) h = (h ^ (unsigned char)*rel) * 1099511628211ull;
    return h;
}

/* (hash, node, rank) triples sort by hash, then node, then rank. */
static int cmp_triple(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* An owner: the hashes that more than one rank lists, packed at the front of
 * triples as (hash, nodes, lowest rank); their number in *out_n. */
static void find_listed(uint64_t *t, int n, int *out_n)
{
    int found = 0;
    if (n > 1) qsort(t, (size_t)n, 3 * sizeof(uint64_t), cmp_triple);
    for (int i = 0; i < n;) {
        int j = i + 1, nodes = 1;
        uint64_t lowest = t[3 * i + 2];
        for (; j < n && t[3 * j] == t[3 * i]; j++) {
            if (t[3 * j + 1] != t[3 * j - 2]) nodes++;
            if (t[3 * j + 2] < lowest) lowest = t[3 * j + 2];
        }
        if (j - i > 1) {
            uint64_t hash = t[3 * i];
            t[3 * found] = hash;
            t[3 * found + 1] = (uint64_t)nodes;
            t[3 * found + 2] = lowest;
            found++;
        }
        i = j;
    }
    *out_n = found;
}

int scr_shared_file_rel(const struct scr_run *run, int id, const char *file, const char **out_rel)
{
    const scr_meta *meta = NULL;
    *out_rel = file;
    if (scr_filemap_get_meta(run->map, id, run->rank, file, &meta) == SCR_SUCCESS)
        scr_meta_get_filename(meta, out_rel);
    return SCR_SUCCESS;
}

/* This rank's files of dataset id as (hash of the name relative to the
 * prefix, node, rank) triples in a new array. */
static int my_triples(struct scr_run *run, int id, uint64_t node, uint64_t **out_t, int *out_n)
{
    const char **files = NULL;
    int n = 0;
    *out_t = NULL;
    *out_n = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n); /* says what failed */
    if (rc != SCR_SUCCESS || n == 0) {
        free(files);
        return rc;
    }
    uint64_t *t = malloc(3 * sizeof(uint64_t) * (size_t)n);
    if (t == NULL) {
        free(files);
        scr_err("out of memory listing the files of dataset %d", id);
        return SCR_ERR_NOMEM;
    }
    for (int f = 0; f < n; f++) {
        const char *rel = NULL;
        scr_shared_file_rel(run, id, files[f], &rel);
        t[3 * f] = scr_shared_name_hash(rel);
        t[3 * f + 1] = node;
        t[3 * f + 2] = (uint64_t)run->rank;
    }
    free(files);
    *out_t = t;
    *out_n = n;
    return SCR_SUCCESS;
}

/* Every rank: the listed triples the owners found, sorted by hash; the
 * owners send theirs to rank 0, which sorts and broadcasts them. */
static int share_listed(struct scr_run *run, uint64_t *found, int nfound, uint64_t **out_listed,
                        int *out_n)
{
    int nlisted = 0, *to_root = NULL, lrc = SCR_SUCCESS, ok = 0;
    uint64_t *listed = NULL;
    if (nfound > 0 && (to_root = calloc((size_t)nfound, sizeof(int))) == NULL) lrc = SCR_ERR_NOMEM;
    int rc = scr_comm_all_true(lrc == SCR_SUCCESS, run->world, &ok);
    if (rc == SCR_SUCCESS && !ok) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) /* all ranks agree */
        rc = scr_comm_send_to_owners(run->world, found, to_root, nfound, 3, &listed, &nlisted);
    free(to_root);
    if (rc == SCR_SUCCESS && run->rank == 0 && nlisted > 1)
        qsort(listed, (size_t)nlisted, 3 * sizeof(uint64_t), cmp_triple);
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Bcast(&nlisted, 1, MPI_INT, 0, run->world), "counting shared files");
    if (rc == SCR_SUCCESS && run->rank != 0) {
        free(listed);
        listed = malloc(3 * sizeof(uint64_t) * (size_t)(nlisted > 0 ? nlisted : 1));
        rc = scr_comm_all_true(listed != NULL, run->world, &ok);
    } else if (rc == SCR_SUCCESS) {
        rc = scr_comm_all_true(1, run->world, &ok);
    }
    if (rc == SCR_SUCCESS && !ok) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Bcast(listed, 3 * nlisted, MPI_UINT64_T, 0, run->world),
                           "sharing the shared files");
    if (rc != SCR_SUCCESS || nlisted == 0) {
        free(listed);
        listed = NULL;
        nlisted = 0;
    }
    *out_listed = listed;
    *out_n = nlisted;
    return rc;
}

int scr_shared_files_find(struct scr_run *run, int id, uint64_t **out_listed, int *out_n)
{
    *out_listed = NULL;
    *out_n = 0;
    /* a node is known by the world rank of its first rank */
    int leader = run->rank;
    int rc = scr_mpi_check(MPI_Bcast(&leader, 1, MPI_INT, 0, run->node), "naming this node");
    uint64_t *mine = NULL, *owned = NULL;
    int n = 0, nowned = 0, nfound = 0, total = 0, ok = 0, *owners = NULL;
    int lrc = rc == SCR_SUCCESS ? my_triples(run, id, (uint64_t)leader, &mine, &n) : SCR_SUCCESS;
    if (lrc == SCR_SUCCESS && n > 0 && (owners = malloc((size_t)n * sizeof(int))) == NULL)
        lrc = SCR_ERR_NOMEM;
    for (int i = 0; owners != NULL && i < n; i++)
        owners[i] = scr_comm_owner_of(mine[3 * i], run->ranks);
    if (rc == SCR_SUCCESS) rc = scr_comm_all_true(lrc == SCR_SUCCESS, run->world, &ok);
    if (rc == SCR_SUCCESS && !ok) {
        if (run->rank == 0) scr_err("out of memory listing the file names of dataset %d", id);
        rc = SCR_ERR_NOMEM;
    }
    /* each name's triples meet at its owner */
    if (rc == SCR_SUCCESS)
        rc = scr_comm_send_to_owners(run->world, mine, owners, n, 3, &owned,
                                     &nowned); /* all agree */
    if (rc == SCR_SUCCESS) find_listed(owned, nowned, &nfound);
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Allreduce(&nfound, &total, 1, MPI_INT, MPI_SUM, run->world),
                           "counting shared files");
    /* the usual case, a file per process: nothing more to say */
    if (rc == SCR_SUCCESS && total > 0)
        rc = share_listed(run, owned, nfound, out_listed, out_n); /* all agree */
    free(mine);
    free(owners);
    free(owned);
    return rc;
}

int scr_shared_files_across_nodes(const uint64_t *listed, int n, uint64_t **out_pairs, int *out_n)
{
    int k = 0;
    *out_pairs = NULL;
    *out_n = 0;
    for (int i = 0; i < n; i++) k += listed[3 * i + 1] > 1;
    if (k == 0) return SCR_SUCCESS;
    uint64_t *pairs = malloc(2 * sizeof(uint64_t) * (size_t)k);
    if (pairs == NULL) {
        scr_err("out of memory listing the files ranks on several nodes wrote");
        return SCR_ERR_NOMEM;
    }
    k = 0;
    for (int i = 0; i < n; i++) {
        if (listed[3 * i + 1] < 2) continue;
        pairs[2 * k] = listed[3 * i];
        pairs[2 * k + 1] = listed[3 * i + 1];
        k++;
    }
    *out_pairs = pairs;
    *out_n = k;
    return SCR_SUCCESS;
}

int scr_shared_file_refuse(struct scr_run *run, int id, const char *name, uint64_t hash, int nodes,
                           const char *why)
{
    /* the lowest rank that routed it names it */
    const char **files = NULL;
    const char *which = NULL;
    int n = 0, have = INT_MAX, teller = INT_MAX;
    /* a rank that cannot list its files (it said why) still joins the
     * reduction: another rank that routed the name tells it */
    int lrc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    if (lrc != SCR_SUCCESS) n = 0;
    for (int f = 0; f < n && which == NULL; f++) {
        const char *rel = NULL;
        scr_shared_file_rel(run, id, files[f], &rel);
        if (scr_shared_name_hash(rel) == hash) which = rel;
    }
    if (which != NULL) have = run->rank;
    int rc = scr_mpi_check(MPI_Allreduce(&have, &teller, 1, MPI_INT, MPI_MIN, run->world),
                           "finding who reports");
    if (rc == SCR_SUCCESS && run->rank == teller)
        scr_err("dataset %d (%s): ranks on %d nodes wrote %s; each node's cache would hold only "
                "the part "
                "its own ranks wrote, so a file shared across nodes cannot be cached: set "
                "SCR_CACHE_BYPASS=1 to write the dataset in place on the prefix%s%s%s",
                id, name, nodes, which, why ? " (" : "", why ? why : "", why ? ")" : "");
    free(files);
    return rc; /* the same on every rank: a rank that could not list its files said so */
}

/* The marker of name hash in dataset id, in the node's control directory (new string). */
static int marker_path(const struct scr_run *run, int id, uint64_t hash, char **out_path)
{
    char base[64];
    snprintf(base, sizeof(base), "route.%d.%016" PRIx64, id, hash);
    return scr_path_join(run->cntl_dir, base, out_path);
}

/* Create dest, the node's piece, empty unless a rank wrote it already. */
static int create_piece(const char *dest)
{
    int fd = -1;
    int rc = scr_open_regular(dest, O_WRONLY | O_CREAT, 0600, &fd);
    if (rc == SCR_SUCCESS && close(fd) != 0) {
        scr_err("SCR_Route_file: cannot close %s: %s", dest, strerror(errno));
        rc = SCR_ERR_IO;
    }
    return rc;
}

int scr_shared_route_note(struct scr_run *run, int id, const char *rel, const char *dest)
{
    /* one rank of a node cannot tell a shared name from its own */
    if (run->node_ranks == 1 && run->nodes > 1) return create_piece(dest);
    char *marker = NULL;
    int rc = marker_path(run, id, scr_shared_name_hash(rel), &marker);
    if (rc != SCR_SUCCESS) return rc;
    int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) { /* the first rank of this node to route it */
        if (close(fd) != 0) {
            scr_err("SCR_Route_file: cannot close %s, the note that %s was routed: %s", marker, rel,
                    strerror(errno));
            rc = SCR_ERR_IO;
        }
    } else if (errno != EEXIST) {
        scr_err("SCR_Route_file: cannot create %s to note that %s was routed: %s", marker, rel,
                strerror(errno));
        rc = SCR_ERR_IO;
    } else {
        /* a second rank of this node routes it: the node's piece exists
         * from now on, empty until a rank writes, so that a rank may open
         * it without O_CREAT once a rank on another node created the file */
        rc = create_piece(dest);
    }
    free(marker);
    return rc;
}

void scr_shared_route_forget(struct scr_run *run, int id)
{
    const char **files = NULL;
    int n = 0;
    if (scr_filemap_list_files(run->map, id, run->rank, &files, &n) != SCR_SUCCESS) return;
    for (int f = 0; f < n; f++) {
        const char *rel = NULL;
        char *marker = NULL;
        scr_shared_file_rel(run, id, files[f], &rel);
        if (marker_path(run, id, scr_shared_name_hash(rel), &marker) != SCR_SUCCESS) continue;
        /* each rank that routed the name tries: one of them finds it */
        if (unlink(marker) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", marker, strerror(errno));
        free(marker);
    }
    free(files);
}

int scr_shared_route_clear(struct scr_run *run, int id)
{
    if (run->node_rank != 0) return SCR_SUCCESS;
    char stem[32];
    int len = snprintf(stem, sizeof(stem), "route.%d.", id);
    DIR *dir = opendir(run->cntl_dir);
    if (dir == NULL) {
        scr_err("cannot read the control directory %s: %s", run->cntl_dir, strerror(errno));
        return SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (strncmp(e->d_name, stem, (size_t)len) != 0) continue;
        char *path = NULL;
        rc = scr_path_join(run->cntl_dir, e->d_name, &path);
        if (rc != SCR_SUCCESS) break;
        if (unlink(path) != 0 && errno != ENOENT) {
            scr_err("cannot remove %s, a note of a route a run left: %s", path, strerror(errno));
            rc = SCR_ERR_IO;
        }
        free(path);
        if (rc != SCR_SUCCESS) break;
    }
    closedir(dir);
    return rc;
}
