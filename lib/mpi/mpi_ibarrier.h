/* mpi_ibarrier.h — a nonblocking barrier that costs every rank O(log P)
 * messages, as the sparse exchanges of libscr need to end.
 *
 * Under a real MPI it is MPI_Ibarrier. Under SimGrid's SMPI it is a
 * dissemination barrier of zero-byte messages, ceil(log2 P) rounds: SMPI's
 * MPI_Ibarrier has rank 0 hold two requests per rank, and tests each one at
 * every poll, which costs the simulation time in P at every turn of a
 * polling loop. The two give the same guarantee: the barrier completes on
 * a rank only once every rank of the communicator has started it.
 *
 * tag (SMPI only) must not be in use on comm by anything that could run
 * at the same time, including the previous barrier a fast rank has left. */
#ifndef SCR_MPI_IBARRIER_H
#define SCR_MPI_IBARRIER_H

#include <mpi.h>

struct scr_ibarrier {
    MPI_Comm comm;
    int tag, me, size;
    int distance;        /* the round under way: 2^k; size or more when done */
    MPI_Request reqs[2]; /* the round's send and receive, or the MPI_Ibarrier */
    int native;
};

/* Start the barrier on comm; SCR_SUCCESS, or the MPI failure (logged). */
int scr_ibarrier_start(struct scr_ibarrier *b, MPI_Comm comm, int tag);

/* *out_done = 1 once the barrier is complete on this rank (then b holds no
 * request); SCR_SUCCESS, or the MPI failure (logged). */
int scr_ibarrier_test(struct scr_ibarrier *b, int *out_done);

/* Block until other (a request of the caller's, or MPI_REQUEST_NULL)
 * completes or the barrier does, whichever is first, without polling:
 * *out_other_done = 1 when other completed (other is then
 * MPI_REQUEST_NULL), *out_done = 1 when the barrier did. SCR_SUCCESS, or
 * the MPI failure (logged). */
int scr_ibarrier_wait_or(struct scr_ibarrier *b, MPI_Request *other, int *out_other_done,
                         int *out_done);

#endif
