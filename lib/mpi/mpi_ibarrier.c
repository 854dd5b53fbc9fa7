/* mpi_ibarrier.c — MPI_Ibarrier, or a binomial-tree barrier under SMPI;
 * either ends in a word the caller's receive takes. */
#include "mpi_ibarrier.h"
#include "mpi_comm.h"
#include "mpi_host.h"
#include "scr_err.h"

#define TO_SELF 0
#define TO_PARENT 1
#define NATIVE 1
#define FROM_CHILD(i) (2 + 2 * (i))
#define TO_CHILD(i) (3 + 2 * (i))

static char nothing;

static int child_of(int me, int i)
{
    return me + (1 << i);
}

static int all_null(const MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL) return 0;
    return 1;
}

static int nreqs(const struct scr_ibarrier *b)
{
    return b->native ? 2 : 2 + 2 * b->nchildren;
}

static int send_nothing(struct scr_ibarrier *b, int to, int tag, MPI_Request *req)
{
    return scr_mpi_check(MPI_Isend(&nothing, 0, MPI_BYTE, to, tag, b->comm, req),
                         "a barrier's message");
}

/* Send on whatever this rank has learnt: up once its subtree has started;
 * at rank 0 that is every rank, and the word goes out. */
static int advance(struct scr_ibarrier *b)
{
    if (b->native) {
        if (b->sent_word || b->reqs[NATIVE] != MPI_REQUEST_NULL) return SCR_SUCCESS;
        b->sent_word = 1;
        return send_nothing(b, b->me, b->release_tag, &b->reqs[TO_SELF]);
    }
    if (!b->heard_children) {
        b->heard_children = 1;
        for (int i = 0; i < b->nchildren; i++)
            if (b->reqs[FROM_CHILD(i)] != MPI_REQUEST_NULL) b->heard_children = 0;
    }
    if (!b->heard_children || b->told_parent) return SCR_SUCCESS;
    b->told_parent = 1;
    if (b->me != 0) return send_nothing(b, scr_tree_parent(b->me), b->tag, &b->reqs[TO_PARENT]);
    b->sent_word = 1;
    return send_nothing(b, b->me, b->release_tag, &b->reqs[TO_SELF]);
}

int scr_ibarrier_start(struct scr_ibarrier *b, MPI_Comm comm, int tag, int release_tag)
{
    b->comm = comm;
    b->tag = tag;
    b->release_tag = release_tag;
    for (int i = 0; i < 2 + 2 * SCR_IBARRIER_MOST_CHILDREN; i++) b->reqs[i] = MPI_REQUEST_NULL;
    b->heard_children = b->told_parent = b->sent_word = b->released = 0;
    b->nchildren = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &b->me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &b->size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    b->native = !scr_mpi_is_simulated();
    if (b->native) {
        rc = scr_mpi_check(MPI_Ibarrier(comm, &b->reqs[NATIVE]), "starting a barrier");
        return rc == SCR_SUCCESS ? advance(b) : rc;
    }
    b->nchildren = scr_tree_children(b->me, b->size);
    /* every child's report now: a child may start first */
    for (int i = 0; rc == SCR_SUCCESS && i < b->nchildren; i++)
        rc = scr_mpi_check(MPI_Irecv(&nothing, 0, MPI_BYTE, child_of(b->me, i), b->tag, b->comm,
                                     &b->reqs[FROM_CHILD(i)]),
                           "a barrier's message");
    return rc == SCR_SUCCESS ? advance(b) : rc;
}

int scr_ibarrier_wait_or(struct scr_ibarrier *b, MPI_Request *other, int *out_other_done,
                         MPI_Status *out_status)
{
    *out_other_done = 0;
    int n = nreqs(b);
    MPI_Request reqs[3 + 2 * SCR_IBARRIER_MOST_CHILDREN];
    reqs[0] = *other;
    for (int i = 0; i < n; i++) reqs[1 + i] = b->reqs[i];
    int which = MPI_UNDEFINED;
    int rc = scr_mpi_check(MPI_Waitany(1 + n, reqs, &which, out_status), "waiting in a barrier");
    *other = reqs[0];
    for (int i = 0; i < n; i++) b->reqs[i] = reqs[1 + i];
    if (rc != SCR_SUCCESS) return rc;
    *out_other_done = which == 0;
    return advance(b);
}

int scr_ibarrier_released(struct scr_ibarrier *b)
{
    int rc = SCR_SUCCESS;
    b->released = 1;
    for (int i = 0; !b->native && rc == SCR_SUCCESS && i < b->nchildren; i++)
        rc = send_nothing(b, child_of(b->me, i), b->release_tag, &b->reqs[TO_CHILD(i)]);
    return rc;
}

int scr_ibarrier_is_done(const struct scr_ibarrier *b)
{
    return b->released && all_null(b->reqs, nreqs(b));
}
