/* record_test.h — what the unit tests of the record modules share.
 *
 * The records are checked against golden files under tests/data/, written by
 * an independent writer (tests/tools/kvtree_ref.py). check_same_bytes()
 * compares a file a module wrote with its golden file; write_edited_golden()
 * makes a damaged copy of a golden file for a reader to refuse, and
 * check_refused() checks that the reader, called through quiet_read(),
 * refused it the way the modules promise (SCR_ERR_FORMAT, a message naming
 * the file and what was wrong). lock_is_free() asks another process whether
 * a file's lock has been released.
 *
 * Like tap.h, everything here is static, for one test program at a time. */
#ifndef SCR_TESTS_RECORD_TEST_H
#define SCR_TESTS_RECORD_TEST_H

#include "tap.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <fcntl.h>
#include <sys/wait.h>

/* Record a failure unless the file at ours_path holds exactly the bytes of
 * gold_path; the message names both files and the first byte that differs. */
static void check_same_bytes(const char *ours_path, const char *gold_path) __attribute__((unused));
static void check_same_bytes(const char *ours_path, const char *gold_path)
{
    void *ours = NULL, *gold = NULL;
    size_t ours_len = 0, gold_len = 0;
    CHECK(scr_read_file(ours_path, 1 << 20, &ours, &ours_len) == SCR_SUCCESS, "read %s", ours_path);
    CHECK(scr_read_file(gold_path, 1 << 20, &gold, &gold_len) == SCR_SUCCESS, "read %s", gold_path);
    CHECK(ours_len == gold_len, "%s has %zu bytes, golden %s has %zu", ours_path, ours_len,
          gold_path, gold_len);
    for (size_t i = 0; ours && gold && i < ours_len && i < gold_len; i++) {
        if (((unsigned char *)ours)[i] != ((unsigned char *)gold)[i]) {
            CHECK(0, "%s differs from %s first at byte %zu", ours_path, gold_path, i);
            break;
        }
    }
    free(ours);
    free(gold);
}

/* Read tests/data/<golden> as a plain tree, change it with edit (when not
 * NULL) and write it to the scratch file name. Returns that file's path
 * (tap_path), or NULL after recording a failure. */
static const char *write_edited_golden(const char *golden, const char *name,
                                       void (*edit)(scr_kvtree *)) __attribute__((unused));
static const char *write_edited_golden(const char *golden, const char *name,
                                       void (*edit)(scr_kvtree *))
{
    const char *path = tap_path(name);
    scr_kvtree *raw = scr_kvtree_new();
    int rc = raw ? scr_kvtree_read_file(tap_data(golden), raw) : SCR_ERR_NOMEM;
    CHECK(rc == SCR_SUCCESS, "read golden %s", golden);
    if (rc == SCR_SUCCESS) {
        if (edit) edit(raw);
        rc = scr_kvtree_write_file(path, raw);
        CHECK(rc == SCR_SUCCESS, "write %s", name);
    }
    scr_kvtree_delete(raw);
    return rc == SCR_SUCCESS ? path : NULL;
}

/* read(path, tree) with logging silenced and the last error cleared first,
 * so that scr_last_error() afterwards is the message of this read only. */
static int quiet_read(int (*read)(const char *, scr_kvtree *), const char *path, scr_kvtree *tree)
    __attribute__((unused));
static int quiet_read(int (*read)(const char *, scr_kvtree *), const char *path, scr_kvtree *tree)
{
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = read(path, tree);
    scr_log_set_quiet(0);
    return rc;
}

/* Record a failure unless the last error message holds want; name labels
 * the case in the message. */
static void check_error_has(const char *name, const char *want) __attribute__((unused));
static void check_error_has(const char *name, const char *want)
{
    CHECK(strstr(scr_last_error(), want) != NULL, "%s: '%s' not in '%s'", name, want,
          scr_last_error());
}

/* Record a failure unless a read of path was refused as damaged input: rc is
 * SCR_ERR_FORMAT and the last error names path and holds want. */
static void check_refused(const char *name, int rc, const char *path, const char *want)
    __attribute__((unused));
static void check_refused(const char *name, int rc, const char *path, const char *want)
{
    CHECK(rc == SCR_ERR_FORMAT, "%s: rc %d", name, rc);
    CHECK(strstr(scr_last_error(), path) != NULL, "%s: file not named in '%s'", name,
          scr_last_error());
    check_error_has(name, want);
}

/* Can another process take a write lock on path right now? */
static int lock_is_free(const char *path) __attribute__((unused));
static int lock_is_free(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(path, O_RDWR);
        struct flock fl;
        memset(&fl, 0, sizeof(fl));
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        _exit(fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif
