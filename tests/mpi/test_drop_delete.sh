#!/bin/sh
# test_drop_delete.sh — SCR_Drop takes a dataset out of the index and leaves
# its files on the prefix (a name the index does not hold is no error, as
# in SCR 3.1); SCR_Delete removes it from the index, the prefix and the
# cache.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup drop-delete

mpi_run 4 2 SCR_FLUSH=2 -- --steps 4
mpi_expect_restart "four_ranks_write_checkpoints_1_to_4" 0 4
id4=$(mpi_index_id ckpt.4)
check "ckpt.4_is_in_the_index" test -n "$id4"

# the cache still holds ckpt.4: SCR_Drop does not touch it
mpi_run 4 2 SCR_FLUSH=2 -- --drop ckpt.4 --steps 4
mpi_expect_restart "after_SCR_Drop_the_cached_ckpt.4_is_still_used" 4
check "SCR_Drop_removed_ckpt.4_from_the_index" test -z "$(mpi_index_id ckpt.4)"
check "ckpt.2_stays_in_the_index" test -n "$(mpi_index_id ckpt.2)"
for r in 0 1 2 3; do
    check "rank${r}'s_file_of_ckpt.4_stays_on_the_prefix" test -s "$prefix/ckpt.4/rank${r}_f0.dat"
done

mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 2
mpi_expect_restart "with_the_cache_lost_the_restart_is_from_ckpt.2" 2

# as in SCR 3.1, dropping a name the index does not hold succeeds
before=$(mpi_index_paths)
mpi_run 4 2 SCR_FLUSH=2 SCR_DEBUG=1 -- --drop ckpt.9 --steps 2
mpi_expect_restart "SCR_Drop_of_a_name_the_index_does_not_hold_succeeds" 2
check "SCR_DEBUG_1_says_the_name_is_not_in_the_index" \
    grep -q "SCR_Drop: no dataset named 'ckpt.9' in .*index.scr; nothing to drop" "$mpi_err"
# the index is left as it was, but for the time the restart fetched ckpt.2 again
after=$(mpi_index_paths)
check "the_index_is_left_as_it_was" \
    test "$(echo "$after" | grep -v /FETCHED/)" = "$(echo "$before" | grep -v /FETCHED/)"

# SCR_Delete: a checkpoint both in cache and on the prefix
mpi_reset
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4
id4=$(mpi_index_id ckpt.4)
check "ckpt.4_is_in_cache_before_SCR_Delete" test -n "$(mpi_cache_datasets | grep "/scr\.dataset\.$id4\$")"
mpi_run 4 2 SCR_FLUSH=2 -- --delete ckpt.4 --steps 2
mpi_expect_restart "after_SCR_Delete_of_ckpt.4_the_restart_is_from_ckpt.2" 2
check "SCR_Delete_removed_ckpt.4_from_the_index" test -z "$(mpi_index_id ckpt.4)"
check "SCR_Delete_removed_scr.dataset.${id4}_from_the_prefix" test ! -e "$prefix/.scr/scr.dataset.$id4"
left=$(ls "$prefix/ckpt.4" 2> /dev/null)
check "SCR_Delete_removed_the_files_of_ckpt.4_from_the_prefix" test -z "$left"
check "SCR_Delete_removed_ckpt.4_from_cache" test -z "$(mpi_cache_datasets | grep "/scr\.dataset\.$id4\$")"
check "ckpt.2_stays_in_the_index" test -n "$(mpi_index_id ckpt.2)"

# a checkpoint only in cache (never flushed)
mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 3
mpi_run 4 2 SCR_FLUSH=0 -- --delete ckpt.3 --steps 3
mpi_expect_restart "after_SCR_Delete_of_the_cached_ckpt.3_the_run_starts_fresh" 0 3
mpi_run 4 2 SCR_FLUSH=0 -- --delete ckpt.9 --steps 3
mpi_expect_failure "SCR_Delete_of_an_unknown_name_fails_and_names_it" "no dataset named 'ckpt.9'"

done_testing
