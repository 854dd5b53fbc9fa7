#!/bin/sh
# test_scavenge.sh — scr-scavenge and scr-index --add: a checkpoint left in
# cache reaches the prefix without MPI, and what is lost is rebuilt there.
#
# For XOR, RS (4 members, 2 failures) and PARTNER: 8 ranks on 4 simulated
# nodes write two checkpoints with SCR_FLUSH=0 (nothing on the prefix), then
# every surviving node is scavenged with scr-scavenge and the dataset is
# indexed with scr-index --add. Files deleted on the prefix, or a node whose
# cache is gone, are rebuilt byte for byte (compared with a saved copy, and
# read back by a restart from the prefix, which checks every byte); a loss
# beyond the scheme is indexed incomplete, naming the ranks, and a restart
# does not use it. Redundancy data damaged on the prefix (XOR, RS) is found
# by the CRCs recorded for the files a rebuild makes from it: the dataset is
# not indexed complete, and the file is named.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scavenge

scavenge=$top_builddir/cli/scr-scavenge
index=$top_builddir/cli/scr-index
write_args="--steps 2 --files 2 --size 9000 --uneven --no-files 1"
restart_args="--steps 3 --files 2 --size 9000 --uneven --no-files 1"
common="SCR_FLUSH=0 SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=4096 SCR_MPI_BUF_SIZE=4096"
dset=$prefix/.scr/scr.dataset.2

# write TYPE: two checkpoints in cache, none on the prefix; a copy of the caches
write() {
    mpi_reset
    # shellcheck disable=SC2086 # the settings are meant to be split
    mpi_run 8 4 $common SCR_COPY_TYPE="$1" -- $write_args
    mpi_expect_restart "$1_writes_two_checkpoints_in_cache" 0 2
    rm -rf "$scratch/saved" && mkdir "$scratch/saved" && cp -a "$scratch/cache" "$scratch/cntl" "$scratch/saved/"
}

# put the caches back, empty the prefix
restore() {
    rm -rf "$scratch/cache" "$scratch/cntl" "$prefix" &&
        cp -a "$scratch/saved/cache" "$scratch/saved/cntl" "$scratch/" && mkdir "$prefix" && cd "$prefix" || exit 99
}

# scavenge_nodes NAME "NODES" [OPTIONS...]: scr-scavenge on each node
scavenge_nodes() {
    _name=$1 _nodes=$2
    shift 2
    _failed=
    for _n in $_nodes; do
        "$scavenge" --node "node$_n" "$@" > "$scratch/scavenge.out" 2> "$scratch/scavenge.err" ||
            _failed="$_failed node$_n: $(cat "$scratch/scavenge.err")"
    done
    if [ -z "$_failed" ]; then ok "$_name"; else not_ok "$_name" "$_failed"; fi
}

# index_add NAME STATUS: scr-index --add of dataset 2 exits with STATUS
index_add() {
    _name=$1 _want=$2
    shift 2
    "$index" --add scr.dataset.2 "$@" > "$scratch/index.out" 2> "$scratch/index.err"
    _status=$?
    if [ "$_status" -eq "$_want" ]; then ok "$_name"; else
        not_ok "$_name" "exit status $_status, expected $_want
$(cat "$scratch/index.out" "$scratch/index.err")"
    fi
}

# same_as_saved NAME: the application files equal the copy kept before the damage
same_as_saved() {
    check "$1" diff -r "$scratch/prefix-saved/ckpt.2" "$prefix/ckpt.2"
}

# the XOR and RS files of the dataset equal the saved ones
same_redundancy_files() {
    for _f in "$scratch/prefix-saved/.scr/scr.dataset.2/"*.xor "$scratch/prefix-saved/.scr/scr.dataset.2/"*.rs; do
        [ -e "$_f" ] || continue
        cmp "$_f" "$dset/$(basename "$_f")" || return 1
    done
}

# restart_from_prefix NAME STEP: caches gone, a restart resumes from STEP
restart_from_prefix() {
    mpi_lose_all_nodes
    # shellcheck disable=SC2086
    mpi_run 8 4 $common -- $restart_args
    mpi_expect_restart "$1" "$2" 3
}

# index_complete_current NAME: dataset 2 is indexed complete and current
index_complete_current() {
    check "$1" sh -c "'$mpi_print' '$prefix/.scr/index.scr' | tr -s ' \n' ' ' | grep -q 'CURRENT ckpt.2 DSET 2 COMPLETE 1'"
}

files_of_rank() {
    find "$prefix/ckpt.2" -name "rank$1_f*.dat"
}

# redundancy_file_of RANK: the XOR or RS file its rank filemap lists
redundancy_file_of() {
    "$mpi_print" "$dset/$1.scrfilemap" | grep -o '[0-9]*_of_[0-9]*_in_[0-9]*\.\(xor\|rs\)' | head -n 1
}

# the length of a redundancy file's header: bytes 8-15, big-endian
header_size() {
    od -An -tu1 -j8 -N8 "$1" | awk '{ n = 0; for (i = 1; i <= NF; i++) n = n * 256 + $i; print n }'
}

# damaged_redundancy_data TYPE: rank 5's files deleted from the saved prefix,
# and one byte of the redundancy data of rank 7 (a member of the same set)
# inverted. With --no-crc the survivors' files are taken as they are, so
# only the CRCs recorded for rank 5's files can tell that what the rebuild
# made of them is wrong; nothing rebuilt may take its final name.
damaged_redundancy_data() {
    rm -rf "$prefix" && cp -a "$scratch/prefix-saved" "$prefix" && cd "$prefix" || exit 99
    _lost=$(redundancy_file_of 5) _damaged=$(redundancy_file_of 7)
    check "$1_ranks_5_and_7_share_a_redundancy_set" test -n "$_lost" -a "${_lost##*_in_}" = "${_damaged##*_in_}"
    rm -f $(files_of_rank 5)
    mpi_flip_byte "$dset/$_damaged" $(($(header_size "$dset/$_damaged") + 10))
    index_add "$1_index_add_no_crc_refuses_a_rebuild_from_damaged_redundancy_data" 3 --no-crc
    check "$1_the_file_whose_rebuilt_CRC_differs_is_named" grep -qE \
        "(ckpt\.2/rank5_f[01]\.dat|/$_lost): the rebuilt file has CRC32 0x[0-9a-f]{8}, 0x[0-9a-f]{8} recorded; the redundancy data is damaged" \
        "$scratch/index.err"
    check "$1_the_dataset_is_indexed_incomplete" \
        sh -c "'$mpi_print' '$prefix/.scr/index.scr' | tr -s ' \n' ' ' | grep -q 'DSET 2 COMPLETE 0 .*MISSING 5'"
    check "$1_no_rebuilt_file_of_rank_5_takes_its_final_name" test -z "$(files_of_rank 5)"
}

# --- one case per scheme ------------------------------------------------------------

for type in XOR RS PARTNER; do
    write "$type"
    restore
    "$scavenge" --node node0 --status > "$scratch/status.out"
    check "${type}_status_says_the_newest_dataset_needs_a_copy" test $? -eq 0
    check "${type}_status_names_dataset_2" grep -q "dataset 2 (ckpt.2): needs a copy" "$scratch/status.out"
    # PARTNER keeps a second copy on the prefix only when asked
    if [ "$type" = PARTNER ]; then extra="--failed-ranks=5"; else extra=; fi
    # what SCR_Config set for the next run, damaged, does not stop a scavenge
    if [ "$type" = XOR ]; then mkdir -p "$prefix/.scr" && echo SCR_CACHE_BYPASS > "$prefix/.scr/app.conf"; fi
    # shellcheck disable=SC2086
    scavenge_nodes "${type}_every_node_is_scavenged" "0 1 2 3" $extra
    if [ "$type" = XOR ]; then
        check "a_damaged_app.conf_is_named_and_passed_over_by_the_scavenge" \
            grep -q "app.conf.*going on without\|going on without the SCR_Config settings" "$scratch/scavenge.err"
        rm -f "$prefix/.scr/app.conf"
    fi
    check "${type}_scavenge_writes_a_rank_filemap_per_rank" test "$(ls "$dset"/*.scrfilemap | wc -l)" -eq 8
    rm -rf "$scratch/prefix-saved" && cp -a "$prefix" "$scratch/prefix-saved"
    if [ "$type" = RS ]; then lost="2 4"; else lost=5; fi
    for r in $lost; do rm -f $(files_of_rank "$r"); done
    index_add "${type}_index_add_rebuilds_deleted_files" 0
    same_as_saved "${type}_rebuilt_files_are_byte_exact"
    index_complete_current "${type}_dataset_is_indexed_complete_and_current"
    check "${type}_summary_written" test -f "$dset/summary.scr"
    restart_from_prefix "${type}_restart_reads_the_rebuilt_dataset_from_the_prefix" 2
    [ "$type" = PARTNER ] || damaged_redundancy_data "$type"

    # a node whose cache is gone: its ranks come from the redundancy data
    restore
    # from another directory and without --prefix: the prefix the runs recorded
    cd "$scratch" || exit 99
    scavenge_nodes "${type}_three_nodes_are_scavenged" "0 2 3" --failed-nodes=node1
    check "${type}_scavenge_elsewhere_goes_to_the_recorded_prefix" test ! -e "$scratch/.scr" -a -d "$dset"
    cd "$prefix" || exit 99
    check "${type}_lost_node_leaves_no_rank_filemaps" test ! -e "$dset/2.scrfilemap"
    index_add "${type}_index_add_rebuilds_a_lost_node" 0
    check "${type}_lost_node_gets_rank_filemaps" test -f "$dset/2.scrfilemap" -a -f "$dset/3.scrfilemap"
    same_as_saved "${type}_lost_node_rebuilt_byte_exact"
    check "${type}_lost_node_redundancy_files_rebuilt_byte_exact" same_redundancy_files
    restart_from_prefix "${type}_restart_after_a_lost_node_scavenge" 2

    # a loss beyond the scheme
    restore
    # (PARTNER: node2 holds node1's copies, so only node0's ranks are lost)
    case $type in
    RS) survivors=3 lost_ranks="0 1 2 3 4 5" ;;
    XOR) survivors="2 3" lost_ranks="0 1 2 3" ;;
    PARTNER) survivors="2 3" lost_ranks="0 1" ;;
    esac
    scavenge_nodes "${type}_surviving_nodes_are_scavenged" "$survivors" --failed-nodes=node0,node1,node2
    index_add "${type}_too_many_losses_index_incomplete" 3
    check "${type}_index_add_names_the_lost_ranks" grep -q "are lost: $lost_ranks\$" "$scratch/index.out"
    check "${type}_index_lists_it_incomplete" sh -c "'$mpi_print' '$prefix/.scr/index.scr' | tr -s ' \n' ' ' | grep -q 'DSET 2 COMPLETE 0'"
    check "${type}_index_records_the_missing_ranks" sh -c "'$mpi_print' '$prefix/.scr/index.scr' | tr -s ' \n' ' ' | grep -q 'MISSING $lost_ranks'"
    rm -rf "$scratch/prefix-incomplete" && cp -a "$prefix" "$scratch/prefix-incomplete"
    restart_from_prefix "${type}_restart_does_not_use_an_incomplete_dataset" 0

    # node1 comes back: --build completes the indexed dataset
    restore
    rm -rf "$prefix" && cp -a "$scratch/prefix-incomplete" "$prefix" && cd "$prefix" || exit 99
    scavenge_nodes "${type}_a_returning_node_is_scavenged" 1 --failed-nodes=node0
    "$index" --build 2 > "$scratch/index.out" 2>&1
    check "${type}_index_build_completes_the_dataset" test $? -eq 0
    index_complete_current "${type}_built_dataset_is_complete_and_current"
    check "${type}_built_dataset_has_no_missing_ranks" sh -c "! '$mpi_print' '$prefix/.scr/index.scr' | grep -q MISSING"
    "$index" --build 2 --no-crc > "$scratch/index.out" 2>&1
    check "${type}_index_build_of_a_complete_dataset_trusting_sizes_does_nothing" grep -q "is complete; nothing to rebuild" "$scratch/index.out"
    "$index" --build 2 > "$scratch/index.out" 2>&1
    check "${type}_index_build_of_a_complete_dataset_checks_it_and_finds_it_complete" test $? -eq 0
    restart_from_prefix "${type}_restart_reads_the_built_dataset" 2
done

# --- a damaged XOR file in cache is found by its CRC ---------------------------------
write XOR
restore
xor=$(find "$scratch/cache/node2" -path '*scr.dataset.2*' -name '*.xor' | head -1)
mpi_flip_byte "$xor" 300
"$scavenge" --node node2 > "$scratch/scavenge.out" 2> "$scratch/scavenge.err"
check "a_damaged_XOR_file_fails_the_scavenge_of_its_node" test $? -eq 1
check "the_damaged_XOR_file_is_named" grep -q "$(basename "$xor") is damaged in cache" "$scratch/scavenge.err"
scavenge_nodes "the_other_nodes_are_scavenged" "0 1 3"
index_add "index_add_rebuilds_the_damaged_XOR_file" 0
check "the_rebuilt_XOR_file_is_on_the_prefix" test -f "$dset/$(basename "$xor")"
restart_from_prefix "restart_after_rebuilding_a_damaged_XOR_file" 2

# damage on the prefix is found with --crc
restore
scavenge_nodes "every_node_is_scavenged_again" "0 1 2 3"
cp -a "$prefix" "$scratch/prefix-saved-crc"
f=$(files_of_rank 6 | head -1)
mpi_flip_byte "$f" 10
index_add "index_add_crc_rebuilds_a_damaged_file" 0 --crc
check "the_damaged_file_is_rebuilt_byte_exact" cmp "$scratch/prefix-saved-crc/ckpt.2/$(basename "$f")" "$f"

# --- command-line behaviour ---------------------------------------------------------
"$scavenge" --node node9 > "$scratch/scavenge.out" 2>&1
check "scavenge_of_a_node_without_cache_exits_3" test $? -eq 3
"$scavenge" --node node0 --id 99 > "$scratch/scavenge.out" 2>&1
check "scavenge_of_an_unknown_id_exits_3" test $? -eq 3
check "scavenge_of_an_unknown_id_says_so" grep -q "dataset 99 is not in the cache" "$scratch/scavenge.out"
"$scavenge" --failed-ranks=3,x > "$scratch/scavenge.out" 2>&1
check "scavenge_refuses_a_bad_rank_list_with_status_2" test $? -eq 2
check "scavenge_names_the_bad_rank_list" grep -q "not '3,x'" "$scratch/scavenge.out"
"$scavenge" --help > "$scratch/scavenge.out" 2>&1
check "scavenge_help_lists_its_options" grep -q -- "--failed-nodes" "$scratch/scavenge.out"
"$index" --add scr.dataset.2 --build 2 > "$scratch/index.out" 2>&1
check "index_refuses_two_actions_with_status_2" test $? -eq 2
"$index" --add scr.dataset.77 > "$scratch/index.out" 2>&1
check "index_add_of_a_missing_directory_fails" test $? -eq 1
check "index_add_of_a_missing_directory_names_it" grep -q "scr.dataset.77" "$scratch/index.out"
"$index" --build 99 > "$scratch/index.out" 2>&1
check "index_build_of_an_unknown_id_fails" test $? -eq 1
check "index_build_of_an_unknown_id_says_so" grep -q "dataset 99 is not in the index" "$scratch/index.out"

# --- a second scavenge of a node skips what the first copied ---------------------------
# the flush file of a node is marked as after a flush (PFS) by a complete copy
# of that node's part, and only of that node's
restore
scavenge_nodes "each_node_is_scavenged_once" "0 1 2 3"
flush0=$(find "$scratch/cntl/node0" -name flush.scr)
check "a_complete_copy_marks_the_dataset_on_the_prefix_in_the_flush_file" \
    test "$(mpi_tree_paths "$flush0" | grep '^DSET/2/LOCATION/' | sort | tr '\n' ' ')" = \
    "DSET/2/LOCATION/CACHE DSET/2/LOCATION/PFS "
gone=$(files_of_rank 0 | head -1)
rm -f "$gone"
"$scavenge" --node node0 > "$scratch/scavenge.out" 2> "$scratch/scavenge.err"
check "a_second_scavenge_exits_0" test $? -eq 0
check "a_second_scavenge_says_on_the_prefix_already" \
    grep -q "^dataset 2 is on the prefix already" "$scratch/scavenge.out"
check "a_second_scavenge_copies_nothing" test ! -e "$gone"
"$scavenge" --node node0 --status > "$scratch/status.out"
check "status_after_a_scavenge_says_on_the_prefix_already" \
    grep -q "dataset 2 (ckpt.2): on the prefix already" "$scratch/status.out"
"$scavenge" --node node0 --force > "$scratch/scavenge.out" 2> "$scratch/scavenge.err"
check "force_copies_again" test $? -eq 0 -a -f "$gone"
check "force_says_what_it_copied" grep -q "^dataset 2: 4 file(s)" "$scratch/scavenge.out"
# a node whose copy failed is not marked: it is tried again
restore
"$scavenge" --node node1 > /dev/null 2>&1
mpi_flip_byte "$(find "$scratch/cache/node2" -path '*scr.dataset.2*' -name '*.xor' | head -1)" 300
"$scavenge" --node node2 > /dev/null 2>&1
"$scavenge" --node node2 > "$scratch/scavenge.out" 2> "$scratch/scavenge.err"
check "a_node_whose_copy_failed_is_copied_again" test $? -eq 1
"$scavenge" --node node3 --status > "$scratch/status.out"
check "a_node_not_scavenged_still_needs_a_copy" grep -q "needs a copy" "$scratch/status.out"
"$scavenge" --node node1 --status > "$scratch/status.out"
check "a_scavenged_node_beside_it_is_on_the_prefix" grep -q "on the prefix already" "$scratch/status.out"
# a forced copy that fails clears the mark
restore
"$scavenge" --node node2 > /dev/null 2>&1
mpi_flip_byte "$(find "$scratch/cache/node2" -path '*scr.dataset.2*' -name '*.xor' | head -1)" 300
"$scavenge" --node node2 --force > /dev/null 2>&1
"$scavenge" --node node2 --status > "$scratch/status.out"
check "a_forced_copy_that_fails_clears_the_mark" grep -q "needs a copy" "$scratch/status.out"

done_testing
