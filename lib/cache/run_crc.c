/* run_crc.c — the CRC-32 of every file in cache: recorded when a dataset is
 * complete, checked once when SCR_Init takes the cache back.
 *
 * A file's CRC lives in its meta in the filemap (CRC, as SCR's CRC32). The
 * redundancy encodings compute it from the bytes they read anyway (PARTNER,
 * XOR, RS: redundancy_*.c, through redundancy.c); with SINGLE, or in a set
 * of one member, nothing reads the files, and scr_crc_fill reads them once
 * more.
 * At SCR_Init, scr_crc_check_held reads every file a rank holds of a
 * dataset before anything trusts it; a file whose bytes do not match is
 * said once and marked incomplete, which makes it a lost file like any
 * other: rebuilt if the dataset's redundancy allows, else the dataset is
 * dropped and an older one is used. Files copied or rebuilt after that are
 * checked in the pass that writes them. */
#include "kvtree_util.h"
#include "meta.h"
#include "redundancy.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_copy.h"
#include "util_crc_parts.h"
#include "util_log.h"

#include <stdlib.h>
#include <sys/stat.h>

void scr_crc_say_damaged(const struct scr_run *run, int id, int rank, const char *file, const char *how,
                         uint32_t found, uint32_t recorded)
{
    scr_redundancy_say_damaged(run->map, run->rank, id, rank, file, how, found, recorded);
}

int scr_crc_record(struct scr_run *run, int id, int rank, const char *file, uint32_t crc, int complete)
{
    return scr_redundancy_record_crc(run->map, id, rank, file, crc, complete);
}

/* A buffer for reading files, logged when there is none. */
static void *read_buffer(const struct scr_run *run)
{
    void *buf = malloc(run->file_buf_size);
    if (buf == NULL) scr_err("out of memory for a buffer of %zu bytes to check CRCs", run->file_buf_size);
    return buf;
}

int scr_crc_fill(struct scr_run *run, int id)
{
    if (!run->crc_in_cache) return SCR_SUCCESS;
    const char **files = NULL;
    void *buf = NULL;
    int n = 0, filled = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
        const scr_meta *meta = NULL;
        uint32_t crc = 0;
        rc = scr_filemap_get_meta(run->map, id, run->rank, files[f], &meta);
        if (rc != SCR_SUCCESS || !scr_meta_is_complete(meta) || scr_meta_get_crc32(meta, &crc) == SCR_SUCCESS)
            continue;
        struct scr_copy_result got;
        if (buf == NULL && (buf = read_buffer(run)) == NULL) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = scr_crc_file(files[f], buf, run->file_buf_size, &got);
        if (rc == SCR_SUCCESS) rc = scr_crc_record(run, id, run->rank, files[f], got.crc, 1);
        if (rc == SCR_SUCCESS) filled++;
    }
    free(buf);
    free(files);
    /* the redundancy encode records every CRC itself: nothing new, no write */
    if (rc == SCR_SUCCESS && filled > 0) rc = scr_cache_save_filemap(run);
    return rc;
}

/* Check one file rank holds: 1 when it is damaged (and now marked so). */
static int check_one(struct scr_run *run, int id, int rank, const char *file, void *buf, int *out_damaged)
{
    const scr_meta *meta = NULL;
    uint32_t recorded = 0;
    uint64_t size = 0;
    struct stat st;
    *out_damaged = 0;
    /* what is missing, incomplete or of another size is lost already, and
     * says so where it is looked at; a file without a CRC has nothing to check */
    if (scr_filemap_get_meta(run->map, id, rank, file, &meta) != SCR_SUCCESS || !scr_meta_is_complete(meta) ||
        scr_meta_get_crc32(meta, &recorded) != SCR_SUCCESS || scr_meta_get_filesize(meta, &size) != SCR_SUCCESS ||
        stat(file, &st) != 0 || (uint64_t)st.st_size != size)
        return SCR_SUCCESS;
    struct scr_copy_result got;
    if (scr_crc_file(file, buf, run->file_buf_size, &got) != SCR_SUCCESS) {
        /* it could not be read (said already): as good as lost */
        *out_damaged = 1;
        return scr_crc_record(run, id, rank, file, recorded, 0);
    }
    if (got.crc == recorded) return SCR_SUCCESS;
    scr_crc_say_damaged(run, id, rank, file, NULL, got.crc, recorded);
    *out_damaged = 1;
    return scr_crc_record(run, id, rank, file, recorded, 0);
}

int scr_crc_check_held(struct scr_run *run, int id, int *out_damaged)
{
    *out_damaged = 0;
    int *ranks = NULL, nranks = 0;
    void *buf = NULL;
    int rc = scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &nranks);
    for (int r = 0; rc == SCR_SUCCESS && r < nranks; r++) {
        const char **files = NULL;
        int n = 0;
        rc = scr_filemap_list_files(run->map, id, ranks[r], &files, &n);
        if (rc == SCR_SUCCESS && n > 0 && buf == NULL && (buf = read_buffer(run)) == NULL) rc = SCR_ERR_NOMEM;
        for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
            int damaged = 0;
            rc = check_one(run, id, ranks[r], files[f], buf, &damaged);
            *out_damaged += damaged;
        }
        free(files);
    }
    free(ranks);
    free(buf);
    if (rc == SCR_SUCCESS && *out_damaged > 0) rc = scr_cache_save_filemap(run);
    return rc;
}
