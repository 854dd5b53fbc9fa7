#!/bin/sh
# test_scr_print.sh — scr-print on golden, independently written and damaged files,
# and files written by libscr-core read by the independent reader.
. "$top_srcdir/tests/tap.sh"

print="$top_builddir/cli/scr-print"
writer="$top_builddir/tests/tools/kvtree_writer"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
data="$top_srcdir/tests/data/kvtree"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-print-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Same JSON value (order of members ignored)?
same_json() {
    "$PYTHON3" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a==b else 1)' "$1" "$2"
}

# --- printing ---------------------------------------------------------------
if "$print" "$data/sample.scr" > "$tmp/out.txt" 2> "$tmp/err.txt" &&
   cmp -s "$tmp/out.txt" "$data/sample.txt"; then
    ok "tree_output_of_independent_golden_matches_expected_text"
else
    not_ok "tree_output_of_independent_golden_matches_expected_text" "$(diff "$data/sample.txt" "$tmp/out.txt"; cat "$tmp/err.txt")"
fi

"$print" --indent 4 "$data/sample-nocrc.scr" > "$tmp/out4.txt" 2>&1
sed 's/^\( *\)/\1\1/' "$data/sample.txt" > "$tmp/want4.txt"
check "indent_option_and_file_without_crc" cmp "$tmp/out4.txt" "$tmp/want4.txt"

if [ -n "$PYTHON3" ]; then
    "$print" --json "$data/sample.scr" > "$tmp/out.json" 2>&1
    check "json_output_maps_single_values_to_strings" same_json "$tmp/out.json" "$data/sample.expected.json"

    # our writer -> independent reader
    "$writer" "$tmp/ours.scr"
    "$PYTHON3" "$ref" dump "$tmp/ours.scr" > "$tmp/ours.json" 2>&1
    check "file_written_by_libscr_reads_identically_in_independent_reader" \
        same_json "$tmp/ours.json" "$data/sample.json"
    check "file_written_by_libscr_is_byte_identical_to_independent_writer" \
        cmp "$tmp/ours.scr" "$data/sample.scr"
else
    skip "json_output_maps_single_values_to_strings" "python3 not found"
    skip "file_written_by_libscr_reads_identically_in_independent_reader" "python3 not found"
    skip "file_written_by_libscr_is_byte_identical_to_independent_writer" "python3 not found"
fi

# --- damage: exit 1 and one line naming the file and the fault --------------
# damaged NAME FAULT_TEXT: the file $tmp/NAME must be rejected that way
damaged() {
    name=$1 fault=$2
    "$print" "$tmp/$name" > "$tmp/d.out" 2> "$tmp/d.err"
    status=$?
    lines=$(wc -l < "$tmp/d.err")
    if [ "$status" -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/d.out" ] &&
       grep -q "^scr-print: error: $tmp/$name: .*$fault" "$tmp/d.err"; then
        ok "rejects_$name"
    else
        not_ok "rejects_$name" "status $status, stderr: $(cat "$tmp/d.err")"
    fi
}
# patch FILE OFFSET HEXBYTES: overwrite bytes in place
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }

size=$(wc -c < "$data/sample.scr")
head -c 13 "$data/sample.scr" > "$tmp/header-cut.scr";      damaged header-cut.scr "shorter than the 20-byte header"
head -c $((size - 7)) "$data/sample.scr" > "$tmp/truncated.scr"; damaged truncated.scr "truncated"
cp "$data/sample.scr" "$tmp/magic.scr";   patch "$tmp/magic.scr" 0 '\001';    damaged magic.scr "magic number"
cp "$data/sample.scr" "$tmp/type.scr";    patch "$tmp/type.scr" 5 '\003';     damaged type.scr "file type 3"
cp "$data/sample.scr" "$tmp/version.scr"; patch "$tmp/version.scr" 7 '\011';  damaged version.scr "version 9"
cp "$data/sample.scr" "$tmp/size.scr";    patch "$tmp/size.scr" 15 '\377';    damaged size.scr "size field"
cp "$data/sample.scr" "$tmp/crc.scr";     patch "$tmp/crc.scr" 60 'Z';        damaged crc.scr "CRC32 mismatch"
cp "$data/sample-nocrc.scr" "$tmp/count.scr"; patch "$tmp/count.scr" 20 '\177\377\377\377'; damaged count.scr "exceeds"
cp "$data/sample-nocrc.scr" "$tmp/nonul.scr"
nsize=$(wc -c < "$tmp/nonul.scr")
head -c 24 "$data/sample-nocrc.scr" > "$tmp/nonul.scr"
head -c $((nsize - 24)) /dev/zero | tr '\0' 'x' >> "$tmp/nonul.scr"; damaged nonul.scr "without terminating NUL"
# 65 nested levels, written without a CRC so only the nesting check can catch it
{
    printf '\225\037\303\365\000\001\000\001'
    total=$((20 + 64 * 6 + 4))
    printf "\\000\\000\\000\\000\\000\\000\\$(printf %03o $((total / 256)))\\$(printf %03o $((total % 256)))"
    printf '\000\000\000\000'
    i=0; while [ $i -lt 64 ]; do printf '\000\000\000\001k\000'; i=$((i + 1)); done
    printf '\000\000\000\000'
} > "$tmp/deep.scr"
damaged deep.scr "nesting deeper than 64"

"$print" "$tmp/missing.scr" > /dev/null 2> "$tmp/m.err"
status=$?
if [ $status -eq 1 ] && grep -q "missing.scr: no such file" "$tmp/m.err"; then
    ok "missing_file_is_named"
else
    not_ok "missing_file_is_named" "status $status: $(cat "$tmp/m.err")"
fi

"$print" "$tmp/crc.scr" "$data/sample.scr" > "$tmp/mix.out" 2> "$tmp/mix.err"
status=$?
if [ $status -eq 1 ] && grep -q "==> $data/sample.scr <==" "$tmp/mix.out" &&
   grep -q "CRC32 mismatch" "$tmp/mix.err"; then
    ok "good_files_still_print_when_another_is_damaged"
else
    not_ok "good_files_still_print_when_another_is_damaged" "status $status"
fi

"$print" > /dev/null 2>&1
check "no_file_is_a_usage_error" test $? -eq 2
"$print" --indent x "$data/sample.scr" > /dev/null 2>&1
check "bad_indent_is_a_usage_error" test $? -eq 2

done_testing
