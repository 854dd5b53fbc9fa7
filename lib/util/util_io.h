/* util_io.h — file I/O that does not lose data quietly.
 *
 * Reads and writes retry on EINTR and continue after short transfers; every
 * failure is logged once with the operation, the path and strerror(errno).
 * scr_write_atomic replaces a file so that a crash at any instant leaves
 * either the old contents or the new ones, never a mixture: it writes a
 * temporary file in the same directory, fsyncs it, renames it over the
 * target and fsyncs the directory; scr_write_new creates a file the same
 * way without ever replacing one.
 *
 * Files under a prefix, cache, control or health directory belong to the
 * job's user, who may plant a symbolic link, a FIFO or a device where a
 * record is expected. scr_open_regular is how every such file is opened:
 * it never follows a symbolic link in the last component, never blocks in
 * open(2), and hands back a descriptor only for a regular file; the
 * readers below (scr_read_file, scr_read_fd) refuse anything else too. */
#ifndef SCR_UTIL_IO_H
#define SCR_UTIL_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read up to len bytes; stops early only at end of file. *out_got receives
 * the bytes read. path is used in messages. */
int scr_read_full(int fd, void *buf, size_t len, size_t *out_got, const char *path);

/* Write all len bytes or fail. */
int scr_write_full(int fd, const void *buf, size_t len, const char *path);

/* The same at a file offset (pread/pwrite), leaving the file position alone:
 * read exactly len bytes at offset, a file that ends first being damaged
 * (SCR_ERR_FORMAT, naming the byte where it ended); write all len bytes at
 * offset or fail. */
int scr_pread_full(int fd, void *buf, size_t len, uint64_t offset, const char *path);
int scr_pwrite_full(int fd, const void *buf, size_t len, uint64_t offset, const char *path);

/* Read up to len bytes at offset (pread), stopping early only at end of
 * file; *out_got receives the bytes read (0 at or past the end). */
int scr_pread_upto(int fd, void *buf, size_t len, uint64_t offset, size_t *out_got,
                   const char *path);

/* fsync fd; ftruncate fd to size. Each logs its failure once. */
int scr_fsync_fd(int fd, const char *path);
int scr_truncate_fd(int fd, uint64_t size, const char *path);

/* Open path with flags (and mode when creating) as open(2) would, adding
 * O_NOFOLLOW, O_NOCTTY, O_CLOEXEC and, for the open itself, O_NONBLOCK: a
 * symbolic link, a FIFO, a socket, a device or a directory at path is
 * refused with SCR_ERR_IO and a message naming path and what it is. The
 * descriptor returned in *out_fd is blocking again. A missing path gives
 * SCR_ERR_NOTFOUND without logging (unless O_CREAT was asked). */
int scr_open_regular(const char *path, int flags, mode_t mode, int *out_fd);

/* What the file type in st_mode is, in words ("a FIFO", "a directory"...). */
const char *scr_file_kind(mode_t mode);

/* Read a whole file into a new buffer (caller frees *out_buf). Files larger
 * than max_bytes are refused with SCR_ERR_FORMAT. A missing file gives
 * SCR_ERR_NOTFOUND without logging, so callers decide whether that is normal. */
int scr_read_file(const char *path, size_t max_bytes, void **out_buf, size_t *out_len);

/* As scr_read_file, but a symbolic link at path is followed: configuration
 * files, which sites and users keep behind links (/etc/scr.conf to a shared
 * copy, a dotfile manager's ~/.scrconf). A FIFO or a device is still
 * refused without waiting. */
int scr_read_file_following(const char *path, size_t max_bytes, void **out_buf, size_t *out_len);

/* Same, from an open descriptor positioned anywhere (reads from offset 0);
 * a descriptor of anything but a regular file is refused. */
int scr_read_fd(int fd, const char *path, size_t max_bytes, void **out_buf, size_t *out_len);

/* Replace path atomically with len bytes of buf. A new file gets mode 0666
 * less the umask; an existing file keeps its mode. */
int scr_write_atomic(const char *path, const void *buf, size_t len);

/* Create path holding exactly the len bytes of buf, unless it exists: the
 * bytes go to a synced temporary file that is then hard-linked to path, so
 * that no one ever sees path with fewer bytes, and an existing path is never
 * replaced (where the file system has no hard links, path is created
 * exclusively and written in place instead). *out_created is 1 when this
 * call made path, 0 when it existed (left as it was). A missing directory
 * is SCR_ERR_NOTFOUND, not logged. */
int scr_write_new(const char *path, const void *buf, size_t len, int *out_created);

/* fsync the directory that holds path, so a rename or create in it is durable. */
int scr_fsync_parent(const char *path);

/* mkdir -p with the given mode for directories it creates. */
int scr_mkdir_p(const char *path, mode_t mode);

/* rm -r of dir without following symbolic links: every entry is tried,
 * each one that stays is warned about. SCR_SUCCESS when nothing of dir is
 * left (a dir that never existed included), SCR_ERR_IO otherwise. Not
 * thread-safe (nftw keeps no context, so the outcome is kept statically). */
int scr_remove_tree(const char *dir);

#endif
