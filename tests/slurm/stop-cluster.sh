#!/bin/sh
# stop-cluster.sh — take down what start-cluster.sh started, and only that.
#
# Cancels the jobs, stops the slurmd of each node, every process still in
# our nodes' namespaces (steps, tasks), slurmctld and munged (each found by
# its PID file under $LAB and checked by name), then deletes our network
# namespaces and our bridge. Idempotent: what is already gone is skipped.
# The lab directory (logs, configuration) is kept.
set -u
. "$(dirname "$0")/cluster-env.sh"

# Signal the process in PID file $1 if it is $2, and wait (up to 10 s) for it to go.
stop_pidfile() {
    pid=$(lab_alive_pid "$1" "$2") || return 0
    kill "$pid" 2>/dev/null
    tries=0
    while lab_is_running "$pid" "$2" && [ "$tries" -lt 100 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    lab_is_running "$pid" "$2" && kill -9 "$pid" 2>/dev/null
    return 0
}

if lab_alive_pid "$LAB/run/slurmctld.pid" slurmctld > /dev/null; then
    jobs=$(squeue -h -o %i 2>/dev/null)
    [ -z "$jobs" ] || scancel $jobs 2>/dev/null
fi
for n in $(lab_nodes) $(ls "$LAB/run" 2>/dev/null | sed -n 's/^slurmd-\(.*\)\.pid$/\1/p'); do
    stop_pidfile "$LAB/run/slurmd-$n.pid" slurmd
done
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$SCR_LAB_NS_PREFIX"); do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
done
stop_pidfile "$LAB/run/slurmctld.pid" slurmctld
stop_pidfile "$MUNGED_PID" munged
if ip link show "$SCR_LAB_BRIDGE" > /dev/null 2>&1; then
    ip link del "$SCR_LAB_BRIDGE"
fi
exit 0
