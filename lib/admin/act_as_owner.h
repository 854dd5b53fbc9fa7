/* act_as_owner.h — a command that root runs on a user's directories acts as
 * that user.
 *
 * Administrators run the commands as root on users' prefixes and control
 * directories. Root acting there would act through whatever the user put
 * in them (a symbolic link, a directory in place of a file), and what it
 * wrote would be root's, out of the user's reach: a halt file the job
 * cannot read, an index its next run cannot update. So a command calls
 * scr_act_as_owner before it touches anything in the directory it works
 * in, and when the process runs as root (effective uid 0) it takes the
 * identity of the directory's owner for good (util_identity.h: the user's
 * groups, its primary gid from the password database, its uid; USER,
 * LOGNAME and HOME become the user's, for the programs it starts). Files
 * it writes are then the user's, made as the user's own job makes them.
 *
 *   - The owner is that of the directory itself (stat); a directory that
 *     does not exist yet is judged by its nearest existing ancestor, where
 *     it would be created.
 *   - A directory owned by root keeps the command root, unless a user
 *     owns a directory or a symbolic link on the way to it (the path as
 *     given, or where it leads): that user could swap what follows between
 *     the look and the use, so the command acts as that user.
 *   - A prefix's .scr, when it exists, must have the prefix's owner: when
 *     it has another, the command is refused with a message naming both
 *     (the usual cause is a .scr root created, which the user's job cannot
 *     write into either).
 *   - A command working in two directories (a scavenge: the control
 *     directory, then the prefix it finds there) takes the owner of the
 *     first and checks the second with scr_act_as_check_owner: one owned
 *     by another user is refused, naming both.
 *   - Without root nothing changes and nothing is checked: the system's
 *     permissions decide.
 * Which user the command acts as is reported at debug level 1 (SCR_DEBUG=1).
 * Errors are logged once and returned: SCR_ERR_STATE for an owner that is
 * refused, SCR_ERR_IO when a directory cannot be looked at, the codes of
 * util_identity.h when the identity cannot be taken. A refused command has
 * changed nothing. Call before threads start: the identity is the
 * process's. */
#ifndef SCR_ACT_AS_OWNER_H
#define SCR_ACT_AS_OWNER_H

#include "util_identity.h"

/* What the directory is, for the .scr rule and for messages. */
enum scr_owned_dir {
    SCR_OWNED_PREFIX,   /* a prefix: its .scr must be its owner's too */
    SCR_OWNED_CNTL_DIR, /* a job's control directory on this node */
    SCR_OWNED_DIR,      /* any other directory the command reads or writes */
};

/* Who the command acts as, once scr_act_as_owner returned. */
struct scr_acting {
    int by_root;             /* it was started as root: the owner rule applies */
    struct scr_identity who; /* when by_root: the user it acts as (root included) */
    char dir[4096];          /* when by_root: the directory whose owner that is */
    enum scr_owned_dir kind;
};

/* Act as the owner of dir (an absolute or relative path) from now on, as
 * above; *out says who. */
int scr_act_as_owner(const char *dir, enum scr_owned_dir kind, struct scr_acting *out);

/* dir, another directory of the same command, must belong to the user it
 * acts as (only when it was started as root; with kind SCR_OWNED_PREFIX its
 * .scr too); otherwise SCR_ERR_STATE, naming both directories and owners. */
int scr_act_as_check_owner(const struct scr_acting *as, const char *dir, enum scr_owned_dir kind);

#endif
