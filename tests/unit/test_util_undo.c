/* test_util_undo.c — a failed attempt takes back what it noted and nothing
 * else: the files it created, then the directories it made once they are
 * empty again, deepest first; a file or directory it did not note, or a
 * directory that still holds something, stays. */
#include "tap.h"

#include "scr_err.h"
#include "util_undo.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void write_file(const char *path)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL && fputs("x", f) >= 0 && fclose(f) == 0, "writing %s", path);
}

static void test_noted_files_and_new_directories_are_removed(void)
{
    struct scr_undo u = SCR_UNDO_INIT;
    REQUIRE(mkdir(tap_path("p"), 0755) == 0, "set-up");
    CHECK(scr_undo_note_missing_dirs(&u, tap_path("p/ckpt.2/a/b")) == SCR_SUCCESS && u.ndirs == 3,
          "%d missing directories noted, 3 expected", u.ndirs);
    REQUIRE(mkdir(tap_path("p/ckpt.2"), 0755) == 0 && mkdir(tap_path("p/ckpt.2/a"), 0755) == 0 &&
                mkdir(tap_path("p/ckpt.2/a/b"), 0755) == 0,
            "set-up");
    write_file(tap_path("p/ckpt.2/a/b/rank0.dat"));
    write_file(tap_path("p/ckpt.2/rank1.dat"));
    CHECK(scr_undo_note_file(&u, tap_path("p/ckpt.2/a/b/rank0.dat")) == SCR_SUCCESS &&
              scr_undo_note_file(&u, tap_path("p/ckpt.2/rank1.dat")) == SCR_SUCCESS,
          "noting files");
    int removed = 0;
    scr_undo_files(&u, &removed);
    scr_undo_dirs(&u);
    CHECK(removed == 2, "%d files removed, 2 expected", removed);
    CHECK(!exists(tap_path("p/ckpt.2")), "the directories the attempt made are still there");
    CHECK(exists(tap_path("p")), "the directory that was there before was removed");
    scr_undo_clear(&u);
    CHECK(u.nfiles == 0 && u.ndirs == 0 && u.files == NULL, "not cleared");
}

static void test_what_was_not_noted_stays(void)
{
    struct scr_undo u = SCR_UNDO_INIT;
    REQUIRE(mkdir(tap_path("q"), 0755) == 0 && mkdir(tap_path("q/ckpt.1"), 0755) == 0, "set-up");
    write_file(tap_path("q/ckpt.1/rank0.dat")); /* an earlier dataset's file */
    CHECK(scr_undo_note_missing_dirs(&u, tap_path("q/ckpt.1")) == SCR_SUCCESS && u.ndirs == 0,
          "an existing directory was noted");
    CHECK(scr_undo_note_missing_dirs(&u, tap_path("q/new")) == SCR_SUCCESS && u.ndirs == 1,
          "q/new not noted");
    REQUIRE(mkdir(tap_path("q/new"), 0755) == 0, "set-up");
    write_file(tap_path("q/new/someone-elses")); /* written there by someone else meanwhile */
    write_file(tap_path("q/new/mine"));
    CHECK(scr_undo_note_file(&u, tap_path("q/new/mine")) == SCR_SUCCESS, "noting");
    int removed = 0;
    scr_undo_files(&u, &removed);
    scr_undo_dirs(&u);
    CHECK(removed == 1 && !exists(tap_path("q/new/mine")), "the noted file: %d removed", removed);
    CHECK(exists(tap_path("q/ckpt.1/rank0.dat")), "a file not noted was removed");
    CHECK(exists(tap_path("q/new/someone-elses")), "a file in a noted directory was removed");
    CHECK(exists(tap_path("q/new")), "a directory that is not empty was removed");
    scr_undo_clear(&u);
}

static void test_a_file_already_gone_is_no_error(void)
{
    struct scr_undo u = SCR_UNDO_INIT;
    CHECK(scr_undo_note_file(&u, tap_path("never-written")) == SCR_SUCCESS, "noting");
    int removed = 1;
    scr_undo_files(&u, &removed);
    CHECK(removed == 0, "%d removed", removed);
    scr_undo_clear(&u);
}

int main(void)
{
    RUN(test_noted_files_and_new_directories_are_removed);
    RUN(test_what_was_not_noted_stays);
    RUN(test_a_file_already_gone_is_no_error);
    return tap_done();
}
