/* mpi_app_fail.h — the error exit the MPI test applications share.
 *
 * FAIL(fmt, ...) prints "rank R: FAIL: <message>" on standard error and
 * ends the whole job with MPI_Abort(MPI_COMM_WORLD, 3). The including file
 * defines `static int rank;` (its rank in MPI_COMM_WORLD) before using it. */
#ifndef SCR_TEST_MPI_APP_FAIL_H
#define SCR_TEST_MPI_APP_FAIL_H

#include <mpi.h>
#include <stdio.h>

#define FAIL(...)                                 \
    do {                                          \
        fprintf(stderr, "rank %d: FAIL: ", rank); \
        fprintf(stderr, __VA_ARGS__);             \
        fprintf(stderr, "\n");                    \
        MPI_Abort(MPI_COMM_WORLD, 3);             \
    } while (0)

#endif
