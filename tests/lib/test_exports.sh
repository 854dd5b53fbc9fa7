#!/bin/sh
# test_exports.sh — libscr.so exports the SCR API and nothing else: every
# function it exports is an SCR_* function declared in scr.h or one of the
# Fortran bindings of scr_fortran.c, and every one of those is exported.
# Internal functions (libscr-core's, scr_cache_*, scr_comm_*, ...) stay
# inside. Skipped when configure found no linker version script.
. "$top_srcdir/tests/tap.sh"

lib=$top_builddir/lib/.libs/libscr.so
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-exports-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ "${LD_VERSION_SCRIPT:-}" != yes ]; then
    skip "libscr.so exports the SCR API alone" "the linker takes no version script"
    done_testing
    exit $?
fi
if ! command -v nm > /dev/null 2>&1; then
    skip "libscr.so exports the SCR API alone" "no nm"
    done_testing
    exit $?
fi
if [ ! -f "$lib" ]; then
    not_ok "libscr.so is built" "no $lib"
    done_testing
    exit $?
fi

# the API: functions declared in scr.h (a declaration starts at the line's
# first column, comments do not) and the bindings scr_fortran.c defines
sed -n 's/^[a-z].*[ *]\(SCR_[A-Za-z_]*\)(.*/\1/p' "$top_srcdir/lib/scr.h" > "$tmp/c"
sed -n 's/^void \(scr_[a-z_]*_\)(.*/\1/p' "$top_srcdir/lib/api/scr_fortran.c" > "$tmp/f" && sort -u -o "$tmp/f" "$tmp/f"
sort -u "$tmp/c" "$tmp/f" > "$tmp/api"
nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u > "$tmp/exported"

if [ "$(wc -l < "$tmp/c")" -ge 10 ] && [ "$(wc -l < "$tmp/f")" -ge 10 ]; then
    ok "the API is read from scr.h ($(wc -l < "$tmp/c") functions) and scr_fortran.c ($(wc -l < "$tmp/f"))"
else
    not_ok "the API is read from scr.h and scr_fortran.c" "$(cat "$tmp/c" "$tmp/f")"
fi

extra=$(comm -13 "$tmp/api" "$tmp/exported")
if [ -z "$extra" ]; then
    ok "libscr.so exports no symbol outside the SCR API"
else
    not_ok "libscr.so exports no symbol outside the SCR API" "exported but not public: $(echo $extra)"
fi

missing=$(comm -23 "$tmp/api" "$tmp/exported")
if [ -z "$missing" ]; then
    ok "libscr.so exports every function of the SCR API"
else
    not_ok "libscr.so exports every function of the SCR API" "public but not exported: $(echo $missing)"
fi

done_testing
