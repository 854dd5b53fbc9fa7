#!/bin/sh
# test_restart_in_place.sh — a checkpoint written in place on the prefix
# (SCR_CACHE_BYPASS=1) is a restart candidate of the same job even with
# SCR_FETCH=0, as in SCR 3.1: the control directory still lists its files,
# which are already where the application reads them. The newest checkpoint
# is offered first, whether in cache or in place. A missing or short file
# makes the next older one offered, naming the file; a damaged one fails
# SCR_Complete_restart on its CRC32, and SCR_Have_restart offers the next
# older one. Once the records are lost, SCR_FETCH=0 forbids the index: a
# fresh start, as in SCR 3.1.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-in-place

# the datasets of the cache's records are kept, in place or in cache
export SCR_CACHE_SIZE=8

# --- one file per process -----------------------------------------------------------
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 4 --files 2 --size 3000 --crash-after 3 --crash-rank 2
mpi_expect_killed "killed_after_checkpoint_3_written_in_place" 3

mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 3 --files 2 --size 3000
mpi_expect_restart "with_SCR_FETCH_0_restart_from_checkpoint_3_where_it_was_written" 3
check "nothing_went_into_cache" test -z "$(mpi_cache_datasets)"
check "it_was_not_read_through_the_index" eval "! mpi_index_has 'DSET/$(mpi_index_id ckpt.3)/FETCHED'"
check "and_stderr_is_clean" test ! -s "$mpi_err"

rm "$prefix/ckpt.3/rank1_f0.dat"
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 3 --files 2 --size 3000
mpi_expect_restart "a_missing_file_makes_checkpoint_2_the_restart" 2 3
check "the_missing_file_is_named" grep -q "rank 1's file $prefix/ckpt.3/rank1_f0.dat is missing" "$mpi_err"

# checkpoint 3, written again in place, loses its last bytes in one file
truncate -s 2000 "$prefix/ckpt.3/rank3_f1.dat"
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 3 --files 2 --size 3000
mpi_expect_restart "a_short_file_makes_checkpoint_2_the_restart" 2 3
check "the_short_file_is_named" \
    grep -q "rank 3's file $prefix/ckpt.3/rank3_f1.dat has 2000 bytes, 3004 were written" "$mpi_err"

# a byte of checkpoint 3 flips: the application leaves the verdict to SCR
# (and writes no checkpoint after it, which would take ckpt.3's index entry)
id3=$(mpi_index_id ckpt.3)
mpi_flip_byte "$prefix/ckpt.3/rank2_f1.dat" 100
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 2 --files 2 --size 3000 --leave-check-to-scr
mpi_expect_lines "a_damaged_file_fails_checkpoint_3_and_checkpoint_2_is_read" \
    "restart from ckpt.3 failed" "restarted from step 2" "finished step 2"
check "the_damaged_file_is_named_with_its_CRC32_mismatch" \
    grep -q "ckpt.3/rank2_f1.dat is damaged: CRC32 .*read in place" "$mpi_err"
check "checkpoint_3_is_marked_FAILED_in_the_index" mpi_index_has "DSET/$id3/FAILED"

# newest in cache, older in place: checkpoint 3 is cached, and when its
# restart fails the checkpoint 2 written in place is offered next
mpi_run 4 2 SCR_FETCH=0 -- --steps 3 --files 2 --size 3000
mpi_expect_restart "a_caching_run_restarts_from_checkpoint_2_in_place" 2 3
check "checkpoint_3_is_in_cache" test -n "$(mpi_cache_datasets)"
mpi_run 4 2 SCR_FETCH=0 -- --steps 3 --files 2 --size 3000 --fail-restart-of ckpt.3
mpi_expect_lines "checkpoint_3_from_cache_first_then_checkpoint_2_in_place" \
    "restart from ckpt.3 failed" "restarted from step 2" "finished step 3"

# newest in place, older in cache: checkpoint 4 in place comes first
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 4 --files 2 --size 3000
mpi_expect_restart "a_bypass_run_restarts_from_checkpoint_3_in_cache" 3 4
mpi_run 4 2 SCR_FETCH=0 -- --steps 4 --files 2 --size 3000 --fail-restart-of ckpt.4
mpi_expect_lines "checkpoint_4_in_place_first_then_checkpoint_3_from_cache" \
    "restart from ckpt.4 failed" "restarted from step 3" "finished step 4"

# --- one file that every rank writes a part of ------------------------------------
mpi_reset
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 3 --shared-file --size 3000 --crash-after 2 --crash-rank 1
mpi_expect_killed "killed_after_shared_checkpoint_2_written_in_place" 2
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "with_SCR_FETCH_0_every_rank_reads_its_part_of_the_shared_file_in_place" 2 3
check "the_shared_file_never_went_into_cache" test -z "$(mpi_cache_datasets)"

mpi_flip_byte "$prefix/ckpt.3/shared.dat" 5000
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 3 --shared-file --size 3000 --leave-check-to-scr
mpi_expect_lines "a_damaged_shared_file_fails_checkpoint_3_and_checkpoint_2_is_read" \
    "restart from ckpt.3 failed" "restarted from step 2" "finished step 3"
check "the_damaged_shared_file_is_named_once_by_the_one_rank_that_read_it" \
    test "$(grep -c "ckpt.3/shared.dat is damaged: CRC32" "$mpi_err")" -eq 1

# a node's control directory is lost: its ranks no longer know the
# checkpoints written in place, and SCR_FETCH=0 forbids the index (SCR 3.1
# starts afresh too); with SCR_FETCH=1 the index offers checkpoint 3
mpi_lose_node 1
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_FETCH=0 -- --steps 0 --shared-file --size 3000
mpi_expect_restart "with_a_node_s_records_lost_and_SCR_FETCH_0_a_fresh_start" 0
check "the_lost_records_are_said_once_per_dataset" test "$(grep -c \
    "dataset [0-9]* (ckpt.3), written in place, is not known to the records of 2 rank(s), the first rank 2" \
    "$mpi_err")" -eq 1
mpi_run 4 2 SCR_CACHE_BYPASS=1 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "with_SCR_FETCH_1_the_index_offers_checkpoint_3" 3

done_testing
