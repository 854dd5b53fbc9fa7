#!/bin/sh
# check_format.sh — every C source keeps the layout of .clang-format (100
# columns): clang-format would change nothing. lib/scrf.h is Fortran.
# Skipped (77) where no clang-format is installed, or in a tree without
# git (a release tarball), which has no list of the sources.
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang-format > /dev/null 2>&1 || { echo "1..0 # SKIP no clang-format"; exit 77; }
files=$(cd "$src" && git ls-files '*.c' '*.h' 2> /dev/null | grep -v '^lib/scrf\.h$')
[ -n "$files" ] || { echo "1..0 # SKIP no git list of the sources"; exit 77; }
echo "1..1"
# shellcheck disable=SC2086 # one file name a word
changed=$(cd "$src" && for f in $files; do
    clang-format --style=file "$f" | cmp -s - "$f" || echo "$f"
done)
if [ -z "$changed" ]; then
    echo "ok 1 - every C source is laid out as .clang-format says"
else
    echo "not ok 1 - clang-format -i would change:" $changed
    exit 1
fi
