/* mpi_owners.h — records sent to the ranks that own them: each rank sends
 * any number of fixed-size records, each to the rank its caller names
 * (a hash, say), and receives every record sent to it, without knowing
 * beforehand how many will come.
 *
 * A sparse exchange (the NBX pattern of Hoefler et al.): every record goes
 * by synchronous send, so that its completion says its owner has it; a
 * rank whose records are all taken starts a nonblocking barrier
 * (mpi_ibarrier.h), and it is done when the barrier's word, a zero-byte
 * message, reaches the receive it keeps posted for records. Nothing polls:
 * each step blocks until a record arrives, one is taken, or the barrier
 * moves on (SimGrid's SMPI charges every poll simulated time). A rank
 * sends its records and receives what it owns; no rank hears from ranks
 * that have nothing for it, so the cost is log P plus the records.
 *
 * Collective over comm. Consecutive exchanges take turns between two sets
 * of tags, so every rank of comm must make the same sequence of calls (as
 * every collective must). A rank out of memory, or given an owner outside
 * comm, sends nothing but still receives what is sent to it, and after
 * one vote at the end every rank returns SCR_ERR_NOMEM (SCR_ERR_ARG where
 * the owner was wrong). */
#ifndef SCR_MPI_OWNERS_H
#define SCR_MPI_OWNERS_H

#include <mpi.h>
#include <stdint.h>

/* The rank of size ranks that owns key: a mixing hash, so that keys
 * numbered alike (colours 0, 1, 2...) or hashed already spread alike. */
int scr_comm_owner_of(uint64_t key, int size);

/* Send record i (width uint64 values at records + i * width) to rank
 * owners[i] of comm, for i < n; *out_records (free) holds the width-wide
 * records sent to this rank, *out_n of them, in no particular order. */
int scr_comm_send_to_owners(MPI_Comm comm, const uint64_t *records, const int *owners, int n,
                            int width, uint64_t **out_records, int *out_n);

/* The same without the vote, for a caller that folds this rank's outcome
 * into a vote of its own, which it must hold before any rank acts on what
 * it received: *out_status is this rank's (SCR_ERR_ARG, SCR_ERR_NOMEM; its
 * records are then dropped) and the return an MPI failure alone. */
int scr_comm_send_to_owners_unvoted(MPI_Comm comm, const uint64_t *records, const int *owners,
                                    int n, int width, uint64_t **out_records, int *out_n,
                                    int *out_status);

#endif
