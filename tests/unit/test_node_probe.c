/* test_node_probe.c — the TCP probe that finds a crashed node's slurmd gone:
 * listening ports answer, closed ports and full listen queues do not, and a
 * list longer than the window of connections in flight is judged whole. */
#include "tap.h"

#include "node_probe.h"
#include "scr_err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A socket bound to 127.0.0.1 on a free port, listening when backlog >= 0. */
static int local_socket(int backlog, int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0 ||
        (backlog >= 0 && listen(fd, backlog) != 0)) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* A port on 127.0.0.1 where nothing listens. */
static int closed_port(void)
{
    int port = 0, fd = local_socket(-1, &port);
    if (fd < 0) return -1;
    close(fd);
    return port;
}

static void test_listening_port_answers_and_closed_port_is_refused(void)
{
    int open_port = 0, listener = local_socket(16, &open_port);
    int shut = closed_port();
    REQUIRE(listener >= 0 && shut > 0, "local sockets");
    struct scr_probe_target t[3] = {
        {.host = "127.0.0.1", .port = open_port},
        {.host = "127.0.0.1", .port = shut},
        {.host = "localhost", .port = open_port},
    };
    strcpy(t[0].why, "stale");
    REQUIRE(scr_node_probe(t, 3, 2000) == SCR_SUCCESS, "probe");
    CHECK(t[0].answered && t[0].why[0] == '\0', "listening port answers (why '%s')", t[0].why);
    CHECK(!t[1].answered && strstr(t[1].why, "Connection refused") != NULL, "closed port: '%s'",
          t[1].why);
    CHECK(t[2].answered, "a host name is resolved (why '%s')", t[2].why);
    close(listener);
}

/* A listener whose accept queue is full drops new connection requests, as
 * a crashed host sends nothing back: the probe gives up at its time limit. */
static void test_silent_node_is_judged_at_the_time_limit(void)
{
    int port = 0, listener = local_socket(0, &port);
    REQUIRE(listener >= 0, "listener");
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    int fill[4], filled = 0;
    for (int i = 0; i < 4; i++) { /* more than a backlog of 0 holds */
        fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fill[i] >= 0 &&
            (connect(fill[i], (struct sockaddr *)&a, sizeof(a)) == 0 || errno == EINPROGRESS))
            filled++;
    }
    usleep(200000); /* let the handshakes of the queued ones complete */
    struct scr_probe_target t = {.host = "127.0.0.1", .port = port};
    REQUIRE(scr_node_probe(&t, 1, 300) == SCR_SUCCESS, "probe");
    CHECK(!t.answered && strcmp(t.why, "no answer within 300 ms") == 0,
          "queue full (%d queued): '%s'", filled, t.why);
    for (int i = 0; i < 4; i++)
        if (fill[i] >= 0) close(fill[i]);
    close(listener);
}

/* More targets than connections in flight at once: each is judged by its
 * own port, whichever slot it went through. */
static void test_long_list_is_judged_whole(void)
{
    enum { N = 700 };
    int open_port = 0, listener = local_socket(1024, &open_port);
    int shut = closed_port();
    REQUIRE(listener >= 0 && shut > 0, "local sockets");
    struct scr_probe_target *t = calloc(N, sizeof(*t));
    REQUIRE(t != NULL, "memory");
    for (int i = 0; i < N; i++) {
        t[i].host = "127.0.0.1";
        t[i].port = i % 3 == 0 ? shut : open_port;
        t[i].answered = -1;
    }
    /* keep the accept queue from filling: take connections as they come */
    pid_t child = fork();
    REQUIRE(child >= 0, "fork");
    if (child == 0) {
        for (;;) {
            int c = accept(listener, NULL, NULL);
            if (c >= 0) close(c);
        }
    }
    REQUIRE(scr_node_probe(t, N, 5000) == SCR_SUCCESS, "probe");
    int wrong = 0;
    for (int i = 0; i < N; i++)
        if (t[i].answered != (i % 3 != 0)) wrong++;
    CHECK(wrong == 0, "%d of %d targets judged wrong", wrong, N);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    free(t);
    close(listener);
}

static void test_bad_arguments_are_refused(void)
{
    struct scr_probe_target t = {.host = "127.0.0.1", .port = 0};
    CHECK(scr_node_probe(&t, 1, 1000) == SCR_ERR_ARG, "port 0");
    t.port = 70000;
    CHECK(scr_node_probe(&t, 1, 1000) == SCR_ERR_ARG, "port 70000");
    t.port = 22;
    t.host = "";
    CHECK(scr_node_probe(&t, 1, 1000) == SCR_ERR_ARG, "empty host");
    t.host = "127.0.0.1";
    CHECK(scr_node_probe(&t, 1, 0) == SCR_ERR_ARG, "no time limit");
    CHECK(scr_node_probe(&t, -1, 1000) == SCR_ERR_ARG, "negative count");
    CHECK(scr_node_probe(NULL, 0, 1000) == SCR_SUCCESS, "nothing to probe");
}

int main(void)
{
    RUN(test_listening_port_answers_and_closed_port_is_refused);
    RUN(test_silent_node_is_judged_at_the_time_limit);
    RUN(test_long_list_is_judged_whole);
    RUN(test_bad_arguments_are_refused);
    return tap_done();
}
