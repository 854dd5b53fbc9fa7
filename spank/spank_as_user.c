/* spank_as_user.c — run work on a job user's behalf, never as root. */
#include "spank_as_user.h"

#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int scr_spank_user_lookup(uid_t uid, gid_t gid, struct scr_identity *out, char *why, size_t why_len)
{
    if (scr_identity_lookup(uid, gid, out) == SCR_SUCCESS) return 0;
    snprintf(why, why_len, "%s", scr_last_error());
    return -1;
}

/* The child: drop, work, report "<status char><message>" and exit. */
static void child(int fd, const struct scr_identity *u, spank_scr_user_work work, void *arg)
{
    char msg[2048] = "";
    scr_log_set_quiet(1);
    int rc = 0;
    if (scr_identity_become(u) != SCR_SUCCESS) {
        snprintf(msg + 1, sizeof(msg) - 1, "%s", scr_last_error());
        rc = -1;
    }
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
            struct pollfd p = {.fd = fd, .events = POLLIN};
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

int scr_spank_as_user_within(const struct scr_identity *user, unsigned timeout,
                             spank_scr_user_work work, void *arg, char *msg, size_t msg_len)
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
    int late =
        read_report(fds[0], timeout ? time(NULL) + (time_t)timeout : 0, buf, sizeof(buf), &got);
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
        snprintf(msg, msg_len, "the process working as %s ended without a word (status %d)",
                 user->name, status);
        return -1;
    }
    snprintf(msg, msg_len, "%s", buf + 1);
    return buf[0] == '0' && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int scr_spank_as_user(const struct scr_identity *user, spank_scr_user_work work, void *arg,
                      char *msg, size_t msg_len)
{
    return scr_spank_as_user_within(user, 0, work, arg, msg, msg_len);
}
