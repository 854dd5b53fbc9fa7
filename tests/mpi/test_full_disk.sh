#!/bin/sh
# test_full_disk.sh — a prefix that runs out of space loses nothing.
#
# The prefix is a 64 KiB tmpfs, too small for one rank's 100 KB checkpoint
# file. The flush fails with a message naming the file and the cause, no
# half-written copy is left, the index does not list the dataset, and the
# checkpoint stays in cache: once there is room again, the next run restarts
# from it.
#
# Then a 128 KiB prefix holds a small XOR checkpoint, flushed and current,
# and the next one fills it part way: some of its files (application files,
# XOR files) fit whole before one does not. The failed flush takes back
# every file it wrote, so nothing of the failed dataset is left, while the
# earlier dataset is untouched, still current, and a restart from the prefix
# reads it back. Needs to mount a tmpfs; where that is not allowed the file
# is skipped (and reported as such).
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup full-disk

cd / || exit 99
if ! mount -t tmpfs -o size=64k tmpfs "$prefix" 2> /dev/null; then
    mpi_skip_all "cannot mount a small tmpfs here"
fi
trap 'cd /; umount "$prefix" 2> /dev/null; mpi_cleanup' EXIT
cd "$prefix" || exit 99

mpi_run 2 1 SCR_FLUSH=1 SCR_COPY_TYPE=SINGLE -- --steps 2 --size 100000
check "the_run_stops_when_the_flush_does_not_fit" test "$mpi_status" -ne 0
check "the_error_names_the_file_and_says_the_disk_is_full" \
    grep -q "write to $prefix/ckpt.1/rank[01]_f0.dat failed: No space left on device" "$mpi_err"
check "no_half_written_copy_is_left_on_the_prefix" \
    test -z "$(find "$prefix" -name 'rank*_f0.dat' 2> /dev/null)"
check "the_dataset_is_not_in_the_index" test -z "$(mpi_index_id ckpt.1)"

# room again: the checkpoint kept in cache is used
cd / && umount "$prefix" && cd "$prefix" || exit 99
mpi_run 2 1 SCR_FLUSH=1 SCR_COPY_TYPE=SINGLE -- --steps 2 --size 100000
mpi_expect_restart "with_room_again_the_next_run_restarts_from_the_cached_checkpoint" 1 2
check "and_then_flushes_it" test -n "$(mpi_index_id ckpt.2)"

# --- a failed flush takes back what it wrote, and nothing else ----------------------------
index=$top_builddir/cli/scr-index
mpi_reset
cd / && mount -t tmpfs -o size=512k tmpfs "$prefix" && cd "$prefix" || exit 99
# one rank at a time, so that the files of the first ranks fit whole
xor="SCR_FLUSH=1 SCR_COPY_TYPE=XOR SCR_FLUSH_WIDTH=1"
# shellcheck disable=SC2086 # the settings are meant to be split
mpi_run 4 2 $xor -- --steps 1 --size 20000
mpi_expect_restart "an_xor_checkpoint_is_flushed" 0 1
# the files of dataset 1 (ckpt.1 and its directory in .scr), with their sums
sums() {
    (cd "$prefix" && find ckpt.1 .scr/scr.dataset.1 -type f | sort | xargs md5sum)
}
sums > "$scratch/ckpt1.sums"
current() {
    "$index" --prefix "$prefix" | awk '$1 == "*" { print $3 }'
}
# leave 64 KiB: room for a few of the next checkpoint's 20 KB files, not all
avail=$(df -k --output=avail "$prefix" | tail -n 1)
dd if=/dev/zero of="$prefix/filler" bs=1k count=$((avail - 64)) 2> /dev/null || exit 99

# shellcheck disable=SC2086
mpi_run 4 2 $xor -- --steps 2 --size 20000
check "the_flush_of_the_next_checkpoint_does_not_fit" grep -q "No space left on device" "$mpi_err"
left=$(cd "$prefix" && find . -path '*ckpt.2*' -o -path './.scr/scr.dataset.2*')
if [ -z "$left" ]; then
    ok "the_failed_flush_leaves_nothing_of_its_dataset_on_the_prefix"
else
    not_ok "the_failed_flush_leaves_nothing_of_its_dataset_on_the_prefix" "left: $(echo $left)
$(mpi_diag)"
fi
check "the_message_says_how_many_files_were_removed" \
    grep -q "the [1-9][0-9]* files\{0,1\} the flush had written there w[ae][sr]e\{0,1\} removed" "$mpi_err"
sums > "$scratch/after.sums"
check "the_previous_dataset_is_as_it_was_flushed" cmp "$scratch/ckpt1.sums" "$scratch/after.sums"
check "and_still_current" test "$(current)" = "ckpt.1"
check "a_file_the_flush_did_not_write_is_kept" test -f "$prefix/filler"
mpi_lose_all_nodes
# shellcheck disable=SC2086
mpi_run 4 2 $xor -- --steps 1 --size 20000
mpi_expect_restart "a_restart_from_the_prefix_reads_it_back" 1 1

done_testing
