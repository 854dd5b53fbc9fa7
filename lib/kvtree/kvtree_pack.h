/* kvtree_pack.h — a tree as bytes: the packed-hash format of SCR.
 *
 * A packed tree is a big-endian u32 element count followed by that many
 * elements, each a NUL-terminated key and then the packed value tree. Packing
 * writes elements in iteration order, so pack(unpack(b)) == b.
 *
 * Unpacking trusts nothing in its input: every count is checked against the
 * bytes that remain before anything is allocated, keys must end in a NUL
 * inside the buffer, nesting deeper than SCR_KVTREE_MAX_DEPTH and a key that
 * repeats within one level are rejected. A failure logs the origin (a file
 * name, "message from rank 3", ...), the byte offset and the fault. */
#ifndef SCR_KVTREE_PACK_H
#define SCR_KVTREE_PACK_H

#include "kvtree.h"
#include "util_strbuf.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes scr_kvtree_pack needs for tree (4 for NULL or empty). */
size_t scr_kvtree_pack_size(const scr_kvtree *tree);

/* Pack tree into buf, which has room for size bytes. Returns the bytes
 * written, or 0 if buf is too small (nothing useful was written then). */
size_t scr_kvtree_pack(void *buf, size_t size, const scr_kvtree *tree);

/* Pack tree as scr_kvtree_pack would after scr_kvtree_sort_int (ascending)
 * of every level, leaving tree as it is: the canonical order records are
 * stored in, without copying the tree to sort it. *out_len receives the
 * bytes written (scr_kvtree_pack_size). SCR_ERR_ARG when buf is too small,
 * SCR_ERR_NOMEM (logged) when the scratch space for the ordering could not
 * be had. */
int scr_kvtree_pack_canonical(void *buf, size_t size, const scr_kvtree *tree, size_t *out_len);

/* Packed bytes written element by element into a util string buffer, for
 * a record too large to be built as a tree first. The buffer's failure
 * sticks (util_strbuf.h): nothing more is appended after one, so check it
 * once, at the end. */
/* A level of n elements begins (each then a key and its value level). */
void scr_pack_count(scr_strbuf *b, uint32_t n);
/* An element's key; its value level follows. */
void scr_pack_key(scr_strbuf *b, const char *key);
/* The element key -> value -> {}: how a key carries one value. */
void scr_pack_value(scr_strbuf *b, const char *key, const char *value);
/* A whole tree as the value level, in canonical order. */
void scr_pack_tree(scr_strbuf *b, const scr_kvtree *tree);

/* Unpack one packed tree from the first len bytes of buf and merge it into
 * tree. *out_used (if not NULL) receives the bytes consumed. On error tree is
 * left as it was, an error naming origin and the fault is logged, and
 * SCR_ERR_FORMAT (damaged input) or SCR_ERR_NOMEM is returned. */
int scr_kvtree_unpack(const void *buf, size_t len, scr_kvtree *tree, size_t *out_used,
                      const char *origin);

#endif
