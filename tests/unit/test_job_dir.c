/* test_job_dir.c — a job's directory <base>/<user>/scr.<jobid>: the path
 * rule, creation that keeps it private and refuses what it did not make, and
 * removal that follows no symbolic link. */
#include "tap.h"

#include "job_dir.h"
#include "scr_err.h"
#include "util_log.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OTHER_UID 65534 /* nobody: someone who is neither root nor the caller */

static void test_path_expands_the_base_and_appends_user_and_job(void)
{
    char *p = NULL;
    CHECK(scr_job_dir_path("SCR_CACHE_BASE", "/ssd/%N", "n3", "ann", "42", &p) == SCR_SUCCESS &&
              strcmp(p, "/ssd/n3/ann/scr.42") == 0,
          "got %s", p ? p : "(null)");
    free(p);
    p = NULL;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_job_dir_path("SCR_CACHE_BASE", "cache", "n3", "ann", "42", &p) == SCR_ERR_ARG,
          "relative base accepted");
    CHECK(strstr(scr_last_error(), "SCR_CACHE_BASE=cache must be an absolute path") != NULL, "'%s'",
          scr_last_error());
    scr_log_set_quiet(0);
    free(p);
}

static void test_path_refuses_names_that_are_not_one_level(void)
{
    static const char *const bad[] = {"..", "../x", "a/b", "", "."};
    scr_log_set_quiet(1);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *p = NULL;
        scr_clear_last_error();
        CHECK(scr_job_dir_path("SCR_CACHE_BASE", "/ssd/%N", bad[i], "ann", "42", &p) ==
                      SCR_ERR_ARG &&
                  strstr(scr_last_error(), "node name") != NULL,
              "node '%s' gave %s: '%s'", bad[i], p ? p : "(null)", scr_last_error());
        free(p);
        p = NULL;
        CHECK(scr_job_dir_path("SCR_CACHE_BASE", "/ssd", "n3", bad[i], "42", &p) == SCR_ERR_ARG &&
                  strstr(scr_last_error(), "user name") != NULL,
              "user '%s' gave %s: '%s'", bad[i], p ? p : "(null)", scr_last_error());
        free(p);
        p = NULL;
        CHECK(scr_job_dir_path("SCR_CACHE_BASE", "/ssd", "n3", "ann", bad[i], &p) == SCR_ERR_ARG &&
                  strstr(scr_last_error(), "job id") != NULL,
              "job id '%s' gave %s: '%s'", bad[i], p ? p : "(null)", scr_last_error());
        free(p);
    }
    scr_log_set_quiet(0);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode : 0;
}

static void test_create_makes_private_directories_below_a_new_base(void)
{
    const char *dir = tap_path("base/sub/ann/scr.7");
    REQUIRE(scr_job_dir_create(dir) == SCR_SUCCESS, "create: %s", scr_last_error());
    CHECK(S_ISDIR(mode_of(dir)) && (mode_of(dir) & 0777) == 0700, "job dir mode %o", mode_of(dir));
    CHECK((mode_of(tap_path("base/sub/ann")) & 0777) == 0700, "user dir mode %o",
          mode_of(tap_path("base/sub/ann")));
    CHECK((mode_of(tap_path("base/sub")) & 0777) == 0755, "base mode %o",
          mode_of(tap_path("base/sub")));
    CHECK(scr_job_dir_create(dir) == SCR_SUCCESS, "an existing private directory is reused");
}

static void test_create_tightens_an_open_directory_of_ours(void)
{
    const char *dir = tap_path("open/ann/scr.8");
    REQUIRE(mkdir(tap_path("open"), 0755) == 0 && mkdir(tap_path("open/ann"), 0777) == 0 &&
                mkdir(dir, 0777) == 0,
            "set-up");
    chmod(tap_path("open/ann"), 0777);
    chmod(dir, 0775);
    CHECK(scr_job_dir_create(dir) == SCR_SUCCESS, "create: %s", scr_last_error());
    CHECK((mode_of(dir) & 0777) == 0700 && (mode_of(tap_path("open/ann")) & 0777) == 0700,
          "modes %o %o", mode_of(dir), mode_of(tap_path("open/ann")));
}

static void expect_refused(const char *dir, const char *why)
{
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_job_dir_create(dir) == SCR_ERR_IO, "%s accepted", dir);
    CHECK(strstr(scr_last_error(), why) != NULL, "%s: '%s'", dir, scr_last_error());
    scr_log_set_quiet(0);
}

static void test_create_refuses_a_symbolic_link_at_either_level(void)
{
    REQUIRE(mkdir(tap_path("target"), 0700) == 0 && mkdir(tap_path("links"), 0755) == 0, "set-up");
    REQUIRE(symlink(tap_path("target"), tap_path("links/ann")) == 0, "symlink");
    expect_refused(tap_path("links/ann/scr.9"), "links/ann: it is a symbolic link");
    REQUIRE(mkdir(tap_path("links/bob"), 0700) == 0 &&
                symlink(tap_path("target"), tap_path("links/bob/scr.9")) == 0,
            "symlink");
    expect_refused(tap_path("links/bob/scr.9"), "bob/scr.9: it is a symbolic link");
    CHECK(access(tap_path("target/scr.9"), F_OK) != 0, "something was made through the link");
}

static void test_create_refuses_a_file_in_the_way(void)
{
    REQUIRE(mkdir(tap_path("files"), 0755) == 0 && mkdir(tap_path("files/ann"), 0700) == 0,
            "set-up");
    FILE *f = fopen(tap_path("files/ann/scr.3"), "w");
    REQUIRE(f != NULL && fclose(f) == 0, "file");
    expect_refused(tap_path("files/ann/scr.3"), "it is not a directory");
}

static void test_create_refuses_a_directory_of_another_user(void)
{
    REQUIRE(mkdir(tap_path("other"), 0755) == 0 && mkdir(tap_path("other/ann"), 0755) == 0,
            "set-up");
    REQUIRE(chown(tap_path("other/ann"), 65534, 65534) == 0, "chown");
    expect_refused(tap_path("other/ann/scr.4"), "belongs to uid 65534");
}

/* Whether directory path holds nothing (or does not exist). */
static int is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL) return 1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n == 0;
}

/* A directory others share, as /tmp is: root's, anyone may add to it, the
 * sticky bit keeps each entry its owner's. */
static void make_shared(const char *path)
{
    REQUIRE(mkdir(path, 0755) == 0 && chmod(path, 01777) == 0, "shared directory %s", path);
}

static void test_base_refuses_a_link_planted_by_another_user(void)
{
    make_shared(tap_path("shared"));
    REQUIRE(mkdir(tap_path("theirs"), 0755) == 0 &&
                chown(tap_path("theirs"), OTHER_UID, OTHER_UID) == 0,
            "set-up");
    REQUIRE(symlink(tap_path("theirs"), tap_path("shared/node0")) == 0 &&
                lchown(tap_path("shared/node0"), OTHER_UID, OTHER_UID) == 0,
            "the other user's link");
    expect_refused(tap_path("shared/node0/ann/scr.1"),
                   "shared/node0: it is a symbolic link owned by uid 65534");
    CHECK(is_empty(tap_path("theirs")), "something was made in the other user's directory");
}

static void test_base_refuses_a_directory_of_another_user_at_any_level(void)
{
    make_shared(tap_path("shared2"));
    REQUIRE(mkdir(tap_path("shared2/node0"), 0755) == 0 &&
                chown(tap_path("shared2/node0"), OTHER_UID, OTHER_UID) == 0,
            "the other user's directory");
    expect_refused(tap_path("shared2/node0/ann/scr.1"),
                   "shared2/node0: it is a directory owned by uid 65534");
    expect_refused(tap_path("shared2/node0/deeper/ann/scr.1"),
                   "shared2/node0: it is a directory owned by uid 65534");
    CHECK(is_empty(tap_path("shared2/node0")), "something was made in the other user's directory");
}

static void test_base_follows_a_link_root_made(void)
{
    REQUIRE(mkdir(tap_path("real"), 0755) == 0 && mkdir(tap_path("site"), 0755) == 0 &&
                symlink(tap_path("real"), tap_path("site/ssd")) == 0,
            "set-up");
    CHECK(scr_job_dir_create(tap_path("site/ssd/node0/ann/scr.2")) == SCR_SUCCESS, "create: %s",
          scr_last_error());
    CHECK(S_ISDIR(mode_of(tap_path("real/node0/ann/scr.2"))),
          "not created where root's link leads");
}

static void test_base_refuses_a_level_anyone_may_write_without_the_sticky_bit(void)
{
    REQUIRE(mkdir(tap_path("open777"), 0755) == 0 && chmod(tap_path("open777"), 0777) == 0,
            "set-up");
    expect_refused(tap_path("open777/node0/ann/scr.3"),
                   "open777: anyone may write to it and it has no sticky bit");
    CHECK(is_empty(tap_path("open777")), "a level was made in it");
    REQUIRE(chmod(tap_path("open777"), 01777) == 0, "chmod +t");
    CHECK(scr_job_dir_create(tap_path("open777/node0/ann/scr.3")) == SCR_SUCCESS,
          "with the sticky bit: %s", scr_last_error());
}

/* In a child that became OTHER_UID: create dir and expect rc and, for a
 * failure, text in the message. The outcome is the child's exit status. */
static void expect_as_other_user(const char *dir, int want, const char *text)
{
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        if (setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0) _exit(3);
        scr_log_set_quiet(1);
        int rc = scr_job_dir_create(dir);
        if (rc != want || (text != NULL && strstr(scr_last_error(), text) == NULL)) {
            printf("# as uid %d, %s: rc %d, wanted %d; '%s'\n", OTHER_UID, dir, rc, want,
                   scr_last_error());
            fflush(stdout);
            _exit(1);
        }
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s as uid %d: status %d", dir, OTHER_UID,
          status);
}

static void test_base_as_a_plain_user_trusts_root_and_itself_only(void)
{
    REQUIRE(chmod(tap_tmpdir(), 0711) == 0, "the scratch directory reachable");
    make_shared(tap_path("pub"));
    REQUIRE(mkdir(tap_path("pub/real"), 0755) == 0 && chmod(tap_path("pub/real"), 01777) == 0 &&
                symlink(tap_path("pub/real"), tap_path("pub/byroot")) == 0,
            "set-up");
    expect_as_other_user(tap_path("pub/mine/ann/scr.4"), SCR_SUCCESS, NULL);
    expect_as_other_user(tap_path("pub/byroot/node0/ann/scr.4"), SCR_SUCCESS, NULL);
    REQUIRE(mkdir(tap_path("pub/stranger"), 0755) == 0 &&
                chown(tap_path("pub/stranger"), 12345, 12345) == 0 &&
                symlink(tap_path("pub/real"), tap_path("pub/strangelink")) == 0 &&
                lchown(tap_path("pub/strangelink"), 12345, 12345) == 0,
            "set-up");
    expect_as_other_user(tap_path("pub/stranger/ann/scr.4"), SCR_ERR_IO,
                         "it is a directory owned by uid 12345, not by root or uid 65534");
    expect_as_other_user(tap_path("pub/strangelink/ann/scr.4"), SCR_ERR_IO,
                         "it is a symbolic link owned by uid 12345, not by root or uid 65534");
    chmod(tap_tmpdir(), 0700);
}

static void write_file(const char *path)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL && fputs("x", f) >= 0 && fclose(f) == 0, "writing %s", path);
}

static void test_remove_takes_the_tree_but_not_what_links_point_to(void)
{
    char *dir = strdup(tap_path("rm/ann/scr.5")); /* tap_path reuses its buffer */
    REQUIRE(dir != NULL && scr_job_dir_create(dir) == SCR_SUCCESS, "create: %s", scr_last_error());
    REQUIRE(mkdir(tap_path("rm/ann/scr.5/scr.dataset.2"), 0700) == 0 &&
                mkdir(tap_path("outside"), 0700) == 0,
            "set-up");
    write_file(tap_path("rm/ann/scr.5/scr.dataset.2/rank_0.ckpt"));
    write_file(tap_path("rm/ann/scr.5/filemap_0.scrinfo"));
    write_file(tap_path("outside/keep"));
    REQUIRE(
        symlink(tap_path("outside"), tap_path("rm/ann/scr.5/dirlink")) == 0 &&
            symlink(tap_path("outside/keep"), tap_path("rm/ann/scr.5/scr.dataset.2/filelink")) == 0,
        "symlinks");
    int removed = 0;
    CHECK(scr_job_dir_remove(dir, &removed) == SCR_SUCCESS && removed == 1, "remove: %s",
          scr_last_error());
    CHECK(access(dir, F_OK) != 0, "%s is still there", dir);
    CHECK(access(tap_path("outside/keep"), F_OK) == 0, "a file a link pointed to was removed");
    CHECK(access(tap_path("rm/ann"), F_OK) == 0,
          "the user's directory, shared by jobs, was removed");
    removed = 1;
    CHECK(scr_job_dir_remove(dir, &removed) == SCR_SUCCESS && removed == 0,
          "a missing directory is no error");
    free(dir);
}

static void test_remove_refuses_a_job_directory_that_is_a_link(void)
{
    REQUIRE(mkdir(tap_path("rml"), 0755) == 0 && mkdir(tap_path("rml/ann"), 0700) == 0 &&
                mkdir(tap_path("elsewhere"), 0777) == 0,
            "set-up");
    write_file(tap_path("elsewhere/keep"));
    REQUIRE(symlink(tap_path("elsewhere"), tap_path("rml/ann/scr.6")) == 0, "symlink");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int removed = 0;
    CHECK(scr_job_dir_remove(tap_path("rml/ann/scr.6"), &removed) == SCR_ERR_IO && removed == 0,
          "link accepted");
    CHECK(strstr(scr_last_error(), "scr.6: it is a symbolic link") != NULL, "'%s'",
          scr_last_error());
    CHECK(scr_job_dir_check(tap_path("rml/ann/scr.6")) == SCR_ERR_IO, "the check accepts the link");
    scr_log_set_quiet(0);
    CHECK(access(tap_path("elsewhere/keep"), F_OK) == 0, "the link's target was emptied");
    CHECK(scr_job_dir_check(tap_path("rml/ann/scr.none")) == SCR_ERR_NOTFOUND,
          "a missing directory");
}

static void test_a_simulated_node_is_one_private_level_inside_the_job_directory(void)
{
    char *sim = NULL;
    CHECK(scr_job_dir_sim_path("/ssd/ann/scr.42", "node3", &sim) == SCR_SUCCESS &&
              strcmp(sim, "/ssd/ann/scr.42/sim.node3") == 0,
          "got %s", sim ? sim : "(null)");
    free(sim);
    sim = NULL;
    const char *dir = tap_path("simbase/ann/scr.5/sim.node1");
    REQUIRE(scr_job_dir_create_sim(dir) == SCR_SUCCESS, "create: %s", scr_last_error());
    CHECK(S_ISDIR(mode_of(dir)) && (mode_of(dir) & 0777) == 0700, "sim dir mode %o", mode_of(dir));
    CHECK((mode_of(tap_path("simbase/ann/scr.5")) & 0777) == 0700, "job dir mode %o",
          mode_of(tap_path("simbase/ann/scr.5")));
    CHECK(scr_job_dir_create_sim(dir) == SCR_SUCCESS, "an existing one is reused");

    /* a link where the simulated node's level goes is not followed */
    REQUIRE(mkdir(tap_path("sim-target"), 0700) == 0 &&
                symlink(tap_path("sim-target"), tap_path("simbase/ann/scr.5/sim.node2")) == 0,
            "symlink");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_job_dir_create_sim(tap_path("simbase/ann/scr.5/sim.node2")) == SCR_ERR_IO &&
              strstr(scr_last_error(), "sim.node2: it is a symbolic link") != NULL,
          "link accepted: '%s'", scr_last_error());
    scr_clear_last_error();
    CHECK(scr_job_dir_create_sim(tap_path("simbase/ann/scr.5/other")) == SCR_ERR_ARG &&
              strstr(scr_last_error(), "is not a simulated node's directory") != NULL,
          "a level without sim. accepted: '%s'", scr_last_error());
    static const char *const bad[] = {"..", "../x", "a/b", "", "."};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(scr_job_dir_sim_path("/ssd/ann/scr.42", bad[i], &sim) == SCR_ERR_ARG, "'%s' gave %s",
              bad[i], sim ? sim : "(null)");
        free(sim);
        sim = NULL;
    }
    char longname[80];
    memset(longname, 'n', 65);
    longname[65] = '\0';
    CHECK(scr_job_dir_sim_path("/ssd/ann/scr.42", longname, &sim) == SCR_ERR_ARG,
          "65 characters accepted");
    free(sim);
    scr_log_set_quiet(0);
}

int main(void)
{
    umask(022);
    RUN(test_path_expands_the_base_and_appends_user_and_job);
    RUN(test_path_refuses_names_that_are_not_one_level);
    RUN(test_create_makes_private_directories_below_a_new_base);
    RUN(test_create_tightens_an_open_directory_of_ours);
    RUN(test_create_refuses_a_symbolic_link_at_either_level);
    RUN(test_create_refuses_a_file_in_the_way);
    RUN(test_a_simulated_node_is_one_private_level_inside_the_job_directory);
    RUN(test_remove_takes_the_tree_but_not_what_links_point_to);
    RUN(test_remove_refuses_a_job_directory_that_is_a_link);
    RUN(test_base_follows_a_link_root_made);
    RUN(test_base_refuses_a_level_anyone_may_write_without_the_sticky_bit);
    if (geteuid() == 0) {
        RUN(test_create_refuses_a_directory_of_another_user);
        RUN(test_base_refuses_a_link_planted_by_another_user);
        RUN(test_base_refuses_a_directory_of_another_user_at_any_level);
        RUN(test_base_as_a_plain_user_trusts_root_and_itself_only);
    } else {
        static const char *const need_root[] = {
            "test_create_refuses_a_directory_of_another_user",
            "test_base_refuses_a_link_planted_by_another_user",
            "test_base_refuses_a_directory_of_another_user_at_any_level",
            "test_base_as_a_plain_user_trusts_root_and_itself_only"};
        for (size_t i = 0; i < sizeof(need_root) / sizeof(need_root[0]); i++)
            printf("ok %d - %s # SKIP needs root to act as another user\n", ++tap_number,
                   need_root[i]);
    }
    return tap_done();
}
