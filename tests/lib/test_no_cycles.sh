#!/bin/sh
# test_no_cycles.sh — no two files of lib/ depend on each other in a circle.
#
# A file depends on another when its object uses a symbol the other's
# defines (tests/tools/object_cycles.py reads them with nm). The layers
# already keep folders from calling upward (test_layers.sh); this keeps the
# files inside a folder in an order as well, so that each can be read, and
# tested, from the ones below it.
. "$top_srcdir/tests/tap.sh"

if [ -z "${PYTHON3:-}" ] || ! command -v nm > /dev/null 2>&1; then
    skip "no cycle among lib/'s files" "needs python3 and nm"
    done_testing
    exit $?
fi
# each folder's archive (its current objects, none left from an older
# build), libscr-slurm's, and the API's objects, which libscr links itself
set -- "$top_builddir"/lib/*/.libs/libscr-*.a "$top_builddir"/lib/.libs/libscr-slurm.a \
    "$top_builddir"/lib/api/.libs/libscr_la-*.o
missing=
for f in "$@"; do [ -f "$f" ] || missing="$missing $f"; done
if [ -n "$missing" ] || [ $# -lt 14 ]; then
    not_ok "lib/'s archives are built" "found $#, missing:$missing"
    done_testing
    exit $?
fi
objects=$(for f in "$@"; do case $f in *.a) ar t "$f" ;; *) echo "$f" ;; esac; done | wc -l)
if out=$("$PYTHON3" "$top_srcdir/tests/tools/object_cycles.py" "$@" 2>&1); then
    ok "no cycle among lib/'s files ($objects objects in $# archives and files)"
else
    not_ok "no cycle among lib/'s files" "$out"
fi
done_testing
