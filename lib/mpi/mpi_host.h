/* mpi_host.h — where MPI says this process runs: the name of its node, and
 * whether that node is simulated (SimGrid's SMPI).
 *
 * Under Open MPI, MPI_Get_processor_name is the host name; under SMPI it is
 * the simulated host a rank runs on, while every rank shares one real
 * process, one environment and one gethostname(). libscr names its node by
 * it when the environment names none (job_env.h), so each simulated host
 * has its own cache, control directory and failure group.
 * Only scr_mpi_globals_are_private is collective. */
#ifndef SCR_MPI_HOST_H
#define SCR_MPI_HOST_H

#include <mpi.h>
#include <stddef.h>

/* MPI_Get_processor_name into buf (len bytes, cut to fit). SCR_FAILURE
 * (logged) when MPI refuses; SCR_ERR_ARG when len is 0. */
int scr_mpi_processor_name(char *buf, size_t len);

/* 1 when the MPI library is SimGrid's SMPI (all ranks in one process, on a
 * simulated clock), else 0. Asked once, then remembered; a failure to ask
 * counts as 0. */
int scr_mpi_is_simulated(void);

/* *out_private = 1 on every rank of comm when each rank has globals of
 * its own, as separate processes do and SMPI's privatization gives (its
 * --cfg=smpi/privatization:dlopen or mmap), 0 when the ranks of one
 * process share them, which libscr cannot run with. Collective. */
int scr_mpi_globals_are_private(MPI_Comm comm, int *out_private);

#endif
