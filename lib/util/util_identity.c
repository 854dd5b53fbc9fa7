/* util_identity.c — become another user for good. */
#include "util_identity.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The password entry of uid into *pw (strings in buf); logged when none. */
static int password_entry(uid_t uid, struct passwd *pw, char *buf, size_t len)
{
    struct passwd *found = NULL;
    int err = getpwuid_r(uid, pw, buf, len, &found);
    if (found != NULL) return SCR_SUCCESS;
    scr_err("uid %lu is not in the password database%s%s", (unsigned long)uid, err ? ": " : "",
            err ? strerror(err) : "");
    return SCR_ERR_NOTFOUND;
}

int scr_identity_lookup(uid_t uid, gid_t gid, struct scr_identity *out)
{
    struct passwd pw;
    char buf[4096];
    int rc = password_entry(uid, &pw, buf, sizeof(buf));
    if (rc != SCR_SUCCESS) return rc;
    if (strlen(pw.pw_name) >= sizeof(out->name)) {
        scr_err("the name of uid %lu is longer than %zu characters", (unsigned long)uid,
                sizeof(out->name) - 1);
        return SCR_ERR_ARG;
    }
    out->uid = uid;
    out->gid = gid;
    snprintf(out->name, sizeof(out->name), "%s", pw.pw_name);
    return SCR_SUCCESS;
}

int scr_identity_lookup_uid(uid_t uid, struct scr_identity *out)
{
    struct passwd pw;
    char buf[4096];
    int rc = password_entry(uid, &pw, buf, sizeof(buf));
    if (rc != SCR_SUCCESS) return rc;
    return scr_identity_lookup(uid, pw.pw_gid, out);
}

/* Whether the process's supplementary groups are all the user's. */
static int groups_are_users(const struct scr_identity *u)
{
    enum { MAXG = 4096 };
    static gid_t want[MAXG], have[MAXG];
    int nwant = MAXG;
    if (getgrouplist(u->name, u->gid, want, &nwant) < 0) return 0;
    int nhave = getgroups(MAXG, have);
    if (nhave < 0) return 0;
    for (int i = 0; i < nhave; i++) {
        int found = have[i] == u->gid;
        for (int j = 0; j < nwant && !found; j++) found = have[i] == want[j];
        if (!found) return 0;
    }
    return 1;
}

int scr_identity_become(const struct scr_identity *u)
{
    if (initgroups(u->name, u->gid) != 0) {
        scr_err("cannot take the groups of %s: initgroups: %s", u->name, strerror(errno));
        return SCR_ERR_IO;
    }
    /* the gid first: once the uid is not root, the gid can no longer change */
    if (setgid(u->gid) != 0 || setuid(u->uid) != 0) {
        scr_err("cannot become %s (uid %lu gid %lu): %s", u->name, (unsigned long)u->uid,
                (unsigned long)u->gid, strerror(errno));
        return SCR_ERR_IO;
    }
    if (getuid() != u->uid || geteuid() != u->uid || getgid() != u->gid || getegid() != u->gid) {
        scr_err("the identity did not change to %s (uid %lu gid %lu)", u->name,
                (unsigned long)u->uid, (unsigned long)u->gid);
        return SCR_ERR_STATE;
    }
    if (!groups_are_users(u)) {
        scr_err("the supplementary groups are not those of %s", u->name);
        return SCR_ERR_STATE;
    }
    if (u->uid != 0 && setuid(0) == 0) {
        scr_err("root could be regained after becoming %s (uid %lu)", u->name,
                (unsigned long)u->uid);
        return SCR_ERR_STATE;
    }
    return SCR_SUCCESS;
}
