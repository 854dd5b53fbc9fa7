#!/bin/sh
# test_flush_app_files.sh — a flush puts the application's files on the
# prefix and nothing of the redundancy scheme: every rank's own files are
# copied, so the XOR and RS data would be dead weight there. The dataset
# on the prefix then restarts a run that lost every node, and its summary
# and rank filemaps list as many files as the application wrote.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-app-files

# the bytes under the prefix that are not the records of .scr
app_bytes() {
    find "$scratch/prefix" -path "$scratch/prefix/.scr" -prune -o -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'
}

# the expected file count of the rank a rank filemap describes (RANK/r/DSET/id/FILES)
rank_expected_files() {
    "$mpi_print" "$1" | awk '/^        FILES$/ {getline; print $1}'
}

for scheme in XOR RS PARTNER; do
    mpi_reset
    mpi_run 4 4 SCR_COPY_TYPE=$scheme SCR_SET_SIZE=4 SCR_FLUSH=1 -- --steps 2 --size 65536
    mpi_expect_restart "${scheme}_run_checkpoints_and_flushes" 0 2
    check "${scheme}:_no_redundancy_file_is_on_the_prefix" \
        test -z "$(find "$scratch/prefix" -name '*.xor' -o -name '*.rs' -o -name 'partner.*')"
    check "${scheme}:_the_redundancy_files_are_in_cache" \
        test "$scheme" = PARTNER -o -n "$(find "$scratch/cache" -name '*.xor' -o -name '*.rs')"
    # 4 ranks, 1 file each of 4 + 65536 bytes, two checkpoints
    check "${scheme}:_the_prefix_holds_the_application's_bytes_only" test "$(app_bytes)" -eq $((2 * 4 * 65540))
    check "${scheme}:_a_rank_filemap_lists_one_expected_file" \
        test "$(rank_expected_files "$scratch/prefix/.scr/scr.dataset.2/1.scrfilemap")" = 1
    mpi_lose_all_nodes
    mpi_run 4 4 SCR_COPY_TYPE=$scheme SCR_SET_SIZE=4 -- --steps 3 --size 65536
    mpi_expect_restart "${scheme}:_every_node_lost:_restarts_from_the_prefix" 2 3
done

done_testing
