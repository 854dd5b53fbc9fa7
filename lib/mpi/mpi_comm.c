/* mpi_comm.c — checked MPI calls, trees over messages, agreement, split by name. */
#include "mpi_comm.h"
#include "kvtree_pack.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_pace.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int scr_mpi_check(int mpi_rc, const char *what)
{
    if (mpi_rc == MPI_SUCCESS) return SCR_SUCCESS;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof(text), "code %d", mpi_rc);
    scr_err("%s failed: %s", what, text);
    return SCR_FAILURE;
}

int scr_comm_all_true(int flag, MPI_Comm comm, int *out_all)
{
    int mine = flag ? 1 : 0, all = 0;
    int rc = scr_mpi_allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm,
                               "agreeing with the other ranks (MPI_Allreduce)");
    if (rc == SCR_SUCCESS) *out_all = all;
    return rc;
}

int scr_tree_parent(int me)
{
    return me & (me - 1);
}

int scr_tree_children(int me, int size)
{
    int n = 0;
    while (n < 31 && (me == 0 || (1 << n) < (me & -me)) && (long long)me + (1LL << n) < size) n++;
    return n;
}

int scr_comm_most_and_all_true(unsigned long long value, int flag, MPI_Comm comm,
                               unsigned long long *out_most, int *out_all)
{
    unsigned long long mine[2] = {value, flag ? 0 : 1}, most[2] = {0, 0};
    int rc = scr_mpi_allreduce(mine, most, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm,
                               "agreeing with the other ranks (MPI_Allreduce)");
    if (rc == SCR_SUCCESS) {
        *out_most = most[0];
        *out_all = most[1] == 0;
    }
    return rc;
}

int scr_comm_alternate_tags(int *turn, int base, int span)
{
    *turn ^= 1;
    return base + *turn * span;
}

int scr_comm_agree(MPI_Comm comm, int rc, int failed_code)
{
    int all = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, comm, &all);
    if (mrc != SCR_SUCCESS) return mrc;
    return all ? SCR_SUCCESS : failed_code;
}

/* A packed copy of tree in a new buffer; its size must fit an MPI count. */
int scr_comm_pack_kvtree(const scr_kvtree *tree, char **out_buf, int *out_len)
{
    size_t size = scr_kvtree_pack_size(tree);
    if (size > INT_MAX) {
        scr_err("a record of %zu bytes is too large to send", size);
        return SCR_ERR_ARG;
    }
    char *buf = malloc(size);
    if (buf == NULL) {
        scr_err("out of memory packing a record of %zu bytes", size);
        return SCR_ERR_NOMEM;
    }
    if (scr_kvtree_pack(buf, size, tree) != size) {
        free(buf);
        scr_err("packing a record gave an unexpected size");
        return SCR_FAILURE;
    }
    *out_buf = buf;
    *out_len = (int)size;
    return SCR_SUCCESS;
}

int scr_comm_unpack_kvtree(const char *buf, size_t len, const char *origin, scr_kvtree **out_tree)
{
    scr_kvtree *t = scr_kvtree_new();
    if (t == NULL) return SCR_ERR_NOMEM;
    size_t used = 0;
    int rc = scr_kvtree_unpack(buf, len, t, &used, origin);
    if (rc == SCR_SUCCESS && used != len) {
        scr_err("%s: %zu bytes after the record", origin, len - used);
        rc = SCR_ERR_FORMAT;
    }
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(t);
        return rc;
    }
    *out_tree = t;
    return SCR_SUCCESS;
}

int scr_comm_bcast_kvtree(scr_kvtree **tree, int root, MPI_Comm comm)
{
    int me;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    char *buf = NULL;
    int len = 0;
    /* root packs; a failure there still has to reach the others, as len -1 */
    if (me == root && scr_comm_pack_kvtree(*tree, &buf, &len) != SCR_SUCCESS) len = -1;
    rc = scr_mpi_check(MPI_Bcast(&len, 1, MPI_INT, root, comm), "broadcasting a record size");
    if (rc == SCR_SUCCESS && len < 0) rc = SCR_FAILURE;
    if (rc == SCR_SUCCESS && me != root) {
        buf = malloc(len > 0 ? (size_t)len : 1);
        if (buf == NULL) {
            scr_err("out of memory receiving a record of %d bytes", len);
            rc = SCR_ERR_NOMEM; /* still take part in the broadcast below */
        }
    }
    char dummy;
    int brc = scr_mpi_check(MPI_Bcast(buf ? buf : &dummy, buf ? len : 0, MPI_BYTE, root, comm),
                            "broadcasting a record");
    if (rc == SCR_SUCCESS) rc = brc;
    if (rc == SCR_SUCCESS && me != root) {
        char origin[64];
        snprintf(origin, sizeof(origin), "record broadcast by rank %d", root);
        scr_kvtree *t = NULL;
        rc = scr_comm_unpack_kvtree(buf, (size_t)len, origin, &t);
        if (rc == SCR_SUCCESS) {
            scr_kvtree_delete(*tree);
            *tree = t;
        }
    }
    free(buf);
    return rc;
}

int scr_comm_send_kvtree(const scr_kvtree *tree, int dest, int tag, MPI_Comm comm)
{
    char *buf = NULL, dummy;
    int len = 0;
    /* a tree that cannot be packed still reaches dest, as an empty message
     * (a packed tree has at least 4 bytes): dest waits for it */
    int rc = scr_comm_pack_kvtree(tree, &buf, &len);
    int mrc = scr_mpi_check(MPI_Send(buf ? buf : &dummy, buf ? len : 0, MPI_BYTE, dest, tag, comm),
                            "sending a record");
    free(buf);
    return rc != SCR_SUCCESS ? rc : mrc;
}

int scr_comm_recv_kvtree(int src, int tag, MPI_Comm comm, scr_kvtree **out_tree)
{
    MPI_Status st;
    int rc = scr_mpi_check(MPI_Probe(src, tag, comm, &st), "waiting for a record");
    int len = 0;
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Get_count(&st, MPI_BYTE, &len), "MPI_Get_count");
    if (rc != SCR_SUCCESS) return rc;
    char *buf = malloc(len > 0 ? (size_t)len : 1);
    if (buf == NULL) {
        scr_err("out of memory receiving a record of %d bytes", len);
        return SCR_ERR_NOMEM;
    }
    rc = scr_mpi_check(MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE),
                       "receiving a record");
    if (rc == SCR_SUCCESS && len == 0) {
        scr_err("rank %d could not send its record", st.MPI_SOURCE);
        rc = SCR_FAILURE;
    }
    if (rc == SCR_SUCCESS) {
        char origin[64];
        snprintf(origin, sizeof(origin), "record from rank %d", st.MPI_SOURCE);
        rc = scr_comm_unpack_kvtree(buf, (size_t)len, origin, out_tree);
    }
    free(buf);
    return rc;
}

int scr_comm_sendrecv_kvtree(const scr_kvtree *tree, int dest, int src, int tag, MPI_Comm comm,
                             scr_kvtree **out_tree)
{
    char *buf = NULL, *in = NULL;
    int len = 0, inlen = 0;
    int rc = scr_comm_pack_kvtree(tree, &buf, &len);
    if (rc != SCR_SUCCESS) len = -1; /* still take part: the peer learns of the failure */
    int mrc = scr_mpi_check(MPI_Sendrecv(&len, 1, MPI_INT, dest, tag, &inlen, 1, MPI_INT, src, tag,
                                         comm, MPI_STATUS_IGNORE),
                            "exchanging record sizes");
    if (rc == SCR_SUCCESS) rc = mrc;
    if (mrc == SCR_SUCCESS && inlen >= 0) {
        in = malloc(inlen > 0 ? (size_t)inlen : 1);
        if (in == NULL && rc == SCR_SUCCESS) rc = SCR_ERR_NOMEM;
    }
    char dummy;
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Sendrecv(buf ? buf : &dummy, len > 0 ? len : 0, MPI_BYTE, dest, tag,
                                         in ? in : &dummy, (in && inlen > 0) ? inlen : 0, MPI_BYTE,
                                         src, tag, comm, MPI_STATUS_IGNORE),
                            "exchanging records");
    if (rc == SCR_SUCCESS) rc = mrc;
    if (rc == SCR_SUCCESS && inlen < 0) {
        scr_err("rank %d could not send its record", src);
        rc = SCR_FAILURE;
    }
    if (rc == SCR_SUCCESS) {
        char origin[64];
        snprintf(origin, sizeof(origin), "record from rank %d", src);
        rc = scr_comm_unpack_kvtree(in, (size_t)inlen, origin, out_tree);
    }
    free(buf);
    free(in);
    return rc;
}

void scr_comm_free_trees(scr_kvtree **trees, int count)
{
    if (trees == NULL) return;
    for (int i = 0; i < count; i++) scr_kvtree_delete(trees[i]);
    free(trees);
}

/* The records of all ranks laid end to end at the root: rank i's record is
 * lens[i] bytes at all + displs[i]. Only the root allocates; all free. */
struct gathered_records {
    int *lens, *displs;
    char *all;
};

static void gathered_records_free(struct gathered_records *g)
{
    free(g->all);
    free(g->lens);
    free(g->displs);
}

/* At the root, with the sizes of the records in g->lens: places them end to
 * end in g->displs and allocates g->all for them; false (having said why)
 * when they do not fit one message or memory. */
static int layout_records(struct gathered_records *g, int nranks)
{
    long long total = 0;
    for (int i = 0; i < nranks; i++) {
        g->displs[i] = (int)(total < INT_MAX ? total : 0);
        total += g->lens[i];
    }
    if (total > INT_MAX) {
        scr_err("gathered records of %lld bytes are too large for one message", total);
        return 0;
    }
    if ((g->all = malloc(total > 0 ? (size_t)total : 1)) == NULL) {
        scr_err("out of memory gathering records of %lld bytes", total);
        return 0;
    }
    return 1;
}

/* Collective: the len bytes of buf of every rank into g at the root.
 * *out_root_ok, the same on all ranks, says whether the root could take them
 * (no record moved otherwise); the return code is that of the MPI calls. */
static int gather_records(const char *buf, int len, int me, int nranks, int root, MPI_Comm comm,
                          struct gathered_records *g, int *out_root_ok)
{
    /* root learns the sizes and says whether it can take them all */
    int root_ok = 1;
    if (me == root) {
        g->lens = calloc((size_t)nranks, sizeof(int));
        g->displs = calloc((size_t)nranks, sizeof(int));
        root_ok = g->lens != NULL && g->displs != NULL;
    }
    int rc = scr_mpi_check(
        MPI_Gather(&len, 1, MPI_INT, root_ok ? g->lens : NULL, 1, MPI_INT, root, comm),
        "gathering record sizes");
    if (rc == SCR_SUCCESS && me == root && root_ok) root_ok = layout_records(g, nranks);
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Bcast(&root_ok, 1, MPI_INT, root, comm), "MPI_Bcast");
    char dummy;
    if (rc == SCR_SUCCESS && root_ok)
        rc = scr_mpi_check(MPI_Gatherv(buf ? buf : &dummy, len, MPI_BYTE, g->all ? g->all : &dummy,
                                       g->lens, g->displs, MPI_BYTE, root, comm),
                           "gathering records");
    *out_root_ok = root_ok;
    return rc;
}

/* At the root: one new tree per rank from the records of g in
 * *out_trees (an array of nranks the caller frees with
 * scr_comm_free_trees, also on failure). */
static int unpack_records(const struct gathered_records *g, int nranks, scr_kvtree ***out_trees)
{
    scr_kvtree **trees = calloc((size_t)nranks, sizeof(*trees));
    *out_trees = trees;
    if (trees == NULL) {
        scr_err("out of memory gathering records of %d ranks", nranks);
        return SCR_ERR_NOMEM;
    }
    int status = SCR_SUCCESS;
    for (int i = 0; status == SCR_SUCCESS && i < nranks; i++) {
        char origin[64];
        snprintf(origin, sizeof(origin), "record from rank %d", i);
        status =
            scr_comm_unpack_kvtree(g->all + g->displs[i], (size_t)g->lens[i], origin, &trees[i]);
    }
    return status;
}

int scr_comm_gather_kvtree(const scr_kvtree *mine, int root, MPI_Comm comm, scr_kvtree ***out_trees)
{
    *out_trees = NULL;
    int me, nranks, ok = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;

    /* every rank packs, and all agree it worked, before any byte moves */
    char *buf = NULL;
    int len = 0;
    int prc = scr_comm_pack_kvtree(mine, &buf, &len);
    rc = scr_comm_all_true(prc == SCR_SUCCESS, comm, &ok);
    if (rc != SCR_SUCCESS || !ok) {
        free(buf);
        return rc != SCR_SUCCESS ? rc : SCR_FAILURE;
    }

    struct gathered_records g = {0};
    int root_ok = 0;
    rc = gather_records(buf, len, me, nranks, root, comm, &g, &root_ok);
    free(buf);

    /* root unpacks, and everyone learns whether that worked */
    int status = (rc == SCR_SUCCESS && root_ok) ? SCR_SUCCESS : SCR_FAILURE;
    scr_kvtree **trees = NULL;
    if (status == SCR_SUCCESS && me == root) status = unpack_records(&g, nranks, &trees);
    gathered_records_free(&g);
    if (rc == SCR_SUCCESS && root_ok) {
        int unpacked = status == SCR_SUCCESS;
        rc = scr_mpi_check(MPI_Bcast(&unpacked, 1, MPI_INT, root, comm), "MPI_Bcast");
        if (rc == SCR_SUCCESS && !unpacked) status = SCR_FAILURE;
    }
    if (rc != SCR_SUCCESS) status = rc;
    if (status == SCR_SUCCESS)
        *out_trees = trees;
    else
        scr_comm_free_trees(trees, me == root ? nranks : 0);
    return status;
}

/* This rank, the size of comm, and width limited to [1, size]. */
static int window_geometry(MPI_Comm comm, int *width, int *me, int *size)
{
    int rc = scr_mpi_check(MPI_Comm_rank(comm, me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, size), "MPI_Comm_size");
    if (*width < 1) *width = 1;
    if (*width > *size) *width = *size;
    return rc;
}

int scr_comm_window_enter(MPI_Comm comm, int width, int tag)
{
    int me, size, token = 0;
    int rc = window_geometry(comm, &width, &me, &size);
    if (rc == SCR_SUCCESS && me >= width)
        rc = scr_mpi_check(MPI_Recv(&token, 1, MPI_INT, me - width, tag, comm, MPI_STATUS_IGNORE),
                           "waiting for a turn");
    return rc;
}

int scr_comm_window_leave(MPI_Comm comm, int width, int tag)
{
    int me, size, token = 0;
    int rc = window_geometry(comm, &width, &me, &size);
    if (rc == SCR_SUCCESS && me + width < size)
        rc = scr_mpi_check(MPI_Send(&token, 1, MPI_INT, me + width, tag, comm),
                           "passing the turn on");
    return rc;
}

/* --- polite waits (mpi_comm.h) ------------------------------------------------ */

/* How long a wait yields the core between tests before it naps instead
 * (seconds), and its naps: the first and the longest, in nanoseconds. */
#define YIELD_SECONDS 0.05
#define NAP_FIRST_NS 100000L
#define NAP_MOST_NS 1000000L

static const atomic_int always = 1;
static __thread const atomic_int *polite; /* NULL: wait as MPI does */

void scr_mpi_wait_politely(int on)
{
    polite = on ? &always : NULL;
}

void scr_mpi_wait_politely_while(const atomic_int *flag)
{
    polite = flag;
}

static int is_polite(void)
{
    return polite != NULL && atomic_load_explicit(polite, memory_order_relaxed);
}

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int scr_mpi_waitall(int n, MPI_Request *reqs, const char *what)
{
    /* nothing to wait for, no call: under SMPI every MPI call a rank makes,
     * even one with nothing to do, costs the simulation an event */
    int pending = 0;
    for (int i = 0; i < n && !pending; i++) pending = reqs[i] != MPI_REQUEST_NULL;
    if (!pending) return SCR_SUCCESS;
    double start = 0; /* taken at the first test that finds the requests pending */
    long ns = NAP_FIRST_NS;
    while (is_polite()) {
        int done = 0;
        int rc = scr_mpi_check(MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE), what);
        if (rc != SCR_SUCCESS || done) return rc;
        double now = scr_pace_now();
        if (start == 0) start = now;
        if (now - start < YIELD_SECONDS) {
            sched_yield();
        } else {
            nap(ns);
            if (ns < NAP_MOST_NS) ns *= 2;
        }
    }
    return scr_mpi_check(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), what);
}

int scr_mpi_wait(MPI_Request *req, const char *what)
{
    return scr_mpi_waitall(1, req, what);
}

int scr_mpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, const char *what)
{
    /* chosen by the setting, not by its flag: a nonblocking collective
     * never matches a blocking one, and two ranks' flags may differ */
    if (polite == NULL)
        return scr_mpi_check(MPI_Allreduce(sendbuf, recvbuf, count, type, op, comm), what);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = scr_mpi_check(MPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, &req), what);
    if (rc != SCR_SUCCESS) return rc;
    return scr_mpi_wait(&req, what);
}
