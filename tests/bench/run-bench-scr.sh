#!/bin/sh
# run-bench-scr.sh — run bench_scr as `make bench` does: 4 ranks x 256 MiB for
# the speed ratios, then 1 rank flushing 1 GiB for the memory figure, then the
# redundancy schemes, each beside its floor on this machine (bench_floor),
# then the CRCs off the application's time (SINGLE, restart, PARTNER, each
# against its bare operation) and what the CRCs of files in cache cost
# (crc: those two parts alone).
#   run-bench-scr.sh BUILD_DIR [crc]
# (BENCH_MIB sets the MiB per rank; BENCH_KEEP_TIMES=FILE keeps every time
# of the CRC part, one "TYPE MODE WHAT SECONDS" a line.)
set -eu
only=${2:-all}
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
if [ "$only" != crc ]; then
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
fi

# CRCs off the application's time: each figure is a ratio to the bare
# operation measured in the same run (lower is better), the median of five
# runs of 4 ranks as 2 nodes:
#   - a SINGLE checkpoint against writing the same bytes into the same cache
#     without SCR (--beside-plain: medians of five alternating rounds, with
#     200 ms of idle "computation" between rounds, when SCR's thread
#     computes the CRCs);
#   - SCR_Init through the first successful SCR_Complete_restart from cache,
#     the application's read of its file included, against that read alone
#     (--restart, on the cache the checkpoint run left);
#   - a PARTNER checkpoint against the SINGLE one of the same round, with
#     the encode in the foreground (MPI_Init, as SCR's examples start MPI)
#     and in the background (MPI_THREAD_MULTIPLE, SCR_ENCODE_ASYNC=1).
echo "bench_scr: CRCs off the application's time, 4 ranks x ${BENCH_MIB:-256} MiB as 2 nodes (median of 5 runs)"
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
free_ckpt() { # TYPE [--thread-multiple]: "checkpoint plain" medians of one run
    SCR_COPY_TYPE="$1" SCR_JOB_ID="free$$" "$sim" -n 4 -N 2 "$build/tests/bench/bench_scr" \
        --mib "${BENCH_MIB:-256}" --only-checkpoint --beside-plain --gap-ms 200 ${2:-} |
        awk '/^  checkpoint/ { c = $2 } /^  plain write in cache/ { p = $5 } END { print c, p }'
}
for _ in 1 2 3 4 5; do
    rm -rf "$shm/cache" "$shm/cntl"
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(free_ckpt SINGLE)
    single=$1
    echo "single $(awk -v c="$1" -v p="$2" 'BEGIN { printf "%.3f %.3f %.3f", c / p, c, p }')"
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(SCR_COPY_TYPE=SINGLE SCR_JOB_ID="free$$" "$sim" -n 4 -N 2 "$build/tests/bench/bench_scr" \
        --mib "${BENCH_MIB:-256}" --restart | awk '/^  restart from cache/ { print $4, $8 }')
    echo "restart $(awk -v r="$1" -v a="$2" 'BEGIN { printf "%.3f %.3f %.3f", r / a, r, a }')"
    rm -rf "$shm/cache" "$shm/cntl"
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(free_ckpt PARTNER)
    echo "partner $(awk -v c="$1" -v s="$single" 'BEGIN { printf "%.3f %.3f %.3f", c / s, c, s }')"
    rm -rf "$shm/cache" "$shm/cntl"
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(free_ckpt PARTNER --thread-multiple)
    echo "partner_bg $(awk -v c="$1" -v s="$single" 'BEGIN { printf "%.3f %.3f %.3f", c / s, c, s }')"
done > "$work/free-times"
[ -z "${BENCH_KEEP_TIMES:-}" ] || cp "$work/free-times" "$BENCH_KEEP_TIMES.free"
free_median() { # WHAT: the median line of that measurement, by its ratio
    grep "^$1 " "$work/free-times" | sort -k2 -n | sed -n 3p
}
free_median single | awk '{ printf "  SINGLE checkpoint      %7.3f s   plain write in cache %7.3f s   ratio %.2f (target <= 1.05)\n", $3, $4, $2 }'
free_median restart | awk '{ printf "  restart from cache     %7.3f s   read alone           %7.3f s   ratio %.2f (target <= 1.10)\n", $3, $4, $2 }'
free_median partner | awk '{ printf "  PARTNER checkpoint     %7.3f s   SINGLE checkpoint    %7.3f s   ratio %.2f (target <= 1.6)\n", $3, $4, $2 }'
free_median partner_bg | awk '{ printf "  the same, encode in the background (MPI_THREAD_MULTIPLE)  %7.3f s   ratio %.2f\n", $3, $2 }'

# What the CRC of every file in cache costs. For SINGLE (a pass of its own
# when the checkpoint completes) and XOR (computed in the encoding pass), the
# checkpoint and the next SCR_Init (which reads every cached file once to
# check it; SCR_CACHE_SIZE=2 keeps two checkpoints) are timed with the
# default, against SCRBENCH_NO_CACHE_CRC=1 (not a parameter: libscr then
# records and checks no CRC, as before files in cache had one) and against
# SCR_CRC_ON_COPY=1 (SCR's opt-in: a CRC pass of its own for every scheme,
# and the copies read back). Modes alternate within each of five rounds,
# each round starting with the next; each keeps its best. Ratios: time
# without CRCs / time of the mode.
echo "bench_scr: CRCs of files in cache, 4 ranks x ${BENCH_MIB:-256} MiB as 4 nodes (best of 5 rounds)"
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
crc_run() { # TYPE MODE MIB: prints the checkpoint and SCR_Init times of one run
    case $2 in
    default) set -- "$1" "" "$3" ;;
    none) set -- "$1" SCRBENCH_NO_CACHE_CRC=1 "$3" ;;
    on_copy) set -- "$1" SCR_CRC_ON_COPY=1 "$3" ;;
    esac
    # shellcheck disable=SC2086 # $2 is one VAR=VALUE or nothing
    env $2 SCR_COPY_TYPE="$1" SCR_SET_SIZE=4 SCR_JOB_ID="crc$1$$" \
        "$sim" -n 4 -N 4 "$build/tests/bench/bench_scr" --mib "$3" --only-checkpoint |
        awk '/^  SCR_Init/ { i = $2 } /^  checkpoint/ { c = $2 } END { print c, i }'
}
modes="default none on_copy"
for _ in 1 2 3 4 5; do
    for type in SINGLE XOR; do
        for mode in $modes; do
            # a fresh cache and three checkpoints; then a run whose SCR_Init
            # takes the two cached ones back
            rm -rf "$shm/cache" "$shm/cntl"
            echo "$type $mode checkpoint $(crc_run "$type" "$mode" "${BENCH_MIB:-256}" | cut -d' ' -f1)"
            echo "$type $mode SCR_Init $(crc_run "$type" "$mode" 1 | cut -d' ' -f2)"
        done
    done
    modes="${modes#* } ${modes%% *}" # the next round starts with the next mode
done > "$work/crc-times"
[ -z "${BENCH_KEEP_TIMES:-}" ] || cp "$work/crc-times" "$BENCH_KEEP_TIMES"
awk '{ k = $1 " " $3; if (!((k, $2) in t) || $4 < t[k, $2]) t[k, $2] = $4; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
     END {
         for (i = 0; i < n; i++) {
             k = order[i]; split(k, p, " ")
             none = t[k, "none"]; dflt = t[k, "default"]; copy = t[k, "on_copy"]
             printf "  %-6s %-10s without CRCs %7.3f s   default %7.3f s (ratio %.2f, %+.3f s)   SCR_CRC_ON_COPY=1 %7.3f s (ratio %.2f)\n",
                    p[1], p[2], none, dflt, none / dflt, dflt - none, copy, none / copy
         }
     }' "$work/crc-times"
