/* job_dir.c — a job's private directory on a node: <base>/<user>/scr.<jobid>. */
#define _GNU_SOURCE /* O_PATH */
#include "job_dir.h"
#include "job_env.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int scr_job_dir_path(const char *what, const char *base, const char *node, const char *user,
                     const char *jobid, char **out_dir)
{
    char *expanded = NULL, sub[600];
    /* the names are checked where they are read; this keeps any other
     * caller from making a level out of something else */
    int rc = scr_job_env_check_name("node name", node);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_job_env_check_name("user name", user);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_job_env_check_name("job id", jobid);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_job_env_expand(base, node, user, jobid, &expanded);
    if (rc != SCR_SUCCESS) goto out;
    if (expanded[0] != '/') {
        scr_err("%s=%s must be an absolute path", what, base);
        rc = SCR_ERR_ARG;
        goto out;
    }
    int n = snprintf(sub, sizeof(sub), "%s/scr.%s", user, jobid);
    if (n < 0 || (size_t)n >= sizeof(sub)) {
        scr_err("user name or job id too long for a directory name: %s, %s", user, jobid);
        rc = SCR_ERR_ARG;
        goto out;
    }
    rc = scr_path_join(expanded, sub, out_dir);
out:
    free(expanded);
    return rc;
}

/* "uid 1001 (ann)" into buf, or "uid 1001" when the name is unknown. */
static void describe_uid(uid_t uid, char *buf, size_t len)
{
    struct passwd pw, *found = NULL;
    char scratch[1024];
    if (getpwuid_r(uid, &pw, scratch, sizeof(scratch), &found) == 0 && found != NULL)
        snprintf(buf, len, "uid %lu (%s)", (unsigned long)uid, pw.pw_name);
    else
        snprintf(buf, len, "uid %lu", (unsigned long)uid);
}

/* Whether st (found at path) may serve as one of our private directories;
 * logs why not. */
static int is_ours(const struct stat *st, const char *path)
{
    if (S_ISLNK(st->st_mode)) {
        scr_err("refusing %s: it is a symbolic link", path);
        return 0;
    }
    if (!S_ISDIR(st->st_mode)) {
        scr_err("refusing %s: it is not a directory", path);
        return 0;
    }
    if (st->st_uid != geteuid()) {
        char owner[320];
        describe_uid(st->st_uid, owner, sizeof(owner));
        scr_err("refusing %s: it belongs to %s, not to uid %lu", path, owner,
                (unsigned long)geteuid());
        return 0;
    }
    return 1;
}

/* Root, and the caller: the owners a level of a base may have. */
static int trusted_owner(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

/* "root" or "root or uid 1001 (ann)", for messages. */
static void trusted_owners(char *buf, size_t len)
{
    char me[320];
    if (geteuid() == 0) {
        snprintf(buf, len, "root");
        return;
    }
    describe_uid(geteuid(), me, sizeof(me));
    snprintf(buf, len, "root or %s", me);
}

/* Whether a level of a base, st found at path, may be used; logs why not.
 * what says what st is ("directory", "symbolic link"). */
static int is_trusted_level(const struct stat *st, const char *path, const char *what)
{
    char owner[320], trusted[400];
    if (!trusted_owner(st->st_uid)) {
        describe_uid(st->st_uid, owner, sizeof(owner));
        trusted_owners(trusted, sizeof(trusted));
        scr_err("refusing %s: it is a %s owned by %s, not by %s; its owner could move or delete "
                "what SCR puts "
                "there",
                path, what, owner, trusted);
        return 0;
    }
    if (S_ISDIR(st->st_mode) && (st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX)) {
        scr_err("refusing %s: anyone may write to it and it has no sticky bit, so anyone could "
                "move or delete "
                "what SCR puts there (chmod +t, as /tmp has)",
                path);
        return 0;
    }
    return 1;
}

/* name inside the directory open as parent_fd, made with mode when
 * missing, looked at without following a link into *out; SCR_ERR_IO
 * when either fails (logged; path names it). */
static int make_and_look(int parent_fd, const char *name, mode_t mode, const char *path,
                         struct stat *out)
{
    if (mkdirat(parent_fd, name, mode) != 0 && errno != EEXIST) {
        scr_err("mkdir of %s failed: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    if (fstatat(parent_fd, name, out, AT_SYMLINK_NOFOLLOW) != 0) {
        scr_err("cannot stat %s: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

/* One level of a base: name inside the directory open as parent_fd,
 * created (mode 0755) when missing, then opened. A directory is opened
 * without following a link and must be the one looked at; a symbolic link
 * is followed only when root or the caller owns it (a site's /var/run ->
 * /run), and where it leads is checked as a directory is. path names the
 * level in messages. Returns the open directory or -1 (logged). */
static int shared_level(int parent_fd, const char *name, const char *path)
{
    struct stat before, st;
    if (make_and_look(parent_fd, name, 0755, path, &before) != SCR_SUCCESS) return -1;
    int link = S_ISLNK(before.st_mode);
    if (!link && !S_ISDIR(before.st_mode)) {
        scr_err("refusing %s: it is not a directory", path);
        return -1;
    }
    if (!is_trusted_level(&before, path, link ? "symbolic link" : "directory")) return -1;
    /* O_PATH: a level others may only pass through (mode 0711) is walked too */
    int fd = openat(parent_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | (link ? 0 : O_NOFOLLOW));
    if (fd < 0) {
        scr_err("cannot open directory %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        scr_err("cannot stat %s: %s", path, strerror(errno));
    } else if (!link && (st.st_dev != before.st_dev || st.st_ino != before.st_ino)) {
        scr_err("refusing %s: it was replaced while being checked", path);
    } else if (is_trusted_level(&st, path,
                                link ? "directory (where the link leads)" : "directory")) {
        return fd;
    }
    close(fd);
    return -1;
}

/* The base, an absolute normalised path, walked from "/" one level at a
 * time (shared_level). Returns the open directory or -1 (logged). */
static int open_base(const char *base)
{
    char *walked = malloc(strlen(base) + 2);
    if (walked == NULL) {
        scr_err("out of memory opening %s", base);
        return -1;
    }
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) scr_err("cannot open directory /: %s", strerror(errno));
    size_t n = 0;
    for (const char *p = base; fd >= 0 && *p;) {
        while (*p == '/') p++;
        size_t len = strcspn(p, "/");
        if (len == 0) break;
        walked[n++] = '/';
        memcpy(walked + n, p, len);
        n += len;
        walked[n] = '\0';
        int next = shared_level(fd, walked + n - len, walked);
        close(fd);
        fd = next;
        p += len;
    }
    free(walked);
    return fd;
}

/* Make name inside the directory open as parent_fd (mode 0700 if new),
 * then open it without following a link and check it is ours and private.
 * It is looked at before it is opened (an unreadable directory of someone
 * else is reported as such) and after (the same inode: nothing swapped it
 * in between). path names it in messages. Returns the open directory or -1
 * (logged). */
static int private_subdir(int parent_fd, const char *name, const char *path)
{
    struct stat before, st;
    if (make_and_look(parent_fd, name, 0700, path, &before) != SCR_SUCCESS) return -1;
    if (!is_ours(&before, path)) return -1;
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        scr_err("cannot open directory %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        scr_err("cannot stat %s: %s", path, strerror(errno));
    } else if (st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
        scr_err("refusing %s: it was replaced while being checked", path);
    } else if ((st.st_mode & 077) != 0 && fchmod(fd, st.st_mode & 0700) != 0) {
        scr_err("cannot make %s private (chmod 0700): %s", path, strerror(errno));
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

/* Create dir as scr_job_dir_create describes; with sim_level (not NULL)
 * also that private level inside it. */
static int create_levels(const char *dir, const char *sim_level)
{
    char *jobdir = NULL, *userdir = NULL, *base = NULL, *user = NULL, *job = NULL, *simdir = NULL;
    int base_fd = -1, user_fd = -1, job_fd = -1, sim_fd = -1;
    int rc = scr_path_normalize(dir, &jobdir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_dirname(jobdir, &userdir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_dirname(userdir, &base);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_basename(userdir, &user);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_basename(jobdir, &job);
    if (rc != SCR_SUCCESS) goto out;
    if (jobdir[0] != '/' || strcmp(userdir, "/") == 0) {
        scr_err("%s is not a job directory <base>/<user>/scr.<jobid>", dir);
        rc = SCR_ERR_ARG;
        goto out;
    }
    if (sim_level != NULL) {
        rc = scr_path_join(jobdir, sim_level, &simdir);
        if (rc != SCR_SUCCESS) goto out;
    }
    /* each level says what is wrong with it */
    rc = SCR_ERR_IO;
    base_fd = open_base(base);
    if (base_fd < 0) goto out;
    user_fd = private_subdir(base_fd, user, userdir);
    if (user_fd < 0) goto out;
    job_fd = private_subdir(user_fd, job, jobdir);
    if (job_fd < 0) goto out;
    if (sim_level != NULL) {
        sim_fd = private_subdir(job_fd, sim_level, simdir);
        if (sim_fd < 0) goto out;
    }
    rc = SCR_SUCCESS;
out:
    if (sim_fd >= 0) close(sim_fd);
    if (job_fd >= 0) close(job_fd);
    if (user_fd >= 0) close(user_fd);
    if (base_fd >= 0) close(base_fd);
    free(jobdir);
    free(userdir);
    free(base);
    free(user);
    free(job);
    free(simdir);
    return rc;
}

int scr_job_dir_create(const char *dir)
{
    return create_levels(dir, NULL);
}

/* The level a simulated node's directories take inside the job directory. */
#define SIM_LEVEL_PREFIX "sim."

int scr_job_dir_sim_path(const char *job_dir, const char *sim_node, char **out_dir)
{
    char level[SCR_SIM_NODE_MAX + sizeof(SIM_LEVEL_PREFIX)];
    int rc = scr_job_env_check_name("simulated node", sim_node);
    if (rc != SCR_SUCCESS) return rc;
    if (strlen(sim_node) > SCR_SIM_NODE_MAX) {
        scr_err("simulated node '%.32s...' has a name longer than %d characters", sim_node,
                SCR_SIM_NODE_MAX);
        return SCR_ERR_ARG;
    }
    snprintf(level, sizeof(level), SIM_LEVEL_PREFIX "%s", sim_node);
    return scr_path_join(job_dir, level, out_dir);
}

int scr_job_dir_create_sim(const char *sim_dir)
{
    char *jobdir = NULL, *level = NULL;
    int rc = scr_path_dirname(sim_dir, &jobdir);
    if (rc == SCR_SUCCESS) rc = scr_path_basename(sim_dir, &level);
    if (rc == SCR_SUCCESS && (strncmp(level, SIM_LEVEL_PREFIX, strlen(SIM_LEVEL_PREFIX)) != 0 ||
                              scr_job_env_name_problem(level) != NULL)) {
        scr_err("%s is not a simulated node's directory <job dir>/" SIM_LEVEL_PREFIX "<name>",
                sim_dir);
        rc = SCR_ERR_ARG;
    }
    if (rc == SCR_SUCCESS) rc = create_levels(jobdir, level);
    free(jobdir);
    free(level);
    return rc;
}

/* Empty the directory open as fd (closed here), never following a link;
 * path names it in messages. */
static int empty_dir(int fd, const char *path)
{
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        scr_err("cannot read directory %s: %s", path, strerror(errno));
        close(fd);
        return SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char sub[4096];
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            scr_err("cannot stat %s: %s", sub, strerror(errno));
            rc = SCR_ERR_IO;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int cfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd < 0) {
                scr_err("cannot open directory %s: %s", sub, strerror(errno));
                rc = SCR_ERR_IO;
                continue;
            }
            if (empty_dir(cfd, sub) != SCR_SUCCESS) rc = SCR_ERR_IO;
        }
        if (unlinkat(dirfd(d), e->d_name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
            scr_err("cannot remove %s: %s", sub, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    closedir(d);
    return rc;
}

/* lstat of dir into *st, and the verdict of scr_job_dir_check. */
static int check_dir(const char *dir, struct stat *st)
{
    if (lstat(dir, st) != 0) {
        if (errno == ENOENT) return SCR_ERR_NOTFOUND;
        scr_err("cannot stat %s: %s", dir, strerror(errno));
        return SCR_ERR_IO;
    }
    return is_ours(st, dir) ? SCR_SUCCESS : SCR_ERR_IO;
}

int scr_job_dir_check(const char *dir)
{
    struct stat st;
    return check_dir(dir, &st);
}

int scr_job_dir_remove(const char *dir, int *out_removed)
{
    struct stat before, st;
    *out_removed = 0;
    int rc = check_dir(dir, &before);
    if (rc != SCR_SUCCESS) return rc == SCR_ERR_NOTFOUND ? SCR_SUCCESS : rc;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        scr_err("cannot open directory %s: %s", dir, strerror(errno));
        return SCR_ERR_IO;
    }
    if (fstat(fd, &st) != 0 || st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
        scr_err("refusing %s: it was replaced while being checked", dir);
        close(fd);
        return SCR_ERR_IO;
    }
    rc = empty_dir(fd, dir);
    if (rc == SCR_SUCCESS && rmdir(dir) != 0) {
        scr_err("cannot remove %s: %s", dir, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS) *out_removed = 1;
    return rc;
}
