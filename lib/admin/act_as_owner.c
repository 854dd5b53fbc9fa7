/* act_as_owner.c — a command that root runs on a user's directories acts as that user. */
#include "act_as_owner.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_text(enum scr_owned_dir kind)
{
    switch (kind) {
    case SCR_OWNED_PREFIX: return "the prefix";
    case SCR_OWNED_CNTL_DIR: return "the control directory";
    case SCR_OWNED_DIR: break;
    }
    return "the directory";
}

/* "alice" for a uid the password database knows (1), else "uid 1234" (0). */
static int owner_text(uid_t uid, char *out, size_t len)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found != NULL) {
        snprintf(out, len, "%s", pw.pw_name);
        return 1;
    }
    snprintf(out, len, "uid %lu", (unsigned long)uid);
    return 0;
}

/* The first user other than root, from the top down, who owns a
 * component of the absolute path abs as lstat sees it (a directory or a
 * symbolic link): that user can put something else in place of what
 * follows it between our look and our use. 0 when every component is
 * root's (or cannot be looked at). */
static uid_t first_user_on_path(const char *abs)
{
    char buf[PATH_MAX];
    size_t len = strlen(abs);
    if (len == 0 || len >= sizeof(buf) || abs[0] != '/') return 0;
    memcpy(buf, abs, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        struct stat st;
        int found = lstat(buf, &st) == 0 && st.st_uid != 0;
        buf[i] = c;
        if (found) return st.st_uid;
    }
    return 0;
}

/* A user who could redirect dir (as it was given, and where it leads)
 * after it was judged root's: that user's uid, else 0. */
static uid_t user_who_can_redirect(const char *dir, const char *judged)
{
    char cwd[PATH_MAX], real[PATH_MAX];
    char *abs = NULL;
    uid_t uid = 0;
    if (dir[0] == '/')
        abs = strdup(dir);
    else if (getcwd(cwd, sizeof(cwd)) != NULL)
        scr_path_join(cwd, dir, &abs);
    if (abs != NULL) uid = first_user_on_path(abs);
    free(abs);
    if (uid == 0 && realpath(judged, real) != NULL) uid = first_user_on_path(real);
    return uid;
}

/* The owner of dir, else of its nearest existing ancestor (*out_judged:
 * which one, a new string); *out_exists: dir itself exists. */
static int owner_of(const char *dir, uid_t *out_uid, char **out_judged, int *out_exists)
{
    char *path = NULL;
    struct stat st;
    int rc = scr_path_normalize(dir, &path);
    if (rc != SCR_SUCCESS) return rc;
    *out_exists = 1;
    while (stat(path, &st) != 0) {
        char *up = NULL;
        if (errno != ENOENT || strcmp(path, "/") == 0 || strcmp(path, ".") == 0) {
            scr_err("cannot tell who owns %s: stat %s: %s", dir, path, strerror(errno));
            free(path);
            return SCR_ERR_IO;
        }
        *out_exists = 0;
        rc = scr_path_dirname(path, &up);
        free(path);
        if (rc != SCR_SUCCESS) return rc;
        path = up;
    }
    *out_uid = st.st_uid;
    /* a root-owned directory reached through a user's directory or link is
     * that user's to swap: root acting there would act through it */
    if (*out_uid == 0) *out_uid = user_who_can_redirect(dir, path);
    *out_judged = path;
    return SCR_SUCCESS;
}

/* A prefix's .scr, when there, must have the prefix's owner. */
static int check_scr_dir(const char *prefix, uid_t owner)
{
    char *scr = NULL;
    struct stat st;
    int rc = scr_path_join(prefix, ".scr", &scr);
    if (rc != SCR_SUCCESS) return rc;
    if (lstat(scr, &st) != 0) {
        if (errno != ENOENT) {
            scr_err("cannot tell who owns %s: %s", scr, strerror(errno));
            rc = SCR_ERR_IO;
        }
    } else if (st.st_uid != owner) {
        char a[256], b[256];
        owner_text(owner, a, sizeof(a));
        owner_text(st.st_uid, b, sizeof(b));
        scr_err("the prefix %s belongs to %s but its %s belongs to %s: run as root, a command acts "
                "as the "
                "prefix's owner and will not work in another user's directory; make %s %s's (chown "
                "-R %s %s) "
                "and try again",
                prefix, a, scr, b, scr, a, a, scr);
        rc = SCR_ERR_STATE;
    }
    free(scr);
    return rc;
}

/* The owner of dir (and, for a prefix, of its .scr), checked. */
static int judge(const char *dir, enum scr_owned_dir kind, uid_t *out_uid, char **out_judged)
{
    int exists = 0;
    int rc = owner_of(dir, out_uid, out_judged, &exists);
    if (rc != SCR_SUCCESS) return rc;
    if (kind == SCR_OWNED_PREFIX && exists) rc = check_scr_dir(*out_judged, *out_uid);
    if (rc != SCR_SUCCESS) {
        free(*out_judged);
        *out_judged = NULL;
    }
    return rc;
}

/* USER, LOGNAME and HOME of who, for the programs the command starts. */
static int take_environment(const struct scr_identity *who)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (getpwuid_r(who->uid, &pw, buf, sizeof(buf), &found) != 0 || found == NULL) {
        scr_err("uid %lu is not in the password database", (unsigned long)who->uid);
        return SCR_ERR_NOTFOUND;
    }
    if (setenv("USER", who->name, 1) != 0 || setenv("LOGNAME", who->name, 1) != 0 ||
        setenv("HOME", pw.pw_dir, 1) != 0) {
        scr_err("cannot set the environment of %s: %s", who->name, strerror(errno));
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

int scr_act_as_owner(const char *dir, enum scr_owned_dir kind, struct scr_acting *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = kind;
    if (geteuid() != 0) return SCR_SUCCESS;
    out->by_root = 1;
    uid_t owner = 0;
    char *judged = NULL;
    int rc = judge(dir, kind, &owner, &judged);
    if (rc != SCR_SUCCESS) return rc;
    snprintf(out->dir, sizeof(out->dir), "%s", judged);
    char name[256];
    if (!owner_text(owner, name, sizeof(name))) {
        scr_err("%s %s belongs to %s, which the password database does not know: run as root, a "
                "command acts "
                "as the owner and cannot become this one",
                kind_text(kind), judged, name);
        rc = SCR_ERR_STATE;
        goto out;
    }
    rc = scr_identity_lookup_uid(owner, &out->who);
    if (rc != SCR_SUCCESS) goto out;
    if (owner == 0) {
        scr_dbg(1, "acting as root, the owner of %s", judged);
        goto out;
    }
    rc = scr_identity_become(&out->who);
    if (rc != SCR_SUCCESS) goto out;
    rc = take_environment(&out->who);
    if (rc != SCR_SUCCESS) goto out;
    scr_dbg(1, "acting as %s (uid %lu, gid %lu), the owner of %s", out->who.name,
            (unsigned long)out->who.uid, (unsigned long)out->who.gid, judged);
out:
    free(judged);
    return rc;
}

int scr_act_as_check_owner(const struct scr_acting *as, const char *dir, enum scr_owned_dir kind)
{
    if (!as->by_root) return SCR_SUCCESS;
    uid_t owner = 0;
    char *judged = NULL;
    int rc = judge(dir, kind, &owner, &judged);
    if (rc != SCR_SUCCESS) return rc;
    if (owner != as->who.uid) {
        char other[256];
        owner_text(owner, other, sizeof(other));
        scr_err("%s %s belongs to %s but %s %s belongs to %s: run as root, a command acts as one "
                "owner and "
                "will not work in another user's directory",
                kind_text(as->kind), as->dir, as->who.name, kind_text(kind), judged, other);
        rc = SCR_ERR_STATE;
    }
    free(judged);
    return rc;
}
