/* reddesc.h — redundancy descriptors: which scheme protects a dataset, and
 * the set of ranks that protect each other.
 *
 * Descriptors come from the CKPT table of the configuration
 * ("CKPT=1 INTERVAL=4 TYPE=RS SET_SIZE=8 SET_FAILURES=2 GROUP=NODE"), or,
 * when there is none, one descriptor made of SCR_COPY_TYPE, SCR_SET_SIZE,
 * SCR_SET_FAILURES and SCR_GROUP. A dataset uses the enabled descriptor with
 * the largest INTERVAL that divides its id (output datasets prefer one with
 * OUTPUT=1).
 *
 * A set draws its members from different failure groups: ranks are numbered
 * within their group (NODE: the node; WORLD: all ranks; any other name: the
 * value the GROUPS table gives the node), the ranks with the same number
 * across groups are split into sets of SET_SIZE or a little more, so losing
 * one group costs a set at most one member. With fewer groups than SET_SIZE
 * a set shrinks; a set of one member is SINGLE in effect, and RS tolerates at
 * most size-1 failures. All of this is reported at SCR_DEBUG >= 1.
 *
 * HOP_DISTANCE (default SCR_HOP_DISTANCE, 1) spreads a set over its failure
 * groups as SCR does: PARTNER copies a rank's files to the member HOP_DISTANCE
 * places to its right in the set's ring (hop 2: the node two away), and XOR
 * and RS draw a set's members HOP_DISTANCE groups apart (4 nodes, sets of 2,
 * hop 2: {0,2} and {1,3} instead of {0,1} and {2,3}). A hop that would give
 * a rank itself as partner, or XOR/RS sets of one member, is taken as 1, and
 * said at SCR_DEBUG >= 1.
 *
 * A descriptor names the store its datasets are cached in (STORE=, default
 * SCR_CACHE_BASE). A store other than the cache base must be declared by a
 * STORE line; a descriptor whose store has ENABLED=0 is left out, and so is
 * one the CKPT line disables.
 *
 * A descriptor turns into a record (REDDESC of the filemap) that holds the
 * scheme, the store and the set's members by world rank, so that a later run rebuilds
 * the dataset with the scheme it was written with, whatever the
 * configuration says then. Collective calls are over the world communicator. */
#ifndef SCR_REDDESC_H
#define SCR_REDDESC_H

#include "config.h"
#include "params.h"
#include "kvtree.h"

#include <mpi.h>

enum scr_copy_type { SCR_COPY_SINGLE = 0, SCR_COPY_PARTNER, SCR_COPY_XOR, SCR_COPY_RS };

struct scr_reddesc {
    int index;               /* CKPT=<index> */
    int interval;            /* applies to dataset ids this divides */
    int output;              /* preferred for output datasets */
    enum scr_copy_type type; /* in effect for this rank's set */
    int failures;            /* RS: lost members a set survives */
    int hop;                 /* PARTNER: set ranks between a rank and the one holding its copy */
    char group[128];         /* failure group name */
    char store[1024];        /* cache store base as configured (may hold %N, %u, %j) */
    MPI_Comm set;            /* the set, ordered by set rank */
    int set_id;              /* lowest world rank of the set */
    int set_rank, set_size;
    int *members; /* world rank of each set rank */
};

/* The STORE table entry for path (trailing slashes aside), NULL if none. */
const scr_kvtree *scr_store_entry(const scr_config *cfg, const char *path);

/* 1 when datasets of store are flushed in the background: its STORE line
 * says FLUSH=PTHREAD (FLUSH=SYNC: 0); without FLUSH, otherwise
 * (SCR_FLUSH_ASYNC). */
int scr_store_flushes_in_background(const scr_config *cfg, const char *store, int otherwise);

/* 1 when path is cache_base, SCR_CACHE_BASE (trailing slashes aside). */
int scr_store_is_cache_base(const char *cache_base, const char *path);

/* "SINGLE", "PARTNER", "XOR", "RS"; NULL for other values. */
const char *scr_copy_type_name(enum scr_copy_type type);

/* This rank's node: its name, and this rank's place among the ranks of
 * world on it, in world's order (as scr_comm_split_by_name ranks them).
 * Sets over the NODE failure group take the place from here rather than
 * split world by node name once more. */
struct scr_node_place {
    const char *name;
    int rank, ranks;
};

/* Every enabled descriptor of cfg's CKPT table (without any, one from the
 * SCR_COPY_TYPE, SCR_GROUP, SCR_SET_* and SCR_HOP_DISTANCE of params), with
 * sets built for this run (collective). node is this rank's node. *out_descs is a new array of
 * *out_count (free with scr_reddescs_free). A STORE line with a FLUSH other than SYNC or PTHREAD is
 * refused (SCR_ERR_ARG, said by rank 0). */
int scr_reddescs_create(const scr_config *cfg, const struct scr_params *params, MPI_Comm world,
                        const struct scr_node_place *node, struct scr_reddesc **out_descs,
                        int *out_count);
void scr_reddescs_free(struct scr_reddesc *descs, int count);

/* The descriptor for dataset id (is_output: the dataset is output only). */
const struct scr_reddesc *scr_reddesc_for(const struct scr_reddesc *descs, int count, int id,
                                          int is_output);

/* The record of desc for this rank (a new tree). */
int scr_reddesc_to_record(const struct scr_reddesc *desc, scr_kvtree **out_record);

/* A descriptor from a record; builds its set (collective over world: every
 * rank passes its own record, all of them valid). When every rank's set is
 * the set of one of known (this run's descriptors, nknown of them), the set
 * is a duplicate of that one's, which costs a split of world less. Free
 * with scr_reddesc_clear. When it fails, a rank whose own record or set is
 * at fault says why in why (empty on the other ranks), for the caller to
 * report once. */
int scr_reddesc_from_record(const scr_kvtree *record, MPI_Comm world,
                            const struct scr_reddesc *known, int nknown,
                            struct scr_reddesc *out_desc, char *why, size_t why_len);
void scr_reddesc_clear(struct scr_reddesc *desc);

/* Left and right neighbours of this rank in its set (world ranks): HOP
 * places away for PARTNER (the right one holds this rank's copy, this rank
 * the left one's), adjacent for the other schemes. */
int scr_reddesc_lhs(const struct scr_reddesc *desc);
int scr_reddesc_rhs(const struct scr_reddesc *desc);

#endif
