/* run_rebuild.c — bring every cached dataset back after a restart.
 *
 * For each dataset in cache, newest first, after one vote on what the ranks
 * hold of it (who wrote it, who has its descriptor, whether it is in cache,
 * whole, protected):
 *   0. when some rank lacks files of its own (a lost node, a file missing
 *      or short), every rank reads the files it holds, which the rebuild
 *      reads, and checks their CRCs: a damaged file is reported once and counts
 *      as lost from here on (run_crc.c). With nothing lost, no byte is read
 *      at SCR_Init: a restart checks the files it reads while the
 *      application reads them (run_crc_async.c);
 *   1. the dataset descriptor goes from the lowest rank that has one to all;
 *   2. every rank tells each other rank what it holds of theirs (its
 *      redundancy descriptor, its file list, whether those files are intact:
 *      the rank's own files left on a node it no longer runs on, or a
 *      PARTNER copy);
 *   3. a rank without intact files of its own takes them from a holder that
 *      has them all, in rounds where each rank sends to at most one rank and
 *      receives from at most one, checking their CRCs as they are written;
 *   4. what is still missing is rebuilt with the dataset's own scheme (XOR,
 *      RS) within its redundancy set;
 *   5. a dataset that is still incomplete anywhere is deleted, with one line
 *      saying why;
 *   (steps 2 to 6 are skipped, as is the rebuild event, when every rank
 *   holds its own files whole: nothing is lost, nothing is rebuilt)
 *   6. a dataset some rank needed files of is protected again, since a lost
 *      member also held redundancy data of others.
 * A checkpoint written in place on the prefix (SCR_CACHE_BYPASS) has nothing
 * in cache: it is kept when every rank finds its files there at their
 * recorded sizes, else forgotten (its files stay), with a line naming the
 * file that is missing or short.
 * The newest complete checkpoint, in cache or in place, becomes the restart
 * candidate, as in SCR 3.1 whatever SCR_FETCH says. A dataset
 * written by another number of ranks is neither rebuilt nor deleted: its
 * redundancy sets do not fit this run, and a restart that reads it whole
 * (run_fetch_whole.c) uses what each node's cache holds of it. */
#include "dataset_view.h"
#include "run_rebuild.h"
#include "flush_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_stream.h"
#include "mpi_exchange.h"
#include "reddesc.h"
#include "redundancy.h"
#include "run_cache.h"
#include "run_crc.h"
#include "run_events.h"
#include "run_redundancy_ctx.h"
#include "scr_err.h"
#include "scr_run.h"
#include "util_io.h"
#include "util_crc_parts.h"
#include "util_log.h"
#include "util_padfile.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAG_MOVE 5001

/* The descriptor of dataset id this node's filemap holds for some rank, or NULL. */
static const scr_dataset *descriptor_here(struct scr_run *run, int id)
{
    int *ranks = NULL, n = 0;
    const scr_dataset *desc = NULL;
    scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &n);
    for (int i = 0; i < n && desc == NULL; i++)
        if (scr_filemap_get_dataset(run->map, id, ranks[i], &desc) != SCR_SUCCESS) desc = NULL;
    free(ranks);
    return desc;
}

/* 1. The dataset descriptor from rank src, the lowest that has one (INT_MAX:
 * none has, and *out_desc is NULL). Collective. */
static int share_descriptor(struct scr_run *run, int id, int src, scr_kvtree **out_desc)
{
    *out_desc = NULL;
    if (src == INT_MAX) return SCR_SUCCESS;
    scr_kvtree *copy = run->rank == src ? scr_kvtree_dup(descriptor_here(run, id)) : NULL;
    int rc = scr_comm_bcast_kvtree(&copy, src, run->world);
    if (rc == SCR_SUCCESS)
        *out_desc = copy;
    else
        scr_kvtree_delete(copy);
    return rc;
}

/* Are the files of view (one rank's of a dataset) all here with their size? */
static int held_files_present(const struct scr_dataset_view *view)
{
    int ok = view->nfiles == view->expected_files;
    for (int f = 0; ok && f < view->nfiles; f++) {
        const struct scr_dataset_view_file *file = &view->files[f];
        struct stat st;
        ok = file->meta != NULL && file->complete && file->has_size && stat(file->path, &st) == 0 &&
             (uint64_t)st.st_size == file->size;
    }
    return ok;
}

/* Whether this rank holds rank's files of dataset id, all here with their size. */
static int rank_files_present(struct scr_run *run, int id, int rank)
{
    struct scr_dataset_view *view = NULL;
    if (scr_dataset_view_of(run->map, id, rank, &view) != SCR_SUCCESS) return 0;
    int ok = held_files_present(view);
    scr_dataset_view_free(view);
    return ok;
}

/* What this rank holds of rank r's files of dataset id (view), in info:
 * r's redundancy record, whether the files are intact, who holds them,
 * their metadata. */
static int describe_holding(struct scr_run *run, const struct scr_dataset_view *view,
                            scr_kvtree *info)
{
    const char *holder = NULL;
    if (view->reddesc != NULL &&
        scr_kvtree_set(info, "REDDESC", scr_kvtree_dup(view->reddesc)) == NULL)
        return SCR_ERR_NOMEM;
    int rc = scr_kvtree_util_set_int(info, "INTACT", held_files_present(view));
    if (rc != SCR_SUCCESS) return rc;
    if (scr_filemap_get_tag(run->map, view->id, view->rank, "HOLDER", &holder) == SCR_SUCCESS) {
        rc = scr_kvtree_util_set_str(info, "HOLDER", holder);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_kvtree_util_set_int(info, "FILES", view->nfiles);
    if (rc != SCR_SUCCESS) return rc;
    for (int f = 0; f < view->nfiles; f++) {
        const scr_meta *m = view->files[f].meta;
        scr_kvtree *slot = scr_kvtree_set_kv_int(info, "FILE", f);
        if (slot == NULL || m == NULL || scr_kvtree_copy(slot, m) != SCR_SUCCESS)
            return SCR_FAILURE;
    }
    return SCR_SUCCESS;
}

/* What this rank holds of other ranks' files of dataset id, in send. */
static int list_holdings(struct scr_run *run, int id, scr_kvtree *send)
{
    int *ranks = NULL, n = 0, rc = SCR_SUCCESS;
    scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &n);
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r == run->rank) continue;
        if (r >= run->ranks) { /* files of a larger earlier run: no owner now */
            scr_dbg(1, "dataset %d: files of rank %d, which this run does not have", id, r);
            continue;
        }
        struct scr_dataset_view *view = NULL;
        scr_kvtree *info = scr_kvtree_set_kv_int(send, "RANK", r);
        rc = info != NULL ? scr_dataset_view_of(run->map, id, r, &view) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = describe_holding(run, view, info);
        scr_dataset_view_free(view);
        if (rc != SCR_SUCCESS) break;
    }
    free(ranks);
    return rc;
}

/* 2. Tell each rank what this rank holds of theirs. */
static int announce_holdings(struct scr_run *run, int id, scr_kvtree **out_recv)
{
    scr_kvtree *send = scr_kvtree_new();
    int rc = send != NULL ? list_holdings(run, id, send) : SCR_ERR_NOMEM;
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_comm_exchange(send, run->world, out_recv);
out:
    scr_kvtree_delete(send);
    return rc;
}

/* This rank's redundancy record: its own, else one a holder sent. */
static const scr_kvtree *my_record(struct scr_run *run, int id, const scr_kvtree *recv)
{
    const scr_kvtree *red = NULL;
    if (scr_filemap_get_reddesc(run->map, id, run->rank, &red) == SCR_SUCCESS) return red;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(recv, "RANK")); e;
         e = scr_kvtree_elem_next(e)) {
        red = scr_kvtree_get(scr_kvtree_elem_hash(e), "REDDESC");
        if (red != NULL) return red;
    }
    return NULL;
}

/* Forget this rank's own (incomplete) files of dataset id, deleting them. */
static int drop_my_files(struct scr_run *run, int id)
{
    struct scr_dataset_view *view = NULL;
    int rc = scr_dataset_view_of(run->map, id, run->rank, &view);
    if (rc == SCR_ERR_NOTFOUND) return SCR_SUCCESS; /* nothing listed */
    for (int f = 0; rc == SCR_SUCCESS && f < view->nfiles; f++) {
        const char *path = view->files[f].path;
        if (unlink(path) != 0 && errno != ENOENT)
            scr_warn("cannot delete %s: %s", path, strerror(errno));
        rc = scr_filemap_remove_file(run->map, id, run->rank, path);
    }
    scr_dataset_view_free(view);
    return rc;
}

/* One side of a move: the files as one logical file, and (receiving) the
 * CRCs of what arrives. */
struct move_side {
    struct scr_padset set;
    scr_crc_parts *crc;
};

static void move_side_free(struct move_side *s)
{
    scr_padset_close(&s->set);
    scr_crc_parts_free(s->crc);
    memset(s, 0, sizeof(*s));
}

/* The files that arrived against the CRCs their holder recorded: one that
 * differs is reported and marked incomplete, so that it counts as lost. */
static int check_arrivals(struct scr_run *run, int id, struct move_side *in)
{
    int rc = SCR_SUCCESS, changed = 0;
    for (int f = 0; rc == SCR_SUCCESS && in->crc != NULL && f < in->set.count; f++) {
        const char *path = in->set.paths[f];
        const scr_meta *m = NULL;
        uint32_t recorded = 0, got = 0;
        if (scr_filemap_get_meta(run->map, id, run->rank, path, &m) != SCR_SUCCESS ||
            scr_meta_get_crc32(m, &recorded) != SCR_SUCCESS)
            continue;
        if (scr_crc_parts_get(in->crc, (size_t)f, &got) != SCR_SUCCESS) {
            scr_err("%s: the CRC of what arrived is unknown", path);
            rc = SCR_FAILURE;
        } else if (got != recorded) {
            scr_crc_say_damaged(run, id, run->rank, path, " (as received)", got, recorded);
            rc = scr_crc_record(run, id, run->rank, path, recorded, 0);
            changed = 1;
        }
    }
    if (rc == SCR_SUCCESS && changed) rc = scr_cache_save_filemap(run);
    return rc;
}

/* The sender's side: the files this rank holds for owner, opened. */
static int outgoing(struct scr_run *run, int id, int owner, struct move_side *s)
{
    struct scr_dataset_view *view = NULL;
    memset(s, 0, sizeof(*s));
    int rc = scr_dataset_view_of(run->map, id, owner, &view);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* nothing listed: nothing to send */
    if (rc != SCR_SUCCESS) return rc;
    int n = view != NULL ? view->nfiles : 0;
    rc = scr_padset_init(&s->set, n);
    if (rc != SCR_SUCCESS) goto out;
    for (int f = 0; f < n; f++) {
        const struct scr_dataset_view_file *file = &view->files[f];
        if (file->meta == NULL || !file->has_size) {
            rc = SCR_ERR_NOTFOUND;
            goto out;
        }
        rc = scr_padset_add(&s->set, file->path, file->size);
        if (rc != SCR_SUCCESS) goto out;
    }
    /* the total is what the peer expects, whatever fails below */
    rc = scr_padset_open(&s->set, O_RDONLY);
out:
    scr_dataset_view_free(view);
    return rc;
}

/* The receiver's side: register the files a holder announced, under our own
 * dataset directory, before any byte arrives. */
static int incoming(struct scr_run *run, const struct scr_redundancy_ctx *ctx, int id,
                    const scr_kvtree *info, struct move_side *s)
{
    int n = 0;
    uint64_t announced = 0;
    memset(s, 0, sizeof(*s));
    int rc = scr_kvtree_util_get_int(info, "FILES", &n);
    if (rc != SCR_SUCCESS) return rc;
    /* the bytes the holder will send, known before anything here can fail */
    for (int f = 0; f < n; f++) {
        uint64_t size = 0;
        if (scr_meta_get_filesize(scr_kvtree_get_kv_int(info, "FILE", f), &size) == SCR_SUCCESS)
            announced += size;
    }
    rc = scr_redundancy_list_described(ctx, id, run->rank, info, NULL, &s->set);
    s->set.total = announced;
    if (rc != SCR_SUCCESS) return rc;
    if ((rc = scr_filemap_set_expected_files(run->map, id, run->rank, n)) != SCR_SUCCESS) return rc;
    if ((rc = scr_cache_save_filemap(run)) != SCR_SUCCESS) return rc;
    if ((rc = scr_padset_open(&s->set, O_WRONLY | O_CREAT | O_TRUNC)) != SCR_SUCCESS) return rc;
    if (run->params->crc_in_cache &&
        (s->crc = scr_crc_parts_new(s->set.parts, (size_t)s->set.count)) == NULL)
        return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* The holder this rank takes its files from (need: it lacks them) in
 * recv, the announcements: *out_source (-1: none) and *out_chosen, its
 * announcement. One with everything, preferring the rank's own files over
 * a copy. */
static void choose_holder(const scr_kvtree *recv, int need, int *out_source,
                          const scr_kvtree **out_chosen)
{
    int source = -1;
    const scr_kvtree *chosen = NULL;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(recv, "RANK")); need && e;
         e = scr_kvtree_elem_next(e)) {
        const scr_kvtree *info = scr_kvtree_elem_hash(e);
        int intact = 0;
        scr_kvtree_util_get_int(info, "INTACT", &intact);
        if (!intact) continue;
        int is_copy = scr_kvtree_get(info, "HOLDER") != NULL;
        if (chosen == NULL || (!is_copy && scr_kvtree_get(chosen, "HOLDER") != NULL)) {
            chosen = info;
            source = atoi(scr_kvtree_elem_key(e));
        }
    }
    *out_source = source;
    *out_chosen = chosen;
}

/* Ask source (-1: nobody) for this rank's files; *out_asked: the ranks
 * that ask this rank for theirs. Collective; all ranks agree on the outcome. */
static int ask_holder(struct scr_run *run, int source, scr_kvtree **out_asked)
{
    scr_kvtree *ask = scr_kvtree_new();
    int rc = ask ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && source >= 0)
        rc = scr_kvtree_util_set_int(scr_kvtree_set_kv_int(ask, "RANK", source), "WANT", 1);
    int ok = 0;
    /* all ranks agree: */
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && ok) mrc = scr_comm_exchange(ask, run->world, out_asked);
    scr_kvtree_delete(ask);
    if (mrc != SCR_SUCCESS || !ok) return mrc != SCR_SUCCESS ? mrc : SCR_FAILURE;
    return SCR_SUCCESS;
}

/* The ranks in asked, in rank order, in a new array (*out_askers, *out_n;
 * an array of none on failure). */
static int sorted_askers(const scr_kvtree *asked, int **out_askers, int *out_n)
{
    int n = 0, k = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(asked, "RANK")); e;
         e = scr_kvtree_elem_next(e))
        n++;
    int *askers = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    *out_askers = askers;
    *out_n = 0;
    if (askers == NULL) return SCR_ERR_NOMEM;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_kvtree_get(asked, "RANK")); e;
         e = scr_kvtree_elem_next(e))
        askers[k++] = atoi(scr_kvtree_elem_key(e));
    for (int i = 0; i < n; i++) /* exchange keys arrive in any order: sort */
        for (int j = i + 1; j < n; j++)
            if (askers[j] < askers[i]) {
                int t = askers[i];
                askers[i] = askers[j];
                askers[j] = t;
            }
    *out_n = n;
    return SCR_SUCCESS;
}

/* The rounds of the moves: a holder serves its askers (nask of them, in
 * rank order; rc: whether they are known) one per round and tells each
 * its round. *out_my_round: the round this rank takes its files from
 * source in (-1: none); *out_max_round: the last round of any rank;
 * *out_ok: every rank could plan. Collective. */
static int plan_rounds(struct scr_run *run, const int *askers, int nask, int rc, int source,
                       int *out_my_round, int *out_max_round, int *out_ok)
{
    scr_kvtree *rounds = scr_kvtree_new(), *my_round_tree = NULL;
    if (rc == SCR_SUCCESS && rounds == NULL) rc = SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < nask; i++)
        rc = scr_kvtree_util_set_int(scr_kvtree_set_kv_int(rounds, "RANK", askers[i]), "ROUND", i);
    int ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && ok) mrc = scr_comm_exchange(rounds, run->world, &my_round_tree);
    int my_round = -1, last = nask - 1, max_round = -1;
    if (mrc == SCR_SUCCESS && ok && source >= 0)
        scr_kvtree_util_get_int(scr_kvtree_get_kv_int(my_round_tree, "RANK", source), "ROUND",
                                &my_round);
    if (my_round > last) last = my_round;
    if (mrc == SCR_SUCCESS && ok)
        mrc = scr_mpi_check(MPI_Allreduce(&last, &max_round, 1, MPI_INT, MPI_MAX, run->world),
                            "counting rounds");
    scr_kvtree_delete(rounds);
    scr_kvtree_delete(my_round_tree);
    *out_my_round = my_round;
    *out_max_round = max_round;
    *out_ok = ok;
    return mrc;
}

/* One round: stream what this rank holds for dest (MPI_PROC_NULL: none)
 * while taking its own files from src (chosen: src's announcement;
 * MPI_PROC_NULL: none). *out_status: how this rank's sides went; returns
 * the outcome of the stream. */
static int move_round(struct scr_run *run, const struct scr_redundancy_ctx *ctx, int id,
                      const scr_kvtree *chosen, int dest, int src, int *out_status)
{
    struct move_side out = {0}, in = {0};
    int src_rc = SCR_SUCCESS, dst_rc = SCR_SUCCESS;
    if (dest != MPI_PROC_NULL) src_rc = outgoing(run, id, dest, &out);
    if (src != MPI_PROC_NULL) dst_rc = incoming(run, ctx, id, chosen, &in);
    /* both sides know both totals from the announcements, so they stay in step */
    struct scr_stream_side to = {out.set.parts, (size_t)out.set.count, out.set.total, dest, NULL};
    struct scr_stream_side from = {in.set.parts, (size_t)in.set.count, in.set.total, src, in.crc};
    int mrc = scr_stream_exchange(&to, &from, run->world, TAG_MOVE, ctx->bufs[0], ctx->bufs[1],
                                  ctx->piece, scr_stream_depth(ctx->buf_size, ctx->piece), &src_rc,
                                  &dst_rc);
    if (dst_rc == SCR_SUCCESS) dst_rc = scr_padset_sync(&in.set);
    if (src != MPI_PROC_NULL && dst_rc == SCR_SUCCESS) dst_rc = check_arrivals(run, id, &in);
    if (src != MPI_PROC_NULL && dst_rc == SCR_SUCCESS) {
        const scr_kvtree *red = scr_kvtree_get(chosen, "REDDESC");
        if (red != NULL) dst_rc = scr_filemap_set_reddesc(run->map, id, run->rank, red);
        if (dst_rc == SCR_SUCCESS) dst_rc = scr_cache_save_filemap(run);
    }
    move_side_free(&out);
    move_side_free(&in);
    *out_status = src_rc != SCR_SUCCESS ? src_rc : dst_rc;
    return mrc;
}

/* 3. Move files from holders to owners that lack theirs; *out_needed: this
 * rank lacked its own files. */
static int move_files(struct scr_run *run, const struct scr_redundancy_ctx *ctx, int id,
                      const scr_kvtree *recv, int *out_needed)
{
    int source = -1, need = !scr_cache_rank_is_intact(run, id);
    const scr_kvtree *chosen = NULL;
    *out_needed = need;
    choose_holder(recv, need, &source, &chosen);
    scr_kvtree *asked = NULL;
    int mrc = ask_holder(run, source, &asked); /* all ranks agree */
    if (mrc != SCR_SUCCESS) {
        scr_kvtree_delete(asked);
        return mrc;
    }
    /* a holder serves its askers one per round, in rank order, and tells each its round */
    int *askers = NULL, nask = 0, my_round = -1, max_round = -1, ok = 0;
    int rc = sorted_askers(asked, &askers, &nask);
    scr_kvtree_delete(asked);
    mrc = plan_rounds(run, askers, nask, rc, source, &my_round, &max_round, &ok);

    /* the rounds: stream to one asker while taking our own files from our holder */
    int status = (mrc == SCR_SUCCESS && ok) ? SCR_SUCCESS : SCR_FAILURE;
    if (status == SCR_SUCCESS && my_round >= 0) status = drop_my_files(run, id);
    for (int round = 0; mrc == SCR_SUCCESS && ok && round <= max_round; round++) {
        int dest = round < nask ? askers[round] : MPI_PROC_NULL;
        int src = round == my_round ? source : MPI_PROC_NULL, round_status = SCR_SUCCESS;
        mrc = move_round(run, ctx, id, chosen, dest, src, &round_status);
        if (status == SCR_SUCCESS) status = round_status;
    }
    free(askers);
    if (mrc != SCR_SUCCESS) return mrc;
    mrc = scr_comm_all_true(status == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* 4. Rebuild missing members within each set; *out_ok on every rank. */
static int recover(struct scr_run *run, const struct scr_redundancy_ctx *ctx,
                   const struct scr_reddesc *d, int id, const char *name, int *out_ok)
{
    int lost = !scr_cache_rank_is_intact(run, id), lost_in_set = 0;
    int rc = scr_mpi_check(MPI_Allreduce(&lost, &lost_in_set, 1, MPI_INT, MPI_SUM, d->set),
                           "counting lost members");
    if (rc != SCR_SUCCESS) return rc;
    int tolerated = d->type == SCR_COPY_XOR ? 1 : d->type == SCR_COPY_RS ? d->failures : 0;
    int can = lost_in_set <= tolerated;
    /* one line for the whole job: the first set that cannot be rebuilt */
    int bad_set = can ? INT_MAX : d->set_id, first_bad = INT_MAX;
    rc = scr_mpi_check(MPI_Allreduce(&bad_set, &first_bad, 1, MPI_INT, MPI_MIN, run->world),
                       "agreeing on sets");
    if (rc != SCR_SUCCESS) return rc;
    if (first_bad != INT_MAX) {
        if (d->set_id == first_bad && d->set_rank == 0)
            scr_err("dataset %d (%s) cannot be rebuilt from cache: %s set %d lost %d of %d members "
                    "and %s "
                    "rebuilds %d",
                    id, name, scr_copy_type_name(d->type), d->set_id, lost_in_set, d->set_size,
                    scr_copy_type_name(d->type), tolerated);
        *out_ok = 0;
        return SCR_SUCCESS;
    }
    int prc = SCR_SUCCESS;
    double t0 = scr_run_now();
    if (lost_in_set > 0 && (d->type == SCR_COPY_XOR || d->type == SCR_COPY_RS))
        prc = scr_redundancy_rebuild(ctx, d, id, lost);
    /* all ranks agree, in one vote, whether any set lost a member and
     * whether every rank's part of the rebuild succeeded */
    int mine[2] = {lost_in_set, prc != SCR_SUCCESS}, all[2] = {0, 0};
    rc = scr_mpi_check(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, run->world),
                       "agreeing on the rebuild of lost files");
    int any = all[0], ok = rc == SCR_SUCCESS && !all[1];
    if (rc != SCR_SUCCESS) goto out;
    if (any && ok && run->rank == 0)
        scr_dbg(1, "dataset %d (%s): rebuilt lost files with %s in %.3f s", id, name,
                scr_copy_type_name(d->type), scr_run_now() - t0);
out:
    *out_ok = ok;
    return rc;
}

/* 6. A member that lost its files lost with them what it kept for others:
 * the records of its left neighbours and, with PARTNER, their copies. When
 * every rank is whole again (*out_intact) and any rank needed its files
 * (or found a file it held damaged), the dataset is protected again;
 * failing that, it is still a good restart, only less safe. Collective. */
static int protect_again(struct scr_run *run, const struct scr_redundancy_ctx *ctx,
                         const struct scr_reddesc *d, int id, const char *name, int needed,
                         int *out_intact)
{
    /* one vote: is every rank whole now, and did any need files */
    int mine[2] = {!scr_cache_rank_is_intact(run, id), needed}, all[2] = {1, 0};
    int rc = scr_mpi_check(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, run->world),
                           "agreeing on a rebuild");
    *out_intact = rc == SCR_SUCCESS && !all[0];
    int any = all[1];
    if (rc != SCR_SUCCESS || !*out_intact || !any) return rc;
    const char *holder = NULL;
    int lhs = scr_reddesc_lhs(d);
    int have_left_copy = d->type == SCR_COPY_PARTNER && lhs != run->rank &&
                         scr_filemap_get_tag(run->map, id, lhs, "HOLDER", &holder) == SCR_SUCCESS &&
                         rank_files_present(run, id, lhs);
    rc = scr_redundancy_protect_again(ctx, d, id, have_left_copy);
    if (rc == SCR_FAILURE) {
        if (run->rank == 0)
            scr_warn("dataset %d (%s) was rebuilt but could not be protected by %s again; another "
                     "lost node "
                     "may lose it",
                     id, name, scr_copy_type_name(d->type));
        rc = SCR_SUCCESS;
    }
    return rc;
}

/* 1 unless this rank holds dataset id (view: its part, NULL when none)
 * with a redundancy record. A dataset no rank holds with one was never
 * protected in cache: written in place on the prefix (SCR_CACHE_BYPASS) or
 * fetched from it for a restart. */
static int held_without_record(const struct scr_dataset_view *view)
{
    return view == NULL || view->desc == NULL || view->reddesc == NULL;
}

/* held_without_record for this rank's part of dataset id in its filemap. */
static int unprotected_here(const struct scr_run *run, int id)
{
    struct scr_dataset_view *view = NULL;
    if (scr_dataset_view_of(run->map, id, run->rank, &view) != SCR_SUCCESS) return 1;
    int unprotected = held_without_record(view);
    scr_dataset_view_free(view);
    return unprotected;
}

/* 1 unless this rank holds dataset id in cache: with a redundancy record,
 * or with a file in the dataset's cache directory. A dataset written in
 * place (SCR_CACHE_BYPASS) lists its files at their own paths. */
static int not_in_cache_here(const struct scr_run *run, int id)
{
    struct scr_dataset_view *view = NULL;
    char *dsdir = NULL;
    int vrc = scr_dataset_view_of(run->map, id, run->rank, &view);
    if (vrc != SCR_SUCCESS && vrc != SCR_ERR_NOTFOUND) return 0;
    int outside = held_without_record(view);
    if (outside && scr_cache_dataset_dir(run, id, &dsdir) != SCR_SUCCESS) outside = 0;
    for (int f = 0; outside && view != NULL && f < view->nfiles; f++) {
        const char *path = view->files[f].path;
        size_t n = strlen(dsdir);
        outside = strncmp(path, dsdir, n) != 0 || path[n] != '/';
    }
    free(dsdir);
    scr_dataset_view_free(view);
    return outside;
}

int scr_cache_written_in_place(struct scr_run *run, int id, int *out_in_place)
{
    int outside = not_in_cache_here(run, id);
    return scr_mpi_check(MPI_Allreduce(&outside, out_in_place, 1, MPI_INT, MPI_MIN, run->world),
                         "finding datasets written in place");
}

/* Whether file f of rank's dataset id (name), written in place, is there
 * at its recorded size; when not, it is named in one line. */
static int file_in_place(int id, const char *name, int rank, const struct scr_dataset_view_file *f)
{
    struct stat st;
    if (f->meta == NULL || !f->complete || !f->has_size) {
        scr_err("dataset %d (%s), written in place: rank %d's file %s was not completely written",
                id, name, rank, f->path);
        return 0;
    }
    if (stat(f->path, &st) != 0) {
        scr_err("dataset %d (%s), written in place: rank %d's file %s is missing: %s", id, name,
                rank, f->path, strerror(errno));
        return 0;
    }
    if ((uint64_t)st.st_size != f->size) {
        scr_err("dataset %d (%s), written in place: rank %d's file %s has %llu bytes, %llu "
                "were written",
                id, name, rank, f->path, (unsigned long long)st.st_size,
                (unsigned long long)f->size);
        return 0;
    }
    return 1;
}

/* my_files_in_place over the view of this rank's part of the dataset. */
static int view_files_in_place(const struct scr_dataset_view *view, const char *name)
{
    int id = view->id, rank = view->rank, complete = 0;
    if (view->desc == NULL || view->expected_files < 0) return 0;
    if (scr_dataset_get_complete(view->desc, &complete) != SCR_SUCCESS || !complete) {
        scr_err("dataset %d (%s), written in place, was not completed by rank %d", id, name, rank);
        return 0;
    }
    if (view->nfiles != view->expected_files) {
        scr_err("dataset %d (%s), written in place: rank %d's records list %d of its %d files", id,
                name, rank, view->nfiles, view->expected_files);
        return 0;
    }
    int ok = 1;
    for (int f = 0; ok && f < view->nfiles; f++)
        ok = file_in_place(id, name, rank, &view->files[f]);
    return ok;
}

/* Whether this rank's files of dataset id (name), written in place, are
 * all listed and there at their recorded sizes; the first that is not is
 * named in one line. A rank whose records lack the dataset says nothing
 * here (scr_cache_in_place_is_present says it for all). */
static int my_files_in_place(struct scr_run *run, int id, const char *name)
{
    struct scr_dataset_view *view = NULL;
    if (scr_dataset_view_of(run->map, id, run->rank, &view) != SCR_SUCCESS) return 0;
    int ok = view_files_in_place(view, name);
    scr_dataset_view_free(view);
    return ok;
}

int scr_cache_in_place_is_present(struct scr_run *run, int id, const char *name, int *out_ok)
{
    /* ranks whose records lack the dataset: a node that lost its control
     * directory, as SCR 3.1 would then not know it either; one line for all */
    const scr_dataset *desc = NULL;
    int unknown = scr_filemap_get_dataset(run->map, id, run->rank, &desc) != SCR_SUCCESS;
    int mine[2] = {unknown, unknown ? run->rank : INT_MAX}, sum_min[2] = {0, INT_MAX};
    int rc = scr_mpi_check(MPI_Allreduce(&mine[0], &sum_min[0], 1, MPI_INT, MPI_SUM, run->world),
                           "counting ranks that know a dataset");
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Allreduce(&mine[1], &sum_min[1], 1, MPI_INT, MPI_MIN, run->world),
                           "counting ranks that know a dataset");
    if (rc != SCR_SUCCESS) return rc;
    if (sum_min[0] > 0 && run->rank == 0)
        scr_warn("dataset %d (%s), written in place, is not known to the records of %d rank(s), "
                 "the first rank "
                 "%d (their node's control directory was lost); it is not offered from there%s",
                 id, name, sum_min[0], sum_min[1],
                 run->params->fetch
                     ? ""
                     : ", and SCR_FETCH=0 forbids reading it through the prefix's index");
    return scr_comm_all_true(!unknown && my_files_in_place(run, id, name), run->world, out_ok);
}

/* No copy of some ranks' redundancy records survived (record: this rank's,
 * NULL when it has none): name them, in one line for the job. Collective. */
static int say_records_lost(struct scr_run *run, int id, const char *name, const scr_kvtree *record)
{
    int missing = record == NULL, nmissing = 0, first = record == NULL ? run->rank : INT_MAX,
        lowest = 0;
    int rc = scr_mpi_check(MPI_Allreduce(&missing, &nmissing, 1, MPI_INT, MPI_SUM, run->world),
                           "MPI_Allreduce");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, run->world),
                       "MPI_Allreduce");
    if (rc != SCR_SUCCESS) return rc;
    if (run->rank == 0)
        scr_err("dataset %d (%s) cannot be rebuilt from cache: %d rank(s), the first rank %d, lost "
                "their "
                "files together with every rank that kept a copy of their redundancy record; more "
                "nodes "
                "were lost than the dataset's scheme survives",
                id, name, nmissing, lowest);
    return SCR_SUCCESS;
}

/* The redundancy set of record formed again, in *d (*have_desc). A set that
 * cannot be formed again (a relaunch on fewer ranks, a damaged record)
 * means this dataset cannot be rebuilt (*out_ok = 0), not that SCR_Init
 * fails. Collective. */
static int reform_desc(struct scr_run *run, int id, const char *name, const scr_kvtree *record,
                       struct scr_reddesc *d, int *have_desc, int *out_ok)
{
    char why[256];
    int drc = scr_reddesc_from_record(record, run->world, run->reddescs, run->nreddescs, d, why,
                                      sizeof(why));
    *have_desc = drc == SCR_SUCCESS;
    if (*have_desc) return SCR_SUCCESS;
    /* one line for the job, from the lowest rank that knows why */
    int mine = why[0] != '\0' ? run->rank : INT_MAX, teller = INT_MAX;
    *out_ok = 0;
    int rc = scr_mpi_check(MPI_Allreduce(&mine, &teller, 1, MPI_INT, MPI_MIN, run->world),
                           "agreeing on who reports");
    if (rc == SCR_SUCCESS && (run->rank == teller || (teller == INT_MAX && run->rank == 0)))
        scr_err("dataset %d (%s) cannot be rebuilt from cache: its redundancy sets do not fit this "
                "run (%s)",
                id, name, teller == INT_MAX ? scr_strstatus(drc) : why);
    return rc;
}

/* Every rank keeps the descriptor of the dataset, even a rank that held
 * nothing, and its redundancy record. */
static int keep_descriptor(struct scr_run *run, int id, const scr_kvtree *desc,
                           const scr_kvtree *record)
{
    int rc = scr_filemap_set_dataset(run->map, id, run->rank, desc);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_reddesc(run->map, id, run->rank, record);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

/* Steps 2 to 6 for a dataset some rank holds redundancy data of (desc:
 * its descriptor; damaged: files of this rank whose CRC failed).
 * *out_needed: this rank needed files from others; *out_ok: complete on
 * every rank now. It stops early only where all ranks agreed, or where an
 * MPI call of this rank failed, as each step does. Collective. */
static int rebuild_protected(struct scr_run *run, int id, const char *name, const scr_kvtree *desc,
                             int damaged, int *out_needed, int *out_ok)
{
    scr_kvtree *recv = NULL;
    struct scr_reddesc d;
    struct scr_redundancy_ctx ctx = {0};
    int have_desc = 0, ok = 0;
    int rc = announce_holdings(run, id, &recv);
    if (rc != SCR_SUCCESS) goto out;
    const scr_kvtree *record = my_record(run, id, recv);
    /* all ranks agree: */
    rc = scr_comm_all_true(record != NULL, run->world, &ok);
    if (rc != SCR_SUCCESS) goto out;
    if (!ok) {
        rc = say_records_lost(run, id, name, record);
        goto out;
    }
    rc = reform_desc(run, id, name, record, &d, &have_desc, &ok);
    if (rc != SCR_SUCCESS || !ok) goto out;
    int krc = keep_descriptor(run, id, desc, record);
    /* the record names the dataset's directory: the context comes after it */
    int crc = krc == SCR_SUCCESS ? scr_run_redundancy_ctx(run, id, 1, &ctx) : krc;
    /* all ranks agree on both: */
    rc = scr_comm_all_true(crc == SCR_SUCCESS && ctx.bufs[0] && ctx.bufs[1], run->world, &ok);
    if (rc != SCR_SUCCESS || !ok) goto out;
    rc = move_files(run, &ctx, id, recv, out_needed);
    if (rc != SCR_SUCCESS) goto out;
    rc = recover(run, &ctx, &d, id, name, &ok);
    if (rc != SCR_SUCCESS || !ok) goto out;
    /* a damaged PARTNER copy is made again like the copies of a lost node */
    rc = protect_again(run, &ctx, &d, id, name, *out_needed || damaged > 0, &ok);
out:
    scr_run_redundancy_ctx_free(&ctx);
    if (have_desc) scr_reddesc_clear(&d);
    scr_kvtree_delete(recv);
    *out_ok = ok;
    return rc;
}

/* For dataset id (name; is_ckpt: a checkpoint), written in place on the
 * prefix: whether every rank found its files there (*out_ok). Collective. */
static int check_in_place(struct scr_run *run, int id, const char *name, int is_ckpt, int *out_ok)
{
    if (!is_ckpt) return SCR_SUCCESS;
    int rc = scr_cache_in_place_is_present(run, id, name, out_ok);
    if (rc == SCR_SUCCESS && run->rank == 0)
        scr_dbg(1, "dataset %d (%s) was written in place on the prefix; %s", id, name,
                *out_ok ? "a restart reads it there"
                        : "it is not offered for a restart (see above)");
    return rc;
}

/* Step 0 for dataset id (name), which some rank does not hold whole: each
 * rank checks the CRCs of what it holds (*out_damaged: its files that
 * failed) and *out_usable says that every rank could. Collective. */
static int check_held(struct scr_run *run, int id, const char *name, int *out_damaged,
                      int *out_usable)
{
    *out_usable = 0;
    int crc_rc = scr_crc_check_held(run, id, out_damaged);
    /* all ranks agree: */
    int rc = scr_comm_all_true(crc_rc == SCR_SUCCESS, run->world, out_usable);
    if (rc == SCR_SUCCESS && !*out_usable && run->rank == 0)
        scr_err("dataset %d (%s) is not used: the CRCs of its files could not be checked on "
                "every rank "
                "(see above)",
                id, name);
    return rc;
}

/* The rebuild event of dataset id (name, begun at t0, done: complete on
 * every rank), counting the ranks whose files had to come from elsewhere
 * (mine: this rank's did). Collective; rank 0 logs it. */
static void log_rebuild(struct scr_run *run, int id, const char *name, double t0, int mine,
                        int done)
{
    int lost = 0;
    if (scr_mpi_check(MPI_Reduce(&mine, &lost, 1, MPI_INT, MPI_SUM, 0, run->world),
                      "counting rebuilt ranks") != SCR_SUCCESS)
        return;
    struct scr_event_field fields[] = {SCR_EVENT_INT("ranks_rebuilt", lost)};
    scr_run_event(run, SCR_EVENT_REBUILD, done ? SCR_EVENT_OK : SCR_EVENT_FAILED, id, name, -1,
                  scr_run_now() - t0,
                  done ? NULL : "lost more than its redundancy scheme survives, or damaged", fields,
                  1);
}

/* What the ranks know of a dataset from their own filemaps and caches,
 * gathered in one vote before anything is done to it: each fact a vote of
 * its own would be one more point where every rank waits for the slowest. */
struct dataset_facts {
    int writers;        /* ranks of the run that wrote it, by a held file's meta (0: none says) */
    int desc_from;      /* the lowest rank holding its descriptor (INT_MAX: none) */
    int in_place;       /* no rank holds it in cache: written in place on the prefix */
    int intact;         /* every rank holds its own files whole */
    int none_protected; /* no rank holds it with redundancy data: fetched, none to rebuild from */
};

/* The number of ranks of the run that wrote dataset id, by the meta of a
 * file this rank holds (0 when none says); *out_failed when it could not look. */
static int writers_here(struct scr_run *run, int id, int *out_failed)
{
    int *ranks = NULL, nranks = 0, mine = 0;
    int lrc = scr_filemap_list_ranks_by_dataset(run->map, id, &ranks, &nranks);
    for (int i = 0; lrc == SCR_SUCCESS && i < nranks && mine == 0; i++) {
        struct scr_dataset_view *view = NULL;
        lrc = scr_dataset_view_of(run->map, id, ranks[i], &view);
        for (int f = 0; lrc == SCR_SUCCESS && f < view->nfiles && mine == 0; f++) {
            const scr_meta *meta = view->files[f].meta;
            if (meta != NULL && scr_meta_get_ranks(meta, &mine) != SCR_SUCCESS) mine = 0;
        }
        scr_dataset_view_free(view);
    }
    free(ranks);
    *out_failed = lrc != SCR_SUCCESS;
    return mine;
}

enum { FACT_WRITERS, FACT_FAILED, FACT_DESC, FACT_INSIDE, FACT_LOST, FACT_PROTECTED, NFACTS };

/* The facts of dataset id, the same on every rank. Each is a maximum over
 * the ranks (a minimum, negated). A rank that could not look does not let
 * the dataset be taken for this run's: SCR_ERR_NOMEM on every rank.
 * Collective. */
static int vote_dataset_facts(struct scr_run *run, int id, struct dataset_facts *out)
{
    int mine[NFACTS] = {0}, all[NFACTS] = {0};
    mine[FACT_WRITERS] = writers_here(run, id, &mine[FACT_FAILED]);
    mine[FACT_DESC] = descriptor_here(run, id) != NULL ? -run->rank : -INT_MAX;
    int outside = not_in_cache_here(run, id);
    mine[FACT_INSIDE] = !outside;
    /* files of this rank's that are not in cache were written in place:
     * the in-place check stats them on the prefix, once; nothing here */
    mine[FACT_LOST] = outside && scr_filemap_num_files(run->map, id, run->rank) > 0
                          ? 1
                          : !scr_cache_rank_is_intact(run, id);
    mine[FACT_PROTECTED] = !unprotected_here(run, id);
    int rc = scr_mpi_check(MPI_Allreduce(mine, all, NFACTS, MPI_INT, MPI_MAX, run->world),
                           "gathering what the ranks hold of a dataset");
    if (rc != SCR_SUCCESS) return rc;
    if (all[FACT_FAILED]) return SCR_ERR_NOMEM;
    *out = (struct dataset_facts){.writers = all[FACT_WRITERS],
                                  .desc_from = -all[FACT_DESC],
                                  .in_place = !all[FACT_INSIDE],
                                  .intact = !all[FACT_LOST],
                                  .none_protected = !all[FACT_PROTECTED]};
    return SCR_SUCCESS;
}

/* All of the above for one dataset (facts: its vote); *out_ok: complete
 * on every rank now. */
static int rebuild_one(struct scr_run *run, int id, const struct dataset_facts *facts, int *out_ok,
                       int *out_is_ckpt)
{
    *out_ok = 0;
    *out_is_ckpt = 0;
    double t0 = scr_run_now();
    scr_kvtree *desc = NULL;
    int rc = share_descriptor(run, id, facts->desc_from, &desc);
    if (rc != SCR_SUCCESS || desc == NULL) return rc;
    const char *name = "?";
    scr_dataset_get_name(desc, &name);
    *out_is_ckpt = scr_dataset_is_checkpoint(desc);
    int damaged = 0, usable = 0, needed = 0, ok = 0;
    /* a checkpoint written in place on the prefix was never in cache:
     * nothing to rebuild, and a restart reads its files where they are,
     * once every rank found its own there at their recorded sizes (their
     * bytes are checked when the application has read them) */
    if (facts->in_place) {
        rc = check_in_place(run, id, name, *out_is_ckpt, out_ok);
        goto out;
    }
    /* 0. a rebuild trusts no byte it reads before its CRC was checked (a
     * file that cannot be read is lost, which the steps below deal with); a
     * dataset some rank could not check at all is not used. With nothing
     * lost, nothing is read here: a restart checks the files it reads
     * (run_crc_async.c), and a rebuild at a later SCR_Init checks these */
    if (!facts->intact) {
        rc = check_held(run, id, name, &damaged, &usable);
        if (rc != SCR_SUCCESS || !usable) goto out;
    }
    /* a dataset fetched from the prefix has no redundancy data to rebuild
     * from: nothing is wrong, and the restart reads the prefix again */
    if (facts->none_protected) {
        if (run->rank == 0)
            scr_dbg(1,
                    "dataset %d (%s) has no redundancy data in cache (it was fetched); "
                    "not rebuilt",
                    id, name);
        goto out;
    }
    /* every rank holds its own files, as its records say: nothing to rebuild */
    if (facts->intact) {
        *out_ok = 1;
        goto out;
    }
    rc = rebuild_protected(run, id, name, desc, damaged, &needed, &ok);
    log_rebuild(run, id, name, t0, needed || damaged > 0, rc == SCR_SUCCESS && ok);
    *out_ok = rc == SCR_SUCCESS && ok;
    if (rc == SCR_FAILURE) rc = SCR_SUCCESS; /* a failed rebuild is an outcome, not an error */
out:
    scr_kvtree_delete(desc);
    return rc;
}

/* Rank 0: say what becomes of dataset id, written by writers ranks: a
 * restart can read it whole only from the prefix. */
static void say_kept_whole(const struct scr_run *run, int id, int writers)
{
    scr_kvtree *flush = scr_kvtree_new();
    int flushed = 0;
    if (flush != NULL && scr_flush_file_read(run->flush_path, flush) == SCR_SUCCESS)
        scr_flush_file_has_location(flush, id, SCR_FLUSH_LOCATION_PFS, &flushed);
    scr_kvtree_delete(flush);
    if (flushed)
        scr_dbg(1,
                "dataset %d was written by %d ranks and this run has %d: kept in cache, where a "
                "restart "
                "reading it whole uses the copies each node holds",
                id, writers, run->ranks);
    else
        scr_warn("dataset %d was written by %d ranks and is in cache only: a run of %d ranks can "
                 "restart "
                 "from it once it is on the prefix (scr-scavenge, or SCR_FLUSH) or with %d ranks",
                 id, writers, run->ranks, writers);
}

int scr_cache_rebuild(struct scr_run *run, int *out_id)
{
    *out_id = 0;
    int below = INT_MAX;
    for (;;) {
        int id = 0;
        int rc = scr_cache_next_dataset(run, below, &id);
        if (rc != SCR_SUCCESS) return rc;
        if (id == 0) return SCR_SUCCESS;
        below = id;
        struct dataset_facts facts;
        rc = vote_dataset_facts(run, id, &facts);
        if (rc != SCR_SUCCESS) return rc;
        if (facts.writers > 0 && facts.writers != run->ranks) {
            if (run->rank == 0) say_kept_whole(run, id, facts.writers);
            continue;
        }
        int ok = 0, is_ckpt = 0;
        rc = rebuild_one(run, id, &facts, &ok, &is_ckpt);
        if (rc != SCR_SUCCESS) return rc;
        if (!ok) {
            if (run->rank == 0) scr_dbg(1, "dataset %d is not complete in cache; deleting it", id);
            scr_cache_delete_dataset(run, id);
            scr_cache_note_location(run, id, 0, 0, 0);
            rc = scr_mpi_check(MPI_Barrier(run->world), "MPI_Barrier");
            if (rc != SCR_SUCCESS) return rc;
            continue;
        }
        if (*out_id == 0 && is_ckpt) *out_id = id;
    }
}
