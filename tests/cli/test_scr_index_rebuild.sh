#!/bin/sh
# test_scr_index_rebuild.sh — scr-index with a damaged or missing index:
# --add refuses to touch a damaged one, and --rebuild-index makes it again
# from the summaries of the datasets (golden summaries of datasets 1 to 3
# written by the independent writer, tests/data/index/rebuild), keeping the
# damaged file aside; a readable index, or a prefix with nothing to rebuild
# from, is left as it is. A summary whose files are not all there at their
# recorded sizes gives an incomplete entry, and the files are named; a
# summary that calls its dataset incomplete (summary.5) gives an entry that
# is incomplete and never current.
. "$top_srcdir/tests/tap.sh"

index="$top_builddir/cli/scr-index"
data="$top_srcdir/tests/data/index"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-index-rebuild-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX
p=$tmp/prefix
file=$p/.scr/index.scr

# bytes N FILE: FILE holds N bytes
bytes() {
    head -c "$1" /dev/zero > "$2" || exit 99
}

# fresh: $p with the golden summaries of datasets 1 (ckpt.1), 2 (out.2, output)
# and 3 (ckpt.3), each written at a fixed time, with the files they record
# (rank0.dat and rank1.dat, 4000 bytes each, 1024 for out.2), and dataset
# directory 4 holding a rank filemap but no summary (a copy cut short); no index
fresh() {
    rm -rf "$p" && mkdir -p "$p/.scr" || exit 99
    for id in 1 2 3; do
        mkdir "$p/.scr/scr.dataset.$id" && cp "$data/rebuild/summary.$id.scr" "$p/.scr/scr.dataset.$id/summary.scr" &&
            touch -d "2026-03-01 10:0$id:00" "$p/.scr/scr.dataset.$id/summary.scr" || exit 99
    done
    mkdir "$p/ckpt.1" "$p/out.2" "$p/ckpt.3" || exit 99
    for r in 0 1; do
        bytes 4000 "$p/ckpt.1/rank$r.dat"
        bytes 1024 "$p/out.2/rank$r.dat"
        bytes 4000 "$p/ckpt.3/rank$r.dat"
    done
    mkdir "$p/.scr/scr.dataset.4" && echo partial > "$p/.scr/scr.dataset.4/0.scrfilemap" || exit 99
}

run() {
    "$index" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}

# kept: the files kept aside next to the index
kept() {
    find "$p/.scr" -maxdepth 1 -name 'index.scr.damaged.*'
}

# untouched NAME: the index is byte for byte $tmp/before, nothing was kept aside
# and dataset 4 got no summary
untouched() {
    check "$1" sh -c "cmp -s '$tmp/before' '$file' && test -z \"\$(find '$p/.scr' -maxdepth 1 -name 'index.scr.damaged.*')\" && test ! -e '$p/.scr/scr.dataset.4/summary.scr'"
}

# --- --add refuses a damaged index --------------------------------------------------------
fresh
: > "$file"
cp "$file" "$tmp/before"
run --prefix "$p" --add scr.dataset.4
if [ $status -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qF "$file: empty file (0 bytes)" "$tmp/err" &&
   grep -qF "$file was left as it is; scr-index --rebuild-index rebuilds it" "$tmp/err"; then
    ok "add_refuses_an_empty_index_naming_it_and_the_way_out"
else
    not_ok "add_refuses_an_empty_index_naming_it_and_the_way_out" "status $status: $(cat "$tmp/out" "$tmp/err")"
fi
untouched "add_leaves_an_empty_index_and_the_dataset_directory_as_they_were"

cp "$data/index.scr" "$file"
printf 'X' | dd of="$file" bs=1 seek=100 conv=notrunc 2> /dev/null
cp "$file" "$tmp/before"
run --prefix "$p" --add scr.dataset.4
check "add_refuses_an_index_whose_crc_does_not_match" \
    sh -c "test $status -eq 1 && grep -qF '$file: CRC32 mismatch' '$tmp/err'"
untouched "add_leaves_a_crc_damaged_index_byte_for_byte"

# --- --rebuild-index ----------------------------------------------------------------------------
fresh
: > "$file"
run --prefix "$p" --rebuild-index
kept_as=$(kept)
first="rebuilt $file from the summaries of its datasets (it was damaged; kept as $kept_as): ckpt.1 (dataset 1, complete), out.2 (dataset 2, complete, output), ckpt.3 (dataset 3, complete); current: ckpt.3; not indexed: scr.dataset.4 (no summary)"
if [ $status -eq 0 ] && [ "$(head -n 1 "$tmp/out")" = "$first" ] &&
   [ "$(cat "$tmp/err")" = "scr-index: error: $file: empty file (0 bytes): a hash file is never empty, so this one is damaged" ]; then
    ok "rebuild_of_an_empty_index_says_what_it_recovered_and_from_where"
else
    not_ok "rebuild_of_an_empty_index_says_what_it_recovered_and_from_where" \
        "status $status: $(cat "$tmp/out" "$tmp/err")"
fi
check "rebuild_prints_the_rebuilt_index_as_a_table" \
    sh -c "tail -n +2 '$tmp/out' | awk 'NR > 1 { print (\$1 == \"*\") ? \"*\" \$3 : \$2 }' | tr '\n' ' ' | grep -qx '\\*ckpt.3 out.2 ckpt.1 '"
check "rebuild_keeps_the_empty_file_aside_as_it_was" sh -c "test -n '$kept_as' && test -f '$kept_as' && test ! -s '$kept_as'"
run --prefix "$p" --list
check "the_rebuilt_index_lists_datasets_1_to_3_flushed_when_their_summaries_were_written" \
    sh -c "test $status -eq 0 && test \$(wc -l < '$tmp/out') -eq 4 && grep -q ' ckpt.1 .*2026-03-01T10:01:00' '$tmp/out' &&
           grep -q ' ckpt.3 .*2026-03-01T10:03:00' '$tmp/out'"
cp "$file" "$tmp/before"
run --prefix "$p" --rebuild-index
check "rebuild_of_a_readable_index_changes_nothing" \
    sh -c "test $status -eq 0 && grep -qx '$file reads; nothing was rebuilt' '$tmp/out' && cmp -s '$tmp/before' '$file' && test \$(find '$p/.scr' -maxdepth 1 -name 'index.scr.damaged.*' | wc -l) -eq 1"

fresh
run --prefix "$p" --rebuild-index
check "rebuild_of_a_missing_index_says_there_was_none" \
    sh -c "test $status -eq 0 && head -n 1 '$tmp/out' | grep -qF 'rebuilt $file from the summaries of its datasets (there was none): ckpt.1'"

# --json: the document of --list --json, and what the rebuild found and did
if [ -n "$PYTHON3" ]; then
    fresh
    cp "$data/index.scr" "$file"
    printf 'X' | dd of="$file" bs=1 seek=100 conv=notrunc 2> /dev/null
    cp "$file" "$tmp/damaged"
    run --prefix "$p" --rebuild-index --json
    sed "s|@PREFIX@|$p|g" "$data/rebuild.expected.json" > "$tmp/want.json"
    # the kept file is named for the time of the rebuild
    if [ $status -eq 0 ] && "$PYTHON3" - "$tmp/out" "$tmp/want.json" "$file.damaged." <<'EOF'
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
if not str(got.get("kept_as")).startswith(sys.argv[3]):
    sys.exit("kept_as is %r" % got.get("kept_as"))
got["kept_as"] = "@KEPT@"
sys.exit(0 if got == want else "got %s" % json.dumps(got, sort_keys=True))
EOF
    then
        ok "rebuild_json_matches_the_expected_document"
    else
        not_ok "rebuild_json_matches_the_expected_document" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi
    check "rebuild_keeps_a_crc_damaged_index_aside_byte_for_byte" cmp "$tmp/damaged" "$(kept)"
else
    skip "rebuild_json_matches_the_expected_document" "python3 not found"
    skip "rebuild_keeps_a_crc_damaged_index_aside_byte_for_byte" "python3 not found"
fi

# --- summaries that outlived their files ---------------------------------------------------------
# ckpt.3 lost a file (a deletion cut short), out.2 has one truncated: neither
# is listed complete, each file is named, and ckpt.1 becomes current
outlived() {
    fresh
    rm "$p/ckpt.3/rank1.dat"
    bytes 100 "$p/out.2/rank0.dat"
}
outlived
run --prefix "$p" --rebuild-index
check "rebuild_lists_a_dataset_whose_files_are_not_all_there_as_incomplete" \
    sh -c "test $status -eq 0 && head -n 1 '$tmp/out' | grep -qF 'ckpt.1 (dataset 1, complete), out.2 (dataset 2, incomplete, output, 1 file not as recorded), ckpt.3 (dataset 3, incomplete, 1 file not as recorded); current: ckpt.1;'"
check "rebuild_table_shows_ckpt.3_and_out.2_not_complete_and_ckpt.1_current" \
    sh -c "grep -q '^\*  1  ckpt.1  checkpoint  yes ' '$tmp/out' && grep -q '^   3  ckpt.3  checkpoint  no ' '$tmp/out' &&
           grep -q '^   2  out.2   output      no ' '$tmp/out'"
check "rebuild_names_the_missing_file_on_stderr" \
    grep -qF "scr-index: warning: ckpt.3 (dataset 3) is indexed incomplete: its summary records files that are not on the prefix as recorded: $p/ckpt.3/rank1.dat is missing" "$tmp/err"
check "rebuild_names_the_truncated_file_and_its_sizes_on_stderr" \
    grep -qF "out.2 (dataset 2) is indexed incomplete: its summary records files that are not on the prefix as recorded: $p/out.2/rank0.dat is 100 bytes, 1024 recorded" "$tmp/err"
run --prefix "$p" --list
check "the_rebuilt_index_records_the_rank_of_the_missing_file_as_missing" grep -q '^   3  ckpt.3 .*  1$' "$tmp/out"
if [ -n "$PYTHON3" ]; then
    outlived
    run --prefix "$p" --rebuild-index --json
    if [ $status -eq 0 ] && "$PYTHON3" - "$tmp/out" "$p" <<'EOF'
import json, sys
got, p = json.load(open(sys.argv[1])), sys.argv[2]
want = [
    {"id": 2, "name": "out.2", "what": "file", "path": p + "/out.2/rank0.dat", "rank": 0, "size": 100, "recorded": 1024},
    {"id": 3, "name": "ckpt.3", "what": "file", "path": p + "/ckpt.3/rank1.dat", "rank": 1, "size": None,
     "recorded": 4000},
]
if got.get("bad_files") != want:
    sys.exit("bad_files is %s" % json.dumps(got.get("bad_files")))
complete = {d["name"]: (d["complete"], d["missing"]) for d in got["datasets"]}
if complete != {"ckpt.1": (True, []), "out.2": (False, [0]), "ckpt.3": (False, [1])} or got["current"] != "ckpt.1":
    sys.exit("datasets: %s, current %s" % (complete, got["current"]))
EOF
    then
        ok "rebuild_json_names_each_file_not_as_recorded_with_its_sizes"
    else
        not_ok "rebuild_json_names_each_file_not_as_recorded_with_its_sizes" "status $status: $(cat "$tmp/out" "$tmp/err")"
    fi
else
    skip "rebuild_json_names_each_file_not_as_recorded_with_its_sizes" "python3 not found"
fi

# --- a summary that calls its dataset incomplete --------------------------------------------------
# dataset 5 (ckpt.5, newer than ckpt.3) has a summary whose COMPLETE is 0
# (summary.5), and its files are on the prefix at their recorded sizes, so
# that only the summary's own flag says it is incomplete
fresh
mkdir "$p/.scr/scr.dataset.5" "$p/ckpt.5" && cp "$data/rebuild/summary.5.scr" "$p/.scr/scr.dataset.5/summary.scr" &&
    head -c 4000 /dev/zero > "$p/ckpt.5/rank0.dat" && head -c 4000 /dev/zero > "$p/ckpt.5/rank1.dat" || exit 99
run --prefix "$p" --rebuild-index
check "rebuild_lists_a_dataset_whose_summary_says_incomplete_as_incomplete" \
    sh -c "test $status -eq 0 && head -n 1 '$tmp/out' | grep -qF 'ckpt.3 (dataset 3, complete), ckpt.5 (dataset 5, incomplete); current: ckpt.3;'"
run --prefix "$p" --list
check "the_rebuilt_index_calls_ckpt.5_incomplete_and_keeps_ckpt.3_current" \
    sh -c "test $status -eq 0 && grep -qE '^ +5 +ckpt\.5 +checkpoint +no ' '$tmp/out' && grep -qE '^\* +3 +ckpt\.3 ' '$tmp/out'"

# --- nothing to rebuild from --------------------------------------------------------------------
rm -rf "$p" && mkdir -p "$p/.scr"
run --prefix "$p" --rebuild-index
check "rebuild_with_no_index_and_no_dataset_directory_is_exit_1_saying_so" \
    sh -c "test $status -eq 1 && test ! -s '$tmp/out' && grep -qx 'scr-index: nothing to rebuild in $p: no .scr/index.scr and no dataset directory' '$tmp/err' && test ! -e '$file'"

fresh
# (datasets 1 to 3 are left empty, and count for nothing)
rm "$p"/.scr/scr.dataset.*/summary.scr
: > "$file"
cp "$file" "$tmp/before"
run --prefix "$p" --rebuild-index
check "rebuild_without_summaries_fails_naming_what_it_found" \
    sh -c "test $status -eq 1 && grep -qF '$file is damaged and cannot be rebuilt: none of the dataset directories holding records has a usable summary: scr.dataset.4 (no summary). It was left as it is' '$tmp/err'"
untouched "rebuild_without_summaries_leaves_the_damaged_index_as_it_was"

rm "$file"
run --prefix "$p" --rebuild-index
check "rebuild_of_a_missing_index_without_summaries_fails_naming_the_directories" \
    sh -c "test $status -eq 1 && grep -qF '$p has no index, and none of its dataset directories holding records has a summary' '$tmp/err' && test ! -e '$file'"

# --- usage ---------------------------------------------------------------------------------------------
run --rebuild-index=now
check "rebuild_index_takes_no_argument" sh -c "test $status -eq 2 && grep -q \"'--rebuild-index=now' takes no argument\" '$tmp/err'"
run --rebuild-index --current ckpt.1
check "rebuild_index_is_an_action_of_its_own" sh -c "test $status -eq 2 && grep -q 'cannot be combined' '$tmp/err'"
run --help
check "help_names_rebuild_index" grep -q -- "--rebuild-index" "$tmp/out"

done_testing
