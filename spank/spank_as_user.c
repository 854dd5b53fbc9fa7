/* spank_as_user.c — run work on a job user's behalf, never as root. */
#include "spank_as_user.h"

#include "util_log.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int scr_spank_user_lookup(uid_t uid, gid_t gid, struct spank_scr_user *out, char *why, size_t why_len)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int err = getpwuid_r(uid, &pw, buf, sizeof(buf), &res);
    if (res == NULL) {
        snprintf(why, why_len, "uid %lu is not in the password database%s%s", (unsigned long)uid,
                 err ? ": " : "", err ? strerror(err) : "");
        return -1;
    }
    out->uid = uid;
    out->gid = gid;
    snprintf(out->name, sizeof(out->name), "%s", pw.pw_name);
    return 0;
}

/* Whether the process's supplementary groups are exactly the user's. */
static int groups_are_users(const struct spank_scr_user *u)
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

/* Become user for good; 0, or -1 with msg saying which step failed. */
static int drop_privileges(const struct spank_scr_user *u, char *msg, size_t msg_len)
{
    if (initgroups(u->name, u->gid) != 0) {
        snprintf(msg, msg_len, "initgroups(%s): %s", u->name, strerror(errno));
        return -1;
    }
    if (setgid(u->gid) != 0 || setuid(u->uid) != 0) {
        snprintf(msg, msg_len, "cannot become uid %lu gid %lu: %s", (unsigned long)u->uid,
                 (unsigned long)u->gid, strerror(errno));
        return -1;
    }
    if (getuid() != u->uid || geteuid() != u->uid || getgid() != u->gid || getegid() != u->gid) {
        snprintf(msg, msg_len, "identity did not change to uid %lu gid %lu", (unsigned long)u->uid,
                 (unsigned long)u->gid);
        return -1;
    }
    if (!groups_are_users(u)) {
        snprintf(msg, msg_len, "supplementary groups are not those of %s", u->name);
        return -1;
    }
    if (u->uid != 0 && setuid(0) == 0) {
        snprintf(msg, msg_len, "could regain root after dropping to uid %lu", (unsigned long)u->uid);
        return -1;
    }
    return 0;
}

/* The child: drop, work, report "<status char><message>" and exit. */
static void child(int fd, const struct spank_scr_user *u, spank_scr_user_work work, void *arg)
{
    char msg[2048] = "";
    scr_log_set_quiet(1);
    int rc = drop_privileges(u, msg + 1, sizeof(msg) - 1);
    if (rc == 0) rc = work(arg, msg + 1, sizeof(msg) - 1);
    msg[0] = rc == 0 ? '0' : '1';
    size_t len = strlen(msg), off = 0;
    while (off < len) {
        ssize_t n = write(fd, msg + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        off += (size_t)n;
    }
    _exit(rc == 0 ? 0 : 1);
}

/* Read the child's report from fd until it closes the pipe or the
 * deadline passes (0: none); 1 when the deadline passed. */
static int read_report(int fd, time_t deadline, char *buf, size_t len, size_t *out_got)
{
    size_t got = 0;
    while (got < len - 1) {
        if (deadline != 0) {
            time_t now = time(NULL);
            if (now >= deadline) return 1;
            struct pollfd p = { .fd = fd, .events = POLLIN };
            int ready = poll(&p, 1, (int)(deadline - now) * 1000);
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) continue; /* checked against the deadline above */
        }
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    *out_got = got;
    return 0;
}

int scr_spank_as_user_within(const struct spank_scr_user *user, unsigned timeout, spank_scr_user_work work,
                             void *arg, char *msg, size_t msg_len)
{
    int fds[2];
    msg[0] = '\0';
    if (pipe(fds) != 0) {
        snprintf(msg, msg_len, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, msg_len, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], user, work, arg);
    }
    close(fds[1]);
    char buf[2048];
    size_t got = 0;
    int late = read_report(fds[0], timeout ? time(NULL) + (time_t)timeout : 0, buf, sizeof(buf), &got);
    close(fds[0]);
    if (late) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(msg, msg_len, "waitpid: %s", strerror(errno));
            return -1;
        }
    }
    if (late) {
        snprintf(msg, msg_len, "killed after %u seconds, its time limit", timeout);
        return -1;
    }
    if (got == 0) {
        snprintf(msg, msg_len, "the process working as %s ended without a word (status %d)", user->name, status);
        return -1;
    }
    snprintf(msg, msg_len, "%s", buf + 1);
    return buf[0] == '0' && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int scr_spank_as_user(const struct spank_scr_user *user, spank_scr_user_work work, void *arg, char *msg,
                      size_t msg_len)
{
    return scr_spank_as_user_within(user, 0, work, arg, msg, msg_len);
}
