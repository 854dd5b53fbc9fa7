#!/bin/sh
# test_redundancy_partner.sh — PARTNER: every rank's files copied to the next
# node of its set, so any one lost node is rebuilt from cache.
#
# On 8 ranks as 4 nodes (sets of 4) every single lost node restarts from
# cache, and on 16 ranks as 8 nodes (sets of 8) the first, the last and two
# between (the ring turns with the member); two neighbouring nodes of a
# set lose a rank together with its copy, which falls back to the prefix (or
# a fresh start without one), said in one line; and after a restart that
# rebuilt a node, the nodes next to it can be lost in turn, so the rebuilt
# dataset is protected again. See tests/mpi/redundancy-lib.sh.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-partner
. "$top_srcdir/tests/mpi/redundancy-lib.sh"

red_write PARTNER 8 4 SCR_SET_SIZE=4
for lost in 0 1 2 3; do red_expect_rebuilt "$lost"; done
red_expect_rebuilt "0 2"
red_expect_prefix "1 2"
red_expect_fresh "3 0"
red_expect_protected_again 1 0 2

red_write PARTNER 16 8 SCR_SET_SIZE=8
for lost in 0 2 5 7; do red_expect_rebuilt "$lost"; done
red_expect_prefix "4 5"
red_expect_protected_again 3 2

done_testing
