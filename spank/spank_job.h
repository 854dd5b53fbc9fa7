/* spank_job.h — the job a root hook (job prolog, job epilog) works for.
 *
 * Gathers, in job_script context, who the job belongs to and where its
 * files are on this node: the user (uid, gid, name), the job id, the node
 * name, the control and cache bases (the site's, or the job's
 * --scr-cache-base, which must be one of the site's stores) and the prefix
 * a job without a record of its own uses (--scr-prefix, relative to the
 * job's working directory, else that directory; the epilog prefers the one
 * SCR_Init recorded in the control directory, job_file.h). The prolog sets the node up from it; the
 * epilog finds what to scavenge and purge from the same answers. */
#ifndef SPANK_JOB_H
#define SPANK_JOB_H

#include <stdint.h>
#include <slurm/spank.h>

#include "spank_as_user.h"
#include "spank_site.h"

struct spank_scr_job {
    uint32_t id;
    char id_text[32];
    struct scr_identity user;
    char node[256];
    const char *cntl_base; /* points into the site or the environment */
    const char *cache_base;
    char *prefix;              /* owned; the one a run recorded (job_file.h) comes first */
    const char *prefix_origin; /* where prefix came from, for messages */
    int prefix_named;          /* 1: prefix is the job's --scr-prefix, not a default */
};

/* Fill *out for the job of sp; -1 with why set when Slurm does not tell
 * or the job's choices are not allowed. Free with scr_spank_job_free. */
int scr_spank_job_load(spank_t sp, const struct spank_scr_site *site, struct spank_scr_job *out,
                       char *why, size_t why_len);
void scr_spank_job_free(struct spank_scr_job *job);

#endif
