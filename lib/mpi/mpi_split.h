/* mpi_split.h — communicators of libscr's own: a duplicate of a
 * communicator and a split of one by colour and key, with MPI's meaning
 * (MPI_Comm_dup, MPI_Comm_split), at a cost that stays in log P under
 * SimGrid's SMPI too.
 *
 * Under a real MPI they are MPI_Comm_dup and MPI_Comm_split. SMPI's split
 * gathers every colour at rank 0, which then waits on one request per rank
 * and sends each rank its group: the simulation's time and memory grow as
 * P^2, minutes a split at 4096 ranks. And SMPI charges a rank of a
 * duplicate, as its own computing time, the time it waited for the others
 * in the real process. So under SMPI:
 *   - the duplicate is MPI_Comm_create_group over comm's whole group;
 *   - the split sends each rank's (colour, key) to a rank that owns the
 *     colour (a hash of it), in a sparse exchange (mpi_owners.h); each
 *     owner sorts what it got
 *     and sends each member the ranks of its colour, in (key, rank) order;
 *     the members build that group and MPI_Comm_create_group it.
 * Each rank then sends one message and receives one list, the size of its
 * new communicator; an owner handles the ranks of the colours it owns.
 * Both are collective over comm, log and return an MPI failure (what names
 * the purpose), and give MPI_COMM_NULL to a rank whose colour is
 * MPI_UNDEFINED. */
#ifndef SCR_MPI_SPLIT_H
#define SCR_MPI_SPLIT_H

#include <mpi.h>

int scr_comm_dup(MPI_Comm comm, MPI_Comm *out, const char *what);

int scr_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out, const char *what);

/* Ranks of comm that each chose one class in [0, nclasses): *out_before
 * is the number of lower ranks that chose this rank's class, *out_size
 * the number of ranks that chose it. A scan up and down a binomial tree:
 * 2 log P rounds and 2(P-1) messages of nclasses ints (twice that going
 * down), after one vote, where a communicator of the class's ranks would
 * cost a split. Collective. */
int scr_comm_rank_in_class(MPI_Comm comm, int cls, int nclasses, int *out_before, int *out_size);

/* A new communicator of the ranks of comm that gave the same name, ranked
 * in their order in comm. Scales with the ranks that share a name: names
 * are hashed to split first, and only ranks whose names hash alike compare
 * the names themselves. *out_groups (if not NULL) is the number of distinct
 * names over comm. */
int scr_comm_split_by_name(MPI_Comm comm, const char *name, MPI_Comm *out_comm, int *out_groups);

#endif
