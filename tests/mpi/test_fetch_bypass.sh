#!/bin/sh
# test_fetch_bypass.sh — with SCR_FETCH_BYPASS=1 a restart from the prefix
# reads the files in place: nothing of the restart dataset is copied into
# cache. Without it, the same restart copies the dataset into cache first.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup fetch-bypass

mpi_run 4 2 SCR_FLUSH=1 -- --steps 4 --files 2 --size 3000 --crash-after 2 --crash-rank 1
mpi_expect_killed "killed_after_checkpoint_2_with_every_checkpoint_flushed" 2
id=$(mpi_index_id ckpt.2)

# no steps after the restart, so the cache holds only what the restart put there
mpi_lose_all_nodes
mpi_run 4 2 SCR_FETCH_BYPASS=1 -- --steps 2 --files 2 --size 3000
mpi_expect_restart "restart_from_checkpoint_2_read_in_place" 2
check "nothing_was_copied_into_cache_for_the_restart" test -z "$(mpi_cache_datasets)"

mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2 --files 2 --size 3000
mpi_expect_restart "restart_from_checkpoint_2_fetched_into_cache" 2
check "without_the_bypass_the_restart_dataset_is_in_cache" \
    test "$(mpi_cache_datasets | grep -c "/scr\.dataset\.$id\$")" -eq 2

# the bypass restart goes on writing checkpoints to cache as usual
mpi_lose_all_nodes
mpi_run 4 2 SCR_FETCH_BYPASS=1 SCR_FLUSH=1 -- --steps 4 --files 2 --size 3000
mpi_expect_restart "a_bypass_restart_goes_on_to_write_checkpoints_3_and_4" 2 4

done_testing
