#!/bin/sh
# start-cluster.sh — a Slurm cluster of NNODES nodes on this one machine, for tests.
#
# munged (private key and socket), a bridge with one network namespace per
# node, slurmctld on the host (the login node) and one slurmd per node, each
# made a node of its own by node-init.sh. Idempotent: whatever already runs
# is kept, what is missing (a killed slurmd, say) is started again, and the
# configuration is rewritten and re-read. Returns when every node is idle.
# Knobs: see cluster-env.sh. Needs root, iproute2 (ip netns), util-linux
# (nsenter, unshare), munge and the slurmctld/slurmd packages.
set -eu
. "$(dirname "$0")/cluster-env.sh"

die() { echo "start-cluster.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root"
# Modes are set here, never inherited from a umask or an unpacked archive:
# munged refuses a key, seed or socket directory that others may write.
umask 022
mkdir -p "$LAB/etc" "$LAB/log" "$LAB/run" "$LAB/private/state" "$LAB/munge" "$LAB/out"
chmod 711 "$LAB"                 # the test user reaches etc/ and out/, lists nothing
chmod 755 "$LAB/etc" "$LAB/run"
chmod 700 "$LAB/private" "$LAB/log"   # munge key and seed, slurmctld state; the daemons' logs
chmod 711 "$LAB/munge"           # the socket only: every client needs to reach it
chmod 1777 "$LAB/out"
lab_check_parents "$LAB" || die "$LAB lies below a directory others may write (munged would refuse it): $lab_unsafe"
for n in $(lab_nodes); do mkdir -p "$LAB/nodes/$n/spool" "$LAB/nodes/$n/tmp"; done

# --- munge ------------------------------------------------------------------
socket=$LAB/munge/munge.socket.2
key=$LAB/private/munge.key
if [ ! -f "$key" ]; then
    dd if=/dev/urandom of="$key" bs=1024 count=1 2>/dev/null
    chmod 400 "$key"
fi
if ! lab_alive_pid "$MUNGED_PID" munged > /dev/null; then
    rm -f "$socket" "$socket.lock"
    munged --key-file="$key" --socket="$socket" --pid-file="$MUNGED_PID" \
        --log-file="$LAB/private/munged.log" --seed-file="$LAB/private/munged.seed" \
        || die "munged did not start (see $LAB/private/munged.log)"
fi

# --- network: our bridge, one namespace per node ------------------------------
if ! ip link show "$SCR_LAB_BRIDGE" > /dev/null 2>&1; then
    ip link add "$SCR_LAB_BRIDGE" type bridge
    ip addr add "$SCR_LAB_NET.1/24" dev "$SCR_LAB_BRIDGE"
fi
ip link set "$SCR_LAB_BRIDGE" up
i=0
for n in $(lab_nodes); do
    i=$((i + 1))
    ns=$SCR_LAB_NS_PREFIX$n
    if ! ip netns list | grep -qx "$ns\( .*\)\?"; then
        ip netns add "$ns"
        ip link add "$ns-h" type veth peer name eth0 netns "$ns"
        ip link set "$ns-h" master "$SCR_LAB_BRIDGE" up
        ip -n "$ns" addr add "$SCR_LAB_NET.$((10 + i))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
    fi
done

# --- configuration ------------------------------------------------------------
{
    echo "127.0.0.1 localhost"
    echo "$SCR_LAB_NET.1 $(hostname)"
    i=0
    for n in $(lab_nodes); do i=$((i + 1)); echo "$SCR_LAB_NET.$((10 + i)) $n"; done
} > "$LAB/etc/hosts"
# MinJobAge=4: sbatch --wait polls the job after 2 s, then waits 4 times
# longer each time while the wait is below MinJobAge/2 (8 s, then 32 s): a
# test waiting on a 3 s job waited 10 s with MinJobAge=30. With 4, it polls
# every 2 s (Slurm advises at least 2; no test reads a finished job's record).
cat > "$LAB/etc/slurm.conf" <<CONF
ClusterName=scrlab
SlurmctldHost=localhost($SCR_LAB_NET.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$LAB/private/state
SlurmdSpoolDir=$LAB/nodes/%n/spool
TmpFS=$LAB/nodes/%n/tmp
SlurmctldPidFile=$LAB/run/slurmctld.pid
SlurmdPidFile=$LAB/run/slurmd-%n.pid
SlurmctldLogFile=$LAB/log/slurmctld.log
SlurmdLogFile=$LAB/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$LAB/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=pmix
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
PrologFlags=Alloc
MailProg=/bin/true
ReturnToService=2
SlurmdTimeout=5
MessageTimeout=5
InactiveLimit=0
KillWait=5
MinJobAge=4
JobRequeue=0
NodeName=n[1-$NNODES] NodeAddr=$SCR_LAB_NET.[11-$((10 + NNODES))] Port=$SLURMD_PORT CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
kind=optional
[ "$PLUGSTACK_REQUIRED" = 1 ] && kind=required
echo "$kind $SPANK_PLUGIN $SPANK_ARGS" > "$LAB/etc/plugstack.conf"
echo "export SLURM_CONF=$SLURM_CONF" > "$LAB/env.sh"

# --- daemons --------------------------------------------------------------------
restarted=0
if ! lab_alive_pid "$LAB/run/slurmctld.pid" slurmctld > /dev/null; then
    slurmctld -c -i -f "$SLURM_CONF" || die "slurmctld did not start (see $LAB/log/slurmctld.log)"
else
    restarted=1
fi
for n in $(lab_nodes); do
    if ! lab_alive_pid "$LAB/run/slurmd-$n.pid" slurmd > /dev/null; then
        nsenter --net="/run/netns/$SCR_LAB_NS_PREFIX$n" unshare --uts --mount -- \
            "$here/node-init.sh" "$n" "$LAB" slurmd -f "$SLURM_CONF" \
            || die "slurmd of $n did not start (see $LAB/log/slurmd-$n.log)"
    else
        restarted=1
    fi
done
[ "$restarted" = 0 ] || scontrol reconfigure > /dev/null 2>&1 || true

# --- wait until every node is idle ---------------------------------------------
tries=0
while :; do
    states=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u)
    idle=$(printf '%s\n' "$states" | grep -c ' idle$' || true)
    [ "$idle" -eq "$NNODES" ] && break
    # a node that came back after being killed is resumed
    for n in $(printf '%s\n' "$states" | awk '$2 ~ /^down/ {print $1}'); do
        scontrol update nodename="$n" state=resume > /dev/null 2>&1 || true
    done
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || die "nodes not idle after 30 s: $(echo $states)"
    sleep 0.1
done
