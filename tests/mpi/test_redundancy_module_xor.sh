#!/bin/sh
# test_redundancy_module_xor.sh — XOR on its own, without SCR_Init
# (tests/mpi/test_redundancy_module.c, 4 ranks on 4 simulated nodes): one lost
# member's files come back from the XOR of the others, and then a second
# member's, from a set that holds the rebuilt XOR file; every byte of every
# file is compared with what was written.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-module-xor

mpi_run_program "$top_builddir/tests/mpi/test_redundancy_module" 4 4 -- XOR "$scratch/nodes"
mpi_expect_lines xor_module_rebuilds_every_byte_of_the_lost_members "XOR rebuilt every file"

done_testing
