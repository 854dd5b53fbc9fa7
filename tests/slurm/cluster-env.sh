# cluster-env.sh — names and knobs shared by start-cluster.sh and stop-cluster.sh (source it).
#
#   LAB=DIR         everything the cluster writes: configuration (etc/),
#                   logs (log/, 0700), PID files (run/), the munge key and
#                   seed and slurmctld's state (private/, 0700), the munge
#                   socket (munge/, 0711), job output (out/) (default:
#                   /var/tmp/scr-slurm-tests/lab; no directory above it may
#                   be writable by others without the sticky bit, which
#                   munged checks, so not a build tree unpacked with 0775)
#   NNODES=4        slurmd nodes n1..nN, each in its own network, UTS and
#                   mount namespace, at 10.77.0.(10+i) on a bridge of our own
#   SPANK_PLUGIN    the plugin plugstack.conf loads (default: the build tree's
#                   spank_scr.so), SPANK_ARGS its arguments
#   PLUGSTACK_REQUIRED=1  load it as "required" (a broken plugin fails jobs)
#   CTLD_PORT=6817, SLURMD_PORT=6818
#   SCR_LAB_BRIDGE=scrlabbr0, SCR_LAB_NS_PREFIX=scrlab-, SCR_LAB_NET=10.77.0
#                   the bridge, the node namespaces' prefix and the /24 the
#                   nodes' addresses are in: change them (and the ports) to
#                   run a second cluster beside one that keeps these
# Only names below are ever created or removed: bridge $SCR_LAB_BRIDGE,
# network namespaces $SCR_LAB_NS_PREFIX<node>, processes whose PID files are
# under $LAB/run (and the processes inside our namespaces).
here=$(cd "$(dirname "$0")" && pwd)
: "${top_builddir:=$(cd "$here/../.." && pwd)}"
: "${LAB:=/var/tmp/scr-slurm-tests/lab}"
: "${NNODES:=4}"
: "${CTLD_PORT:=6817}"
: "${SLURMD_PORT:=6818}"
: "${SPANK_PLUGIN:=$top_builddir/spank/.libs/spank_scr.so}"
: "${SPANK_ARGS:=}"
: "${PLUGSTACK_REQUIRED:=1}"
: "${SCR_LAB_BRIDGE:=scrlabbr0}"
: "${SCR_LAB_NS_PREFIX:=scrlab-}"
: "${SCR_LAB_NET:=10.77.0}"
SLURM_CONF=$LAB/etc/slurm.conf
export SLURM_CONF
MUNGED_PID=$LAB/private/munged.pid

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

# Whether every directory from / down to DIR's parent is safe for munged:
# not writable by group or others unless sticky. The first one that is not
# goes to $lab_unsafe.
lab_check_parents() {
    lab_unsafe=
    _dir=$(dirname "$1")
    while :; do
        if [ -d "$_dir" ]; then
            _mode=$(stat -c %a "$_dir")
            case $_mode in
                1???|3???|5???|7???) ;;    # sticky: others cannot remove what is not theirs
                *) case $_mode in *[2367]?|*[2367]) lab_unsafe="$_dir ($_mode)"; return 1 ;; esac ;;
            esac
        fi
        [ "$_dir" = / ] && return 0
        _dir=$(dirname "$_dir")
    done
}
