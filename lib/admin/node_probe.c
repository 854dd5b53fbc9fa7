/* node_probe.c — does a node answer on a TCP port (its slurmd's)? */
#include "node_probe.h"

#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Connections in flight at once: far below any descriptor limit, and wide
 * enough that a whole rack of silent nodes waits out its time limits together. */
#define PROBE_WINDOW 256

struct probe_slots {
    struct pollfd *fds;
    int *target;            /* index into the targets of fds[i] */
    long long *deadline_ms; /* when fds[i] stops waiting */
    int used;
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_answer(struct scr_probe_target *t, int err)
{
    t->answered = err == 0;
    if (err == 0)
        t->why[0] = '\0';
    else
        snprintf(t->why, sizeof(t->why), "%s", strerror(err));
}

/* Begin a connection to t. Returns its descriptor while it is still being
 * made, or -1 when t was judged at once (accepted, refused, unresolvable). */
static int start_connection(struct scr_probe_target *t)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", t->port);
    struct addrinfo hints, *addr = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    int rc = getaddrinfo(t->host, port, &hints, &addr);
    if (rc != 0) {
        t->answered = 0;
        snprintf(t->why, sizeof(t->why), "cannot resolve %s: %s", t->host,
                 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return -1;
    }
    int fd = socket(addr->ai_family, addr->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    addr->ai_protocol);
    if (fd < 0) {
        int err = errno;
        freeaddrinfo(addr);
        t->answered = 0;
        snprintf(t->why, sizeof(t->why), "no socket to probe it with: %s", strerror(err));
        return -1;
    }
    rc = connect(fd, addr->ai_addr, addr->ai_addrlen);
    int err = rc == 0 ? 0 : errno;
    freeaddrinfo(addr);
    if (err == EINPROGRESS) return fd;
    set_answer(t, err);
    close(fd);
    return -1;
}

/* Judge slot i (err 0: accepted) and move the last slot into its place. */
static void finish_slot(struct probe_slots *s, int i, struct scr_probe_target *targets, int err,
                        int timeout_ms)
{
    struct scr_probe_target *t = &targets[s->target[i]];
    if (err == ETIMEDOUT) {
        t->answered = 0;
        snprintf(t->why, sizeof(t->why), "no answer within %d ms", timeout_ms);
    } else {
        set_answer(t, err);
    }
    close(s->fds[i].fd);
    s->used--;
    s->fds[i] = s->fds[s->used];
    s->target[i] = s->target[s->used];
    s->deadline_ms[i] = s->deadline_ms[s->used];
}

/* Wait for the connections in flight until one is judged or a deadline
 * passes, and judge what there is to judge. */
static void wait_and_judge(struct probe_slots *s, struct scr_probe_target *targets, int timeout_ms)
{
    long long now = now_ms(), soonest = s->deadline_ms[0];
    for (int i = 1; i < s->used; i++)
        if (s->deadline_ms[i] < soonest) soonest = s->deadline_ms[i];
    int wait = soonest > now ? (int)(soonest - now) : 0;
    int n = poll(s->fds, (nfds_t)s->used, wait);
    int poll_err = n < 0 && errno != EINTR ? errno : 0;
    now = now_ms();
    for (int i = 0; i < s->used;) {
        int err = -1;
        if (poll_err != 0) {
            err = poll_err;
        } else if (n > 0 && s->fds[i].revents != 0) {
            socklen_t len = sizeof(err);
            if (getsockopt(s->fds[i].fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
        } else if (now >= s->deadline_ms[i]) {
            err = ETIMEDOUT;
        }
        if (err < 0)
            i++;
        else
            finish_slot(s, i, targets, err, timeout_ms); /* slot i now holds another */
    }
}

int scr_node_probe(struct scr_probe_target *targets, int count, int timeout_ms)
{
    if (count < 0 || (count > 0 && targets == NULL) || timeout_ms <= 0) {
        scr_err("node probe: bad arguments (%d targets, time limit %d ms)", count, timeout_ms);
        return SCR_ERR_ARG;
    }
    for (int i = 0; i < count; i++) {
        if (targets[i].host == NULL || targets[i].host[0] == '\0') {
            scr_err("node probe: target %d has no host", i);
            return SCR_ERR_ARG;
        }
        if (targets[i].port <= 0 || targets[i].port > 65535) {
            scr_err("node probe: port %d of %s is not a TCP port", targets[i].port,
                    targets[i].host);
            return SCR_ERR_ARG;
        }
    }
    int window = count < PROBE_WINDOW ? count : PROBE_WINDOW;
    if (window == 0) return SCR_SUCCESS;
    struct probe_slots s = {
        .fds = calloc((size_t)window, sizeof(*s.fds)),
        .target = calloc((size_t)window, sizeof(*s.target)),
        .deadline_ms = calloc((size_t)window, sizeof(*s.deadline_ms)),
    };
    int rc = s.fds && s.target && s.deadline_ms ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) scr_err("out of memory probing %d nodes", count);
    for (int next = 0; rc == SCR_SUCCESS && (next < count || s.used > 0);) {
        while (s.used < window && next < count) {
            int fd = start_connection(&targets[next]);
            if (fd >= 0) {
                s.fds[s.used] = (struct pollfd){.fd = fd, .events = POLLOUT};
                s.target[s.used] = next;
                s.deadline_ms[s.used] = now_ms() + timeout_ms;
                s.used++;
            }
            next++;
        }
        if (s.used > 0) wait_and_judge(&s, targets, timeout_ms);
    }
    free(s.fds);
    free(s.target);
    free(s.deadline_ms);
    return rc;
}
