/* util_padfile.c — reads and writes on a zero-padded concatenation of files. */
#include "util_padfile.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <errno.h>
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
            scr_err("logical file: %s has %llu bytes but no open descriptor",
                    name_of(&parts[i]), (unsigned long long)parts[i].size);
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

int scr_padfile_read(const scr_padfile_part *parts, size_t count, uint64_t offset,
                     void *buf, size_t len)
{
    uint64_t total;
    int rc = check_range(parts, count, offset, buf, len, &total);
    if (rc != SCR_SUCCESS) return rc;
    uint64_t start = 0, from, to;
    for (size_t i = 0; i < count; start += parts[i].size, i++) {
        if (!piece_of(&parts[i], start, offset, offset + len, &from, &to)) continue;
        rc = pread_full(&parts[i], (char *)buf + (from - offset), (size_t)(to - from), from - start);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (offset + len > total) {
        uint64_t pad_from = offset > total ? offset : total;
        memset((char *)buf + (pad_from - offset), 0, (size_t)(offset + len - pad_from));
    }
    return SCR_SUCCESS;
}

int scr_padfile_write(const scr_padfile_part *parts, size_t count, uint64_t offset,
                      const void *buf, size_t len)
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
                        last, b[at - offset], (unsigned long long)at,
                        (unsigned long long)total);
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
