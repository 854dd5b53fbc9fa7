/* mpi_stream.h — stream one logical file (util_padfile.h) to a rank while
 * another arrives from a rank, several pieces in flight each way.
 *
 * scr_stream_exchange sends the `out` side's bytes to out->peer and writes
 * what in->peer sends into the `in` side's files. Either side may be absent
 * (peer MPI_PROC_NULL or total 0). The two ends of a stream must agree on its
 * total length (from records exchanged before) and on the piece size: the
 * stream travels as pieces of `piece` bytes (the last one shorter), one
 * message each, with the given tag.
 *
 * Up to `depth` pieces are in flight each way, from depth slots of `piece`
 * bytes in sendbuf and in recvbuf: the read of piece i+1 and the write of
 * piece i-1 overlap the transfer of piece i, and a ring of ranks that all
 * stream at once never waits for the slowest of them piece by piece.
 *
 * A failed read does not stop the stream: zeros travel in place of the bytes
 * and the failure is reported in *io_read_rc, so the receiver is never left
 * waiting; a failed write likewise drops the rest of what arrives and is
 * reported in *io_write_rc (both logged once by util_padfile). An error
 * already in *io_read_rc (or *io_write_rc) on entry says that side's files
 * could not be opened: zeros go from the start (what arrives is dropped),
 * and the code is left as it was. The return
 * value is SCR_SUCCESS, or SCR_FAILURE for an MPI error (logged once), after
 * which the stream is abandoned. Point to point, not collective. */
#ifndef SCR_MPI_STREAM_H
#define SCR_MPI_STREAM_H

#include "util_crc_parts.h"
#include "util_padfile.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* One end of a stream: the files (readable to send, writable to receive),
 * the number of bytes that travel, the rank at the other end, and, when not
 * NULL, a tracker that takes every piece read or written (util_crc_parts.h),
 * so that each file's CRC-32 comes out of the same pass. */
struct scr_stream_side {
    const scr_padfile_part *parts;
    size_t count;
    uint64_t total;
    int peer;
    scr_crc_parts *crc;
};

/* How many pieces of `piece` bytes stay in flight each way when buffers of
 * bufsize bytes are at hand: at least 1, at most SCR_STREAM_MAX_DEPTH. The
 * XOR and RS rings keep as many pieces in flight. */
#define SCR_STREAM_MAX_DEPTH 4
int scr_stream_depth(size_t bufsize, size_t piece);

/* After an MPI error: cancel and complete every request of reqs[0..n-1]
 * that is still posted, so that no buffer stays in use. */
void scr_stream_abandon(MPI_Request *reqs, int n);

/* sendbuf and recvbuf hold depth * piece bytes each. */
int scr_stream_exchange(const struct scr_stream_side *out, const struct scr_stream_side *in,
                        MPI_Comm comm, int tag, char *sendbuf, char *recvbuf, size_t piece,
                        int depth, int *io_read_rc, int *io_write_rc);

#endif
