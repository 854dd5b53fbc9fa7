/* mpi_comm.h — the MPI helpers libscr builds on: checked calls, trees over
 * messages, agreement, communicators by name, and waits that leave the core
 * to the application in a library thread.
 *
 * Every function is collective over the communicator it is given unless it
 * says otherwise, checks every MPI call, and logs a failure once with the
 * operation and MPI's own error text. Trees travel in the packed-hash format
 * (kvtree_pack.h), and a received tree is unpacked with every length
 * checked, naming the sender in any message. */
#ifndef SCR_MPI_COMM_H
#define SCR_MPI_COMM_H

#include "kvtree.h"

#include <mpi.h>
#include <stdatomic.h>

/* SCR_SUCCESS when mpi_rc is MPI_SUCCESS; otherwise logs "<what>: <MPI's
 * message>" and returns SCR_FAILURE. */
int scr_mpi_check(int mpi_rc, const char *what);

/* Tags for the next of a sequence of exchanges: base, then base + span,
 * then base again... (*turn, the caller's static, keeps the place). A rank
 * that has left one exchange may send for the next before a slower rank
 * has seen the end of this one; no rank can leave the next before every
 * rank has entered it, so two sets suffice, as long as every rank makes
 * the same sequence of calls (as every collective must). */
int scr_comm_alternate_tags(int *turn, int base, int span);

/* *out_all = 1 on every rank when flag is non-zero on every rank. */
int scr_comm_all_true(int flag, MPI_Comm comm, int *out_all);

/* The binomial tree of rank 0 over the ranks of a communicator of size
 * ranks, in order: rank r's parent is r with its lowest set bit cleared,
 * its children r + 2^k for each 2^k below that bit (below size for rank
 * 0), and children in rank order head consecutive ranges of ranks.
 * scr_tree_children is how many rank me has (child k: me + 2^k). */
int scr_tree_parent(int me);
int scr_tree_children(int me, int size);

/* scr_comm_all_true with, in the same all-reduce, *out_most the largest
 * value over comm. */
int scr_comm_most_and_all_true(unsigned long long value, int flag, MPI_Comm comm,
                               unsigned long long *out_most, int *out_all);

/* All ranks of comm agree on the outcome of a step each did (rc, this
 * rank's): SCR_SUCCESS when it succeeded everywhere, failed_code when it
 * failed somewhere, or the MPI failure of the vote itself. Collective. */
int scr_comm_agree(MPI_Comm comm, int rc, int failed_code);

/* Replace *tree on every rank but root with a copy of root's tree. On
 * non-root ranks *tree may be NULL on entry; it is a new tree on return. */
int scr_comm_bcast_kvtree(scr_kvtree **tree, int root, MPI_Comm comm);

/* A tree packed into a new buffer of *out_len bytes (the caller frees
 * *out_buf), and a new tree (the caller deletes it) unpacked from len
 * bytes with every length checked, origin naming the sender in messages.
 * Not collective; no MPI call. */
int scr_comm_pack_kvtree(const scr_kvtree *tree, char **out_buf, int *out_len);
int scr_comm_unpack_kvtree(const char *buf, size_t len, const char *origin, scr_kvtree **out_tree);

/* Point to point (not collective): send tree to dest; receive a new tree
 * from src (caller deletes *out_tree). A tree that cannot be packed is
 * sent as an empty message, which the receiver reports as the sender's
 * failure: every send is matched, so neither side waits forever. */
int scr_comm_send_kvtree(const scr_kvtree *tree, int dest, int tag, MPI_Comm comm);
int scr_comm_recv_kvtree(int src, int tag, MPI_Comm comm, scr_kvtree **out_tree);

/* Send tree to dest while receiving a new tree from src (caller deletes
 * *out_tree); safe in a ring where every rank does the same at once. */
int scr_comm_sendrecv_kvtree(const scr_kvtree *tree, int dest, int src, int tag, MPI_Comm comm,
                             scr_kvtree **out_tree);

/* Gather every rank's tree at root: there, *out_trees is a new array of
 * `size of comm` new trees (free with scr_comm_free_trees); elsewhere NULL.
 * Every rank returns the same status. */
int scr_comm_gather_kvtree(const scr_kvtree *mine, int root, MPI_Comm comm,
                           scr_kvtree ***out_trees);
void scr_comm_free_trees(scr_kvtree **trees, int count);

/* A sliding window that lets at most width ranks of comm work at once:
 * rank r enters after rank r - width has left. Every rank that enters must
 * leave, whatever happened in between, or the ranks after it wait forever.
 * Point to point, not collective. */
int scr_comm_window_enter(MPI_Comm comm, int width, int tag);
int scr_comm_window_leave(MPI_Comm comm, int width, int tag);

/* --- waits that leave the core to the application ---------------------------
 *
 * A blocking MPI wait spins: Open MPI polls its transports until the
 * message is there. In the application's own call that is the fastest way
 * to wait; in a library thread that encodes while the application
 * computes on the same core, the spinning takes half the core from the
 * computation. A thread that has said it waits politely
 * (scr_mpi_wait_politely) therefore tests its requests and yields the
 * core between tests (sched_yield): the application computes meanwhile,
 * and a core nobody else wants is the wait's own, as fast as spinning.
 * Sleeping between tests instead costs more than it saves: every wakeup
 * takes the core from the application, and a sleeping thread finds its
 * cache cold. A wait that lasts beyond 50 ms naps, from 0.1 ms up to a
 * millisecond between tests, so that a thread whose peer is stuck burns
 * no core. Other threads wait as MPI does. The setting is per thread;
 * errors are checked and logged as scr_mpi_check does. A thread that
 * waits politely makes its collectives nonblocking ones, whether or not
 * it yields at the time, so the same setting must hold on every rank of
 * the communicator. */

/* From now on, this thread waits politely (on: 1) or as MPI does (0). */
void scr_mpi_wait_politely(int on);

/* From now on, this thread waits politely while *flag is nonzero, and
 * spins as MPI does once another thread cleared it (a wait under way
 * notices at its next test): for a library thread that the application
 * has stopped to wait for, whose core is then its own. flag must outlive
 * the setting; NULL is scr_mpi_wait_politely(0). */
void scr_mpi_wait_politely_while(const atomic_int *flag);

/* MPI_Wait and MPI_Waitall (statuses ignored); what names the operation
 * in a failure's message. */
int scr_mpi_wait(MPI_Request *req, const char *what);
int scr_mpi_waitall(int n, MPI_Request *reqs, const char *what);

/* MPI_Allreduce, as MPI_Iallreduce and a wait of the kind above. */
int scr_mpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, const char *what);

#endif
