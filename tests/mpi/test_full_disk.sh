#!/bin/sh
# test_full_disk.sh — a prefix that runs out of space loses nothing.
#
# The prefix is a 64 KiB tmpfs, too small for one rank's 100 KB checkpoint
# file. The flush fails with a message naming the file and the cause, no
# half-written copy is left, the index does not list the dataset, and the
# checkpoint stays in cache: once there is room again, the next run restarts
# from it. Needs to mount a tmpfs; where that is not allowed the file is
# skipped (and reported as such).
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

done_testing
