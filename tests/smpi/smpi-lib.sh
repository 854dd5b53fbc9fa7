# smpi-lib.sh — the MPI tests' set-up and checks (tests/mpi/mpi-lib.sh) for
# runs under SimGrid's SMPI (source it).
#
# A test starts with `. "$top_srcdir/tests/smpi/smpi-lib.sh"` and
# `smpi_setup NAME`, which skips it, with the reason, when configure found
# no SMPI (Debian: libsimgrid-dev) or the test cannot run (mpi-lib.sh's
# reasons), and otherwise gives it mpi-lib.sh's scratch directory. Then
# mpi_run RANKS HOSTS [VAR=VALUE...] [--] [APP ARGS...] runs
# tests/smpi/scr_test_app under smpirun instead of mpirun: RANKS ranks on
# the simulated hosts node0 ... node<HOSTS-1> of $SMPI_PLATFORM (default
# tests/smpi/cluster16.xml), ranks 0 .. RANKS/HOSTS-1 on node0 and so on,
# as tests/mpi/scr-sim-run spreads them. No SCR_NODE_NAME is set: libscr
# names each rank's node by its simulated host (MPI_Get_processor_name),
# so mpi_lose_node K deletes host node<K>'s cache and control directories.
# $SMPI_RUN_ARGS adds smpirun options (split on blanks; a later --cfg
# wins). Every other helper of mpi-lib.sh works as it does there.
#
# All ranks are one process: VAR=VALUE settings hold for every rank alike.
. "$top_srcdir/tests/mpi/mpi-lib.sh"

mpi_app=$top_builddir/tests/smpi/scr_test_app
smpi_platform=${SMPI_PLATFORM:-$top_srcdir/tests/smpi/cluster16.xml}

smpi_setup() {
    if [ -z "${SMPIRUN:-}" ]; then
        mpi_skip_all "configure found no SimGrid SMPI (smpicc, smpirun): install the Debian package libsimgrid-dev"
    elif [ ! -f "$mpi_app" ]; then
        mpi_skip_all "build tests/smpi/scr_test_app first (make check builds it)"
    fi
    mpi_setup "$1"
}

mpi_run_program() {
    _mpi_prog=$1 mpi_ranks=$2 _mpi_nodes=$3
    shift 3
    mpi_runs=$((mpi_runs + 1))
    mpi_out=$scratch/run$mpi_runs.out
    mpi_err=$scratch/run$mpi_runs.err
    echo "$mpi_ranks ranks on $_mpi_nodes simulated hosts (smpirun): $*" > "$scratch/run$mpi_runs.cmd"
    _smpi_per=$(( (mpi_ranks + _mpi_nodes - 1) / _mpi_nodes ))
    _smpi_r=0
    while [ "$_smpi_r" -lt "$mpi_ranks" ]; do
        echo "node$((_smpi_r / _smpi_per))"
        _smpi_r=$((_smpi_r + 1))
    done > "$scratch/hostfile"
    # shellcheck disable=SC2086 # the extra options are meant to be split
    (
        while [ $# -gt 0 ]; do
            case $1 in
            --) shift; break ;;
            [A-Za-z_]*=*) export "${1?}"; shift ;;
            *) break ;;
            esac
        done
        # dlopen privatization: each rank its own copy of the globals;
        # host-speed equal to the platform's: computing takes the time it
        # takes here
        exec timeout -k 10 120 "$SMPIRUN" -np "$mpi_ranks" -platform "$smpi_platform" \
            -hostfile "$scratch/hostfile" --cfg=smpi/privatization:dlopen --cfg=smpi/host-speed:1Gf \
            --log=xbt_cfg.thres:warning ${SMPI_RUN_ARGS:-} "$_mpi_prog" "$@"
    ) < /dev/null > "$mpi_out" 2> "$mpi_err"
    mpi_status=$?
}
