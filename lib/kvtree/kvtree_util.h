/* kvtree_util.h — single typed values stored as "KEY -> VALUE -> {}".
 *
 * Setters replace whatever the key held. Getters succeed only when the key
 * holds exactly one value that parses completely as the type asked for:
 * SCR_ERR_NOTFOUND when the key is missing, SCR_ERR_TYPE when it holds
 * several values or text of another type. Getters do not log; the record
 * module that calls them knows which file was wrong and says so.
 * Numbers are written in decimal, CRCs as "0x%x", doubles with "%f" (the
 * forms SCR writes); values are read by the parsers of util_parse.h. */
#ifndef SCR_KVTREE_UTIL_H
#define SCR_KVTREE_UTIL_H

#include "kvtree.h"

#include <stdint.h>

int scr_kvtree_util_set_str(scr_kvtree *tree, const char *key, const char *value);
int scr_kvtree_util_set_int(scr_kvtree *tree, const char *key, int value);
int scr_kvtree_util_set_int64(scr_kvtree *tree, const char *key, int64_t value);
int scr_kvtree_util_set_uint64(scr_kvtree *tree, const char *key, uint64_t value);
int scr_kvtree_util_set_double(scr_kvtree *tree, const char *key, double value);
int scr_kvtree_util_set_crc32(scr_kvtree *tree, const char *key, uint32_t value);

/* *out points into the tree; it stays valid until the key is changed. */
int scr_kvtree_util_get_str(const scr_kvtree *tree, const char *key, const char **out);
int scr_kvtree_util_get_int(const scr_kvtree *tree, const char *key, int *out);
int scr_kvtree_util_get_int64(const scr_kvtree *tree, const char *key, int64_t *out);
int scr_kvtree_util_get_uint64(const scr_kvtree *tree, const char *key, uint64_t *out);
int scr_kvtree_util_get_double(const scr_kvtree *tree, const char *key, double *out);
int scr_kvtree_util_get_crc32(const scr_kvtree *tree, const char *key, uint32_t *out);

#endif
