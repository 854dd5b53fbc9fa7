#!/bin/sh
# test_fetch_bypass.sh — with SCR_FETCH_BYPASS=1 a restart from the prefix
# reads the files in place: nothing of the restart dataset is copied into
# cache. Without it, the same restart copies the dataset into cache first.
# A file read in place is still checked against its CRC32 before
# SCR_Complete_restart succeeds: a byte flipped on the prefix fails the
# checkpoint, which is marked FAILED, and the next older one is read.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup fetch-bypass

# scr-index --list shows a time in the FAILED column of the dataset called $1
listed_as_failed() {
    "$top_builddir/cli/scr-index" --list | awk -v name="$1" '$2 == name && $5 != "-" { found = 1 } END { exit !found }'
}

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

# Checkpoints 3 and 4 are on the prefix; one byte of ckpt.4 flips there. The
# application reads it in place, checks every byte itself but leaves the
# verdict to SCR (it ends the job if SCR accepts bytes that differ): the
# CRC32 fails ckpt.4, and ckpt.3 is read in place instead, byte for byte.
id4=$(mpi_index_id ckpt.4)
mpi_lose_all_nodes
mpi_flip_byte "$prefix/ckpt.4/rank1_f0.dat" 1000
mpi_run 4 2 SCR_FETCH_BYPASS=1 SCR_LOG_ENABLE=1 -- --steps 3 --files 2 --size 3000 --leave-check-to-scr
mpi_expect_lines "a_byte_flipped_in_ckpt.4_read_in_place_fails_it_and_ckpt.3_is_read" \
    "restart from ckpt.4 failed" "restarted from step 3" "finished step 3"
check "the_damaged_file_is_named_with_its_CRC32_mismatch" \
    grep -q "ckpt.4/rank1_f0.dat is damaged: CRC32" "$mpi_err"
check "ckpt.4_is_marked_FAILED_in_the_index" mpi_index_has "DSET/$id4/FAILED"
check "scr-index_lists_ckpt.4_as_failed" listed_as_failed ckpt.4
check "ckpt.3_was_read_in_place_as_well" test -z "$(mpi_cache_datasets)"
failed_fetch='"event":"fetch","status":"failed","dataset_id":'$id4',"dataset_name":"ckpt.4"'
check "the_event_log_has_a_failed_fetch_of_ckpt.4" \
    grep -q "$failed_fetch.*\"into\":\"prefix\",\"marked\":\"FAILED\"" "$prefix/.scr/events.jsonl"

done_testing
