#!/bin/sh
# test_mpi_wait.sh — the waits the background encode makes in its thread
# (lib/mpi/mpi_comm.h), on 4 ranks as 2 nodes (tests/mpi/test_mpi_wait.c):
# a polite wait for a late message, a wait whose politeness the main thread
# ends midway, and collectives between ranks whose threads wait politely and
# ranks whose threads no longer do.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup mpi-wait

mpi_run_program "$top_builddir/tests/mpi/test_mpi_wait" 4 2 --
mpi_expect_lines polite_waits_complete_with_the_right_data_and_mixed_collectives_match "polite waits OK"

done_testing
