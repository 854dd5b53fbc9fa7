/* test_prefix_lock.c — one running job per prefix: the record's bytes, a
 * second job refused, a dead holder taken over, a relaunch of the same job,
 * a holder whose job ended (its epilog released the prefix). Other holders
 * are forked processes, since a process's own fcntl() locks never conflict. */
#include "tap.h"
#include "record_test.h"

#include "prefix_lock.h"
#include "scr_err.h"
#include "util_log.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct scr_prefix_holder holder(const char *jobid, const char *user, long pid)
{
    struct scr_prefix_holder h;
    memset(&h, 0, sizeof(h));
    snprintf(h.jobid, sizeof(h.jobid), "%s", jobid);
    snprintf(h.user, sizeof(h.user), "%s", user);
    snprintf(h.host, sizeof(h.host), "n17");
    h.pid = pid;
    h.since = 1795591577;
    return h;
}

static const char *fresh_prefix(const char *name)
{
    const char *p = tap_path(name);
    char scr[4096];
    snprintf(scr, sizeof(scr), "%s/.scr", p);
    mkdir(p, 0700);
    mkdir(scr, 0700);
    return p;
}

/* The test cannot go on: say why, as TAP does, and stop. */
static void bail(const char *why)
{
    printf("Bail out! %s\n", why);
    exit(1);
}

/* A child that takes the prefix as job jobid, signals through the pipe,
 * and holds it until killed. Returns its pid once it holds the lock. */
static pid_t hold_in_child(const char *prefix, const char *jobid)
{
    int fds[2];
    if (pipe(fds) != 0) bail("pipe");
    pid_t pid = fork();
    if (pid < 0) bail("fork");
    if (pid == 0) {
        struct scr_prefix_holder me = holder(jobid, "bob", (long)getpid());
        struct scr_prefix_lock lock;
        char note[512];
        char ok = scr_prefix_lock_take(prefix, &me, 0, &lock, note, sizeof(note)) == SCR_SUCCESS
                      ? 'y'
                      : 'n';
        if (write(fds[1], &ok, 1) != 1) _exit(2);
        for (;;) pause();
    }
    close(fds[1]);
    char ok = 'n';
    if (read(fds[0], &ok, 1) != 1 || ok != 'y') bail("the child could not take the prefix");
    close(fds[0]);
    return pid;
}

static void stop_child(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_the_record_matches_the_independent_golden(void)
{
    const char *prefix = fresh_prefix("golden");
    struct scr_prefix_holder me = holder("1234", "alice", 4711);
    struct scr_prefix_lock lock;
    char note[512], path[4096];
    REQUIRE(scr_prefix_lock_take(prefix, &me, 0, &lock, note, sizeof(note)) == SCR_SUCCESS, "take");
    CHECK(note[0] == '\0', "a fresh prefix gave a note: %s", note);
    snprintf(path, sizeof(path), "%s/.scr/lock.scr", prefix);
    check_same_bytes(path, tap_data("control/lock.scr"));
    scr_prefix_lock_drop(&lock, &me);
    CHECK(lock.fd == -1, "the lock file stays open");
    struct scr_prefix_holder h;
    CHECK(scr_prefix_lock_read(prefix, &h) == SCR_SUCCESS && h.released &&
              strcmp(h.jobid, "1234") == 0,
          "after the drop the record is not marked released");
}

static void test_a_second_job_is_refused_naming_the_holder(void)
{
    const char *prefix = fresh_prefix("busy");
    pid_t child = hold_in_child(prefix, "11");
    struct scr_prefix_holder me = holder("12", "alice", (long)getpid());
    struct scr_prefix_lock lock;
    char note[512];
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_prefix_lock_take(prefix, &me, 0, &lock, note, sizeof(note)) == SCR_ERR_STATE,
          "taken twice");
    scr_log_set_quiet(0);
    char want[128];
    snprintf(want, sizeof(want), "is in use by job 11 of bob on n17 (process %ld) since ",
             (long)child);
    CHECK(strstr(scr_last_error(), want) != NULL, "'%s'", scr_last_error());
    CHECK(lock.fd == -1, "a refused take keeps the file open");
    stop_child(child);
}

static void test_a_dead_holder_is_taken_over_with_a_note(void)
{
    const char *prefix = fresh_prefix("dead");
    pid_t child = hold_in_child(prefix, "21");
    stop_child(child); /* killed without giving the prefix back */
    struct scr_prefix_holder me = holder("22", "alice", (long)getpid());
    struct scr_prefix_lock lock;
    char note[512];
    CHECK(scr_prefix_lock_take(prefix, &me, 0, &lock, note, sizeof(note)) == SCR_SUCCESS, "%s",
          scr_last_error());
    CHECK(strstr(note, "taking over the prefix from job 21 of bob") != NULL &&
              strstr(note, "no process holds its lock any more") != NULL,
          "note: %s", note);
    CHECK(lock.kernel_lock == 1, "the lock was not taken");
    scr_prefix_lock_drop(&lock, &me);
}

static void test_a_relaunched_run_of_the_same_job_takes_the_prefix(void)
{
    const char *prefix = fresh_prefix("relaunch");
    pid_t child = hold_in_child(prefix, "31");
    struct scr_prefix_holder me = holder("31", "bob", (long)getpid());
    struct scr_prefix_lock lock;
    char note[512];
    CHECK(scr_prefix_lock_take(prefix, &me, 1, &lock, note, sizeof(note)) == SCR_SUCCESS, "%s",
          scr_last_error());
    CHECK(strstr(note, "from an earlier run of this job, job 31 of bob") != NULL, "note: %s", note);
    CHECK(lock.kernel_lock == 0, "claims a lock another process holds");
    scr_prefix_lock_drop(&lock, &me);
    stop_child(child);
}

static void test_a_job_whose_epilog_released_the_prefix_gives_way(void)
{
    const char *prefix = fresh_prefix("ended");
    pid_t child = hold_in_child(prefix, "41");
    int released = 0;
    CHECK(scr_prefix_lock_release_job(prefix, "40", &released) == SCR_SUCCESS && !released,
          "another job's release");
    CHECK(scr_prefix_lock_release_job(prefix, "41", &released) == SCR_SUCCESS && released,
          "release");
    CHECK(scr_prefix_lock_release_job(prefix, "41", &released) == SCR_SUCCESS && !released,
          "released twice");
    struct scr_prefix_holder me = holder("42", "alice", (long)getpid());
    struct scr_prefix_lock lock;
    char note[512];
    CHECK(scr_prefix_lock_take(prefix, &me, 0, &lock, note, sizeof(note)) == SCR_SUCCESS, "%s",
          scr_last_error());
    CHECK(strstr(note, "from job 41 of bob") != NULL && strstr(note, "has ended") != NULL,
          "note: %s", note);
    scr_prefix_lock_drop(&lock, &me);
    stop_child(child);
    CHECK(scr_prefix_lock_release_job(tap_path("no-such-prefix"), "41", &released) == SCR_SUCCESS &&
              !released,
          "a prefix without a lock file");
}

static void test_a_damaged_record_under_a_held_lock_is_refused(void)
{
    const char *prefix = fresh_prefix("damaged");
    pid_t child = hold_in_child(prefix, "51");
    char path[4096];
    snprintf(path, sizeof(path), "%s/.scr/lock.scr", prefix);
    FILE *f = fopen(path, "r+");
    REQUIRE(f != NULL, "open");
    fseek(f, 30, SEEK_SET);
    fputc('#', f);
    fclose(f); /* this process held no lock on it */
    struct scr_prefix_holder me = holder("52", "alice", (long)getpid());
    struct scr_prefix_lock lock;
    char note[512];
    scr_log_set_quiet(1);
    CHECK(scr_prefix_lock_take(prefix, &me, 0, &lock, note, sizeof(note)) == SCR_ERR_STATE,
          "taken");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "whose record is damaged") != NULL, "'%s'", scr_last_error());
    stop_child(child);
}

int main(void)
{
    RUN(test_the_record_matches_the_independent_golden);
    RUN(test_a_second_job_is_refused_naming_the_holder);
    RUN(test_a_dead_holder_is_taken_over_with_a_note);
    RUN(test_a_relaunched_run_of_the_same_job_takes_the_prefix);
    RUN(test_a_job_whose_epilog_released_the_prefix_gives_way);
    RUN(test_a_damaged_record_under_a_held_lock_is_refused);
    return tap_done();
}
