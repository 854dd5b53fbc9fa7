/* health_file.h — a node's health record: what the prolog found on that node.
 *
 * At the start of an allocation each node checks itself (node_health.h) and
 * leaves one record, <node>.health, in a directory every node and the batch
 * script can read; scr-list-down-nodes reads them to decide which nodes a
 * relaunch must avoid.
 *
 *   VERSION 1
 *   NODE    n3
 *   HEALTHY 0
 *   REASON  cache directory /dev/shm/u/scr.7 is not writable: Read-only file system
 *   CHECKED 1795372800
 *
 * HEALTHY is 0 or 1, CHECKED the time of the check in seconds since the
 * epoch, REASON present only when HEALTHY is 0. Reading checks all of this
 * and reports a bad value as "<file>: key <KEY> holds '<text>', expected
 * <what>" (SCR_ERR_FORMAT); a missing file is SCR_ERR_NOTFOUND, not logged.
 * Writes replace the file atomically, so a reader sees the old record or the
 * new one, never a mix. */
#ifndef SCR_HEALTH_FILE_H
#define SCR_HEALTH_FILE_H

#include <stddef.h>
#include <time.h>

#define SCR_HEALTH_FILE_VERSION 1
#define SCR_HEALTH_FILE_SUFFIX ".health"

/* One node's record. */
struct scr_health {
    char node[256];
    int healthy;
    char reason[512]; /* "" when healthy */
    time_t checked;
};

/* <dir>/<node>.health in a new string. A node name that is empty, holds a
 * '/' or starts with '.' is refused (SCR_ERR_ARG, logged). */
int scr_health_file_path(const char *dir, const char *node, char **out_path);

/* Write rec to path (atomic replace). */
int scr_health_file_write(const char *path, const struct scr_health *rec);

/* Read path into *out_rec. */
int scr_health_file_read(const char *path, struct scr_health *out_rec);

#endif
