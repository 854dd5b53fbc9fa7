/* util_crc_parts.c — per-file CRC-32 from runs of a logical file's bytes. */
#include "util_crc_parts.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_log.h"

#include <stdlib.h>

/* Bytes [start, end) of one file, seen in order, with their CRC. */
struct run {
    uint64_t start, end;
    uint32_t crc;
};

struct file_runs {
    uint64_t size;
    struct run *runs;
    size_t n, room;
    int failed; /* SCR_SUCCESS, or why the CRC cannot be known */
};

struct scr_crc_parts {
    size_t count;
    struct file_runs *files;
};

scr_crc_parts *scr_crc_parts_new(const scr_padfile_part *parts, size_t count)
{
    scr_crc_parts *cp = calloc(1, sizeof(*cp));
    if (cp != NULL) cp->files = calloc(count > 0 ? count : 1, sizeof(*cp->files));
    if (cp == NULL || cp->files == NULL) {
        free(cp);
        scr_err("out of memory tracking the CRCs of %zu files", count);
        return NULL;
    }
    cp->count = count;
    for (size_t i = 0; i < count; i++) cp->files[i].size = parts[i].size;
    return cp;
}

void scr_crc_parts_free(scr_crc_parts *cp)
{
    if (cp == NULL) return;
    for (size_t i = 0; i < cp->count; i++) free(cp->files[i].runs);
    free(cp->files);
    free(cp);
}

/* Bytes [at, at + len) of file f, at file offset at. */
static void add_to_file(struct file_runs *f, uint64_t at, const unsigned char *buf, size_t len)
{
    if (f->failed != SCR_SUCCESS) return;
    for (size_t r = 0; r < f->n; r++) {
        if (at < f->runs[r].end && at + len > f->runs[r].start) {
            f->failed = SCR_ERR_STATE; /* seen before */
            return;
        }
    }
    for (size_t r = 0; r < f->n; r++) {
        struct run *run = &f->runs[r];
        if (run->end == at) {
            run->crc = scr_crc32(run->crc, buf, len);
            run->end += len;
            return;
        }
    }
    if (f->n == f->room) {
        size_t room = f->room ? 2 * f->room : 4;
        struct run *more = realloc(f->runs, room * sizeof(*more));
        if (more == NULL) {
            f->failed = SCR_ERR_NOMEM;
            return;
        }
        f->runs = more;
        f->room = room;
    }
    f->runs[f->n++] = (struct run){at, at + len, scr_crc32(0, buf, len)};
}

void scr_crc_parts_add(scr_crc_parts *cp, uint64_t offset, const void *buf, size_t len)
{
    if (cp == NULL || len == 0) return;
    uint64_t start = 0, end = offset + len;
    for (size_t i = 0; i < cp->count && start < end; start += cp->files[i].size, i++) {
        struct file_runs *f = &cp->files[i];
        if (f->size == 0 || start + f->size <= offset) continue;
        uint64_t from = offset > start ? offset : start;
        uint64_t to = end < start + f->size ? end : start + f->size;
        add_to_file(f, from - start, (const unsigned char *)buf + (from - offset),
                    (size_t)(to - from));
    }
}

int scr_crc_parts_get(const scr_crc_parts *cp, size_t i, uint32_t *out_crc)
{
    if (cp == NULL || i >= cp->count || out_crc == NULL) return SCR_ERR_ARG;
    const struct file_runs *f = &cp->files[i];
    if (f->failed != SCR_SUCCESS) return f->failed;
    /* join the runs in file order; runs never overlap, so each start is unique */
    uint32_t crc = 0;
    uint64_t at = 0;
    while (at < f->size) {
        const struct run *next = NULL;
        for (size_t r = 0; r < f->n && next == NULL; r++)
            if (f->runs[r].start == at && f->runs[r].end > at) next = &f->runs[r];
        if (next == NULL || next->end > f->size) return SCR_ERR_STATE;
        crc = at == 0 ? next->crc : scr_crc32_combine(crc, next->crc, next->end - next->start);
        at = next->end;
    }
    *out_crc = crc;
    return SCR_SUCCESS;
}
