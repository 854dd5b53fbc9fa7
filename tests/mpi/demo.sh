#!/bin/sh
# demo.sh — `make demo`: a job that is killed, loses a node, restarts from
# the cache rebuilt with XOR, finishes and flushes; then, with every node
# lost, restarts from the prefix. Told in a few lines.
#
# The application is tests/mpi/scr_test_app on 4 ranks as 2 simulated nodes
# (tests/mpi/scr-sim-run): every step it writes a checkpoint through libscr,
# every 2nd step also an output dataset; every byte it reads back on restart
# is checked. Runs from a build tree as root (like the MPI tests), in a
# scratch directory under $TMPDIR (or /tmp) that is removed at the end unless
# KEEP=1. Exits non-zero as soon as a run does not do what is said.
#
#   make demo                          (sets top_srcdir and top_builddir)
#   top_builddir=BUILD sh tests/mpi/demo.sh
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/mpi/mpi-lib.sh"

missing=$(mpi_missing_requirement)
if [ -n "$missing" ]; then
    echo "demo: cannot run here: $missing" >&2
    exit 1
fi
mpi_setup demo

say() { printf '\n== %s\n' "$*"; }
fail() {
    echo "demo: FAILED: $*" >&2
    mpi_diag >&2
    tap_failed=1
    exit 1
}

# What the ranks printed, in rank order.
show_output() {
    sort -s -t: -k1,1 "$mpi_out" | sed 's/^/   /'
}

# Where each checkpoint and output dataset is now.
show_places() {
    for node in 0 1; do
        sets=
        for dir in $(find "$scratch/cache/node$node" -type d -name 'scr.dataset.*' 2> /dev/null | sort); do
            sets="$sets ${dir##*/} ($(ls "$dir" | tr "\n" " " | sed "s/ $//"))"
        done
        echo "   cache of node$node:${sets:- (empty)}"
    done
    dirs=$(cd "$prefix" && ls -d ckpt.* out.* 2> /dev/null | sort -t. -k2,2n | tr '\n' ' ')
    echo "   prefix:         ${dirs:-(empty)}"
}

# The index as a table, from the paths scr-print shows.
show_index() {
    mpi_index_paths | awk -F/ '
        $1 == "CURRENT" && NF == 2 { current = $2 }
        $1 == "DSET" && NF == 4 && $3 == "NAME" { name[$2] = $4; ids[$2] = 1 }
        $1 == "DSET" && NF == 5 && $3 == "DSETDESC" && $4 == "FLAGS" { flags[$2] = $5 }
        $1 == "DSET" && NF == 4 && $3 == "FLUSHED" { flushed[$2] = $4 }
        $1 == "DSET" && NF == 4 && ($3 == "FETCHED" || $3 == "FAILED") { seen[$2] = seen[$2] " " tolower($3) " " $4 }
        END {
            kind[1] = "checkpoint"; kind[2] = "output"; kind[3] = "both"
            printf "   %-3s %-8s %-10s %-20s %s\n", "id", "name", "kind", "flushed", "restarts"
            for (id = 1; id <= 1000; id++) if (id in ids)
                printf "   %-3s %-8s %-10s %-20s%s%s\n", id, name[id], kind[flags[id]], flushed[id],
                       seen[id], name[id] == current ? "  <- current" : ""
        }'
}

app_args="--steps 5 --files 2 --size 65536 --output-every 2"
echo "SCR demo: scratch directory $scratch"
echo "   SCR_PREFIX=$prefix, cache and control directories per node under $scratch/{cache,cntl}/nodeK"
echo "   SCR_FLUSH=2: every 2nd checkpoint goes to the prefix; output datasets always do"
echo "   SCR_LOG_ENABLE=1: the runs record what they do in the prefix's event log (scr-log shows it)"
log_env="SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0"

# job [APP ARGS...]: one run of the application, and what it printed
job() {
    mpi_run 4 2 SCR_FLUSH=2 $log_env -- $app_args "$@"
    show_output
}

# restarted STEP RUN: every rank of the last run restarted from STEP and finished
restarted() {
    [ -z "$(mpi_ranks_without "restarted from step $1")" ] || fail "$2 did not restart from step $1"
    [ -z "$(mpi_ranks_without "finished step 5")" ] || fail "$2 did not finish"
}

say "run 1: 4 ranks on 2 nodes, killed after step 3 (rank 2 dies)"
job --crash-after 3 --crash-rank 2
[ "$mpi_status" -ne 0 ] || fail "run 1 was not killed"
echo "   (mpirun: rank 2 was killed after step 3; exit status $mpi_status)"
[ "$(grep -c 'finished step' "$mpi_out")" -eq 0 ] || fail "run 1 went on after the kill"
echo "   every checkpoint is protected by XOR across the two nodes (the default scheme)"
show_places

say "node 1 is lost: its cache and control directories are deleted"
mpi_lose_node 1
show_places

say "run 2: the job is started again; SCR rebuilds node 1's files from XOR and restarts from step 3"
mpi_run 4 2 SCR_FLUSH=2 SCR_DEBUG=1 $log_env -- $app_args
show_output
grep "rebuilt lost files" "$mpi_err" | sed 's/^/   /'
grep -q "rebuilt lost files" "$mpi_err" || fail "run 2 did not rebuild the lost node's files"
restarted 3 "run 2"
echo "   (SCR_Finalize flushed checkpoint 5 to the prefix)"
show_places

say "both nodes are lost"
mpi_lose_all_nodes

say "run 3: nothing is left in cache; the job restarts from step 5 on the prefix"
job
restarted 5 "run 3"
mpi_index_has "DSET/$(mpi_index_id ckpt.5)/FETCHED" || fail "run 3 did not fetch step 5 from the prefix"
for r in 0 1 2 3; do
    [ "$(cat "$prefix/out.4/rank$r.txt" 2> /dev/null)" = "output of rank $r at step 4" ] ||
        fail "output file out.4/rank$r.txt is not on the prefix"
done

if [ -x "$top_builddir/cli/scr-index" ]; then
    say "the datasets on the prefix (scr-index --list)"
    "$top_builddir/cli/scr-index" --list --prefix "$prefix" || fail "scr-index --list failed"
else
    say "the datasets on the prefix (.scr/index.scr read with scr-print; scr-index is not built)"
    "$mpi_print" "$prefix/.scr/index.scr" > /dev/null || fail "the index cannot be read"
    show_index
fi

if [ -x "$top_builddir/cli/scr-log" ]; then
    say "the job's history: restarts, rebuilds, flushes and fetches (scr-log)"
    "$top_builddir/cli/scr-log" --prefix "$prefix" --event init,rebuild,fetch,flush ||
        fail "scr-log failed"
fi

say "done"
