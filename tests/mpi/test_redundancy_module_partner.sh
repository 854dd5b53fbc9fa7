#!/bin/sh
# test_redundancy_module_partner.sh — PARTNER on its own, without SCR_Init
# (tests/mpi/test_redundancy_module.c, 4 ranks on 4 simulated nodes): a lost
# member's files come back from the copy its right neighbour holds, and, once
# the copies are made again, a second lost member's; every byte of every file
# is compared with what was written.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-module-partner

mpi_run_program "$top_builddir/tests/mpi/test_redundancy_module" 4 4 -- PARTNER "$scratch/nodes"
mpi_expect_lines partner_module_rebuilds_every_byte_of_the_lost_members "PARTNER rebuilt every file"

done_testing
