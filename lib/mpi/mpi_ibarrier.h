/* mpi_ibarrier.h — a nonblocking barrier that costs every rank O(log P)
 * messages, as the sparse exchanges of libscr need to end.
 *
 * Under a real MPI it is MPI_Ibarrier. Under SimGrid's SMPI it is a
 * binomial tree of zero-byte messages: each rank hears from its children
 * that their subtrees have started, tells its parent, and once rank 0 has
 * heard from every subtree the word goes back down; 2(P-1) messages in
 * 2 log2 P rounds. SMPI's MPI_Ibarrier has rank 0 hold two requests per
 * rank, and tests each one at every poll, which costs the simulation time
 * in P at every turn of a polling loop; a dissemination barrier sends
 * P log2 P messages, and the simulation's time goes with its messages.
 * Both give the guarantee MPI_Ibarrier gives: the barrier completes on a
 * rank only once every rank of the communicator has started it.
 *
 * tag (SMPI only) must not be in use on comm by anything that could run
 * at the same time, including the previous barrier a fast rank has left. */
#ifndef SCR_MPI_IBARRIER_H
#define SCR_MPI_IBARRIER_H

#include <mpi.h>

/* a rank's children in the tree: at most one per bit of an int */
#define SCR_IBARRIER_MOST_CHILDREN 31

struct scr_ibarrier {
    MPI_Comm comm;
    int tag, me, size, native;
    int nchildren;
    int heard_children; /* every child's subtree has started */
    int told_parent;    /* ... and so has this rank's: the parent knows */
    int told_children;  /* every rank has started: the children know */
    /* from the parent (the word coming down), to the parent, then from
     * and to each child; or reqs[0], the MPI_Ibarrier */
    MPI_Request reqs[2 + 2 * SCR_IBARRIER_MOST_CHILDREN];
};

/* Start the barrier on comm; SCR_SUCCESS, or the MPI failure (logged). */
int scr_ibarrier_start(struct scr_ibarrier *b, MPI_Comm comm, int tag);

/* Block until other (a request of the caller's, or MPI_REQUEST_NULL)
 * completes or the barrier does, whichever is first, without polling:
 * *out_other_done = 1 when other completed (other is then
 * MPI_REQUEST_NULL), *out_done = 1 when the barrier did. SCR_SUCCESS, or
 * the MPI failure (logged). */
int scr_ibarrier_wait_or(struct scr_ibarrier *b, MPI_Request *other, int *out_other_done,
                         int *out_done);

#endif
