/* nodes_file.h — how many nodes the previous run used: NODES <n>.
 *
 * The master process of each node writes this file to the control directory.
 * Before relaunching, the count says how many healthy nodes the next run
 * needs; without the file the next run is assumed to need every node of the
 * allocation (callers see SCR_ERR_NOTFOUND, not logged).
 *
 *   VERSION 1
 *   NODES 4
 *
 * The record is a scr_kvtree the caller owns. The setter refuses a count
 * below 1 (SCR_ERR_ARG, logged); the getter does not log and returns
 * SCR_ERR_NOTFOUND or SCR_ERR_TYPE. Reading checks VERSION (absent means
 * version 1, the format before VERSION existed; a newer one is refused) and
 * the count, reports a bad value as "<file>: key NODES holds '<text>',
 * expected <what>" with SCR_ERR_FORMAT and leaves the caller's tree as it
 * was; VERSION is not kept in the tree and writing puts the current one
 * first. Writes replace the file atomically. */
#ifndef SCR_NODES_FILE_H
#define SCR_NODES_FILE_H

#include "kvtree.h"

/* Format version this build writes, and the newest it reads. */
#define SCR_NODES_FILE_VERSION 1

/* Name of the file in the control directory. */
#define SCR_NODES_FILE_NAME "nodes.scr"

/* Read path and merge it into nodes; SCR_ERR_NOTFOUND (not logged) when missing. */
int scr_nodes_file_read(const char *path, scr_kvtree *nodes);

/* Replace path with nodes and the current VERSION. */
int scr_nodes_file_write(const char *path, const scr_kvtree *nodes);

int scr_nodes_file_set_nodes(scr_kvtree *nodes, int count); /* count >= 1 */
int scr_nodes_file_get_nodes(const scr_kvtree *nodes, int *out_count);

#endif
