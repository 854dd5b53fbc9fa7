# cluster-env.sh — names and knobs shared by start-cluster.sh and stop-cluster.sh (source it).
#
#   LAB=DIR         everything the cluster writes: configuration, logs, PID
#                   files, state, munge key and socket, job output (out/)
#                   (default: tests/slurm/lab in the build tree)
#   NNODES=4        slurmd nodes n1..nN, each in its own network, UTS and
#                   mount namespace, at 10.77.0.(10+i) on a bridge of our own
#   SPANK_PLUGIN    the plugin plugstack.conf loads (default: the build tree's
#                   spank_scr.so), SPANK_ARGS its arguments
#   PLUGSTACK_REQUIRED=1  load it as "required" (a broken plugin fails jobs)
#   CTLD_PORT=6817, SLURMD_PORT=6818
# Only names below are ever created or removed: bridge $SCR_LAB_BRIDGE,
# network namespaces $SCR_LAB_NS_PREFIX<node>, processes whose PID files are
# under $LAB/run (and the processes inside our namespaces).
here=$(cd "$(dirname "$0")" && pwd)
: "${top_builddir:=$(cd "$here/../.." && pwd)}"
: "${LAB:=$top_builddir/tests/slurm/lab}"
: "${NNODES:=4}"
: "${CTLD_PORT:=6817}"
: "${SLURMD_PORT:=6818}"
: "${SPANK_PLUGIN:=$top_builddir/spank/.libs/spank_scr.so}"
: "${SPANK_ARGS:=}"
: "${PLUGSTACK_REQUIRED:=1}"
SCR_LAB_BRIDGE=scrlabbr0
SCR_LAB_NS_PREFIX=scrlab-
SCR_LAB_NET=10.77.0
SLURM_CONF=$LAB/etc/slurm.conf
export SLURM_CONF

lab_nodes() {
    i=1
    while [ "$i" -le "$NNODES" ]; do
        echo "n$i"
        i=$((i + 1))
    done
}

# The PID in a PID file when that process is alive and is COMM (a zombie,
# which PID 1 may be slow to reap, counts as gone); nothing otherwise.
lab_alive_pid() {
    [ -f "$1" ] || return 1
    _pid=$(cat "$1" 2>/dev/null)
    lab_is_running "$_pid" "$2" && echo "$_pid"
}

# Whether process PID is alive and is COMM.
lab_is_running() {
    [ -n "$1" ] && [ -d "/proc/$1" ] || return 1
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
    case $(ps -o stat= -p "$1" 2>/dev/null) in Z*|"") return 1 ;; esac
}
