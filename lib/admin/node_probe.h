/* node_probe.h — does a node answer on a TCP port (its slurmd's)?
 *
 * A node that crashed a moment ago is still "up" to Slurm until slurmctld's
 * next pings fail, yet a run started on it only fails again. Probing each
 * node's slurmd catches it at once: a connection refused, an unreachable
 * host or no answer within the time limit means the node cannot run a step.
 *
 * Every target gets one non-blocking connection; up to a window of them are
 * in flight at once, each with its own deadline, so probing a thousand nodes
 * costs about one time limit, not a thousand. Nothing is sent: a connection
 * is closed as soon as it is made (slurmd logs it as a message of zero
 * bytes, the price of asking a node itself rather than slurmctld, whose view
 * lags by its ping interval). Host names are resolved with getaddrinfo.
 * Never MPI. */
#ifndef SCR_NODE_PROBE_H
#define SCR_NODE_PROBE_H

struct scr_probe_target {
    const char *host; /* address or host name (required) */
    int port;         /* 1..65535 */
    int answered;     /* out: 1 when the connection was accepted in time */
    char why[160];    /* out: why it was not ("" when answered) */
};

/* Probe targets[0..count) and fill their answered and why fields; waits at
 * most about timeout_ms per target. Returns SCR_SUCCESS when every target was
 * judged, SCR_ERR_ARG for a bad count, port or timeout (logged),
 * SCR_ERR_NOMEM when out of memory. A target that cannot be probed at all
 * (a name that does not resolve, no socket left) did not answer, with why. */
int scr_node_probe(struct scr_probe_target *targets, int count, int timeout_ms);

#endif
