#!/bin/sh
# run-bench-scr.sh — run bench_scr as `make bench` does: 4 ranks x 256 MiB for
# the speed ratios, then 1 rank flushing 1 GiB for the memory figure, then the
# redundancy schemes, each beside its floor on this machine (bench_floor).
#   run-bench-scr.sh BUILD_DIR
set -eu
build=$(cd "${1:?usage: run-bench-scr.sh BUILD_DIR}" && pwd)
sim="$(cd "$(dirname "$0")/../mpi" && pwd)/scr-sim-run"
work=$(mktemp -d "${TMPDIR:-/tmp}/scr-bench.XXXXXX")
shm=$(mktemp -d /dev/shm/scr-bench.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
mkdir -p "$work/prefix"
# the control and cache bases may only come from a system file that root owns
cat > "$work/system.conf" <<CONF
SCR_CNTL_BASE=$shm/cntl
SCR_CACHE_BASE=$shm/cache
CONF
chmod 644 "$work/system.conf"
export SCR_SYSTEM_CONF_FILE="$work/system.conf" SCR_PREFIX="$work/prefix" SCR_JOB_ID=bench$$
export SCR_FLUSH=0 SCR_CACHE_SIZE=2
cd "$work/prefix"
run() { mpirun --oversubscribe --allow-run-as-root "$@"; }
run -np 4 "$build/tests/bench/bench_scr" --mib "${BENCH_MIB:-256}" --plain-dir "$shm"
rm -rf "$shm/cache" "$shm/cntl" "$work/prefix"/* "$work/prefix"/.scr
SCR_JOB_ID=bench1g$$ run -np 1 "$build/tests/bench/bench_scr" --mib "${BENCH_BIG_MIB:-1024}" --plain-dir "$shm"

# Redundancy schemes: 4 ranks as 4 simulated nodes, each scheme's checkpoint
# time as a ratio to SINGLE measured in the same run (SINGLE time / scheme's).
echo "bench_scr: checkpoint of 4 ranks x ${BENCH_MIB:-256} MiB as 4 nodes, by redundancy scheme"
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
single='' ratios=''
for type in SINGLE PARTNER XOR RS; do
    rm -rf "$shm/cache" "$shm/cntl"
    t=$(SCR_COPY_TYPE=$type SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_JOB_ID=red$type$$ \
        "$sim" -n 4 -N 4 "$build/tests/bench/bench_scr" --mib "${BENCH_MIB:-256}" --only-checkpoint |
        sed -n 's/^  checkpoint *\([0-9.]*\) s.*/\1/p')
    [ -n "$single" ] || single=$t
    awk -v t="$t" -v s="$single" -v n="$type" 'BEGIN { printf "  %-8s %7.3f s   ratio to SINGLE %.2f\n", n, t, s / t }'
    ratios="$ratios $type=$(awk -v t="$t" -v s="$single" 'BEGIN { printf "%.2f", s / t }')"
done
targets="  targets: XOR (set of 4) >= 0.80, RS (N=4, k=2) >= 0.60, PARTNER >= 0.60"
echo "$targets"

# How near each scheme is to the best it could do here: bench_floor times the
# bare work a scheme cannot avoid, with the same ranks, nodes and sizes. Its
# ratios are to a plain write, where the schemes' are to SINGLE, which also
# pays for libscr's own records: a scheme can come out a little above its
# bare floor.
rm -rf "$shm/cache" "$shm/cntl"
floor=$("$sim" -n 4 -N 4 "$build/tests/bench/bench_floor" --mib "${BENCH_MIB:-256}" --dir "$shm")
echo "$floor"
echo "bench_floor: each scheme's ratio to SINGLE against its floor on this machine and its target"
for type in PARTNER XOR RS; do
    case $type in XOR) target=0.80 ;; *) target=0.60 ;; esac
    measured=$(echo "$ratios" | tr ' ' '\n' | sed -n "s/^$type=//p")
    model=$(echo "$floor" | sed -n "s/^  floor $type model \([0-9.]*\).*/\1/p")
    bare=$(echo "$floor" | sed -n "s/^  floor $type model [0-9.]* bare \([0-9.]*\).*/\1/p")
    printf '  %-8s %s (floor on this machine: model %s%s; target %s)\n' \
        "$type" "$measured" "$model" "${bare:+, bare $bare}" "$target"
done

# A restart that rebuilds one lost node against one with nothing lost.
echo "bench_scr: SCR_Init of 4 ranks as 4 nodes after an XOR checkpoint of ${BENCH_MIB:-256} MiB per rank"
rm -rf "$shm/cache" "$shm/cntl"
export SCR_COPY_TYPE=XOR SCR_SET_SIZE=4 SCR_JOB_ID=rebuild$$
"$sim" -n 4 -N 4 "$build/tests/bench/bench_scr" --mib "${BENCH_MIB:-256}" --only-checkpoint > /dev/null
cp -a "$shm/cache" "$shm/cache.saved" && cp -a "$shm/cntl" "$shm/cntl.saved"
init_time() {
    "$sim" -n 4 -N 4 "$build/tests/bench/bench_scr" --mib 1 --only-checkpoint |
        sed -n 's/^  SCR_Init *\([0-9.]*\) s.*/\1/p'
}
keep=$(init_time)
rm -rf "$shm/cache" "$shm/cntl" && cp -a "$shm/cache.saved" "$shm/cache" && cp -a "$shm/cntl.saved" "$shm/cntl"
rm -rf "$shm/cache/node1" "$shm/cntl/node1"
rebuild=$(init_time)
awk -v k="$keep" -v r="$rebuild" 'BEGIN { printf "  nothing lost %7.3f s   one node rebuilt %7.3f s   ratio %.2f\n", k, r, k / r }'
