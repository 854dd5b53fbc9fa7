/* util_crc.c — CRC-32 through ISA-L when present, zlib otherwise. */
#include "build_config.h"
#include "util_crc.h"
#include "scr_err.h"
#include "util_io.h"

#include <limits.h>
#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

uint32_t scr_crc32_zlib(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uLong c = crc;
    /* zlib takes a uInt length; feed huge buffers in pieces */
    while (len > 0) {
        uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;
        c = crc32(c, p, n);
        p += n;
        len -= n;
    }
    return (uint32_t)c;
}

uint32_t scr_crc32_isal(uint32_t crc, const void *buf, size_t len)
{
#ifdef HAVE_ISAL
    const unsigned char *p = buf;
    while (len > 0) {
        uint64_t n = len > (1ull << 30) ? (1ull << 30) : len;
        crc = crc32_gzip_refl(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
#else
    return scr_crc32_zlib(crc, buf, len);
#endif
}

uint32_t scr_crc32(uint32_t crc, const void *buf, size_t len)
{
    return scr_crc32_isal(crc, buf, len);
}

uint32_t scr_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    /* z_off_t is 64 bits wide where off_t is, as with the large-file flags of this build */
    return (uint32_t)crc32_combine(crc_a, crc_b, (z_off_t)len_b);
}

int scr_crc_fd(int fd, const char *path, void *buf, size_t bufsize, uint32_t *out_crc,
               uint64_t *out_len)
{
    uint32_t crc = 0;
    uint64_t off = 0;
    for (;;) {
        size_t got = 0;
        int rc = scr_pread_upto(fd, buf, bufsize, off, &got, path);
        if (rc != SCR_SUCCESS) return rc;
        if (got == 0) break;
        crc = scr_crc32(crc, buf, got);
        off += got;
    }
    *out_crc = crc;
    if (out_len != NULL) *out_len = off;
    return SCR_SUCCESS;
}

int scr_crc32_uses_isal(void)
{
#ifdef HAVE_ISAL
    return 1;
#else
    return 0;
#endif
}
