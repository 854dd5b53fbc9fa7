#!/bin/sh
# test_scr_index_edit.sh — scr-index --current, --drop and --drop-after on a
# copy of the golden index: each with good and bad input, a prefix without
# an index, a damaged index (a clear message, the file left as it was) and
# usage errors. In the golden index only ckpt.3 is a restartable checkpoint:
# ckpt.12 is incomplete, ckpt.9 and ckpt.6 failed a fetch, viz.4 is output.
. "$top_srcdir/tests/tap.sh"

index="$top_builddir/cli/scr-index"
data="$top_srcdir/tests/data/index"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-index-edit-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX
p=$tmp/prefix
file=$p/.scr/index.scr

# fresh: $p with a copy of the golden index
fresh() {
    rm -rf "$p" && mkdir -p "$p/.scr" && cp "$data/index.scr" "$file"
}

run() {
    "$index" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}

# ids: the ids left in the index, newest first; current: the marked name
ids() {
    "$index" --prefix "$p" | awk 'NR > 1 { print ($1 == "*") ? $2 : $1 }' | tr '\n' ' '
}
current() {
    "$index" --prefix "$p" | awk '$1 == "*" { print $3 }'
}

# changed NAME IDS CURRENT ARGS...: scr-index ARGS on $p exits 0 and leaves
# the datasets IDS with CURRENT marked
changed() {
    name=$1 want_ids=$2 want_current=$3
    shift 3
    run --prefix "$p" "$@"
    got="$(ids)|$(current)"
    if [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$got" = "$want_ids|$want_current" ]; then
        ok "$name"
    else
        not_ok "$name" "status $status, got '$got', expected '$want_ids|$want_current': $(cat "$tmp/out" "$tmp/err")"
    fi
}

# refused NAME STATUS PATTERN ARGS...: scr-index ARGS exits with STATUS,
# prints nothing on stdout, its first line on stderr matches PATTERN, and
# the index is byte for byte what it was
refused() {
    name=$1 want_status=$2 pattern=$3
    shift 3
    cp "$file" "$tmp/before"
    run "$@"
    if [ $status -eq "$want_status" ] && [ ! -s "$tmp/out" ] &&
       head -n 1 "$tmp/err" | grep -q -e "$pattern" && cmp -s "$tmp/before" "$file"; then
        ok "$name"
    else
        not_ok "$name" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi
}

# --- --current ---------------------------------------------------------------------------
fresh
changed "current_makes_a_complete_checkpoint_current" "12 9 6 4 3 " ckpt.3 --current=ckpt.3
check "current_says_what_it_did" grep -q "^ckpt.3 is now the current dataset of $p$" "$tmp/out"
changed "current_short_form" "12 9 6 4 3 " ckpt.3 -c ckpt.3
refused "current_of_an_incomplete_checkpoint_is_refused" 1 \
    "scr-index: error: $file: dataset 'ckpt.12' cannot be current: it is not complete" --prefix "$p" --current ckpt.12
refused "current_of_output_is_refused" 1 "dataset 'viz.4' cannot be current: it is output, not a checkpoint" \
    --prefix "$p" --current viz.4
refused "current_of_a_checkpoint_that_failed_to_load_is_refused" 1 \
    "dataset 'ckpt.9' cannot be current: it failed to load in an earlier restart" --prefix "$p" --current ckpt.9
refused "current_of_an_unknown_name_is_refused_naming_it" 1 \
    "scr-index: error: $file: no dataset named 'ckpt.7'" --prefix "$p" --current ckpt.7

# --- --drop -------------------------------------------------------------------------------------
fresh
changed "drop_removes_one_entry" "12 6 4 3 " ckpt.6 --drop=ckpt.9
check "drop_says_the_files_stay" grep -q "^dropped ckpt.9 from the index of $p (its files stay)$" "$tmp/out"
changed "drop_of_the_current_dataset_clears_current" "12 4 3 " "" -d ckpt.6
refused "drop_of_an_unknown_name_is_refused_naming_it" 1 "no dataset named 'ckpt.9'" --prefix "$p" --drop ckpt.9

# --- --drop-after ------------------------------------------------------------------------------
fresh
changed "drop_after_removes_every_newer_entry" "4 3 " "" --drop-after viz.4
check "drop_after_counts_what_it_dropped" grep -q "^dropped 3 datasets newer than viz.4" "$tmp/out"
changed "drop_after_the_newest_drops_nothing" "4 3 " "" --drop-after=viz.4
check "drop_after_says_0_dropped" grep -q "^dropped 0 datasets newer than viz.4" "$tmp/out"
refused "drop_after_an_unknown_name_is_refused_naming_it" 1 "no dataset named 'ckpt.12'" \
    --prefix "$p" --drop-after ckpt.12

# --- no index, a damaged index --------------------------------------------------------------------
mkdir -p "$tmp/bare"
for action in --current --drop --drop-after; do
    run --prefix "$tmp/bare" "$action" ckpt.3
    if [ $status -eq 1 ] && grep -q "^scr-index: error: $tmp/bare has no index (no .scr/index.scr)" "$tmp/err" &&
       [ ! -e "$tmp/bare/.scr" ]; then
        ok "${action#--}_on_a_prefix_without_index_is_refused_and_creates_nothing"
    else
        not_ok "${action#--}_on_a_prefix_without_index_is_refused_and_creates_nothing" "status $status: $(cat "$tmp/err")"
    fi
done

fresh
size=$(wc -c < "$file")
head -c $((size - 7)) "$data/index.scr" > "$file"
for action in --current --drop --drop-after; do
    refused "${action#--}_on_a_truncated_index_is_refused_naming_the_file" 1 \
        "^scr-index: error: $file: .*truncated" --prefix "$p" "$action" ckpt.3
done
fresh
flip_byte() { # invert byte $2 of file $1
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %03o $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}
flip_byte "$file" 40
refused "drop_on_an_index_with_a_flipped_byte_is_refused" 1 "^scr-index: error: $file: " --prefix "$p" --drop ckpt.3

# --- usage --------------------------------------------------------------------------------------
fresh
refused "two_actions_are_a_usage_error" 2 "scr-index: --current and --drop cannot be combined" \
    --prefix "$p" --current ckpt.3 --drop ckpt.6
refused "list_and_drop_are_a_usage_error" 2 "scr-index: --list and --drop cannot be combined" \
    --prefix "$p" --list --drop ckpt.6
refused "empty_name_is_a_usage_error" 2 "scr-index: --drop-after wants a dataset name" --prefix "$p" --drop-after=
refused "current_without_a_name_is_a_usage_error" 2 "scr-index: option '--current' wants an argument" --current
refused "json_with_an_edit_is_a_usage_error" 2 "scr-index: --json goes with --list, --rebuild-index or --add only" \
    --prefix "$p" --json --drop ckpt.6
run --help
check "help_names_the_edit_options" grep -q -e "--drop-after=NAME" "$tmp/out"

# --- where the prefix comes from ----------------------------------------------------------------
fresh
(cd "$tmp" && SCR_PREFIX="$p" "$index" --drop ckpt.3) > /dev/null 2>&1
check "scr_prefix_names_the_index_to_change" test "$(ids)" = "12 9 6 4 "
fresh
(cd "$p" && "$index" --drop ckpt.12) > /dev/null 2>&1
check "current_directory_is_the_default_prefix" test "$(ids)" = "9 6 4 3 "

done_testing
