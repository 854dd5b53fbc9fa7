#!/bin/sh
# test_redundancy.sh — redundancy data across layouts that change or are odd.
#
# The loss patterns of each scheme on regular layouts are in
# test_redundancy_{partner,xor,rs,spare}.sh; here: a job of 8 ranks on 4
# nodes restarted on 2 nodes, whose files of the missing nodes RS rebuilds;
# 3 ranks on 2 nodes, which make an XOR set and a set of one side by side;
# and a relaunch on fewer ranks, which cannot form the sets again. See
# tests/mpi/redundancy-lib.sh.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy
. "$top_srcdir/tests/mpi/redundancy-lib.sh"

# ranks 2-3 move to node0, and the files of ranks 4-7 (on nodes 2 and 3, not
# in this run) are rebuilt by RS
red_write RS 8 4 SCR_SET_SIZE=4 SCR_SET_FAILURES=2
red_nodes=2 red_case=restarted_on_2_nodes
red_expect_rebuilt ""
red_case=

# 3 ranks on 2 nodes make one XOR set {0, 2} and a set of one, rank 1, which
# is SINGLE in effect; both kinds work side by side
red_write XOR 3 2 SCR_SET_SIZE=4
red_expect_rebuilt 1
red_expect_prefix 0

# a relaunch on fewer ranks cannot re-form the sets: a fresh start, not a failure
red_write XOR 8 4 SCR_SET_SIZE=4
red_ranks=4 red_nodes=2 red_case=relaunched_on_4_ranks
red_expect_fresh ""

done_testing
