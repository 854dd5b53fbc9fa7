/* spank_health.h — a node's health record, kept on the node until the job's prefix is known.
 *
 * The prolog checks each node before the job's first step, when the prefix
 * the job's runs will use is not known: SCR_PREFIX may be exported in the
 * batch script or set in an SCR_CONF_FILE, and only SCR_Init resolves it.
 * Writing the record to a guess (the directory the job was submitted from)
 * would leave a .scr there that the job never asked for. So the record
 * waits in the job's control directory, <cntl>/<node>.health, and moves to
 * <prefix>/.scr/health/<node>.health, where the relaunch and
 * scr-list-down-nodes read it, once the prefix is known:
 *   - when a task of an SCR step ends on the node (slurm_spank_task_exit),
 *     which slurmstepd runs before it tells srun that the task ended: a
 *     relaunch decided at srun's end finds the records of the step's nodes;
 *   - in the job epilog, for a record still waiting then.
 * The prefix is the one SCR_Init recorded in the control directory
 * (job.scr, job_file.h). A node where no run recorded one (its SCR_Init
 * never ran, or failed) uses the prefix the job named itself: the step's
 * SCR_PREFIX when it is an absolute path (--scr-prefix or the user's
 * export), or the job's --scr-prefix in the epilog. Without either, the
 * record stays where it is; nothing is written to a directory the job did
 * not choose.
 * A control directory the prolog refused (someone else's, a symbolic
 * link) can keep nothing: its refusal is the node's record, made again
 * from the same check when the record is delivered.
 * Everything here runs as the job's user, in a child that dropped root
 * (spank_as_user.h); records are written atomically, and the kept one is
 * removed once the prefix has it. */
#ifndef SPANK_HEALTH_H
#define SPANK_HEALTH_H

#include <stddef.h>
#include <stdint.h>
#include <slurm/spank.h>

#include "health_file.h"
#include "spank_site.h"

/* Keep rec in the control directory cntl_dir (the prolog's child, as the
 * user); the record's path in *out_path (a new string). */
int scr_spank_health_keep(const char *cntl_dir, const struct scr_health *rec, char **out_path);

/* What a delivery needs, all resolved by the parent. */
struct spank_scr_health_delivery {
    const char *node;
    const char *cntl_dir;     /* the job's control directory on this node */
    const char *named_prefix; /* an absolute prefix the job named, or NULL */
    const char *named_origin; /* where named_prefix came from, for messages */
};

/* Deliver the node's record (as the user; spank_as_user.h's work, arg a
 * struct spank_scr_health_delivery). 0 with msg empty when there is
 * nothing to deliver, or not yet anywhere to deliver it; 0 with msg
 * saying where the record went; -1 with msg saying why it could not. */
int scr_spank_health_deliver(void *arg, char *msg, size_t msg_len);

/* A task of an SCR step ended on this node (slurm_spank_task_exit, as
 * root): deliver the record, in a child as the job's user, until one
 * delivery has been made or has failed in this step. What was done or
 * why it failed goes to the slurmd log. */
void scr_spank_health_task_exit(spank_t sp, const struct spank_scr_site *site);

#endif
