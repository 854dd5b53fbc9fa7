#!/bin/sh
# run-bench-flush-sync.sh — the synchronous flush against `cp` plus `fsync`
# of the same files, both measured in the same run:
#   synchronous flush / (cp + fsync), target <= 0.95.
# Each round runs the application (bench_flush_compress, random bytes, so
# that nothing depends on compression) with SCR_FLUSH=1: every rank writes
# one file of BENCH_MIB MiB into cache and its SCR_Complete_output flushes
# it to the prefix (copy, CRC-32 as SCR_CRC_ON_FLUSH asks, fsync, records);
# the flush's time is its event's seconds. Then the same cached files are
# copied by `cp` into a fresh directory of the prefix, one `cp` per rank at
# once as the flush runs its ranks, each followed by `sync FILE` (an fsync
# of the copy), timed from the first start to the last end. The two go
# first in turn from round to round, with a `sync` before each so that
# neither inherits the other's dirty pages. The figure is the median of the
# rounds' ratios: two measurements seconds apart, which load from other
# work on the machine disturbs less than it does two medians. Cache in
# /dev/shm, the prefix on disk under ${TMPDIR:-/tmp}; SCR_COPY_TYPE=SINGLE,
# so the flush is all that runs. A figure that misses its target is said,
# never an error: the exit status is non-zero only when a run fails.
#   run-bench-flush-sync.sh BUILD_DIR
# BENCH_MIB: MiB per rank (256); BENCH_RANKS: ranks (4); BENCH_ROUNDS:
# rounds (7). Other SCR_* variables pass through (SCR_FILE_BUF_SIZE, ...).
set -eu
build=$(cd "${1:?usage: run-bench-flush-sync.sh BUILD_DIR}" && pwd)
bin=$build/tests/bench/bench_flush_compress
sim="$(cd "$(dirname "$0")/../mpi" && pwd)/scr-sim-run"
mib=${BENCH_MIB:-256} np=${BENCH_RANKS:-4} rounds=${BENCH_ROUNDS:-7}
work=$(mktemp -d "${TMPDIR:-/tmp}/scr-bench-flush-sync.XXXXXX")
shm=$(mktemp -d /dev/shm/scr-bench-flush-sync.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
chmod 644 "$work/system.conf"
export SCR_SYSTEM_CONF_FILE="$work/system.conf" SCR_PREFIX="$work/prefix" SCR_LOG_ENABLE=1 SCR_COPY_TYPE=SINGLE

now() { date +%s.%N; }

# flush R: one run; its flush's seconds go to $work/flush.R
flush() {
    rm -rf "$shm/cache" "$shm/cntl" "$work/prefix"
    mkdir -p "$work/prefix"
    sync
    if ! (cd "$work/prefix" && env SCR_FLUSH=1 SCR_FLUSH_ASYNC=0 SCR_FLUSH_COMPRESS=0 SCR_JOB_ID="fs$1$$" \
        "$sim" -n "$np" -N 1 "$bin" --mib "$mib" --kind random) > "$work/run.$1.out"; then
        echo "run-bench-flush-sync.sh: run $1 failed" >&2
        exit 1
    fi
    sed -n 's/.*"event":"flush".*"seconds":\([0-9.]*\).*/\1/p' "$work/prefix/.scr/events.jsonl" | head -n 1 \
        > "$work/flush.$1"
    [ -s "$work/flush.$1" ] || { echo "run-bench-flush-sync.sh: no flush event in run $1" >&2; exit 1; }
}

# cp R: cp + fsync of the files the last run left in cache; seconds to $work/cp.R
cp_sync() {
    files=$(find "$shm/cache" -type f -name 'rank*.dat' | sort)
    [ "$(echo "$files" | wc -l)" -eq "$np" ] || { echo "run-bench-flush-sync.sh: $np cached files expected" >&2; exit 1; }
    rm -rf "$work/cp"
    mkdir -p "$work/cp"
    sync
    t0=$(now)
    for f in $files; do
        (cp "$f" "$work/cp/$(basename "$f")" && sync "$work/cp/$(basename "$f")") &
    done
    wait
    t1=$(now)
    [ "$(find "$work/cp" -type f | wc -l)" -eq "$np" ] || { echo "run-bench-flush-sync.sh: a cp failed" >&2; exit 1; }
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$work/cp.$1"
    rm -rf "$work/cp"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "bench_flush_sync: synchronous flush against cp + fsync, $np ranks x $mib MiB on 1 node, $rounds rounds;" \
    "SCR_FILE_BUF_SIZE=${SCR_FILE_BUF_SIZE:-default}; cache in /dev/shm, prefix under ${TMPDIR:-/tmp}" \
    "(load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq "$rounds"); do
    # the cached files are there only after a run: in even rounds cp copies
    # the files of the run before it (the same bytes), so that it goes first
    if [ $((r % 2)) -eq 0 ]; then
        cp_sync "$r"
        flush "$r"
    else
        flush "$r"
        cp_sync "$r"
    fi
    awk -v f="$(cat "$work/flush.$r")" -v c="$(cat "$work/cp.$r")" \
        'BEGIN { printf "  round %d: flush %.3f s, cp + fsync %.3f s, ratio %.3f\n", '"$r"', f, c, f / c }'
done
f=$(for r in $(seq "$rounds"); do cat "$work/flush.$r"; done | median)
c=$(for r in $(seq "$rounds"); do cat "$work/cp.$r"; done | median)
q=$(for r in $(seq "$rounds"); do awk -v f="$(cat "$work/flush.$r")" -v c="$(cat "$work/cp.$r")" \
    'BEGIN { print f / c }'; done | median)
awk -v f="$f" -v c="$c" -v q="$q" -v mib="$mib" -v np="$np" 'BEGIN {
    printf "  median: flush %.3f s (%.0f MiB/s), cp + fsync %.3f s (%.0f MiB/s)\n", f, mib * np / f, c, mib * np / c
    printf "  ratio of the medians %.3f\n", f / c
    printf "  synchronous flush / (cp + fsync) %.3f, the median of the rounds'"'"' ratios (target <= 0.95) %s\n",
        q, (q <= 0.95 ? "met" : "MISSED") }'
echo "  (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
