#!/bin/sh
# test_current.sh — SCR_Current and the SCR_CURRENT parameter choose an older
# checkpoint of the prefix to restart from; a name no dataset has makes
# SCR_Current fail, with a message that names it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup current

# checkpoints 2 and 4 reach the prefix; the cache then holds 4 only
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4
mpi_expect_restart "four_ranks_write_checkpoints_1_to_4" 0 4
check "ckpt.2_is_in_the_index" test -n "$(mpi_index_id ckpt.2)"
check "ckpt.4_is_in_the_index" test -n "$(mpi_index_id ckpt.4)"

# without either, the newest checkpoint of the prefix is the one
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4
mpi_expect_restart "without_SCR_Current_the_restart_is_from_ckpt.4" 4

# ckpt.2 is not in cache: SCR_Current looks past the cached ckpt.4 to the prefix
mpi_run 4 2 SCR_FLUSH=2 -- --current ckpt.2 --steps 2
mpi_expect_restart "SCR_Current_ckpt.2_passes_over_ckpt.4_in_cache" 2
check "the_index_marks_ckpt.2_current" mpi_index_has CURRENT/ckpt.2

mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --current ckpt.2 --steps 2
mpi_expect_restart "SCR_Current_ckpt.2_restarts_from_the_prefix_after_the_cache_is_lost" 2

# the fetch made ckpt.2 current, so a new prefix shows what SCR_CURRENT does
mpi_reset
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 SCR_CURRENT=ckpt.2 -- --steps 2
mpi_expect_restart "SCR_CURRENT_ckpt.2_does_the_same" 2

mpi_run 4 2 SCR_FLUSH=2 -- --current ckpt.9 --steps 4
mpi_expect_failure "SCR_Current_of_an_unknown_name_fails_and_names_it" "no dataset named 'ckpt.9'"
check "every_rank_saw_SCR_Current_fail" test "$(grep -c 'SCR_Current ckpt.9 failed' "$mpi_err")" -eq 4

done_testing
