/* test_kvtree_file.c — hash files: golden bytes, damage, atomic writes, locks. */
#include "tap.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include "kvtree_sample.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int read_bytes(const char *path, void **buf, size_t *len)
{
    return scr_read_file(path, 1 << 20, buf, len);
}

static void test_written_file_matches_independent_golden(void)
{
    scr_kvtree *t = sample_tree();
    const char *path = tap_path("sample.scr");
    REQUIRE(scr_kvtree_write_file(path, t) == SCR_SUCCESS, "write");
    void *ours, *gold;
    size_t ours_len, gold_len;
    REQUIRE(read_bytes(path, &ours, &ours_len) == SCR_SUCCESS, "read ours");
    REQUIRE(read_bytes(tap_data("kvtree/sample.scr"), &gold, &gold_len) == SCR_SUCCESS,
            "read golden %s", tap_data("kvtree/sample.scr"));
    CHECK(ours_len == gold_len, "length %zu, golden %zu", ours_len, gold_len);
    for (size_t i = 0; i < ours_len && i < gold_len; i++) {
        if (((unsigned char *)ours)[i] != ((unsigned char *)gold)[i]) {
            CHECK(0, "first difference at byte %zu", i);
            break;
        }
    }
    free(ours);
    free(gold);
    scr_kvtree_delete(t);
}

static void test_golden_files_with_and_without_crc_read_back(void)
{
    scr_kvtree *want = sample_tree();
    const char *names[] = {"kvtree/sample.scr", "kvtree/sample-nocrc.scr"};
    for (int i = 0; i < 2; i++) {
        scr_kvtree *t = scr_kvtree_new();
        CHECK(scr_kvtree_read_file(tap_data(names[i]), t) == SCR_SUCCESS, "read %s", names[i]);
        CHECK(scr_kvtree_equal(t, want), "%s differs from the expected tree", names[i]);
        int size;
        CHECK(scr_kvtree_util_get_int(
                  scr_kvtree_get_kv(scr_kvtree_get_kv(t, "RANK", "1"), "FILE", "foo_1.txt"), "SIZE",
                  &size) == SCR_SUCCESS &&
                  size == 3072,
              "%s: value of RANK 1 FILE foo_1.txt SIZE", names[i]);
        scr_kvtree_delete(t);
    }
    scr_kvtree_delete(want);
}

/* Write a damaged copy of the golden file, read it, expect the fault named. */
static void expect_rejected(const char *name, unsigned char *bytes, size_t len, const char *fault)
{
    const char *path = tap_path(name);
    REQUIRE(scr_write_atomic(path, bytes, len) == SCR_SUCCESS, "write %s", name);
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_set_kv(t, "KEEP", "me");
    scr_clear_last_error();
    int rc = scr_kvtree_read_file(path, t);
    CHECK(rc == SCR_ERR_FORMAT, "%s: rc %d", name, rc);
    CHECK(strstr(scr_last_error(), path) != NULL, "%s: file not named in '%s'", name,
          scr_last_error());
    CHECK(strstr(scr_last_error(), fault) != NULL, "%s: '%s' not in '%s'", name, fault,
          scr_last_error());
    CHECK(scr_kvtree_size(t) == 1, "%s: caller's tree changed", name);
    scr_kvtree_delete(t);
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static void test_each_kind_of_file_damage_is_named(void)
{
    void *gold;
    size_t len;
    REQUIRE(read_bytes(tap_data("kvtree/sample.scr"), &gold, &len) == SCR_SUCCESS, "golden");
    unsigned char *b = malloc(len + 16);
    scr_log_set_quiet(1);

    memcpy(b, gold, len);
    expect_rejected("short.scr", b, 12, "shorter than the 20-byte header");
    expect_rejected("truncated.scr", b, len - 9, "truncated");
    memcpy(b, gold, len);
    b[0] ^= 0xff;
    expect_rejected("magic.scr", b, len, "magic number");
    memcpy(b, gold, len);
    b[5] = 7;
    expect_rejected("type.scr", b, len, "file type 7");
    memcpy(b, gold, len);
    b[7] = 2;
    expect_rejected("version.scr", b, len, "version 2");
    memcpy(b, gold, len);
    memset(b + len, 0, 8);
    expect_rejected("trailing.scr", b, len + 8, "trailing bytes");
    memcpy(b, gold, len);
    b[40] ^= 0x01;
    expect_rejected("crc.scr", b, len, "CRC32 mismatch");
    memcpy(b, gold, len);
    b[19] |= 0x8;
    expect_rejected("flags.scr", b, len, "unknown flags");

    /* without a CRC, damage inside the packed data must still be caught */
    void *nocrc;
    size_t nlen;
    REQUIRE(read_bytes(tap_data("kvtree/sample-nocrc.scr"), &nocrc, &nlen) == SCR_SUCCESS, "nocrc");
    memcpy(b, nocrc, nlen);
    put32(b + 20, 0x7fffffff);
    expect_rejected("count.scr", b, nlen, "exceeds");
    memcpy(b, nocrc, nlen);
    memset(b + 24, 'x', nlen - 24);
    expect_rejected("nonul.scr", b, nlen, "without terminating NUL");
    memcpy(b, nocrc, nlen);
    put32(b + 20, 1); /* only the first element: rest is left over */
    expect_rejected("leftover.scr", b, nlen, "unexpected bytes after the hash data");

    scr_log_set_quiet(0);
    free(nocrc);
    free(b);
    free(gold);
}

static void test_missing_file_is_not_found_and_not_logged(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_clear_last_error();
    CHECK(scr_kvtree_read_file(tap_path("does-not-exist.scr"), t) == SCR_ERR_NOTFOUND, "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_kvtree_delete(t);
}

static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp.") != NULL) n++;
    if (d) closedir(d);
    return n;
}

static void test_write_replaces_atomically_and_keeps_mode(void)
{
    const char *path = tap_path("atomic.scr");
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_util_set_int(t, "N", 1);
    REQUIRE(scr_kvtree_write_file(path, t) == SCR_SUCCESS, "first write");
    REQUIRE(chmod(path, 0640) == 0, "chmod");
    struct stat before, after;
    stat(path, &before);
    scr_kvtree_util_set_int(t, "N", 2);
    REQUIRE(scr_kvtree_write_file(path, t) == SCR_SUCCESS, "second write");
    stat(path, &after);
    CHECK(before.st_ino != after.st_ino, "a new inode replaced the old file");
    CHECK((after.st_mode & 07777) == 0640, "mode %o", after.st_mode & 07777);
    CHECK(count_temp_files(tap_tmpdir()) == 0, "temporary files left behind");
    scr_kvtree *r = scr_kvtree_new();
    int n = 0;
    CHECK(scr_kvtree_read_file(path, r) == SCR_SUCCESS &&
              scr_kvtree_util_get_int(r, "N", &n) == SCR_SUCCESS && n == 2,
          "read back %d", n);
    scr_kvtree_delete(r);

    scr_log_set_quiet(1);
    scr_clear_last_error();
    const char *bad = tap_path("no-such-dir/x.scr");
    CHECK(scr_kvtree_write_file(bad, t) == SCR_ERR_IO, "write into a missing directory fails");
    CHECK(strstr(scr_last_error(), "no-such-dir") != NULL, "message '%s'", scr_last_error());
    scr_log_set_quiet(0);
    scr_kvtree_delete(t);
}

/* Each child adds 1 to COUNT `rounds` times under the lock. */
static void increment_loop(const char *path, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        int fd = -1, count = 0;
        scr_kvtree *t = scr_kvtree_new();
        if (scr_kvtree_lock_open_read(path, &fd, t) != SCR_SUCCESS) _exit(2);
        if (scr_kvtree_util_get_int(t, "COUNT", &count) == SCR_ERR_TYPE) _exit(3);
        scr_kvtree_util_set_int(t, "COUNT", count + 1);
        if (scr_kvtree_write_close_unlock(path, &fd, t) != SCR_SUCCESS || fd != -1) _exit(4);
        scr_kvtree_delete(t);
    }
    _exit(0);
}

static void test_locked_updates_from_several_processes_lose_nothing(void)
{
    const char *path = tap_path("counter.scr");
    enum { PROCS = 4, ROUNDS = 150 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        REQUIRE(pids[p] >= 0, "fork");
        if (pids[p] == 0) increment_loop(path, ROUNDS);
    }
    for (int p = 0; p < PROCS; p++) {
        int status;
        waitpid(pids[p], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d status %d", p, status);
    }
    scr_kvtree *t = scr_kvtree_new();
    int count = -1;
    CHECK(scr_kvtree_read_with_lock(path, t) == SCR_SUCCESS, "read with lock");
    CHECK(scr_kvtree_util_get_int(t, "COUNT", &count) == SCR_SUCCESS && count == PROCS * ROUNDS,
          "COUNT is %d, expected %d", count, PROCS * ROUNDS);
    scr_kvtree_delete(t);
}

static void test_read_with_lock_of_missing_file_is_empty(void)
{
    scr_kvtree *t = scr_kvtree_new();
    CHECK(scr_kvtree_read_with_lock(tap_path("absent.scr"), t) == SCR_SUCCESS, "rc");
    CHECK(scr_kvtree_size(t) == 0, "empty");
    scr_kvtree_delete(t);
}

/* An empty file of that name, in the scratch directory. */
static const char *empty_file(const char *name)
{
    const char *path = tap_path(name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
    return path;
}

/* The last error names path and calls the file empty. */
static int said_empty(const char *path)
{
    char want[8400];
    snprintf(want, sizeof(want), "%s: empty file (0 bytes)", path);
    return strstr(scr_last_error(), want) != NULL;
}

static void test_an_empty_file_is_damaged_for_every_reader(void)
{
    const char *path = empty_file("empty.scr");
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    scr_log_set_quiet(1);
    CHECK(scr_kvtree_read_file(path, t) == SCR_ERR_FORMAT && said_empty(path), "plain read: '%s'",
          scr_last_error());
    scr_clear_last_error();
    CHECK(scr_kvtree_read_with_lock(path, t) == SCR_ERR_FORMAT && said_empty(path),
          "shared lock: '%s'", scr_last_error());
    scr_clear_last_error();
    CHECK(scr_kvtree_lock_open_read(path, &fd, t) == SCR_ERR_FORMAT && said_empty(path),
          "exclusive lock: '%s'", scr_last_error());
    scr_log_set_quiet(0);
    CHECK(fd == -1, "a refused file keeps its lock");
    CHECK(scr_kvtree_size(t) == 0, "a refused file added keys");
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 0, "the damaged file was changed");
    scr_kvtree_delete(t);
}

static void test_taking_the_lock_of_a_missing_file_creates_it_holding_an_empty_tree(void)
{
    const char *path = tap_path("created.scr");
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    REQUIRE(scr_kvtree_lock_open_read(path, &fd, t) == SCR_SUCCESS && fd >= 0, "lock");
    /* while the lock is held, a plain read already finds a complete file */
    scr_kvtree *seen = scr_kvtree_new();
    CHECK(scr_kvtree_read_file(path, seen) == SCR_SUCCESS && scr_kvtree_size(seen) == 0,
          "the new file does not read as an empty tree: '%s'", scr_last_error());
    scr_kvtree_close_unlock(&fd);
    CHECK(scr_kvtree_read_with_lock(path, seen) == SCR_SUCCESS && scr_kvtree_size(seen) == 0,
          "an abandoned new file does not read as an empty tree");
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == SCR_KVTREE_FILE_HEADER_SIZE + 4 + 4,
          "the new file has %lld bytes, an empty tree's image has %d", (long long)st.st_size,
          SCR_KVTREE_FILE_HEADER_SIZE + 8);
    scr_kvtree_delete(seen);
    scr_kvtree_delete(t);
}

static void test_taking_the_lock_in_a_missing_directory_is_not_found_quietly(void)
{
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    scr_clear_last_error();
    CHECK(scr_kvtree_lock_open_read(tap_path("no-such-dir/x.scr"), &fd, t) == SCR_ERR_NOTFOUND,
          "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_kvtree_delete(t);
}

static void test_lock_open_image_gives_the_bytes_of_a_damaged_file_under_the_lock(void)
{
    const char *path = tap_path("garbage.scr");
    static const char garbage[] = "not a hash file";
    int created = 0, fd = -1;
    REQUIRE(scr_write_new(path, garbage, sizeof(garbage), &created) == SCR_SUCCESS && created,
            "write");
    void *buf = NULL;
    size_t len = 0;
    REQUIRE(scr_kvtree_lock_open_image(path, &fd, &buf, &len) == SCR_SUCCESS && fd >= 0, "lock");
    CHECK(len == sizeof(garbage) && memcmp(buf, garbage, len) == 0, "the bytes differ (%zu)", len);
    /* another process cannot take the lock meanwhile */
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        int cfd = open(path, O_RDWR);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        _exit(cfd >= 0 && fcntl(cfd, F_SETLK, &fl) != 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "another process took the lock");
    scr_kvtree_close_unlock(&fd);
    free(buf);
    scr_clear_last_error();
    CHECK(scr_kvtree_lock_open_image(tap_path("absent-image.scr"), &fd, &buf, &len) ==
                  SCR_ERR_NOTFOUND &&
              scr_last_error()[0] == '\0',
          "a missing file: '%s'", scr_last_error());
}

static void test_write_new_creates_a_file_complete_and_never_replaces_one(void)
{
    const char *path = tap_path("new.bin");
    int created = 0;
    REQUIRE(scr_write_new(path, "first", 5, &created) == SCR_SUCCESS && created == 1, "create");
    CHECK(scr_write_new(path, "second", 6, &created) == SCR_SUCCESS && created == 0,
          "second create");
    void *buf = NULL;
    size_t len = 0;
    REQUIRE(read_bytes(path, &buf, &len) == SCR_SUCCESS, "read");
    CHECK(len == 5 && memcmp(buf, "first", 5) == 0, "the file was replaced");
    free(buf);
    DIR *d = opendir(tap_tmpdir());
    int temps = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        temps += strstr(e->d_name, "new.bin.tmp") != NULL;
    if (d) closedir(d);
    CHECK(temps == 0, "%d temporary files left", temps);
    scr_clear_last_error();
    CHECK(scr_write_new(tap_path("absent/new.bin"), "x", 1, &created) == SCR_ERR_NOTFOUND &&
              created == 0 && scr_last_error()[0] == '\0',
          "missing directory: '%s'", scr_last_error());
}

int main(void)
{
    RUN(test_written_file_matches_independent_golden);
    RUN(test_golden_files_with_and_without_crc_read_back);
    RUN(test_each_kind_of_file_damage_is_named);
    RUN(test_missing_file_is_not_found_and_not_logged);
    RUN(test_write_replaces_atomically_and_keeps_mode);
    RUN(test_locked_updates_from_several_processes_lose_nothing);
    RUN(test_read_with_lock_of_missing_file_is_empty);
    RUN(test_an_empty_file_is_damaged_for_every_reader);
    RUN(test_taking_the_lock_of_a_missing_file_creates_it_holding_an_empty_tree);
    RUN(test_taking_the_lock_in_a_missing_directory_is_not_found_quietly);
    RUN(test_lock_open_image_gives_the_bytes_of_a_damaged_file_under_the_lock);
    RUN(test_write_new_creates_a_file_complete_and_never_replaces_one);
    return tap_done();
}
