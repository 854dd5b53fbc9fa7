/* flush_record.c — what a flush learnt of one of this rank's files, into
 * its filemap entry: the CRC the copy computed (checked against the one
 * recorded when the file was written, when there was one) and how the
 * prefix holds it (compressed or not). Shared by the flush in the
 * foreground, the flush in the background and the CRCs of shared files,
 * so that none of them calls back into another. */
#include "flush_steps.h"
#include "meta.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_log.h"

#include <stdint.h>

int scr_flush_record_copy(struct scr_run *run, int id, const char *file,
                          const struct scr_copy_result *got)
{
    const scr_meta *stored = NULL;
    scr_meta *meta = scr_meta_new();
    int rc = meta != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_get_meta(run->map, id, run->rank, file, &stored);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_copy(meta, stored);
    if (rc != SCR_SUCCESS) goto out;
    uint32_t recorded;
    if (run->params->crc_on_flush && scr_meta_get_crc32(meta, &recorded) == SCR_SUCCESS &&
        recorded != got->crc) {
        scr_err("flush of %s: CRC32 0x%08x differs from 0x%08x recorded when it was "
                "written; the file in cache is damaged",
                file, got->crc, recorded);
        rc = SCR_ERR_FORMAT;
        goto out;
    }
    if (run->params->crc_on_flush) rc = scr_meta_set_crc32(meta, got->crc);
    if (rc != SCR_SUCCESS) goto out;
    /* how the prefix holds it: the rank filemap and the summary say so */
    if (got->stored.compressed)
        rc = scr_meta_set_compressed(meta, got->stored.bytes);
    else
        rc = scr_meta_unset_compressed(meta);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_meta(run->map, id, run->rank, file, meta);
out:
    scr_meta_delete(meta);
    return rc;
}
