/* shared_crc.c — a file several ranks list, read once for its CRC (shared_crc.h). */
#include "run_cache.h"
#include "run_shared.h"
#include "shared_crc.h"

#include "flush_steps.h"
#include "meta.h"
#include "mpi_comm.h"
#include "scr_err.h"
#include "util_copy.h"
#include "util_log.h"

#include <stdlib.h>

/* A CRC in the reduction: bit 32 says that the reader computed it. */
#define CRC_GIVEN ((uint64_t)1 << 32)

int scr_shared_crc_plan(struct scr_run *run, int id, const scr_dataset *desc,
                        struct scr_shared_crc *out)
{
    int names = 0;
    out->listed = NULL;
    out->n = 0;
    /* without SCR_CRC_ON_FLUSH neither the flush nor the check reads a CRC */
    if (!run->params->crc_on_flush) return SCR_SUCCESS;
    if (desc == NULL || scr_dataset_get_shared_names(desc, &names) != SCR_SUCCESS || names == 0)
        return SCR_SUCCESS; /* a file per process: nothing to ask */
    return scr_shared_files_find(run, id, &out->listed, &out->n); /* all ranks agree */
}

void scr_shared_crc_free(struct scr_shared_crc *plan)
{
    free(plan->listed);
    plan->listed = NULL;
    plan->n = 0;
}

/* The index of f's name (relative to the prefix, as scr_shared_file_rel
 * gives it) in the plan, -1 when no other rank lists it. */
static int index_of(const struct scr_shared_crc *plan, const struct scr_dataset_view_file *f)
{
    uint64_t hash = scr_shared_name_hash(f->name != NULL ? f->name : f->path);
    int lo = 0, hi = plan->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        uint64_t at = plan->listed[3 * mid];
        if (at == hash) return mid;
        if (at < hash)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int scr_shared_crc_reads(const struct scr_shared_crc *plan, const struct scr_run *run,
                         const struct scr_dataset_view_file *f)
{
    if (plan == NULL || plan->n == 0) return 1;
    int i = index_of(plan, f);
    return i < 0 || plan->listed[3 * i + 2] == (uint64_t)run->rank;
}

/* This rank's CRCs of the shared names it reads (its files: view), into crcs (n entries, zero
 * where it reads none). */
static int my_crcs(struct scr_run *run, const struct scr_shared_crc *plan,
                   const struct scr_dataset_view *view, uint64_t *crcs)
{
    for (int f = 0; f < view->nfiles; f++) {
        int i = index_of(plan, &view->files[f]);
        const scr_meta *meta = NULL;
        uint32_t crc = 0;
        if (i < 0 || plan->listed[3 * i + 2] != (uint64_t)run->rank) continue;
        /* the CRC the copy recorded, after the view was read */
        if (scr_filemap_get_meta(run->map, view->id, run->rank, view->files[f].path, &meta) ==
                SCR_SUCCESS &&
            scr_meta_get_crc32(meta, &crc) == SCR_SUCCESS)
            crcs[i] = CRC_GIVEN | crc;
    }
    return SCR_SUCCESS;
}

/* Record in this rank's filemap the CRCs the readers gave (crcs, n
 * entries) of the shared names it lists (its files: view) but does not read. */
static int record_given(struct scr_run *run, const struct scr_shared_crc *plan,
                        const struct scr_dataset_view *view, const uint64_t *crcs)
{
    int rc = SCR_SUCCESS, changed = 0;
    for (int f = 0; rc == SCR_SUCCESS && f < view->nfiles; f++) {
        const struct scr_dataset_view_file *file = &view->files[f];
        int i = index_of(plan, file);
        if (i < 0 || plan->listed[3 * i + 2] == (uint64_t)run->rank) continue;
        if (!file->is_app_file) continue;
        if (!(crcs[i] & CRC_GIVEN)) {
            scr_err("flush of dataset %d: rank %d, which reads %s for its CRC, could not give it",
                    view->id, (int)plan->listed[3 * i + 2], file->path);
            rc = SCR_ERR_IO;
            break;
        }
        struct scr_copy_result got = {.crc = (uint32_t)(crcs[i] & 0xffffffffu)};
        rc = scr_flush_record_copy(run, view->id, file->path, &got);
        changed = 1;
    }
    if (rc == SCR_SUCCESS && changed) rc = scr_cache_save_filemap(run);
    return rc;
}

int scr_shared_crc_share(struct scr_run *run, const struct scr_shared_crc *plan,
                         const struct scr_dataset_view *view, int rc)
{
    if (plan->n == 0) return rc;
    int id = view->id, ok = 0;
    uint64_t *mine = calloc((size_t)plan->n, sizeof(uint64_t)),
             *all = calloc((size_t)plan->n, sizeof(uint64_t));
    int lrc = mine != NULL && all != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (lrc != SCR_SUCCESS)
        scr_err("out of memory sharing the CRCs of %d shared files of dataset %d", plan->n, id);
    /* a rank whose copies failed gives no CRC: the flush fails anyway */
    if (lrc == SCR_SUCCESS && rc == SCR_SUCCESS) lrc = my_crcs(run, plan, view, mine);
    /* all ranks agree: */
    int mrc = scr_comm_all_true(mine != NULL && all != NULL, run->world, &ok);
    if (mrc == SCR_SUCCESS && !ok) mrc = SCR_ERR_NOMEM;
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Allreduce(mine, all, plan->n, MPI_UINT64_T, MPI_MAX, run->world),
                            "sharing the CRCs of files several ranks list");
    if (mrc == SCR_SUCCESS && lrc == SCR_SUCCESS && rc == SCR_SUCCESS)
        lrc = record_given(run, plan, view, all);
    free(mine);
    free(all);
    if (rc != SCR_SUCCESS) return rc;
    return mrc != SCR_SUCCESS ? mrc : lrc;
}
