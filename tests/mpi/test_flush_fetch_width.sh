#!/bin/sh
# test_flush_fetch_width.sh — with SCR_FLUSH_WIDTH=1 and SCR_FETCH_WIDTH=1
# the ranks take turns writing to and reading from the prefix; every file
# still arrives intact (the app checks every byte on restart). The flush
# writes its summary in parts of 3 ranks (a test switch, util_testpoint.h):
# two parts for four ranks, which the fetch and scr-index read back; a
# flush whose last part cannot be written takes the other part back, and
# a restart that misses a part falls back to an older checkpoint.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-fetch-width

widths="SCR_FLUSH_WIDTH=1 SCR_FETCH_WIDTH=1"
# shellcheck disable=SC2086 # one word per setting
mpi_run 4 2 SCR_FLUSH=2 $widths SCRTEST_SUMMARY_PART_RANKS=3 -- --steps 4 --files 3 --size 20000 --uneven
mpi_expect_restart "four_ranks_flush_one_at_a_time" 0 4
check "ckpt.4_is_in_the_index" test -n "$(mpi_index_id ckpt.4)"
for r in 0 1 2 3; do
    check "rank${r}'s_files_of_ckpt.4_are_on_the_prefix" test -f "$prefix/ckpt.4/rank${r}_f2.dat"
done

# the summary names two parts: ranks 0 to 2, then rank 3
dsdir=$prefix/.scr/scr.dataset.$(mpi_index_id ckpt.4)
mpi_tree_paths "$dsdir/summary.scr" > "$scratch/top.paths" 2>&1
for p in VERSION/7 RANK2FILE/RANKS/4 RANK2FILE/PARTS/2 RANK2FILE/PART/0/FIRST/0 \
    RANK2FILE/PART/0/RANKS/3 RANK2FILE/PART/1/FIRST/3 RANK2FILE/PART/1/RANKS/1; do
    check "the_summary_of_ckpt.4_has_$p" grep -qx "$p" "$scratch/top.paths"
done
check "the_summary_of_ckpt.4_lists_no_rank_itself" sh -c "! grep -q '^RANK2FILE/RANK/' '$scratch/top.paths'"
ranks_in() {
    mpi_tree_paths "$dsdir/$1" 2> /dev/null | sed -n 's|^RANK2FILE/RANK/\([0-9]*\)$|\1|p' | tr '\n' ' '
}
check "part_0_lists_ranks_0_to_2" test "$(ranks_in summary.0.scr)" = "0 1 2 "
check "part_1_lists_rank_3" test "$(ranks_in summary.1.scr)" = "3 "
check "part_1_lists_rank_3's_files" sh -c "'$mpi_print' '$dsdir/summary.1.scr' | grep -q 'rank3_f2.dat'"
check "no_third_part" test ! -e "$dsdir/summary.2.scr"

# scr-index makes the index again from the summary in parts
index=$top_builddir/cli/scr-index
cp "$prefix/.scr/index.scr" "$scratch/index.kept"
rm "$prefix/.scr/index.scr"
check "scr-index_rebuilds_the_index_from_the_parts" "$index" --rebuild-index --prefix "$prefix"
"$index" --list --prefix "$prefix" > "$scratch/list" 2>&1
check "scr-index_lists_ckpt.4" grep -q "ckpt.4" "$scratch/list"
cp "$scratch/index.kept" "$prefix/.scr/index.scr"

mpi_lose_all_nodes
# shellcheck disable=SC2086
mpi_run 4 2 SCR_FLUSH=2 $widths -- --steps 4 --files 3 --size 20000 --uneven
mpi_expect_restart "four_ranks_fetch_one_at_a_time_and_restart_from_ckpt.4" 4

# a run with the default widths reads what width 1 wrote
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=2 -- --steps 4 --files 3 --size 20000 --uneven
mpi_expect_restart "the_default_widths_read_the_same_checkpoint" 4

# the writer of the last part fails: the flush fails, part 0 is taken back
# with the rest of the attempt, and no summary calls ckpt.5 flushed
summaries() { (cd "$prefix/.scr" && find . -name 'summary*.scr' | sort); }
summaries > "$scratch/summaries.before"
mpi_run 4 2 SCR_FLUSH=1 SCRTEST_SUMMARY_PART_RANKS=3 SCRTEST_SUMMARY_PART_FAIL=last -- \
    --steps 5 --files 3 --size 20000 --uneven
check "a_failed_part:_its_writer_says_so" \
    grep -q "test point: not writing $prefix/.scr/scr.dataset.[0-9]*/summary.1.scr" "$mpi_err"
check "a_failed_part:_ckpt.5_is_not_in_the_index" test -z "$(mpi_index_id ckpt.5)"
check "a_failed_part:_ckpt.4_stays_in_the_index" test -n "$(mpi_index_id ckpt.4)"
summaries > "$scratch/summaries.after"
check "a_failed_part:_the_part_written_is_taken_back_and_no_summary_is_written" \
    cmp "$scratch/summaries.before" "$scratch/summaries.after"

# the restart fetches each part's lists from the part's first rank: with
# the part of rank 3 gone, ckpt.4 fails to load, rank 3 says why, and the
# restart falls back to ckpt.2, also written in parts
rm "$dsdir/summary.1.scr"
mpi_lose_all_nodes
mpi_run 4 2 -- --steps 2 --files 3 --size 20000 --uneven
mpi_expect_restart "a_missing_part:_the_restart_falls_back_to_ckpt.2" 2
check "a_missing_part:_its_reader_names_it" \
    grep -q "$dsdir/summary.1.scr: part 1 of the summary of dataset [0-9]* (ranks 3 to 3) is missing" "$mpi_err"

done_testing
