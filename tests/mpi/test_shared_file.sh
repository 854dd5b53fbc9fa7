#!/bin/sh
# test_shared_file.sh — one file that every rank writes a part of. Ranks of
# one node share their cached copy, which is whole. Ranks on several nodes
# leave a piece in each node's cache: with the default settings the pieces
# are merged into the file on the prefix when the dataset completes, and
# the dataset is then read in place at restart, as one written with
# SCR_CACHE_BYPASS=1 is; two nodes writing a same byte differently is
# refused with a message naming the file and SCR_CACHE_BYPASS; a dataset
# whose other files cannot follow the merged one there fails, taking back
# what it wrote on the prefix, and a merge that fails before it opened the
# file leaves a file that was at its place alone. Ranks may
# also open the file without O_CREAT after rank 0 created it (SCR 3.1's
# test_api --shared-file, MPI-IO). With SCR_CACHE_BYPASS=1 the file is
# written in place and read back at restart.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup shared-file

mpi_run 4 1 SCR_FLUSH=1 -- --steps 2 --shared-file --size 3000
mpi_expect_restart "ranks_of_one_node_share_a_file_in_cache" 0 2
check "it_is_flushed_whole" test "$(stat -c %s "$prefix/ckpt.2/shared.dat")" -eq 12004
mpi_lose_all_nodes
mpi_run 4 1 SCR_FLUSH=1 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "and_read_back_from_the_prefix" 2 3

# every rank checks every byte of its part at restart, and the parts and
# rank 0's 4-byte step make up the whole file
mpi_reset
mpi_run 4 2 -- --steps 2 --shared-file --size 3000
mpi_expect_restart "a_file_shared_across_nodes_is_merged_on_the_prefix_with_nothing_set" 0 2
check "whole_at_its_place_on_the_prefix" test "$(stat -c %s "$prefix/ckpt.2/shared.dat")" -eq 12004
check "and_its_pieces_leave_the_cache" test -z "$(mpi_cache_datasets)"
mpi_run 4 2 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "a_second_run_restarts_from_it_every_rank_reading_its_part" 2 3
check "without_an_error_said" test ! -s "$mpi_err"
mpi_lose_all_nodes
mpi_run 4 2 -- --steps 4 --shared-file --size 3000
mpi_expect_restart "also_after_losing_every_nodes_cache" 3 4
mpi_lose_node 1
mpi_run 4 2 -- --steps 5 --shared-file --size 3000
mpi_expect_restart "and_after_losing_one_node" 4 5

mpi_reset
mpi_run 4 2 -- --steps 2 --shared-file --first-creates --size 3000
mpi_expect_restart "ranks_open_without_O_CREAT_the_file_rank_0_created_on_another_node" 0 2
mpi_run 4 2 -- --steps 3 --shared-file --first-creates --size 3000
mpi_expect_restart "and_restart_from_it" 2 3
# one rank per node: no second rank of the node routes the name
mpi_reset
mpi_run 2 2 -- --steps 2 --shared-file --first-creates --size 3000
mpi_expect_restart "with_one_rank_per_node_the_other_node_opens_it_without_O_CREAT_too" 0 2
check "whole_on_the_prefix" test "$(stat -c %s "$prefix/ckpt.2/shared.dat")" -eq 6004
mpi_run 2 2 -- --steps 3 --shared-file --first-creates --size 3000
mpi_expect_restart "and_restarts_from_it" 2 3

mpi_reset
# each rank's own files are created with O_EXCL: no rank finds one there first
mpi_run 4 2 -- --steps 2 --shared-file --own-files --exclusive --files 2 --size 3000
mpi_expect_restart "a_dataset_with_a_shared_file_goes_to_the_prefix_with_its_own_files" 0 2
check "own_files_on_the_prefix" test "$(stat -c %s "$prefix/ckpt.2/rank3_f1.dat")" -eq 3004
mpi_lose_all_nodes
mpi_run 4 2 -- --steps 3 --shared-file --own-files --files 2 --size 3000
mpi_expect_restart "and_every_file_is_read_back" 2 3

mpi_reset
mpi_run 4 2 -- --steps 2 --shared-file --overlap --size 3000
mpi_expect_failure "two_nodes_writing_a_same_byte_differently_are_refused_naming_the_file_and_SCR_CACHE_BYPASS" \
    "dataset 1 (ckpt.1): ranks on 2 nodes wrote ckpt.1/shared.dat; each node's cache would hold only the part its own ranks wrote, so a file shared across nodes cannot be cached: set SCR_CACHE_BYPASS=1 to write the dataset in place on the prefix (two nodes wrote different bytes at offset 0 of it" 1
check "nothing_merged_reaches_the_prefix_or_stays_in_cache" \
    test ! -e "$prefix/ckpt.1/shared.dat" -a -z "$(mpi_cache_datasets)"

# the merge succeeds, but one rank's own file cannot be copied beside it (a
# directory stands at its place): the dataset fails, and neither the merged
# file nor the copies the other ranks made stay on the prefix
mpi_reset
mkdir -p "$prefix/ckpt.1/rank3_f1.dat"
mpi_run 4 2 -- --steps 1 --shared-file --own-files --files 2 --size 3000
mpi_expect_failure "a_file_that_cannot_be_copied_beside_the_merged_one_fails_the_dataset" \
    "dataset 1 (ckpt.1): the files its ranks on several nodes wrote could not be merged on the prefix" 1
check "and_takes_back_the_merged_file_and_every_copy_made" \
    test ! -e "$prefix/ckpt.1/shared.dat" -a ! -e "$prefix/ckpt.1/rank0_f0.dat" -a ! -e "$prefix/ckpt.1/rank3_f0.dat"
check "but_not_what_was_there_before" test -d "$prefix/ckpt.1/rank3_f1.dat"

# node 1's piece cannot be read (the ranks run with a shim that fails its
# opens for reading): the merge fails before the file on the prefix is
# opened, and a file that was at its place before (a user's) stays
mpi_reset
shim=$top_builddir/tests/tools/.libs/libfail_open.so
app_bin=$(dirname "$mpi_app")/.libs/$(basename "$mpi_app")
[ -x "$app_bin" ] || app_bin=$mpi_app
failing_app=$scratch/failing_app
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\nLD_PRELOAD=%s exec %s "$@"\n' \
    "$top_builddir/lib/.libs" "$shim" "$app_bin" > "$failing_app" && chmod +x "$failing_app" || exit 99
if [ -f "$shim" ] && LD_PRELOAD=$shim "$top_builddir/cli/scr-print" --version > /dev/null 2>&1; then
    mkdir -p "$prefix/ckpt.1" && echo "a user's file" > "$prefix/ckpt.1/shared.dat" || exit 99
    mpi_run_program "$failing_app" 4 2 SCR_TEST_FAIL_OPEN="$scratch/cache/node1/*/shared.dat" -- \
        --steps 1 --shared-file --size 3000
    mpi_expect_failure "a_piece_that_cannot_be_read_fails_the_dataset" \
        "dataset 1 (ckpt.1): the files its ranks on several nodes wrote could not be merged on the prefix" 1
    check "and_a_file_at_its_place_that_the_merge_never_opened_stays" \
        grep -qx "a user's file" "$prefix/ckpt.1/shared.dat"
else
    skip "a_piece_that_cannot_be_read_fails_the_dataset" "the shim $shim cannot be preloaded in this build"
    skip "and_a_file_at_its_place_that_the_merge_never_opened_stays" "no shim"
fi

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
mpi_run 4 2 SCR_CACHE_BYPASS=1 -- --steps 5 --shared-file --first-creates --size 3000
mpi_expect_restart "and_ranks_open_the_file_rank_0_created" 4 5

done_testing
