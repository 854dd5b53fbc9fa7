/* util_lines.h — read a file that only grows (an event log) line by line.
 *
 * A log can be larger than memory, sparse, or damaged: the reader holds one
 * buffer of at most max_line bytes, never more, whatever the file holds.
 * It reads from a start offset up to an end offset fixed when it starts
 * (what a writer appends later is left for the next reader), skips holes
 * (SEEK_DATA: a hole's zeros are no line, and reading them would take
 * as long as the file is big) and any other zero bytes between lines, and
 * hands out each line without its newline; zero bytes end a line too, as
 * incomplete (a crash left the file extended but not written).
 * A line longer than max_line is handed out cut, flagged, and the rest of
 * it skipped. Not thread-safe; one reader per caller. */
#ifndef SCR_UTIL_LINES_H
#define SCR_UTIL_LINES_H

#include <stddef.h>
#include <stdint.h>

struct scr_lines {
    int fd;           /* not owned: the caller opened it and closes it */
    const char *path; /* for messages */
    uint64_t next;    /* file offset of the next byte to read */
    uint64_t end;     /* the reader stops here */
    char *buf;        /* cap + 1 bytes */
    size_t max_line;
    size_t cap;       /* a whole line and the byte that ends it */
    size_t have, pos; /* bytes in buf, and the first not yet handed out */
    uint64_t skipped; /* bytes of holes skipped so far */
    int skip_pending; /* the line handed out last was cut */
};

/* One line handed out: text (NUL-terminated, without its newline) stays
 * valid until the next call. */
struct scr_line {
    const char *text;
    size_t len;
    uint64_t offset; /* of its first byte in the file */
    int complete;    /* ended by a newline (not by zeros or the end offset) */
    int cut;         /* longer than max_line: text is its beginning */
};

/* Start reading fd (a regular file) from start to end. Allocates the
 * buffer: pair with scr_lines_free. */
int scr_lines_init(struct scr_lines *l, int fd, const char *path, uint64_t start, uint64_t end,
                   size_t max_line);

/* The next line into *out: SCR_SUCCESS with *out_more = 1, or *out_more = 0
 * at the end offset; SCR_ERR_IO (logged) when a read fails. */
int scr_lines_next(struct scr_lines *l, struct scr_line *out, int *out_more);

/* The file offset where the next line starts: what has been handed out
 * (and the holes skipped) lies below it. */
uint64_t scr_lines_offset(const struct scr_lines *l);

void scr_lines_free(struct scr_lines *l);

#endif
