/* scavenge_job.h — a node's part of the end-of-job scavenge, and the one
 * index of the dataset by the node that finishes last.
 *
 * When a job ends (normally, cancelled, or after a node failed) each of its
 * nodes that is still up runs this once, without MPI, as the job's user
 * (the Slurm plugin's epilog):
 *   1. the newest dataset of the node's cache, when the flush file does not
 *      mark it as on the prefix, is scavenged to the prefix (scavenge.h),
 *      with the PARTNER copies this node holds for the nodes that are down
 *      or no longer in the job;
 *   2. under the lock of <prefix>/.scr/job.<jobid>.nodes (a kvtree: NODE/
 *      <name>/DSET <id> COPIED 0|1, INDEXED <node> once done, and RAN/<name>
 *      for each node a run of the job used, noted by SCR_Init) the node
 *      adds its entry; the node that finds every expected node there (the
 *      job's nodes that are not down and, once RAN is there, that some run
 *      used) scans, rebuilds, summarises and indexes
 *      each dataset a node copied (scan_index.h), still under the lock, so a
 *      dataset is indexed once per job, and a complete checkpoint becomes
 *      current;
 *   3. one line goes to <prefix>/.scr/job.<jobid>.log, the record the user
 *      reads: "<time> node=<name> dataset=<id> files=<n> bytes=<n>
 *      failed=<n> partner_ranks=<n> index=<what>" (and " error=<why>" when
 *      something failed), where index= is complete(<id>[,rebuilt]) or
 *      incomplete(<id>,missing ranks <list>) for the node that indexed,
 *      waiting(<nodes not reported yet>), "done by <node>" for a node that
 *      reports after the index, none (no node copied anything) or
 *      failed(<id>).
 * A node that never reports (its epilog did not run or was killed) leaves
 * the dataset unindexed; scr_scavenge_job_index_pending, run by scr-index
 * --list and SCR_Init, indexes it later. */
#ifndef SCR_SCAVENGE_JOB_H
#define SCR_SCAVENGE_JOB_H

#include "scavenge.h"

struct scr_scavenge_job {
    const char *jobid;
    const char *node;         /* this node */
    const char *cntl_dir;     /* this node's control directory of the job */
    const char *prefix;       /* absolute */
    const char *const *nodes; /* the nodes expected to report: the job's nodes not down */
    int nnodes;
    const char *const *down_nodes; /* the job's nodes that are down */
    int ndown;
};

struct scr_scavenge_job_outcome {
    int dataset;                     /* newest dataset in this node's cache; 0: none */
    int already_flushed;             /* 1: it was on the prefix, nothing copied */
    struct scr_scavenge_report copy; /* what the scavenge did */
    int copy_failed;                 /* 1: the scavenge reported an error */
    int indexed;                     /* datasets this node indexed (it was last) */
    int complete;                    /* 1 when every dataset it indexed is complete */
    int index_failed;                /* 1: indexing failed */
    char waiting_for[256];           /* expected nodes that have not reported, "n3 n4" */
    char index_text[300];            /* what index= says in the record */
    char error[512];                 /* the first error, "" when none */
};

/* Set to 1 in every task's environment by the Slurm plugin, whose epilog
 * runs scr_scavenge_job_node on each node when the job ends; SCR_Init then
 * notes the run's nodes (scr_scavenge_job_note_nodes). */
#define SCR_EPILOG_SCAVENGE_VAR "SCR_EPILOG_SCAVENGE"

/* Note under the lock of <prefix>/.scr/job.<jobid>.nodes that a run of
 * the job used nodes (SCR_Init, rank 0): the job's end then waits only for
 * nodes some run used, which are the ones that know the prefix. */
int scr_scavenge_job_note_nodes(const char *prefix, const char *jobid, const char *const *nodes,
                                int nnodes);

/* Steps 1 to 3 for this node. SCR_SUCCESS when the node's part was done
 * (whatever the index step decided; see out), else an error with
 * out->error saying why. */
int scr_scavenge_job_node(const struct scr_scavenge_job *job, struct scr_scavenge_job_outcome *out);

/* The datasets copied by the jobs whose nodes never all reported: for each
 * <prefix>/.scr/job.<jobid>.nodes without INDEXED, under its lock, every
 * dataset a node copied that the index does not list yet is indexed
 * (scan_index.h) and the file gets LATE_INDEXED, so it is done once (a
 * dataset the user drops later stays dropped). A node that reports after
 * that still indexes, with every part in. Each dataset indexed is reported
 * (scr_warn) and counted in *out_indexed; one that cannot be is logged and
 * skipped. SCR_SUCCESS unless the prefix's .scr directory cannot be read
 * or memory runs out; a prefix without one has nothing pending. */
int scr_scavenge_job_index_pending(const char *prefix, int *out_indexed);

/* The record line of step 3 without time and newline, into buf. */
void scr_scavenge_job_describe(const struct scr_scavenge_job *job,
                               const struct scr_scavenge_job_outcome *out, char *buf, size_t len);

#endif
