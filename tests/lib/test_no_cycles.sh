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
# libtool keeps the objects of shared code under .libs
set -- "$top_builddir"/lib/*/.libs/*.o
[ -f "$1" ] || set -- "$top_builddir"/lib/*/*.o
if [ ! -f "$1" ] || [ $# -lt 50 ]; then
    not_ok "lib/'s objects are built" "found $# in $top_builddir/lib/*/"
    done_testing
    exit $?
fi
if out=$("$PYTHON3" "$top_srcdir/tests/tools/object_cycles.py" "$@" 2>&1); then
    ok "no cycle among lib/'s files ($# objects)"
else
    not_ok "no cycle among lib/'s files" "$out"
fi
done_testing
