# mpi-lib.sh — set-up and checks shared by the MPI tests and the demo (source it).
#
# A test file starts with `. "$top_srcdir/tests/mpi/mpi-lib.sh"` and
# `mpi_setup NAME`, which gives it a scratch directory of its own:
#
#   $scratch/prefix    SCR_PREFIX, and the current directory of every run
#   $scratch/cache/%N  SCR_CACHE_BASE: one directory per simulated node
#   $scratch/cntl/%N   SCR_CNTL_BASE, likewise
#   $scratch/scr.conf  the system configuration file that sets both bases
#                      (SCR_CNTL_BASE may come from nowhere else, and libscr
#                      honours $SCR_SYSTEM_CONF_FILE only for a file that root
#                      owns and no one else may write: the tests need root)
#
# a job id of its own, and no SCR_* or SLURM_* variable from the caller
# ($MPIRUN, set by make check, names the mpirun to use). The
# scratch directory is removed at exit when every test passed (and KEEP is
# unset), and kept, with its path printed, otherwise. Without root or
# mpirun the whole file is skipped.
#
# Runs (each under `timeout 120`, with no input, stdout and stderr kept in files):
#   mpi_run RANKS NODES [VAR=VALUE...] [--] [APP ARGS...]
#       tests/mpi/scr_test_app on RANKS ranks as NODES simulated nodes
#       (tests/mpi/scr-sim-run), with VAR=VALUE in its environment only.
#       Sets $mpi_status, $mpi_out, $mpi_err and $mpi_ranks.
#   mpi_run_program PROGRAM RANKS NODES [VAR=VALUE...] [--] [ARGS...]
#   mpi_start RANKS NODES [VAR=VALUE...] [--] [APP ARGS...]
#   mpi_wait             mpi_run in the background, while the test does
#                        something else; mpi_wait sets what mpi_run sets
#   mpi_reset            an empty prefix, no cache, a new job id
# Checks of the last run (each records one TAP result; a failure shows the run):
#   mpi_expect_restart NAME STEP [LAST]   every rank restarted from STEP
#                                         (0: started fresh), finished LAST
#   mpi_expect_lines NAME TEXT...         every rank printed "rank R: TEXT"
#   mpi_expect_killed NAME STEP           the run died (--crash-after STEP)
#   mpi_expect_failure NAME TEXT [TIMES]  the run failed, TEXT in stderr TIMES
#                                         times (default 1)
#   mpi_ranks_without TEXT                the ranks that did not print TEXT
# Damage and inspection:
#   mpi_lose_node K, mpi_lose_all_nodes   delete nodes' cache and control dirs
#   mpi_kill_ranks                        SIGKILL this test's running ranks
#   mpi_flip_byte FILE OFFSET             invert one byte of FILE in place
#   mpi_flip_bit FILE OFFSET BIT          invert bit BIT (0-7) of one byte
#   mpi_tree_paths FILE                   every path of a hash file, one per
#                                         line ("DSET/2/NAME/ckpt.2")
#   mpi_index_paths, mpi_index_has PATH, mpi_index_id NAME   the same for
#                                         the prefix's index
#   mpi_cache_datasets                    the scr.dataset.* dirs in any cache
# Helpers keep their own variables under the _mpi_ prefix.
. "$top_srcdir/tests/tap.sh"

mpi_app=$top_builddir/tests/mpi/scr_test_app
mpi_sim_run=$top_srcdir/tests/mpi/scr-sim-run
mpi_print=$top_builddir/cli/scr-print
mpi_runs=0
mpi_resets=0

# The whole file is skipped, with a reason.
mpi_skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

# What this host lacks to run the MPI tests (prints nothing when all is there).
mpi_missing_requirement() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "needs root: libscr reads SCR_SYSTEM_CONF_FILE only when root owns it"
    elif ! command -v "${MPIRUN:-mpirun}" > /dev/null 2>&1; then
        echo "${MPIRUN:-mpirun} not found"
    elif ! command -v timeout > /dev/null 2>&1; then
        echo "timeout (coreutils) not found"
    elif [ ! -x "$mpi_app" ] || [ ! -x "$mpi_print" ]; then
        echo "build tests/mpi/scr_test_app and cli/scr-print first"
    fi
}

mpi_setup() {
    _mpi_missing=$(mpi_missing_requirement)
    [ -z "$_mpi_missing" ] || mpi_skip_all "$_mpi_missing"

    # nothing from the caller's environment steers libscr
    for _mpi_var in $(env | sed -n 's/^\(SCR_[A-Za-z0-9_]*\)=.*/\1/p'); do
        unset "$_mpi_var"
    done
    unset SLURM_JOB_ID SLURM_JOB_NAME SLURMD_NODENAME
    # Under AddressSanitizer, Open MPI's own plugins leak at exit and cannot be
    # suppressed by name; MPI jobs keep every other check.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

    scratch=$(mktemp -d "${TMPDIR:-/tmp}/scr-$1.XXXXXX") || exit 99
    trap mpi_cleanup EXIT
    prefix=$scratch/prefix
    mkdir "$prefix" || exit 99
    printf 'SCR_CNTL_BASE=%s/cntl/%%N\nSCR_CACHE_BASE=%s/cache/%%N\n' "$scratch" "$scratch" \
        > "$scratch/scr.conf"
    chmod 0644 "$scratch/scr.conf"
    SCR_SYSTEM_CONF_FILE=$scratch/scr.conf
    SCR_PREFIX=$prefix
    SCR_JOB_ID=$1-$$
    export SCR_SYSTEM_CONF_FILE SCR_PREFIX SCR_JOB_ID
    cd "$prefix" || exit 99
}

mpi_cleanup() {
    cd / || return
    if [ "$tap_failed" -eq 0 ] && [ -z "${KEEP:-}" ]; then
        rm -rf "$scratch"
    else
        echo "# scratch directory kept: $scratch"
    fi
}

mpi_reset() {
    mpi_resets=$((mpi_resets + 1))
    rm -rf "$scratch/cache" "$scratch/cntl" "$prefix"
    mkdir "$prefix" && cd "$prefix" || exit 99
    SCR_JOB_ID=${SCR_JOB_ID%%.*}.$mpi_resets
}

# --- runs ----------------------------------------------------------------------

mpi_run() {
    mpi_run_program "$mpi_app" "$@"
}

mpi_run_program() {
    _mpi_prog=$1 mpi_ranks=$2 _mpi_nodes=$3
    shift 3
    mpi_runs=$((mpi_runs + 1))
    mpi_out=$scratch/run$mpi_runs.out
    mpi_err=$scratch/run$mpi_runs.err
    echo "$mpi_ranks ranks on $_mpi_nodes nodes: $*" > "$scratch/run$mpi_runs.cmd"
    (
        # the settings hold for this run only
        while [ $# -gt 0 ]; do
            case $1 in
            --) shift; break ;;
            [A-Za-z_]*=*) export "${1?}"; shift ;;
            *) break ;;
            esac
        done
        exec timeout -k 10 120 sh "$mpi_sim_run" -n "$mpi_ranks" -N "$_mpi_nodes" -- "$_mpi_prog" "$@"
    ) < /dev/null > "$mpi_out" 2> "$mpi_err" # mpirun would read the caller's input away
    mpi_status=$?
}

mpi_start() {
    mpi_runs=$((mpi_runs + 1))
    _mpi_bg_run=$mpi_runs
    (
        mpi_runs=$((mpi_runs - 1)) # mpi_run counts this run again
        mpi_run "$@"
        exit "$mpi_status"
    ) &
    _mpi_bg_pid=$!
    mpi_ranks=$1
}

mpi_wait() {
    wait "$_mpi_bg_pid"
    mpi_status=$?
    mpi_out=$scratch/run$_mpi_bg_run.out
    mpi_err=$scratch/run$_mpi_bg_run.err
}

# --- checks of the last run ------------------------------------------------------

# What the last run did, for a failure message.
mpi_diag() {
    echo "run $mpi_runs: $(cat "$scratch/run$mpi_runs.cmd")"
    echo "exit status $mpi_status; stdout:"
    sed 's/^/  /' "$mpi_out"
    echo "stderr (last 15 lines):"
    tail -n 15 "$mpi_err" | sed 's/^/  /'
}

mpi_ranks_without() {
    _mpi_r=0 _mpi_missing=
    while [ $_mpi_r -lt "$mpi_ranks" ]; do
        grep -qxF "rank $_mpi_r: $1" "$mpi_out" || _mpi_missing="$_mpi_missing $_mpi_r"
        _mpi_r=$((_mpi_r + 1))
    done
    echo "${_mpi_missing# }"
}

mpi_expect_lines() {
    _mpi_name=$1
    shift
    _mpi_why=
    [ "$mpi_status" -eq 0 ] || _mpi_why="exit status $mpi_status"
    for _mpi_text in "$@"; do
        _mpi_missing=$(mpi_ranks_without "$_mpi_text")
        [ -z "$_mpi_missing" ] ||
            _mpi_why="$_mpi_why${_mpi_why:+; }rank(s) $_mpi_missing did not print '$_mpi_text'"
    done
    if [ -z "$_mpi_why" ]; then
        ok "$_mpi_name"
    else
        not_ok "$_mpi_name" "$_mpi_why
$(mpi_diag)"
    fi
}

mpi_expect_restart() {
    if [ "$2" -eq 0 ]; then _mpi_first="fresh start"; else _mpi_first="restarted from step $2"; fi
    mpi_expect_lines "$1" "$_mpi_first" "finished step ${3:-$2}"
}

mpi_expect_killed() {
    if [ "$mpi_status" -ne 0 ] && ! grep -q "finished step" "$mpi_out"; then
        ok "$1"
    else
        not_ok "$1" "expected the run to be killed after step $2
$(mpi_diag)"
    fi
}

mpi_expect_failure() {
    _mpi_count=$(grep -cF -- "$2" "$mpi_err")
    if [ "$mpi_status" -ne 0 ] && [ "$_mpi_count" -eq "${3:-1}" ] &&
       ! grep -q "finished step" "$mpi_out"; then
        ok "$1"
    else
        not_ok "$1" "expected a failure saying ${3:-1} time(s): $2 (said $_mpi_count times)
$(mpi_diag)"
    fi
}

# --- damage and inspection ----------------------------------------------------------

mpi_lose_node() {
    rm -rf "$scratch/cache/node$1" "$scratch/cntl/node$1"
}

mpi_lose_all_nodes() {
    rm -rf "$scratch/cache" "$scratch/cntl"
}

mpi_flip_byte() {
    _mpi_byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    [ -n "$_mpi_byte" ] || { echo "mpi_flip_byte: $1 has no byte $2" >&2; return 1; }
    # shellcheck disable=SC2059 # the octal escape is the point
    printf "\\$(printf %03o $((_mpi_byte ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

mpi_flip_bit() {
    _mpi_byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    [ -n "$_mpi_byte" ] || { echo "mpi_flip_bit: $1 has no byte $2" >&2; return 1; }
    # shellcheck disable=SC2059 # the octal escape is the point
    printf "\\$(printf %03o $((_mpi_byte ^ (1 << $3))))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

mpi_tree_paths() {
    "$mpi_print" "$1" | awk '{
        match($0, /^ */); depth = RLENGTH / 2
        key[depth] = substr($0, RLENGTH + 1)
        path = key[0]
        for (i = 1; i <= depth; i++) path = path "/" key[i]
        print path
    }'
}

mpi_index_paths() {
    mpi_tree_paths "$prefix/.scr/index.scr"
}

mpi_index_has() {
    mpi_index_paths 2> /dev/null | grep -q "^$1\(/\|\$\)"
}

mpi_index_id() {
    mpi_index_paths 2> /dev/null | sed -n "s|^DSET/\([0-9]*\)/NAME/$1\$|\1|p"
}

mpi_cache_datasets() {
    find "$scratch/cache" -type d -name 'scr.dataset.*' 2> /dev/null | sort
}

# mpi_kill_ranks: SIGKILL every rank of this test's runs (the processes
# whose environment names this test's scratch directory), as a node failure
# would end them; mpirun then ends the run. Other tests' ranks are left alone.
mpi_kill_ranks() {
    # the ranks themselves (.libs/scr_test_app or lt-scr_test_app), not the
    # libtool wrapper's path on the command lines of timeout and mpirun
    for _mpi_pid in $(pgrep -x 'scr_test_app|lt-scr_test_app' 2> /dev/null); do
        grep -qa "$scratch" "/proc/$_mpi_pid/environ" 2> /dev/null && kill -9 "$_mpi_pid" 2> /dev/null
    done
    return 0
}
