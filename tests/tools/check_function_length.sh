#!/bin/sh
# check_function_length.sh — no function defined in lib/**/*.c is longer than
# 60 lines, counted from the first line of its signature to its closing brace.
#
# It reads the layout .clang-format gives (check_format.sh keeps it so): a
# top-level definition starts on a line that begins with a letter, holds a '('
# and does not end in ';', its body opens on a line that is exactly '{' and
# ends on the next line that is exactly '}'.
#
# tests/tools/long_functions.allow lists, one "path function" pair a line
# ('#' starts a comment), the functions still allowed to be longer while they
# are being split. Fails naming each long function not listed
# (file:line name length) and each listed one that is no longer long (a stale
# entry, to be removed from the list).
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
limit=60
allow=$src/tests/tools/long_functions.allow

[ -d "$src/lib" ] || { echo "1..0 # SKIP $src/lib not found"; exit 0; }
[ -r "$allow" ] || { echo "1..1"; echo "not ok 1 - cannot read $allow"; exit 1; }

# "path line name length" for every definition longer than the limit
long=$(cd "$src" && find lib -name '*.c' | LC_ALL=C sort | while read -r f; do
    awk -v f="$f" -v limit="$limit" '
    function reset() { state = 0 }
    function try_start() {
        if ($0 ~ /^[A-Za-z]/ && $0 ~ /\(/ && $0 !~ /;$/) {
            head = $0; sub(/\(.*/, "", head)
            n = split(head, w, /[^A-Za-z0-9_]+/)
            name = w[n]; while (name == "" && n > 1) name = w[--n]
            start = FNR; state = 1
        }
    }
    BEGIN { state = 0 }
    state == 2 {
        if ($0 == "}") {
            len = FNR - start + 1
            if (len > limit) print f, start, name, len
            reset()
        }
        next
    }
    state == 1 {
        if ($0 == "{") { state = 2; next }
        if ($0 ~ /^[ \t]/ && $0 !~ /;$/) next  # signature continues
        reset()                                   # a declaration, not a definition
    }
    state == 0 { try_start() }
    ' "$f"
done)

# the allowlist as "path function" lines, comments and blank lines dropped
listed=$(sed 's/#.*//' "$allow" | awk 'NF { print $1, $2 }')

fail=0
report=""
nl='
'
oldifs=$IFS
IFS=$nl
for entry in $long; do
    IFS=' ' read -r f line name len <<EOF
$entry
EOF
    if ! printf '%s\n' "$listed" | grep -qxF "$f $name"; then
        report="$report${nl}#   $f:$line $name $len"
        fail=1
    fi
done
stale=""
for pair in $listed; do
    IFS=' ' read -r f name <<EOF
$pair
EOF
    if ! printf '%s\n' "$long" | awk -v f="$f" -v n="$name" '$1 == f && $3 == n { found = 1 } END { exit !found }'; then
        stale="$stale${nl}#   $f $name"
        fail=1
    fi
done
IFS=$oldifs

echo "1..1"
if [ "$fail" -eq 0 ]; then
    echo "ok 1 - no function in lib/ is over $limit lines but those listed in long_functions.allow"
    exit 0
fi
echo "not ok 1 - function length limit of $limit lines"
[ -z "$report" ] || printf '# functions over %s lines (file:line name length):%s\n' "$limit" "$report"
[ -z "$stale" ] || printf '# stale entries of long_functions.allow (no longer over %s lines):%s\n' "$limit" "$stale"
exit 1
