#!/bin/sh
# test_scr_index_add.sh — scr-index --add of a dataset directory on the
# prefix, and what checking the CRCs (the default, --crc) means: every file
# is read and checked, even when a summary already calls the dataset
# complete. A file whose size or CRC differs from what was recorded is
# named, the dataset is indexed incomplete (exit 3) with its rank missing,
# and the summary that called it complete is taken away so that a later
# --add --no-crc does not believe it again; the dataset, current until then,
# is no longer. --build checks an entry the index calls complete in the same
# way; --build --no-crc leaves it alone.
# The dataset is two ranks' files under <prefix>/ckpt.6 with their rank
# filemaps, written here by the independent kvtree writer (needs python3).
. "$top_srcdir/tests/tap.sh"

index="$top_builddir/cli/scr-index"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-index-add-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX
p=$tmp/prefix
dset=$p/.scr/scr.dataset.6

tests="an_intact_dataset_is_indexed_complete_and_gets_a_summary
crc_checks_the_files_of_a_dataset_with_a_summary
a_file_that_changed_size_is_named_with_both_sizes
and_its_rank_is_named_as_missing_in_the_index
and_it_is_no_longer_current
the_summary_that_called_it_complete_is_taken_away
a_later_add_without_crc_no_longer_calls_it_complete
a_file_with_the_right_size_but_other_bytes_is_named_as_damaged
build_without_crc_leaves_a_complete_entry_alone
build_with_crc_checks_a_complete_entry
without_rank_filemaps_crc_checks_the_files_against_the_summary
crc_of_an_intact_dataset_with_a_summary_is_complete"
if [ -z "$PYTHON3" ]; then
    for name in $tests; do skip "$name" "python3 not found"; done
    done_testing
    exit
fi

# dataset: the two files (1000 bytes each) and their rank filemaps
dataset() {
    rm -rf "$p" && mkdir -p "$dset" "$p/ckpt.6" || exit 99
    "$PYTHON3" - "$p" "$ref" <<'PY' || exit 99
import json, subprocess, sys, zlib
prefix, ref = sys.argv[1], sys.argv[2]
def v(x): return {str(x): {}}
for rank in (0, 1):
    data = bytes((rank * 31 + i * 7) % 256 for i in range(1000))
    with open(f"{prefix}/ckpt.6/rank_{rank}.ckpt", "wb") as f:
        f.write(data)
    name = f"../../ckpt.6/rank_{rank}.ckpt"
    meta = {"CKPT": v(6), "COMPLETE": v(1), "CRC": v("0x%08x" % zlib.crc32(data)), "FILE": v(name),
            "NAME": v(f"rank_{rank}.ckpt"), "ORIG": v(f"ckpt.6/rank_{rank}.ckpt"), "PATH": v(f"{prefix}/ckpt.6"),
            "RANK": v(rank), "RANKS": v(2), "SIZE": v(len(data)), "TYPE": v("FULL")}
    desc = {"CKPT": v(6), "COMPLETE": v(1), "FLAGS": v(1), "ID": v(6), "NAME": v("ckpt.6")}
    tree = {"VERSION": v(1), "DSET": {"6": {"RANK": v(rank)}},
            "RANK": {str(rank): {"DSET": {"6": {"DSETDESC": desc, "FILE": {name: {"META": meta}}, "FILES": v(1)}}}}}
    with open(f"{prefix}/rmap.json", "w") as f:
        json.dump(tree, f)
    subprocess.run([sys.executable, ref, "write", f"{prefix}/rmap.json",
                    f"{prefix}/.scr/scr.dataset.6/{rank}.scrfilemap"], check=True)
PY
    rm -f "$p/rmap.json"
}

run() {
    "$index" --prefix "$p" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}
said() {
    printf 'status %s\nstdout: %s\nstderr: %s\n' "$status" "$(cat "$tmp/out")" "$(cat "$tmp/err")"
}
# the MISSING column of dataset 6 in the listing
missing() {
    "$index" --prefix "$p" | awk '{ if ($1 == "*") $1 = ""; $0 = $0 } $1 == 6 { print $NF }'
}

dataset
run --add scr.dataset.6
if [ $status -eq 0 ] && grep -q "dataset 6 indexed complete" "$tmp/out" && [ -f "$dset/summary.scr" ]; then
    ok "an_intact_dataset_is_indexed_complete_and_gets_a_summary"
else
    not_ok "an_intact_dataset_is_indexed_complete_and_gets_a_summary" "$(said)"
fi

# rank 1's file grows from 1000 to 100000 bytes after the summary was written
head -c 100000 /dev/zero > "$p/ckpt.6/rank_1.ckpt"
run --add scr.dataset.6 --crc
if [ $status -eq 3 ] && grep -q "dataset 6 indexed incomplete: the files of 1 rank(s) are lost: 1$" "$tmp/out"; then
    ok "crc_checks_the_files_of_a_dataset_with_a_summary"
else
    not_ok "crc_checks_the_files_of_a_dataset_with_a_summary" "$(said)"
fi
check "a_file_that_changed_size_is_named_with_both_sizes" \
    grep -q "$p/ckpt.6/rank_1.ckpt is 100000 bytes, 1000 recorded" "$tmp/err"
check "and_its_rank_is_named_as_missing_in_the_index" test "$(missing)" = "1"
check "and_it_is_no_longer_current" test -z "$("$index" --prefix "$p" | grep '^\*')"
check "the_summary_that_called_it_complete_is_taken_away" test ! -e "$dset/summary.scr"
run --add scr.dataset.6 --no-crc
if [ $status -eq 3 ] && ! grep -q "indexed complete" "$tmp/out"; then
    ok "a_later_add_without_crc_no_longer_calls_it_complete"
else
    not_ok "a_later_add_without_crc_no_longer_calls_it_complete" "$(said)"
fi

# same size, one byte changed, after a summary was written
dataset
run --add scr.dataset.6
printf 'X' | dd of="$p/ckpt.6/rank_0.ckpt" bs=1 seek=500 conv=notrunc 2> /dev/null
run --add scr.dataset.6 --crc
if [ $status -eq 3 ] && grep -q "$p/ckpt.6/rank_0.ckpt is damaged: CRC32 0x[0-9a-f]*, 0x[0-9a-f]* recorded" "$tmp/err" &&
   grep -q "are lost: 0$" "$tmp/out"; then
    ok "a_file_with_the_right_size_but_other_bytes_is_named_as_damaged"
else
    not_ok "a_file_with_the_right_size_but_other_bytes_is_named_as_damaged" "$(said)"
fi

# --build of an entry the index calls complete
dataset
run --add scr.dataset.6
printf 'X' | dd of="$p/ckpt.6/rank_1.ckpt" bs=1 seek=10 conv=notrunc 2> /dev/null
run --build 6 --no-crc
if [ $status -eq 0 ] && grep -q "is complete; nothing to rebuild" "$tmp/out"; then
    ok "build_without_crc_leaves_a_complete_entry_alone"
else
    not_ok "build_without_crc_leaves_a_complete_entry_alone" "$(said)"
fi
run --build 6 --crc
if [ $status -eq 3 ] && grep -q "$p/ckpt.6/rank_1.ckpt is damaged: CRC32" "$tmp/err" &&
   grep -q "are lost: 1$" "$tmp/out"; then
    ok "build_with_crc_checks_a_complete_entry"
else
    not_ok "build_with_crc_checks_a_complete_entry" "$(said)"
fi

# a summary alone (a dataset flushed by a writer that kept no rank filemaps)
dataset
run --add scr.dataset.6
rm -f "$dset"/*.scrfilemap
head -c 100000 /dev/zero > "$p/ckpt.6/rank_1.ckpt"
run --add scr.dataset.6 --crc
if [ $status -eq 3 ] && grep -q "$p/ckpt.6/rank_1.ckpt is 100000 bytes, 1000 recorded" "$tmp/err" &&
   grep -q "are lost: 1$" "$tmp/out"; then
    ok "without_rank_filemaps_crc_checks_the_files_against_the_summary"
else
    not_ok "without_rank_filemaps_crc_checks_the_files_against_the_summary" "$(said)"
fi

dataset
run --add scr.dataset.6
run --add scr.dataset.6 --crc
if [ $status -eq 0 ] && grep -q "dataset 6 indexed complete" "$tmp/out" && [ ! -s "$tmp/err" ] && [ -f "$dset/summary.scr" ]; then
    ok "crc_of_an_intact_dataset_with_a_summary_is_complete"
else
    not_ok "crc_of_an_intact_dataset_with_a_summary_is_complete" "$(said)"
fi

done_testing
