#!/bin/sh
# test_fresh_start.sh — with no checkpoint in cache or on the prefix, every
# rank starts fresh: the first run of a job, and a run whose only
# checkpoints were in a cache that is gone.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup fresh-start

mpi_run 1 1 SCR_DEBUG=1 -- --steps 2
mpi_expect_restart "one_rank_starts_fresh_on_an_empty_prefix" 0 2
# SCR_Init's line names this library's version and the SCR API's it implements
lib_version=$(sed -n 's/^AC_INIT(\[scr\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
api_version=$(sed -n 's/^#define SCR_VERSION "v\([0-9.]*\)"$/\1/p' "$top_srcdir/lib/scr.h")
check "scr_init_names_the_library_and_the_SCR_API_versions" test -n "$lib_version" -a -n "$api_version" -a \
    "$(grep -cF "SCR $lib_version (implements the SCR $api_version API) ready: 1 ranks on 1 nodes" "$mpi_err")" -eq 1

mpi_reset
mpi_run 4 2 -- --steps 2
mpi_expect_restart "four_ranks_on_two_nodes_start_fresh_on_an_empty_prefix" 0 2

# nothing flushed (SCR_FLUSH=0) and the cache lost: nothing to restart from
mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2 --crash-after 2 --crash-rank 2
mpi_expect_killed "killed_after_checkpoint_2_with_nothing_flushed" 2
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 -- --steps 1
mpi_expect_restart "without_cache_and_without_flushed_checkpoints_the_run_starts_fresh" 0 1

# an index with only output datasets offers no restart either
mpi_reset
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2 --output-every 1 --crash-after 2 --crash-rank 0
mpi_expect_killed "killed_after_writing_two_output_datasets" 2
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 -- --steps 1
mpi_expect_restart "output_datasets_on_the_prefix_are_not_restarted_from" 0 1

# SCR_FETCH=0: the prefix is not read even when it has a checkpoint (no
# steps: the run may not write ckpt.1 again while the index holds that name)
mpi_reset
mpi_run 1 1 SCR_FLUSH=1 -- --steps 2
mpi_lose_all_nodes
mpi_run 1 1 SCR_FETCH=0 -- --steps 0
mpi_expect_restart "with_SCR_FETCH_0_a_flushed_checkpoint_is_not_fetched" 0 0

done_testing
