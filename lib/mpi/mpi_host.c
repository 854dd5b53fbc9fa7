/* mpi_host.c — the node MPI names, and whether MPI is SimGrid's SMPI. */
#include "mpi_host.h"
#include "mpi_comm.h"
#include "scr_err.h"

#include <mpi.h>
#include <string.h>

int scr_mpi_processor_name(char *buf, size_t len)
{
    if (len == 0) return SCR_ERR_ARG;
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int n = 0;
    int rc = scr_mpi_check(MPI_Get_processor_name(name, &n), "MPI_Get_processor_name");
    if (rc != SCR_SUCCESS) return rc;
    if (n < 0) n = 0;
    if (n > MPI_MAX_PROCESSOR_NAME) n = MPI_MAX_PROCESSOR_NAME;
    name[n] = '\0';
    size_t keep = strlen(name) < len - 1 ? strlen(name) : len - 1;
    memcpy(buf, name, keep);
    buf[keep] = '\0';
    return SCR_SUCCESS;
}

int scr_mpi_is_simulated(void)
{
    /* one answer for the whole process: under SMPI every rank shares it,
     * and every rank would find the same */
    static int known = 0, simulated = 0;
    if (known) return simulated;
    char version[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int n = 0;
    if (MPI_Get_library_version(version, &n) == MPI_SUCCESS) {
        if (n < 0) n = 0;
        if (n > MPI_MAX_LIBRARY_VERSION_STRING) n = MPI_MAX_LIBRARY_VERSION_STRING;
        version[n] = '\0';
        /* "SMPI Version 3.32. Copyright The SimGrid Team ..." */
        simulated = strncmp(version, "SMPI ", 5) == 0 || strstr(version, "SimGrid") != NULL;
    }
    known = 1;
    return simulated;
}

int scr_mpi_globals_are_private(MPI_Comm comm, int *out_private)
{
    /* each rank writes its rank into one static variable and reads it
     * back after a barrier, where every rank has written: ranks that share
     * the variable find the last writer's rank, all but one of them */
    static int written_by = -1;
    int rank = 0;
    *out_private = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    written_by = rank;
    rc = scr_mpi_check(MPI_Barrier(comm), "MPI_Barrier (are the globals each rank's own?)");
    if (rc != SCR_SUCCESS) return rc;
    return scr_comm_all_true(written_by == rank, comm, out_private);
}
