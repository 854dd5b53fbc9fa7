/* record.h — what every record module (flush, halt, index, ...) does alike.
 *
 * Each record file carries a VERSION key: a reader takes it out of the tree
 * it hands to its caller, treats a missing VERSION as version 1 (older
 * writers had none) and refuses a version newer than it understands; a
 * writer puts the current VERSION first. A value of the wrong type is
 * reported once as "<file>: key <KEY> holds '<text>', expected <what>". */
#ifndef SCR_RECORD_H
#define SCR_RECORD_H

#include "kvtree.h"

#include <stddef.h>

#define SCR_RECORD_KEY_VERSION "VERSION"

/* The values under a key joined by ", " into buf (for messages); returns buf. */
const char *scr_record_values_text(const scr_kvtree *value, char *buf, size_t len);

/* Log that key (in file) holds value instead of what was expected; returns
 * SCR_ERR_FORMAT so callers can `return scr_record_bad_value(...)`. */
int scr_record_bad_value(const char *file, const char *key, const scr_kvtree *value,
                         const char *expected);

/* Check and remove tree's VERSION: SCR_SUCCESS for versions 1..newest (or
 * none), SCR_ERR_FORMAT (logged, naming file and kind) otherwise. */
int scr_record_take_version(const char *file, const char *kind, int newest, scr_kvtree *tree);

/* A new tree: VERSION = version first, then a copy of every other key of
 * tree in order. NULL if out of memory. */
scr_kvtree *scr_record_with_version(const scr_kvtree *tree, int version);

#endif
