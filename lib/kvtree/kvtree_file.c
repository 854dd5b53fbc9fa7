/* kvtree_file.c — hash files: header, CRC, atomic writes and fcntl locking. */
#include "kvtree_file.h"
#include "kvtree_pack.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put_be(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) {
        p[i] = (unsigned char)v;
        v >>= 8;
    }
}

static uint64_t get_be(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | p[i];
    return v;
}

static void put_header(unsigned char *buf, size_t total)
{
    put_be(buf + 0, SCR_KVTREE_FILE_MAGIC, 4);
    put_be(buf + 4, SCR_KVTREE_FILE_TYPE, 2);
    put_be(buf + 6, SCR_KVTREE_FILE_VERSION, 2);
    put_be(buf + 8, total, 8);
    put_be(buf + 16, SCR_KVTREE_FILE_FLAG_CRC32, 4);
}

/* A buffer for an image of packed bytes: header filled, CRC left to seal_image. */
static unsigned char *new_image(size_t packed, size_t *out_total)
{
    size_t total = SCR_KVTREE_FILE_HEADER_SIZE + packed + 4;
    unsigned char *buf = malloc(total);
    if (buf == NULL) {
        scr_err("kvtree: out of memory for a file image of %zu bytes", total);
        return NULL;
    }
    put_header(buf, total);
    *out_total = total;
    return buf;
}

static void seal_image(unsigned char *buf, size_t total)
{
    put_be(buf + total - 4, scr_crc32(0, buf, total - 4), 4);
}

int scr_kvtree_file_image(const scr_kvtree *tree, void **out_buf, size_t *out_len)
{
    size_t packed = scr_kvtree_pack_size(tree), total = 0;
    unsigned char *buf = new_image(packed, &total);
    if (buf == NULL) return SCR_ERR_NOMEM;
    if (scr_kvtree_pack(buf + SCR_KVTREE_FILE_HEADER_SIZE, packed, tree) != packed) {
        free(buf);
        scr_err("kvtree: packing a tree gave an unexpected size");
        return SCR_FAILURE;
    }
    seal_image(buf, total);
    *out_buf = buf;
    *out_len = total;
    return SCR_SUCCESS;
}

int scr_kvtree_file_image_of(const char *const *keys, const scr_kvtree *const *values, size_t n,
                             int canonical, void **out_buf, size_t *out_len)
{
    size_t packed = 4, total = 0;
    for (size_t i = 0; i < n; i++) packed += strlen(keys[i]) + 1 + scr_kvtree_pack_size(values[i]);
    unsigned char *buf = new_image(packed, &total);
    if (buf == NULL) return SCR_ERR_NOMEM;
    unsigned char *p = buf + SCR_KVTREE_FILE_HEADER_SIZE, *end = p + packed;
    put_be(p, n, 4);
    p += 4;
    int rc = SCR_SUCCESS;
    for (size_t i = 0; rc == SCR_SUCCESS && i < n; i++) {
        size_t klen = strlen(keys[i]) + 1, vlen = 0;
        memcpy(p, keys[i], klen);
        p += klen;
        if (canonical) {
            rc = scr_kvtree_pack_canonical(p, (size_t)(end - p), values[i], &vlen);
        } else {
            vlen = scr_kvtree_pack(p, (size_t)(end - p), values[i]);
            if (vlen == 0) rc = SCR_ERR_ARG;
        }
        p += vlen;
    }
    if (rc == SCR_SUCCESS && p != end) rc = SCR_ERR_ARG;
    if (rc != SCR_SUCCESS) {
        free(buf);
        if (rc != SCR_ERR_NOMEM) scr_err("kvtree: packing a tree gave an unexpected size");
        return rc == SCR_ERR_NOMEM ? rc : SCR_FAILURE;
    }
    seal_image(buf, total);
    *out_buf = buf;
    *out_len = total;
    return SCR_SUCCESS;
}

void scr_kvtree_file_begin(scr_strbuf *b)
{
    (void)scr_strbuf_append_space(b, SCR_KVTREE_FILE_HEADER_SIZE); /* a failure sticks */
}

int scr_kvtree_file_finish(scr_strbuf *b)
{
    if (scr_strbuf_append_space(b, 4) == NULL) return SCR_ERR_NOMEM;
    put_header((unsigned char *)b->buf, b->len);
    seal_image((unsigned char *)b->buf, b->len);
    return SCR_SUCCESS;
}

/* The header of the len-byte hash file image buf is one this build reads and
 * its size field is len; its flags in *out_flags. Says what is wrong
 * (naming origin) and fails with SCR_ERR_FORMAT otherwise. */
static int check_header(const unsigned char *buf, size_t len, const char *origin,
                        uint32_t *out_flags)
{
    if (len == 0) {
        scr_err("%s: empty file (0 bytes): a hash file is never empty, so this one is damaged",
                origin);
        return SCR_ERR_FORMAT;
    }
    if (len < SCR_KVTREE_FILE_HEADER_SIZE) {
        scr_err("%s: truncated hash file: %zu bytes, shorter than the %d-byte header", origin, len,
                SCR_KVTREE_FILE_HEADER_SIZE);
        return SCR_ERR_FORMAT;
    }
    uint32_t magic = (uint32_t)get_be(buf, 4);
    if (magic != SCR_KVTREE_FILE_MAGIC) {
        scr_err("%s: not a hash file: magic number 0x%08x, expected 0x%08x", origin, magic,
                SCR_KVTREE_FILE_MAGIC);
        return SCR_ERR_FORMAT;
    }
    unsigned type = (unsigned)get_be(buf + 4, 2);
    unsigned version = (unsigned)get_be(buf + 6, 2);
    if (type != SCR_KVTREE_FILE_TYPE) {
        scr_err("%s: unknown file type %u (a hash file has type %d)", origin, type,
                SCR_KVTREE_FILE_TYPE);
        return SCR_ERR_FORMAT;
    }
    if (version != SCR_KVTREE_FILE_VERSION) {
        scr_err("%s: unsupported hash file version %u (this build reads version %d)", origin,
                version, SCR_KVTREE_FILE_VERSION);
        return SCR_ERR_FORMAT;
    }
    uint64_t size = get_be(buf + 8, 8);
    if (size != len) {
        scr_err("%s: size field says %llu bytes but the file has %zu (%s)", origin,
                (unsigned long long)size, len, size > len ? "truncated" : "trailing bytes");
        return SCR_ERR_FORMAT;
    }
    uint32_t flags = (uint32_t)get_be(buf + 16, 4);
    if (flags & ~SCR_KVTREE_FILE_FLAG_CRC32) {
        scr_err("%s: unknown flags 0x%08x in hash file header", origin, flags);
        return SCR_ERR_FORMAT;
    }
    *out_flags = flags;
    return SCR_SUCCESS;
}

/* Where the hash data of the image ends (before its CRC32 when flags has
 * one) in *out_data_end; fails with SCR_ERR_FORMAT when that CRC32 does not
 * match the contents. */
static int check_crc(const unsigned char *buf, size_t len, uint32_t flags, const char *origin,
                     size_t *out_data_end)
{
    *out_data_end = len;
    if (flags & SCR_KVTREE_FILE_FLAG_CRC32) {
        if (len < SCR_KVTREE_FILE_HEADER_SIZE + 4) {
            scr_err("%s: truncated hash file: no room for its CRC32", origin);
            return SCR_ERR_FORMAT;
        }
        size_t data_end = len - 4;
        uint32_t stored = (uint32_t)get_be(buf + data_end, 4);
        uint32_t computed = scr_crc32(0, buf, data_end);
        if (stored != computed) {
            scr_err("%s: CRC32 mismatch: file says 0x%08x, contents give 0x%08x (file is damaged)",
                    origin, stored, computed);
            return SCR_ERR_FORMAT;
        }
        *out_data_end = data_end;
    }
    return SCR_SUCCESS;
}

int scr_kvtree_parse_image(const void *image, size_t len, scr_kvtree *tree, const char *origin)
{
    const unsigned char *buf = image;
    uint32_t flags = 0;
    size_t data_end = len;
    int rc = check_header(buf, len, origin, &flags);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_crc(buf, len, flags, origin, &data_end);
    if (rc != SCR_SUCCESS) return rc;
    size_t used = 0;
    size_t data_len = data_end - SCR_KVTREE_FILE_HEADER_SIZE;
    scr_kvtree *fresh = scr_kvtree_new();
    if (fresh == NULL) return SCR_ERR_NOMEM;
    rc = scr_kvtree_unpack(buf + SCR_KVTREE_FILE_HEADER_SIZE, data_len, fresh, &used, origin);
    if (rc == SCR_SUCCESS && used != data_len) {
        scr_err("%s: %zu unexpected bytes after the hash data", origin, data_len - used);
        rc = SCR_ERR_FORMAT;
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(fresh);
        return rc;
    }
    return scr_kvtree_absorb(tree, fresh);
}

int scr_kvtree_write_file(const char *path, const scr_kvtree *tree)
{
    void *buf;
    size_t len;
    int rc = scr_kvtree_file_image(tree, &buf, &len);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_write_atomic(path, buf, len);
    free(buf);
    return rc;
}

int scr_kvtree_read_file(const char *path, scr_kvtree *tree)
{
    void *buf;
    size_t len;
    if (tree == NULL) return SCR_ERR_ARG;
    int rc = scr_read_file(path, SCR_KVTREE_FILE_MAX_BYTES, &buf, &len);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_parse_image(buf, len, tree, path);
    free(buf);
    return rc;
}

/* Parse what fd holds; an empty file is as damaged as any other short one
 * (files are created with an empty tree's image, never empty). */
static int read_locked_fd(int fd, const char *path, scr_kvtree *tree)
{
    void *buf;
    size_t len;
    int rc = scr_read_fd(fd, path, SCR_KVTREE_FILE_MAX_BYTES, &buf, &len);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_parse_image(buf, len, tree, path);
    free(buf);
    return rc;
}

static int lock_fd(int fd, short type, const char *path)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    while (fcntl(fd, F_SETLKW, &fl) != 0) {
        if (errno == EINTR) continue;
        scr_err("fcntl lock of %s failed: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

/* After waiting for a lock, does fd still name the file at path? A writer
 * may have replaced the file meanwhile; then the lock protects nothing. */
static int still_current(int fd, const char *path)
{
    struct stat a, b;
    if (fstat(fd, &a) != 0 || lstat(path, &b) != 0) return 0;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Open path with flags, lock it with type, retrying while it gets replaced. */
static int open_locked(const char *path, int flags, short type, int *out_fd)
{
    for (;;) {
        int fd;
        int rc = scr_open_regular(path, flags, 0666, &fd);
        if (rc != SCR_SUCCESS) return rc;
        rc = lock_fd(fd, type, path);
        if (rc != SCR_SUCCESS) {
            close(fd);
            return rc;
        }
        if (still_current(fd, path)) {
            *out_fd = fd;
            return SCR_SUCCESS;
        }
        close(fd); /* closing drops the lock; try the new file */
    }
}

int scr_kvtree_read_with_lock(const char *path, scr_kvtree *tree)
{
    int fd;
    if (tree == NULL) return SCR_ERR_ARG;
    int rc = open_locked(path, O_RDONLY, F_RDLCK, &fd);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS;
    if (rc != SCR_SUCCESS) return rc;
    rc = read_locked_fd(fd, path, tree);
    close(fd);
    return rc;
}

/* Create path holding an empty tree, unless it exists. */
static int create_empty(const char *path)
{
    void *image = NULL;
    size_t len = 0;
    int created = 0;
    scr_kvtree *empty = scr_kvtree_new();
    int rc = empty ? scr_kvtree_file_image(empty, &image, &len) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_write_new(path, image, len, &created);
    free(image);
    scr_kvtree_delete(empty);
    return rc;
}

/* Lock the existing file path exclusively, creating it (with an empty
 * tree) when missing; a file removed meanwhile is created again. */
static int open_locked_creating(const char *path, int *out_fd)
{
    for (;;) {
        int rc = open_locked(path, O_RDWR, F_WRLCK, out_fd);
        if (rc != SCR_ERR_NOTFOUND) return rc;
        rc = create_empty(path);
        if (rc != SCR_SUCCESS) return rc;
    }
}

int scr_kvtree_lock_open_read(const char *path, int *out_fd, scr_kvtree *tree)
{
    int fd;
    if (tree == NULL || out_fd == NULL) return SCR_ERR_ARG;
    int rc = open_locked_creating(path, &fd);
    if (rc != SCR_SUCCESS) return rc;
    rc = read_locked_fd(fd, path, tree);
    if (rc != SCR_SUCCESS) {
        close(fd);
        return rc;
    }
    *out_fd = fd;
    return SCR_SUCCESS;
}

int scr_kvtree_lock_open_image(const char *path, int *out_fd, void **out_buf, size_t *out_len)
{
    int fd;
    if (path == NULL || out_fd == NULL || out_buf == NULL || out_len == NULL) return SCR_ERR_ARG;
    int rc = open_locked(path, O_RDWR, F_WRLCK, &fd);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_read_fd(fd, path, SCR_KVTREE_FILE_MAX_BYTES, out_buf, out_len);
    if (rc != SCR_SUCCESS) {
        close(fd);
        return rc;
    }
    *out_fd = fd;
    return SCR_SUCCESS;
}

int scr_kvtree_write_close_unlock(const char *path, int *fd, const scr_kvtree *tree)
{
    int rc = scr_kvtree_write_file(path, tree);
    scr_kvtree_close_unlock(fd);
    return rc;
}

void scr_kvtree_close_unlock(int *fd)
{
    if (fd == NULL || *fd < 0) return;
    close(*fd); /* closing releases every fcntl lock this process holds on it */
    *fd = -1;
}

int scr_kvtree_lock_unlink(const char *path, int *out_removed)
{
    int fd;
    if (path == NULL || out_removed == NULL) return SCR_ERR_ARG;
    *out_removed = 0;
    int rc = open_locked(path, O_RDWR, F_WRLCK, &fd);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS;
    if (rc != SCR_SUCCESS) return rc;
    if (unlink(path) != 0 && errno != ENOENT) {
        scr_err("cannot remove %s: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    } else {
        *out_removed = 1;
    }
    close(fd);
    return rc;
}
