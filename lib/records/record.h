/* record.h — what every record module (flush, halt, index, ...) does alike.
 *
 * Each record file carries a VERSION key: a reader takes it out of the tree
 * it hands to its caller, treats a missing VERSION as version 1 (older
 * writers had none) and refuses a version newer than it understands; a
 * writer puts the current VERSION first. A value of the wrong type is
 * reported once as "<file>: key <KEY> holds '<text>', expected <what>".
 *
 * A module describes its file once in a struct scr_record_kind; the calls
 * below then read a file into a fresh tree, check it as the module's reader
 * would and merge it into the caller's tree only when all is well (on any
 * failure the caller's tree is left as it was), and write only what a reader
 * would accept. Callers check their own arguments (path, tree, descriptor)
 * before calling, so that the messages name the module's call. */
#ifndef SCR_RECORD_H
#define SCR_RECORD_H

#include "kvtree.h"

#include <stddef.h>

#define SCR_RECORD_KEY_VERSION "VERSION"

/* --- keys and messages ------------------------------------------------------------ */

/* The values under a key joined by ", " into buf (for messages); returns buf. */
const char *scr_record_values_text(const scr_kvtree *value, char *buf, size_t len);

/* Log that key (in file) holds value instead of what was expected; returns
 * SCR_ERR_FORMAT so callers can `return scr_record_bad_value(...)`. */
int scr_record_bad_value(const char *file, const char *key, const scr_kvtree *value,
                         const char *expected);

/* Log that the level where (in file) holds the key text instead of what was
 * expected; returns SCR_ERR_FORMAT. Same message form as scr_record_bad_value. */
int scr_record_bad_key(const char *file, const char *where, const char *text, const char *expected);

/* A key path for a message ("RANK 2 DSET 6 FILE x") printed into buf. A path
 * too long for buf is cut short, which only shortens the message. */
void scr_record_key_path(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A rank or id used as a key, or written like one: an int >= min in the plain
 * decimal form the setters write ("7", not "07" or "+7"), since lookups search
 * for exactly that text. SCR_SUCCESS, or SCR_ERR_TYPE (not logged). */
int scr_record_key_int(const char *text, int min, int *out);

/* --- lists -------------------------------------------------------------------------- */

/* The keys of level as ints >= min (scr_record_key_int), ascending, in a new
 * array the caller frees (NULL when level has no keys). SCR_ERR_TYPE (not
 * logged) when a key is not such an int; running out of memory is logged as
 * "<kind>: out of memory listing <count> <noun>". */
int scr_record_list_int_keys(const scr_kvtree *level, int min, const char *kind, const char *noun,
                             int **out_list, int *out_count);

/* The keys of level sorted by bytes, in a new array the caller frees (NULL
 * when there are none); the strings belong to level. Out of memory is logged
 * as for scr_record_list_int_keys. */
int scr_record_list_keys(const scr_kvtree *level, const char *kind, const char *noun,
                         const char ***out_list, int *out_count);

/* --- versions ----------------------------------------------------------------------- */

/* Check and remove tree's VERSION: SCR_SUCCESS for versions 1..newest (or
 * none), SCR_ERR_FORMAT (logged, naming file and kind) otherwise. */
int scr_record_take_version(const char *file, const char *kind, int newest, scr_kvtree *tree);

/* --- files -------------------------------------------------------------------------- */

/* What the shared read and write code needs to know about one kind of record. */
struct scr_record_kind {
    /* Names the kind in messages: "halt file", "index", ... */
    const char *name;
    /* The version written, and the newest one read. */
    int version;
    /* Check tree (without VERSION) as a reader would; a refusal is logged once,
     * naming file, and returned as an error code (SCR_ERR_FORMAT). */
    int (*validate)(const char *file, const scr_kvtree *tree);
    /* When set, called on what was read (without VERSION) before validate, to
     * bring another writer's layout into this build's (SCR 3.1's index);
     * a refusal is logged naming file and returned as an error code. */
    int (*upgrade)(const char *file, scr_kvtree *tree);
    /* When set, a file holds VERSION and then only these top-level keys, in
     * this order, every level sorted (integer keys numerically, then the
     * others by bytes); otherwise VERSION and every key in the tree's order. */
    const char *const *keys;
    size_t nkeys;
    /* Taking the lock creates the file's directory (mode 0700) when missing;
     * otherwise a missing directory is an error (SCR_ERR_NOTFOUND). */
    int lock_creates_dir;
};

/* Read path (no lock), check it and merge it into tree. A missing file is
 * SCR_ERR_NOTFOUND, not logged. */
int scr_record_read(const struct scr_record_kind *kind, const char *path, scr_kvtree *tree);

/* As scr_record_read, under a shared lock; a missing file (or a missing
 * directory) adds nothing and succeeds. An existing file of 0 bytes is
 * damaged (SCR_ERR_FORMAT, logged naming it), as any file a reader refuses. */
int scr_record_read_locked(const struct scr_record_kind *kind, const char *path, scr_kvtree *tree);

/* Check the file image buf of len bytes (read from path, named in messages)
 * as scr_record_read would and merge it into tree. */
int scr_record_parse(const struct scr_record_kind *kind, const char *path, const void *buf,
                     size_t len, scr_kvtree *tree);

/* Lock path exclusively (creating it with no keys, and its directory when
 * the kind says so), check it and merge it into tree. On success *out_fd holds the
 * lock until scr_record_write_unlock or scr_kvtree_close_unlock; on failure
 * no lock is held. */
int scr_record_lock_read(const struct scr_record_kind *kind, const char *path, int *out_fd,
                         scr_kvtree *tree);

/* Replace path with tree and VERSION. A tree a reader would refuse is not
 * written: SCR_ERR_TYPE, logged with the file marked "(not written)". */
int scr_record_write(const struct scr_record_kind *kind, const char *path, const scr_kvtree *tree);

/* As scr_record_write into the file locked by scr_record_lock_read, then
 * release the lock and close *fd (set to -1); the lock is released even when
 * nothing is written. */
int scr_record_write_unlock(const struct scr_record_kind *kind, const char *path, int *fd,
                            const scr_kvtree *tree);

#endif
