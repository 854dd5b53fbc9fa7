#!/bin/sh
# run-bench-flush-async.sh — the background flush (SCR_FLUSH_ASYNC=1) in one
# run, every figure beside its baseline or its request and its target:
#   1. SCR_Start_checkpoint to SCR_Complete_checkpoint returning, for a
#      checkpoint flushed in the background (SCR_FLUSH=1, SCR_FLUSH_ASYNC=1,
#      SCR_FLUSH_ASYNC_BW=0) against the same with no flush (SCR_FLUSH=0):
#      the median of several checkpoints with a compute gap (a sleep)
#      between two long enough for the flush to land, and the
#      SCR_Need_checkpoint that concludes the flush at the end of the gap;
#      ratio background / none, target <= 1.10; and, for reference, the
#      same with SCR_CRC_ON_FLUSH=0, since only the checkpoint not flushed
#      reads its files once more for their CRCs (12 checkpoints a mode are
#      too few to tell the few ms that starting the flush costs from the
#      noise of a busy 2-core machine: no target);
#   2. the same for an XOR checkpoint (2 simulated nodes) flushed in the
#      background against the synchronous flush (SCR_FLUSH_ASYNC=0);
#      speed-up synchronous / background, target >= 1.30;
#   3. the rate of a flush held to SCR_FLUSH_ASYNC_BW=50MB and 100MB, as the
#      flush event says (bytes_per_second, the thread's own measure) and as
#      another process sees it (bench_flush_async --watch: bytes listed in
#      the node's transfer file / time from SCR_Complete_checkpoint
#      returning to FLAG DONE there); achieved / requested, target 0.90..1.10;
#   4. the CPU share of a flush held to SCR_FLUSH_ASYNC_PERCENT=10 and 25 (BW
#      0), as the flush event says (cpu_percent, from the thread's rusage);
#      target the request +- 5 points;
#   5. the peak resident memory above SCR_Init of any rank while the
#      application writes its next checkpoint and the flush of the last one
#      runs, against the same run without a flush; target: the flush adds at
#      most one file buffer (SCR_FILE_BUF_SIZE) and 1 MiB.
# Cache and control directories in /dev/shm, the prefix on disk under
# ${TMPDIR:-/tmp}. A figure that misses its target is said, never an error:
# the exit status is non-zero only when a run fails.
#   run-bench-flush-async.sh BUILD_DIR
# BENCH_MIB: MiB per rank for 1, 2 and 5 (256); BENCH_CAP_MIB: for 3 and 4
# (128); BENCH_RANKS: ranks (2); BENCH_ROUNDS: alternating rounds of 1 and
# 2 (3); BENCH_CKPTS: checkpoints per run of 1 (4; those of 2 have 2).
set -eu
build=$(cd "${1:?usage: run-bench-flush-async.sh BUILD_DIR}" && pwd)
bin=$build/tests/bench/bench_flush_async
sim="$(cd "$(dirname "$0")/../mpi" && pwd)/scr-sim-run"
mib=${BENCH_MIB:-256} cap_mib=${BENCH_CAP_MIB:-128} np=${BENCH_RANKS:-2}
rounds=${BENCH_ROUNDS:-3} ckpts=${BENCH_CKPTS:-4} xckpts=2
work=$(mktemp -d "${TMPDIR:-/tmp}/scr-bench-flush.XXXXXX")
shm=$(mktemp -d /dev/shm/scr-bench-flush.XXXXXX)
watcher=
trap '[ -z "$watcher" ] || kill "$watcher" 2>/dev/null; rm -rf "$work" "$shm"' EXIT
# the control and cache bases may only come from a system file that root
# owns; %N gives every simulated node its own (node0 alone on one node)
printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$shm" "$shm" > "$work/system.conf"
chmod 644 "$work/system.conf"
export SCR_SYSTEM_CONF_FILE="$work/system.conf" SCR_PREFIX="$work/prefix" SCR_CACHE_SIZE=2 SCR_LOG_ENABLE=1
user=$(id -un)
# the compute gap: half a second and one per GiB a node flushes (the flush
# of 512 MiB takes about 1 s here), and with a flush in the background, as
# long as it takes to land (--wait-flushed): figures 1 and 2 say how often
# that was longer, and how long the flushes took
gap=$(awk -v m="$mib" -v n="$np" 'BEGIN { printf "%.1f", 0.5 + m * n / 1024 }')

# job NAME NODES [VAR=VALUE ...] -- [bench_flush_async options]: one run of
# np ranks on NODES simulated nodes, node0's transfer file watched; leaves
# NAME.out (the run's lines), NAME.watch (the watcher's) and NAME.flush (the
# flush events) in $work.
job() {
    name=$1 nodes=$2
    shift 2
    vars=
    while [ "$1" != -- ]; do
        vars="$vars $1"
        shift
    done
    shift
    rm -rf "$shm/cache" "$shm/cntl" "$work/prefix"
    mkdir -p "$work/prefix"
    jobid=fa$name$$
    "$bin" --watch "$shm/cntl/node0/$user/scr.$jobid/transfer.scr" > "$work/$name.watch" &
    watcher=$!
    # shellcheck disable=SC2086 # $vars is VAR=VALUE words
    if ! (cd "$work/prefix" && env $vars SCR_JOB_ID="$jobid" "$sim" -n "$np" -N "$nodes" "$bin" "$@") \
        > "$work/$name.out"; then
        echo "run-bench-flush-async.sh: the run '$name' ($vars) failed" >&2
        exit 1
    fi
    sleep 0.1 # the watcher's last look
    kill "$watcher" 2> /dev/null || true
    wait "$watcher" 2> /dev/null || true
    watcher=
    grep '"event":"flush"' "$work/prefix/.scr/events.jsonl" > "$work/$name.flush" 2> /dev/null || : > "$work/$name.flush"
}
# the complete times (the SCR_Complete_checkpoint calls alone, the
# concludes) of every checkpoint of the runs of MODE... (runs MODE1, MODE2,
# ...), one a line
runs() { for m in "$@"; do for f in "$work/$m"[0-9]*.out; do echo "$f"; done; done; }
completes() { for f in $(runs "$@"); do awk '$1 == "ckpt" { print $4 }' "$f"; done; }
calls() { for f in $(runs "$@"); do awk '$1 == "ckpt" { print $10 }' "$f"; done; }
concludes() { for f in $(runs "$@"); do awk '$1 == "gap" { print $4 }' "$f"; done; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# a line of the times of MODE...: median, the call alone, the range
mode_times() {
    printf '%7.3f s   (SCR_Complete_checkpoint alone %.3f s; all %s s)' "$(completes "$@" | median)" \
        "$(calls "$@" | median)" "$(completes "$@" | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.3f..%.3f", a, b }')"
}
# each checkpoint of run NAME with the time from its SCR_Complete_checkpoint
# returning to its FLAG DONE in node0's transfer file and whether a gap
# followed it: "SECONDS GAP" a line (SECONDS -1 when no DONE came)
flush_time() {
    awk 'FNR == NR { if ($1 == "ckpt") end[++n] = $6; if ($1 == "gap") gap[$2] = 1; next }
        $1 == "done" { d[++m] = $2 }
        END { for (i = 1; i <= n; i++) print (i <= m ? d[i] - end[i] : -1), (i in gap) }' \
        "$work/$1.out" "$work/$1.watch"
}
# how the gaps of the runs of MODE... went: for how many the gap was long
# enough (their flush concluded at its end), how much longer the others went
# on (--wait-flushed)
landed() {
    for f in $(runs "$@"); do awk '$1 == "gap" { print $6 }' "$f"; done |
        awk -v gap="$gap" '{ n++; if ($1 <= 0.03) k++; if ($1 > m) m = $1 }
            END { printf "the %s s gap was long enough for %d of %d flushes", gap, k, n
                  if (k < n) printf " (the others computed up to %.2f s longer)", m }'
}
# the flush times of the runs of MODE..., one a line
flush_times() { for m in "$@"; do for f in $(runs "$m"); do flush_time "$(basename "$f" .out)"; done; done | awk '$1 >= 0 { print $1 }'; }
# field $2 of NAME's first flush event
event_field() { sed -n "1s/.*\"$2\":\"\{0,1\}\([0-9.]*\).*/\1/p" "$work/$1.flush"; }

echo "bench_flush_async: background flush (SCR_FLUSH_ASYNC=1), cache in /dev/shm, prefix under ${TMPDIR:-/tmp}" \
    "(load average before: $(cut -d' ' -f1-3 /proc/loadavg))"

# 1. Complete of a checkpoint flushed in the background against no flush,
# and against it the same with SCR_CRC_ON_FLUSH=0 (see above): the three
# alternate within each round, each round starting with the next, and every
# checkpoint of a mode's runs counts for its median
modes="none bg bgnocrc"
for round in $(seq "$rounds"); do
    for mode in $modes; do
        wait=--wait-flushed
        case $mode in
        none) vars="SCR_FLUSH=0" wait= ;;
        bg) vars="SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=0" ;;
        bgnocrc) vars="SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=0 SCR_CRC_ON_FLUSH=0" ;;
        esac
        # shellcheck disable=SC2086 # $vars is VAR=VALUE words, $wait an option or nothing
        job "$mode$round" 1 $vars -- --mib "$mib" --ckpts "$ckpts" --gap "$gap" $wait
    done
    modes="${modes#* } ${modes%% *}"
done
t_none=$(completes none | median) t_bg=$(completes bg | median) t_nocrc=$(completes bgnocrc | median)
n=$((rounds * ckpts))
echo "1. Complete, $np ranks x $mib MiB on 1 node: median of $n checkpoints ($rounds alternating rounds of $ckpts)," \
    "with a $gap s gap between two"
echo "   flushed in the background $(mode_times bg)"
echo "   not flushed               $(mode_times none)"
awk -v b="$t_bg" -v n="$t_none" 'BEGIN { r = b / n; printf "   ratio %.2f (target <= 1.10) %s\n", r, (r <= 1.10 ? "met" : "MISSED") }'
echo "   the flushed one skips the CRC pass of the one not flushed (its copy computes the CRCs); with" \
    "SCR_CRC_ON_FLUSH=0 both make it, and what is left is what starting the flush costs (reference, no target):"
echo "   flushed in the background $(mode_times bgnocrc)"
awk -v b="$t_nocrc" -v n="$t_none" -v cb="$(calls bgnocrc | median)" -v cn="$(calls none | median)" \
    'BEGIN { printf "   ratio %.2f; SCR_Complete_checkpoint alone %+.3f s\n", b / n, cb - cn }'
echo "   $(landed bg bgnocrc); median flush $(flush_times bg bgnocrc | median | awk '{ printf "%.2f", $1 }') s" \
    "(SCR_Complete_checkpoint returning to FLAG DONE); the SCR_Need_checkpoint concluding one" \
    "$(concludes bg bgnocrc | median | awk '{ printf "%.3f", $1 }') s (without flush" \
    "$(concludes none | median | awk '{ printf "%.3f", $1 }') s)"

# 2. Complete of an XOR checkpoint, background against synchronous flush
# (the same gap; the background one as long as its flush takes to land)
xor="SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 SCR_FLUSH=1"
modes="xsync xbg"
for round in $(seq "$rounds"); do
    for mode in $modes; do
        # shellcheck disable=SC2086 # $xor is VAR=VALUE words
        case $mode in
        xsync) job "$mode$round" 2 $xor SCR_FLUSH_ASYNC=0 -- --mib "$mib" --ckpts "$xckpts" --gap "$gap" ;;
        xbg) job "$mode$round" 2 $xor SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=0 -- --mib "$mib" --ckpts "$xckpts" \
            --gap "$gap" --wait-flushed ;;
        esac
    done
    modes="${modes#* } ${modes%% *}"
done
t_sync=$(completes xsync | median) t_xbg=$(completes xbg | median)
echo "2. Complete of an XOR checkpoint with its flush, $np ranks x $mib MiB on 2 nodes:" \
    "median of $((rounds * xckpts)) ($rounds alternating rounds of $xckpts); MPI_Init, so the encode is in the foreground"
echo "   flushed in the background $(mode_times xbg)"
echo "   flushed synchronously     $(mode_times xsync)"
awk -v b="$t_xbg" -v s="$t_sync" 'BEGIN { r = s / b; printf "   speed-up %.2f (target >= 1.30) %s\n", r, (r >= 1.30 ? "met" : "MISSED") }'
echo "   $(landed xbg); median flush (node0) $(flush_times xbg | median | awk '{ printf "%.2f", $1 }') s"

# 3. the bandwidth limit
echo "3. SCR_FLUSH_ASYNC_BW, $np ranks x $cap_mib MiB on 1 node: achieved / requested (target 0.90..1.10)"
for bw in 50MB 100MB; do
    job "bw$bw" 1 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=$bw -- --mib "$cap_mib" --ckpts 1 --gap 0
    event=$(event_field "bw$bw" bytes_per_second)
    # requested: BW in the transfer file, as libscr parsed it; seen: bytes
    # listed / (FLAG DONE - Complete returned)
    awk -v e="${event:-0}" -v bw="$bw" 'FNR == NR { if ($1 == "ckpt" && !end) end = $6; next }
        $1 == "done" && !seen { seen = 1; req = $4; w = $3 / ($2 - end) }
        END {
            if (!seen || req <= 0) { printf "   %-6s no FLAG DONE with a BW seen in the transfer file\n", bw; exit }
            re = e / req; rw = w / req
            printf "   %-6s (%.1f MiB/s): flush event %6.1f MiB/s = %.3f %s;  Complete to DONE %6.1f MiB/s = %.3f %s\n",
                bw, req / 1048576, e / 1048576, re, (re >= 0.9 && re <= 1.1 ? "met" : "MISSED"),
                w / 1048576, rw, (rw >= 0.9 && rw <= 1.1 ? "met" : "MISSED")
        }' "$work/bw$bw.out" "$work/bw$bw.watch"
done

# 4. the CPU limit
echo "4. SCR_FLUSH_ASYNC_PERCENT (BW 0), $np ranks x $cap_mib MiB on 1 node: the flush thread's share of a core"
for pc in 10 25; do
    job "cpu$pc" 1 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=0 SCR_FLUSH_ASYNC_PERCENT=$pc -- \
        --mib "$cap_mib" --ckpts 1 --gap 0
    got=$(event_field "cpu$pc" cpu_percent) rate=$(event_field "cpu$pc" bytes_per_second)
    awk -v g="${got:-nan}" -v p="$pc" -v r="${rate:-0}" 'BEGIN {
        printf "   %3d%%: %5.1f%% (target %d..%d) %s   (it copied %.1f MiB/s)\n", p, g, p - 5, p + 5,
            (g >= p - 5 && g <= p + 5 ? "met" : "MISSED"), r / 1048576 }'
done

# 5. memory while the application writes and the flush runs
buf=${SCR_FILE_BUF_SIZE:-1MB}
buf_kib=$(echo "$buf" | awk '{ u = toupper($0); f = u ~ /K/ ? 1 : u ~ /M/ ? 1024 : u ~ /G/ ? 1048576 : 1 / 1024
    printf "%d", ($0 + 0) * f }')
job memnone 1 SCR_FLUSH=0 -- --mib "$mib" --ckpts 1 --gap 0 --overlap
job memflush 1 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=200MB -- --mib "$mib" --ckpts 1 --gap 0 --overlap
running=$(awk 'FNR == NR { if ($1 == "overlap") mark = $2; next } $1 == "done" && !d { d = $2 }
    END { print (d > mark ? "yes" : "NO (it had landed: the figure is not the one asked for)") }' \
    "$work/memflush.out" "$work/memflush.watch")
g_none=$(awk '$1 == "rss" && $2 == "growth" { print $3 }' "$work/memnone.out")
g_flush=$(awk '$1 == "rss" && $2 == "growth" { print $3 }' "$work/memflush.out")
r0_flush=$(awk '$1 == "rss" && $2 == "rank" && $3 == 0 { print $7 - $5 }' "$work/memflush.out")
rn_flush=$(awk '$1 == "rss" && $2 == "rank" && $3 != 0 && $7 - $5 > m { m = $7 - $5 } END { print m + 0 }' "$work/memflush.out")
echo "5. Peak RSS above SCR_Init of any rank while $np ranks x $mib MiB are written and the last checkpoint is flushed"
echo "   (flush still running then: $running)"
awk -v n="$g_none" -v f="$g_flush" -v r0="$r0_flush" -v rn="$rn_flush" -v b="$buf_kib" -v bs="$buf" 'BEGIN {
    printf "   with the flush %.1f MiB (rank 0, whose thread flushes: %.1f MiB; the others: %.1f MiB)   without %.1f MiB\n",
        f / 1024, r0 / 1024, rn / 1024, n / 1024
    printf "   the flush adds %.1f MiB (target <= SCR_FILE_BUF_SIZE %s + 1 MiB = %.1f MiB) %s\n", (f - n) / 1024, bs,
        (b + 1024) / 1024, (f - n <= b + 1024 ? "met" : "MISSED") }'
echo "   (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
