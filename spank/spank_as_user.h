/* spank_as_user.h — run work on a job user's behalf, never as root.
 *
 * Root hooks (the job prolog and epilog) must not touch a user's files with
 * root's rights: a symbolic link or a directory planted by someone else
 * would turn them against the system. scr_spank_as_user forks a child that
 * takes the job user's identity for good (scr_identity_become of
 * util_identity.h, which the commands use too) and runs the work there; the
 * parent waits and gets the outcome and a message back through a pipe.
 * libscr-core's messages are silenced in the child: the work puts what the
 * parent should log into msg. */
#ifndef SPANK_AS_USER_H
#define SPANK_AS_USER_H

#include "util_identity.h"

#include <stddef.h>
#include <sys/types.h>

/* Fill *out for uid with primary group gid (name from the password
 * database); -1 with why set when uid is unknown. */
int scr_spank_user_lookup(uid_t uid, gid_t gid, struct scr_identity *out, char *why,
                          size_t why_len);

/* The work: returns 0 or -1 and writes a message for the log into msg. */
typedef int (*spank_scr_user_work)(void *arg, char *msg, size_t msg_len);

/* Run work(arg) in a child as user; its status (0 or -1) and message come
 * back in msg. Failing to fork or to drop privileges is -1 with msg saying
 * why. */
int scr_spank_as_user(const struct scr_identity *user, spank_scr_user_work work, void *arg,
                      char *msg, size_t msg_len);

/* The same, bounded: a child still working after timeout seconds (0: no
 * limit) is killed (SIGKILL), and the outcome is -1 with msg saying so. */
int scr_spank_as_user_within(const struct scr_identity *user, unsigned timeout,
                             spank_scr_user_work work, void *arg, char *msg, size_t msg_len);

#endif
