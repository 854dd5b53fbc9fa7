#!/bin/sh
# test_output_dataset.sh — an output-only dataset goes to its original paths
# under the prefix, is listed in the index, and leaves the cache; it never
# becomes the checkpoint to restart from.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup output-dataset

# checkpoints every step, never flushed; output at steps 2 and 4
mpi_run 4 2 SCR_FLUSH=0 -- --steps 4 --output-every 2
mpi_expect_restart "four_ranks_write_checkpoints_and_two_output_datasets" 0 4

for step in 2 4; do
    why=
    for r in 0 1 2 3; do
        file=$prefix/out.$step/rank$r.txt
        if [ ! -f "$file" ]; then
            why="$why
$file is missing"
        elif [ "$(cat "$file")" != "output of rank $r at step $step" ]; then
            why="$why
$file holds '$(cat "$file")'"
        fi
    done
    if [ -z "$why" ]; then ok "output_$step.files_are_on_the_prefix_with_their_content"
    else not_ok "output_$step.files_are_on_the_prefix_with_their_content" "$why"; fi

    id=$(mpi_index_id "out.$step")
    check "output_$step.is_listed_in_the_index" test -n "$id"
    left=$(mpi_cache_datasets | grep "/scr\.dataset\.$id\$")
    check "output_$step.left_no_dataset_directory_in_cache" test -z "$left"
done

check "the_checkpoints_stayed_off_the_prefix" test ! -e "$prefix/ckpt.4"
check "an_output_dataset_does_not_become_current" eval "! mpi_index_has CURRENT"

# output datasets do not count against SCR_CACHE_SIZE (1 here): checkpoint 4,
# written just before output 4, is still in cache for the next run
mpi_run 4 2 SCR_FLUSH=0 -- --steps 4
mpi_expect_restart "the_next_run_restarts_from_the_cached_checkpoint" 4

done_testing
