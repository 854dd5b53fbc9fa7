#!/bin/sh
# test_scr_index_scr31.sh — the commands on a prefix SCR 3.1 wrote
# (tests/data/scr31-prefix-xor4.tar.gz): scr-index lists it (table and JSON),
# sets the current dataset and drops one while keeping SCR 3.1's NAME map in
# step; scr-print and scr-halt read its records (the empty app.conf too); a
# damaged index, name map or app.conf is refused with the file and the fault;
# an index rebuilt from its summaries lists complete only the datasets whose
# files are all there.
. "$top_srcdir/tests/tap.sh"

index="$top_builddir/cli/scr-index"
print="$top_builddir/cli/scr-print"
halt="$top_builddir/cli/scr-halt"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
archive="$top_srcdir/tests/data/scr31-prefix-xor4.tar.gz"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-index-scr31.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX
py=${PYTHON3:-python3}

# fresh: $tmp/prefix is the archive's prefix again
fresh() {
    rm -rf "$tmp/prefix" && tar -xzf "$archive" -C "$tmp" || exit 99
    p=$tmp/prefix
}

# run CMD ARGS...: sets $status, output in $tmp/out and $tmp/err
run() {
    "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}

# tree_has FILE PYTHON-EXPRESSION: the expression holds of t, FILE's tree as nested dicts
tree_has() {
    "$py" "$ref" dump "$1" > "$tmp/tree.json" &&
        "$py" -c "import json, sys; t = json.load(open('$tmp/tree.json')); sys.exit(0 if ($2) else 1)"
}

# edit_tree FILE PYTHON: rewrite the hash file FILE after PYTHON changed t
edit_tree() {
    "$py" "$ref" dump "$1" > "$tmp/tree.json" &&
        "$py" -c "import json; t = json.load(open('$tmp/tree.json')); $2; json.dump(t, open('$tmp/tree.json', 'w'))" &&
        "$py" "$ref" write "$tmp/tree.json" "$1" || exit 99
}

# refused NAME PATTERN CMD ARGS...: CMD fails, its stderr matches PATTERN
refused() {
    name=$1 pattern=$2
    shift 2
    run "$@"
    if [ $status -ne 0 ] && grep -q -e "$pattern" "$tmp/err"; then ok "$name"; else
        not_ok "$name" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi
}

# --- listing ----------------------------------------------------------------------
fresh
run "$index" --prefix "$p" --list
if [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(grep -c 'checkpoint  yes' "$tmp/out")" -eq 4 ] &&
   grep -q '^\*  4  ckpt.4 ' "$tmp/out"; then
    ok "the_scr31_index_is_listed_with_its_four_checkpoints_and_ckpt.4_current"
else
    not_ok "the_scr31_index_is_listed_with_its_four_checkpoints_and_ckpt.4_current" "$(cat "$tmp/out" "$tmp/err")"
fi
check "the_listing_shows_scr31s_size_and_flush_time" grep -q '2026-11-24T20:26:43  16.0 KiB      4' "$tmp/out"
run "$index" --prefix "$p" --list --json
check "the_json_listing_has_the_four_datasets_and_the_current_one" "$py" -c "
import json, sys
j = json.load(open('$tmp/out'))
sys.exit(0 if j['current'] == 'ckpt.4' and [d['name'] for d in j['datasets']] == ['ckpt.4', 'ckpt.3', 'ckpt.2', 'ckpt.1']
         and all(d['checkpoint'] and not d['output'] and d['size'] == 16418 for d in j['datasets']) else 1)"
check "listing_changes_nothing" cmp "$p/.scr/index.scr" "$tmp/prefix/.scr/index.scr"

# --- changes keep SCR 3.1's keys ------------------------------------------------------
run "$index" --prefix "$p" --current ckpt.2
check "current_can_be_set_on_the_scr31_index" test $status -eq 0
check "the_index_names_ckpt.2_current_and_keeps_the_name_map" tree_has "$p/.scr/index.scr" \
    "t['CURRENT'] == {'ckpt.2': {}} and sorted(t['NAME']) == ['ckpt.1', 'ckpt.2', 'ckpt.3', 'ckpt.4']"
run "$index" --prefix "$p" --drop ckpt.3
check "a_dataset_can_be_dropped_from_the_scr31_index" test $status -eq 0
check "the_dropped_dataset_leaves_the_name_map_and_the_entries" tree_has "$p/.scr/index.scr" \
    "sorted(t['NAME']) == ['ckpt.1', 'ckpt.2', 'ckpt.4'] and '3' not in t['DSET'] and t['NAME']['ckpt.4'] == {'DSET': {'4': {}}}"
check "scr31s_descriptors_stay_where_scr31_reads_them" tree_has "$p/.scr/index.scr" \
    "all(t['DSET'][i]['DSET']['FLAG_CKPT'] == {'1': {}} for i in ('1', '2', '4'))"
check "the_dropped_datasets_files_stay" test -f "$p/ckpt.3/rank_0.ckpt"
run "$index" --prefix "$p" --list
check "the_changed_index_lists_again" eval "[ $status -eq 0 ] && grep -q '^\*  2  ckpt.2 ' '$tmp/out' && ! grep -q ckpt.3 '$tmp/out'"

# an output dataset as SCR 3.1 records it is listed as output and cannot become current
fresh
edit_tree "$p/.scr/index.scr" "d = t['DSET']['4']['DSET']; d['FLAG_CKPT'] = {'0': {}}; d['FLAG_OUTPUT'] = {'1': {}}"
run "$index" --prefix "$p" --list
check "an_scr31_output_dataset_is_listed_as_output" grep -q '  4  ckpt.4  output' "$tmp/out"
refused "an_scr31_output_dataset_cannot_become_current" "ckpt.4.*output" "$index" --prefix "$p" --current ckpt.4

# --- damage is refused, naming the file and the fault ------------------------------------
fresh
edit_tree "$p/.scr/index.scr" "t['NAME']['ckpt.9'] = {'DSET': {'9': {}}}"
refused "a_name_map_entry_for_an_absent_dataset_is_refused" "index.scr: key NAME ckpt.9 DSET names dataset 9, which the index does not hold" \
    "$index" --prefix "$p" --list
fresh
edit_tree "$p/.scr/index.scr" "t['NAME']['ckpt.3'] = {'DSET': {'2': {}}}"
refused "a_name_map_entry_disagreeing_with_its_dataset_is_refused" "key NAME ckpt.3 DSET names dataset 2, which is called 'ckpt.2'" \
    "$index" --prefix "$p" --list
fresh
edit_tree "$p/.scr/index.scr" "t['DSET']['3']['DSET']['ID'] = {'7': {}}"
refused "an_scr31_descriptor_with_another_id_is_refused" "key DSET 3 DSET ID holds '7'" "$index" --prefix "$p" --list
fresh
edit_tree "$p/.scr/index.scr" "t['DSET']['3']['DSET']['FLAG_CKPT'] = {'yes': {}}"
refused "a_garbled_flag_is_refused" "key DSET 3 DSET FLAG_CKPT holds 'yes'" "$index" --prefix "$p" --list
fresh
head -c 100 "$tmp/prefix/.scr/index.scr" > "$tmp/short" && mv "$tmp/short" "$p/.scr/index.scr"
refused "a_truncated_scr31_index_is_refused" "index.scr: size field says 1327 bytes but the file has 100" "$index" --prefix "$p" --list
check "the_truncated_index_is_left_as_it_was" test "$(wc -c < "$p/.scr/index.scr")" -eq 100

# --- an index rebuilt from SCR 3.1's summaries checks their files -------------------------
# SCR 3.1 records no size per file: a file its rank2file lists is missing, or
# the files no longer add up to the descriptor's SIZE
fresh
rm "$p/.scr/index.scr" "$p/ckpt.3/rank_1.ckpt"
head -c 10 "$p/ckpt.2/rank_0.ckpt" > "$tmp/short" && mv "$tmp/short" "$p/ckpt.2/rank_0.ckpt"
run "$index" --prefix "$p" --rebuild-index
check "a_rebuild_lists_scr31_datasets_with_a_file_missing_or_short_as_incomplete" \
    sh -c "test $status -eq 0 && grep -q '^\*  4  ckpt.4  checkpoint  yes ' '$tmp/out' && grep -q '^   3  ckpt.3  checkpoint  no ' '$tmp/out' &&
           grep -q '^   2  ckpt.2  checkpoint  no ' '$tmp/out' && grep -q '^   1  ckpt.1  checkpoint  yes ' '$tmp/out'"
check "a_rebuild_names_the_missing_scr31_file" grep -qF "ckpt.3 (dataset 3) is indexed incomplete: its summary records files that are not on the prefix as recorded: $p/ckpt.3/rank_1.ckpt is missing" "$tmp/err"
check "a_rebuild_names_the_scr31_dataset_whose_bytes_do_not_add_up" \
    grep -qF "ckpt.2 (dataset 2) is indexed incomplete: its summary records files that are not on the prefix as recorded: $p/.scr/scr.dataset.2: its files hold" "$tmp/err"

# --- the other records --------------------------------------------------------------------
fresh
run "$print" "$p/.scr/app.conf"
check "the_empty_app.conf_is_read_as_no_settings" eval "[ $status -eq 0 ] && [ ! -s '$tmp/out' ] && [ ! -s '$tmp/err' ]"
printf 'SCR_CACHE_BYPASS\n' > "$p/.scr/app.conf"
refused "a_damaged_app.conf_is_refused_naming_file_and_line" "app.conf:1: key 'SCR_CACHE_BYPASS'" "$print" "$p/.scr/app.conf"
printf '\225\037\303\365\000\001' > "$p/.scr/app.conf"
refused "a_truncated_hash_app.conf_is_refused" "app.conf: truncated hash file" "$print" "$p/.scr/app.conf"
fresh
run "$print" "$p/.scr/flush.scr" "$p/.scr/halt.scr" "$p/.scr/nodes.scr" "$p/.scr/scr.dataset.4/summary.scr" \
    "$p/.scr/scr.dataset.4/rank2file" "$p/.scr/scr.dataset.4/rank2file.0.0"
check "scr_print_reads_every_scr31_record" test $status -eq 0
run "$halt" --list "$p"
check "scr_halt_reads_scr31s_halt_file" eval "[ $status -eq 0 ] && grep -q 'ExitReason *SCR_FINALIZE_CALLED' '$tmp/out'"

done_testing
