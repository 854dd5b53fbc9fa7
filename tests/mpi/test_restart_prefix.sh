#!/bin/sh
# test_restart_prefix.sh — with the cache gone, a run restarts from the last
# checkpoint flushed to the prefix.
#
# SCR_FLUSH=2 and a crash right after checkpoint 3: checkpoint 2 is on the
# prefix, checkpoint 3 only in cache. Losing every node must give step 2;
# losing one node of two, with SCR_COPY_TYPE=SINGLE (no redundancy across
# nodes), must give step 2 as well.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-prefix

# kill_after_3 RANKS NODES LABEL: a run that flushes 2 and dies after 3
kill_after_3() {
    mpi_run "$1" "$2" SCR_FLUSH=2 ${copy_type:+SCR_COPY_TYPE=$copy_type} -- --steps 5 --files 2 --size 4000 \
        --crash-after 3 --crash-rank "$(($1 - 1))"
    mpi_expect_killed "$3_killed_after_checkpoint_3_with_checkpoint_2_flushed" 3
}

kill_after_3 1 1 one_rank
mpi_lose_all_nodes
mpi_run 1 1 SCR_FLUSH=2 -- --steps 4 --files 2 --size 4000
mpi_expect_restart "one_rank_without_cache_restarts_from_flushed_checkpoint_2" 2 4

mpi_reset
kill_after_3 4 2 four_ranks_before_losing_both_nodes
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 5 --files 2 --size 4000
mpi_expect_restart "four_ranks_after_losing_both_nodes_restart_from_flushed_checkpoint_2" 2 5
id=$(mpi_index_id ckpt.2)
check "the_fetch_of_checkpoint_2_is_recorded_in_the_index" mpi_index_has "DSET/$id/FETCHED"
check "the_finished_run_flushed_its_last_checkpoint_and_made_it_current" mpi_index_has "CURRENT/ckpt.5"

# a checkpoint written with SINGLE does not survive its node: back to the prefix
mpi_reset
copy_type=SINGLE kill_after_3 4 2 four_ranks_with_SINGLE_before_losing_node_1
mpi_lose_node 1
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4 --files 2 --size 4000
mpi_expect_restart "after_losing_node_1_with_SINGLE_copies_restart_from_flushed_checkpoint_2" 2 4

# the same loss with XOR (the default) is rebuilt in cache, whatever the
# restarted run's own configuration says
mpi_reset
kill_after_3 4 2 four_ranks_with_XOR_before_losing_node_1
mpi_lose_node 1
mpi_run 4 2 SCR_FLUSH=2 SCR_COPY_TYPE=SINGLE -- --steps 4 --files 2 --size 4000
mpi_expect_restart "after_losing_node_1_with_XOR_the_cache_is_rebuilt_to_checkpoint_3" 3 4

done_testing
