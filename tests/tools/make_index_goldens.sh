#!/bin/sh
# make_index_goldens.sh — regenerate the golden index and summaries of the
# scr-index tests.
#
# tests/data/index/index.json becomes tests/data/index/index.scr, written by
# tests/tools/kvtree_ref.py, a hash file writer that shares no code with lib/.
# The JSON lists VERSION first and then every level in the order the library
# writes (datasets by id, keys sorted), with fixed times so that the listing
# is the same everywhere. list.txt and list.expected.json beside it are what
# scr-index must print for this index; when index.json changes, update them by
# hand and check each value, since they are what the command is tested
# against. Commit index.json and index.scr together.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/../data/index" && pwd)
"${PYTHON3:-python3}" "$here/kvtree_ref.py" write "$data/index.json" "$data/index.scr"
echo "wrote tests/data/index/index.scr"
# the summaries scr-index --rebuild-index makes an index from
# (rebuild.expected.json is what it must print for them, checked by hand)
for id in 1 2 3 5; do
    "${PYTHON3:-python3}" "$here/kvtree_ref.py" write "$data/rebuild/summary.$id.json" "$data/rebuild/summary.$id.scr"
    echo "wrote tests/data/index/rebuild/summary.$id.scr"
done
