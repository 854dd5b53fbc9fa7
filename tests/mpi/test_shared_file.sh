#!/bin/sh
# test_shared_file.sh — one file that every rank writes a part of. Ranks of
# one node share their cached copy, which is whole; ranks on several nodes
# would leave a part in each node's cache, so such a checkpoint is refused
# with a message naming the file and SCR_CACHE_BYPASS, and with
# SCR_CACHE_BYPASS=1 it is written in place and read back at restart.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup shared-file

mpi_run 4 1 SCR_FLUSH=1 -- --steps 2 --shared-file --size 3000
mpi_expect_restart "ranks_of_one_node_share_a_file_in_cache" 0 2
check "it_is_flushed_whole" test "$(stat -c %s "$prefix/ckpt.2/shared.dat")" -eq 12004
mpi_lose_all_nodes
mpi_run 4 1 SCR_FLUSH=1 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "and_read_back_from_the_prefix" 2 3

mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2 --shared-file --size 3000
mpi_expect_failure "a_file_shared_across_nodes_is_refused_once_naming_it_and_SCR_CACHE_BYPASS" \
    "dataset 1 (ckpt.1): ranks on 2 nodes wrote ckpt.1/shared.dat; each node's cache would hold only the part its own ranks wrote, so a file shared across nodes cannot be cached: set SCR_CACHE_BYPASS=1" 1
check "nothing_in_pieces_reaches_the_prefix_or_stays_in_cache" \
    test ! -e "$prefix/ckpt.1/shared.dat" -a -z "$(mpi_cache_datasets)"

mpi_reset
mpi_run 4 2 SCR_CACHE_BYPASS=1 -- --steps 2 --shared-file --size 3000
mpi_expect_restart "with_SCR_CACHE_BYPASS=1_it_is_written_in_place" 0 2
check "whole" test "$(stat -c %s "$prefix/ckpt.2/shared.dat")" -eq 12004
mpi_run 4 2 SCR_CACHE_BYPASS=1 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "every_rank_reads_its_part_back_at_restart" 2 3
check "and_no_error_is_said" test ! -s "$mpi_err"
mpi_lose_all_nodes
mpi_run 4 2 SCR_CACHE_BYPASS=1 -- --steps 4 --shared-file --size 3000
mpi_expect_restart "also_after_losing_every_node" 3 4

done_testing
