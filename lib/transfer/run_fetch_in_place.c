/* run_fetch_in_place.c — a restart whose files are read where they lie on
 * the prefix, with nothing copied into cache.
 *
 * Two kinds of restart do this: one through the index with
 * SCR_FETCH_BYPASS=1 (run_fetch.c notes each file from the dataset's
 * summary), and one from a checkpoint written in place (SCR_CACHE_BYPASS=1)
 * that this job's filemaps still list, as SCR 3.1 restarts from it: its
 * files are already where the application reads them, so it is offered
 * even with SCR_FETCH=0, which forbids only reading the prefix's index.
 * Either way each file is noted with its path, the name the application
 * may use for it, and its recorded size and CRC32: the size is checked
 * now, the bytes once the application read them (run_fetch_check.c). A
 * file several ranks list has its CRC noted on one of them, the lowest
 * (shared_crc.h; through the index, run_fetch.c leaves the CRC out of the
 * other ranks' parts), so that the check reads it once. */
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "scr_err.h"
#include "scr_run.h"
#include "shared_crc.h"
#include "transfer.h"
#include "util_log.h"
#include "util_path.h"

#include <stdlib.h>
#include <sys/stat.h>

int scr_fetch_note_in_place(scr_kvtree *files, const char *src, const char *name, uint64_t size,
                            const uint32_t *crc)
{
    struct stat st;
    if (stat(src, &st) != 0 || (uint64_t)st.st_size != size) {
        scr_err("restart file %s is %s", src, stat(src, &st) ? "missing" : "of the wrong size");
        return SCR_ERR_NOTFOUND;
    }
    scr_kvtree *orig = scr_kvtree_set_kv(files, "ORIG", src);
    if (scr_kvtree_util_set_str(scr_kvtree_set_kv(files, "NAME", name), "PATH", src) !=
            SCR_SUCCESS ||
        scr_kvtree_util_set_str(orig, "PATH", src) != SCR_SUCCESS ||
        scr_kvtree_util_set_uint64(orig, "SIZE", size) != SCR_SUCCESS ||
        (crc != NULL && scr_kvtree_util_set_crc32(orig, "CRC", *crc) != SCR_SUCCESS))
        return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* Note f, one file of this rank's of dataset id, from its meta, in files:
 * redundancy data, which a dataset written in place does not have, is no
 * restart file. A file a lower rank lists too is noted without its CRC:
 * that rank reads it for the check (plan). */
static int note_listed_file(struct scr_run *run, scr_kvtree *files, int id,
                            const struct scr_shared_crc *plan,
                            const struct scr_dataset_view_file *f)
{
    const char *path = f->path, *name = f->orig_name;
    if (f->meta == NULL) {
        scr_err("restart file %s of dataset %d has no meta in the filemap", path, id);
        return SCR_ERR_NOTFOUND;
    }
    if (!f->is_app_file) return SCR_SUCCESS;
    if (!f->has_size) {
        scr_err("restart file %s of dataset %d has no recorded size", path, id);
        return SCR_ERR_NOTFOUND;
    }
    char *base = NULL;
    if (name == NULL) {
        int rc = scr_path_basename(path, &base);
        if (rc != SCR_SUCCESS) return rc;
        name = base;
    }
    int have_crc = f->has_crc && scr_shared_crc_reads(plan, run, f);
    int rc = scr_fetch_note_in_place(files, path, name, f->size, have_crc ? &f->crc : NULL);
    free(base);
    return rc;
}

int scr_fetch_in_place_prepare(struct scr_run *run, struct scr_restart *rs, int id, int *out_ok)
{
    struct scr_dataset_view *view = NULL;
    struct scr_shared_crc plan;
    scr_kvtree_unset_all(rs->files);
    /* every rank's records hold the dataset, complete (scr_cache_in_place_is_present) */
    int vrc = scr_dataset_view_of(run->map, id, run->rank, &view);
    if (vrc == SCR_ERR_NOTFOUND) vrc = SCR_SUCCESS; /* nothing to note */
    int rc =
        scr_shared_crc_plan(run, id, view != NULL ? view->desc : NULL, &plan); /* all ranks agree */
    if (rc != SCR_SUCCESS) {
        scr_dataset_view_free(view);
        return rc;
    }
    rc = vrc;
    for (int f = 0; rc == SCR_SUCCESS && view != NULL && f < view->nfiles; f++)
        rc = note_listed_file(run, rs->files, id, &plan, &view->files[f]);
    scr_dataset_view_free(view);
    scr_shared_crc_free(&plan);
    /* all ranks agree: */
    return scr_comm_all_true(rc == SCR_SUCCESS, run->world, out_ok);
}
