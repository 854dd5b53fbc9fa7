/* run_crc.c — the CRC-32 of every file in cache: recorded when a dataset is
 * complete, checked when something trusts the bytes.
 *
 * A file's CRC lives in its meta in the filemap (CRC, as SCR's CRC32). The
 * redundancy encodings compute it from the bytes they read anyway (PARTNER,
 * XOR, RS: redundancy_*.c, through redundancy.c); with SINGLE, or in a set
 * of one member, nothing reads the files, and a library thread reads them
 * once more after SCR_Complete_output returned (run_crc_async.c, which
 * also checks the files a restart from cache reads while the application
 * reads them). scr_crc_fill does the same in the caller, where a flush
 * that was to compute the CRCs failed.
 * At SCR_Init, when some rank lost files, scr_crc_check_held reads every
 * file a rank holds of the dataset before the rebuild trusts any; a file
 * whose bytes do not match is reported once and marked incomplete, which makes
 * it a lost file like any other: rebuilt if the dataset's redundancy
 * allows, else the dataset is dropped and an older one is used. Files
 * copied or rebuilt after that are checked in the pass that writes them.
 * Files that are only checksummed are read in L2-sized pieces
 * (scr_crc_file_l2, util_copy.h). */
#include "run_crc.h"
#include "kvtree_util.h"
#include "meta.h"
#include "redundancy.h"
#include "run_cache.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_copy.h"
#include "util_log.h"

#include <stdlib.h>
#include <sys/stat.h>

void scr_crc_say_damaged(const struct scr_run *run, int id, int rank, const char *file,
                         const char *how, uint32_t found, uint32_t recorded)
{
    scr_redundancy_say_damaged(run->map, run->rank, id, rank, file, how, found, recorded);
}

int scr_crc_record(struct scr_run *run, int id, int rank, const char *file, uint32_t crc,
                   int complete)
{
    return scr_redundancy_record_crc(run->map, id, rank, file, crc, complete);
}

int scr_crc_fill(struct scr_run *run, int id)
{
    if (!run->params->crc_in_cache) return SCR_SUCCESS;
    const char **files = NULL;
    int n = 0, filled = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &n);
    for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
        const scr_meta *meta = NULL;
        uint32_t crc = 0;
        rc = scr_filemap_get_meta(run->map, id, run->rank, files[f], &meta);
        if (rc != SCR_SUCCESS || !scr_meta_is_complete(meta) ||
            scr_meta_get_crc32(meta, &crc) == SCR_SUCCESS)
            continue;
        rc = scr_crc_file_l2(files[f], &crc, NULL);
        if (rc == SCR_SUCCESS) rc = scr_crc_record(run, id, run->rank, files[f], crc, 1);
        if (rc == SCR_SUCCESS) filled++;
    }
    free(files);
    /* the redundancy encode records every CRC itself: nothing new, no write */
    if (rc == SCR_SUCCESS && filled > 0) rc = scr_cache_save_filemap(run);
    return rc;
}

/* Check one file rank holds: 1 when it is damaged (and now marked so). */
static int check_one(struct scr_run *run, int id, int rank, const char *file, int *out_damaged)
{
    const scr_meta *meta = NULL;
    uint32_t recorded = 0;
    uint64_t size = 0;
    struct stat st;
    *out_damaged = 0;
    /* what is missing, incomplete or of another size is lost already, and
     * says so where it is looked at; a file without a CRC has nothing to check */
    if (scr_filemap_get_meta(run->map, id, rank, file, &meta) != SCR_SUCCESS ||
        !scr_meta_is_complete(meta) || scr_meta_get_crc32(meta, &recorded) != SCR_SUCCESS ||
        scr_meta_get_filesize(meta, &size) != SCR_SUCCESS || stat(file, &st) != 0 ||
        (uint64_t)st.st_size != size)
        return SCR_SUCCESS;
    uint32_t got = 0;
    if (scr_crc_file_l2(file, &got, NULL) != SCR_SUCCESS) {
        /* it could not be read (said already): as good as lost */
        *out_damaged = 1;
        return scr_crc_record(run, id, rank, file, recorded, 0);
    }
    if (got == recorded) return SCR_SUCCESS;
    scr_crc_say_damaged(run, id, rank, file, NULL, got, recorded);
    *out_damaged = 1;
    return scr_crc_record(run, id, rank, file, recorded, 0);
}

int scr_crc_check_held(struct scr_run *run, int id, int *out_damaged)
{
    *out_damaged = 0;
    int *ranks = NULL, nranks = 0;
    int rc = scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &nranks);
    for (int r = 0; rc == SCR_SUCCESS && r < nranks; r++) {
        const char **files = NULL;
        int n = 0;
        rc = scr_filemap_list_files(run->map, id, ranks[r], &files, &n);
        for (int f = 0; rc == SCR_SUCCESS && f < n; f++) {
            int damaged = 0;
            rc = check_one(run, id, ranks[r], files[f], &damaged);
            *out_damaged += damaged;
        }
        free(files);
    }
    free(ranks);
    if (rc == SCR_SUCCESS && *out_damaged > 0) rc = scr_cache_save_filemap(run);
    return rc;
}
