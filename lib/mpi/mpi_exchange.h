/* mpi_exchange.h — records to chosen ranks.
 *
 * The sparse exchange sends each rank only what is meant for it: the caller
 * lists, per destination, one tree; every rank gets back, per source, the
 * tree sent to it. Collective over comm. Each sender first tells each
 * destination the length of what comes (mpi_owners.h, a sparse exchange
 * that never polls), then the trees travel point to point, so a rank's
 * cost grows with the ranks it talks to, not with the size of comm.
 * Every record is packed before any rank is told to expect it, so nothing
 * that can fail locally happens once messages are on their way. */
#ifndef SCR_MPI_EXCHANGE_H
#define SCR_MPI_EXCHANGE_H

#include "kvtree.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* send: RANK -> <dest> -> {tree for dest}; *out_recv: RANK -> <src> -> {tree}
 * (a new tree, empty when nothing came). A destination outside comm is an
 * error on the sender (logged) and fails the exchange on every rank. */
int scr_comm_exchange(const scr_kvtree *send, MPI_Comm comm, scr_kvtree **out_recv);

#endif
