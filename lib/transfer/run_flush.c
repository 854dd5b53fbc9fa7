/* run_flush.c — copy a dataset from cache to the prefix and record it there.
 *
 * Only the application's files go to the prefix: every rank's own files
 * are copied, so XOR and RS data would be dead weight there (a scavenge,
 * which may miss nodes, keeps copying it).
 *
 * Order of events, so that a crash at any point leaves the prefix consistent:
 * the node's flush file says FLUSHING; every rank copies its files to their
 * original paths (at most SCR_FLUSH_WIDTH ranks at once) with the CRC-32
 * computed on the way (a file written in place and listed by several ranks
 * is read for it on one of them, shared_crc.h), syncs them and writes its
 * rank filemap; the first rank of every SCR_SUMMARY_PART_RANKS writes the
 * part of the summary that lists them (summary.h), from their rank
 * filemaps sent to it; once all parts are written, rank 0 writes the
 * summary that names them; only then does the index get the dataset, so a
 * dataset that is listed is complete on the prefix. Before anything is
 * written, rank 0 claims the dataset directory (dataset_claim.h): a
 * directory another job's dataset owns refuses the flush.
 *
 * A flush that fails takes back what it wrote (util_undo.h), so that a full
 * prefix is not left fuller: every rank notes each file it created on the
 * prefix (application files at their original paths, its rank filemap in
 * <prefix>/.scr/scr.dataset.<id>, a part's writer its part of the
 * summary, and rank 0 the summary) and each directory that was missing,
 * and once the ranks agree that the flush failed, removes them. A file that existed before the
 * attempt (a dataset flushed earlier, a file written in place on the
 * prefix) is never removed.
 *
 * With SCR_WATCHDOG_TIMEOUT_PFS, each file's copy runs in a thread of its
 * own (the copy's timeout, util_copy.h) and is abandoned when it takes longer: the rank
 * says so in one line, leaves the prefix alone from then on (a removal
 * could block it too) and reaches the agreement as a failed rank, so that
 * a hung prefix on one rank does not hold the others in a collective. The
 * flush then fails as above, with SCR_ERR_TIMEOUT: nothing is indexed and
 * the dataset stays in cache. What the abandoning rank wrote before stays
 * (unindexed; the abandoned copy removes its own file if it ever returns).
 * While an abandoned copy has not returned, no flush starts, since that copy
 * may still write to the prefix. Only the copies are timed: the small
 * metadata writes (directories, claim, rank filemaps, summary, index) and
 * the lstat before a copy are not. */
#include "dataset_claim.h"
#include "flush_file.h"
#include "index_file.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_inbox.h"
#include "prefix_trim.h"
#include "rank_filemap.h"
#include "run_cache.h"
#include "run_events.h"
#include "run_flush_progress.h"
#include "shared_crc.h"
#include "scr_err.h"
#include "scr_run.h"
#include "transfer.h"
#include "flush_steps.h"
#include "summary.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"
#include "util_testpoint.h"
#include "util_undo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TAG_WIDTH 4702
#define TAG_SUMMARY_PART 4706 /* no other exchange on the world uses it */

/* <prefix>/.scr/scr.dataset.<id> in a new string. */
static int prefix_dataset_dir(const struct scr_run *run, int id, char **out_dir)
{
    char name[64];
    snprintf(name, sizeof(name), "scr.dataset.%d", id);
    return scr_path_join(run->prefix_scr, name, out_dir);
}

/* Where file f goes on the prefix: an application file to PATH/NAME of its
 * meta, redundancy data into the dataset directory under its own name. */
static int original_path(const struct scr_dataset_view_file *f, const char *dsdir, char **out_path)
{
    if (f->meta == NULL) return SCR_ERR_NOTFOUND;
    if (!f->is_app_file) {
        if (f->name == NULL) {
            scr_err("a redundancy file of the dataset has no name");
            return SCR_ERR_FORMAT;
        }
        return scr_path_join(dsdir, f->name, out_path);
    }
    if (f->orig_path == NULL || f->orig_name == NULL) {
        scr_err("a file of the dataset has no recorded original path");
        return SCR_ERR_FORMAT;
    }
    return scr_path_join(f->orig_path, f->orig_name, out_path);
}

/* Whether nothing is at path yet (what an attempt then writes there is its own). */
static int is_absent(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 && errno == ENOENT;
}

/* Before writing path: note the directories that are missing on the way,
 * and *out_new whether path itself is. */
static int note_before_writing(struct scr_undo *undo, const char *path, int *out_new)
{
    char *dir = NULL;
    int rc = scr_path_dirname(path, &dir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_undo_note_missing_dirs(undo, dir);
out:
    free(dir);
    *out_new = is_absent(path);
    return rc;
}

void scr_transfer_say_abandoned(const struct scr_run *run, const char *op, int id, const char *src,
                                const char *dest, const char *consequence)
{
    scr_warn("watchdog: %s of dataset %d: copying %s to %s took more than "
             "SCR_WATCHDOG_TIMEOUT_PFS=%d s; "
             "abandoned it (%s; the copy's thread waits until the file system answers)",
             op, id, src, dest, run->params->watchdog_pfs, consequence);
}

/* A flush reads file from the dataset's cache directory (or, written in
 * place, from dest itself) and writes dest, inside the prefix. */
static int check_flush_paths(const struct scr_run *run, int id, const char *file, const char *dest)
{
    char *cache = NULL;
    int inside = 0;
    int rc = scr_path_is_inside(run->prefix, dest, &inside);
    if (rc == SCR_SUCCESS && !inside) {
        scr_err(
            "%s: file %s of rank %d in dataset %d is to go to %s, outside the prefix %s; refused",
            run->filemap_path, file, run->rank, id, dest, run->prefix);
        return SCR_ERR_FORMAT;
    }
    if (rc != SCR_SUCCESS || strcmp(file, dest) == 0) return rc;
    rc = scr_cache_dataset_dir(run, id, &cache);
    if (rc == SCR_SUCCESS) rc = scr_path_is_inside(cache, file, &inside);
    if (rc == SCR_SUCCESS && !inside) {
        scr_err("%s: file %s of rank %d in dataset %d is not in the dataset's cache directory %s; "
                "refused",
                run->filemap_path, file, run->rank, id, cache);
        rc = SCR_ERR_FORMAT;
    }
    free(cache);
    return rc;
}

int scr_flush_destination(const struct scr_run *run, int id, const char *dsdir,
                          const struct scr_dataset_view_file *f, char **out_dest)
{
    char *dest = NULL;
    int rc = original_path(f, dsdir, &dest);
    if (rc == SCR_SUCCESS) rc = check_flush_paths(run, id, f->path, dest);
    if (rc != SCR_SUCCESS) {
        free(dest);
        return rc;
    }
    *out_dest = dest;
    return SCR_SUCCESS;
}

int scr_flush_note_destination(struct scr_undo *undo, const char *dest, int *out_new)
{
    return note_before_writing(undo, dest, out_new);
}

int scr_flush_compress_level(const struct scr_run *run, const scr_dataset *desc)
{
    return desc != NULL && scr_dataset_is_output(desc) ? 0 : run->params->flush_compress;
}

/* Copy (or, written in place, checksum) f, one of this rank's files of
 * view; update its meta. A file the copy creates is noted in undo. A file
 * written in place that a lower rank lists too is that rank's to checksum
 * (plan): its CRC comes once the copies are done (scr_shared_crc_share). */
static int flush_file(struct scr_run *run, const struct scr_dataset_view *view, const char *dsdir,
                      void *buf, struct scr_undo *undo, const struct scr_shared_crc *plan,
                      const struct scr_dataset_view_file *f)
{
    char *dest = NULL;
    struct scr_copy_result got = {0};
    const char *file = f->path;
    int id = view->id, created = 0;
    int level = scr_flush_compress_level(run, view->desc);
    int rc = scr_flush_destination(run, id, dsdir, f, &dest);
    if (rc != SCR_SUCCESS) goto out;
    if (strcmp(dest, file) != 0) {
        rc = note_before_writing(undo, dest, &created);
        if (rc != SCR_SUCCESS) goto out;
        const struct scr_copy_opts opts = {
            .buf = buf,
            .bufsize = run->params->file_buf_size,
            .crc = run->params->crc_on_flush,
            .form = level > 0 ? SCR_COPY_GZIP : SCR_COPY_RAW,
            .level = level,
            .timeout = run->params->watchdog_pfs,
            .kind = "flush",
        };
        rc = scr_copy(file, dest, &opts, &got);
        if (rc == SCR_ERR_TIMEOUT)
            scr_transfer_say_abandoned(run, "flush", id, file, dest, "the dataset stays in cache");
        if (rc != SCR_SUCCESS) goto out;
        if (created) {
            rc = scr_undo_note_file(undo, dest);
            if (rc != SCR_SUCCESS) goto out;
        }
    } else if (run->params->crc_on_flush) { /* written in place */
        if (!scr_shared_crc_reads(plan, run, f)) goto out;
        rc = scr_crc_file(dest, buf, run->params->file_buf_size, &got);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_flush_record_copy(run, id, file, &got);
out:
    free(dest);
    return rc;
}

/* Copy (or, written in place, checksum) this rank's files (view); update
 * their meta. Each file the copy creates is noted in undo. */
static int copy_my_files(struct scr_run *run, const struct scr_dataset_view *view,
                         const char *dsdir, void *buf, struct scr_undo *undo,
                         const struct scr_shared_crc *plan)
{
    for (int f = 0; f < view->nfiles; f++) {
        if (!view->files[f].is_app_file) continue;
        int rc = flush_file(run, view, dsdir, buf, undo, plan, &view->files[f]);
        if (rc != SCR_SUCCESS) return rc;
    }
    return scr_cache_save_filemap(run);
}

/* Copy this rank's files, waiting for the rank SCR_FLUSH_WIDTH before us so
 * that at most that many ranks write to the prefix at once. */
static int copy_in_window(struct scr_run *run, const struct scr_dataset_view *view,
                          const char *dsdir, struct scr_undo *undo,
                          const struct scr_shared_crc *plan)
{
    int rc = scr_comm_window_enter(run->world, run->params->flush_width, TAG_WIDTH);
    void *buf = malloc(run->params->file_buf_size);
    if (buf == NULL) {
        scr_err("out of memory for a flush buffer of %zu bytes", run->params->file_buf_size);
        rc = SCR_ERR_NOMEM;
    }
    if (rc != SCR_SUCCESS) goto leave;
    rc = copy_my_files(run, view, dsdir, buf, undo, plan);
leave:
    free(buf);
    /* a rank leaves the window whatever failed: the ranks after it wait for it */
    int lrc = scr_comm_window_leave(run->world, run->params->flush_width, TAG_WIDTH);
    return rc != SCR_SUCCESS ? rc : lrc;
}

/* This rank's rank filemap (*out_rmap), written into dsdir once its files
 * are copied, and noted in undo when it is new. */
static int write_my_rank_filemap(struct scr_run *run, int id, const char *dsdir,
                                 scr_filemap **out_rmap, struct scr_undo *undo)
{
    scr_filemap *rmap = NULL;
    char *path = NULL;
    int rc = scr_rank_filemap_build_app(run->map, id, run->rank, dsdir, &rmap);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_rank_filemap_path(dsdir, run->rank, &path);
    if (rc != SCR_SUCCESS) goto out;
    int created = is_absent(path);
    rc = scr_rank_filemap_write(path, rmap);
    if (rc != SCR_SUCCESS) goto out;
    if (created) rc = scr_undo_note_file(undo, path);
out:
    free(path);
    if (rc == SCR_SUCCESS)
        *out_rmap = rmap;
    else
        scr_filemap_delete(rmap);
    return rc;
}

/* Ranks in each part of the summary: each part's first rank writes it.
 * A test makes the parts small (util_testpoint.h) to see several in a
 * job of a few ranks; every rank of the job sees the same environment. */
static int summary_part_ranks(void)
{
    return scr_testpoint_on(SCR_TP_SUMMARY_PARTS_OF_3) ? 3 : SCR_SUMMARY_PART_RANKS;
}

/* A part's writer takes its ranks' rank filemaps from its inbox (which
 * holds the part's, packed, never the job's) one at a time, in rank order,
 * as scr_summary_write_part asks for their lists: it unpacks one rank's
 * tree at a time. */
struct part_gather {
    struct scr_run *run;
    int id;
    const scr_filemap *mine; /* the writer's own rank filemap */
    struct scr_inbox *inbox; /* the part's other rank filemaps */
    scr_filemap *theirs;     /* the rank filemap of the rank being listed */
    struct scr_summary_rank_list list;
};

static int gather_rank_files(void *ctx, int rank, int *out_expected,
                             const struct scr_summary_file **out_files, int *out_n)
{
    struct part_gather *g = ctx;
    scr_summary_rank_list_free(&g->list);
    scr_filemap_delete(g->theirs);
    g->theirs = NULL;
    const scr_filemap *rmap = g->mine;
    int rc = SCR_SUCCESS;
    if (rank != g->run->rank) {
        rc = scr_inbox_take(g->inbox, rank, &g->theirs);
        rmap = g->theirs;
    }
    if (rc == SCR_SUCCESS) rc = scr_summary_rank_list_of(rmap, g->id, rank, &g->list);
    if (rc != SCR_SUCCESS) return rc;
    *out_expected = g->list.expected;
    *out_files = g->list.files;
    *out_n = g->list.n;
    return SCR_SUCCESS;
}

/* Every rank: its rank filemap rmap goes to the first rank of its part of
 * the summary, which receives each of its part's ranks' (mpi_inbox.h) and
 * writes the part into dsdir, noted in undo when it is new. Point to
 * point: a writer receives every message of its part, whatever failed, so
 * that no sender waits for it; the ranks agree on the outcome after. */
static int write_summary_part(struct scr_run *run, int id, const char *dsdir,
                              const scr_filemap *rmap, struct scr_undo *undo)
{
    int part_ranks = summary_part_ranks();
    int part = run->rank / part_ranks, first = part * part_ranks;
    int count = run->ranks - first < part_ranks ? run->ranks - first : part_ranks;
    if (run->rank != first) return scr_inbox_send(rmap, first, TAG_SUMMARY_PART, run->world);

    struct part_gather g = {.run = run, .id = id, .mine = rmap};
    char *top = NULL, *path = NULL;
    int rc = scr_inbox_open(run->world, TAG_SUMMARY_PART, first, count, run->rank, &g.inbox);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &top);
    if (rc == SCR_SUCCESS) rc = scr_summary_part_path(top, part, &path);
    int created = path != NULL && is_absent(path);
    if (rc == SCR_SUCCESS && part > 0 && first + count == run->ranks &&
        scr_testpoint_on(SCR_TP_SUMMARY_LAST_PART_FAILS)) {
        scr_err("test point: not writing %s, the last part of the summary", path);
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_summary_write_part(path, part, first, count, gather_rank_files, &g);
    if (rc == SCR_SUCCESS && created) rc = scr_undo_note_file(undo, path);
    scr_summary_rank_list_free(&g.list);
    scr_filemap_delete(g.theirs);
    /* the rest of the part's messages, when the writing stopped early */
    int crc = scr_inbox_close(g.inbox);
    if (rc == SCR_SUCCESS) rc = crc;
    free(path);
    free(top);
    return rc;
}

/* Rank 0: summary.scr, which names the parts the ranks wrote, noted in
 * undo when it is new (*out_path, then, names it: a new string). */
static int write_summary(struct scr_run *run, const char *dsdir, const scr_dataset *desc,
                         struct scr_undo *undo, char **out_path)
{
    char *path = NULL;
    int rc = scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) goto out;
    int created = is_absent(path);
    rc = scr_summary_write_top(path, desc, run->ranks, summary_part_ranks());
    if (rc != SCR_SUCCESS) goto out;
    if (created) rc = scr_undo_note_file(undo, path);
    if (rc == SCR_SUCCESS && created) {
        *out_path = path;
        path = NULL;
    }
out:
    free(path);
    return rc;
}

/* List the flushed dataset desc in the index; a checkpoint becomes current. */
static int list_flushed(scr_kvtree *index, void *ctx)
{
    const scr_dataset *desc = ctx;
    int id = 0, older = 0, rc = SCR_SUCCESS;
    const char *name = NULL;
    scr_dataset_get_id(desc, &id);
    scr_dataset_get_name(desc, &name);
    const scr_dataset *listed = NULL;
    if (scr_index_file_get_dataset(index, id, &listed) == SCR_SUCCESS &&
        !scr_dataset_claim_same(listed, desc)) {
        const char *other = "?", *jobid = "?";
        scr_dataset_get_name(listed, &other);
        scr_dataset_get_jobid(listed, &jobid);
        scr_err("the index lists dataset %d as %s of job %s; %s is not listed in its place: two "
                "jobs write to "
                "one prefix",
                id, other, jobid, name);
        return SCR_ERR_STATE;
    }
    /* a dataset of the same name written earlier is superseded: its files
     * at the same paths were just overwritten */
    if (scr_index_file_lookup_id(index, name, &older) == SCR_SUCCESS && older != id) {
        scr_dbg(1, "dataset %d (%s) replaces dataset %d of the same name in the index", id, name,
                older);
        rc = scr_index_file_remove(index, older);
        if (rc != SCR_SUCCESS) return rc;
    }
    char stamp[SCR_INDEX_TIMESTAMP_SIZE];
    rc = scr_index_file_set_dataset(index, desc, 1);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_format_timestamp(time(NULL), stamp, sizeof(stamp));
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_index_file_mark_flushed(index, id, stamp);
    if (rc != SCR_SUCCESS) return rc;
    if (scr_dataset_is_checkpoint(desc)) rc = scr_index_file_set_current(index, name);
    return rc;
}

/* Rank 0: list the dataset in the index. */
static int add_to_index(struct scr_run *run, const scr_dataset *desc)
{
    return scr_index_file_update(run->index_path, list_flushed, (void *)desc);
}

/* Rank 0, once every part of the summary is written: summary.scr, then
 * the index entry. When the entry cannot be made, the flush fails and
 * every rank takes back the files it created once all agree: a summary
 * this attempt wrote goes here, before that, so that at no instant does a
 * summary call the dataset whole while its files (and parts) go (an index
 * rebuild would believe it). */
static int summarize(struct scr_run *run, const char *dsdir, const scr_dataset *desc,
                     struct scr_undo *undo)
{
    char *created = NULL;
    int rc = write_summary(run, dsdir, desc, undo, &created);
    if (rc == SCR_SUCCESS) rc = add_to_index(run, desc); /* the index is replaced whole, or kept */
    if (rc != SCR_SUCCESS && created != NULL && unlink(created) != 0 && errno != ENOENT)
        scr_err("cannot remove %s, the summary of a flush that failed: %s", created,
                strerror(errno));
    free(created);
    return rc;
}

/* After the ranks agreed that the flush failed: every rank removes the
 * files it created, then (once all have) the directories that are empty
 * again. A rank whose copy the watchdog abandoned (abandoned) removes
 * nothing: that could block on the file system that stopped answering, and
 * the abandoned copy removes its own file if the kernel ever returns.
 * Collective. *out_removed: the files removed on all ranks;
 * *out_abandoned: the ranks that abandoned a copy. */
static void take_back(struct scr_run *run, struct scr_undo *undo, int abandoned, int *out_removed,
                      int *out_abandoned)
{
    int mine[2] = {0, abandoned != 0}, all[2];
    if (!abandoned) scr_undo_files(undo, &mine[0]);
    /* the sum doubles as the wait: a directory one rank made may hold
     * another rank's file until that rank has removed it */
    if (scr_mpi_check(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, run->world),
                      "counting the files a failed flush removed") != SCR_SUCCESS) {
        all[0] = mine[0];
        all[1] = mine[1];
    }
    *out_removed = all[0];
    *out_abandoned = all[1];
    if (!abandoned) scr_undo_dirs(undo);
}

/* A claim this attempt made goes with it when it fails. */
static int note_claim(struct scr_undo *undo, const char *dsdir)
{
    char *path = NULL;
    int rc = scr_path_join(dsdir, SCR_DATASET_CLAIM_NAME, &path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_undo_note_file(undo, path);
    free(path);
    return rc;
}

/* Whether the flush of dataset id may start (*out_view: this rank's part
 * of it, read once; freed here when it may not): every rank has a record
 * of it, and no copy the watchdog abandoned is still out. Collective; all
 * ranks agree on the outcome (SCR_ERR_NOTFOUND, SCR_ERR_TIMEOUT). */
static int flush_may_start(struct scr_run *run, int id, struct scr_dataset_view **out_view)
{
    int rc = scr_dataset_view_of(run->map, id, run->rank, out_view);
    if (rc == SCR_ERR_NOTFOUND || (rc == SCR_SUCCESS && (*out_view)->desc == NULL)) {
        scr_err("cannot flush dataset %d: this rank has no record of it", id);
        rc = SCR_ERR_NOTFOUND;
    }
    /* a copy the watchdog abandoned may still write to the prefix once its
     * file system answers again: no flush starts before it has returned */
    char late[1024] = "";
    int waiting =
        run->params->watchdog_pfs > 0 ? scr_copy_timed_pending("flush", late, sizeof(late)) : 0;
    if (waiting > 0)
        scr_warn("watchdog: flush of dataset %d not started: the abandoned copy to %s has not "
                 "returned; the "
                 "dataset stays in cache",
                 id, late);
    int ok = 0;
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS && waiting == 0, run->world, &ok);
    if (mrc == SCR_SUCCESS && ok) return SCR_SUCCESS;
    scr_dataset_view_free(*out_view);
    *out_view = NULL;
    if (mrc != SCR_SUCCESS) return mrc;
    /* all ranks agree on why: */
    int none_waiting = 0;
    mrc = scr_comm_all_true(waiting == 0, run->world, &none_waiting);
    if (mrc != SCR_SUCCESS) return mrc;
    return none_waiting ? SCR_ERR_NOTFOUND : SCR_ERR_TIMEOUT;
}

/* The dataset's directory on the prefix (*out_dsdir), where the flush
 * records that it is flushing; rank 0 makes it and claims it for desc.
 * What it creates is noted in undo. */
static int prepare_dataset_dir(struct scr_run *run, int id, int in_cache, const scr_dataset *desc,
                               char **out_dsdir, struct scr_undo *undo)
{
    int rc = prefix_dataset_dir(run, id, out_dsdir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_cache_note_location(run, id, in_cache, 0, 1);
    if (rc != SCR_SUCCESS || run->rank != 0) return rc;
    rc = scr_undo_note_missing_dirs(undo, *out_dsdir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mkdir_p(*out_dsdir, 0700);
    if (rc != SCR_SUCCESS) return rc;
    /* nothing is written into a dataset directory another job's dataset owns */
    int claimed = 0;
    rc = scr_dataset_claim(*out_dsdir, desc, &claimed);
    if (rc != SCR_SUCCESS) return rc;
    if (claimed) rc = note_claim(undo, *out_dsdir);
    return rc;
}

/* Every rank has copied its part of dataset id into dsdir (copy_rc: how
 * that went); each writes its rank filemap and, once all have, the first
 * rank of each part of the summary writes that part, and once all parts
 * are written rank 0 writes summary.scr and the index entry. Collective;
 * all ranks agree on the outcome (*out_failed: they agreed that the flush
 * failed). */
static int index_copied(struct scr_run *run, int id, const scr_dataset *desc, const char *dsdir,
                        struct scr_undo *undo, int copy_rc, int *out_failed)
{
    scr_filemap *rmap = NULL;
    int ok = 0;
    int rc = copy_rc;
    if (rc == SCR_SUCCESS) rc = write_my_rank_filemap(run, id, dsdir, &rmap, undo);
    /* a rank says it is done even when its part failed: rank 0 counts every rank in */
    int prc = scr_flush_progress_rank_done(run, id); /* rank 0 shows it at SCR_DEBUG >= 1 */
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS && prc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) goto out;
    if (!ok) {
        *out_failed = 1;
        mrc = SCR_ERR_IO;
        goto out;
    }
    /* each part's writer needs its ranks' files, no rank every rank's */
    rc = write_summary_part(run, id, dsdir, rmap, undo);
    /* all ranks agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) goto out;
    if (!ok) {
        *out_failed = 1;
        mrc = SCR_ERR_IO;
        goto out;
    }
    rc = SCR_SUCCESS;
    if (run->rank == 0) rc = summarize(run, dsdir, desc, undo);
    /* all ranks agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && !ok) {
        *out_failed = 1;
        mrc = SCR_ERR_IO;
    }
out:
    scr_filemap_delete(rmap);
    return mrc;
}

/* Rank 0: the flush event and one line on how the flush of dataset id
 * (descriptor desc, begun at t0) ended: mrc, whether the ranks agreed it
 * failed, the files taken back and the ranks whose copy was abandoned. */
static void say_flush_outcome(struct scr_run *run, const struct scr_flush_attempt *a, int mrc,
                              int failed, int removed, int abandoned_ranks)
{
    const char *name = "?";
    int id = a->id;
    double t0 = a->t0;
    scr_dataset_get_name(a->desc, &name);
    uint64_t bytes = 0;
    scr_dataset_get_size(a->desc, &bytes);
    scr_run_event(run, SCR_EVENT_FLUSH, mrc == SCR_SUCCESS ? SCR_EVENT_OK : SCR_EVENT_FAILED, id,
                  name, (long long)bytes, scr_run_now() - t0,
                  mrc == SCR_SUCCESS ? NULL
                  : failed           ? "copying to the prefix or indexing failed"
                                     : "recording where the dataset is failed",
                  a->fields, a->nfields);
    if (mrc == SCR_SUCCESS)
        scr_dbg(1, "flushed dataset %d (%s) to %s in %.3f s", id, name, run->prefix,
                scr_run_now() - t0);
    else if (abandoned_ranks > 0)
        scr_warn("flush of dataset %d (%s) to %s abandoned: a copy on %d rank%s took more than "
                 "SCR_WATCHDOG_TIMEOUT_PFS=%d s; it is not in the index and stays in cache",
                 id, name, run->prefix, abandoned_ranks, abandoned_ranks == 1 ? "" : "s",
                 run->params->watchdog_pfs);
    else if (failed)
        scr_err("flush of dataset %d (%s) to %s failed; it is not in the index, and the %d file%s "
                "the flush had written there %s removed",
                id, name, run->prefix, removed, removed == 1 ? "" : "s",
                removed == 1 ? "was" : "were");
    else
        scr_err("flush of dataset %d (%s) to %s failed; it is not in the index", id, name,
                run->prefix);
}

int scr_flush_begin(struct scr_run *run, int id, int in_cache, struct scr_flush_attempt *out)
{
    memset(out, 0, sizeof(*out));
    out->id = id;
    out->in_cache = in_cache;
    /* the attempt keeps its own view: the filemap's entry may go while a
     * background flush runs */
    int mrc = flush_may_start(run, id, &out->view); /* all ranks agree */
    if (mrc != SCR_SUCCESS) return mrc;
    out->desc = out->view->desc;

    out->t0 = scr_run_now();
    int ok = 0;
    int rc = prepare_dataset_dir(run, id, in_cache, out->desc, &out->dsdir, &out->undo);
    /* all ranks agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && ok) return SCR_SUCCESS;
    if (mrc == SCR_SUCCESS) { /* they agreed that it failed: take back what it made */
        int removed = 0;
        scr_undo_files(&out->undo, &removed);
        scr_undo_dirs(&out->undo);
    }
    scr_flush_attempt_free(out);
    scr_run_event(run, SCR_EVENT_FLUSH, SCR_EVENT_FAILED, id, NULL, -1, scr_run_now() - out->t0,
                  "its directory on the prefix could not be made or belongs to another dataset",
                  NULL, 0);
    return mrc != SCR_SUCCESS ? mrc : SCR_ERR_IO;
}

int scr_flush_conclude(struct scr_run *run, struct scr_flush_attempt *a, int copy_rc)
{
    int id = a->id,
        failed = 0; /* failed: all ranks agree that the flush failed, take back what it wrote */
    int abandoned = copy_rc == SCR_ERR_TIMEOUT; /* this rank leaves the prefix alone from here on */
    int mrc =
        index_copied(run, id, a->desc, a->dsdir, &a->undo, copy_rc, &failed); /* all ranks agree */
    int removed = 0, abandoned_ranks = 0;
    if (failed) take_back(run, &a->undo, abandoned, &removed, &abandoned_ranks);
    if (abandoned_ranks > 0) mrc = SCR_ERR_TIMEOUT;
    scr_undo_clear(&a->undo);

    /* where the dataset is, recorded whatever the outcome; its failure is
     * the outcome only when all else went well */
    int nrc = scr_cache_note_location(run, id, a->in_cache, mrc == SCR_SUCCESS, 0);
    if (mrc == SCR_SUCCESS) mrc = nrc;
    /* SCR_PREFIX_SIZE: older checkpoints leave the prefix once this one is there */
    if (mrc == SCR_SUCCESS && run->rank == 0 && run->params->prefix_size > 0 &&
        scr_prefix_trim(run->prefix, run->params->prefix_size, id, NULL) != SCR_SUCCESS)
        scr_warn("SCR_PREFIX_SIZE=%d: could not delete older checkpoints from %s",
                 run->params->prefix_size, run->prefix);
    if (run->rank == 0) say_flush_outcome(run, a, mrc, failed, removed, abandoned_ranks);
    /* a caller may abort the job as soon as it returns: rank 0's reason goes out first */
    if (failed)
        scr_mpi_check(MPI_Barrier(run->world), "waiting for the flush's failure to be reported");
    return mrc;
}

void scr_flush_attempt_free(struct scr_flush_attempt *a)
{
    scr_undo_clear(&a->undo);
    scr_dataset_view_free(a->view);
    free(a->dsdir);
    a->view = NULL;
    a->desc = NULL;
    a->dsdir = NULL;
}

int scr_flush_dataset(struct scr_run *run, int id, int in_cache)
{
    struct scr_flush_attempt a;
    int mrc = scr_flush_begin(run, id, in_cache, &a); /* all ranks agree */
    if (mrc != SCR_SUCCESS) return mrc;
    /* a file several ranks list is read for its CRC on one of them */
    struct scr_shared_crc plan;
    int rc = scr_shared_crc_plan(run, id, a.desc, &plan); /* all ranks agree */
    if (rc == SCR_SUCCESS) {
        rc = copy_in_window(run, a.view, a.dsdir, &a.undo, &plan);
        rc = scr_shared_crc_share(run, &plan, a.view, rc);
    }
    scr_shared_crc_free(&plan);
    mrc = scr_flush_conclude(run, &a, rc); /* all ranks agree */
    scr_flush_attempt_free(&a);
    return mrc;
}

int scr_flush_is_flushed(struct scr_run *run, int id, int *out_flushed)
{
    int flushed = 0;
    if (run->rank == 0) {
        scr_kvtree *flush = scr_kvtree_new();
        if (flush != NULL && scr_flush_file_read(run->flush_path, flush) == SCR_SUCCESS)
            scr_flush_file_has_location(flush, id, SCR_FLUSH_LOCATION_PFS, &flushed);
        scr_kvtree_delete(flush);
    }
    int rc = scr_mpi_check(MPI_Bcast(&flushed, 1, MPI_INT, 0, run->world),
                           "sharing whether a dataset is flushed");
    if (rc == SCR_SUCCESS) *out_flushed = flushed;
    return rc;
}
