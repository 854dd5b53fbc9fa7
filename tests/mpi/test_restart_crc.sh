#!/bin/sh
# test_restart_crc.sh — a damaged file on the prefix is caught by its CRC32
# when it is fetched: the dataset is marked FAILED in the index and the
# restart falls back to the older flushed checkpoint.
#
# SCR_FLUSH=2 and a crash after checkpoint 4: checkpoints 2 and 4 are on the
# prefix. With every node lost and one byte of ckpt.4 flipped, the restart
# must come from checkpoint 2.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-crc

mpi_run 4 2 SCR_FLUSH=2 -- --steps 6 --size 4000 --crash-after 4 --crash-rank 1
mpi_expect_killed "killed_after_checkpoint_4_with_checkpoints_2_and_4_flushed" 4
id2=$(mpi_index_id ckpt.2)
id4=$(mpi_index_id ckpt.4)
check "index_holds_checkpoints_2_and_4" test -n "$id2" -a -n "$id4"

mpi_lose_all_nodes
mpi_flip_byte "$prefix/ckpt.4/rank2_f0.dat" 1000
mpi_run 4 2 SCR_FLUSH=2 -- --steps 2 --size 4000
mpi_expect_restart "restart_falls_back_to_checkpoint_2_when_checkpoint_4_is_damaged" 2
if grep -q "ckpt.4/rank2_f0.dat is damaged: CRC32" "$mpi_err"; then
    ok "the_damaged_file_is_named_with_its_CRC32_mismatch"
else
    not_ok "the_damaged_file_is_named_with_its_CRC32_mismatch" "$(mpi_diag)"
fi
check "checkpoint_4_is_marked_FAILED_in_the_index" mpi_index_has "DSET/$id4/FAILED"
check "checkpoint_2_is_marked_FETCHED_in_the_index" mpi_index_has "DSET/$id2/FETCHED"
check "checkpoint_2_was_never_marked_failed" eval "! mpi_index_has DSET/$id2/FAILED"

# the failed checkpoint is not tried again: with the cache gone once more,
# the restart goes straight to checkpoint 2
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 2 --size 4000
mpi_expect_restart "a_later_restart_goes_straight_to_checkpoint_2" 2
check "a_later_restart_does_not_read_the_failed_checkpoint_again" eval "! grep -q damaged '$mpi_err'"

# Going on from checkpoint 2, the application writes a new ckpt.4; the name
# of the FAILED dataset passes to the new one, which a restart then uses.
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4 --size 4000
mpi_expect_restart "going_on_from_checkpoint_2_rewrites_checkpoint_4" 2 4
check "the_new_checkpoint_4_is_in_the_index_and_not_failed" \
    eval "! mpi_index_has DSET/$(mpi_index_id ckpt.4)/FAILED"
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 5 --size 4000
mpi_expect_restart "the_rewritten_checkpoint_4_is_restarted_from" 4 5

done_testing
