/* kvtree_json.h — a tree as JSON (json-c), for every --json output.
 *
 * The mapping, level by level:
 *   - a level is a JSON object with one member per key, in iteration order;
 *   - a key whose value holds exactly one key with an empty value, the
 *     "KEY -> VALUE -> {}" chain SCR uses for single values, becomes
 *     "KEY": "VALUE";
 *   - a key with an empty value becomes "KEY": {};
 *   - any other value is a nested object.
 * All scalars stay strings: the tree itself has no types. */
#ifndef SCR_KVTREE_JSON_H
#define SCR_KVTREE_JSON_H

#include "kvtree.h"

#include <stdio.h>

struct json_object;

/* New json-c object for tree (release with json_object_put), NULL if out of memory. */
struct json_object *scr_kvtree_to_json(const scr_kvtree *tree);

/* Write tree as pretty-printed JSON followed by a newline. */
int scr_kvtree_fprint_json(FILE *out, const scr_kvtree *tree);

#endif
