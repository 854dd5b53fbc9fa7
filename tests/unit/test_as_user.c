/* test_as_user.c — the plugin's work on a user's behalf: done in a child
 * that became the user, its message brought back, and a child that takes
 * longer than its time limit killed. Needs root (to change identity). */
#include "tap.h"

#include "spank_as_user.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int say_who(void *arg, char *msg, size_t len)
{
    (void)arg;
    snprintf(msg, len, "uid %lu gid %lu", (unsigned long)getuid(), (unsigned long)getgid());
    return 0;
}

static int hang(void *arg, char *msg, size_t len)
{
    (void)arg;
    (void)msg;
    (void)len;
    for (;;) pause();
    return 0;
}

static int fail(void *arg, char *msg, size_t len)
{
    snprintf(msg, len, "%s", (const char *)arg);
    return -1;
}

static struct scr_identity nobody;

static void test_the_work_runs_as_the_user_and_its_message_comes_back(void)
{
    char msg[256];
    CHECK(scr_spank_as_user_within(&nobody, 30, say_who, NULL, msg, sizeof(msg)) == 0, "failed: %s",
          msg);
    CHECK(strcmp(msg, "uid 65534 gid 65534") == 0, "the child said '%s'", msg);
    CHECK(getuid() == 0, "the parent changed identity");
}

static void test_a_failure_and_its_reason_come_back(void)
{
    char msg[256];
    CHECK(scr_spank_as_user(&nobody, fail, "the prefix is gone", msg, sizeof(msg)) == -1,
          "reported success");
    CHECK(strcmp(msg, "the prefix is gone") == 0, "message '%s'", msg);
}

static void test_a_child_past_its_time_limit_is_killed(void)
{
    char msg[256];
    CHECK(scr_spank_as_user_within(&nobody, 1, hang, NULL, msg, sizeof(msg)) == -1,
          "reported success");
    CHECK(strcmp(msg, "killed after 1 seconds, its time limit") == 0, "message '%s'", msg);
}

int main(void)
{
    char why[256];
    if (geteuid() != 0 || scr_spank_user_lookup(65534, 65534, &nobody, why, sizeof(why)) != 0) {
        printf("1..0 # SKIP needs root and the user nobody (uid 65534)\n");
        return 0;
    }
    RUN(test_the_work_runs_as_the_user_and_its_message_comes_back);
    RUN(test_a_failure_and_its_reason_come_back);
    RUN(test_a_child_past_its_time_limit_is_killed);
    return tap_done();
}
