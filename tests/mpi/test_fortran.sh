#!/bin/sh
# test_fortran.sh — the Fortran bindings in real MPI jobs of 2 ranks: a first
# job writes a checkpoint and an output dataset, a second job restarts from
# that checkpoint, and a fixed-form program shows scrf.h works there too.
. "$top_srcdir/tests/tap.sh"

mpirun=${MPIRUN:-mpirun}
# Under AddressSanitizer, Open MPI's own plugins leak at exit and cannot be
# suppressed by name; MPI jobs keep every other check, unit tests keep leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
prog="$top_builddir/tests/mpi/test_fortran"
fixed="$top_builddir/tests/mpi/test_fortran_fixed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-fortran-test.XXXXXX")

# SCR_CNTL_BASE may only come from the system configuration file (lib/config/config.h).
# Root may name one of its own in SCR_SYSTEM_CONF_FILE, so then the control
# directories go to $tmp too. Anyone else gets the base chosen at configure
# time; job ids of our own keep those directories apart from any other job's,
# and we remove them at the end.
if [ "$(id -u)" -eq 0 ]; then
    cntl_base="$tmp/cntl"
    mkdir "$cntl_base"
    (umask 077 && echo "SCR_CNTL_BASE=$cntl_base" > "$tmp/system.conf")
    export SCR_SYSTEM_CONF_FILE="$tmp/system.conf"
else
    cntl_base=$(sed -n 's/^#define SCR_CNTL_BASE_DEFAULT "\(.*\)"$/\1/p' "$top_builddir/build_config.h")
    : "${cntl_base:=/dev/shm}"
fi
user=${USER:-$(id -un)}
jobs="fortran-$$-1 fortran-$$-2 fortran-$$-fixed"
cleanup() {
    for j in $jobs; do rm -rf "$cntl_base/$user/scr.$j"; done
    rm -rf "$tmp"
}
trap cleanup EXIT

export SCR_USER_NAME="$user"
export SCR_CACHE_BASE="$tmp/cache"
export SCR_FLUSH=1 # every checkpoint reaches the prefix, so job 2 can fetch it
unset SCR_CONF_FILE

# job JOBID PREFIX OUT PROGRAM ARGS...: run PROGRAM on 2 ranks in PREFIX
# (the prefix and the working directory), its output in OUT.
job() {
    jobid=$1 prefix=$2 out=$3; shift 3
    mkdir -p "$prefix" "$SCR_CACHE_BASE" &&
    (cd "$prefix" && SCR_JOB_ID=$jobid SCR_PREFIX=$prefix \
        "$mpirun" --oversubscribe --allow-run-as-root -np 2 "$@") > "$out" 2>&1 &&
    ! grep -q '^not ok' "$out"
}

# --- job 1: checkpoint and output in an empty prefix ------------------------
p="$tmp/prefix"
if job "fortran-$$-1" "$p" "$tmp/run1.out" "$prog" 1; then
    ok "first_job_checkpoints_and_writes_output_from_fortran"
else
    not_ok "first_job_checkpoints_and_writes_output_from_fortran" "$(cat "$tmp/run1.out")"
fi
for r in 0 1; do
    if [ "$(cat "$p/out1/rank_$r.txt" 2>&1)" = "rank $r run 1" ]; then
        ok "output_of_rank_${r}_reached_the_prefix"
    else
        not_ok "output_of_rank_${r}_reached_the_prefix" "$(ls -lR "$p" 2>&1)"
    fi
done

# --- job 2: restart from job 1's checkpoint, then checkpoint again ----------
if job "fortran-$$-2" "$p" "$tmp/run2.out" "$prog" 2; then
    ok "second_job_restarts_from_the_first_jobs_checkpoint"
else
    not_ok "second_job_restarts_from_the_first_jobs_checkpoint" "$(cat "$tmp/run2.out")"
fi
check "output_of_the_second_job_reached_the_prefix" \
    grep -qx "rank 1 run 2" "$p/out2/rank_1.txt"

# --- fixed form -----------------------------------------------------------------
if job "fortran-$$-fixed" "$tmp/fixed" "$tmp/fixed.out" "$fixed" &&
   [ "$(grep -c '^ok - fixed_form_scr_finalize' "$tmp/fixed.out")" -eq 2 ]; then
    ok "fixed_form_program_includes_scrf_h_and_runs"
else
    not_ok "fixed_form_program_includes_scrf_h_and_runs" "$(cat "$tmp/fixed.out")"
fi

done_testing
