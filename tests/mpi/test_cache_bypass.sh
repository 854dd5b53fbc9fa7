#!/bin/sh
# test_cache_bypass.sh — with SCR_CACHE_BYPASS=1 a checkpoint is written in
# place on the prefix and indexed as soon as it completes; nothing goes to
# cache, and a restart reads it back from the prefix, without a word about
# rebuilding from cache what was never there. Read in place again
# (SCR_FETCH_BYPASS=1), its files are checked against their CRC32 before
# SCR_Complete_restart succeeds.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup cache-bypass

mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FLUSH=0 -- --steps 4 --files 2 --size 3000 --crash-after 2 --crash-rank 2
mpi_expect_killed "killed_after_checkpoint_2_written_in_place" 2
check "checkpoint_2_files_are_on_the_prefix" test -f "$prefix/ckpt.2/rank0_f0.dat" -a -f "$prefix/ckpt.2/rank3_f1.dat"
id=$(mpi_index_id ckpt.2)
check "every_checkpoint_is_indexed_even_with_SCR_FLUSH_0" \
    test -n "$id" -a -n "$(mpi_index_id ckpt.1)"
check "checkpoint_2_is_current" mpi_index_has CURRENT/ckpt.2
check "no_dataset_directory_in_cache" test -z "$(mpi_cache_datasets)"

# the control directory still lists the files in place: no fetch needed
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FLUSH=0 -- --steps 3 --files 2 --size 3000
mpi_expect_restart "restart_from_checkpoint_2_read_where_it_was_written" 2 3
check "datasets_never_in_cache_are_not_called_unrebuildable" eval "! grep -q error '$mpi_err'"
check "checkpoint_3_is_indexed" test -n "$(mpi_index_id ckpt.3)"

# with the nodes lost, the restart fetches checkpoint 3 through the index
mpi_lose_all_nodes
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FLUSH=0 -- --steps 4 --files 2 --size 3000
mpi_expect_restart "after_losing_every_node_restart_from_checkpoint_3_on_the_prefix" 3 4
check "checkpoint_3_was_fetched_through_the_index" mpi_index_has "DSET/$(mpi_index_id ckpt.3)/FETCHED"

# a byte of checkpoint 4, written in place, flips on the prefix; with
# SCR_FETCH_BYPASS=1 the restart reads it in place too. The application
# leaves the verdict to SCR, whose CRC32 check fails checkpoint 4 as it
# would fail a fetch, and checkpoint 3 is read.
id4=$(mpi_index_id ckpt.4)
mpi_flip_byte "$prefix/ckpt.4/rank2_f1.dat" 100
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH_BYPASS=1 SCR_FLUSH=0 -- --steps 3 --files 2 --size 3000 --leave-check-to-scr
mpi_expect_lines "a_byte_flipped_in_checkpoint_4_read_in_place_fails_it_and_checkpoint_3_is_read" \
    "restart from ckpt.4 failed" "restarted from step 3" "finished step 3"
check "the_damaged_file_is_named_with_its_CRC32_mismatch" \
    grep -q "ckpt.4/rank2_f1.dat is damaged: CRC32 .*read in place" "$mpi_err"
check "checkpoint_4_is_marked_FAILED_in_the_index" mpi_index_has "DSET/$id4/FAILED"

# one rank, and a run that ends normally
mpi_reset
mpi_run 1 1 SCR_CACHE_BYPASS=1 -- --steps 2
mpi_run 1 1 SCR_CACHE_BYPASS=1 -- --steps 3
mpi_expect_restart "one_rank_restarts_from_its_last_checkpoint_written_in_place" 2 3

# a run that caches, after runs that wrote in place, says nothing of them either
mpi_run 1 1 SCR_FLUSH=0 -- --steps 4
mpi_expect_restart "a_caching_run_restarts_from_the_checkpoint_written_in_place" 3 4
check "and_its_stderr_is_clean" test ! -s "$mpi_err"

done_testing
