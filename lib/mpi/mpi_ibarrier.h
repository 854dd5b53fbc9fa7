/* mpi_ibarrier.h — a nonblocking barrier that ends in a message the
 * caller's own receive takes, as the sparse exchanges of libscr need: a
 * rank of an exchange keeps a receive posted for records until every rank
 * has started the barrier, and the barrier's last word lands in that
 * receive, so that nothing is left to cancel.
 *
 * The word is a zero-byte message on the caller's tag (release_tag), from
 * a rank of comm; the caller's receive must take it (MPI_ANY_SOURCE on
 * release_tag, room for it being no room at all) and hand it to
 * scr_ibarrier_released. Under a real MPI it is MPI_Ibarrier, and a rank
 * sends itself the word once that completes. Under SimGrid's SMPI it is a
 * binomial tree: each rank hears from its children that their subtrees
 * have started and tells its parent; rank 0, once it has heard from every
 * subtree, sends itself the word, and each rank that receives it passes it
 * on to its children. 2(P-1) messages in 2 log2 P rounds, and no receive
 * of the barrier's own on the way down. (SMPI's MPI_Ibarrier has rank 0
 * hold two requests per rank and test each at every poll; a dissemination
 * barrier sends P log2 P messages, and the simulation's time goes with its
 * messages and with each rank's MPI calls.)
 *
 * The word reaches a rank only once every rank of comm has started the
 * barrier, the guarantee MPI_Ibarrier gives. Every message the ranks sent
 * on release_tag before they started it, by synchronous send, has then been
 * received: the word is the last thing the caller's receive takes.
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
    int tag, release_tag, me, size, native;
    int nchildren;
    int heard_children; /* every child's subtree has started */
    int told_parent;    /* ... and so has this rank's: the parent knows */
    int sent_word;      /* rank 0, or after MPI_Ibarrier: the word is on its way */
    int released;       /* the word came: every rank has started */
    /* the word to this rank itself (rank 0, or after MPI_Ibarrier), to the
     * parent, then from and to each child; or reqs[1], the MPI_Ibarrier */
    MPI_Request reqs[2 + 2 * SCR_IBARRIER_MOST_CHILDREN];
};

/* Start the barrier on comm; SCR_SUCCESS, or the MPI failure (logged). */
int scr_ibarrier_start(struct scr_ibarrier *b, MPI_Comm comm, int tag, int release_tag);

/* Block until other (the caller's receive, or MPI_REQUEST_NULL) completes
 * or a step of the barrier does, whichever is first, without polling:
 * *out_other_done = 1 when other completed (other is then
 * MPI_REQUEST_NULL, its status in *out_status). SCR_SUCCESS, or the MPI
 * failure (logged). */
int scr_ibarrier_wait_or(struct scr_ibarrier *b, MPI_Request *other, int *out_other_done,
                         MPI_Status *out_status);

/* The caller's receive took the word: pass it on. */
int scr_ibarrier_released(struct scr_ibarrier *b);

/* 1 once the word came and every message of the barrier has left. */
int scr_ibarrier_is_done(const struct scr_ibarrier *b);

#endif
