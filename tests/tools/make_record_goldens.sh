#!/bin/sh
# make_record_goldens.sh — regenerate the golden dataset records.
#
# Every tests/data/records/NAME.json becomes tests/data/records/NAME.scr,
# written by tests/tools/kvtree_ref.py, a hash file writer that shares no code
# with lib/. The JSON files are the reference: member order is the order of
# the keys in the file, so for the records the library writes in canonical
# order (filemap, rank filemap, summary, index) the JSON lists VERSION first
# and then every level sorted, integer keys numerically before the others in
# byte order. meta.json and dataset.json hold a bare record in the order its
# setters are called, since those records live inside the others. The
# -noversion, -v1 and -v5 files are layouts of older writers, kept as they
# wrote them. summary-v7.json names the two parts summary-v7.0.json and
# summary-v7.1.json, which together list what summary.json lists.
#
# The tests compare what the C modules write with these bytes, so run this
# only when a format changes on purpose, and commit both files.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
python=${PYTHON3:-python3}
for json in "$top"/tests/data/records/*.json; do
    out=${json%.json}.scr
    "$python" "$here/kvtree_ref.py" write "$json" "$out"
    echo "wrote ${out#"$top"/}"
done
