/* job_file.h — what a job's end needs to know of a run: its prefix and cache directories.
 *
 * SCR_Init resolves the prefix from the environment, the configuration
 * files or the working directory, and the node's first process records it
 * here, in the job's control directory on each node. The work done when
 * the allocation ends (the plugin's epilog, scr-scavenge) and a relaunch
 * read it, so that a scavenged dataset and the job's log go where the next
 * run looks, whichever way the prefix was set. A job that never reached
 * SCR_Init has no such file (SCR_ERR_NOTFOUND, not logged), and its
 * readers fall back to what they were told.
 *
 *   VERSION 1
 *   PREFIX /absolute/path
 *   CACHE                       (optional; absent in files of older builds)
 *     /ssd/alice/scr.1234       each cache directory of the job on this node
 *     /dev/shm/alice/scr.1234
 *
 * The cache directories matter because a run may cache somewhere other than
 * the site's cache base (a base set by the user file or SCR_Config, a STORE
 * of a CKPT descriptor): the epilog removes those too, as the job's user,
 * so that node-local storage does not keep a finished job's data.
 *
 * The record is a scr_kvtree the caller owns. The setter refuses a prefix
 * that is not an absolute path (SCR_ERR_ARG, logged); the getter does not
 * log and returns SCR_ERR_NOTFOUND or SCR_ERR_TYPE. Reading checks VERSION
 * (absent means 1; a newer one is refused) and the prefix, reports a bad
 * value as "<file>: key PREFIX holds '<text>', expected <what>" with
 * SCR_ERR_FORMAT and leaves the caller's tree as it was. Writes replace the
 * file atomically. */
#ifndef SCR_JOB_FILE_H
#define SCR_JOB_FILE_H

#include "kvtree.h"

/* Format version this build writes, and the newest it reads. */
#define SCR_JOB_FILE_VERSION 1

/* Name of the file in the control directory. */
#define SCR_JOB_FILE_NAME "job.scr"

/* Read path and merge it into job; SCR_ERR_NOTFOUND (not logged) when missing. */
int scr_job_file_read(const char *path, scr_kvtree *job);

/* Replace path with job and the current VERSION. */
int scr_job_file_write(const char *path, const scr_kvtree *job);

int scr_job_file_set_prefix(scr_kvtree *job, const char *prefix); /* an absolute path */
/* *out_prefix points into job. */
int scr_job_file_get_prefix(const scr_kvtree *job, const char **out_prefix);

/* Add dir (an absolute path) to the job's cache directories; adding one
 * twice keeps one. */
int scr_job_file_add_cache_dir(scr_kvtree *job, const char *dir);

/* The cache directories recorded in the job file of control directory
 * cntl_dir, in a new NULL-terminated array of new strings (free with
 * scr_job_file_free_dirs); none recorded is an empty array. SCR_ERR_NOTFOUND
 * (not logged) when there is no job file. */
int scr_job_file_cache_dirs_of(const char *cntl_dir, char ***out_dirs);
void scr_job_file_free_dirs(char **dirs);

/* The prefix recorded in the job file of control directory cntl_dir, as a
 * new string in *out_prefix. SCR_ERR_NOTFOUND (not logged) when there is no
 * job file; any other failure is logged by the reader. */
int scr_job_file_prefix_of(const char *cntl_dir, char **out_prefix);

#endif
