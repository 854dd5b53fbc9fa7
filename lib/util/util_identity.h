/* util_identity.h — become another user for good.
 *
 * Root must never act through a user's files: a symbolic link or a
 * directory the user planted would turn root's rights against the system.
 * Whatever runs as root and has work to do in a user's directories (the
 * plugin's hooks, a command an administrator runs on a user's prefix)
 * first takes that user's identity with scr_identity_become, the same
 * steps for all of them: the user's supplementary groups (initgroups), gid,
 * uid; then it checks that every id stuck, that the supplementary groups
 * are the user's, and that root cannot be regained (setuid(0) must fail).
 * There is no way back: a process that needs root afterwards must do its
 * user's work in a child.
 *
 * Errors are logged once (util_log.h) and returned: SCR_ERR_NOTFOUND for a
 * uid the password database does not know, SCR_ERR_IO for a system call
 * that failed (with strerror), SCR_ERR_STATE for an identity that did not
 * stick. The process-wide identity is what changes: call it before threads
 * start. */
#ifndef SCR_UTIL_IDENTITY_H
#define SCR_UTIL_IDENTITY_H

#include <sys/types.h>

/* A user to act as: uid, primary gid and name (for initgroups and messages). */
struct scr_identity {
    uid_t uid;
    gid_t gid;
    char name[256];
};

/* *out for uid with primary group gid, its name from the password database. */
int scr_identity_lookup(uid_t uid, gid_t gid, struct scr_identity *out);

/* *out for uid with the primary group the password database gives it. */
int scr_identity_lookup_uid(uid_t uid, struct scr_identity *out);

/* Become who for good (see above); the process must run as root. */
int scr_identity_become(const struct scr_identity *who);

#endif
