/* down_nodes.h — which nodes of an allocation a relaunch must avoid, and why.
 *
 * A node is down when any of these says so, checked in this order (the
 * first reason found is the one given):
 *   0. it is in the list of nodes the caller knows to be down (a command's
 *      --down): counted down without any check;
 *   1. it is in the exclude list (SCR_EXCLUDE_NODES);
 *   2. Slurm reports it DOWN, DRAINED or DRAINING, FAILING, or not
 *      responding, or does not know it (asked only when ask_slurm is set);
 *   3. Slurm counts it up, but its slurmd does not accept a TCP connection
 *      within 3 s, or probe_timeout_ms when set (node_probe.h): it crashed a moment ago, before
 * slurmctld noticed. Probed only when probe_slurmd is set and Slurm was asked, and ignored when no
 * node answers at all (then this host cannot reach them; probe_error says so). One srun deciding a
 * relaunch probes; the epilogs of every node do not (N nodes probing N nodes each);
 *   4. its health record (health_file.h) in health_dir says it failed its
 *      check. A node without a record is not down: the check may not have
 *      run there. A damaged record is a reason of its own. A record checked
 *      before health_since, when set (the job's start), is an earlier
 *      job's and is not used: the Slurm plugin moves a node's record of
 *      this job to the prefix only once the node has run a step of it.
 * Node lists are Slurm host lists ("n[1-4,7]") parsed by libslurm.
 *
 * Asking Slurm needs a configured client (slurm.conf); where there is none
 * (no $SLURM_CONF file and no /etc/slurm/slurm.conf) or slurmctld does not
 * answer, the nodes are judged without it and slurm_error says why. This
 * module links libslurm and never MPI: the commands and the plugin use it. */
#ifndef SCR_DOWN_NODES_H
#define SCR_DOWN_NODES_H

#include <stddef.h>
#include <time.h>

struct scr_down_nodes_query {
    const char *nodelist;   /* the allocation's nodes (required) */
    const char *exclude;    /* host list never to use, or NULL */
    const char *health_dir; /* directory of <node>.health records, or NULL */
    int ask_slurm;          /* ask slurmctld for node states */
    int probe_slurmd;       /* and probe the slurmd of each node it counts up */
    const char *down;       /* host list counted down without a check, or NULL */
    int probe_timeout_ms;   /* how long the slurmd probe waits; 0: 3000 */
    time_t health_since;    /* records checked before this are not used; 0: all are */
};

struct scr_node_verdict {
    char name[256];
    int down;
    char reason[600]; /* "" when the node may be used */
};

struct scr_down_nodes {
    struct scr_node_verdict *nodes; /* every node of the list, in its order */
    int count;                      /* nodes in the list */
    int down;                       /* how many of them are down */
    int slurm_asked;                /* 1 when Slurm's node states were used */
    char slurm_error[300];          /* why Slurm was not asked (ask_slurm set) */
    char probe_error[400];          /* why the slurmd probe was ignored, or "" */
};

/* Judge every node of q->nodelist into *out (free with
 * scr_down_nodes_free). SCR_ERR_ARG, logged naming the text, for a host
 * list that does not parse or is empty; SCR_ERR_NOMEM when out of memory. */
int scr_down_nodes_find(const struct scr_down_nodes_query *q, struct scr_down_nodes *out);
void scr_down_nodes_free(struct scr_down_nodes *list);

/* The down nodes as one Slurm host list ("n[2,5]") in a new string ("" when
 * none are down), for srun --exclude. */
int scr_down_nodes_hostlist(const struct scr_down_nodes *list, char **out);

/* Count node down for reason (a check the caller made itself), unless it is
 * down already (the first reason stands) or not in the list. */
void scr_down_nodes_mark(struct scr_down_nodes *list, const char *node, const char *reason);

#endif
