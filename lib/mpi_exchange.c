/* mpi_exchange.c — sparse exchange of trees and file streaming between ranks. */
#include "mpi_exchange.h"
#include "kvtree_pack.h"
#include "kvtree_util.h"
#include "mpi_comm.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_EXCHANGE 4801
#define KEY_RANK "RANK"

/* One packed record per destination, made before anyone is told to expect it. */
struct outgoing {
    int dest;
    char *buf;
    int len;
};

static void free_outgoing(struct outgoing *out, int n)
{
    for (int i = 0; out && i < n; i++) free(out[i].buf);
    free(out);
}

/* Pack every record of send; 0 on success, logged failure otherwise. */
static int pack_all(const scr_kvtree *send, int size, struct outgoing **out_list, int *out_n)
{
    const scr_kvtree *dests = scr_kvtree_get(send, KEY_RANK);
    int n = scr_kvtree_size(dests), i = 0;
    struct outgoing *out = calloc((size_t)(n > 0 ? n : 1), sizeof(*out));
    if (out == NULL) {
        scr_err("out of memory for %d outgoing records", n);
        return SCR_ERR_NOMEM;
    }
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(dests); e; e = scr_kvtree_elem_next(e), i++) {
        int64_t d;
        if (scr_parse_int64(scr_kvtree_elem_key(e), &d) != 0 || d < 0 || d >= size) {
            scr_err("exchange: rank %s does not exist in a job of %d ranks", scr_kvtree_elem_key(e), size);
            free_outgoing(out, i);
            return SCR_ERR_ARG;
        }
        size_t len = scr_kvtree_pack_size(scr_kvtree_elem_hash(e));
        if (len > INT32_MAX) {
            scr_err("exchange: a record of %zu bytes for rank %d is too large to send", len, (int)d);
            free_outgoing(out, i);
            return SCR_ERR_ARG;
        }
        out[i].dest = (int)d;
        out[i].len = (int)len;
        out[i].buf = malloc(len);
        if (out[i].buf == NULL || scr_kvtree_pack(out[i].buf, len, scr_kvtree_elem_hash(e)) != len) {
            scr_err("exchange: cannot pack a record of %zu bytes for rank %d", len, (int)d);
            free_outgoing(out, i + 1);
            return SCR_ERR_NOMEM;
        }
    }
    *out_list = out;
    *out_n = n;
    return SCR_SUCCESS;
}

int scr_comm_exchange(const scr_kvtree *send, MPI_Comm comm, scr_kvtree **out_recv)
{
    *out_recv = NULL;
    int me, size;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    /* everything that can fail locally happens before receivers expect anything */
    struct outgoing *out = NULL;
    int nsend = 0;
    int *to = calloc((size_t)size, sizeof(int)), *from = calloc((size_t)size, sizeof(int));
    MPI_Request *reqs = NULL;
    scr_kvtree *recv = scr_kvtree_new();
    int ok = to != NULL && from != NULL && recv != NULL;
    if (!ok) scr_err("out of memory for an exchange among %d ranks", size);
    if (ok) ok = pack_all(send, size, &out, &nsend) == SCR_SUCCESS;
    if (ok) {
        reqs = calloc((size_t)(nsend > 0 ? nsend : 1), sizeof(MPI_Request));
        ok = reqs != NULL;
    }
    for (int i = 0; ok && i < nsend; i++) to[out[i].dest] = 1;
    int all = 0;
    rc = scr_comm_all_true(ok, comm, &all);
    if (rc == SCR_SUCCESS && all)
        rc = scr_mpi_check(MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, comm), "exchanging message counts");
    int status = (rc == SCR_SUCCESS && all) ? SCR_SUCCESS : SCR_FAILURE;
    if (status == SCR_SUCCESS) {
        int nrecv = 0, posted = 0;
        for (int i = 0; i < size; i++) nrecv += from[i];
        for (int i = 0; i < nsend; i++, posted++) {
            int src = scr_mpi_check(MPI_Isend(out[i].buf, out[i].len, MPI_BYTE, out[i].dest, TAG_EXCHANGE, comm,
                                              &reqs[i]), "sending a record");
            if (src != SCR_SUCCESS) { /* MPI itself failed: nothing sensible is left to do */
                status = src;
                break;
            }
        }
        for (int i = 0; status == SCR_SUCCESS && i < nrecv; i++) {
            scr_kvtree *t = NULL;
            MPI_Status st;
            int prc = scr_mpi_check(MPI_Probe(MPI_ANY_SOURCE, TAG_EXCHANGE, comm, &st), "waiting for records");
            if (prc == SCR_SUCCESS) prc = scr_comm_recv_kvtree(st.MPI_SOURCE, TAG_EXCHANGE, comm, &t);
            if (prc == SCR_SUCCESS) {
                scr_kvtree *slot = scr_kvtree_set_kv_int(recv, KEY_RANK, st.MPI_SOURCE);
                if (slot == NULL || scr_kvtree_absorb(slot, t) != SCR_SUCCESS) prc = SCR_ERR_NOMEM;
                t = NULL;
            }
            scr_kvtree_delete(t);
            if (status == SCR_SUCCESS) status = prc;
        }
        if (posted > 0) {
            int wrc = scr_mpi_check(MPI_Waitall(posted, reqs, MPI_STATUSES_IGNORE), "finishing sends");
            if (status == SCR_SUCCESS) status = wrc;
        }
        int agreed = 0;
        rc = scr_comm_all_true(status == SCR_SUCCESS, comm, &agreed);
        if (rc == SCR_SUCCESS && !agreed) status = SCR_FAILURE;
        if (rc != SCR_SUCCESS) status = rc;
    }
    free_outgoing(out, nsend);
    free(reqs);
    free(to);
    free(from);
    if (status != SCR_SUCCESS) {
        scr_kvtree_delete(recv);
        return status;
    }
    *out_recv = recv;
    return SCR_SUCCESS;
}
