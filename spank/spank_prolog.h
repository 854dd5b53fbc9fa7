/* spank_prolog.h — a node's set-up for an SCR job (slurm_spank_job_prolog).
 *
 * Runs as root on every node of a job submitted with --scr (any other job
 * is left alone), before its first step (at allocation with
 * PrologFlags=Alloc). On the job user's behalf, in a child that dropped to
 * the user's identity (spank_as_user.h), it:
 *   1. creates the job's control and cache directories,
 *      <base>/<user>/scr.<jobid> (job_dir.h: mode 0700, owned by the user;
 *      a symbolic link or a directory of someone else is refused);
 *   2. checks the node's health (node_health.h) in those directories;
 *   3. keeps the node's health record in the control directory until the
 *      job's prefix is known, when it moves to
 *      <prefix>/.scr/health/<node>.health (spank_health.h). The prolog
 *      writes nothing outside the node: the prefix is not known yet, and
 *      the directory the job was submitted from need not be it.
 * What it did, or why the node is unhealthy, goes to the slurmd log. An
 * unhealthy node does not fail the prolog: Slurm would drain the node for a
 * fault that may be this user's alone; the record tells the relaunch to
 * avoid it. */
#ifndef SPANK_PROLOG_H
#define SPANK_PROLOG_H

#include <stdint.h>
#include <slurm/spank.h>

#include "spank_site.h"

/* 0 when the prolog did its work or had none to do, -1 when it could not
 * run at all (logged). */
int scr_spank_prolog(spank_t sp, const struct spank_scr_site *site);

#endif
