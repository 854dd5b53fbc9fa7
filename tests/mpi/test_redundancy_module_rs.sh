#!/bin/sh
# test_redundancy_module_rs.sh — RS on its own, without SCR_Init
# (tests/mpi/test_redundancy_module.c, 4 ranks on 4 simulated nodes): two lost
# members' files come back from Reed-Solomon (2 failures in a set of 4), and
# then two others', from the rebuilt RS files; every byte of every file is
# compared with what was written.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-module-rs

mpi_run_program "$top_builddir/tests/mpi/test_redundancy_module" 4 4 -- RS "$scratch/nodes"
mpi_expect_lines rs_module_rebuilds_every_byte_of_the_lost_members "RS rebuilt every file"

done_testing
