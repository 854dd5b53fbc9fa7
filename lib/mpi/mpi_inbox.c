/* mpi_inbox.c — trees from a range of ranks, received without probing (mpi_inbox.h). */
#include "mpi_inbox.h"

#include "mpi_comm.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Senders invited at once: what is in flight to the receiver at a time. */
#define INBOX_BATCH 32

struct scr_inbox {
    MPI_Comm comm;
    int tag, first, count, me;
    int *lens;    /* of each sender's packed tree, 0: it could not pack it */
    char **trees; /* each sender's packed tree, NULL when none was kept */
};

int scr_inbox_send(const scr_kvtree *tree, int dest, int tag, MPI_Comm comm)
{
    char *buf = NULL, nothing = 0;
    int len = 0;
    int rc = scr_comm_pack_kvtree(tree, &buf, &len);
    if (rc != SCR_SUCCESS) len = 0; /* the receiver still hears from this rank */
    int mrc = scr_mpi_check(MPI_Recv(&nothing, 0, MPI_BYTE, dest, tag, comm, MPI_STATUS_IGNORE),
                            "waiting to be asked for a record");
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Send(&len, 1, MPI_INT, dest, tag, comm), "sending a record's size");
    if (mrc == SCR_SUCCESS && len > 0)
        mrc = scr_mpi_check(MPI_Send(buf, len, MPI_BYTE, dest, tag, comm), "sending a record");
    free(buf);
    return rc != SCR_SUCCESS ? rc : mrc;
}

/* Every request of reqs (n), waited for one by one. MPI_Waitall would do
 * the same, but SMPI's tests every pending request each time one
 * completes; waiting in turn ends when the last one arrives either way. */
static int wait_each(MPI_Request *reqs, int n, const char *what)
{
    int rc = SCR_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue; /* under SMPI even that call costs */
        int mrc = scr_mpi_check(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE), what);
        if (rc == SCR_SUCCESS) rc = mrc;
    }
    return rc;
}

/* The lengths of senders [b, e) of the range: each is asked for its record
 * once the receive of its length is posted. */
static int ask_lengths(struct scr_inbox *in, int b, int e, MPI_Request *reqs)
{
    static char nothing;
    int rc = SCR_SUCCESS;
    for (int i = b; rc == SCR_SUCCESS && i < e; i++) {
        int rank = in->first + i;
        if (rank == in->me) continue;
        rc = scr_mpi_check(
            MPI_Irecv(&in->lens[i], 1, MPI_INT, rank, in->tag, in->comm, &reqs[i - b]),
            "posting the receive of a record's size");
        if (rc == SCR_SUCCESS)
            rc = scr_mpi_check(MPI_Send(&nothing, 0, MPI_BYTE, rank, in->tag, in->comm),
                               "asking for a record");
    }
    int wrc = wait_each(reqs, e - b, "receiving the records' sizes");
    return rc == SCR_SUCCESS ? wrc : rc;
}

/* The trees of senders [b, e), each into a buffer of its own. After a
 * failure the rest are received and dropped (NULL in trees); a tree there
 * is no memory for stays unreceived, as the job's flush fails anyway. */
static int take_trees(struct scr_inbox *in, int b, int e, MPI_Request *reqs)
{
    int rc = SCR_SUCCESS;
    char *dropped[INBOX_BATCH] = {NULL};
    for (int i = b; i < e; i++) {
        if (in->first + i == in->me || in->lens[i] <= 0) continue;
        char *buf = malloc((size_t)in->lens[i]);
        if (buf == NULL && rc == SCR_SUCCESS) {
            scr_err("out of memory for a record of %d bytes from rank %d", in->lens[i],
                    in->first + i);
            rc = SCR_ERR_NOMEM;
        }
        /* without memory for it, a record stays unreceived: the job is out
         * of memory, and every rank learns that this step failed */
        if (buf == NULL) continue;
        int mrc = scr_mpi_check(
            MPI_Irecv(buf, in->lens[i], MPI_BYTE, in->first + i, in->tag, in->comm, &reqs[i - b]),
            "posting the receive of a record");
        if (rc == SCR_SUCCESS) rc = mrc;
        if (rc == SCR_SUCCESS)
            in->trees[i] = buf;
        else
            dropped[i - b] = buf;
    }
    int wrc = wait_each(reqs, e - b, "receiving the records");
    for (int i = 0; i < e - b; i++) free(dropped[i]);
    return rc == SCR_SUCCESS ? wrc : rc;
}

/* Without memory for the inbox: every sender still asked, its length and
 * tree received one at a time and dropped, so that none waits for ever. */
static void drain_all(MPI_Comm comm, int tag, int first, int count, int me)
{
    static char nothing;
    for (int i = 0; i < count; i++) {
        int rank = first + i, len = 0;
        if (rank == me) continue;
        int rc =
            scr_mpi_check(MPI_Send(&nothing, 0, MPI_BYTE, rank, tag, comm), "asking for a record");
        if (rc == SCR_SUCCESS)
            rc = scr_mpi_check(MPI_Recv(&len, 1, MPI_INT, rank, tag, comm, MPI_STATUS_IGNORE),
                               "receiving a record's size to drop it");
        char *buf = rc == SCR_SUCCESS && len > 0 ? malloc((size_t)len) : NULL;
        if (buf != NULL)
            scr_mpi_check(MPI_Recv(buf, len, MPI_BYTE, rank, tag, comm, MPI_STATUS_IGNORE),
                          "receiving a record to drop it");
        free(buf);
    }
}

int scr_inbox_open(MPI_Comm comm, int tag, int first, int count, int me, struct scr_inbox **out)
{
    struct scr_inbox *in = calloc(1, sizeof(*in));
    *out = in;
    if (count < 0) return SCR_ERR_ARG;
    if (in != NULL) {
        *in =
            (struct scr_inbox){.comm = comm, .tag = tag, .first = first, .count = count, .me = me};
        in->lens = calloc((size_t)count + 1, sizeof(*in->lens));
        in->trees = calloc((size_t)count + 1, sizeof(*in->trees));
    }
    if (in == NULL || in->lens == NULL || in->trees == NULL) {
        scr_err("out of memory receiving records from ranks %d to %d", first, first + count - 1);
        drain_all(comm, tag, first, count, me);
        return SCR_ERR_NOMEM;
    }
    /* a batch at a time, so that what is in flight to this rank stays
     * bounded: under SMPI each message not yet received costs the
     * simulation time at every completion of any other */
    int rc = SCR_SUCCESS;
    for (int b = 0; b < count; b += INBOX_BATCH) {
        int e = count - b < INBOX_BATCH ? count : b + INBOX_BATCH;
        MPI_Request reqs[INBOX_BATCH];
        for (int i = 0; i < INBOX_BATCH; i++) reqs[i] = MPI_REQUEST_NULL;
        int brc = ask_lengths(in, b, e, reqs);
        if (brc == SCR_SUCCESS) brc = take_trees(in, b, e, reqs);
        if (rc == SCR_SUCCESS) rc = brc;
    }
    return rc;
}

int scr_inbox_take(struct scr_inbox *in, int rank, scr_kvtree **out_tree)
{
    int i = rank - in->first;
    if (i < 0 || i >= in->count || rank == in->me || in->lens == NULL || in->trees == NULL) {
        scr_err("no record from rank %d can be taken here", rank);
        return SCR_ERR_ARG;
    }
    if (in->lens[i] <= 0) {
        scr_err("rank %d could not send its record", rank);
        return SCR_FAILURE;
    }
    if (in->trees[i] == NULL) {
        scr_err("the record from rank %d was not kept", rank);
        return SCR_ERR_NOMEM;
    }
    char origin[64];
    snprintf(origin, sizeof(origin), "record from rank %d", rank);
    return scr_comm_unpack_kvtree(in->trees[i], (size_t)in->lens[i], origin, out_tree);
}

int scr_inbox_close(struct scr_inbox *in)
{
    if (in == NULL) return SCR_SUCCESS;
    for (int i = 0; in->trees != NULL && i < in->count; i++) free(in->trees[i]);
    free(in->lens);
    free(in->trees);
    free(in);
    return SCR_SUCCESS;
}
