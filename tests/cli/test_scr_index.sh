#!/bin/sh
# test_scr_index.sh — scr-index --list on a golden index written by the
# independent writer: the table and JSON, the current marker, newest-first
# order, kinds, a missing, empty or damaged index (an empty file is damaged),
# usage errors, and where the prefix comes from.
. "$top_srcdir/tests/tap.sh"

index="$top_builddir/cli/scr-index"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
data="$top_srcdir/tests/data/index"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-index-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX

# Same JSON value (order of members ignored)?
same_json() {
    "$PYTHON3" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a==b else 1)' "$1" "$2"
}

# make_prefix NAME [FILE]: the directory $tmp/NAME with FILE (default: the
# golden) as its .scr/index.scr
make_prefix() {
    mkdir -p "$tmp/$1/.scr"
    cp "${2:-$data/index.scr}" "$tmp/$1/.scr/index.scr"
}

# run ARGS...: scr-index with ARGS; sets $status, output in $tmp/out and $tmp/err
run() {
    "$index" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}

# Field N of the row of dataset NAME (row fields counted without the marker).
field_of() {
    awk -v name="$1" -v n="$2" 'NR > 1 { if ($1 == "*") $1 = ""; $0 = $0; if ($2 == name) print $n }' "$tmp/out"
}

# refused NAME STATUS LINES PATTERN ARGS...: scr-index ARGS must exit with
# STATUS, print nothing on stdout and LINES lines on stderr, the first
# matching PATTERN
refused() {
    name=$1 want_status=$2 want_lines=$3 pattern=$4
    shift 4
    run "$@"
    if [ $status -eq "$want_status" ] && [ ! -s "$tmp/out" ] &&
       [ "$(wc -l < "$tmp/err")" -eq "$want_lines" ] && head -n 1 "$tmp/err" | grep -q -e "$pattern"; then
        ok "$name"
    else
        not_ok "$name" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi
}

make_prefix golden

# --- the table ------------------------------------------------------------------
run --prefix "$tmp/golden"
if [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/out" "$data/list.txt"; then
    ok "table_of_golden_index_matches_expected_text"
else
    not_ok "table_of_golden_index_matches_expected_text" \
        "status $status: $(diff "$data/list.txt" "$tmp/out"; cat "$tmp/err")"
fi

marked=$(grep '^\*' "$tmp/out" | awk '{ print $3 }')
check "current_marker_is_on_the_dataset_named_current_only" test "$marked" = "ckpt.6"

order=$(awk 'NR > 1 { print ($1 == "*") ? $2 : $1 }' "$tmp/out" | tr '\n' ' ')
check "datasets_are_listed_newest_first_by_numeric_id" test "$order" = "12 9 6 4 3 "

check "output_only_dataset_is_of_kind_output" test "$(field_of viz.4 3)" = "output"
check "dataset_with_both_flags_is_checkpoint_and_output" \
    test "$(field_of ckpt.9 3)" = "checkpoint+output"
check "latest_failed_and_fetched_times_are_shown" \
    test "$(field_of ckpt.6 5) $(field_of ckpt.6 6)" = "2026-03-02T09:14:30 2026-03-02T09:16:10"

check "incomplete_dataset_shows_its_missing_ranks_as_ranges" test "$(field_of ckpt.12 10)" = "3,5-7,10"
check "complete_dataset_shows_no_missing_ranks" test "$(field_of ckpt.6 11)" = "-"

run --list --prefix="$tmp/golden"
check "explicit_list_and_prefix_equals_form_give_the_same_table" cmp "$tmp/out" "$data/list.txt"

# --- JSON -------------------------------------------------------------------------
if [ -n "$PYTHON3" ]; then
    "$PYTHON3" "$ref" write "$data/index.json" "$tmp/regenerated.scr"
    check "golden_index_is_what_the_independent_writer_makes_of_its_json" \
        cmp "$tmp/regenerated.scr" "$data/index.scr"

    run --json --prefix "$tmp/golden"
    sed "s|@PREFIX@|$tmp/golden|" "$data/list.expected.json" > "$tmp/want.json"
    if [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && same_json "$tmp/out" "$tmp/want.json"; then
        ok "json_of_golden_index_matches_expected_document"
    else
        not_ok "json_of_golden_index_matches_expected_document" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi

    run --json --prefix "$tmp/nothing-here"
    printf '{"prefix": "%s", "current": null, "datasets": []}\n' "$tmp/nothing-here" > "$tmp/want.json"
    if [ $status -eq 1 ] && same_json "$tmp/out" "$tmp/want.json" &&
       [ "$(cat "$tmp/err")" = "scr-index: no datasets in $tmp/nothing-here (no .scr/index.scr)" ]; then
        ok "json_without_index_is_an_empty_document_and_exit_1"
    else
        not_ok "json_without_index_is_an_empty_document_and_exit_1" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi

    echo '{"VERSION": {"2": {}}}' > "$tmp/empty.json"
    "$PYTHON3" "$ref" write "$tmp/empty.json" "$tmp/empty.scr"
    make_prefix empty "$tmp/empty.scr"
    run --prefix "$tmp/empty"
    # the same header, with columns only as wide as their titles
    head -n 1 "$data/list.txt" | sed 's/  */ /g' > "$tmp/header"
    sed 's/  */ /g' "$tmp/out" > "$tmp/got-header"
    if [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/got-header" "$tmp/header"; then
        ok "index_without_datasets_prints_the_header_alone"
    else
        not_ok "index_without_datasets_prints_the_header_alone" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi

    sed 's/"COMPLETE": {"0": {}}/"COMPLETE": {"2": {}}/' "$data/index.json" > "$tmp/badvalue.json"
    "$PYTHON3" "$ref" write "$tmp/badvalue.json" "$tmp/badvalue.scr"
    make_prefix badvalue "$tmp/badvalue.scr"
    refused "bad_value_in_index_is_one_line_naming_file_and_key" 1 1 \
        "^scr-index: error: $tmp/badvalue/.scr/index.scr: key DSET 12 COMPLETE holds '2'" \
        --prefix "$tmp/badvalue"
else
    for name in golden_index_is_what_the_independent_writer_makes_of_its_json \
        json_of_golden_index_matches_expected_document \
        json_without_index_is_an_empty_document_and_exit_1 \
        index_without_datasets_prints_the_header_alone \
        bad_value_in_index_is_one_line_naming_file_and_key; do
        skip "$name" "python3 not found"
    done
fi

# --- no index, damaged index ----------------------------------------------------------
refused "missing_index_is_one_line_and_exit_1" 1 1 \
    "^scr-index: no datasets in $tmp/nothing-here (no \.scr/index\.scr)$" --prefix "$tmp/nothing-here"

size=$(wc -c < "$data/index.scr")
head -c $((size - 7)) "$data/index.scr" > "$tmp/truncated.scr"
make_prefix truncated "$tmp/truncated.scr"
refused "truncated_index_is_one_line_naming_the_file_and_exit_1" 1 1 \
    "^scr-index: error: $tmp/truncated/.scr/index.scr: .*truncated" --prefix "$tmp/truncated"
refused "json_of_damaged_index_prints_no_document_and_exit_1" 1 1 "truncated" \
    --json --prefix "$tmp/truncated"

# an emptied index is damaged, never an index without datasets
mkdir -p "$tmp/emptied/.scr" && : > "$tmp/emptied/.scr/index.scr"
refused "empty_index_file_is_one_line_naming_the_file_and_exit_1" 1 1 \
    "^scr-index: error: $tmp/emptied/.scr/index.scr: empty file (0 bytes)" --list --prefix "$tmp/emptied"
refused "json_of_empty_index_file_prints_no_document_and_exit_1" 1 1 "empty file (0 bytes)" \
    --json --prefix "$tmp/emptied"
check "listing_leaves_the_empty_index_file_as_it_was" test -f "$tmp/emptied/.scr/index.scr" -a ! -s "$tmp/emptied/.scr/index.scr"

# --- usage: the message, then a pointer to --help ---------------------------------------
# usage_error NAME TEXT ARGS...: scr-index ARGS must exit 2 naming TEXT
usage_error() {
    name=$1 text=$2
    shift 2
    refused "$name" 2 2 "^scr-index: .*$text" "$@"
}
usage_error "unknown_long_option_is_a_usage_error_naming_it" "'--bogus'" --bogus
usage_error "unknown_short_option_is_a_usage_error_naming_it" "'-x'" -x
usage_error "unknown_short_option_in_a_cluster_is_named_alone" "unknown option '-x'" --json -jxl
usage_error "argument_to_a_flag_is_a_usage_error" "'--list=3' takes no argument" --list=3
usage_error "prefix_without_directory_is_a_usage_error" "'--prefix' wants an argument" --prefix
usage_error "empty_prefix_is_a_usage_error" "--prefix wants a directory" --prefix=
usage_error "extra_argument_is_a_usage_error" "unexpected argument 'stray'" stray

run --help
if [ $status -eq 0 ] && grep -q "^Usage: scr-index" "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "help_prints_usage_and_exit_0"
else
    not_ok "help_prints_usage_and_exit_0" "status $status"
fi
run --version
check "version_names_the_command" grep -q "^scr-index (scr) [0-9]" "$tmp/out"

# --- where the prefix comes from --------------------------------------------------------
mkdir -p "$tmp/empty-dir" "$tmp/opt-dir" "$tmp/env-dir"

(cd "$tmp/golden" && SCR_PREFIX="$tmp/golden" "$index" --prefix "$tmp/opt-dir") > "$tmp/out" 2> "$tmp/err"
check "prefix_option_wins_over_scr_prefix_and_current_directory" \
    grep -q "no datasets in $tmp/opt-dir " "$tmp/err"

(cd "$tmp/golden" && SCR_PREFIX="$tmp/env-dir" "$index") > "$tmp/out" 2> "$tmp/err"
check "scr_prefix_wins_over_current_directory" grep -q "no datasets in $tmp/env-dir " "$tmp/err"

(cd "$tmp/golden" && "$index") > "$tmp/out" 2> "$tmp/err"
check "current_directory_is_the_default_prefix" cmp "$tmp/out" "$data/list.txt"

(cd "$tmp/empty-dir" && SCR_PREFIX= "$index") > "$tmp/out" 2> "$tmp/err"
check "empty_scr_prefix_means_the_current_directory" \
    grep -q "no datasets in $(cd "$tmp/empty-dir" && pwd -P) " "$tmp/err"

done_testing
