#!/bin/sh
# test_versions.sh — every command's --version names this library's version
# (configure.ac's AC_INIT) and the SCR API version it implements (lib/scr.h's
# SCR_VERSION), in one line: "<command> (scr) 0.1.0 (implements the SCR
# 3.1.0 API)". The versions are read from those two files, so the test
# follows them.
. "$top_srcdir/tests/tap.sh"

lib_version=$(sed -n 's/^AC_INIT(\[scr\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
api_version=$(sed -n 's/^#define SCR_VERSION "v\([0-9.]*\)"$/\1/p' "$top_srcdir/lib/scr.h")
check "configure.ac_names_the_library_version" test -n "$lib_version"
check "scr.h_names_the_API_version" test -n "$api_version"

for cmd in scr-adopt scr-drill scr-halt scr-index scr-list-down-nodes scr-log scr-print scr-run scr-scavenge; do
    want="$cmd (scr) $lib_version (implements the SCR $api_version API)"
    got=$("$top_builddir/cli/$cmd" --version 2>&1)
    if [ "$got" = "$want" ]; then
        ok "${cmd}_--version_names_both_versions"
    else
        not_ok "${cmd}_--version_names_both_versions" "expected: $want
got: $got"
    fi
done

done_testing
