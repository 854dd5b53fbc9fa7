/* mpi_stream.c — a logical file streamed in pieces, several in flight. */
#include "mpi_stream.h"
#include "mpi_comm.h"
#include "scr_err.h"

#include <string.h>

#define MAX_DEPTH SCR_STREAM_MAX_DEPTH

int scr_stream_depth(size_t bufsize, size_t piece)
{
    size_t fit = piece > 0 ? bufsize / piece : 1;
    if (fit > MAX_DEPTH) fit = MAX_DEPTH;
    return fit < 1 ? 1 : (int)fit;
}

/* Pieces a stream of total bytes travels in, and the length of piece i. */
static uint64_t pieces_of(const struct scr_stream_side *s, size_t piece)
{
    if (s == NULL || s->peer == MPI_PROC_NULL || s->total == 0) return 0;
    return (s->total + piece - 1) / piece;
}

static size_t piece_len(const struct scr_stream_side *s, uint64_t i, size_t piece)
{
    uint64_t left = s->total - i * piece;
    return left < piece ? (size_t)left : piece;
}

void scr_stream_abandon(MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&reqs[i]);
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    }
}

int scr_stream_exchange(const struct scr_stream_side *out, const struct scr_stream_side *in,
                        MPI_Comm comm, int tag, char *sendbuf, char *recvbuf, size_t piece,
                        int depth, int *io_read_rc, int *io_write_rc)
{
    MPI_Request reqs[2 * MAX_DEPTH]; /* sends in the first half, receives in the second */
    MPI_Request *sreq = reqs, *rreq = reqs + MAX_DEPTH;
    for (int j = 0; j < 2 * MAX_DEPTH; j++) reqs[j] = MPI_REQUEST_NULL;
    if (depth > MAX_DEPTH) depth = MAX_DEPTH;
    if (depth < 1) depth = 1;
    int read_rc = *io_read_rc, write_rc = *io_write_rc, mrc = SCR_SUCCESS;
    uint64_t nsend = pieces_of(out, piece), nrecv = pieces_of(in, piece);

    for (uint64_t r = 0; mrc == SCR_SUCCESS && r < nrecv && r < (uint64_t)depth; r++)
        mrc = scr_mpi_check(MPI_Irecv(recvbuf + r * piece, (int)piece_len(in, r, piece), MPI_BYTE,
                                      in->peer, tag, comm, &rreq[r]),
                            "receiving files (MPI_Irecv)");
    /* step i sends piece i and takes in piece i-1, which had a step to arrive */
    for (uint64_t i = 0; mrc == SCR_SUCCESS && (i < nsend || i <= nrecv); i++) {
        if (i < nsend) {
            int j = (int)(i % (uint64_t)depth);
            size_t len = piece_len(out, i, piece);
            char *buf = sendbuf + (size_t)j * piece;
            mrc = scr_mpi_wait(&sreq[j], "sending files (MPI_Wait)");
            if (mrc != SCR_SUCCESS) break;
            if (read_rc == SCR_SUCCESS)
                read_rc = scr_padfile_read(out->parts, out->count, i * piece, buf, len);
            if (read_rc == SCR_SUCCESS) scr_crc_parts_add(out->crc, i * piece, buf, len);
            if (read_rc != SCR_SUCCESS)
                memset(buf, 0, len); /* keep the receiver going; fail after */
            mrc = scr_mpi_check(MPI_Isend(buf, (int)len, MPI_BYTE, out->peer, tag, comm, &sreq[j]),
                                "sending files (MPI_Isend)");
        }
        if (mrc != SCR_SUCCESS || i == 0 || i > nrecv) continue;
        uint64_t r = i - 1;
        int j = (int)(r % (uint64_t)depth);
        size_t len = piece_len(in, r, piece);
        mrc = scr_mpi_wait(&rreq[j], "receiving files (MPI_Wait)");
        if (mrc == SCR_SUCCESS && write_rc == SCR_SUCCESS) {
            write_rc = scr_padfile_write(in->parts, in->count, r * piece,
                                         recvbuf + (size_t)j * piece, len);
            if (write_rc == SCR_SUCCESS)
                scr_crc_parts_add(in->crc, r * piece, recvbuf + (size_t)j * piece, len);
        }
        if (mrc == SCR_SUCCESS && r + (uint64_t)depth < nrecv)
            mrc = scr_mpi_check(MPI_Irecv(recvbuf + (size_t)j * piece,
                                          (int)piece_len(in, r + (uint64_t)depth, piece), MPI_BYTE,
                                          in->peer, tag, comm, &rreq[j]),
                                "receiving files (MPI_Irecv)");
    }
    if (mrc == SCR_SUCCESS) mrc = scr_mpi_waitall(depth, sreq, "sending files (MPI_Waitall)");
    if (mrc != SCR_SUCCESS) scr_stream_abandon(reqs, 2 * MAX_DEPTH);
    *io_read_rc = read_rc;
    *io_write_rc = write_rc;
    return mrc;
}
