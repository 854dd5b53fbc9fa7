/* drill_nodes.h — scr-drill's simulated nodes: where they keep their files,
 * what their caches hold, and losing them.
 *
 * Rank r of a drill on R ranks and M nodes runs as simulated node
 * "node<k>", k = r * M / R (blocks as even as they can be: 4 ranks on 4
 * nodes give one rank each, 5 on 4 give node0 two). libscr keeps a
 * simulated node's directories inside the job's own (job_dir.h):
 * <base>/<user>/scr.<jobid>/sim.node<k> under SCR_CNTL_BASE, SCR_CACHE_BASE
 * and every base of the STORE table, the bases and the job id as this
 * process's configuration and environment give them (the drill runs the
 * application with that same environment).
 *
 * What a cache holds is read from the filemaps in each node's control
 * directory (filemap_<n>.scrinfo, filemap.h): for each checkpoint, whether
 * each rank holds it whole as SCR_Init judges it (marked complete, all its
 * expected files listed, each complete and of its recorded size), and the
 * redundancy record of each rank (reddesc.h: TYPE, FAILURES, HOP, SET_SIZE,
 * MEMBERS). A rank is missing when it is not whole or its node is lost,
 * and the drill judges whether the dataset survives that:
 * a set of SINGLE loses nothing and survives; XOR loses at most one member;
 * RS at most FAILURES; PARTNER survives when no lost member's partner
 * (HOP places to its right in the set) is lost as well. */
#ifndef SCR_DRILL_NODES_H
#define SCR_DRILL_NODES_H

#include "config.h"

/* The most simulated nodes and cached checkpoints a drill handles. */
#define DRILL_MAX_NODES 1024
#define DRILL_MAX_CACHED 64

struct drill_nodes {
    int ranks, nodes;
    char **job_dirs; /* [0]: the control base's job directory, then each cache store's (owned) */
    int ndirs;
};

/* A checkpoint found in the simulated nodes' caches. */
struct drill_cached {
    int id;
    char name[256];
    char scheme[16]; /* "XOR", ... ; "" when no rank recorded one */
    int complete;    /* every rank holds it whole */
    int survives;    /* with the lost nodes given to drill_nodes_read_caches */
    int rebuild;     /* some of its ranks are missing: it needs its redundancy */
};

/* The simulated node of rank r. */
int drill_node_of_rank(int ranks, int nodes, int r);

/* Find the job directories of cfg (a loaded configuration) for the job id
 * of the environment. SCR_ERR_* (logged) when a base or name is refused. */
int drill_nodes_setup(struct drill_nodes *dn, const scr_config *cfg, int ranks, int nodes);
void drill_nodes_free(struct drill_nodes *dn);

/* The control directory of simulated node k in a new string. */
int drill_nodes_cntl_dir(const struct drill_nodes *dn, int k, char **out_dir);

/* The checkpoints the simulated nodes' caches hold, newest first, into
 * out (room for max; *out_count of them), judged against lost (lost[k]
 * nonzero: node k will be lost). SCR_ERR_FORMAT or SCR_ERR_IO (logged,
 * naming the file) when a filemap cannot be read. */
int drill_nodes_read_caches(const struct drill_nodes *dn, const int *lost, struct drill_cached *out,
                            int max, int *out_count);

/* Lose simulated node k: delete its control directory and its directory in
 * every cache store, as a failed node would lose them. A node without a
 * control directory (the run was killed before SCR_Init made it) has
 * nothing to lose: a warning says so. SCR_ERR_IO (logged) when something
 * cannot be removed. */
int drill_nodes_lose(const struct drill_nodes *dn, int k);

/* Remove every simulated node's directories, then each job directory they
 * were in when nothing else is left in it (inside an allocation the job id
 * is the real job's). SCR_ERR_IO (logged) when something cannot be
 * removed. */
int drill_nodes_remove_all(const struct drill_nodes *dn);

#endif
