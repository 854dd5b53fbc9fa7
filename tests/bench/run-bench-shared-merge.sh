#!/bin/sh
# run-bench-shared-merge.sh — a checkpoint of one file that ranks on two
# simulated nodes write parts of, from SCR_Start_checkpoint to
# SCR_Complete_checkpoint returning (the application's writes included):
# with the default settings (each node's piece in cache, merged on the
# prefix at completion) against SCR_CACHE_BYPASS=1 (the file written in
# place), measured in the same run, alternating, the median of each mode.
# The ratio merge / bypass is said, with no target: the merge writes every
# byte to the prefix once, as bypass does, after writing it to cache once.
# Cache and control directories in /dev/shm, the prefix on disk under
# ${TMPDIR:-/tmp}. The exit status is non-zero only when a run fails.
#   run-bench-shared-merge.sh BUILD_DIR
# BENCH_MIB: MiB per rank (64); BENCH_RANKS: ranks (4, on 2 nodes);
# BENCH_ROUNDS: alternating rounds (3); BENCH_CKPTS: checkpoints a run (3).
set -eu
build=$(cd "${1:?usage: run-bench-shared-merge.sh BUILD_DIR}" && pwd)
bin=$build/tests/bench/bench_shared_merge
sim="$(cd "$(dirname "$0")/../mpi" && pwd)/scr-sim-run"
mib=${BENCH_MIB:-64} np=${BENCH_RANKS:-4} rounds=${BENCH_ROUNDS:-3} ckpts=${BENCH_CKPTS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/scr-bench-shared.XXXXXX")
shm=$(mktemp -d /dev/shm/scr-bench-shared.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
# the control and cache bases may only come from a system file that root owns
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
chmod 644 "$work/system.conf"
export SCR_SYSTEM_CONF_FILE="$work/system.conf" SCR_PREFIX="$work/prefix"

# job NAME [VAR=VALUE ...]: one run on 2 simulated nodes; its seconds a
# checkpoint are added to $work/NAME.times
job() {
    name=$1
    shift
    rm -rf "$shm/cache" "$shm/cntl" "$work/prefix"
    mkdir -p "$work/prefix"
    if ! (cd "$work/prefix" && env "$@" SCR_JOB_ID="sm$name$$" "$sim" -n "$np" -N 2 "$bin" --mib "$mib" \
        --ckpts "$ckpts") > "$work/$name.out"; then
        echo "run-bench-shared-merge.sh: the run '$name' ($*) failed" >&2
        exit 1
    fi
    size=$(stat -c %s "$work/prefix/ckpt.$ckpts/shared.dat")
    if [ "$size" -ne $((np * mib * 1048576)) ]; then
        echo "run-bench-shared-merge.sh: the run '$name' left ckpt.$ckpts/shared.dat of $size bytes" >&2
        exit 1
    fi
    awk '/^ckpt/ { print $4 }' "$work/$name.out" >> "$work/$name.times"
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

i=0
while [ "$i" -lt "$rounds" ]; do
    job bypass SCR_CACHE_BYPASS=1
    job merge
    i=$((i + 1))
done
b=$(median "$work/bypass.times") m=$(median "$work/merge.times")
echo "bench_shared_merge: one file, $np ranks on 2 nodes, $mib MiB a rank, $((rounds * ckpts)) checkpoints a mode"
echo "  SCR_CACHE_BYPASS=1 (written in place)  median $b s"
awk -v m="$m" -v b="$b" 'BEGIN { printf "  cache, pieces merged on the prefix    median %s s   ratio merge / bypass %.2f\n", m, m / b }'
