#!/bin/sh
# test_file_layouts.sh — checkpoints of several files per rank, of ranks
# without files and of files in nested directories survive both ways back:
# from cache, and flushed to the prefix then fetched into an empty cache.
# The application checks every byte it reads back.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup file-layouts

# round_trip LABEL RANKS NODES APP_ARGS...
#   run 1: steps 1-2, each flushed (SCR_FLUSH=1); the run ends normally
#   run 2: restarts from 2 in cache (not fetched), writes 3
#   run 3: every node lost; restarts from 3 fetched from the prefix
round_trip() {
    label=$1 r=$2 m=$3
    shift 3
    mpi_reset
    mpi_run "$r" "$m" SCR_FLUSH=1 -- --steps 2 "$@"
    mpi_expect_restart "${label}_first_run" 0 2
    mpi_run "$r" "$m" SCR_FLUSH=1 -- --steps 3 "$@"
    mpi_expect_restart "${label}_restart_from_cache" 2 3
    id=$(mpi_index_id ckpt.2)
    check "${label}_checkpoint_2_came_from_cache_not_from_the_prefix" \
        eval "[ -n '$id' ] && ! mpi_index_has DSET/$id/FETCHED"
    mpi_lose_all_nodes
    mpi_run "$r" "$m" SCR_FLUSH=1 -- --steps 4 "$@"
    mpi_expect_restart "${label}_restart_from_the_prefix" 3 4
    id=$(mpi_index_id ckpt.3)
    check "${label}_checkpoint_3_was_fetched_from_the_prefix" mpi_index_has "DSET/$id/FETCHED"
}

# files_on_prefix DIR: the application files under DIR on the prefix, sorted, each followed by a blank
files_on_prefix() {
    (cd "$prefix/$1" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
}

# expect_files NAME DIR FILES: DIR on the prefix holds exactly FILES
expect_files() {
    got=$(files_on_prefix "$2")
    if [ "$got" = "$3 " ]; then ok "$1"; else not_ok "$1" "expected: $3
got:      $got"; fi
}

round_trip one_rank_four_files 1 1 --files 4 --size 3000
expect_files "one_rank_four_files_are_at_their_paths_on_the_prefix" ckpt.3 \
    "rank0_f0.dat rank0_f1.dat rank0_f2.dat rank0_f3.dat"

round_trip four_ranks_three_files_each 4 2 --files 3 --size 2000
expect_files "four_ranks_three_files_each_are_at_their_paths_on_the_prefix" ckpt.3 \
    "$(for r in 0 1 2 3; do for f in 0 1 2; do printf 'rank%s_f%s.dat ' $r $f; done; done | sed 's/ $//')"

round_trip ranks_1_and_2_without_files 4 2 --files 2 --size 2000 --no-files 1,2
expect_files "only_ranks_0_and_3_have_files_on_the_prefix" ckpt.3 \
    "rank0_f0.dat rank0_f1.dat rank3_f0.dat rank3_f1.dat"

round_trip no_rank_with_files 4 2 --files 2 --no-files 0,1,2,3

round_trip nested_directories 4 2 --files 3 --size 1500 --nested --restart-by-path
expect_files "nested_files_are_at_their_paths_on_the_prefix" ckpt.3 \
    "$(for b in 0 1; do for r in 0 1 2 3; do for f in 0 1 2; do
          [ $((f % 2)) -eq $b ] && printf 'a/b%s/rank%s_f%s.dat ' $b $r $f; done; done; done | sed 's/ $//')"

done_testing
