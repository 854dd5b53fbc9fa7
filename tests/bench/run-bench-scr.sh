#!/bin/sh
# run-bench-scr.sh — run bench_scr as `make bench` does: 4 ranks x 256 MiB for
# the speed ratios, then 1 rank flushing 1 GiB for the memory figure.
#   run-bench-scr.sh BUILD_DIR
set -eu
build=$(cd "${1:?usage: run-bench-scr.sh BUILD_DIR}" && pwd)
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
