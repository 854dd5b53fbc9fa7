#!/bin/sh
# test_adopt.sh — a checkpoint an application wrote without SCR, adopted by
# scr-adopt, is restarted from through the SCR API: 4 ranks as 2 and as 4
# simulated nodes, each time with an empty cache, get their own file back
# with every byte right, asking for it by its path in the prefix, its
# absolute path or its bare name (tests/mpi/adopt_app compares the bytes
# with a pristine copy outside the prefix). A file changed after the
# adoption is caught by its CRC32 at the fetch: named, the dataset marked
# FAILED, and no restart from it. A --global dataset restarts on 1 rank and
# on 4, where every rank reads every file.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup adopt

app=$top_builddir/tests/mpi/adopt_app
adopt=$top_builddir/cli/scr-adopt
size=300000

# what a non-SCR application wrote: one file per rank, under the prefix
mkdir -p "$prefix/ckpt.0" "$scratch/pristine" || exit 99
for r in 0 1 2 3; do
    head -c $size /dev/urandom > "$scratch/pristine/rank_$r.ckpt" || exit 99
    cp "$scratch/pristine/rank_$r.ckpt" "$prefix/ckpt.0/rank_$r.ckpt" || exit 99
done
check "scr_adopt_records_the_directory_of_4_ranks" \
    "$adopt" --prefix "$prefix" --name ckpt.0 --owner 'rank_%d.ckpt' ckpt.0

routes="ckpt.0/rank_%d.ckpt=$scratch/pristine/rank_%d.ckpt
$prefix/ckpt.0/rank_%d.ckpt=$scratch/pristine/rank_%d.ckpt
rank_%d.ckpt=$scratch/pristine/rank_%d.ckpt"
# shellcheck disable=SC2086 # one argument per line
IFS='
'
set -- $routes
unset IFS
mpi_run_program "$app" 4 2 -- "$@"
mpi_expect_lines "4_ranks_on_2_nodes_restart_from_the_adopted_checkpoint_with_every_byte_right" \
    "restarted from ckpt.0" "$((3 * size)) bytes right"
if grep -qF "rank 3: routed ckpt.0/rank_3.ckpt to $scratch/cache/" "$mpi_out"; then
    ok "the_files_were_fetched_into_the_cache"
else
    not_ok "the_files_were_fetched_into_the_cache" "$(mpi_diag)"
fi
id=$(mpi_index_id ckpt.0)
check "the_index_records_the_fetch" mpi_index_has "DSET/$id/FETCHED"

mpi_lose_all_nodes
mpi_run_program "$app" 4 4 -- "$@"
mpi_expect_lines "4_ranks_on_4_nodes_with_an_empty_cache_restart_from_it_too" \
    "restarted from ckpt.0" "$((3 * size)) bytes right"
check "the_files_on_the_prefix_are_untouched" cmp "$scratch/pristine/rank_1.ckpt" "$prefix/ckpt.0/rank_1.ckpt"

# changed after the adoption: same size, one byte different
mpi_lose_all_nodes
mpi_flip_byte "$prefix/ckpt.0/rank_2.ckpt" 12345
mpi_run_program "$app" 4 2 -- "$@"
if [ -z "$(mpi_ranks_without "no restart")" ] && [ "$mpi_status" -ne 0 ]; then
    ok "a_file_changed_after_the_adoption_gives_no_restart"
else
    not_ok "a_file_changed_after_the_adoption_gives_no_restart" "$(mpi_diag)"
fi
if grep -q "ckpt.0/rank_2.ckpt is damaged: CRC32" "$mpi_err"; then
    ok "the_changed_file_is_named_with_its_CRC32_mismatch"
else
    not_ok "the_changed_file_is_named_with_its_CRC32_mismatch" "$(mpi_diag)"
fi
check "the_adopted_checkpoint_is_marked_FAILED" mpi_index_has "DSET/$id/FAILED"

# --global: any rank may read any file; restarted on 1 rank
mpi_reset
mkdir -p "$prefix/input/mesh" || exit 99
head -c 5000 /dev/urandom > "$scratch/a.dat" && head -c 7000 /dev/urandom > "$scratch/b.dat" || exit 99
cp "$scratch/a.dat" "$prefix/input/a.dat" && cp "$scratch/b.dat" "$prefix/input/mesh/b.dat" || exit 99
check "scr_adopt_global_records_the_files_for_one_rank" \
    "$adopt" --prefix "$prefix" --name input --global input
mpi_run_program "$app" 1 1 -- "input/a.dat=$scratch/a.dat" "input/mesh/b.dat=$scratch/b.dat"
mpi_expect_lines "a_global_dataset_restarts_on_1_rank_with_every_byte_right" \
    "restarted from input" "12000 bytes right"
# and on 4 ranks as 2 nodes: every rank reads both files, by path and by name
mpi_lose_all_nodes
mpi_run_program "$app" 4 2 -- "input/a.dat=$scratch/a.dat" "b.dat=$scratch/b.dat"
mpi_expect_lines "a_global_dataset_restarts_on_4_ranks_every_rank_reading_every_file" \
    "restarted from input" "12000 bytes right"

done_testing
