#!/bin/sh
# test_restart_cache.sh — a run killed right after a checkpoint completed
# restarts from that checkpoint in cache, every byte checked by the app.
#
# SCR_FLUSH=0 keeps everything off the prefix, so the cache is the only
# place the checkpoint can come from.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-cache

mpi_run 1 1 SCR_FLUSH=0 -- --steps 5 --crash-after 2 --crash-rank 0 --size 3000
mpi_expect_killed "one_rank_is_killed_after_checkpoint_2" 2
mpi_run 1 1 SCR_FLUSH=0 -- --steps 4 --size 3000
mpi_expect_restart "one_rank_restarts_from_checkpoint_2_in_cache_and_goes_on_to_4" 2 4
check "nothing_reached_the_prefix_with_SCR_FLUSH_0" test ! -e "$prefix/.scr/index.scr"

mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 5 --files 2 --size 5000 --crash-after 3 --crash-rank 3
mpi_expect_killed "rank_3_of_4_on_2_nodes_is_killed_after_checkpoint_3" 3
mpi_run 4 2 SCR_FLUSH=0 -- --steps 5 --files 2 --size 5000
mpi_expect_restart "four_ranks_on_two_nodes_restart_from_checkpoint_3_in_cache" 3 5

# the run that finished left its last checkpoint in cache
mpi_run 4 2 SCR_FLUSH=0 -- --steps 5 --files 2 --size 5000
mpi_expect_restart "a_finished_run_leaves_its_last_checkpoint_for_the_next" 5 5

# rank 0 is the one that decides and broadcasts; kill it instead
mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 4 --crash-after 1 --crash-rank 0
mpi_expect_killed "rank_0_is_killed_after_checkpoint_1" 1
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "restart_from_cache_after_rank_0_died" 1 2

done_testing
