# tap.sh — TAP helpers for shell tests (source it).
#
#   ok "name"            record a passing test
#   not_ok "name" "why"  record a failing test with a diagnostic
#   check "name" CMD...  run CMD; pass if it exits 0
#   skip "name" "why"    a test that could not run here (reported as SKIP)
#   done_testing         print the plan; exit 1 if anything failed
# While tap_todo is set, results are marked "# TODO $tap_todo": a known
# failure that does not fail the run (a pass shows up as XPASS, so that the
# mark is removed once the cause is fixed).
tap_n=0
tap_failed=0
tap_todo=

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1${tap_todo:+ # TODO $tap_todo}"; }
not_ok() {
    tap_n=$((tap_n + 1))
    [ -n "$tap_todo" ] || tap_failed=$((tap_failed + 1))
    echo "not ok $tap_n - $1${tap_todo:+ # TODO $tap_todo}"
    [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/# /'
    return 0
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP ${2:-}"; }
check() {
    name=$1; shift
    if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
done_testing() {
    echo "1..$tap_n"
    [ "$tap_failed" -eq 0 ]
}
