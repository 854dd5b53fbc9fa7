/* mpi_inbox.c — trees from a range of ranks, received without probing (mpi_inbox.h). */
#include "mpi_inbox.h"

#include "mpi_comm.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct scr_inbox {
    MPI_Comm comm;
    int tag, first, count, me;
    int *lens;         /* of each sender's packed tree, 0: it could not pack it */
    size_t *offsets;   /* of each sender's tree in bytes */
    int lengths_known; /* every length was received */
    char *bytes;       /* every tree of the range, NULL when their receives were not posted */
    MPI_Request *reqs; /* the receive of each sender's length, then of its tree */
};

int scr_inbox_send(const scr_kvtree *tree, int dest, int tag, MPI_Comm comm)
{
    char *buf = NULL;
    int len = 0;
    int rc = scr_comm_pack_kvtree(tree, &buf, &len);
    if (rc != SCR_SUCCESS) len = 0; /* the receiver still hears from this rank */
    int mrc = scr_mpi_check(MPI_Send(&len, 1, MPI_INT, dest, tag, comm), "sending a record's size");
    if (mrc == SCR_SUCCESS && len > 0)
        mrc = scr_mpi_check(MPI_Send(buf, len, MPI_BYTE, dest, tag, comm), "sending a record");
    free(buf);
    return rc != SCR_SUCCESS ? rc : mrc;
}

/* Every request of in, waited for one by one. MPI_Waitall would do the
 * same, but SMPI's tests every pending request each time one completes,
 * which costs the simulation time in count^2; waiting in turn costs count
 * in every MPI, and ends when the last one arrives either way. */
static int wait_each(struct scr_inbox *in, const char *what)
{
    int rc = SCR_SUCCESS;
    for (int i = 0; i < in->count; i++) {
        int mrc = scr_mpi_check(MPI_Wait(&in->reqs[i], MPI_STATUS_IGNORE), what);
        if (rc == SCR_SUCCESS) rc = mrc;
    }
    return rc;
}

/* Every sender's length, received. */
static int receive_lengths(struct scr_inbox *in)
{
    for (int i = 0; i < in->count; i++) {
        if (in->first + i == in->me) continue;
        int rc = scr_mpi_check(
            MPI_Irecv(&in->lens[i], 1, MPI_INT, in->first + i, in->tag, in->comm, &in->reqs[i]),
            "posting the receive of a record's size");
        if (rc != SCR_SUCCESS) return rc;
    }
    int rc = wait_each(in, "receiving the records' sizes");
    in->lengths_known = rc == SCR_SUCCESS;
    return rc;
}

/* Every sender's tree, its receive posted into one block. */
static int post_trees(struct scr_inbox *in)
{
    size_t total = 0;
    for (int i = 0; i < in->count; i++) {
        in->offsets[i] = total;
        total += in->lens[i] > 0 ? (size_t)in->lens[i] : 0;
    }
    in->bytes = malloc(total > 0 ? total : 1);
    if (in->bytes == NULL) {
        scr_err("out of memory for %zu bytes of records from ranks %d to %d", total, in->first,
                in->first + in->count - 1);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < in->count; i++) {
        if (in->first + i == in->me || in->lens[i] <= 0) continue;
        int rc = scr_mpi_check(MPI_Irecv(in->bytes + in->offsets[i], in->lens[i], MPI_BYTE,
                                         in->first + i, in->tag, in->comm, &in->reqs[i]),
                               "posting the receive of a record");
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_inbox_open(MPI_Comm comm, int tag, int first, int count, int me, struct scr_inbox **out)
{
    struct scr_inbox *in = calloc(1, sizeof(*in));
    *out = in;
    if (in == NULL || count < 0) return in == NULL ? SCR_ERR_NOMEM : SCR_ERR_ARG;
    *in = (struct scr_inbox){.comm = comm, .tag = tag, .first = first, .count = count, .me = me};
    in->lens = calloc((size_t)count + 1, sizeof(*in->lens));
    in->offsets = calloc((size_t)count + 1, sizeof(*in->offsets));
    in->reqs = malloc(((size_t)count + 1) * sizeof(*in->reqs));
    if (in->lens == NULL || in->offsets == NULL || in->reqs == NULL) {
        scr_err("out of memory receiving records from ranks %d to %d", first, first + count - 1);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < count; i++) in->reqs[i] = MPI_REQUEST_NULL;
    int rc = receive_lengths(in);
    if (rc == SCR_SUCCESS) rc = post_trees(in);
    return rc;
}

int scr_inbox_take(struct scr_inbox *in, int rank, scr_kvtree **out_tree)
{
    int i = rank - in->first;
    if (i < 0 || i >= in->count || rank == in->me || in->bytes == NULL) {
        scr_err("no record from rank %d can be taken here", rank);
        return SCR_ERR_ARG;
    }
    int rc = scr_mpi_check(MPI_Wait(&in->reqs[i], MPI_STATUS_IGNORE), "receiving a record");
    if (rc != SCR_SUCCESS) return rc;
    if (in->lens[i] <= 0) {
        scr_err("rank %d could not send its record", rank);
        return SCR_FAILURE;
    }
    char origin[64];
    snprintf(origin, sizeof(origin), "record from rank %d", rank);
    return scr_comm_unpack_kvtree(in->bytes + in->offsets[i], (size_t)in->lens[i], origin,
                                  out_tree);
}

/* Without the block of post_trees, each sender's tree received alone and
 * dropped, so that no sender stays blocked in its send. */
static int drain_one_by_one(struct scr_inbox *in)
{
    int rc = SCR_SUCCESS;
    for (int i = 0; i < in->count; i++) {
        if (in->first + i == in->me || in->lens[i] <= 0) continue;
        char *buf = malloc((size_t)in->lens[i]);
        int mrc = buf == NULL ? SCR_ERR_NOMEM
                              : scr_mpi_check(MPI_Recv(buf, in->lens[i], MPI_BYTE, in->first + i,
                                                       in->tag, in->comm, MPI_STATUS_IGNORE),
                                              "receiving a record to drop it");
        if (buf == NULL) scr_err("out of memory receiving a record from rank %d", in->first + i);
        free(buf);
        if (rc == SCR_SUCCESS) rc = mrc;
    }
    return rc;
}

int scr_inbox_close(struct scr_inbox *in)
{
    if (in == NULL) return SCR_SUCCESS;
    int rc = SCR_SUCCESS;
    if (in->reqs != NULL) rc = wait_each(in, "receiving the records not taken");
    if (in->lengths_known && in->bytes == NULL) {
        int drc = drain_one_by_one(in);
        if (rc == SCR_SUCCESS) rc = drc;
    }
    free(in->lens);
    free(in->offsets);
    free(in->bytes);
    free(in->reqs);
    free(in);
    return rc;
}
