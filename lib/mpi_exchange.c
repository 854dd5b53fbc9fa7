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

int scr_comm_exchange(const scr_kvtree *send, MPI_Comm comm, scr_kvtree **out_recv)
{
    *out_recv = NULL;
    int me, size;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    int *to = calloc((size_t)size, sizeof(int)), *from = calloc((size_t)size, sizeof(int));
    scr_kvtree *recv = scr_kvtree_new();
    int ok = to != NULL && from != NULL && recv != NULL;
    const scr_kvtree *dests = scr_kvtree_get(send, KEY_RANK);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(dests); ok && e; e = scr_kvtree_elem_next(e)) {
        int64_t d;
        if (scr_parse_int64(scr_kvtree_elem_key(e), &d) != 0 || d < 0 || d >= size) {
            scr_err("exchange: rank %s does not exist in a job of %d ranks", scr_kvtree_elem_key(e), size);
            ok = 0;
        } else {
            to[d] = 1;
        }
    }
    /* everyone learns who will send to them; a failure anywhere is agreed first */
    int all = 0;
    rc = scr_comm_all_true(ok, comm, &all);
    if (rc == SCR_SUCCESS && all)
        rc = scr_mpi_check(MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, comm),
                           "exchanging message counts");
    int status = (rc == SCR_SUCCESS && all) ? SCR_SUCCESS : SCR_FAILURE;
    if (status == SCR_SUCCESS) {
        int nsend = 0, nrecv = 0;
        for (int i = 0; i < size; i++) {
            nsend += to[i];
            nrecv += from[i];
        }
        /* post the sends first (buffered by packing), then take what arrives */
        MPI_Request *reqs = calloc((size_t)nsend + 1, sizeof(MPI_Request));
        char **bufs = calloc((size_t)nsend + 1, sizeof(char *));
        int n = 0;
        if (reqs == NULL || bufs == NULL) status = SCR_ERR_NOMEM;
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(dests); status == SCR_SUCCESS && e;
             e = scr_kvtree_elem_next(e)) {
            int64_t d = 0;
            scr_parse_int64(scr_kvtree_elem_key(e), &d);
            size_t len = scr_kvtree_pack_size(scr_kvtree_elem_hash(e));
            bufs[n] = malloc(len);
            if (bufs[n] == NULL || len > INT32_MAX) {
                status = SCR_ERR_NOMEM;
                break;
            }
            scr_kvtree_pack(bufs[n], len, scr_kvtree_elem_hash(e));
            status = scr_mpi_check(MPI_Isend(bufs[n], (int)len, MPI_BYTE, (int)d, TAG_EXCHANGE, comm,
                                             &reqs[n]), "sending a record");
            n++;
        }
        for (int i = 0; i < nrecv; i++) {
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
        if (n > 0) {
            int wrc = scr_mpi_check(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), "finishing sends");
            if (status == SCR_SUCCESS) status = wrc;
        }
        for (int i = 0; i < n; i++) free(bufs[i]);
        free(bufs);
        free(reqs);
        int agreed = 0;
        rc = scr_comm_all_true(status == SCR_SUCCESS, comm, &agreed);
        if (rc == SCR_SUCCESS && !agreed) status = SCR_FAILURE;
        if (rc != SCR_SUCCESS) status = rc;
    }
    free(to);
    free(from);
    if (status != SCR_SUCCESS) {
        scr_kvtree_delete(recv);
        return status;
    }
    *out_recv = recv;
    return SCR_SUCCESS;
}

int scr_comm_send_file(const char *path, uint64_t size, int dest, int tag, MPI_Comm comm,
                       void *buf, size_t bufsize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = SCR_SUCCESS;
    if (fd < 0) {
        scr_err("cannot open %s to send it: %s", path, strerror(errno));
        rc = SCR_ERR_IO;
    }
    /* the receiver expects size bytes whatever happens: on a failure the
     * rest is sent as zeros and the failure is reported by the caller */
    for (uint64_t off = 0; off < size || off == 0; ) {
        size_t n = size - off < bufsize ? (size_t)(size - off) : bufsize;
        size_t got = 0;
        if (rc == SCR_SUCCESS) rc = scr_read_full(fd, buf, n, &got, path);
        if (rc == SCR_SUCCESS && got != n) {
            scr_err("%s ended after %llu of %llu bytes", path, (unsigned long long)(off + got),
                    (unsigned long long)size);
            rc = SCR_ERR_FORMAT;
        }
        if (rc != SCR_SUCCESS) memset(buf, 0, n);
        int src = scr_mpi_check(MPI_Send(buf, (int)n, MPI_BYTE, dest, tag, comm), "sending a file");
        if (rc == SCR_SUCCESS) rc = src;
        off += n;
        if (size == 0) break;
    }
    if (fd >= 0) close(fd);
    return rc;
}

int scr_comm_recv_file(const char *path, uint64_t size, int src, int tag, MPI_Comm comm,
                       void *buf, size_t bufsize, uint32_t *out_crc)
{
    char *dir = NULL;
    int rc = scr_path_dirname(path, &dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(dir, 0700);
    free(dir);
    int fd = -1;
    if (rc == SCR_SUCCESS) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            scr_err("cannot create %s: %s", path, strerror(errno));
            rc = SCR_ERR_IO;
        }
    }
    uint32_t crc = 0;
    for (uint64_t off = 0; off < size || off == 0; ) {
        size_t n = size - off < bufsize ? (size_t)(size - off) : bufsize;
        int mrc = scr_mpi_check(MPI_Recv(buf, (int)n, MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE),
                                "receiving a file");
        if (rc == SCR_SUCCESS) rc = mrc;
        if (rc == SCR_SUCCESS) {
            crc = scr_crc32(crc, buf, n);
            rc = scr_write_full(fd, buf, n, path);
        }
        off += n;
        if (size == 0) break;
    }
    if (fd >= 0) {
        if (rc == SCR_SUCCESS && fsync(fd) != 0) {
            scr_err("fsync of %s failed: %s", path, strerror(errno));
            rc = SCR_ERR_IO;
        }
        close(fd);
    }
    if (rc == SCR_SUCCESS && out_crc != NULL) *out_crc = crc;
    return rc;
}
