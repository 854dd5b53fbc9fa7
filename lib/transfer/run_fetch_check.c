/* run_fetch_check.c — the bytes of a restart read in place, checked once
 * the application has read them.
 *
 * With SCR_FETCH_BYPASS=1 a restart reads its files where they lie on the
 * prefix, and when the restart was decided only their sizes were checked
 * (run_fetch_in_place.c notes each file with the size and CRC32 of the
 * dataset's summary). SCR_Complete_restart therefore reads them again here before it
 * reports success: after the application read them, when the page cache
 * mostly still holds them, rather than in an extra pass before the
 * application reads anything. A file whose size or CRC32 differs is named
 * in one line, and the restart fails as a fetch of a damaged file does. As
 * for a fetch, the CRC is checked when the summary records one and
 * SCR_CRC_ON_FLUSH is on.
 *
 * A checkpoint written in place (SCR_CACHE_BYPASS=1) that the filemaps
 * still list is read where it lies as well, its files noted with the size
 * and CRC32 its flush recorded in the filemap (run_fetch_in_place.c), and
 * checked here the same way; once the filemaps are lost, its restart goes
 * through the index like any other. Files copied into cache were checked
 * on the way and are not read again; a checkpoint of another number of
 * ranks has each file checked at its first route (run_fetch_whole.c). */
#include "kvtree_util.h"
#include "scr_err.h"
#include "scr_run.h"
#include "transfer.h"
#include "util_copy.h"
#include "util_log.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Whether path still holds the size bytes that were flushed, of CRC32 *crc
 * (crc NULL: none recorded, the size alone is checked); what differs is
 * said in one line naming the file and the checkpoint. *buf is the buffer
 * to read through, allocated at the first file read (freed by the caller). */
static int file_is_as_flushed(const struct scr_run *run, const struct scr_restart *rs,
                              const char *path, uint64_t size, const uint32_t *crc, void **buf)
{
    struct scr_copy_result got = {0};
    if (crc == NULL || !run->params->crc_on_flush) {
        struct stat st;
        if (stat(path, &st) == 0 && (uint64_t)st.st_size == size) return 1;
        scr_err("restart file %s of checkpoint %s, read in place, is %s", path, rs->name,
                stat(path, &st) != 0 ? "missing" : "of the wrong size");
        return 0;
    }
    if (*buf == NULL && (*buf = malloc(run->params->file_buf_size)) == NULL) {
        scr_err("out of memory for a buffer of %zu bytes to check %s", run->params->file_buf_size,
                path);
        return 0;
    }
    if (scr_crc_file(path, *buf, run->params->file_buf_size, &got) != SCR_SUCCESS)
        return 0; /* said */
    if (got.bytes != size) {
        scr_err(
            "restart file %s of checkpoint %s, read in place, has %llu bytes, %llu were written",
            path, rs->name, (unsigned long long)got.bytes, (unsigned long long)size);
        return 0;
    }
    if (got.crc != *crc) {
        scr_err("restart file %s is damaged: CRC32 0x%08x, recorded 0x%08x (checkpoint %s, read in "
                "place)",
                path, got.crc, *crc, rs->name);
        return 0;
    }
    return 1;
}

void scr_fetch_check_in_place(struct scr_run *run, const struct scr_restart *rs, int *out_damaged)
{
    *out_damaged = 0;
    if (rs->source != SCR_RESTART_PREFIX && rs->source != SCR_RESTART_IN_PLACE) return;
    void *buf = NULL;
    /* the files run_fetch.c noted: ORIG/<path>/{SIZE, CRC} */
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(rs->files, "ORIG")); e;
         e = scr_kvtree_elem_next(e)) {
        const scr_kvtree *info = scr_kvtree_elem_hash(e);
        uint64_t size = 0;
        uint32_t crc = 0;
        if (scr_kvtree_util_get_uint64(info, "SIZE", &size) != SCR_SUCCESS) {
            scr_err("restart file %s of checkpoint %s has no recorded size to check",
                    scr_kvtree_elem_key(e), rs->name);
            (*out_damaged)++;
            continue;
        }
        int have_crc = scr_kvtree_util_get_crc32(info, "CRC", &crc) == SCR_SUCCESS;
        if (!file_is_as_flushed(run, rs, scr_kvtree_elem_key(e), size, have_crc ? &crc : NULL,
                                &buf))
            (*out_damaged)++;
    }
    free(buf);
}
