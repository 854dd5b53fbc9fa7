/* mpi_ibarrier.c — MPI_Ibarrier, or a binomial-tree barrier under SMPI. */
#include "mpi_ibarrier.h"
#include "mpi_comm.h"
#include "mpi_host.h"
#include "scr_err.h"

#define FROM_PARENT 0
#define TO_PARENT 1
#define FROM_CHILD(i) (2 + 2 * (i))
#define TO_CHILD(i) (3 + 2 * (i))

static char nothing;

/* In the binomial tree of rank 0: rank r's parent is r with its lowest set
 * bit cleared, and its children are r + 2^k for each 2^k below that bit
 * (below size, for rank 0). */
static int parent_of(int me)
{
    return me & (me - 1);
}

static int child_of(int me, int i)
{
    return me + (1 << i);
}

static int count_children(int me, int size)
{
    int n = 0;
    while (n < SCR_IBARRIER_MOST_CHILDREN && (me == 0 || (1 << n) < (me & -me)) &&
           (long long)me + (1LL << n) < size)
        n++;
    return n;
}

static int all_null(const MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL) return 0;
    return 1;
}

static int nreqs(const struct scr_ibarrier *b)
{
    return b->native ? 1 : 2 + 2 * b->nchildren;
}

static int send_nothing(struct scr_ibarrier *b, int to, MPI_Request *req)
{
    return scr_mpi_check(MPI_Isend(&nothing, 0, MPI_BYTE, to, b->tag, b->comm, req),
                         "a barrier's message");
}

/* Send on whatever this rank has learnt: up once its subtree has started,
 * down once every rank has. */
static int advance(struct scr_ibarrier *b)
{
    int rc = SCR_SUCCESS;
    if (!b->heard_children) {
        b->heard_children = 1;
        for (int i = 0; i < b->nchildren; i++)
            if (b->reqs[FROM_CHILD(i)] != MPI_REQUEST_NULL) b->heard_children = 0;
    }
    if (b->heard_children && !b->told_parent) {
        b->told_parent = 1;
        if (b->me != 0) rc = send_nothing(b, parent_of(b->me), &b->reqs[TO_PARENT]);
    }
    if (rc == SCR_SUCCESS && b->told_parent && !b->told_children &&
        b->reqs[FROM_PARENT] == MPI_REQUEST_NULL) {
        b->told_children = 1;
        for (int i = 0; rc == SCR_SUCCESS && i < b->nchildren; i++)
            rc = send_nothing(b, child_of(b->me, i), &b->reqs[TO_CHILD(i)]);
    }
    return rc;
}

static int is_done(const struct scr_ibarrier *b)
{
    return (b->native || b->told_children) && all_null(b->reqs, nreqs(b));
}

int scr_ibarrier_start(struct scr_ibarrier *b, MPI_Comm comm, int tag)
{
    b->comm = comm;
    b->tag = tag;
    for (int i = 0; i < 2 + 2 * SCR_IBARRIER_MOST_CHILDREN; i++) b->reqs[i] = MPI_REQUEST_NULL;
    b->native = !scr_mpi_is_simulated();
    if (b->native) return scr_mpi_check(MPI_Ibarrier(comm, &b->reqs[0]), "starting a barrier");
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &b->me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &b->size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    b->nchildren = count_children(b->me, b->size);
    b->heard_children = b->told_parent = b->told_children = 0;
    /* every receive now: a child may start, and a parent finish, first */
    if (b->me != 0)
        rc = scr_mpi_check(MPI_Irecv(&nothing, 0, MPI_BYTE, parent_of(b->me), b->tag, b->comm,
                                     &b->reqs[FROM_PARENT]),
                           "a barrier's message");
    for (int i = 0; rc == SCR_SUCCESS && i < b->nchildren; i++)
        rc = scr_mpi_check(MPI_Irecv(&nothing, 0, MPI_BYTE, child_of(b->me, i), b->tag, b->comm,
                                     &b->reqs[FROM_CHILD(i)]),
                           "a barrier's message");
    return rc == SCR_SUCCESS ? advance(b) : rc;
}

int scr_ibarrier_wait_or(struct scr_ibarrier *b, MPI_Request *other, int *out_other_done,
                         int *out_done)
{
    *out_other_done = 0;
    *out_done = is_done(b);
    if (*out_done) return SCR_SUCCESS;
    int n = nreqs(b);
    MPI_Request reqs[3 + 2 * SCR_IBARRIER_MOST_CHILDREN];
    reqs[0] = *other;
    for (int i = 0; i < n; i++) reqs[1 + i] = b->reqs[i];
    int which = MPI_UNDEFINED;
    int rc =
        scr_mpi_check(MPI_Waitany(1 + n, reqs, &which, MPI_STATUS_IGNORE), "waiting in a barrier");
    *other = reqs[0];
    for (int i = 0; i < n; i++) b->reqs[i] = reqs[1 + i];
    if (rc != SCR_SUCCESS) return rc;
    *out_other_done = which == 0;
    if (!b->native) rc = advance(b);
    *out_done = is_done(b);
    return rc;
}
