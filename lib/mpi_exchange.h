/* mpi_exchange.h — records to chosen ranks, and files streamed between ranks.
 *
 * The sparse exchange sends each rank only what is meant for it: the caller
 * lists, per destination, one tree; every rank gets back, per source, the
 * tree sent to it. Collective over comm. Which ranks send to whom is agreed
 * with one all-to-all of counts; the trees travel point to point.
 *
 * Streaming moves a file between two ranks in pieces of the caller's buffer,
 * so memory does not grow with the file. The receiver writes the file (its
 * directories created), syncs it, and returns the CRC-32 of what it got. */
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

/* Send the file at path (size bytes) to dest. */
int scr_comm_send_file(const char *path, uint64_t size, int dest, int tag, MPI_Comm comm,
                       void *buf, size_t bufsize);

/* Receive size bytes from src into a new file at path; *out_crc is their CRC-32. */
int scr_comm_recv_file(const char *path, uint64_t size, int src, int tag, MPI_Comm comm,
                       void *buf, size_t bufsize, uint32_t *out_crc);

#endif
