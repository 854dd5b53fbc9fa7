#!/bin/sh
# test_cache_purge.sh — SCR_CACHE_SIZE keeps that many checkpoints in each
# node's cache and evicts the oldest; SCR_CACHE_PURGE empties the cache at
# SCR_Init; SCR_PREFIX_PURGE forgets every dataset of the prefix.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup cache-purge

# cached_ids NODE: the dataset ids in NODE's cache, in one line
cached_ids() {
    mpi_cache_datasets | sed -n "s|^$scratch/cache/$1/.*/scr\.dataset\.\([0-9]*\)\$|\1|p" | sort -n | tr '\n' ' '
}

expect_cached() {
    for node in node0 node1; do
        check "$1:_$node's_cache_holds_datasets_$2" test "$(cached_ids $node)" = "$2 "
    done
}

mpi_run 4 2 SCR_FLUSH=0 -- --steps 3
expect_cached "SCR_CACHE_SIZE_1_by_default" "3"

mpi_reset
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --steps 2
mpi_expect_restart "two_checkpoints_with_SCR_CACHE_SIZE_2" 0 2
expect_cached "SCR_CACHE_SIZE_2_keeps_both" "1 2"
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --steps 3
mpi_expect_restart "the_newest_of_the_two_is_the_restart" 2 3
expect_cached "the_third_checkpoint_evicts_the_oldest" "2 3"
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --current ckpt.2 --steps 2
mpi_expect_restart "the_older_checkpoint_in_cache_is_still_usable" 2
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --current ckpt.1 --steps 2
mpi_expect_failure "the_evicted_checkpoint_is_gone" "no dataset named 'ckpt.1'"

# SCR_CACHE_PURGE: ckpt.2 on the prefix, ckpt.3 in cache only (the run is
# killed, so SCR_Finalize does not flush it)
mpi_reset
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4 --crash-after 3 --crash-rank 0
mpi_expect_killed "a_run_is_killed_after_checkpoint_3" 3
check "ckpt.3_is_not_on_the_prefix" test -z "$(mpi_index_id ckpt.3)"
expect_cached "ckpt.3_is_in_cache" "3"
mpi_run 4 2 SCR_FLUSH=2 SCR_CACHE_PURGE=1 -- --steps 2
mpi_expect_restart "SCR_CACHE_PURGE_1_falls_back_to_ckpt.2_on_the_prefix" 2

mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_PURGE=1 -- --steps 1
mpi_expect_restart "SCR_CACHE_PURGE_1_without_a_prefix_checkpoint_starts_fresh" 0 1

# SCR_PREFIX_PURGE: ckpt.2 and ckpt.4 on the prefix, the cache lost
mpi_reset
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4
ids="$(mpi_index_id ckpt.2) $(mpi_index_id ckpt.4)"
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 SCR_PREFIX_PURGE=1 -- --steps 1
mpi_expect_restart "SCR_PREFIX_PURGE_1_starts_fresh" 0 1
check "SCR_PREFIX_PURGE_1_removed_the_index" test ! -e "$prefix/.scr/index.scr"
for id in $ids; do
    check "SCR_PREFIX_PURGE_1_removed_scr.dataset.$id" test ! -e "$prefix/.scr/scr.dataset.$id"
done
check "SCR_PREFIX_PURGE_1_left_the_application's_files" test -s "$prefix/ckpt.4/rank0_f0.dat"

done_testing
