# slurm-lib.sh — a real Slurm cluster for the end-to-end tests (source it).
#
# A test file starts with `. "$top_srcdir/tests/slurm/slurm-lib.sh"` and
# `slurm_setup NAME`, which
#   - skips the whole file, with the reason, where the cluster cannot run
#     (not root, no `ip netns`, no munged, slurmctld, slurmd or srun, the
#     plugin not built, or built with a sanitizer Slurm's programs lack);
#   - waits for any other cluster of these tests on this machine to finish
#     (the bridge, the addresses, the ports and the namespaces are fixed
#     names): a lock, $SCR_LAB_LOCK (default
#     /run/lock/scr-slurm-tests.lock), held by the test's own process and
#     never by the daemons it starts, so that it is free again once the
#     test has ended, whatever became of them. A second cluster beside one
#     that keeps the default names needs a lock of its own and the other
#     names of cluster-env.sh (SCR_LAB_BRIDGE, SCR_LAB_NS_PREFIX,
#     SCR_LAB_NET, CTLD_PORT, SLURMD_PORT);
#   - starts a cluster of $NNODES (default 4) nodes in its own lab
#     directory, $slurm_lab ($SCR_LAB_ROOT/lab.NAME.<build tree>, where
#     SCR_LAB_ROOT is /var/tmp/scr-slurm-tests unless set), loading
#     the build tree's spank_scr.so; SPANK_ARGS gives plugin arguments;
#   - makes sure the unprivileged test user $slurm_user exists and gives it
#     a working directory, $slurm_work, where its jobs run;
#   - stops the cluster when the file exits, whatever happened (trap), and
#     removes the lab when every test passed and KEEP is unset.
# Helpers:
#   slurm_start_cluster    start-cluster.sh on the lab again (brings back a
#                          killed node; what runs is kept)
#   as_user CMD...         CMD as $slurm_user in $slurm_work, under a timeout
#   on_node NODE CMD...    CMD inside NODE's namespaces (its /dev/shm, host name)
#   slurmd_log NODE        that node's slurmd log
#   next_job_id            the id slurmctld gives the next job
#   kill_node NODE         crash NODE: every process of its namespaces at once
#                          (slurmd, steps, tasks); its /dev/shm goes with them
#   wait_node_state NODE WORD [SECONDS]  until NODE's state contains WORD
#                          (e.g. DOWN, IDLE); fails after SECONDS (default 60)
#   wait_job_gone JOBID [SECONDS]        until JOBID has left the queue
#                          (its epilogs have run); fails after SECONDS (120)
. "$top_srcdir/tests/tap.sh"

slurm_dir=$top_srcdir/tests/slurm
slurm_user=scrtest
slurm_plugin=$top_builddir/spank/.libs/spank_scr.so
slurm_lock=${SCR_LAB_LOCK:-/run/lock/scr-slurm-tests.lock}
# cluster-env.sh's names for the bridge, the nodes' namespaces and network
slurm_bridge=${SCR_LAB_BRIDGE:-scrlabbr0}
slurm_ns_prefix=${SCR_LAB_NS_PREFIX:-scrlab-}
slurm_net=${SCR_LAB_NET:-10.77.0}

slurm_skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

# What this host lacks to run a cluster (prints nothing when all is there).
slurm_missing_requirement() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "needs root (network namespaces, daemons, a test user)"
        return
    fi
    for _slurm_cmd in ip nsenter unshare munged slurmctld slurmd srun sbatch scontrol sinfo flock runuser timeout; do
        if ! command -v "$_slurm_cmd" > /dev/null 2>&1; then
            echo "$_slurm_cmd not found (etc/install-deps.sh installs the Slurm and munge packages)"
            return
        fi
    done
    if ! ip netns list > /dev/null 2>&1; then
        echo "ip netns does not work here"
    elif [ ! -f "$slurm_plugin" ]; then
        echo "spank/spank_scr.so is not built"
    elif nm -D --undefined-only "$slurm_plugin" 2>/dev/null | grep -q ' __[au]bsan_'; then
        # srun and slurmstepd have no sanitizer runtime to give the plugin
        echo "spank_scr.so is built with a sanitizer, which Slurm's programs cannot load"
    fi
}

# start-cluster.sh or stop-cluster.sh ($1) for this test's lab, with its names
slurm_lab_script() {
    LAB=$slurm_lab NNODES=$NNODES SPANK_PLUGIN=$slurm_plugin SPANK_ARGS=${SPANK_ARGS:-} SCR_LAB_BRIDGE=$slurm_bridge \
        SCR_LAB_NS_PREFIX=$slurm_ns_prefix SCR_LAB_NET=$slurm_net sh "$slurm_dir/$1"
}

slurm_teardown() {
    slurm_lab_script stop-cluster.sh
    if [ "$tap_failed" -eq 0 ] && [ -z "${KEEP:-}" ]; then
        rm -rf "$slurm_lab"
    else
        echo "# cluster files (logs, configuration) kept in $slurm_lab" >&2
    fi
}

slurm_setup() {
    _slurm_missing=$(slurm_missing_requirement)
    [ -z "$_slurm_missing" ] || slurm_skip_all "$_slurm_missing"
    : "${NNODES:=4}"
    # outside the build tree, whose directories may be group-writable (an
    # archive unpacked with 0775, a umask of 002), which munged refuses;
    # one lab per test file and build tree
    _slurm_root=${SCR_LAB_ROOT:-/var/tmp/scr-slurm-tests}
    mkdir -p "$_slurm_root" && chmod 711 "$_slurm_root" || slurm_skip_all "cannot create $_slurm_root"
    slurm_lab=$_slurm_root/lab.$1.$(printf '%s' "$top_builddir" | cksum | cut -d' ' -f1)
    mkdir -p "$(dirname "$slurm_lock")"
    exec 9> "$slurm_lock"
    flock -w 600 9 || slurm_skip_all "another Slurm test cluster kept $slurm_lock for 10 minutes"
    trap 'slurm_teardown' EXIT
    trap 'exit 1' INT TERM HUP
    rm -rf "$slurm_lab"
    if ! _slurm_out=$(slurm_start_cluster 2>&1); then
        not_ok "the test cluster starts" "$_slurm_out"
        done_testing
        exit 1
    fi
    SLURM_CONF=$slurm_lab/etc/slurm.conf
    export SLURM_CONF
    # nothing from the caller steers SCR or Slurm (the lab's own names were
    # read when this file was sourced)
    for _slurm_var in $(env | sed -n 's/^\(SCR_[A-Za-z0-9_]*\|SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do
        [ "$_slurm_var" = SLURM_CONF ] || unset "$_slurm_var"
    done
    id -u "$slurm_user" > /dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh "$slurm_user" \
        || slurm_skip_all "cannot create the test user $slurm_user"
    slurm_uid=$(id -u "$slurm_user")
    slurm_work=$slurm_lab/out/work
    mkdir -p "$slurm_work"
    chown "$slurm_user" "$slurm_work"
}

# start-cluster.sh for this test's lab (also to bring back a killed node).
# The daemons it starts do not inherit the lock (descriptor 9): one that
# outlived its test would keep every later test out.
slurm_start_cluster() {
    slurm_lab_script start-cluster.sh 9>&-
}

as_user() {
    (cd "$slurm_work" && timeout -k 5 90 runuser -u "$slurm_user" -- env SLURM_CONF="$SLURM_CONF" "$@")
}

# The PID of NODE's slurmd, whose namespaces are the node's.
slurmd_pid() {
    cat "$slurm_lab/run/slurmd-$1.pid"
}

on_node() {
    _slurm_node=$1
    shift
    nsenter -t "$(slurmd_pid "$_slurm_node")" --net --mount --uts -- "$@"
}

slurmd_log() {
    cat "$slurm_lab/log/slurmd-$1.log"
}

next_job_id() {
    scontrol show config | awk '$1 == "NEXT_JOB_ID" {print $3}'
}

kill_node() {
    # again until nothing is left: a process forked between the listing and
    # the kill (a slurmstepd, an epilog) could still hold slurmd's socket.
    # Each round stops every process before killing any, as a crash would:
    # otherwise a task whose step daemon died first may end on its own, and
    # srun start the next run while the node's slurmd still answers
    _slurm_rounds=0
    while [ "$_slurm_rounds" -lt 50 ]; do
        _slurm_pids=$(ip netns pids "$slurm_ns_prefix$1" 2>/dev/null)
        [ -n "$_slurm_pids" ] || break
        kill -STOP $_slurm_pids 2>/dev/null
        kill -9 $_slurm_pids 2>/dev/null
        sleep 0.1
        _slurm_rounds=$((_slurm_rounds + 1))
    done
    return 0
}

wait_node_state() {
    _slurm_tries=$(( ${3:-60} * 2 ))
    while [ "$_slurm_tries" -gt 0 ]; do
        scontrol -o show node "$1" 2>/dev/null | grep -q "State=[A-Z+_]*$2" && return 0
        sleep 0.5
        _slurm_tries=$((_slurm_tries - 1))
    done
    return 1
}

wait_job_gone() {
    _slurm_tries=$(( ${2:-120} * 2 ))
    while [ "$_slurm_tries" -gt 0 ]; do
        squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
        sleep 0.5
        _slurm_tries=$((_slurm_tries - 1))
    done
    return 1
}
