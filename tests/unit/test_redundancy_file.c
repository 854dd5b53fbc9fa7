/* test_redundancy_file.c — a redundancy file's header written again in place
 * once its files' CRCs are known, the data after it untouched. */
#include "tap.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "redundancy_file.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <fcntl.h>

/* An XOR-like header whose one file has a CRC of fixed width. */
static scr_kvtree *header_with_crc(uint32_t crc, int fixed)
{
    scr_kvtree *h = scr_kvtree_new();
    scr_kvtree *cur = scr_kvtree_set(h, "CURRENT", scr_kvtree_new());
    scr_kvtree_util_set_int(cur, "RANK", 3);
    scr_kvtree_util_set_int(cur, "FILES", 1);
    scr_meta *m = scr_kvtree_set_kv_int(cur, "FILE", 0);
    scr_meta_set_filename(m, "ckpt.3/rank3_f0.dat");
    scr_meta_set_filesize(m, 4000);
    if (fixed)
        scr_meta_set_crc32_fixed(m, crc);
    else
        scr_meta_set_crc32(m, crc);
    scr_kvtree_util_set_uint64(h, "CHUNK", 16);
    return h;
}

/* A file holding the header of h, then 16 data bytes 'a'..'p'. */
static int make_file(const char *path, const scr_kvtree *h, uint64_t *out_len)
{
    void *image = NULL;
    size_t len = 0;
    if (scr_kvtree_file_image(h, &image, &len) != SCR_SUCCESS) return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    char data[16];
    for (int i = 0; i < 16; i++) data[i] = (char)('a' + i);
    if (fd < 0 || scr_write_full(fd, image, len, path) != SCR_SUCCESS ||
        scr_write_full(fd, data, sizeof(data), path) != SCR_SUCCESS) {
        free(image);
        return -1;
    }
    free(image);
    *out_len = len;
    return fd;
}

static void test_a_header_with_known_crcs_replaces_the_placeholder_in_place(void)
{
    const char *path = tap_path("1_of_4_in_0.xor");
    scr_kvtree *before = header_with_crc(0, 1), *after = header_with_crc(0x738bb68fu, 1),
               *read = NULL;
    uint64_t hlen = 0, got_len = 0;
    int fd = make_file(path, before, &hlen);
    REQUIRE(fd >= 0, "cannot make %s", path);
    uint32_t crc = 0;
    CHECK(scr_redundancy_file_write_header(fd, path, after, hlen, &crc) == SCR_SUCCESS, "rewrite");
    CHECK(lseek(fd, 0, SEEK_SET) == 0, "seek"); /* the header is read from where the file stands */
    CHECK(scr_redundancy_file_read_header(fd, path, &read, &got_len) == SCR_SUCCESS, "read back");
    CHECK(got_len == hlen, "header of %llu bytes, %llu before", (unsigned long long)got_len,
          (unsigned long long)hlen);
    uint32_t file_crc = 0;
    scr_meta *m = scr_kvtree_get_kv_int(scr_kvtree_get(read, "CURRENT"), "FILE", 0);
    CHECK(scr_meta_get_crc32(m, &file_crc) == SCR_SUCCESS && file_crc == 0x738bb68fu,
          "file CRC 0x%08x", file_crc);
    char all[4096];
    size_t n = 0;
    CHECK(lseek(fd, 0, SEEK_SET) == 0 &&
              scr_read_full(fd, all, sizeof(all), &n, path) == SCR_SUCCESS,
          "read");
    CHECK(n == hlen + 16 && memcmp(all + hlen, "abcdefghijklmnop", 16) == 0,
          "the data after the header changed");
    CHECK(crc == scr_crc32(0, all, (size_t)hlen), "CRC of the header 0x%08x", crc);
    close(fd);
    scr_kvtree_delete(before);
    scr_kvtree_delete(after);
    scr_kvtree_delete(read);
}

static void test_a_header_of_another_length_is_refused_and_nothing_written(void)
{
    const char *path = tap_path("2_of_4_in_0.xor");
    scr_kvtree *before = header_with_crc(0, 1), *shorter = header_with_crc(0xab, 0);
    uint64_t hlen = 0;
    int fd = make_file(path, before, &hlen);
    REQUIRE(fd >= 0, "cannot make %s", path);
    char was[4096], now[4096];
    size_t n = (size_t)hlen + 16;
    CHECK(scr_pread_full(fd, was, n, 0, path) == SCR_SUCCESS, "read");
    uint32_t crc = 0;
    scr_log_set_quiet(1);
    CHECK(scr_redundancy_file_write_header(fd, path, shorter, hlen, &crc) == SCR_ERR_FORMAT,
          "refused");
    scr_log_set_quiet(0);
    CHECK(scr_pread_full(fd, now, n, 0, path) == SCR_SUCCESS, "read again");
    CHECK(memcmp(was, now, n) == 0, "the file changed");
    close(fd);
    scr_kvtree_delete(before);
    scr_kvtree_delete(shorter);
}

int main(void)
{
    RUN(test_a_header_with_known_crcs_replaces_the_placeholder_in_place);
    RUN(test_a_header_of_another_length_is_refused_and_nothing_written);
    return tap_done();
}
