/* util_padfile.h — several open files used as one zero-padded logical file.
 *
 * A process's files of a dataset are seen by the redundancy code as if they
 * were concatenated, in the order given, into one file whose length is the
 * sum of their sizes; beyond that length the logical file goes on as zeros
 * (the padding that makes every member of a redundancy set equally long).
 *
 * Reads and writes take an offset and a length in this logical file and use
 * pread/pwrite, so they neither need nor move a file position and several
 * threads may work on the same parts at once. Interrupted calls (EINTR) are
 * retried and short transfers continued.
 *
 * - A read returns zeros for the part of the range past the real data. A file
 *   that ends before its declared size is damaged: SCR_ERR_FORMAT, naming the
 *   file and the byte where it ended.
 * - A write stores the bytes that fall on real data. The bytes that fall on
 *   the padding must be zero: padding is zero by definition, so a non-zero
 *   byte there means the caller's data is wrong (for example a rebuild from
 *   damaged redundancy data). Such a write is refused with SCR_ERR_FORMAT
 *   before any file is touched, rather than dropped silently.
 *
 * Every failure is logged once with the file, the offset and strerror(errno).
 *
 * A scr_padset is the list behind such a logical file when the caller
 * builds it from names and sizes: it owns copies of the paths, opens every
 * file (creating its directory when asked to create it), sizes, syncs and
 * closes them. Its total is the sum of the sizes added, whatever opening
 * does: the length two ranks agreed on stays the same when a file here
 * cannot be opened. */
#ifndef SCR_UTIL_PADFILE_H
#define SCR_UTIL_PADFILE_H

#include <stddef.h>
#include <stdint.h>

/* One real file of the logical file: an open descriptor (readable for reads,
 * writable for writes), its name for messages, and the number of bytes it
 * contributes. A part of size 0 is skipped and its descriptor never used. */
typedef struct scr_padfile_part {
    int fd;
    const char *path;
    uint64_t size;
} scr_padfile_part;

/* Sum of the sizes: the length of the real data. SCR_ERR_ARG when it does
 * not fit in 63 bits (no file offset could reach it). */
int scr_padfile_size(const scr_padfile_part *parts, size_t count, uint64_t *out_size);

/* Fill buf with len bytes of the logical file starting at offset. */
int scr_padfile_read(const scr_padfile_part *parts, size_t count, uint64_t offset, void *buf,
                     size_t len);

/* Write len bytes of buf to the logical file starting at offset. */
int scr_padfile_write(const scr_padfile_part *parts, size_t count, uint64_t offset, const void *buf,
                      size_t len);

/* A list of files as one logical file; zero it (= {0}) before use. */
struct scr_padset {
    int count;               /* files added */
    int room;                /* files there is room for */
    char **paths;            /* owned copies */
    scr_padfile_part *parts; /* parts[i].path is paths[i]; fd -1 until opened */
    uint64_t total;          /* the sum of the sizes added */
};

/* Make room for n files (n may be 0). */
int scr_padset_init(struct scr_padset *set, int n);

/* Add path (copied) with size bytes, after the files added before; more
 * than the n of scr_padset_init is SCR_ERR_ARG. */
int scr_padset_add(struct scr_padset *set, const char *path, uint64_t size);

/* Open every file with flags (O_CLOEXEC added, mode 0600 when created);
 * with O_CREAT its directory is made first (mode 0700). Stops at the
 * first failure, logged; the files opened so far stay open. */
int scr_padset_open(struct scr_padset *set, int flags);

/* Give every open file its size (ftruncate), so that a file is as long as
 * recorded even where the bytes written into it are zeros. */
int scr_padset_truncate(const struct scr_padset *set);

/* fsync every open file. */
int scr_padset_sync(const struct scr_padset *set);

/* Close the files that are open and keep the list: a set whose reads are
 * done need not hold its descriptors while its owner waits on others. */
void scr_padset_release(struct scr_padset *set);

/* Close the files, free the list and zero *set. */
void scr_padset_close(struct scr_padset *set);

#endif
