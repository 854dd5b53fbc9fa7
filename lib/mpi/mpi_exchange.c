/* mpi_exchange.c — sparse exchange of trees and file streaming between ranks. */
#include "mpi_exchange.h"
#include "kvtree_pack.h"
#include "util_parse.h"
#include "mpi_comm.h"
#include "mpi_ibarrier.h"
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

#define TAG_EXCHANGE 4801 /* and 4802, in turn; the barrier's 4803 and 4804 */
#define TAG_BARRIER_OFFSET 2
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
        if (scr_parse_int64(scr_kvtree_elem_key(e), &d) != SCR_SUCCESS || d < 0 || d >= size) {
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

/* Exchanges alternate between two tags: a rank that has left one exchange
 * may send for the next before a slower rank has seen the end of this one,
 * and must not be taken for part of it. Two suffice, since no rank can leave
 * the next exchange before every rank has entered it. Every rank makes the
 * same sequence of (collective) calls, so all agree on the tag. */
static int next_tag(void)
{
    static int parity;
    parity ^= 1;
    return TAG_EXCHANGE + parity;
}

/* Receive the pending record st announced into recv under its source. A
 * record that cannot be kept is still received, so that its sender can
 * finish; the failure is returned. */
static int take_record(const MPI_Status *st, int tag, MPI_Comm comm, scr_kvtree *recv)
{
    int len = 0;
    int rc = scr_mpi_check(MPI_Get_count(st, MPI_BYTE, &len), "MPI_Get_count");
    if (rc != SCR_SUCCESS) return rc;
    char *buf = malloc(len > 0 ? (size_t)len : 1);
    if (buf == NULL) {
        scr_err("out of memory receiving a record of %d bytes from rank %d", len, st->MPI_SOURCE);
        char drain;
        MPI_Recv(&drain, 0, MPI_BYTE, st->MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE); /* truncated on purpose */
        return SCR_ERR_NOMEM;
    }
    rc = scr_mpi_check(MPI_Recv(buf, len, MPI_BYTE, st->MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE),
                       "receiving a record");
    scr_kvtree *slot = NULL;
    if (rc == SCR_SUCCESS) {
        slot = scr_kvtree_set_kv_int(recv, KEY_RANK, st->MPI_SOURCE);
        if (slot == NULL) rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS) {
        char origin[64];
        snprintf(origin, sizeof(origin), "record from rank %d", st->MPI_SOURCE);
        size_t used = 0;
        rc = scr_kvtree_unpack(buf, (size_t)len, slot, &used, origin);
        if (rc == SCR_SUCCESS && used != (size_t)len) {
            scr_err("%s: %zu bytes after the record", origin, (size_t)len - used);
            rc = SCR_ERR_FORMAT;
        }
    }
    free(buf);
    return rc;
}

/* Post every send synchronously, take whatever arrives, and once all of this
 * rank's sends are matched join a non-blocking barrier; when the barrier
 * completes every record of the exchange has been received (the NBX
 * algorithm of Hoefler et al.): no rank learns about ranks it does not talk to. */
static int send_and_receive(const struct outgoing *out, int nsend, MPI_Request *reqs, MPI_Comm comm, int tag,
                            scr_kvtree *recv)
{
    int status = SCR_SUCCESS;
    for (int i = 0; i < nsend; i++) {
        int rc = scr_mpi_check(MPI_Issend(out[i].buf, out[i].len, MPI_BYTE, out[i].dest, tag, comm, &reqs[i]),
                               "sending a record");
        if (rc != SCR_SUCCESS) return rc; /* MPI itself failed: nothing sensible is left to do */
    }
    struct scr_ibarrier barrier;
    int in_barrier = 0, done = 0;
    while (!done) {
        int arrived = 0;
        MPI_Status st;
        int rc = scr_mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &st), "waiting for records");
        if (rc == SCR_SUCCESS && arrived) {
            int trc = take_record(&st, tag, comm, recv);
            if (status == SCR_SUCCESS) status = trc;
        }
        if (rc == SCR_SUCCESS && !in_barrier) {
            int sent = 0;
            rc = scr_mpi_check(MPI_Testall(nsend, reqs, &sent, MPI_STATUSES_IGNORE), "finishing sends");
            if (rc == SCR_SUCCESS && sent) {
                rc = scr_ibarrier_start(&barrier, comm, tag + TAG_BARRIER_OFFSET);
                in_barrier = rc == SCR_SUCCESS;
            }
        } else if (rc == SCR_SUCCESS) {
            rc = scr_ibarrier_test(&barrier, &done);
        }
        if (rc != SCR_SUCCESS) return rc;
    }
    return status;
}

int scr_comm_exchange(const scr_kvtree *send, MPI_Comm comm, scr_kvtree **out_recv)
{
    *out_recv = NULL;
    int tag = next_tag();
    int size;
    int rc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    /* everything that can fail locally happens before receivers expect anything */
    struct outgoing *out = NULL;
    int nsend = 0;
    MPI_Request *reqs = NULL;
    scr_kvtree *recv = scr_kvtree_new();
    int ok = recv != NULL;
    if (!ok) scr_err("out of memory for an exchange");
    if (ok) ok = pack_all(send, size, &out, &nsend) == SCR_SUCCESS;
    if (ok) {
        reqs = calloc((size_t)(nsend > 0 ? nsend : 1), sizeof(MPI_Request));
        ok = reqs != NULL;
        if (!ok) scr_err("out of memory for %d sends", nsend);
    }
    int all = 0;
    rc = scr_comm_all_true(ok, comm, &all);
    int status = (rc == SCR_SUCCESS && all) ? SCR_SUCCESS : (rc != SCR_SUCCESS ? rc : SCR_FAILURE);
    if (status == SCR_SUCCESS) {
        status = send_and_receive(out, nsend, reqs, comm, tag, recv);
        int agreed = 0;
        rc = scr_comm_all_true(status == SCR_SUCCESS, comm, &agreed);
        if (rc == SCR_SUCCESS && !agreed) status = SCR_FAILURE;
        if (rc != SCR_SUCCESS) status = rc;
    }
    free_outgoing(out, nsend);
    free(reqs);
    if (status != SCR_SUCCESS) {
        scr_kvtree_delete(recv);
        return status;
    }
    *out_recv = recv;
    return SCR_SUCCESS;
}
