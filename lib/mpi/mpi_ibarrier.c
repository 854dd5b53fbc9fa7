/* mpi_ibarrier.c — MPI_Ibarrier, or a dissemination barrier under SMPI. */
#include "mpi_ibarrier.h"
#include "mpi_comm.h"
#include "mpi_host.h"
#include "scr_err.h"

/* Post round b->distance: a message to the rank that far ahead, and the
 * receive of the one from the rank that far behind. */
static int post_round(struct scr_ibarrier *b)
{
    static char nothing;
    int to = (int)(((long long)b->me + b->distance) % b->size);
    int from = (int)(((long long)b->me - b->distance % b->size + b->size) % b->size);
    int rc = scr_mpi_check(MPI_Irecv(&nothing, 0, MPI_BYTE, from, b->tag, b->comm, &b->reqs[1]),
                           "a barrier round (receive)");
    if (rc != SCR_SUCCESS) return rc;
    return scr_mpi_check(MPI_Isend(&nothing, 0, MPI_BYTE, to, b->tag, b->comm, &b->reqs[0]),
                         "a barrier round (send)");
}

/* Once both requests of a round are done, every rank up to twice its
 * distance behind has started: on to the next round, or done. */
static int advance(struct scr_ibarrier *b)
{
    while (b->distance < b->size && b->reqs[0] == MPI_REQUEST_NULL &&
           b->reqs[1] == MPI_REQUEST_NULL) {
        b->distance = b->distance > b->size / 2 ? b->size : b->distance * 2;
        if (b->distance < b->size) {
            int rc = post_round(b);
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    return SCR_SUCCESS;
}

static int is_done(const struct scr_ibarrier *b)
{
    return b->native ? b->reqs[0] == MPI_REQUEST_NULL : b->distance >= b->size;
}

int scr_ibarrier_start(struct scr_ibarrier *b, MPI_Comm comm, int tag)
{
    b->comm = comm;
    b->tag = tag;
    b->reqs[0] = b->reqs[1] = MPI_REQUEST_NULL;
    b->native = !scr_mpi_is_simulated();
    if (b->native) return scr_mpi_check(MPI_Ibarrier(comm, &b->reqs[0]), "starting a barrier");
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &b->me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &b->size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    b->distance = 1;
    return b->distance < b->size ? post_round(b) : SCR_SUCCESS;
}

int scr_ibarrier_test(struct scr_ibarrier *b, int *out_done)
{
    int flag = 0;
    *out_done = is_done(b);
    if (*out_done) return SCR_SUCCESS;
    int rc = scr_mpi_check(MPI_Testall(b->native ? 1 : 2, b->reqs, &flag, MPI_STATUSES_IGNORE),
                           "ending a barrier");
    if (rc == SCR_SUCCESS && !b->native) rc = advance(b);
    *out_done = is_done(b);
    return rc;
}

int scr_ibarrier_wait_or(struct scr_ibarrier *b, MPI_Request *other, int *out_other_done,
                         int *out_done)
{
    *out_other_done = 0;
    *out_done = is_done(b);
    if (*out_done) return SCR_SUCCESS;
    MPI_Request reqs[3] = {*other, b->reqs[0], b->reqs[1]};
    int which = MPI_UNDEFINED;
    int rc = scr_mpi_check(MPI_Waitany(b->native ? 2 : 3, reqs, &which, MPI_STATUS_IGNORE),
                           "waiting in a barrier");
    *other = reqs[0];
    b->reqs[0] = reqs[1];
    if (!b->native) b->reqs[1] = reqs[2];
    if (rc != SCR_SUCCESS) return rc;
    *out_other_done = which == 0;
    if (!b->native) rc = advance(b);
    *out_done = is_done(b);
    return rc;
}
