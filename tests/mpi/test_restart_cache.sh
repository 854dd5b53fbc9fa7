#!/bin/sh
# test_restart_cache.sh — a run killed right after a checkpoint completed
# restarts from that checkpoint in cache, every byte checked by the app.
#
# SCR_FLUSH=0 keeps everything off the prefix, so the cache is the only
# place the checkpoint can come from. Ranks that run on other nodes than
# before find their cached files moved there (SCR_DISTRIBUTE), or, with
# SCR_DISTRIBUTE=0, an emptied cache and the prefix's older checkpoint.
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

# ranks on other nodes than the ones that wrote the checkpoint: 4 ranks on
# 2 nodes write ckpt.1 (flushed) and ckpt.2 (in cache only, SINGLE: no
# redundancy to rebuild from), then run on 4 nodes, where ranks 1-3 find
# their files on another node than their own
moved_ranks() {
    mpi_reset
    mpi_run 4 2 SCR_COPY_TYPE=SINGLE SCR_FLUSH=1 -- --steps 1
    mpi_run 4 2 SCR_COPY_TYPE=SINGLE SCR_FLUSH=0 -- --steps 2
    mpi_expect_restart "4_ranks_on_2_nodes_write_checkpoint_2_in_cache_$1" 1 2
}
# SCR_DISTRIBUTE (default 1): SCR_Init moves each rank's files to its node
moved_ranks "to_distribute"
mpi_run 4 4 SCR_COPY_TYPE=SINGLE SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "on_4_nodes_every_rank_restarts_from_checkpoint_2_moved_to_its_node" 2 2
check "node3_holds_rank_3s_file_of_checkpoint_2" \
    test -n "$(find "$scratch/cache/node3" -path '*/scr.dataset.2/*' -name 'rank3_f0.dat')"
# SCR_DISTRIBUTE=0: SCR_Init empties the cache instead; the restart reads
# the prefix's checkpoint 1
moved_ranks "not_to_distribute"
mpi_run 4 4 SCR_COPY_TYPE=SINGLE SCR_FLUSH=0 SCR_DISTRIBUTE=0 -- --steps 1
mpi_expect_restart "with_SCR_DISTRIBUTE_0_on_4_nodes_every_rank_restarts_from_checkpoint_1_on_the_prefix" 1 1
check "with_SCR_DISTRIBUTE_0_no_cache_holds_checkpoint_2" test -z "$(mpi_cache_datasets | grep 'scr.dataset.2$')"

done_testing
