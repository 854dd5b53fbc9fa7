/* mpi_inbox.h — one rank receives a tree from each rank of a range,
 * without probing, and takes them in the order it wants.
 *
 * Each sender waits to be asked, then sends its packed tree's length and
 * the tree (scr_inbox_send). The receiver asks its senders in batches of
 * 32, in rank order: it posts a batch's receives of lengths, asks each
 * sender (a zero-byte message), then receives each tree with its exact
 * length (scr_inbox_open); it then takes them in its own order
 * (scr_inbox_take). No more than a batch is ever in flight to the
 * receiver: under SimGrid's SMPI every message sent and not yet received
 * costs the simulation time at each completion of any other, so that a
 * thousand senders to each of P/1024 receivers at once cost it P^2. A
 * sender that could not pack its tree sends length 0, which the receiver
 * reports as that sender's failure. Nothing polls: a real MPI's probe of a
 * message not yet there costs nothing, but SMPI charges each turn of its
 * probe loop simulated time. The receiver holds the range's packed trees
 * at once, so the caller bounds the range. Point to point, not
 * collective; every MPI call is checked and a failure logged once. Not
 * thread-safe. */
#ifndef SCR_MPI_INBOX_H
#define SCR_MPI_INBOX_H

#include "kvtree.h"

#include <mpi.h>

struct scr_inbox;

/* Send tree to dest's inbox of tag on comm. */
int scr_inbox_send(const scr_kvtree *tree, int dest, int tag, MPI_Comm comm);

/* The inbox of the ranks first..first+count-1 of comm (me, this rank, may
 * be among them and sends nothing), every sender asked and its tree
 * received, whatever failed; *out is set even on failure, for
 * scr_inbox_close. */
int scr_inbox_open(MPI_Comm comm, int tag, int first, int count, int me, struct scr_inbox **out);

/* Rank's tree, a new one the caller deletes, once it has arrived. */
int scr_inbox_take(struct scr_inbox *in, int rank, scr_kvtree **out_tree);

/* Drop the trees not taken and free in (NULL is fine). */
int scr_inbox_close(struct scr_inbox *in);

#endif
