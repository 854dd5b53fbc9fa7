#!/bin/sh
# test_restart_params.sh — what SCR_Init does with the checkpoint it finds:
# SCR_FLUSH_ON_RESTART=1 copies it to the prefix when it is not there yet;
# SCR_GLOBAL_RESTART=1 does that and then restarts from the prefix (a
# fetch, recorded in the index) instead of from cache; SCR_DROP_AFTER_CURRENT=1
# drops from the index the datasets newer than the one SCR_Current or
# SCR_CURRENT chose.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-params

# listed NAME...: the index lists every NAME; unlisted NAME...: none of them
listed() { for n in "$@"; do [ -n "$(mpi_index_id "$n")" ] || return 1; done; }
unlisted() { for n in "$@"; do [ -z "$(mpi_index_id "$n")" ] || return 1; done; }
# fetched NAME: a restart read NAME back from the prefix; not_fetched NAME: listed, never read back
fetched() { mpi_index_paths | grep -q "^DSET/$(mpi_index_id "$1")/FETCHED/"; }
not_fetched() { listed "$1" && ! fetched "$1"; }

# --- SCR_FLUSH_ON_RESTART ----------------------------------------------------------
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "without_SCR_FLUSH_ON_RESTART_the_restart_is_from_cache" 2
check "without_SCR_FLUSH_ON_RESTART_ckpt.2_is_not_listed" unlisted ckpt.2
check "without_SCR_FLUSH_ON_RESTART_no_file_reaches_the_prefix" test ! -e "$prefix/ckpt.2"
mpi_run 4 2 SCR_FLUSH=0 SCR_FLUSH_ON_RESTART=1 -- --steps 2
mpi_expect_restart "with_SCR_FLUSH_ON_RESTART_the_restart_is_from_step_2" 2
check "SCR_FLUSH_ON_RESTART_put_ckpt.2_in_the_index" listed ckpt.2
check "SCR_FLUSH_ON_RESTART_restarts_from_cache_not_from_the_prefix" not_fetched ckpt.2
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "the_flushed_ckpt.2_is_whole_on_the_prefix" 2

# --- SCR_GLOBAL_RESTART -------------------------------------------------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_run 4 2 SCR_FLUSH=0 SCR_GLOBAL_RESTART=1 -- --steps 3
mpi_expect_restart "with_SCR_GLOBAL_RESTART_the_restart_is_from_step_2" 2 3
check "SCR_GLOBAL_RESTART_flushed_ckpt.2_first" listed ckpt.2
check "SCR_GLOBAL_RESTART_read_ckpt.2_back_from_the_prefix" fetched ckpt.2

# --- SCR_DROP_AFTER_CURRENT ------------------------------------------------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 4
mpi_run 4 2 SCR_FLUSH=1 -- --current ckpt.2 --steps 2
mpi_expect_restart "SCR_Current_ckpt.2_without_SCR_DROP_AFTER_CURRENT" 2
check "without_SCR_DROP_AFTER_CURRENT_ckpt.3_and_ckpt.4_stay_listed" listed ckpt.3 ckpt.4
mpi_run 4 2 SCR_FLUSH=1 SCR_DROP_AFTER_CURRENT=1 -- --current ckpt.2 --steps 2
mpi_expect_restart "SCR_Current_ckpt.2_with_SCR_DROP_AFTER_CURRENT" 2
check "SCR_DROP_AFTER_CURRENT_dropped_ckpt.3_and_ckpt.4" unlisted ckpt.3 ckpt.4
check "SCR_DROP_AFTER_CURRENT_kept_ckpt.1_and_ckpt.2" listed ckpt.1 ckpt.2
check "SCR_DROP_AFTER_CURRENT_says_what_it_dropped" grep -qF "SCR_DROP_AFTER_CURRENT: dropped 2 datasets newer than ckpt.2" "$mpi_err"

mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 4
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 SCR_CURRENT=ckpt.3 SCR_DROP_AFTER_CURRENT=1 -- --steps 3
mpi_expect_restart "SCR_CURRENT_ckpt.3_with_SCR_DROP_AFTER_CURRENT" 3
check "SCR_CURRENT_with_SCR_DROP_AFTER_CURRENT_dropped_ckpt.4" unlisted ckpt.4
check "SCR_CURRENT_with_SCR_DROP_AFTER_CURRENT_kept_ckpt.1_to_ckpt.3" listed ckpt.1 ckpt.2 ckpt.3
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 -- --steps 3
mpi_expect_restart "a_later_restart_is_not_offered_the_dropped_ckpt.4" 3

done_testing
