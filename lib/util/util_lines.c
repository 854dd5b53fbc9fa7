/* util_lines.c — a growing file read line by line in bounded memory. */
#define _GNU_SOURCE /* SEEK_DATA */
#include "util_lines.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int scr_lines_init(struct scr_lines *l, int fd, const char *path, uint64_t start, uint64_t end,
                   size_t max_line)
{
    memset(l, 0, sizeof(*l));
    l->fd = fd;
    l->path = path;
    l->next = start;
    l->end = end > start ? end : start;
    l->max_line = max_line > 0 ? max_line : 1;
    /* a whole line and the byte that ends it, and a spare for the NUL of a
     * line the end offset ends */
    l->cap = l->max_line + 1;
    l->buf = malloc(l->cap + 1);
    if (l->buf == NULL) {
        scr_err("out of memory reading %s", path);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

uint64_t scr_lines_offset(const struct scr_lines *l)
{
    return l->next - (uint64_t)(l->have - l->pos);
}

void scr_lines_free(struct scr_lines *l)
{
    free(l->buf);
    l->buf = NULL;
}

/* Move the next read past a hole at l->next, if one starts there. */
static void skip_hole(struct scr_lines *l)
{
    off_t data = lseek(l->fd, (off_t)l->next, SEEK_DATA);
    if (data < 0) {
        /* ENXIO: nothing but hole up to the end of the file */
        if (errno == ENXIO) {
            l->skipped += l->end - l->next;
            l->next = l->end;
        }
        return; /* other errors: the file system cannot tell; read on */
    }
    uint64_t to = (uint64_t)data < l->end ? (uint64_t)data : l->end;
    if (to > l->next) {
        l->skipped += to - l->next;
        l->next = to;
    }
}

/* Keep what is not yet handed out at the front of buf and read more
 * behind it. *out_got is what came in (0 at the end offset). */
static int fill(struct scr_lines *l, size_t *out_got)
{
    *out_got = 0;
    if (l->pos > 0) {
        memmove(l->buf, l->buf + l->pos, l->have - l->pos);
        l->have -= l->pos;
        l->pos = 0;
    }
    if (l->have == 0) skip_hole(l);
    if (l->next >= l->end || l->have >= l->cap) return SCR_SUCCESS;
    size_t room = l->cap - l->have;
    if ((uint64_t)room > l->end - l->next) room = (size_t)(l->end - l->next);
    size_t got = 0;
    int rc = scr_pread_upto(l->fd, l->buf + l->have, room, l->next, &got, l->path);
    if (rc != SCR_SUCCESS) return rc;
    if (got == 0) l->end = l->next; /* the file is shorter than it was: stop there */
    l->have += got;
    l->next += got;
    *out_got = got;
    return SCR_SUCCESS;
}

/* Drop bytes up to and including the next newline, reading as needed: the
 * rest of a cut line. */
static int skip_rest_of_line(struct scr_lines *l)
{
    for (;;) {
        char *nl = memchr(l->buf + l->pos, '\n', l->have - l->pos);
        if (nl != NULL) {
            l->pos = (size_t)(nl - l->buf) + 1;
            return SCR_SUCCESS;
        }
        l->pos = l->have;
        size_t got;
        int rc = fill(l, &got);
        if (rc != SCR_SUCCESS || got == 0) return rc;
    }
}

/* Drop zero bytes before the next line: a hole, or what a crash left of a
 * file extended but never written. No line holds a zero byte. */
static int skip_zeros(struct scr_lines *l)
{
    for (;;) {
        while (l->pos < l->have && l->buf[l->pos] == '\0') {
            l->pos++;
            l->skipped++;
        }
        if (l->pos < l->have || l->next >= l->end) return SCR_SUCCESS;
        size_t got;
        int rc = fill(l, &got); /* an empty buffer: the hole is skipped, not read */
        if (rc != SCR_SUCCESS) return rc;
    }
}

/* Where the line at start ends within avail bytes: its newline, or a zero
 * byte that cut it short; NULL when neither is there yet. */
static char *line_end(char *start, size_t avail)
{
    char *nl = memchr(start, '\n', avail);
    char *zero = memchr(start, '\0', nl != NULL ? (size_t)(nl - start) : avail);
    return zero != NULL ? zero : nl;
}

int scr_lines_next(struct scr_lines *l, struct scr_line *out, int *out_more)
{
    memset(out, 0, sizeof(*out));
    *out_more = 0;
    int rc = SCR_SUCCESS;
    if (l->skip_pending) {
        l->skip_pending = 0;
        rc = skip_rest_of_line(l);
    }
    if (rc == SCR_SUCCESS) rc = skip_zeros(l);
    while (rc == SCR_SUCCESS) {
        char *start = l->buf + l->pos;
        size_t avail = l->have - l->pos;
        char *stop = line_end(start, avail);
        int at_end = l->next >= l->end;
        if (stop == NULL && !at_end && avail < l->cap) {
            size_t got;
            rc = fill(l, &got);
            continue;
        }
        if (stop == NULL && avail == 0) return SCR_SUCCESS; /* at the end, nothing left */
        size_t len = stop != NULL ? (size_t)(stop - start) : avail;
        out->cut = stop == NULL && !at_end; /* a whole buffer without an end */
        if (out->cut) len = l->max_line;
        out->offset = scr_lines_offset(l);
        out->len = len;
        out->complete = stop != NULL && *stop == '\n';
        /* a newline is consumed with its line; zeros are skipped next time */
        l->pos += len + (out->complete ? 1 : 0);
        start[len] = '\0';
        out->text = start;
        *out_more = 1;
        /* the rest of a cut line goes at the next call, once the caller is
         * done with the text handed out now */
        l->skip_pending = out->cut;
        return SCR_SUCCESS;
    }
    return rc;
}
