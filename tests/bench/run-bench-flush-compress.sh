#!/bin/sh
# run-bench-flush-compress.sh — the compressed flush (SCR_FLUSH_COMPRESS) in
# one run, each figure against an uncompressed flush (SCR_FLUSH_COMPRESS=0)
# of the same data measured in the same run, alternating rounds:
#   1. text-like data (deflate keeps about a third), synchronous flush: the
#      bytes on the prefix, compressed / uncompressed, target <= 0.50; and
#      the flush's time (its event's seconds), for reference against the
#      target of a fast disk: compressed / uncompressed <= 2.00 (deflate at
#      level 1 on one core is slower than a page-cache copy; what it saves
#      shows on a slow prefix, figure 3);
#   2. random data, synchronous flush: the probe finds it incompressible
#      and the file is copied as written; speed compressed-mode /
#      uncompressed, target >= 0.90;
#   3. a slow prefix, text-like data: the background flush held to
#      SCR_FLUSH_ASYNC_BW (default 64MB per second), which paces the bytes
#      written to the prefix, compressed or not, as a file system shared with
#      other jobs (or a slow link to it) gives a node a share of its
#      bandwidth; speed-up uncompressed / compressed, target >= 2.00.
#      Honest about what it is: a rate limit on writes, not a slow device;
#      the page cache still takes the bytes, and the limit is the one the
#      library enforces itself (util_pace.c).
# Cache and control directories in /dev/shm, the prefix on disk under
# ${TMPDIR:-/tmp}; SCR_COPY_TYPE=SINGLE, so a flush is all that runs. A
# figure that misses its target is said, never an error: the exit status is
# non-zero only when a run fails.
#   run-bench-flush-compress.sh BUILD_DIR
# BENCH_MIB: MiB per rank (128); BENCH_RANKS: ranks (2); BENCH_ROUNDS:
# alternating rounds (3); BENCH_LEVEL: the compressed runs' level (1);
# BENCH_SLOW_BW: the rate of figure 3 (64MB).
set -eu
build=$(cd "${1:?usage: run-bench-flush-compress.sh BUILD_DIR}" && pwd)
bin=$build/tests/bench/bench_flush_compress
sim="$(cd "$(dirname "$0")/../mpi" && pwd)/scr-sim-run"
mib=${BENCH_MIB:-128} np=${BENCH_RANKS:-2} rounds=${BENCH_ROUNDS:-3}
level=${BENCH_LEVEL:-1} slow_bw=${BENCH_SLOW_BW:-64MB}
work=$(mktemp -d "${TMPDIR:-/tmp}/scr-bench-compress.XXXXXX")
shm=$(mktemp -d /dev/shm/scr-bench-compress.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
chmod 644 "$work/system.conf"
export SCR_SYSTEM_CONF_FILE="$work/system.conf" SCR_PREFIX="$work/prefix" SCR_LOG_ENABLE=1 SCR_COPY_TYPE=SINGLE

# job NAME KIND [VAR=VALUE ...]: one run of np ranks on one node writing one
# checkpoint of KIND; leaves in $work NAME.seconds (the flush event's
# seconds) and NAME.bytes (the bytes of the checkpoint on the prefix)
job() {
    name=$1 kind=$2
    shift 2
    rm -rf "$shm/cache" "$shm/cntl" "$work/prefix"
    mkdir -p "$work/prefix"
    if ! (cd "$work/prefix" && env "$@" SCR_FLUSH=1 SCR_JOB_ID="fc$name$$" "$sim" -n "$np" -N 1 "$bin" \
        --mib "$mib" --kind "$kind") > "$work/$name.out"; then
        echo "run-bench-flush-compress.sh: the run '$name' ($*) failed" >&2
        exit 1
    fi
    sed -n 's/.*"event":"flush".*"seconds":\([0-9.]*\).*/\1/p' "$work/prefix/.scr/events.jsonl" | head -n 1 \
        > "$work/$name.seconds"
    du -b -s "$work/prefix/ckpt.1" | cut -f1 > "$work/$name.bytes"
    [ -s "$work/$name.seconds" ] || { echo "run-bench-flush-compress.sh: no flush event in '$name'" >&2; exit 1; }
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# the median of field (seconds or bytes) over the runs PREFIX1..PREFIXn
med() { for r in $(seq "$rounds"); do cat "$work/$1$r.$2"; done | median; }
# MODE A and MODE B alternate within each round, the other first each round
pair() {
    a=$1 b=$2 kind=$3
    shift 3
    first=$a second=$b
    for r in $(seq "$rounds"); do
        for m in $first $second; do
            if [ "$m" = "$a" ]; then job "$m$r" "$kind" "$@" SCR_FLUSH_COMPRESS=0
            else job "$m$r" "$kind" "$@" SCR_FLUSH_COMPRESS="$level"; fi
        done
        t=$first first=$second second=$t
    done
}
mibs() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
rate() { awk -v s="$1" -v m="$mib" -v n="$np" 'BEGIN { printf "%.0f MiB/s", m * n / s }'; }

echo "bench_flush_compress: SCR_FLUSH_COMPRESS=$level against 0, $np ranks x $mib MiB on 1 node, median of $rounds" \
    "alternating rounds; cache in /dev/shm, prefix under ${TMPDIR:-/tmp} (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"

pair traw tgz text
echo "1. text-like data, synchronous flush"
echo "   uncompressed: $(mibs "$(med traw bytes)") on the prefix in $(med traw seconds) s ($(rate "$(med traw seconds)"))"
echo "   compressed:   $(mibs "$(med tgz bytes)") on the prefix in $(med tgz seconds) s ($(rate "$(med tgz seconds)") of the application's bytes)"
awk -v c="$(med tgz bytes)" -v u="$(med traw bytes)" 'BEGIN { r = c / u
    printf "   bytes written compressed / uncompressed %.3f (target <= 0.50) %s\n", r, (r <= 0.5 ? "met" : "MISSED") }'
awk -v c="$(med tgz seconds)" -v u="$(med traw seconds)" 'BEGIN { r = c / u
    printf "   time compressed / uncompressed %.2f (target on a fast disk <= 2.00) %s\n", r, (r <= 2.0 ? "met" : "MISSED") }'

pair rraw rgz random
echo "2. random data, synchronous flush (the probe stores it as written)"
echo "   uncompressed:    $(mibs "$(med rraw bytes)") in $(med rraw seconds) s ($(rate "$(med rraw seconds)"))"
echo "   compressed mode: $(mibs "$(med rgz bytes)") in $(med rgz seconds) s ($(rate "$(med rgz seconds)"))"
awk -v c="$(med rgz seconds)" -v u="$(med rraw seconds)" 'BEGIN { r = u / c
    printf "   speed compressed mode / uncompressed %.2f (target >= 0.90) %s\n", r, (r >= 0.9 ? "met" : "MISSED") }'

pair sraw sgz text SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW="$slow_bw"
echo "3. a slow prefix: text-like data, background flush held to SCR_FLUSH_ASYNC_BW=$slow_bw of writes"
echo "   uncompressed: $(mibs "$(med sraw bytes)") in $(med sraw seconds) s"
echo "   compressed:   $(mibs "$(med sgz bytes)") in $(med sgz seconds) s"
awk -v c="$(med sgz seconds)" -v u="$(med sraw seconds)" 'BEGIN { r = u / c
    printf "   speed-up uncompressed / compressed time %.2f (target >= 2.00) %s\n", r, (r >= 2.0 ? "met" : "MISSED") }'
echo "   (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
