#!/bin/sh
# test_scr31_prefix.sh — a prefix written by SCR 3.1 (tests/data/scr31-prefix-xor4.tar.gz:
# ckpt.1..ckpt.4, 4 ranks on 4 nodes, XOR sets of 4, rank2file maps instead of rank
# filemaps) restarts through libscr with every byte as archived, falls back past a
# damaged dataset, and stays readable by SCR 3.1's rules after our own checkpoint.
# Variants are derived here from the archive: several files per rank, an output
# dataset, damaged maps and files, and a run with PARTNER.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr31
command -v python3 > /dev/null 2>&1 || mpi_skip_all "python3 not found (derives the variants)"

archive=$top_srcdir/tests/data/scr31-prefix-xor4.tar.gz
restart_app=$top_builddir/tests/mpi/scr31_restart_app
kvtree_ref=$top_srcdir/tests/tools/kvtree_ref.py
golden=$scratch/golden   # the archive unpacked once, never written
readback=$scratch/readback         # what the application read back
mkdir "$golden" && tar -xzf "$archive" -C "$golden" || exit 99

# scr31_prefix: an empty cache and a prefix that is the archive's, as SCR 3.1 left it.
scr31_prefix() {
    mpi_reset
    cp -R "$golden/prefix/." "$prefix/" || exit 99
    rm -rf "$readback" && mkdir "$readback" || exit 99
}

# edit_tree FILE PYTHON: rewrite the hash file FILE after PYTHON changed t, its tree
# as nested dicts (every level an object, as kvtree_ref.py dumps it).
edit_tree() {
    python3 "$kvtree_ref" dump "$1" > "$scratch/tree.json" &&
        python3 -c "import json; t = json.load(open('$scratch/tree.json')); $2; json.dump(t, open('$scratch/tree.json', 'w'))" &&
        python3 "$kvtree_ref" write "$scratch/tree.json" "$1" || exit 99
}

# restart RANKS NODES [VAR=VALUE...] -- APP ARGS: one run of the restart app.
restart() {
    _ranks=$1 _nodes=$2
    shift 2
    mpi_run_program "$restart_app" "$_ranks" "$_nodes" "$@"
}

# same_bytes NAME CKPT FILE...: what the app read of CKPT equals the archive's files.
same_bytes() {
    _name=$1 _ckpt=$2 _why=
    shift 2
    for _f in "$@"; do
        for r in 0 1 2 3; do
            _file=$(printf "$_f" "$r")
            cmp "$readback/$_ckpt/$_file" "$prefix/$_ckpt/$_file" > "$scratch/cmp.txt" 2>&1 ||
                _why="$_why$(cat "$scratch/cmp.txt"); "
        done
    done
    if [ -z "$_why" ]; then ok "$_name"; else not_ok "$_name" "$_why"; fi
}

# stderr_says NAME TEXT: the last run said TEXT on stderr.
stderr_says() {
    if grep -qF -- "$2" "$mpi_err"; then ok "$1"; else not_ok "$1" "expected '$2' on stderr
$(mpi_diag)"; fi
}

# --- the archive itself ---------------------------------------------------------

scr31_prefix
restart 4 4 -- "$readback" --checkpoint ckpt.5 'rank_%d.ckpt'
mpi_expect_lines "the_scr31_prefix_restarts_from_ckpt.4_on_4_ranks_as_4_nodes" "restarted from ckpt.4" "done"
same_bytes "every_byte_read_back_equals_the_archived_ckpt.4" ckpt.4 'rank_%d.ckpt'
check "the_restart_said_nothing_was_wrong" eval "! grep -q 'error' '$mpi_err'"
check "the_empty_app.conf_did_not_stop_SCR_Init" test -f "$prefix/.scr/app.conf"
check "ckpt.4_is_recorded_as_fetched" mpi_index_has "DSET/4/FETCHED"
check "our_checkpoint_is_current" mpi_index_has "CURRENT/ckpt.5"
check "the_name_map_scr31_reads_gains_our_checkpoint" mpi_index_has "NAME/ckpt.5/DSET/5"
check "the_name_map_keeps_scr31s_datasets" eval "mpi_index_has NAME/ckpt.1/DSET/1 && mpi_index_has NAME/ckpt.4/DSET/4"
check "our_entry_carries_the_descriptor_where_scr31_looks_with_its_flags" \
    eval "mpi_index_has DSET/5/DSET/FLAG_CKPT/1 && mpi_index_has DSET/5/DSET/FLAG_OUTPUT/0 && mpi_index_has DSET/5/DSET/NAME/ckpt.5"
check "scr31s_entries_keep_their_descriptor" mpi_index_has "DSET/4/DSET/FLAG_CKPT/1"
check "scr31s_summaries_are_left_as_they_were" cmp "$prefix/.scr/scr.dataset.4/summary.scr" "$golden/prefix/.scr/scr.dataset.4/summary.scr"
check "every_record_on_the_prefix_still_reads_after_our_checkpoint" "$mpi_print" \
    "$prefix/.scr/index.scr" "$prefix/.scr/halt.scr" "$prefix/.scr/flush.scr" "$prefix/.scr/nodes.scr" \
    "$prefix/.scr/app.conf" "$prefix/.scr/scr.dataset.5/summary.scr" "$prefix/.scr/scr.dataset.4/rank2file.0.0"
check "scr_index_lists_the_mixed_prefix" eval "'$top_builddir/cli/scr-index' --prefix '$prefix' --list | grep -q 'ckpt.5'"

# the next run restarts from our own checkpoint on the same prefix
rm -rf "$scratch/cache" "$scratch/cntl"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "after_our_checkpoint_the_next_run_restarts_from_it" "restarted from ckpt.5" "done"

# SCR_PREFIX_SIZE trims SCR 3.1's datasets too: their files, records and names
scr31_prefix
restart 4 4 SCR_PREFIX_SIZE=2 -- "$readback" --checkpoint ckpt.5 'rank_%d.ckpt'
mpi_expect_lines "a_run_with_SCR_PREFIX_SIZE_2_restarts_and_checkpoints" "restarted from ckpt.4" "done"
check "the_trimmed_scr31_datasets_lose_their_files_and_directories" \
    eval "[ ! -e '$prefix/ckpt.3' ] && [ ! -e '$prefix/ckpt.1' ] && [ ! -e '$prefix/.scr/scr.dataset.3' ] && [ -f '$prefix/ckpt.4/rank_0.ckpt' ]"
check "the_trimmed_datasets_leave_the_name_map" eval "! mpi_index_has NAME/ckpt.3/DSET/3 && mpi_index_has NAME/ckpt.4/DSET/4"

# --- damage: the restart falls back to ckpt.3 ------------------------------------

scr31_prefix
head -c 4000 "$golden/prefix/ckpt.4/rank_2.ckpt" > "$prefix/ckpt.4/rank_2.ckpt"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "a_truncated_file_of_ckpt.4_makes_the_restart_fall_back_to_ckpt.3" "restarted from ckpt.3" "done"
same_bytes "the_fallback_reads_ckpt.3_byte_for_byte" ckpt.3 'rank_%d.ckpt'
stderr_says "the_truncation_is_reported_against_the_recorded_SIZE" "records SIZE 16418"
check "ckpt.4_is_marked_FAILED" mpi_index_has "DSET/4/FAILED"

scr31_prefix
rm "$prefix/ckpt.4/rank_1.ckpt"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "a_missing_file_of_ckpt.4_makes_the_restart_fall_back_to_ckpt.3" "restarted from ckpt.3" "done"
stderr_says "the_missing_file_is_named" "ckpt.4/rank_1.ckpt of rank 1, listed in its rank2file, cannot be read"

scr31_prefix
edit_tree "$prefix/.scr/scr.dataset.4/rank2file.0.0" "t['RANK']['0']['FILE'] = {'../outside/rank_0.ckpt': {}}"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "a_rank2file_naming_a_file_outside_the_prefix_is_refused" "restarted from ckpt.3" "done"
stderr_says "the_escaping_path_is_named" "'../outside/rank_0.ckpt'"

scr31_prefix
edit_tree "$prefix/.scr/scr.dataset.4/rank2file.0.0" "del t['RANK']['3']"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "a_rank2file_missing_a_rank_is_refused" "restarted from ckpt.3" "done"
stderr_says "the_missing_rank_is_named" "rank 3 of 4 is not listed"

scr31_prefix
rm "$prefix/.scr/scr.dataset.4/rank2file.0.0"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "a_missing_part_of_the_rank2file_is_refused" "restarted from ckpt.3" "done"
stderr_says "the_missing_part_is_named" "rank2file.0.0: a part of the rank2file"

# --- variants ---------------------------------------------------------------------

# ckpt.4 as SCR 3.1 records an output dataset: never offered for a restart
scr31_prefix
edit_tree "$prefix/.scr/index.scr" "d = t['DSET']['4']['DSET']; d['FLAG_CKPT'] = {'0': {}}; d['FLAG_OUTPUT'] = {'1': {}}"
restart 4 4 -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "an_output_dataset_is_not_offered_for_restart" "restarted from ckpt.3" "done"
check "the_output_dataset_was_not_even_tried" eval "! mpi_index_has DSET/4/FAILED && ! grep -q 'restart from ckpt.4' '$mpi_out'"

# ckpt.4 with a second file per rank, listed as SCR 3.1 lists several files
scr31_prefix
for r in 0 1 2 3; do head -c $((700 + r * 13)) "$golden/prefix/ckpt.1/rank_$r.ckpt" > "$prefix/ckpt.4/extra_$r.dat"; done
edit_tree "$prefix/.scr/scr.dataset.4/rank2file.0.0" \
    "[t['RANK'][str(r)]['FILE'].update({'ckpt.4/extra_%d.dat' % r: {}}) for r in range(4)]"
for f in "$prefix/.scr/scr.dataset.4/summary.scr" "$prefix/.scr/index.scr"; do
    edit_tree "$f" "d = t['DSET'] if 'ID' in t['DSET'] else t['DSET']['4']['DSET']; d['FILES'] = {'8': {}}; d['SIZE'] = {str(16418 + 4 * 700 + 13 * 6): {}}"
done
restart 4 4 -- "$readback" 'rank_%d.ckpt' 'extra_%d.dat'
mpi_expect_lines "a_dataset_with_several_files_per_rank_restarts" "restarted from ckpt.4" "done"
same_bytes "every_file_of_every_rank_is_read_back_as_archived" ckpt.4 'rank_%d.ckpt' 'extra_%d.dat'

# the same archive restarted and checkpointed again with PARTNER, 2 ranks a node;
# after both nodes are lost the next run reads our checkpoint back from the prefix
scr31_prefix
restart 4 2 SCR_COPY_TYPE=PARTNER -- "$readback" --checkpoint ckpt.5 'rank_%d.ckpt'
mpi_expect_lines "a_partner_run_restarts_from_the_scr31_prefix" "restarted from ckpt.4" "done"
same_bytes "the_partner_run_reads_ckpt.4_byte_for_byte" ckpt.4 'rank_%d.ckpt'
mpi_lose_all_nodes
restart 4 2 SCR_COPY_TYPE=PARTNER -- "$readback" 'rank_%d.ckpt'
mpi_expect_lines "after_losing_every_node_the_partner_checkpoint_comes_back_from_the_prefix" "restarted from ckpt.5" "done"

# on another number of ranks: 2 ranks read all four ranks' files of ckpt.4,
# and 6 ranks (two of them reading files others read too)
scr31_prefix
restart 2 2 -- "$readback" 'rank_%d.ckpt' 'rank_2.ckpt' 'rank_3.ckpt'
mpi_expect_lines "the_scr31_prefix_restarts_on_2_ranks_reading_every_file" "restarted from ckpt.4" "done"
same_bytes "the_2_ranks_read_ckpt.4_byte_for_byte" ckpt.4 'rank_%d.ckpt'
scr31_prefix
restart 6 3 -- "$readback" 'rank_1.ckpt'
mpi_expect_lines "the_scr31_prefix_restarts_on_6_ranks" "restarted from ckpt.4" "done"

done_testing
