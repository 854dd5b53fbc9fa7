/* spank_epilog.h — a node's end of an SCR job (slurm_spank_job_epilog).
 *
 * Runs as root on every node of a job submitted with --scr when the job
 * ends: normally, cancelled, or after a node failed. Nothing happens for a
 * job without --scr (no record, no log line). For an SCR job:
 *   - as root, the parent asks libslurm which nodes of the job's allocation
 *     are down (down_nodes.h); it reads no file of the user;
 *   - as the job's user, in a child (spank_as_user.h) killed after the
 *     site's epilog_timeout= seconds: the control directory (the prolog's
 *     path rule, job_dir.h) must be a real directory of the user, else it
 *     is refused and nothing is scavenged; the newest dataset of the node's
 *     cache, when not flushed, is scavenged to the prefix with the PARTNER
 *     copies held for the down nodes, the last node to report indexes it,
 *     and the node's line goes to <prefix>/.scr/job.<jobid>.log
 *     (scavenge_job.h). The prefix is the one SCR_Init recorded in the
 *     control directory (job_file.h), whichever way the job set it;
 *     --scr-prefix or the job's working directory only for a job that
 *     never reached SCR_Init. The prefix's lock (prefix_lock.h) is marked
 *     released when it still names the job, so that the next job is not
 *     kept out by a lock a lost node's file system client still holds. A
 *     health record the prolog kept in the control directory and no step
 *     delivered goes to the prefix a run recorded, else to --scr-prefix
 *     (spank_health.h). Then the job's cache and control directories are
 *     removed without following any symbolic link;
 *   - one line per node in the slurmd log: "scr: epilog of job J for U:
 *     node N: ..." (slurm_info when all went well, slurm_error otherwise),
 *     with what the record says and the directories removed or refused;
 *     before it, one line per node of the job found down.
 * The cache is removed even when the scavenge failed: the job's directories
 * are private to the job and no later job could use what they hold.
 * The epilog never fails the job or drains the node: it returns 0. */
#ifndef SPANK_EPILOG_H
#define SPANK_EPILOG_H

#include <stdint.h>
#include <slurm/spank.h>

#include "spank_site.h"

int scr_spank_epilog(spank_t sp, const struct spank_scr_site *site);

#endif
