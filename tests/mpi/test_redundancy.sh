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

# --- several pieces in flight: a file buffer of four pieces, and files long
# enough for several groups of four, the last one short ----------------------------
write_args="--steps 2 --files 2 --size 70000 --uneven --no-files 1"
restart_args="--steps 3 --files 2 --size 70000 --uneven --no-files 1"
common="SCR_FLUSH=0 SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=16384 SCR_MPI_BUF_SIZE=4096"
write PARTNER 8 4
restart_after PARTNER 8 4 "2" 2
write XOR 8 4
restart_after XOR 8 4 "3" 2
write RS 8 4
restart_after RS 8 4 "0 2" 2
restart_after RS 8 2 "" 2
write_args="--steps 2 --files 2 --size 9000 --uneven --no-files 1"
restart_args="--steps 3 --files 2 --size 9000 --uneven --no-files 1"
common="SCR_FLUSH=0 SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=4096 SCR_MPI_BUF_SIZE=4096"

# a relaunch on fewer ranks cannot re-form the sets, and a checkpoint in
# cache only is out of reach of a run of another size: a fresh start, not a
# failure, with one warning saying why and what would use it
red_write XOR 8 4 SCR_SET_SIZE=4
red_ranks=4 red_nodes=2 red_case=relaunched_on_4_ranks
red_empty_prefix=1
red_replay ""
red_empty_prefix=
mpi_expect_restart "$(red_name "" with_an_empty_prefix_starts_fresh)" 0 2
warned_once() {
    [ "$(grep -c 'written by 8 ranks and is in cache only: a run of 4 ranks can restart' "$mpi_err")" -eq 1 ] &&
        ! grep -qi error "$mpi_err"
}
check "$(red_name "" says_why_in_one_warning_and_no_error)" warned_once

done_testing
