#!/bin/sh
# test_flush_fetch_width.sh — with SCR_FLUSH_WIDTH=1 and SCR_FETCH_WIDTH=1
# the ranks take turns writing to and reading from the prefix; every file
# still arrives intact (the app checks every byte on restart).
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-fetch-width

widths="SCR_FLUSH_WIDTH=1 SCR_FETCH_WIDTH=1"
# shellcheck disable=SC2086 # one word per setting
mpi_run 4 2 SCR_FLUSH=2 $widths -- --steps 4 --files 3 --size 20000 --uneven
mpi_expect_restart "four_ranks_flush_one_at_a_time" 0 4
check "ckpt.4_is_in_the_index" test -n "$(mpi_index_id ckpt.4)"
for r in 0 1 2 3; do
    check "rank${r}'s_files_of_ckpt.4_are_on_the_prefix" test -f "$prefix/ckpt.4/rank${r}_f2.dat"
done

mpi_lose_all_nodes
# shellcheck disable=SC2086
mpi_run 4 2 SCR_FLUSH=2 $widths -- --steps 4 --files 3 --size 20000 --uneven
mpi_expect_restart "four_ranks_fetch_one_at_a_time_and_restart_from_ckpt.4" 4

# a run with the default widths reads what width 1 wrote
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4 --files 3 --size 20000 --uneven
mpi_expect_restart "the_default_widths_read_the_same_checkpoint" 4

done_testing
