/* util_strbuf.h — a growable string of bytes whose every allocation is checked.
 *
 * A scr_strbuf holds len bytes at buf, followed by a NUL once anything has been
 * added, so text built in it is a C string and bytes built in it need no copy.
 * An empty buffer owns no memory (buf is NULL). Capacity grows geometrically
 * (doubling from 64 bytes), so n appends cost O(n) in all; a size that would
 * overflow size_t is refused like a failed allocation.
 *
 * A failed allocation is logged once (util_log.h) and returned as
 * SCR_ERR_NOMEM; the buffer keeps what it held and stays failed: every later
 * append returns SCR_ERR_NOMEM without a new message, so a writer may chain
 * appends and check once at the end (scr_strbuf_status, scr_strbuf_detach).
 * Not thread-safe; the caller owns the buffer and releases it with
 * scr_strbuf_free or takes its bytes with scr_strbuf_detach. */
#ifndef SCR_UTIL_STRBUF_H
#define SCR_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct scr_strbuf {
    char *buf;  /* NULL until the first append; NUL-terminated after it */
    size_t len; /* bytes held, the NUL not counted */
    size_t cap; /* bytes allocated at buf */
    int failed; /* an allocation failed: appends are refused until reset */
} scr_strbuf;

#define SCR_STRBUF_INIT \
    {                   \
        NULL, 0, 0, 0   \
    }

void scr_strbuf_init(scr_strbuf *sb);
/* Empty the buffer but keep its memory for reuse; clears a failure. */
void scr_strbuf_reset(scr_strbuf *sb);
/* Keep the first len bytes (all of them when it holds no more), and the
 * memory: a buffer used as a stack pops what it pushed last. */
void scr_strbuf_truncate(scr_strbuf *sb, size_t len);
/* Release the memory; the buffer is empty and usable again. */
void scr_strbuf_free(scr_strbuf *sb);

/* Make room for extra more bytes (and the NUL) without adding any. */
int scr_strbuf_reserve(scr_strbuf *sb, size_t extra);
/* Append n bytes (n may be 0; bytes may hold NULs). */
int scr_strbuf_append(scr_strbuf *sb, const void *bytes, size_t n);
/* Append the C string s. */
int scr_strbuf_append_str(scr_strbuf *sb, const char *s);
/* Append printf-style text; SCR_ERR_FORMAT (logged) when fmt cannot be formatted. */
int scr_strbuf_appendf(scr_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int scr_strbuf_vappendf(scr_strbuf *sb, const char *fmt, va_list ap);
/* Append n bytes left for the caller to fill; their address, or NULL when the
 * buffer could not grow (or failed before). The address is good until the
 * next append. */
void *scr_strbuf_append_space(scr_strbuf *sb, size_t n);
/* Append what fd reads until its end, retrying EINTR. SCR_ERR_FORMAT when it
 * holds more than max_bytes, SCR_ERR_IO with errno kept when a read fails:
 * neither is logged, as only the caller knows what fd is; SCR_ERR_NOMEM is. */
int scr_strbuf_read_fd(scr_strbuf *sb, int fd, size_t max_bytes);

/* SCR_SUCCESS, or SCR_ERR_NOMEM when an append has failed. */
int scr_strbuf_status(const scr_strbuf *sb);
/* Hand the bytes to the caller (*out_buf, freed with free(); "" when empty)
 * and leave the buffer empty. out_len may be NULL. After a failure nothing is
 * handed out, the buffer is released and SCR_ERR_NOMEM returned. */
int scr_strbuf_detach(scr_strbuf *sb, char **out_buf, size_t *out_len);

#endif
