/* util_padfile.c — reads and writes on a zero-padded concatenation of files,
 * and the list of files behind one. */
#include "util_padfile.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OFFSET ((uint64_t)INT64_MAX)

static const char *name_of(const scr_padfile_part *part)
{
    return part->path ? part->path : "(unnamed file)";
}

int scr_padfile_size(const scr_padfile_part *parts, size_t count, uint64_t *out_size)
{
    if ((parts == NULL && count > 0) || out_size == NULL) {
        scr_err("logical file: size asked without a list of files");
        return SCR_ERR_ARG;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        if (parts[i].size > MAX_OFFSET - total) {
            scr_err("logical file: sizes add up past 2^63 bytes at %s (%llu bytes)",
                    name_of(&parts[i]), (unsigned long long)parts[i].size);
            return SCR_ERR_ARG;
        }
        if (parts[i].size > 0 && parts[i].fd < 0) {
            scr_err("logical file: %s has %llu bytes but no open descriptor", name_of(&parts[i]),
                    (unsigned long long)parts[i].size);
            return SCR_ERR_ARG;
        }
        total += parts[i].size;
    }
    *out_size = total;
    return SCR_SUCCESS;
}

/* Common checks of read and write; gives the length of the real data. */
static int check_range(const scr_padfile_part *parts, size_t count, uint64_t offset,
                       const void *buf, size_t len, uint64_t *out_total)
{
    if (buf == NULL && len > 0) {
        scr_err("logical file: no buffer for %zu bytes", len);
        return SCR_ERR_ARG;
    }
    if (offset > MAX_OFFSET || (uint64_t)len > MAX_OFFSET - offset) {
        scr_err("logical file: range of %zu bytes at offset %llu is past 2^63 bytes", len,
                (unsigned long long)offset);
        return SCR_ERR_ARG;
    }
    return scr_padfile_size(parts, count, out_total);
}

static int pread_full(const scr_padfile_part *part, char *buf, size_t len, uint64_t at)
{
    return scr_pread_full(part->fd, buf, len, at, name_of(part));
}

static int pwrite_full(const scr_padfile_part *part, const char *buf, size_t len, uint64_t at)
{
    return scr_pwrite_full(part->fd, buf, len, at, name_of(part));
}

/* Does part, which begins at logical offset start, hold any of
 * [offset, end)? If so, [*from, *to) is that piece in logical offsets. */
static int piece_of(const scr_padfile_part *part, uint64_t start, uint64_t offset, uint64_t end,
                    uint64_t *from, uint64_t *to)
{
    if (part->size == 0 || start >= end || start + part->size <= offset) return 0;
    *from = offset > start ? offset : start;
    *to = end < start + part->size ? end : start + part->size;
    return 1;
}

int scr_padfile_read(const scr_padfile_part *parts, size_t count, uint64_t offset, void *buf,
                     size_t len)
{
    uint64_t total;
    int rc = check_range(parts, count, offset, buf, len, &total);
    if (rc != SCR_SUCCESS) return rc;
    uint64_t start = 0, from, to;
    for (size_t i = 0; i < count; start += parts[i].size, i++) {
        if (!piece_of(&parts[i], start, offset, offset + len, &from, &to)) continue;
        rc =
            pread_full(&parts[i], (char *)buf + (from - offset), (size_t)(to - from), from - start);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (offset + len > total) {
        uint64_t pad_from = offset > total ? offset : total;
        memset((char *)buf + (pad_from - offset), 0, (size_t)(offset + len - pad_from));
    }
    return SCR_SUCCESS;
}

int scr_padfile_write(const scr_padfile_part *parts, size_t count, uint64_t offset, const void *buf,
                      size_t len)
{
    uint64_t total;
    int rc = check_range(parts, count, offset, buf, len, &total);
    if (rc != SCR_SUCCESS) return rc;

    /* refuse before writing anything, so a bad buffer leaves the files alone */
    if (offset + len > total) {
        const unsigned char *b = buf;
        uint64_t pad_from = offset > total ? offset : total;
        for (uint64_t at = pad_from; at < offset + len; at++) {
            if (b[at - offset] != 0) {
                const char *last = count > 0 ? name_of(&parts[count - 1]) : "(no file)";
                scr_err("logical file ending with %s: non-zero byte 0x%02x at logical offset "
                        "%llu, in the padding past the %llu bytes of real data",
                        last, b[at - offset], (unsigned long long)at, (unsigned long long)total);
                return SCR_ERR_FORMAT;
            }
        }
    }
    uint64_t start = 0, from, to;
    for (size_t i = 0; i < count; start += parts[i].size, i++) {
        if (!piece_of(&parts[i], start, offset, offset + len, &from, &to)) continue;
        rc = pwrite_full(&parts[i], (const char *)buf + (from - offset), (size_t)(to - from),
                         from - start);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* --- the list of files ------------------------------------------------------------ */

int scr_padset_init(struct scr_padset *set, int n)
{
    size_t room = (size_t)(n > 0 ? n : 1);
    memset(set, 0, sizeof(*set));
    set->paths = calloc(room, sizeof(char *));
    set->parts = calloc(room, sizeof(scr_padfile_part));
    if (set->paths == NULL || set->parts == NULL) {
        scr_err("out of memory for a list of %d files", n);
        scr_padset_close(set);
        return SCR_ERR_NOMEM;
    }
    for (size_t i = 0; i < room; i++) set->parts[i].fd = -1;
    set->room = n > 0 ? n : 0;
    return SCR_SUCCESS;
}

int scr_padset_add(struct scr_padset *set, const char *path, uint64_t size)
{
    if (set->count >= set->room) {
        scr_err("%s: a list of %d files has no room for another", path, set->room);
        return SCR_ERR_ARG;
    }
    char *copy = strdup(path);
    if (copy == NULL) {
        scr_err("out of memory listing %s", path);
        return SCR_ERR_NOMEM;
    }
    int i = set->count++;
    set->paths[i] = copy;
    set->parts[i].path = copy;
    set->parts[i].size = size;
    set->total += size;
    return SCR_SUCCESS;
}

/* The directory that will hold path. */
static int make_parent(const char *path)
{
    char *dir = NULL;
    int rc = scr_path_dirname(path, &dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0700);
    free(dir);
    return rc;
}

int scr_padset_open(struct scr_padset *set, int flags)
{
    for (int i = 0; i < set->count; i++) {
        if ((flags & O_CREAT) != 0) {
            int rc = make_parent(set->paths[i]);
            if (rc != SCR_SUCCESS) return rc;
        }
        int rc = scr_open_regular(set->paths[i], flags, 0600, &set->parts[i].fd);
        if (rc != SCR_SUCCESS) {
            set->parts[i].fd = -1;
            if (rc == SCR_ERR_NOTFOUND)
                scr_err("cannot open %s: %s", set->paths[i], strerror(ENOENT));
            return SCR_ERR_IO;
        }
    }
    return SCR_SUCCESS;
}

int scr_padset_truncate(const struct scr_padset *set)
{
    for (int i = 0; i < set->count; i++) {
        int rc = scr_truncate_fd(set->parts[i].fd, set->parts[i].size, set->paths[i]);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_padset_sync(const struct scr_padset *set)
{
    for (int i = 0; i < set->count; i++) {
        if (set->parts[i].fd < 0) continue;
        int rc = scr_fsync_fd(set->parts[i].fd, set->paths[i]);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

void scr_padset_release(struct scr_padset *set)
{
    for (int i = 0; set->parts && i < set->count; i++) {
        if (set->parts[i].fd >= 0) close(set->parts[i].fd);
        set->parts[i].fd = -1;
    }
}

void scr_padset_close(struct scr_padset *set)
{
    for (int i = 0; i < set->count; i++) {
        if (set->parts && set->parts[i].fd >= 0) close(set->parts[i].fd);
        if (set->paths) free(set->paths[i]);
    }
    free(set->paths);
    free(set->parts);
    memset(set, 0, sizeof(*set));
}
