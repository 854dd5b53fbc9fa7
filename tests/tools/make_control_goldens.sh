#!/bin/sh
# make_control_goldens.sh — regenerate the golden control records.
#
# Every tests/data/control/NAME.json becomes tests/data/control/NAME.scr,
# written by tests/tools/kvtree_ref.py, a hash file writer that shares no code
# with lib/. The tests compare what the C modules write with these bytes, so
# run this only when a format changes on purpose, and commit both files.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
python=${PYTHON3:-python3}
for json in "$top"/tests/data/control/*.json; do
    out=${json%.json}.scr
    "$python" "$here/kvtree_ref.py" write "$json" "$out"
    echo "wrote ${out#"$top"/}"
done
