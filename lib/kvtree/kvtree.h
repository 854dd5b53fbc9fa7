/* kvtree.h — the hash every SCR record is made of: a tree of string keys.
 *
 * A tree holds elements; each element has a unique key (a NUL-terminated
 * string) and a value that is itself a tree. A value "K -> V -> {}" is how a
 * key K carries the single value V. Elements keep their insertion order, so a
 * tree read from a file and written again gives the same bytes; lookups stay
 * O(1) on average however many keys a level holds.
 *
 * As in SCR, NULL is accepted wherever a tree is read and means "empty":
 * get(NULL) returns NULL, size(NULL) is 0, delete(NULL) does nothing. Every
 * function that creates memory returns NULL when an allocation fails and logs
 * why. A tree owns its children: set() takes ownership of the value passed,
 * and delete() frees the whole subtree. Not thread-safe. */
#ifndef SCR_KVTREE_H
#define SCR_KVTREE_H

#include <stddef.h>
#include <stdio.h>

typedef struct scr_kvtree scr_kvtree;
typedef struct scr_kvtree_elem scr_kvtree_elem;

/* Maximum depth accepted when unpacking or reading; deeper input is damaged. */
#define SCR_KVTREE_MAX_DEPTH 64

enum scr_kvtree_sort_order { SCR_KVTREE_SORT_ASCENDING = 0, SCR_KVTREE_SORT_DESCENDING = 1 };

/* --- basics --------------------------------------------------------------- */

/* New empty tree (caller frees with scr_kvtree_delete), NULL if out of memory. */
scr_kvtree *scr_kvtree_new(void);
void scr_kvtree_delete(scr_kvtree *tree);

/* Set key to value, replacing (and freeing) any value the key had. Takes
 * ownership of value; a NULL value stores a new empty tree. Returns the value
 * now stored under key, or NULL when tree or key is NULL or memory ran out
 * (value is freed in that case). */
scr_kvtree *scr_kvtree_set(scr_kvtree *tree, const char *key, scr_kvtree *value);

/* The value under key, NULL if tree is NULL or has no such key. */
scr_kvtree *scr_kvtree_get(const scr_kvtree *tree, const char *key);

/* Remove key and free its value; no-op when absent. */
void scr_kvtree_unset(scr_kvtree *tree, const char *key);
void scr_kvtree_unset_all(scr_kvtree *tree);

/* Number of elements at this level (0 for NULL). */
int scr_kvtree_size(const scr_kvtree *tree);

/* --- elements and iteration (insertion order) ----------------------------- */

scr_kvtree_elem *scr_kvtree_elem_get(const scr_kvtree *tree, const char *key);
scr_kvtree_elem *scr_kvtree_elem_first(const scr_kvtree *tree);
scr_kvtree_elem *scr_kvtree_elem_next(const scr_kvtree_elem *elem);
const char *scr_kvtree_elem_key(const scr_kvtree_elem *elem);
scr_kvtree *scr_kvtree_elem_hash(const scr_kvtree_elem *elem);

/* The key of the first element, e.g. the value of a "K -> V -> {}" chain after
 * scr_kvtree_get(tree, K); NULL if empty. */
const char *scr_kvtree_first_key(const scr_kvtree *tree);

/* --- key/value pairs: tree -> key -> value -> subtree ---------------------- */

/* The subtree under key/value, NULL if either level is missing. */
scr_kvtree *scr_kvtree_get_kv(const scr_kvtree *tree, const char *key, const char *value);
scr_kvtree *scr_kvtree_get_kv_int(const scr_kvtree *tree, const char *key, long long value);

/* Like get_kv, but creates the missing levels (empty) and returns the subtree;
 * an existing subtree is kept as it is. NULL when tree is NULL or out of memory. */
scr_kvtree *scr_kvtree_set_kv(scr_kvtree *tree, const char *key, const char *value);
scr_kvtree *scr_kvtree_set_kv_int(scr_kvtree *tree, const char *key, long long value);

/* Remove value from under key; removes key too when that leaves it empty. */
void scr_kvtree_unset_kv(scr_kvtree *tree, const char *key, const char *value);
void scr_kvtree_unset_kv_int(scr_kvtree *tree, const char *key, long long value);

/* --- several levels at once: "%s %d %s %llu" ------------------------------ */

/* Keys are separated by single spaces in fmt; each key is a conversion
 * (%s %d %u %ld %lu %lld %llu %f %x) or literal text. getf returns the tree at
 * the end of the path (NULL if any level is missing). setf creates missing
 * levels, then sets the last key to value (NULL value: an empty tree, and an
 * existing one is replaced) and returns it. Unsupported conversions return NULL
 * and log the format. */
scr_kvtree *scr_kvtree_getf(const scr_kvtree *tree, const char *fmt, ...);
scr_kvtree *scr_kvtree_setf(scr_kvtree *tree, scr_kvtree *value, const char *fmt, ...);

/* --- whole trees ----------------------------------------------------------- */

/* Merge src into dst recursively: keys missing in dst are added (deep copies),
 * keys present in both are merged level by level. Returns SCR_SUCCESS. */
int scr_kvtree_merge(scr_kvtree *dst, const scr_kvtree *src);

/* Like merge, but consumes src: subtrees dst lacks are moved, not copied,
 * and src is freed (also on error). Cheap when dst is empty. */
int scr_kvtree_absorb(scr_kvtree *dst, scr_kvtree *src);

/* Deep copy of src appended into dst (equivalent to merge into an empty dst). */
int scr_kvtree_copy(scr_kvtree *dst, const scr_kvtree *src);

/* Deep copy as a new tree (NULL src gives an empty tree); NULL if out of memory. */
scr_kvtree *scr_kvtree_dup(const scr_kvtree *src);

/* Reorder the elements of this level by key: byte order (sort) or as signed
 * integers (sort_int; keys that are not integers sort after all integers, in
 * byte order). Stable. */
int scr_kvtree_sort(scr_kvtree *tree, int order);
int scr_kvtree_sort_int(scr_kvtree *tree, int order);

/* A key as sort_int orders it, and that order (ascending): integers first
 * (keys strtoll base 10 reads whole, in range), numerically, then the others
 * by bytes; <0, 0 or >0 as for qsort. */
struct scr_kvtree_sort_key {
    const char *key;
    int is_int;
    long long value;
};
void scr_kvtree_sort_key_init(struct scr_kvtree_sort_key *k, const char *key);
int scr_kvtree_sort_key_compare(const struct scr_kvtree_sort_key *a,
                                const struct scr_kvtree_sort_key *b);

/* Same keys at every level with the same order-insensitive content. */
int scr_kvtree_equal(const scr_kvtree *a, const scr_kvtree *b);

/* Print as an indented tree, `indent` spaces per level (print: to stdout). */
void scr_kvtree_print(const scr_kvtree *tree, int indent);
int scr_kvtree_fprint(FILE *out, const scr_kvtree *tree, int indent);

#endif
