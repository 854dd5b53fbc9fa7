/* mpi_exchange.c — sparse exchange of trees and file streaming between ranks. */
#include "mpi_exchange.h"
#include "kvtree_pack.h"
#include "util_parse.h"
#include "mpi_comm.h"
#include "mpi_owners.h"
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

#define TAG_EXCHANGE 4801 /* and 4802, in turn */
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
            scr_err("exchange: rank %s does not exist in a job of %d ranks", scr_kvtree_elem_key(e),
                    size);
            free_outgoing(out, i);
            return SCR_ERR_ARG;
        }
        size_t len = scr_kvtree_pack_size(scr_kvtree_elem_hash(e));
        if (len > INT32_MAX) {
            scr_err("exchange: a record of %zu bytes for rank %d is too large to send", len,
                    (int)d);
            free_outgoing(out, i);
            return SCR_ERR_ARG;
        }
        out[i].dest = (int)d;
        out[i].len = (int)len;
        out[i].buf = malloc(len);
        if (out[i].buf == NULL ||
            scr_kvtree_pack(out[i].buf, len, scr_kvtree_elem_hash(e)) != len) {
            scr_err("exchange: cannot pack a record of %zu bytes for rank %d", len, (int)d);
            free_outgoing(out, i + 1);
            return SCR_ERR_NOMEM;
        }
    }
    *out_list = out;
    *out_n = n;
    return SCR_SUCCESS;
}

/* Exchanges alternate between two tags (scr_comm_alternate_tags). */
static int next_tag(void)
{
    static int turn;
    return scr_comm_alternate_tags(&turn, TAG_EXCHANGE, 1);
}

/* Unpack the record of len bytes in buf from src into recv under src. */
static int take_record(const char *buf, int len, int src, scr_kvtree *recv)
{
    scr_kvtree *slot = scr_kvtree_set_kv_int(recv, KEY_RANK, src);
    if (slot == NULL) return SCR_ERR_NOMEM;
    char origin[64];
    snprintf(origin, sizeof(origin), "record from rank %d", src);
    size_t used = 0;
    int rc = scr_kvtree_unpack(buf, (size_t)len, slot, &used, origin);
    if (rc == SCR_SUCCESS && used != (size_t)len) {
        scr_err("%s: %zu bytes after the record", origin, (size_t)len - used);
        rc = SCR_ERR_FORMAT;
    }
    return rc;
}

/* What each sender tells each of its destinations before the records
 * travel: its rank and the record's length (told, 2 values a record),
 * and to whom (dests). */
struct announcements {
    uint64_t *told;
    int *dests;
};

static int announce_all(const struct outgoing *out, int nsend, int me, struct announcements *a)
{
    a->told = malloc(2 * sizeof(uint64_t) * (size_t)(nsend > 0 ? nsend : 1));
    a->dests = malloc(sizeof(int) * (size_t)(nsend > 0 ? nsend : 1));
    if (a->told == NULL || a->dests == NULL) {
        scr_err("out of memory announcing %d records", nsend);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < nsend; i++) {
        a->told[2 * i] = (uint64_t)me, a->told[2 * i + 1] = (uint64_t)out[i].len;
        a->dests[i] = out[i].dest;
    }
    return SCR_SUCCESS;
}

/* Each sender has told each of its destinations its rank and the record's
 * length (mpi_owners.h: a sparse exchange that never polls, log P plus the
 * records); then every receiver knows what comes from whom, posts its
 * receives, and the records travel. A record that cannot be kept is still
 * received, as nothing, so that its sender can finish; the failure is
 * returned. Called once every rank has announced its records. */
static int send_and_receive(const struct outgoing *out, int nsend, MPI_Comm comm, int tag,
                            const struct announcements *a, scr_kvtree *recv)
{
    int nin = 0, status = SCR_SUCCESS;
    uint64_t *heard = NULL;
    int rc =
        scr_comm_send_to_owners_unvoted(comm, a->told, a->dests, nsend, 2, &heard, &nin, &status);
    if (rc != SCR_SUCCESS) return rc;
    char **bufs = calloc((size_t)(nin > 0 ? nin : 1), sizeof(char *));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)(nin + nsend > 0 ? nin + nsend : 1));
    static char drain;
    if (status == SCR_SUCCESS && (bufs == NULL || reqs == NULL)) {
        scr_err("out of memory receiving %d records", nin);
        status = SCR_ERR_NOMEM;
    }
    /* all ranks agree, before any record travels, that every announcement
     * arrived and every receive can be posted: */
    rc = scr_comm_agree(comm, status, SCR_ERR_NOMEM);
    status = SCR_SUCCESS;
    for (int i = 0; rc == SCR_SUCCESS && i < nin; i++) {
        int src = (int)heard[2 * i], len = (int)heard[2 * i + 1];
        bufs[i] = malloc(len > 0 ? (size_t)len : 1);
        if (bufs[i] == NULL && status == SCR_SUCCESS) {
            scr_err("out of memory receiving a record of %d bytes from rank %d", len, src);
            status = SCR_ERR_NOMEM;
        }
        rc = scr_mpi_check(MPI_Irecv(bufs[i] ? bufs[i] : &drain, bufs[i] ? len : 0, MPI_BYTE, src,
                                     tag, comm, &reqs[i]),
                           "receiving a record");
    }
    for (int i = 0; rc == SCR_SUCCESS && i < nsend; i++)
        rc = scr_mpi_check(
            MPI_Isend(out[i].buf, out[i].len, MPI_BYTE, out[i].dest, tag, comm, &reqs[nin + i]),
            "sending a record");
    /* MPI itself failed above: nothing sensible is left to do */
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Waitall(nin + nsend, reqs, MPI_STATUSES_IGNORE),
                           "exchanging records");
    for (int i = 0; rc == SCR_SUCCESS && i < nin; i++) {
        int trc = bufs[i] ? take_record(bufs[i], (int)heard[2 * i + 1], (int)heard[2 * i], recv)
                          : SCR_SUCCESS;
        if (status == SCR_SUCCESS) status = trc;
    }
    for (int i = 0; bufs != NULL && i < nin; i++) free(bufs[i]);
    free(bufs);
    free(reqs);
    free(heard);
    return rc != SCR_SUCCESS ? rc : status;
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
    struct announcements announced = {NULL, NULL};
    int nsend = 0, me = 0;
    scr_kvtree *recv = scr_kvtree_new();
    int ok = recv != NULL;
    if (!ok) scr_err("out of memory for an exchange");
    if (ok) ok = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank") == SCR_SUCCESS;
    if (ok) ok = pack_all(send, size, &out, &nsend) == SCR_SUCCESS;
    if (ok) ok = announce_all(out, nsend, me, &announced) == SCR_SUCCESS;
    int all = 0;
    rc = scr_comm_all_true(ok, comm, &all);
    int status = (rc == SCR_SUCCESS && all) ? SCR_SUCCESS : (rc != SCR_SUCCESS ? rc : SCR_FAILURE);
    if (status == SCR_SUCCESS) {
        status = send_and_receive(out, nsend, comm, tag, &announced, recv);
        int agreed = 0;
        rc = scr_comm_all_true(status == SCR_SUCCESS, comm, &agreed);
        if (rc == SCR_SUCCESS && !agreed) status = SCR_FAILURE;
        if (rc != SCR_SUCCESS) status = rc;
    }
    free_outgoing(out, nsend);
    free(announced.told);
    free(announced.dests);
    if (status != SCR_SUCCESS) {
        scr_kvtree_delete(recv);
        return status;
    }
    *out_recv = recv;
    return SCR_SUCCESS;
}
