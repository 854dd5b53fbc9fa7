#!/bin/sh
# run-bench-scale.sh — run bench_scale as `make bench-scale` does: for each
# number of ranks P (BENCH_SCALE_RANKS, default "256 1024"; 4096 and 16384
# work too), P ranks under SimGrid's SMPI, 4 per simulated host of
# tests/bench/fattree-4096.xml, XOR sets of 8, 64 KiB per rank
# (BENCH_SCALE_KIB), a flush every 2 checkpoints:
#   1. SCR_Init on an empty cache, 4 checkpoints, SCR_Finalize;
#   2. host1's cache and control directories deleted: SCR_Init rebuilds
#      them, the restart is read back, SCR_Finalize;
#   3. every cache deleted: SCR_Init fetches from the prefix, the same.
# Prints, for each P, each phase's simulated seconds (the slowest rank),
# the wall-clock seconds it took to simulate, the messages and bytes into
# rank 0 (point to point; collective calls and what they brought), and the
# peak memory of the simulation; then each run's wall time. The flush is
# the second checkpoint's completion less the first's (checkpoints 4 and 3:
# both encode, 4 also flushes).
#   run-bench-scale.sh BUILD_DIR
# (BENCH_SCALE_SMPI_ARGS adds smpirun options, split on blanks, and the
# output names them: with --cfg=smpi/simulate-computation:no the simulated
# seconds are the messages' alone, without the ranks' CPU time.)
#
# SMPI charges each MPI_Iprobe and MPI_Test simulated time (smpi/iprobe,
# smpi/test: 0.1 ms), and by default makes each unsuccessful one cost more
# than the last, through one counter that every rank of the simulation
# shares: a polling loop (libscr's sparse exchange polls MPI_Iprobe) then
# costs simulated time that grows with the number of ranks polling, not
# with anything they wait for. smpi/grow-injected-times:no keeps each poll
# at 0.1 ms. And an MPI_Test of a nonblocking collective tests each of its
# requests, each charged alike: SMPI's MPI_Ibarrier gives rank 0 two
# requests per rank, so each test of it cost rank 0 0.05 s at 256 ranks
# (SCR_Init that rebuilds a lost host: 0.33 s, against 0.02 s with
# smpi/test:0). MPI_Iprobe, which every turn of the exchange's loop calls,
# still moves the clock on.
#
# SMPI's default collectives are in part linear at the root (its barrier,
# its gather): rank 0 then waits on a request per rank, which costs the
# simulation time in P^2, though a real MPI's tree or recursive doubling
# costs log P rounds. The runs choose those algorithms by name (the
# smpi/<collective> options below), as Open MPI and MPICH would at these
# sizes for small messages; except that the all-reduce is a binomial reduce
# then a broadcast and the barrier a fan-in then fan-out tree (Open MPI's
# basic and tree algorithms), not recursive doubling. Those take 2 log P
# rounds rather than log P, but 2P messages rather than P log P, and the
# simulation's wall time goes with its messages: at 1024 ranks an
# all-reduce simulates in 16 ms rather than 90 and a barrier in 15 ms
# rather than 84, for 10-20% more simulated time.
# More than 4096 ranks need `sysctl -w vm.max_map_count=1048576` (root):
# each rank maps its own copy of the application. And every rank's open
# files share the one process's descriptors (`ulimit -n`): a rank holds
# one through the XOR encode, and 16384 ranks ran within a limit of 20000.
# With gnuplot on PATH, the simulated seconds of each phase against P go
# to a PNG ($BENCH_SCALE_PLOT, default bench-scale.png in the build
# directory), their table to the same name with .dat.
set -eu
build=$(cd "${1:?usage: run-bench-scale.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
app=$build/tests/bench/bench_scale
platform=$here/fattree-4096.xml
smpirun=${SMPIRUN:-smpirun}
kib=${BENCH_SCALE_KIB:-64}
# The caches and the prefix in memory (tmpfs). SMPI charges each rank the
# CPU time its file system calls take on this machine, and no file system
# here is a cluster's: in tmpfs an fsync costs nothing (a real one would
# stall every simulated rank at once), and a create costs the same for the
# first file and the 16384th. On ext4, after the thousands of files each
# run deletes, every create scans for a free inode, which grew the
# simulated flush with P. A parallel file system's cost is not modelled.
work=$(mktemp -d "${TMPDIR:-/tmp}/scr-bench-scale.XXXXXX")
shm=$(mktemp -d /dev/shm/scr-bench-scale.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
# SMPI copies the application once per rank (smpi/privatization:dlopen):
# without its debugging sections that is a quarter of the bytes
cp "$app" "$work/bench_scale"
app=$work/bench_scale
strip --strip-debug "$app" 2> /dev/null || true
# the control and cache bases may only come from a system file that root owns
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
chmod 644 "$work/system.conf"
export SCR_SYSTEM_CONF_FILE="$work/system.conf" SCR_PREFIX="$shm/prefix"
export SCR_COPY_TYPE=XOR SCR_SET_SIZE=8 SCR_FLUSH=2 SCR_CACHE_SIZE=2
# Every rank of the simulation allocates from the one process's heap, on
# the one thread, and SMPI charges each rank the CPU time of its own calls
# to malloc and free. glibc keeps small freed chunks in "fastbins" and
# merges them all at the next large allocation, so whichever rank makes it
# paid for the frees of every rank that ran since: one step of a checkpoint
# took 34 ms at 1024 ranks and 150 ms at 4096, against 0.6 ms without
# fastbins. Its per-thread cache holds 7 chunks of a size; the rest go to
# bins that the next allocation sorts, whoever freed them. mxfast=0 turns
# fastbins off, and a cache of 65535 chunks a size keeps a rank's small
# allocations and frees to itself, as on a cluster, where each rank has a
# heap of its own (SCR_Init rebuilding a host at 4096 ranks: 0.077 s of
# simulated time with fastbins off, 0.048 s with the larger cache too).
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.mxfast=0:glibc.malloc.tcache_count=65535"

collectives="--cfg=smpi/barrier:ompi_tree --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial
 --cfg=smpi/allreduce:redbcast --cfg=smpi/gather:ompi_binomial --cfg=smpi/allgather:rdb --cfg=smpi/allgatherv:mpich_rdb
 --log=smpi_coll.thres:warning"
plot=${BENCH_SCALE_PLOT:-$build/bench-scale.png}
# what the figures were measured with, beyond the settings above
extra=${BENCH_SCALE_SMPI_ARGS:+smpirun $BENCH_SCALE_SMPI_ARGS}
: > "$work/plot.dat"

# run P WHAT: one simulation; its phase lines go to $work/phases.P
run() {
    t0=$(date +%s.%N)
    (cd "$shm/prefix" && "$smpirun" -np "$1" -platform "$platform" -hostfile "$work/hosts.$1" \
        --cfg=smpi/privatization:dlopen --cfg=smpi/host-speed:1Gf --log=xbt_cfg.thres:warning \
        --log=smpi_config.thres:warning --cfg=smpi/grow-injected-times:no \
        --cfg=smpi/test:0 $collectives ${BENCH_SCALE_SMPI_ARGS:-} "$app" --run "$2" --kib "$kib") > "$work/out.$1.$2" 2> "$work/err.$1.$2" || {
        echo "bench-scale: $1 ranks, run $2 failed:" >&2
        tail -20 "$work/err.$1.$2" >&2
        exit 1
    }
    t1=$(date +%s.%N)
    grep '^phase ' "$work/out.$1.$2" >> "$work/phases.$1"
    grep '^restarted' "$work/out.$1.$2" | sed "s/^/  $2: /" || true
    echo "run $2 $(echo "$t1 - $t0" | bc)" >> "$work/runs.$1"
}

for p in ${BENCH_SCALE_RANKS:-256 1024}; do
    hosts=$((p / 4))
    [ $((hosts * 4)) -eq "$p" ] && [ "$hosts" -ge 2 ] && [ "$hosts" -le 4096 ] || {
        echo "bench-scale: $p ranks: need a multiple of 4, 8 to 16384" >&2
        exit 1
    }
    h=0
    while [ "$h" -lt "$hosts" ]; do printf 'host%d\nhost%d\nhost%d\nhost%d\n' $h $h $h $h; h=$((h + 1)); done \
        > "$work/hosts.$p"
    rm -rf "$shm/cache" "$shm/cntl" "$shm/prefix" && mkdir "$shm/prefix"
    export SCR_JOB_ID=scale$p
    echo "bench-scale: $p ranks on $hosts hosts, XOR sets of 8, $kib KiB per rank, SCR_FLUSH=2${extra:+; $extra}"
    run "$p" write
    rm -rf "$shm/cache/host1" "$shm/cntl/host1"
    run "$p" rebuild
    rm -rf "$shm/cache" "$shm/cntl"
    run "$p" fetch
    awk -v p="$p" '
        BEGIN { printf "%-26s %10s %9s %9s %11s %9s %11s %8s %8s\n", "phase (" p " ranks)", "sim s", "wall s",
                       "p2p msgs", "p2p bytes", "coll", "coll bytes", "peak MiB", "polls" }
        { printf "%-26s %10.6f %9.3f %9d %11d %9d %11d %8d %8d\n", $2, $4, $6, $8, $10, $12, $14, $16, $18
          sim[$2] = $4; wall[$2] = $6 }
        END { if ("complete_checkpoint_4" in sim)
                printf "%-26s %10.6f %9.3f   (checkpoint 4 less checkpoint 3)\n", "flush",
                       sim["complete_checkpoint_4"] - sim["complete_checkpoint_3"],
                       wall["complete_checkpoint_4"] - wall["complete_checkpoint_3"] }' "$work/phases.$p"
    awk '{ printf "  wall-clock of the %s run: %.1f s\n", $2, $3 }' "$work/runs.$p"
    awk -v p="$p" '{ sim[$2] = $4 }
        END { printf "%d %.6f %.6f %.6f %.6f %.6f %.6f\n", p, sim["init_empty_cache"], sim["complete_checkpoint_3"],
                     sim["complete_checkpoint_4"] - sim["complete_checkpoint_3"], sim["init_rebuild_lost_host"],
                     sim["init_fetch_from_prefix"], sim["finalize"] }' "$work/phases.$p" >> "$work/plot.dat"
done
{
    echo "# P  init_empty  checkpoint_encode  flush  init_rebuild  init_fetch  finalize (simulated s)"
    cat "$work/plot.dat"
} > "${plot%.png}.dat"
if command -v gnuplot > /dev/null 2>&1; then
    gnuplot <<PLOT
set terminal pngcairo size 900,560 noenhanced
set output "$plot"
set title "libscr under SMPI: XOR sets of 8, $kib KiB a rank, 4 ranks a host${extra:+\\n$extra}"
set xlabel "ranks (P)"
set ylabel "simulated seconds (slowest rank)"
set logscale xy 2
set key left top
set grid
plot "$work/plot.dat" using 1:2 with linespoints title "SCR_Init, empty cache", \
     "" using 1:3 with linespoints title "checkpoint with its XOR encode", \
     "" using 1:4 with linespoints title "the flush", \
     "" using 1:5 with linespoints title "SCR_Init rebuilding a lost host", \
     "" using 1:6 with linespoints title "SCR_Init fetching from the prefix", \
     "" using 1:7 with linespoints title "SCR_Finalize"
PLOT
    echo "bench-scale: plot in $plot, table in ${plot%.png}.dat"
else
    echo "bench-scale: no gnuplot on PATH: table in ${plot%.png}.dat, no plot"
fi
