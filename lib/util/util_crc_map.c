/* util_crc_map.c — the CRC-32 of a file read through a shared mapping (util_crc_map.h). */
#include "util_crc_map.h"

#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The bytes of fd from offset on, through a buffer: for what mmap refuses. */
static int crc_by_reading(int fd, const char *path, uint32_t *crc, uint64_t *len)
{
    size_t size = 1 << 20;
    void *buf = malloc(size);
    if (buf == NULL) {
        scr_err("out of memory for a buffer of %zu bytes to check %s", size, path);
        return SCR_ERR_NOMEM;
    }
    uint32_t got = 0;
    uint64_t n = 0;
    int rc = scr_crc_fd(fd, path, buf, size, &got, &n);
    free(buf);
    if (rc == SCR_SUCCESS) {
        *crc = got;
        *len = n;
    }
    return rc;
}

/* The CRC of size bytes of fd in windows; SCR_ERR_ARG when the first
 * mapping is refused (nothing read yet: the caller reads instead). */
static int crc_by_mapping(int fd, const char *path, uint64_t size, uint32_t *crc)
{
    uint32_t c = 0;
    for (uint64_t off = 0; off < size; off += SCR_CRC_MAP_WINDOW) {
        size_t len = (size_t)(size - off < SCR_CRC_MAP_WINDOW ? size - off : SCR_CRC_MAP_WINDOW);
        void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
        if (p == MAP_FAILED) {
            if (off == 0) return SCR_ERR_ARG;
            scr_err("cannot map %s at byte %llu to check its CRC: %s", path,
                    (unsigned long long)off, strerror(errno));
            return SCR_ERR_IO;
        }
        (void)madvise(p, len, MADV_SEQUENTIAL | MADV_WILLNEED); /* advice only */
        c = scr_crc32(c, p, len);
        munmap(p, len);
    }
    *crc = c;
    return SCR_SUCCESS;
}

int scr_crc_map_file(const char *path, uint32_t *out_crc, uint64_t *out_len)
{
    int fd = -1;
    int rc = scr_open_regular(path, O_RDONLY, 0, &fd);
    if (rc == SCR_ERR_NOTFOUND) scr_err("cannot check the CRC of %s: it is missing", path);
    if (rc != SCR_SUCCESS) return rc;
    struct stat st;
    uint32_t crc = 0;
    uint64_t len = 0;
    if (fstat(fd, &st) != 0) {
        scr_err("cannot stat %s to check its CRC: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    } else {
        len = (uint64_t)st.st_size;
        /* a file that shrinks while mapped would fault: a cached file does
         * not change once its dataset is complete, and one that cannot be
         * mapped is read instead */
        rc = len == 0 ? SCR_SUCCESS : crc_by_mapping(fd, path, len, &crc);
        if (rc == SCR_ERR_ARG) rc = crc_by_reading(fd, path, &crc, &len);
    }
    close(fd);
    if (rc != SCR_SUCCESS) return rc;
    *out_crc = crc;
    if (out_len != NULL) *out_len = len;
    return SCR_SUCCESS;
}
