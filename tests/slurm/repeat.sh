#!/bin/sh
# repeat.sh — run the Slurm end-to-end tests N times in a row, to catch the
# failures that come and go.
#
# usage: tests/slurm/repeat.sh N [TEST...]
#
#   N       how many times to run the tests (each run runs every TEST once,
#           one after the other; runs never overlap)
#   TEST    test scripts to run (default: every tests/slurm/test_*.sh of
#           the source tree), as paths or as names (test_relaunch.sh)
#
# From a built tree, as root, like the tests under make check:
#   top_srcdir=/path/to/source top_builddir=/path/to/build \
#       sh /path/to/source/tests/slurm/repeat.sh 10
# top_srcdir defaults to the tree this script is in, top_builddir to
# top_srcdir (a build made in the source tree); PYTHON3 and MPIRUN are
# passed on when set. Each test's output goes to
# $REPEAT_LOGS/run<K>/<test>.log (default REPEAT_LOGS:
# $top_builddir/tests/slurm/repeat-logs, emptied first); a failed test's
# lab (its cluster's logs, configuration and job files), which the test's
# next run would remove, is moved beside its log as <test>.lab.
# Prints one line per test and run (PASS, FAIL with the failed cases, or
# SKIP, and the wall time), then the tally per test and over all runs.
# Exits 0 when every run of every test passed (or skipped), 1 otherwise,
# 2 for a usage error.
set -u

usage() {
    echo "usage: $0 N [TEST...]  (N: how many runs, at least 1)" >&2
    exit 2
}

case ${1:-} in
    ''|*[!0-9]*) usage ;;
esac
runs=$1
shift
[ "$runs" -ge 1 ] || usage

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
[ -z "${PYTHON3:-}" ] || export PYTHON3
[ -z "${MPIRUN:-}" ] || export MPIRUN
if [ ! -f "$top_builddir/spank/.libs/spank_scr.so" ]; then
    echo "repeat.sh: $top_builddir is not a built tree (no spank/.libs/spank_scr.so); set top_builddir" >&2
    exit 2
fi

tests=
if [ "$#" -eq 0 ]; then
    tests=$(ls "$top_srcdir"/tests/slurm/test_*.sh)
else
    for t in "$@"; do
        case $t in
            */*) path=$t ;;
            *) path=$top_srcdir/tests/slurm/$t ;;
        esac
        [ -f "$path" ] || { echo "repeat.sh: no test $t ($path)" >&2; exit 2; }
        tests="$tests $path"
    done
fi

logs=${REPEAT_LOGS:-$top_builddir/tests/slurm/repeat-logs}
rm -rf "$logs"
mkdir -p "$logs" || exit 2

# tally: one line per test and run, "<test> PASS|FAIL|SKIP <seconds>"
tally=$logs/tally
: > "$tally"
k=1
while [ "$k" -le "$runs" ]; do
    mkdir -p "$logs/run$k"
    run_failed=0
    for t in $tests; do
        name=$(basename "$t")
        log=$logs/run$k/$name.log
        start=$(date +%s)
        (cd "$top_builddir" && sh "$t") > "$log" 2>&1
        status=$?
        took=$(($(date +%s) - start))
        if grep -q '^1\.\.0 # SKIP' "$log"; then
            result=SKIP
            detail=$(sed -n 's/^1\.\.0 # SKIP //p' "$log")
        elif [ "$status" -eq 0 ] && ! grep -q '^not ok' "$log"; then
            result=PASS
            detail=
        else
            result=FAIL
            run_failed=1
            detail="status $status; $(grep '^not ok' "$log" | sed 's/^not ok [0-9]* - //' | tr '\n' ';')"
            lab=$(sed -n 's/^# cluster files (logs, configuration) kept in //p' "$log" | tail -n 1)
            [ -z "$lab" ] || [ ! -d "$lab" ] || mv "$lab" "$logs/run$k/$name.lab"
        fi
        echo "$name $result $took" >> "$tally"
        echo "run $k/$runs: $name $result (${took} s)${detail:+: $detail}"
    done
    [ "$run_failed" -eq 0 ] || echo "run $k/$runs: failed; logs in $logs/run$k"
    k=$((k + 1))
done

echo "--- $runs runs"
for t in $tests; do
    name=$(basename "$t")
    awk -v n="$name" '$1 == n { c[$2]++; s += $3; m = ($3 > m ? $3 : m) }
        END { t = c["PASS"] + c["FAIL"] + c["SKIP"]
              printf "%s: %d passed, %d failed, %d skipped; mean %d s, longest %d s\n",
                     n, c["PASS"], c["FAIL"], c["SKIP"], t ? s / t : 0, m }' "$tally"
done
failed=$(awk '$2 == "FAIL"' "$tally" | wc -l)
echo "$(wc -l < "$tally") test runs: $((runs * $(echo $tests | wc -w) - failed)) passed or skipped, $failed failed"
[ "$failed" -eq 0 ]
