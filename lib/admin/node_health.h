/* node_health.h — the checks a node must pass before a job may use it.
 *
 * Each directory a job needs on the node (its cache and control
 * directories) must exist, be a directory (not a symlink), take a file (created, written,
 * synced and removed again) and, when min_free is not 0, have at least
 * min_free bytes free on its file system. The first failure is the reason
 * the node is unhealthy; nothing is logged (the caller decides where the
 * outcome goes: the health record, the slurmd log). Checks run by different
 * processes at once use different probe files. */
#ifndef SCR_NODE_HEALTH_H
#define SCR_NODE_HEALTH_H

#include "health_file.h"

#include <stdint.h>

/* Check dirs[0..ndirs) and fill *out (node, healthy, reason, checked now).
 * Returns SCR_SUCCESS when the check ran (whatever it found), SCR_ERR_ARG
 * for a bad node name or argument. */
int scr_node_health_check(const char *node, const char *const *dirs, int ndirs, uint64_t min_free,
                          struct scr_health *out);

#endif
