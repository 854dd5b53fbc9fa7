#!/bin/sh
# test_prefix_size.sh — SCR_PREFIX_SIZE=N keeps the N newest checkpoints on
# the prefix: after each flush, older checkpoints leave the index and their
# files and dataset directories are deleted; output datasets stay. A crash in
# the middle of the deletion (the SCRTEST_PREFIX_TRIM_CRASH test hook of
# lib/scan/prefix_trim.c kills rank 0 at that step) leaves an index that names
# only whole datasets, that scr-index --rebuild-index does not undo, and
# whose leftovers the next trim (or SCR_PREFIX_PURGE) removes. A checkpoint
# damaged on the prefix and written again under its name by a restart from
# an older one leaves no record behind when the trim deletes the new one.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup prefix-size

scr_index=$top_builddir/cli/scr-index

# summaries_named NAME: the summaries on the prefix of a dataset called NAME
summaries_named() {
    for _s in "$prefix"/.scr/scr.dataset.*/summary.scr; do
        [ -f "$_s" ] && "$mpi_print" "$_s" | grep -A1 '^  NAME$' | grep -qx "    $1" && echo "$_s"
    done
}

# 4 ranks on 2 nodes, every checkpoint flushed, output every second step
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=2 -- --steps 5 --output-every 2
mpi_expect_restart "five_checkpoints_flushed_with_SCR_PREFIX_SIZE_2" 0 5
check "the_index_keeps_ckpt.4_and_ckpt.5" sh -c "test -n '$(mpi_index_id ckpt.4)' && test -n '$(mpi_index_id ckpt.5)'"
check "ckpt.1_to_ckpt.3_left_the_index" \
    sh -c "test -z '$(mpi_index_id ckpt.1)$(mpi_index_id ckpt.2)$(mpi_index_id ckpt.3)'"
check "the_files_of_ckpt.1_to_ckpt.3_are_gone" \
    sh -c "test ! -e '$prefix/ckpt.1' && test ! -e '$prefix/ckpt.2' && test ! -e '$prefix/ckpt.3'"
check "two_checkpoint_directories_and_two_output_directories_remain_in_.scr" \
    test "$(find "$prefix/.scr" -maxdepth 1 -name 'scr.dataset.*' | wc -l)" -eq 4
check "output_datasets_out.2_and_out.4_stay_listed_with_their_files" \
    sh -c "test -n '$(mpi_index_id out.2)' && test -n '$(mpi_index_id out.4)' && test -f '$prefix/out.2/rank0.txt'"
check "no_half_deleted_directory_is_left" test -z "$(find "$prefix/.scr" -maxdepth 1 -name 'scr.deleting.*')"
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=2 -- --steps 6
mpi_expect_restart "the_trimmed_prefix_restarts_from_ckpt.5" 5 6
check "after_ckpt.6_the_prefix_holds_ckpt.5_and_ckpt.6" \
    sh -c "test -z '$(mpi_index_id ckpt.4)' && test ! -e '$prefix/ckpt.4' && test -n '$(mpi_index_id ckpt.6)'"

# without SCR_PREFIX_SIZE every checkpoint stays
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 3
check "without_SCR_PREFIX_SIZE_ckpt.1_stays" sh -c "test -n '$(mpi_index_id ckpt.1)' && test -d '$prefix/ckpt.1'"

# a crash right after the index was replaced: a whole dataset no entry lists
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=2 SCRTEST_PREFIX_TRIM_CRASH=after-index -- --steps 3
mpi_expect_killed "rank_0_dies_after_the_index_dropped_ckpt.1" 3
check "crash_after_index_ckpt.1_is_not_listed_ckpt.2_and_ckpt.3_are" \
    sh -c "test -z '$(mpi_index_id ckpt.1)' && test -n '$(mpi_index_id ckpt.2)' && test -n '$(mpi_index_id ckpt.3)'"
check "crash_after_index_ckpt.1_is_still_whole_on_the_prefix" \
    sh -c "test -f '$prefix/.scr/scr.dataset.1/summary.scr' && test \$(ls '$prefix/ckpt.1' | wc -l) -eq 4"

# a crash in the middle of deleting the files: the index is as before the
# crash, the rebuild does not bring back a half-deleted dataset, the next
# trim finishes the deletion
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=2 SCRTEST_PREFIX_TRIM_CRASH=mid-delete -- --steps 3
mpi_expect_killed "rank_0_dies_after_deleting_one_file_of_ckpt.1" 3
check "crash_mid_delete_the_index_lists_ckpt.2_and_ckpt.3_only" \
    sh -c "test -z '$(mpi_index_id ckpt.1)' && test -n '$(mpi_index_id ckpt.2)' && test -n '$(mpi_index_id ckpt.3)'"
check "crash_mid_delete_leaves_ckpt.1_half_deleted_under_a_name_no_reader_takes" \
    sh -c "test -d '$prefix/.scr/scr.deleting.1' && test ! -e '$prefix/.scr/scr.dataset.1' &&
           test \$(ls '$prefix/ckpt.1' | wc -l) -eq 3"
rm -f "$prefix/.scr/index.scr"
"$scr_index" --prefix "$prefix" --rebuild-index > "$scratch/rebuild.out" 2>&1
check "a_rebuilt_index_lists_ckpt.2_and_ckpt.3_and_not_the_half_deleted_ckpt.1" \
    sh -c "test -z '$(mpi_index_id ckpt.1)' && test -n '$(mpi_index_id ckpt.2)' && test -n '$(mpi_index_id ckpt.3)'"
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=2 -- --steps 4
mpi_expect_restart "the_next_run_restarts_from_ckpt.3" 3 4
check "the_next_trim_finished_deleting_ckpt.1_and_deleted_ckpt.2" \
    sh -c "test ! -e '$prefix/.scr/scr.deleting.1' && test ! -e '$prefix/ckpt.1' && test ! -e '$prefix/ckpt.2' &&
           test -z '$(mpi_index_id ckpt.2)'"

# ckpt.4 damaged on the prefix: the restart passes over it to ckpt.3 and
# writes ckpt.4 again, over its files, as another dataset; SCR_PREFIX_SIZE=1
# then deletes that one, and the records of the first ckpt.4, whose files
# they were, go with it: no summary is left to call ckpt.4 complete
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 4
mpi_expect_restart "four_checkpoints_flushed_before_ckpt.4_is_damaged" 0 4
first_ckpt4=$(mpi_index_id ckpt.4)
mpi_flip_byte "$prefix/ckpt.4/$(ls "$prefix/ckpt.4" | head -n 1)" 10
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=1 -- --steps 6
mpi_expect_restart "the_damaged_ckpt.4_is_passed_over_for_ckpt.3" 3 6
check "the_trim_leaves_no_summary_of_ckpt.4" test -z "$(summaries_named ckpt.4)"
check "the_trim_deleted_the_files_of_ckpt.4" test ! -e "$prefix/ckpt.4"
check "the_records_of_the_damaged_ckpt.4_went_with_the_files_they_listed" \
    sh -c "test -n '$first_ckpt4' && test ! -e '$prefix/.scr/scr.dataset.$first_ckpt4'"
rm -f "$prefix/.scr/index.scr"
"$scr_index" --prefix "$prefix" --rebuild-index > "$scratch/rebuild-ckpt4.out" 2>&1
check "a_rebuilt_index_does_not_list_ckpt.4" test -z "$(mpi_index_id ckpt.4)"
check "a_rebuilt_index_lists_ckpt.6_complete" mpi_index_has "DSET/$(mpi_index_id ckpt.6)/COMPLETE/1"

# SCR_PREFIX_PURGE forgets a half-deleted dataset with the others
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_PREFIX_SIZE=2 SCRTEST_PREFIX_TRIM_CRASH=mid-delete -- --steps 3
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 SCR_PREFIX_PURGE=1 -- --steps 1
mpi_expect_restart "a_run_with_SCR_PREFIX_PURGE_starts_afresh" 0 1
check "SCR_PREFIX_PURGE_removes_the_half_deleted_directory_too" test ! -e "$prefix/.scr/scr.deleting.1"

done_testing
