/* test_util_io.c — scr_remove_tree removes a whole tree without following
 * symbolic links, treats a missing tree as removed, and says when something
 * stays. */
#include "tap.h"

#include "scr_err.h"
#include "util_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void write_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        if (write(fd, "x", 1) != 1) perror(path);
        close(fd);
    }
}

static void test_remove_tree_removes_nested_files_and_directories(void)
{
    char dir[4200], path[4300];
    snprintf(dir, sizeof(dir), "%s/tree", tap_tmpdir());
    snprintf(path, sizeof(path), "%s/a/b/c", dir);
    REQUIRE(scr_mkdir_p(path, 0700) == SCR_SUCCESS, "mkdir -p %s", path);
    snprintf(path, sizeof(path), "%s/a/b/c/file", dir);
    write_file(path);
    snprintf(path, sizeof(path), "%s/top", dir);
    write_file(path);
    CHECK(scr_remove_tree(dir) == SCR_SUCCESS, "removing %s failed", dir);
    struct stat st;
    CHECK(stat(dir, &st) != 0 && errno == ENOENT, "%s is still there", dir);
}

static void test_remove_tree_does_not_follow_symbolic_links(void)
{
    char dir[4200], outside[4200], file[4300], link[4300];
    snprintf(dir, sizeof(dir), "%s/linked", tap_tmpdir());
    snprintf(outside, sizeof(outside), "%s/outside", tap_tmpdir());
    REQUIRE(scr_mkdir_p(dir, 0700) == SCR_SUCCESS && scr_mkdir_p(outside, 0700) == SCR_SUCCESS,
            "mkdir");
    snprintf(file, sizeof(file), "%s/keep", outside);
    write_file(file);
    snprintf(link, sizeof(link), "%s/to-outside", dir);
    REQUIRE(symlink(outside, link) == 0, "symlink %s", link);
    CHECK(scr_remove_tree(dir) == SCR_SUCCESS, "removing %s failed", dir);
    struct stat st;
    CHECK(stat(file, &st) == 0, "%s, behind a link, was removed", file);
}

static void test_remove_tree_of_nothing_succeeds(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/never-made", tap_tmpdir());
    CHECK(scr_remove_tree(dir) == SCR_SUCCESS, "a missing tree is not removed");
}

/* In base (writable by this process): a directory whose entry cannot be
 * removed since its parent is read-only; 0 when scr_remove_tree said so and
 * removed it once the parent was writable again. */
static int locked_entry_is_reported(const char *base)
{
    char dir[4200], locked[4300], file[4400];
    snprintf(dir, sizeof(dir), "%s/locked-tree", base);
    snprintf(locked, sizeof(locked), "%s/locked", dir);
    snprintf(file, sizeof(file), "%s/file", locked);
    if (scr_mkdir_p(locked, 0700) != SCR_SUCCESS) return 1;
    write_file(file);
    if (chmod(locked, 0500) != 0) return 2;
    if (scr_remove_tree(dir) != SCR_ERR_IO) return 3;
    if (chmod(locked, 0700) != 0) return 4;
    return scr_remove_tree(dir) == SCR_SUCCESS ? 0 : 5;
}

static void test_remove_tree_says_what_stays(void)
{
    if (geteuid() != 0) {
        CHECK(locked_entry_is_reported(tap_tmpdir()) == 0, "a tree that stayed was not reported");
        return;
    }
    /* root ignores the read-only parent: the same as an ordinary user */
    char base[] = "/tmp/scr-test-util-io.XXXXXX";
    REQUIRE(mkdtemp(base) != NULL && chmod(base, 0777) == 0, "a directory for user nobody");
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
        _exit(locked_entry_is_reported(base));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "as user nobody: step %d failed",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK(scr_remove_tree(base) == SCR_SUCCESS, "removing %s", base);
}

int main(void)
{
    RUN(test_remove_tree_removes_nested_files_and_directories);
    RUN(test_remove_tree_does_not_follow_symbolic_links);
    RUN(test_remove_tree_of_nothing_succeeds);
    RUN(test_remove_tree_says_what_stays);
    return tap_done();
}
