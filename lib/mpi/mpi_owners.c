/* mpi_owners.c — records to their owners, in a sparse exchange that never polls. */
#include "mpi_owners.h"
#include "mpi_comm.h"
#include "mpi_ibarrier.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

/* Two sets of tags, in turn (scr_comm_alternate_tags). */
#define TAG_OWNERS 4840
enum { TAG_RECORD, TAG_BARRIER, TAGS_PER_EXCHANGE };
#define MOST_WIDTH 8

static int next_tags(void)
{
    static int turn;
    return scr_comm_alternate_tags(&turn, TAG_OWNERS, TAGS_PER_EXCHANGE);
}

int scr_comm_owner_of(uint64_t key, int size)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return (int)((h >> 32) % (uint64_t)size);
}

struct received {
    uint64_t *records;
    int n, cap, width, status;
};

/* Keep the record that arrived; out of memory, drop it and say so once. */
static void keep(struct received *got, const uint64_t *record)
{
    if (got->n == got->cap && got->status == SCR_SUCCESS) {
        int grown = got->cap ? 2 * got->cap : 16;
        uint64_t *more =
            realloc(got->records, (size_t)grown * (size_t)got->width * sizeof(uint64_t));
        if (more == NULL) {
            scr_err("out of memory for %d records of %d values", grown, got->width);
            got->status = SCR_ERR_NOMEM; /* go on receiving, so that no sender waits for ever */
        } else {
            got->records = more, got->cap = grown;
        }
    }
    if (got->n < got->cap)
        memcpy(got->records + (size_t)got->n++ * (size_t)got->width, record,
               (size_t)got->width * sizeof(uint64_t));
}

/* Wait for a record to arrive or one of this rank's to be taken (reqs[0]
 * is the receive, reqs[1..nsend] the sends); *out_arrived says which. */
static int wait_sending(MPI_Request *reqs, int nsend, int *out_arrived, int *out_pending,
                        MPI_Status *out_status)
{
    int which = MPI_UNDEFINED;
    int rc = scr_mpi_check(MPI_Waitany(nsend + 1, reqs, &which, out_status), "exchanging records");
    *out_arrived = rc == SCR_SUCCESS && which == 0;
    if (rc == SCR_SUCCESS && which > 0) (*out_pending)--;
    return rc;
}

/* The requests (a receive and n sends) in *out_reqs, or the one receive
 * in one when a record's owner lies outside comm or memory runs out: this
 * rank then sends nothing, but still receives and completes the exchange,
 * and its failure is in *out_status. */
static void prepare(MPI_Comm comm, const int *owners, int *io_n, MPI_Request *one,
                    MPI_Request **out_reqs, int *out_status)
{
    int size = 0, n = *io_n;
    int lrc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    for (int i = 0; lrc == SCR_SUCCESS && i < n; i++) {
        if (owners[i] < 0 || owners[i] >= size) {
            scr_err("a record for rank %d, in a communicator of %d ranks", owners[i], size);
            lrc = SCR_ERR_ARG;
        }
    }
    *out_reqs = lrc == SCR_SUCCESS ? malloc((size_t)(n + 1) * sizeof(**out_reqs)) : NULL;
    if (lrc == SCR_SUCCESS && *out_reqs == NULL) {
        scr_err("out of memory for %d records to send", n);
        lrc = SCR_ERR_NOMEM;
    }
    if (lrc != SCR_SUCCESS) {
        *out_reqs = one;
        *io_n = 0;
    }
    *out_status = lrc;
}

/* What the receive took: a record (kept, and the receive posted again), or
 * the barrier's word, which says every record has arrived. */
static int took(MPI_Comm comm, int tags, MPI_Request *recv, uint64_t *incoming,
                const MPI_Status *st, struct scr_ibarrier *barrier, int in_barrier,
                struct received *got)
{
    int count = 0;
    int rc = scr_mpi_check(MPI_Get_count(st, MPI_BYTE, &count), "MPI_Get_count");
    if (rc != SCR_SUCCESS) return rc;
    if (count == 0) {
        if (!in_barrier) {
            scr_err("an exchange of records ended before this rank's records were taken");
            return SCR_FAILURE;
        }
        return scr_ibarrier_released(barrier);
    }
    keep(got, incoming);
    return scr_mpi_check(MPI_Irecv(incoming, got->width, MPI_UINT64_T, MPI_ANY_SOURCE,
                                   tags + TAG_RECORD, comm, recv),
                         "exchanging records");
}

/* Receive into got until the barrier that follows this rank's last taken
 * record releases it; reqs[0] is the posted receive into incoming, which
 * takes the barrier's word last. */
static int exchange(MPI_Comm comm, int tags, MPI_Request *reqs, int n, uint64_t *incoming,
                    struct received *got)
{
    struct scr_ibarrier barrier;
    int pending = n, in_barrier = 0, rc = SCR_SUCCESS;
    while (rc == SCR_SUCCESS && !(in_barrier && scr_ibarrier_is_done(&barrier))) {
        int arrived = 0;
        MPI_Status st;
        if (!in_barrier && pending == 0) {
            rc = scr_ibarrier_start(&barrier, comm, tags + TAG_BARRIER, tags + TAG_RECORD);
            in_barrier = rc == SCR_SUCCESS;
        } else if (!in_barrier) {
            rc = wait_sending(reqs, n, &arrived, &pending, &st);
        } else {
            rc = scr_ibarrier_wait_or(&barrier, &reqs[0], &arrived, &st);
        }
        if (rc == SCR_SUCCESS && arrived)
            rc = took(comm, tags, &reqs[0], incoming, &st, &barrier, in_barrier, got);
    }
    return rc;
}

int scr_comm_send_to_owners_unvoted(MPI_Comm comm, const uint64_t *records, const int *owners,
                                    int n, int width, uint64_t **out_records, int *out_n,
                                    int *out_status)
{
    *out_records = NULL;
    *out_n = 0;
    *out_status = SCR_SUCCESS;
    if (width < 1 || width > MOST_WIDTH) {
        scr_err("records of %d values cannot be exchanged (1 to %d)", width, MOST_WIDTH);
        return SCR_ERR_ARG;
    }
    int tags = next_tags();
    struct received got = {NULL, 0, 0, width, SCR_SUCCESS};
    uint64_t incoming[MOST_WIDTH];
    MPI_Request one, *reqs = NULL;
    int status = SCR_SUCCESS;
    prepare(comm, owners, &n, &one, &reqs, &status);
    int rc = scr_mpi_check(
        MPI_Irecv(incoming, width, MPI_UINT64_T, MPI_ANY_SOURCE, tags + TAG_RECORD, comm, &reqs[0]),
        "exchanging records");
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++)
        rc = scr_mpi_check(MPI_Issend(records + (size_t)i * (size_t)width, width, MPI_UINT64_T,
                                      owners[i], tags + TAG_RECORD, comm, &reqs[i + 1]),
                           "sending a record");
    if (rc == SCR_SUCCESS) rc = exchange(comm, tags, reqs, n, incoming, &got);
    if (reqs != &one) free(reqs);
    if (status == SCR_SUCCESS) status = got.status;
    if (rc != SCR_SUCCESS || status != SCR_SUCCESS) {
        free(got.records);
        *out_status = status;
        return rc;
    }
    *out_records = got.records;
    *out_n = got.n;
    return SCR_SUCCESS;
}

int scr_comm_send_to_owners(MPI_Comm comm, const uint64_t *records, const int *owners, int n,
                            int width, uint64_t **out_records, int *out_n)
{
    int status = SCR_SUCCESS;
    int rc = scr_comm_send_to_owners_unvoted(comm, records, owners, n, width, out_records, out_n,
                                             &status);
    /* all ranks agree: */
    if (rc == SCR_SUCCESS)
        rc = scr_comm_agree(comm, status, status == SCR_ERR_ARG ? SCR_ERR_ARG : SCR_ERR_NOMEM);
    if (rc != SCR_SUCCESS) {
        free(*out_records);
        *out_records = NULL;
        *out_n = 0;
    }
    return rc;
}
