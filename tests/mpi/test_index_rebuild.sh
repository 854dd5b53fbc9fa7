#!/bin/sh
# test_index_rebuild.sh — an index that is emptied, damaged or lost is
# rebuilt from the summaries of the datasets, never started over on top of
# them.
#
# 4 ranks on 2 nodes flush checkpoints 1 to 3 (SCR_FLUSH=1); the index is
# then truncated to 0 bytes, or one of its bytes flipped (its CRC no longer
# matches), or removed, and every cache is lost. The next run must restart
# from ckpt.3 (the app checks every byte it reads), say what it rebuilt and
# from where, keep the damaged file aside byte for byte, and leave the files
# of ckpt.1 to ckpt.3 as they were. With the summaries gone too, SCR_Init
# fails with a clear error and the prefix is left exactly as it was. A
# prefix with a .scr directory but no dataset directory (or only empty
# ones) is still a fresh start.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup index-rebuild

index=$prefix/.scr/index.scr
args="--files 2 --size 4000"

# three_checkpoints LABEL: a fresh prefix with ckpt.1 to ckpt.3 flushed, and a copy of it
three_checkpoints() {
    mpi_reset
    # shellcheck disable=SC2086 # the arguments are meant to be split
    mpi_run 4 2 SCR_FLUSH=1 -- --steps 3 $args
    mpi_expect_restart "$1_four_ranks_flush_checkpoints_1_to_3" 0 3
    rm -rf "$scratch/saved" && cp -a "$prefix" "$scratch/saved"
}

# restart_after_loss LABEL: every cache lost, the next run goes on to step 5
restart_after_loss() {
    mpi_lose_all_nodes
    # shellcheck disable=SC2086
    mpi_run 4 2 SCR_FLUSH=1 -- --steps 5 $args
    mpi_expect_restart "$1_restarts_from_ckpt.3_with_every_byte_checked" 3 5
}

# kept_files: the files kept aside next to the index
kept_files() {
    find "$prefix/.scr" -maxdepth 1 -name 'index.scr.damaged.*'
}

# checkpoints_unchanged: the files of ckpt.1 to ckpt.3 are those flushed before the damage
checkpoints_unchanged() {
    for c in ckpt.1 ckpt.2 ckpt.3; do diff -r "$scratch/saved/$c" "$prefix/$c" || return 1; done
}

# rebuilt_said LABEL HOW: stderr has the one line that says what was rebuilt
rebuilt_said() {
    check "$1_says_what_was_rebuilt_and_from_where" grep -qF \
        "rebuilt $index from the summaries of its datasets ($2): ckpt.1 (dataset 1, complete), ckpt.2 (dataset 2, complete), ckpt.3 (dataset 3, complete); current: ckpt.3" \
        "$mpi_err"
}

# later_flushes_listed LABEL: the run's own flushes went into the rebuilt index
later_flushes_listed() {
    check "$1_index_lists_every_checkpoint_after_the_run" \
        test "$(mpi_index_id ckpt.1) $(mpi_index_id ckpt.3) $(mpi_index_id ckpt.5)" = "1 3 5"
    check "$1_last_checkpoint_is_current" mpi_index_has CURRENT/ckpt.5
}

# --- an index truncated to 0 bytes ----------------------------------------------------
three_checkpoints truncated
: > "$index"
restart_after_loss truncated_index
check "truncated_index_is_named_as_an_empty_file" grep -qF "$index: empty file (0 bytes)" "$mpi_err"
rebuilt_said truncated_index "it was damaged; kept as $(kept_files)"
check "truncated_index_is_kept_aside_as_it_was" sh -c "test $(kept_files | wc -l) -eq 1 && test ! -s '$(kept_files)'"
check "truncated_index_files_of_ckpt.1_to_ckpt.3_are_untouched" checkpoints_unchanged
later_flushes_listed truncated_index

# --- an index whose CRC no longer matches ------------------------------------------------
three_checkpoints crc
mpi_flip_byte "$index" 40
cp "$index" "$scratch/damaged-index"
restart_after_loss crc_damaged_index
check "crc_damaged_index_is_named_with_its_fault" grep -qF "$index: CRC32 mismatch" "$mpi_err"
rebuilt_said crc_damaged_index "it was damaged; kept as $(kept_files)"
check "crc_damaged_index_is_kept_aside_byte_for_byte" cmp "$scratch/damaged-index" "$(kept_files)"
check "crc_damaged_index_files_of_ckpt.1_to_ckpt.3_are_untouched" checkpoints_unchanged
later_flushes_listed crc_damaged_index

# --- an index that is gone -------------------------------------------------------------------
three_checkpoints missing
rm "$index"
restart_after_loss missing_index
rebuilt_said missing_index "there was none"
check "missing_index_leaves_nothing_aside" test -z "$(kept_files)"
later_flushes_listed missing_index

# --- nothing to rebuild from: SCR_Init fails, the prefix stays as it was ----------------------
three_checkpoints no_summaries
: > "$index"
rm "$prefix"/.scr/scr.dataset.*/summary.scr
mpi_lose_all_nodes
rm -rf "$scratch/before" && cp -a "$prefix" "$scratch/before"
# shellcheck disable=SC2086
mpi_run 4 2 SCR_FLUSH=1 -- --steps 5 $args
mpi_expect_failure "damaged_index_without_summaries_fails_SCR_Init_saying_why" \
    "$index is damaged and cannot be rebuilt: none of the dataset directories holding records has a usable summary"
# (the prefix's lock records who held it last: bookkeeping, not data)
check "damaged_index_without_summaries_leaves_the_prefix_as_it_was" diff -r -x lock.scr "$scratch/before" "$prefix"

rm "$index"
rm -rf "$scratch/before" && cp -a "$prefix" "$scratch/before"
# shellcheck disable=SC2086
mpi_run 4 2 SCR_FLUSH=1 -- --steps 5 $args
mpi_expect_failure "missing_index_without_summaries_fails_SCR_Init_saying_why" \
    "$prefix has no index, and none of its dataset directories holding records has a summary"
check "missing_index_without_summaries_leaves_the_prefix_as_it_was" diff -r -x lock.scr "$scratch/before" "$prefix"

# --- a prefix without datasets is a fresh start ----------------------------------------------
mpi_reset
mkdir -p "$prefix/.scr/scr.dataset.7"
# shellcheck disable=SC2086
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2 $args
mpi_expect_restart "scr_directory_with_an_empty_dataset_directory_is_a_fresh_start" 0 2
check "fresh_start_says_nothing_about_an_index" sh -c "! grep -q 'index' '$mpi_err'"

done_testing
