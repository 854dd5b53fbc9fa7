/* shared_merge.c — a file ranks on several nodes wrote, merged on the prefix (shared_merge.h). */
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE */
#include "run_cache.h"
#include "run_shared.h"
#include "shared_merge.h"

#include "dataset_view.h"
#include "meta.h"
#include "mpi_comm.h"
#include "scr_err.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define NO_CONFLICT UINT64_MAX
#define REDUCE_CHUNK_MAX ((size_t)256 << 10)

/* One shared file as this rank sees it. */
struct shared_file {
    uint64_t hash;
    int nodes;
    const char *file; /* this rank's path in cache (in its view), NULL when it did not route it */
    const char *rel;  /* its name relative to the prefix (in the view) */
    char *dest;       /* its place on the prefix */
    int holder;       /* this rank reads its node's piece */
    int writer;       /* the lowest rank that routed it: creates the file, resolves overlaps */
};

/* The data extents of fd (size bytes) as a new array of *out_n (start, end)
 * pairs. A file system without SEEK_DATA has one extent: the whole file. */
static int data_extents(int fd, const char *path, uint64_t size, uint64_t **out_ext, int *out_n)
{
    uint64_t *ext = NULL, pos = 0;
    int n = 0, cap = 0;
    while (pos < size) {
        off_t data = lseek(fd, (off_t)pos, SEEK_DATA), hole = (off_t)size;
        if (data < 0 && errno == ENXIO) break; /* a hole to the end */
        if (data < 0 && errno != EINVAL) goto fail;
        if (data < 0)
            data = (off_t)pos; /* SEEK_DATA unknown here */
        else if ((hole = lseek(fd, data, SEEK_HOLE)) < 0)
            goto fail;
        if ((uint64_t)hole > size) hole = (off_t)size;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            uint64_t *more = realloc(ext, 2 * sizeof(uint64_t) * (size_t)cap);
            if (more == NULL) {
                free(ext);
                scr_err("out of memory listing the data extents of %s", path);
                return SCR_ERR_NOMEM;
            }
            ext = more;
        }
        ext[2 * n] = (uint64_t)data;
        ext[2 * n + 1] = (uint64_t)hole;
        n++;
        pos = (uint64_t)hole;
    }
    *out_ext = ext;
    *out_n = n;
    return SCR_SUCCESS;
fail:
    scr_err("cannot find the data extents of %s: lseek: %s", path, strerror(errno));
    free(ext);
    return SCR_ERR_IO;
}

/* (offset, +1 at a start / -1 at an end) sorts by offset, ends first:
 * extents that only touch do not overlap. */
static int cmp_event(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0]) return (uint64_t)x[0] < (uint64_t)y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The ranges two or more of the n extents (start, end pairs; those of one
 * node never overlap) cover, sorted and apart: a new array of *out_n pairs. */
static int overlaps_of(const uint64_t *ext, int n, uint64_t **out_ov, int *out_n)
{
    int64_t *ev = malloc(2 * sizeof(int64_t) * (size_t)(2 * n + 1));
    uint64_t *ov = malloc(2 * sizeof(uint64_t) * (size_t)(n + 1));
    int nov = 0, depth = 0;
    if (ev == NULL || ov == NULL) {
        free(ev);
        free(ov);
        scr_err("out of memory comparing the pieces of a shared file");
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        ev[4 * i] = (int64_t)ext[2 * i];
        ev[4 * i + 1] = 1;
        ev[4 * i + 2] = (int64_t)ext[2 * i + 1];
        ev[4 * i + 3] = -1;
    }
    qsort(ev, (size_t)(2 * n), 2 * sizeof(int64_t), cmp_event);
    uint64_t start = 0;
    for (int i = 0; i < 2 * n; i++) {
        int was = depth;
        depth += (int)ev[2 * i + 1];
        uint64_t at = (uint64_t)ev[2 * i];
        if (was < 2 && depth >= 2) start = at;
        if (was >= 2 && depth < 2 && at > start) {
            if (nov > 0 && ov[2 * nov - 1] == start)
                ov[2 * nov - 1] = at;
            else {
                ov[2 * nov] = start;
                ov[2 * nov + 1] = at;
                nov++;
            }
        }
    }
    free(ev);
    *out_ov = ov;
    *out_n = nov;
    return SCR_SUCCESS;
}

/* Copy len bytes at off of in to the same offset of out: in the kernel
 * (sendfile, no copy through this process) where it can, else through buf. */
static int copy_range(int in, const char *in_path, int out, const char *out_path, uint64_t off,
                      uint64_t len, void *buf, size_t bufsize)
{
    if (len > 0 && lseek(out, (off_t)off, SEEK_SET) < 0) {
        scr_err("cannot seek to byte %" PRIu64 " of %s: %s", off, out_path, strerror(errno));
        return SCR_ERR_IO;
    }
    while (len > 0) {
        off_t from = (off_t)off;
        ssize_t sent = sendfile(out, in, &from, len < bufsize ? (size_t)len : bufsize);
        if (sent < 0 && errno == EINTR) continue;
        if (sent < 0 && (errno == EINVAL || errno == ENOSYS)) break; /* not between these files */
        if (sent < 0) {
            scr_err("cannot copy %s to %s at byte %" PRIu64 ": sendfile: %s", in_path, out_path,
                    off, strerror(errno));
            return SCR_ERR_IO;
        }
        if (sent == 0) return SCR_SUCCESS; /* the piece ended early: the rest stays a hole */
        off += (uint64_t)sent;
        len -= (uint64_t)sent;
    }
    while (len > 0) {
        size_t want = len < bufsize ? (size_t)len : bufsize, got = 0;
        int rc = scr_pread_upto(in, buf, want, off, &got, in_path);
        if (rc != SCR_SUCCESS) return rc;
        if (got == 0) break; /* the piece ended early: the rest stays a hole */
        rc = scr_pwrite_full(out, buf, got, off, out_path);
        if (rc != SCR_SUCCESS) return rc;
        off += got;
        len -= got;
    }
    return SCR_SUCCESS;
}

/* Write the parts of this node's extents (ext, n pairs) that no other node
 * covers (ov, nov pairs) from the piece to the file. */
static int write_own_parts(int in, const char *in_path, int out, const char *out_path,
                           const uint64_t *ext, int n, const uint64_t *ov, int nov, void *buf,
                           size_t bufsize)
{
    int o = 0;
    for (int i = 0; i < n; i++) {
        uint64_t cur = ext[2 * i], end = ext[2 * i + 1];
        while (o < nov && ov[2 * o + 1] <= cur) o++;
        for (int j = o; j < nov && ov[2 * j] < end && cur < end; j++) {
            if (ov[2 * j] > cur) {
                int rc = copy_range(in, in_path, out, out_path, cur, ov[2 * j] - cur, buf, bufsize);
                if (rc != SCR_SUCCESS) return rc;
            }
            if (ov[2 * j + 1] > cur) cur = ov[2 * j + 1];
        }
        if (cur < end) {
            int rc = copy_range(in, in_path, out, out_path, cur, end - cur, buf, bufsize);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    return SCR_SUCCESS;
}

/* Buffers of the byte-wise reduction of overlapping ranges. */
struct reduce_bufs {
    size_t len;
    unsigned char *max, *rmax;  /* the largest byte: the merged byte */
    unsigned short *min, *rmin; /* the smallest non-zero byte (256: none) */
};

/* The ranges ov (nov pairs) that several nodes' extents cover, reduced
 * chunk by chunk to the writer: every holder contributes its piece's bytes
 * (zero where it has none), and the writer writes the merged bytes, or
 * finds the first byte two nodes wrote differently (*out_conflict).
 * Collective: returns how MPI went, the same on every rank; what failed
 * here (a read, the writer's write) is in *out_rc, for the ranks to agree
 * on afterwards. */
static int merge_overlaps(struct scr_run *run, const struct shared_file *s, int in, int out,
                          const uint64_t *ov, int nov, struct reduce_bufs *b,
                          uint64_t *out_conflict, int *out_rc)
{
    int rc = SCR_SUCCESS;
    *out_rc = SCR_SUCCESS;
    for (int j = 0; j < nov; j++) {
        for (uint64_t off = ov[2 * j]; off < ov[2 * j + 1];) {
            size_t len = ov[2 * j + 1] - off < b->len ? (size_t)(ov[2 * j + 1] - off) : b->len,
                   got = 0;
            memset(b->max, 0, len);
            if (s->holder && rc == SCR_SUCCESS)
                rc = scr_pread_upto(in, b->max, len, off, &got, s->file);
            for (size_t i = 0; i < len; i++) b->min[i] = b->max[i] ? b->max[i] : 256;
            int mrc = scr_mpi_check(MPI_Reduce(b->max, b->rmax, (int)len, MPI_UNSIGNED_CHAR,
                                               MPI_MAX, s->writer, run->world),
                                    "merging the pieces of a shared file");
            if (mrc == SCR_SUCCESS)
                mrc = scr_mpi_check(MPI_Reduce(b->min, b->rmin, (int)len, MPI_UNSIGNED_SHORT,
                                               MPI_MIN, s->writer, run->world),
                                    "comparing the pieces of a shared file");
            if (mrc != SCR_SUCCESS) return mrc;
            if (run->rank == s->writer && rc == SCR_SUCCESS && *out_conflict == NO_CONFLICT) {
                for (size_t i = 0; i < len && *out_conflict == NO_CONFLICT; i++)
                    if (b->rmax[i] != 0 && b->rmin[i] != b->rmax[i]) *out_conflict = off + i;
                if (*out_conflict == NO_CONFLICT)
                    rc = scr_pwrite_full(out, b->rmax, len, off, s->dest);
            }
            off += len;
        }
    }
    *out_rc = rc;
    return SCR_SUCCESS;
}

/* One merge of a shared file as this rank takes part in it. */
struct merge {
    int in, out;    /* this node's piece (its holder), the file on the prefix */
    int made;       /* the writer opened s->dest for the merge: what is there is the merge's */
    uint64_t size;  /* this node's piece's size */
    uint64_t total; /* the file's: the largest piece's */
    uint64_t *ext;  /* this node's piece's data extents, n (start, end) pairs */
    uint64_t *all;  /* every holder's, nall numbers */
    uint64_t *ov;   /* the ranges two or more cover, nov pairs */
    int n, nall, nov;
};

/* The holder: what its node's piece of s holds (its size and data extents,
 * in m). Not collective. */
static int read_piece(const struct shared_file *s, struct merge *m)
{
    struct stat st;
    int rc = scr_open_regular(s->file, O_RDONLY, 0, &m->in);
    if (rc != SCR_SUCCESS) return rc;
    if (fstat(m->in, &st) != 0) {
        scr_err("cannot stat %s: %s", s->file, strerror(errno));
        return SCR_ERR_IO;
    }
    m->size = (uint64_t)st.st_size;
    return data_extents(m->in, s->file, m->size, &m->ext, &m->n);
}

/* Once every rank has read its piece (piece_rc: how this rank's read
 * went), every rank learns every piece's extents (m->all) and the file's
 * size (m->total). Collective: returns how MPI went, and *out_ok whether
 * every rank got this far; the same on every rank. */
static int gather_extents(struct scr_run *run, const struct shared_file *s, struct merge *m,
                          int piece_rc, int *out_ok)
{
    int *counts = malloc(sizeof(int) * (size_t)run->ranks),
        *displs = malloc(sizeof(int) * (size_t)run->ranks);
    if (piece_rc == SCR_SUCCESS && (counts == NULL || displs == NULL)) piece_rc = SCR_ERR_NOMEM;
    int mrc = scr_comm_all_true(piece_rc == SCR_SUCCESS, run->world, out_ok);
    if (mrc != SCR_SUCCESS || !*out_ok) goto out;
    int mine = 2 * m->n;
    mrc = scr_mpi_check(MPI_Allreduce(&m->size, &m->total, 1, MPI_UINT64_T, MPI_MAX, run->world),
                        "sizing a shared file");
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, run->world),
                            "counting extents");
    if (mrc != SCR_SUCCESS) goto out;
    for (int r = 0; r < run->ranks; r++) {
        displs[r] = m->nall;
        m->nall += counts[r];
    }
    m->all = malloc(sizeof(uint64_t) * (size_t)(m->nall > 0 ? m->nall : 1));
    if (m->all == NULL)
        scr_err("out of memory gathering the extents of %s", s->rel ? s->rel : "a shared file");
    mrc = scr_comm_all_true(m->all != NULL, run->world, out_ok);
    if (mrc != SCR_SUCCESS || !*out_ok) goto out;
    mrc = scr_mpi_check(MPI_Allgatherv(m->ext, mine, MPI_UINT64_T, m->all, counts, displs,
                                       MPI_UINT64_T, run->world),
                        "gathering extents");
out:
    free(counts);
    free(displs);
    return mrc;
}

/* The writer: s->dest made, of the file's final size, before anyone
 * writes. Not collective. */
static int make_dest(const struct shared_file *s, struct merge *m)
{
    char *dir = NULL;
    int rc = scr_path_dirname(s->dest, &dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0777);
    free(dir);
    if (rc == SCR_SUCCESS)
        rc = scr_open_regular(s->dest, O_WRONLY | O_CREAT | O_TRUNC, 0666, &m->out);
    m->made = rc == SCR_SUCCESS;
    if (rc == SCR_SUCCESS) rc = scr_truncate_fd(m->out, m->total, s->dest);
    return rc;
}

/* Each node writes what only it has, in parallel; what several nodes have
 * goes through the writer, which finds the first byte two nodes wrote
 * differently (*out_conflict); the file is then on disk. Collective:
 * returns how MPI went, the same on every rank; what failed here is in
 * *out_rc, for the ranks to agree on afterwards. */
static int write_merge(struct scr_run *run, const struct shared_file *s, struct merge *m, void *buf,
                       struct reduce_bufs *b, uint64_t *out_conflict, int *out_rc)
{
    int rc = SCR_SUCCESS, lrc = SCR_SUCCESS;
    if (s->holder && m->out < 0) rc = scr_open_regular(s->dest, O_WRONLY, 0, &m->out);
    if (s->holder && rc == SCR_SUCCESS)
        rc = write_own_parts(m->in, s->file, m->out, s->dest, m->ext, m->n, m->ov, m->nov, buf,
                             run->params->file_buf_size);
    int mrc = merge_overlaps(run, s, m->in, m->out, m->ov, m->nov, b, out_conflict, &lrc);
    if (mrc != SCR_SUCCESS) return mrc;
    if (rc == SCR_SUCCESS) rc = lrc;
    if (m->out >= 0 && rc == SCR_SUCCESS) rc = scr_fsync_fd(m->out, s->dest);
    if (m->out >= 0 && close(m->out) != 0 && rc == SCR_SUCCESS) {
        scr_err("cannot close %s: %s", s->dest, strerror(errno));
        rc = SCR_ERR_IO;
    }
    m->out = -1;
    if (rc == SCR_SUCCESS && run->rank == s->writer) rc = scr_fsync_parent(s->dest);
    *out_rc = rc;
    return SCR_SUCCESS;
}

/* Release what merge m holds; a merge that failed removes s->dest when
 * the writer opened it, and only then. Not collective. */
static void end_merge(const struct shared_file *s, struct merge *m, int failed)
{
    if (m->out >= 0) close(m->out);
    if (m->in >= 0) close(m->in);
    free(m->ext);
    free(m->all);
    free(m->ov);
    /* nothing of a file that could not be merged stays on the prefix; a
     * file at its path the merge never opened (an older dataset's, a
     * user's) is not the merge's to remove */
    if (failed && m->made && unlink(s->dest) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s: %s", s->dest, strerror(errno));
}

/* Merge the pieces of s into s->dest. *out_conflict: the first offset two
 * nodes wrote differently (NO_CONFLICT when none). Collective; all ranks
 * agree on the outcome and the conflict. A merge that does not succeed
 * removes s->dest when the writer opened it, and only then. */
static int merge_one(struct scr_run *run, const struct shared_file *s, void *buf,
                     struct reduce_bufs *b, uint64_t *out_conflict)
{
    struct merge m = {.in = -1, .out = -1};
    int ok = 0;
    *out_conflict = NO_CONFLICT;
    /* each node's reader finds what its piece holds */
    int rc = s->holder ? read_piece(s, &m) : SCR_SUCCESS;
    /* every rank learns every piece's extents, and the file's size */
    int mrc = gather_extents(run, s, &m, rc, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto agree;
    rc = overlaps_of(m.all, m.nall / 2, &m.ov, &m.nov);
    if (rc == SCR_SUCCESS && run->rank == s->writer) rc = make_dest(s, &m);
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS || !ok) goto agree;
    mrc = write_merge(run, s, &m, buf, b, out_conflict, &rc);
    if (mrc != SCR_SUCCESS) goto agree;
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Bcast(out_conflict, 1, MPI_UINT64_T, s->writer, run->world),
                            "sharing a conflict");
agree:
    end_merge(s, &m, mrc != SCR_SUCCESS || !ok || *out_conflict != NO_CONFLICT);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_ERR_IO;
}

/* A file's name relative to the prefix, as scr_shared_file_rel gives it. */
static const char *rel_name(const struct scr_dataset_view_file *f)
{
    return f->name != NULL ? f->name : f->path;
}

/* Fill in each shared file as this rank sees it (view: its files): its
 * path here, who reads the node's piece, who writes. Collective. */
static int describe(struct scr_run *run, const struct scr_dataset_view *view,
                    const uint64_t *shared, int k, struct shared_file *s)
{
    int ok = 0;
    int *mine = malloc(sizeof(int) * (size_t)k), *node_min = malloc(sizeof(int) * (size_t)k);
    int rc = mine && node_min ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < k; i++) {
        s[i].hash = shared[2 * i];
        s[i].nodes = (int)shared[2 * i + 1];
        mine[i] = INT_MAX;
        for (int f = 0; f < view->nfiles && s[i].file == NULL; f++) {
            const char *rel = rel_name(&view->files[f]);
            if (scr_shared_name_hash(rel) != s[i].hash) continue;
            s[i].file = view->files[f].path;
            s[i].rel = rel;
            mine[i] = run->rank;
            rc = scr_path_join(run->prefix, rel, &s[i].dest);
        }
    }
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && ok)
        mrc = scr_mpi_check(MPI_Allreduce(mine, node_min, k, MPI_INT, MPI_MIN, run->node),
                            "finding readers");
    for (int i = 0; mrc == SCR_SUCCESS && ok && i < k; i++) s[i].holder = node_min[i] == run->rank;
    if (mrc == SCR_SUCCESS && ok)
        mrc = scr_mpi_check(MPI_Allreduce(mine, node_min, k, MPI_INT, MPI_MIN, run->world),
                            "finding writers");
    for (int i = 0; mrc == SCR_SUCCESS && ok && i < k; i++) s[i].writer = node_min[i];
    free(mine);
    free(node_min);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

/* Is file (this rank's, of dataset id) one of the k shared files? */
static int is_shared(const struct shared_file *s, int k, const char *file)
{
    for (int i = 0; i < k; i++)
        if (s[i].file != NULL && strcmp(s[i].file, file) == 0) return 1;
    return 0;
}

/* The marker by which one rank of a node claims the copy of a file that
 * ranks of the node share (new string); named as the notes of routes are,
 * so that scr_shared_route_clear removes one a crash left. */
static int claim_path(const struct scr_run *run, int id, const char *rel, char **out_path)
{
    char base[64];
    snprintf(base, sizeof(base), "route.%d.move.%016" PRIx64, id, scr_shared_name_hash(rel));
    return scr_path_join(run->cntl_dir, base, out_path);
}

/* The move of dataset id failed before the cache let go of it: the
 * filemap names its cache paths alone again (dests, n entries, some NULL),
 * so that nothing looks for copies that were never made or were taken
 * back. */
static int forget_prefix_paths(struct scr_run *run, int id, char *const *dests, int n)
{
    for (int f = 0; dests != NULL && f < n; f++) {
        if (dests[f] == NULL) continue;
        /* an entry the failed move never added is no error here */
        scr_filemap_unset_meta(run->map, id, run->rank, dests[f]);
        scr_filemap_remove_file(run->map, id, run->rank, dests[f]);
    }
    return scr_cache_save_filemap(run);
}

/* The move of this rank's files of a dataset to the prefix. */
struct move {
    const struct scr_dataset_view_file *files; /* this rank's files in cache, n of them */
    char **dests;                              /* dests[f]: files[f]'s place on the prefix */
    char **claims; /* claims[f]: the marker this rank holds to copy files[f], NULL if none */
    int *made;     /* made[f]: this rank's copy created dests[f] */
    char *dsdir;   /* the dataset's directory in cache */
    int n;
};

/* The dataset's directory in cache, its files (view), and room for the
 * rest of mv. Not collective. */
static int start_move(struct scr_run *run, const struct scr_dataset_view *view, struct move *mv)
{
    int id = view->id;
    int rc = scr_cache_dataset_dir(run, id, &mv->dsdir);
    mv->files = view->files;
    mv->n = view->nfiles;
    if (rc != SCR_SUCCESS || mv->n == 0) return rc;
    mv->dests = calloc((size_t)mv->n, sizeof(char *));
    mv->claims = calloc((size_t)mv->n, sizeof(char *));
    mv->made = calloc((size_t)mv->n, sizeof(int));
    if (mv->dests == NULL || mv->claims == NULL || mv->made == NULL) {
        scr_err("out of memory moving the files of dataset %d to the prefix", id);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* Each file's prefix path joins this rank's filemap, with the file's meta,
 * and the filemap is saved, before anything is written there. Not
 * collective. */
static int name_prefix_paths(struct scr_run *run, int id, struct move *mv)
{
    int rc = SCR_SUCCESS;
    for (int f = 0; rc == SCR_SUCCESS && f < mv->n; f++) {
        const struct scr_dataset_view_file *file = &mv->files[f];
        if (file->meta == NULL || file->name == NULL) rc = SCR_ERR_NOTFOUND;
        if (rc == SCR_SUCCESS) rc = scr_path_join(run->prefix, file->name, &mv->dests[f]);
        if (rc == SCR_SUCCESS) rc = scr_filemap_add_file(run->map, id, run->rank, mv->dests[f]);
        if (rc == SCR_SUCCESS)
            rc = scr_filemap_set_meta(run->map, id, run->rank, mv->dests[f], file->meta);
    }
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    return rc;
}

/* The files of this rank's that are not among the k merged ones s (of this
 * rank alone, or of several ranks of this node) are copied to the prefix,
 * each by the one rank of the node that claims it. Not collective. */
static int copy_unshared(struct scr_run *run, int id, const struct shared_file *s, int k,
                         struct move *mv, void *buf)
{
    int rc = SCR_SUCCESS;
    for (int f = 0; rc == SCR_SUCCESS && f < mv->n; f++) {
        if (is_shared(s, k, mv->files[f].path)) continue;
        rc = claim_path(run, id, rel_name(&mv->files[f]), &mv->claims[f]);
        if (rc != SCR_SUCCESS) break;
        int fd = open(mv->claims[f], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) { /* another rank of this node copies it */
            free(mv->claims[f]);
            mv->claims[f] = NULL;
            continue;
        }
        if (fd < 0) {
            scr_err("cannot create %s: %s", mv->claims[f], strerror(errno));
            rc = SCR_ERR_IO;
            break;
        }
        close(fd);
        struct stat st;
        int absent = lstat(mv->dests[f], &st) != 0 && errno == ENOENT;
        struct scr_copy_result got;
        rc = scr_copy(mv->files[f].path, mv->dests[f],
                      &(struct scr_copy_opts){.buf = buf, .bufsize = run->params->file_buf_size},
                      &got);
        mv->made[f] = rc == SCR_SUCCESS && absent;
    }
    return rc;
}

/* Every file is on the prefix: the pieces this rank read (s, k) and the
 * files it copied leave the cache (a claim goes at the end of the move).
 * Not collective. */
static void delete_cache_copies(const struct shared_file *s, int k, const struct move *mv)
{
    for (int i = 0; i < k; i++)
        if (s[i].holder && unlink(s[i].file) != 0 && errno != ENOENT)
            scr_warn("cannot delete %s from cache: %s", s[i].file, strerror(errno));
    for (int f = 0; f < mv->n; f++) {
        if (mv->claims == NULL || mv->claims[f] == NULL) continue;
        if (unlink(mv->files[f].path) != 0 && errno != ENOENT)
            scr_warn("cannot delete %s from cache: %s", mv->files[f].path, strerror(errno));
    }
}

/* Once every rank deleted its copies: the dataset's directory in cache
 * goes (the node's first rank), and this rank's filemap names the prefix
 * paths alone, with no redundancy, and is saved. Not collective. */
static int forget_cache_paths(struct scr_run *run, int id, const struct move *mv)
{
    int rc = SCR_SUCCESS;
    /* the files are safe on the prefix: what stays of the directory in
     * cache (each entry was warned about) costs space, not the dataset */
    if (run->node_rank == 0 && scr_remove_tree(mv->dsdir) != SCR_SUCCESS)
        scr_dbg(1, "dataset %d is on the prefix; part of %s stays in cache", id, mv->dsdir);
    for (int f = 0; rc == SCR_SUCCESS && f < mv->n; f++) {
        const char *path = mv->files[f].path;
        rc = scr_filemap_unset_meta(run->map, id, run->rank, path);
        if (rc == SCR_SUCCESS) rc = scr_filemap_remove_file(run->map, id, run->rank, path);
    }
    /* a dataset written in place has no redundancy */
    if (rc == SCR_SUCCESS) rc = scr_filemap_unset_reddesc(run->map, id, run->rank);
    if (rc == SCR_SUCCESS) rc = scr_cache_save_filemap(run);
    return rc;
}

/* Release what mv holds: the claims go, and when the move failed, the
 * copies this rank created (a file that was there before stays). Not
 * collective. */
static void end_move(struct move *mv, int failed)
{
    for (int f = 0; f < mv->n; f++) {
        int take_back = failed && mv->made != NULL && mv->made[f];
        if (take_back && unlink(mv->dests[f]) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", mv->dests[f], strerror(errno));
        if (mv->claims != NULL && mv->claims[f] != NULL && unlink(mv->claims[f]) != 0 &&
            errno != ENOENT)
            scr_warn("cannot remove %s: %s", mv->claims[f], strerror(errno));
        if (mv->dests) free(mv->dests[f]);
        if (mv->claims) free(mv->claims[f]);
    }
    free(mv->dests);
    free(mv->claims);
    free(mv->made);
    free(mv->dsdir);
}

/* Move this rank's files (view) of dataset id to the prefix: the merged files are
 * there already; the others are copied by one rank of the node each. The
 * filemap names the prefix path before anything is written there and
 * loses the cache path only after the file in cache is gone. When the move
 * fails, each rank removes the copies it created (a file that was there
 * before stays), since the dataset is then not completed on the prefix.
 * Collective; all ranks agree. */
static int move_to_prefix(struct scr_run *run, const struct scr_dataset_view *view,
                          const struct shared_file *s, int k, void *buf)
{
    struct move mv = {0};
    int id = view->id, ok = 0;
    int rc = start_move(run, view, &mv);
    /* the prefix paths join the filemap first */
    if (rc == SCR_SUCCESS) rc = name_prefix_paths(run, id, &mv);
    if (rc == SCR_SUCCESS) rc = copy_unshared(run, id, s, k, &mv, buf);
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS || !ok) {
        if (forget_prefix_paths(run, id, mv.dests, mv.n) != SCR_SUCCESS)
            scr_warn(
                "dataset %d: this rank's filemap may still name prefix paths the failed move left",
                id);
        goto out;
    }
    delete_cache_copies(s, k, &mv);
    mrc = scr_mpi_check(MPI_Barrier(run->world), "waiting for the cache to let go of a dataset");
    if (mrc != SCR_SUCCESS) goto out;
    rc = forget_cache_paths(run, id, &mv);
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
out:
    end_move(&mv, mrc != SCR_SUCCESS || !ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_ERR_IO;
}

/* The reduction buffers of a merge (b->len bytes each; *b zeroed first),
 * SCR_ERR_NOMEM when one could not be had; free them with free_reduce_bufs. */
static int alloc_reduce_bufs(const struct scr_run *run, struct reduce_bufs *b)
{
    /* overlaps are a block or so at each boundary between nodes' parts:
     * small chunks keep the four buffers small */
    size_t chunk =
        run->params->mpi_buf_size < REDUCE_CHUNK_MAX ? run->params->mpi_buf_size : REDUCE_CHUNK_MAX;
    *b = (struct reduce_bufs){chunk > 0 ? chunk : 1, NULL, NULL, NULL, NULL};
    b->max = malloc(b->len);
    b->rmax = malloc(b->len);
    b->min = malloc(b->len * sizeof(unsigned short));
    b->rmin = malloc(b->len * sizeof(unsigned short));
    return b->max && b->rmax && b->min && b->rmin ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

static void free_reduce_bufs(struct reduce_bufs *b)
{
    free(b->max);
    free(b->rmax);
    free(b->min);
    free(b->rmin);
}

/* Merge the nshared files of dataset id (name) described in s, one after
 * the other, until one fails or is refused (*out_refused, said);
 * *out_merged: the files merged whole. Collective; all ranks agree. */
static int merge_all(struct scr_run *run, int id, const char *name, struct shared_file *s,
                     int nshared, void *buf, struct reduce_bufs *b, int *out_merged,
                     int *out_refused)
{
    int mrc = SCR_SUCCESS;
    /* merged counts the files merged whole; one that failed or was
     * refused is taken back by merge_one, which knows whether it opened it */
    while (*out_merged < nshared) {
        struct shared_file *f = &s[*out_merged];
        uint64_t conflict = NO_CONFLICT;
        mrc = merge_one(run, f, buf, b, &conflict);
        if (mrc != SCR_SUCCESS) break;
        if (conflict != NO_CONFLICT) {
            char why[160];
            snprintf(why, sizeof(why),
                     "two nodes wrote different bytes at offset %" PRIu64 " of it, so its parts "
                     "cannot be merged",
                     conflict);
            mrc = scr_shared_file_refuse(run, id, name, f->hash, f->nodes, why);
            if (mrc == SCR_SUCCESS) *out_refused = 1;
            break;
        }
        (*out_merged)++;
    }
    return mrc;
}

/* The merged files of s (the first merged) that this rank wrote leave the
 * prefix. Not collective. */
static void remove_merged(const struct scr_run *run, const struct shared_file *s, int merged)
{
    for (int i = 0; i < merged; i++)
        if (run->rank == s[i].writer && unlink(s[i].dest) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", s[i].dest, strerror(errno));
}

int scr_shared_merge(struct scr_run *run, int id, const char *name, const uint64_t *shared,
                     int nshared, int *out_refused)
{
    struct shared_file *s = calloc((size_t)nshared, sizeof(*s));
    void *buf = malloc(run->params->file_buf_size);
    struct reduce_bufs b;
    /* this rank's files, read once: s and the move point into the view */
    struct scr_dataset_view *view = NULL;
    struct scr_dataset_view none = {.id = id, .rank = run->rank, .expected_files = -1};
    int ok = 0, merged = 0;
    *out_refused = 0;
    int rc = alloc_reduce_bufs(run, &b);
    if (rc == SCR_SUCCESS && (s == NULL || buf == NULL)) rc = SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) scr_err("out of memory merging the shared files of dataset %d", id);
    if (rc == SCR_SUCCESS) rc = scr_dataset_view_of(run->map, id, run->rank, &view);
    if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* this rank lists none of its files */
    const struct scr_dataset_view *mine = view != NULL ? view : &none;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc == SCR_SUCCESS && !ok) mrc = SCR_ERR_NOMEM;
    if (mrc == SCR_SUCCESS) mrc = describe(run, mine, shared, nshared, s);
    if (mrc == SCR_SUCCESS)
        mrc = merge_all(run, id, name, s, nshared, buf, &b, &merged, out_refused);
    if (mrc == SCR_SUCCESS && !*out_refused) {
        mrc = move_to_prefix(run, mine, s, nshared, buf);
        if (mrc == SCR_SUCCESS && run->rank == 0)
            scr_dbg(1,
                    "dataset %d (%s): %d file%s written by ranks on several nodes merged on the "
                    "prefix; the "
                    "dataset is written in place there",
                    id, name, nshared, nshared == 1 ? "" : "s");
    }
    /* the files merged before the one refused or failed go too, and
     * all of them when the rest of the dataset could not follow */
    if (mrc != SCR_SUCCESS || *out_refused) remove_merged(run, s, merged);
    for (int i = 0; s != NULL && i < nshared; i++) free(s[i].dest);
    free(s);
    free(buf);
    free_reduce_bufs(&b);
    scr_dataset_view_free(view);
    return mrc;
}
