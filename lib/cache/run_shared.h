/* run_shared.h — one file routed by ranks on several nodes.
 *
 * The names several ranks list in a dataset, which ones cross nodes (and
 * so cannot be cached: SCR_CACHE_BYPASS writes them in place), and the
 * notes that let a rank on one node open a file a rank on another made. */
#ifndef SCR_RUN_SHARED_H
#define SCR_RUN_SHARED_H

#include <stdint.h>
#include "scr_run.h"

/* The hash that tells routed names (relative to the prefix) apart. */
uint64_t scr_shared_name_hash(const char *rel);

/* The name relative to the prefix of this rank's file of dataset id
 * (*out_rel points into the filemap, or at file when it has no meta). */
int scr_shared_file_rel(const struct scr_run *run, int id, const char *file, const char **out_rel);

/* The names of dataset id (relative to the prefix) that more than one
 * rank lists: *out_listed, a new array of *out_n (hash, number of nodes,
 * lowest world rank that lists it) triples, the same on every rank, sorted
 * by hash (NULL when none). Collective. */
int scr_shared_files_find(struct scr_run *run, int id, uint64_t **out_listed, int *out_n);

/* Of the n triples of scr_shared_files_find, the names ranks on more than
 * one node routed, each a piece per node in cache: *out_pairs, a new array
 * of *out_n (hash, number of nodes) pairs (NULL when none). */
int scr_shared_files_across_nodes(const uint64_t *listed, int n, uint64_t **out_pairs, int *out_n);

/* The lowest rank that routed the file of hash says that dataset id (name
 * in messages) cannot be cached, since ranks on nodes nodes wrote it, and
 * that SCR_CACHE_BYPASS=1 writes it in place; why (may be NULL) adds the
 * reason in brackets. Collective. */
int scr_shared_file_refuse(struct scr_run *run, int id, const char *name, uint64_t hash, int nodes,
                           const char *why);

/* SCR_Route_file of rel to dest (in cache) for dataset id: the second rank
 * of this node to route rel (the only rank, on a node that runs one rank
 * of a job on several nodes) creates dest, empty, unless it exists, so that
 * a rank may open without O_CREAT a file a rank on another node created.
 * Not collective. */
int scr_shared_route_note(struct scr_run *run, int id, const char *rel, const char *dest);

/* The node's first rank removes every note of a route into dataset id,
 * which a run that crashed may have left (the other ranks return at once).
 * Before the dataset's first route. */
int scr_shared_route_clear(struct scr_run *run, int id);

/* Remove this node's notes of the routes of dataset id (after its last
 * route: at its completion, after a barrier). Not collective. */
void scr_shared_route_forget(struct scr_run *run, int id);

#endif
