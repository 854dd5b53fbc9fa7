/* mpi_inbox.h — one rank receives a tree from each rank of a range,
 * without probing, and takes them in the order it wants.
 *
 * Each sender sends its packed tree's length, then the tree
 * (scr_inbox_send). The receiver posts every length's receive at once,
 * then every tree's receive with its exact length (scr_inbox_open), so the
 * trees arrive in any order while it takes them in its own
 * (scr_inbox_take); scr_inbox_close waits for what was not taken, so that
 * every send is matched. A sender that could not pack its tree sends
 * length 0, which the receiver reports as that sender's failure. Nothing
 * polls: a real MPI's probe of a message not yet there costs nothing, but
 * SMPI charges each turn of its probe loop simulated time. The receiver
 * holds the range's packed trees at once, so the caller bounds the range.
 * Point to point, not collective; every MPI call is checked and a failure
 * logged once. Not thread-safe. */
#ifndef SCR_MPI_INBOX_H
#define SCR_MPI_INBOX_H

#include "kvtree.h"

#include <mpi.h>

struct scr_inbox;

/* Send tree to dest's inbox of tag on comm. */
int scr_inbox_send(const scr_kvtree *tree, int dest, int tag, MPI_Comm comm);

/* The inbox of the ranks first..first+count-1 of comm (me, this rank, may
 * be among them and sends nothing), its receives posted; *out is set even
 * on failure, for scr_inbox_close. */
int scr_inbox_open(MPI_Comm comm, int tag, int first, int count, int me, struct scr_inbox **out);

/* Rank's tree, a new one the caller deletes, once it has arrived. */
int scr_inbox_take(struct scr_inbox *in, int rank, scr_kvtree **out_tree);

/* Wait for every tree not taken, drop them and free in (NULL is fine). */
int scr_inbox_close(struct scr_inbox *in);

#endif
