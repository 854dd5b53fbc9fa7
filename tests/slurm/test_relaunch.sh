#!/bin/sh
# test_relaunch.sh — srun runs a failed SCR step again inside its allocation.
#
# A node crashed under a running MPI job (sbatch --no-kill --scr
# --scr-runs=3, 5 nodes): the next run starts within 90 s, avoids it,
# rebuilds the lost node's XOR-protected checkpoint from cache onto a spare
# node, finishes, and every byte checks. The lost node is the step's last,
# its first after the batch host (with the step cancelled before slurmctld
# notices, as an MPI abort does), a middle one that dies as the step ends
# (still up and answering when srun first judges the nodes, gone before the
# next run starts), and two nodes in turn in one job; with and without srun
# -K, under --exclusive and --ntasks-per-node.
# Also: a run killed without a node loss is run again once and resumes; the
# run limit; a job that finished is not run again; a node of
# SCR_EXCLUDE_NODES, and one whose health check failed in this job, are
# avoided, one an earlier job's health record names is not; an srun outside
# sbatch/salloc only says it cannot relaunch.
. "$top_srcdir/tests/slurm/slurm-lib.sh"
NNODES=5
slurm_setup relaunch

app=$top_builddir/tests/mpi/.libs/scr_test_app
libs=$top_builddir/lib/.libs

# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN
wait_for() {
    _tries=$(($3 * 2))
    while [ "$_tries" -gt 0 ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.5
        _tries=$((_tries - 1))
    done
    return 1
}

# --- the run limit, without MPI ---------------------------------------------------------
cat > "$slurm_work/count.sh" <<'SCRIPT'
#!/bin/sh
echo "run ${SCR_RUN_NUMBER:-1}" >> runs.txt
exit 3
SCRIPT
chmod 755 "$slurm_work/count.sh"
cat > "$slurm_work/limit.sh" <<'SCRIPT'
#!/bin/sh
srun -N1 ./count.sh
echo "srun status $?"
SCRIPT
chmod 755 "$slurm_work/limit.sh"
rm -f "$slurm_work/runs.txt"
as_user sbatch -W -N2 --scr --scr-runs=2 -o limit.out ./limit.sh > /dev/null 2>&1
runs=$(cat "$slurm_work/runs.txt" 2>/dev/null | tr '\n' ' ')
out=$(cat "$slurm_work/limit.out" 2>&1)
if [ "$runs" = "run 1 run 2 " ]; then ok "a step that ends without SCR_Finalize runs again, --scr-runs=2 times in all"
else not_ok "a step that ends without SCR_Finalize runs again, --scr-runs=2 times in all" "runs: $runs
$out"; fi
if printf '%s\n' "$out" | grep -q "not running again after run 2: .*2" && printf '%s\n' "$out" | grep -q "srun status 3"
then ok "then srun says why it stops, and the script sees the last run's status"
else not_ok "then srun says why it stops, and the script sees the last run's status" "$out"; fi

rm -f "$slurm_work/runs.txt"
as_user sbatch -W -N1 --scr -o once.out ./limit.sh > /dev/null 2>&1
runs=$(cat "$slurm_work/runs.txt" 2>/dev/null | tr '\n' ' ')
if [ "$runs" = "run 1 " ] && ! grep -q "scr:" "$slurm_work/once.out"; then
    ok "without --scr-runs a step runs once, silently"
else
    not_ok "without --scr-runs a step runs once, silently" "runs: $runs
$(cat "$slurm_work/once.out")"
fi

# a node in SCR_EXCLUDE_NODES is avoided from run 2 on; the first run's node
# count (1 of the job's 2) is the minimum
cat > "$slurm_work/where.sh" <<'SCRIPT'
#!/bin/sh
echo "run ${SCR_RUN_NUMBER:-1} $(hostname)" >> where.txt
exit 1
SCRIPT
chmod 755 "$slurm_work/where.sh"
cat > "$slurm_work/exclude.sh" <<'SCRIPT'
#!/bin/sh
SCR_EXCLUDE_NODES=$(hostname) srun -N1 ./where.sh
SCRIPT
chmod 755 "$slurm_work/exclude.sh"
rm -f "$slurm_work/where.txt"
as_user sbatch -W -N2 --scr --scr-runs=2 -o exclude.out ./exclude.sh > /dev/null 2>&1
where=$(cat "$slurm_work/where.txt" 2>/dev/null)
first=$(printf '%s\n' "$where" | awk '$2 == 1 {print $3}')
second=$(printf '%s\n' "$where" | awk '$2 == 2 {print $3}')
if [ -n "$first" ] && [ -n "$second" ] && [ "$first" != "$second" ] && grep -q "avoiding $first" "$slurm_work/exclude.out" &&
   grep -q "scr: $first is down: excluded by SCR_EXCLUDE_NODES" "$slurm_work/exclude.out"
then ok "run 2 avoids a node of SCR_EXCLUDE_NODES and runs on the other one"
else not_ok "run 2 avoids a node of SCR_EXCLUDE_NODES and runs on the other one" "$where
$(cat "$slurm_work/exclude.out")"; fi

# a node whose check fails in this job is avoided from run 2 on: its record
# reaches the prefix the script exports as the step ends, before srun
# decides; a record an earlier job left for a node that has not run a step
# of this one yet is not held against it. Nothing goes to the directory the
# job was submitted from.
mkdir -p "$slurm_work/health-submit" "$slurm_work/health-prefix/.scr/health"
printf '{"VERSION": {"1": {}}, "NODE": {"n3": {}}, "HEALTHY": {"0": {}}, "REASON": {"an earlier job'"'"'s finding": {}}, "CHECKED": {"1000000000": {}}}' \
    > "$slurm_work/health-n3.json"
"${PYTHON3:-/usr/bin/python3}" "$top_srcdir/tests/tools/kvtree_ref.py" write "$slurm_work/health-n3.json" \
    "$slurm_work/health-prefix/.scr/health/n3.health"
chown -R "$slurm_user" "$slurm_work/health-submit" "$slurm_work/health-prefix"
cat > "$slurm_work/health-submit/job.sh" <<SCRIPT
#!/bin/sh
export SCR_PREFIX=$slurm_work/health-prefix
srun -N2 ../where.sh
SCRIPT
chmod 755 "$slurm_work/health-submit/job.sh"
job=$(next_job_id)
# the control directory of n2 belongs to someone else: its check fails
on_node n2 sh -c "mkdir -p /dev/shm/$slurm_user/scr.$job && chown -R nobody /dev/shm/$slurm_user"
rm -f "$slurm_work/health-submit/where.txt"
as_user sh -c "cd health-submit && sbatch -W -N3 -w 'n[1-3]' --scr --scr-runs=2 -o out.txt ./job.sh" > /dev/null 2>&1
on_node n2 rm -rf "/dev/shm/$slurm_user"
where=$(cat "$slurm_work/health-submit/where.txt" 2>/dev/null)
second=$(printf '%s\n' "$where" | awk '$2 == 2 {print $3}' | sort | tr '\n' ' ')
out=$(cat "$slurm_work/health-submit/out.txt" 2>&1)
if [ "$second" = "n1 n3 " ] && printf '%s\n' "$out" | grep -q "starting run 2 on 2 nodes, avoiding n2" &&
   printf '%s\n' "$out" | grep -q "scr: n2 is down: failed its health check: refusing /dev/shm/$slurm_user" &&
   ! printf '%s\n' "$out" | grep -q "n3 is down"; then
    ok "run 2 avoids a node that failed its check in this job, not one an earlier job's record names"
else
    not_ok "run 2 avoids a node that failed its check in this job, not one an earlier job's record names" "$where
$out
$(ls -la "$slurm_work/health-prefix/.scr/health" 2>&1)"
fi
if [ ! -e "$slurm_work/health-submit/.scr" ]; then ok "the directory the job was submitted from is untouched"
else not_ok "the directory the job was submitted from is untouched" "$(ls -laR "$slurm_work/health-submit/.scr")"; fi
# n1 ran both runs: its record went to the prefix as run 1 ended, and run 2 found nothing left to deliver
if grep -q "scr: health record of job $job for $slurm_user: node n1 healthy; record $slurm_work/health-prefix/" \
       "$slurm_lab/log/slurmd-n1.log" && ! grep -q "error: scr: health record of job $job " "$slurm_lab/log/slurmd-n1.log"; then
    ok "a node delivers its record once, as the first step's task ends, and says so in its slurmd log"
else
    not_ok "a node delivers its record once, as the first step's task ends, and says so in its slurmd log" \
        "$(grep 'scr: health' "$slurm_lab/log/slurmd-n1.log")"
fi

rm -f "$slurm_work/runs.txt"
out=$(as_user srun -N1 --scr --scr-runs=2 ./count.sh 2>&1)
runs=$(cat "$slurm_work/runs.txt" 2>/dev/null | tr '\n' ' ')
if [ "$runs" = "run 1 " ] && printf '%s\n' "$out" | grep -q "made its own allocation"; then
    ok "an srun with its own allocation runs once and says why"
else
    not_ok "an srun with its own allocation runs once and says why" "runs: $runs
$out"
fi

if [ ! -x "$app" ]; then
    skip "MPI relaunch tests" "tests/mpi/scr_test_app not built"
    done_testing
    exit $?
fi

# --- a killed run resumes from its checkpoint in cache ------------------------------------
mkdir -p "$slurm_work/crash"
chown "$slurm_user" "$slurm_work/crash"
cat > "$slurm_work/crash/job.sh" <<SCRIPT
#!/bin/sh
srun --mpi=pmix -K -N2 -n2 env LD_LIBRARY_PATH=$libs $app --steps 3 --crash-after 1 --crash-rank 1
echo "srun status \$?"
SCRIPT
chmod 755 "$slurm_work/crash/job.sh"
# with SCR_LOG_ENABLE=1 in the job's environment, the events of the library
# (rank 0), of srun's relaunch and of the epilogs' scavenge share one log
as_user sh -c "cd crash && SCR_LOG_ENABLE=1 sbatch -W -N2 --scr --scr-runs=3 --scr-flush=0 -o out.txt ./job.sh" > /dev/null 2>&1
out=$(cat "$slurm_work/crash/out.txt" 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c 'restarted from step 1')" -eq 2 ] &&
   [ "$(printf '%s\n' "$out" | grep -c 'finished step 3')" -eq 2 ] &&
   printf '%s\n' "$out" | grep -q "starting run 2" && ! printf '%s\n' "$out" | grep -q "starting run 3" &&
   printf '%s\n' "$out" | grep -q "srun status 0"; then
    ok "a killed run is run again, resumes from its cached checkpoint, finishes, and is not run a third time"
else
    not_ok "a killed run is run again, resumes from its cached checkpoint, finishes, and is not run a third time" "$out"
fi
# the epilogs run once the job has ended; give the last one time to write
events=$slurm_work/crash/.scr/events.jsonl
_tries=60
while [ "$_tries" -gt 0 ] && [ "$(grep -c '"event":"scavenge"' "$events" 2>/dev/null)" -lt 2 ]; do
    sleep 0.5
    _tries=$((_tries - 1))
done
summary=$("$top_builddir/cli/scr-log" --prefix "$slurm_work/crash" --json --event init,relaunch,scavenge 2>&1 |
    "${PYTHON3:-/usr/bin/python3}" -c '
import json, sys
ev = json.load(sys.stdin)
print(" ".join("%s:%s" % (e["event"], e.get("restart_source") or e.get("run") or e.get("node")) for e in ev))
print(len(set(e["job"] for e in ev)), all(e["status"] == "ok" for e in ev))' 2>&1)
want="init:none relaunch:2 init:cache scavenge:n1 scavenge:n2
1 True"
sorted_summary=$(printf '%s\n' "$summary" | sed '1s/scavenge:n2 scavenge:n1/scavenge:n1 scavenge:n2/')
if [ "$sorted_summary" = "$want" ]; then
    ok "the event log has both runs' init, the relaunch and each node's scavenge, of one job"
else
    not_ok "the event log has both runs' init, the relaunch and each node's scavenge, of one job" "$summary
$(cat "$events" 2>&1)"
fi

# --- node losses: the next run avoids the lost node and rebuilds onto a spare ------------
# Each case runs an XOR-protected job (sets of 3 across nodes, two checkpoints
# kept in cache, no flush) under sbatch --no-kill, crashes one node of its step
# once the node's cache holds the third checkpoint (so the second is complete),
# and checks that the next run starts within 90 s of the crash (a hang check:
# srun must not wait on the dead step), avoids the lost node, that every rank
# restarts from the same cached step, and that every byte checks to the end.

# loss_job NAME "SBATCH OPTIONS" "SRUN OPTIONS" STEP_NODES RANKS STEPS: submit
# the job in $slurm_work/NAME; its id in $job. Rank 0 of each run notes the
# run's number, start time and nodes in runs.txt.
loss_job() {
    _dir=$slurm_work/$1
    mkdir -p "$_dir"
    rm -f "$_dir/runs.txt" "$_dir/out.txt"
    chown "$slurm_user" "$_dir"
    cat > "$_dir/job.sh" <<SCRIPT
#!/bin/sh
echo "job \$SLURM_JOB_ID"
srun --mpi=pmix $3 -N$4 -n$5 sh -c '[ "\$SLURM_PROCID" != 0 ] || echo "run \${SCR_RUN_NUMBER:-1} \$(date +%s) \$SLURM_STEP_NODELIST" >> runs.txt
    exec env LD_LIBRARY_PATH=$libs $app --steps $6 --files 2 --size 200000 --uneven --sleep-ms 1000'
echo "srun status \$?"
SCRIPT
    chmod 755 "$_dir/job.sh"
    job=
    as_user sh -c "cd $1 && sbatch --no-kill $2 --scr --scr-runs=3 --scr-copy-type=XOR --scr-set-size=3 \
        --scr-cache-size=2 --scr-flush=0 -o out.txt ./job.sh" > /dev/null 2>&1
    wait_for "$_dir/out.txt" "^job " 60 && job=$(sed -n 's/^job //p' "$_dir/out.txt")
}

# crash_at NODE DATASET: once NODE's cache holds the job's dataset DATASET,
# crash the node; the time in $crashed_at. Fails when that never comes.
crash_at() {
    _tries=0
    until on_node "$1" test -d "/dev/shm/$slurm_user/scr.$job/scr.dataset.$2" 2>/dev/null; do
        _tries=$((_tries + 1))
        [ "$_tries" -le 240 ] || return 1
        sleep 0.25
    done
    kill_node "$1"
    crashed_at=$(date +%s)
}

# crash_as_step_ends NAME NODE DATASET: once NODE's cache holds DATASET,
# its tasks die (srun -K then ends the step at once), and the node itself
# only once srun, having judged the nodes as the step ended, says it waits
# for the step to leave slurmctld: a node that dies while the step ends,
# up to Slurm and answering when first judged. The time of the crash in
# $crashed_at. The next run must not be placed on it.
crash_as_step_ends() {
    _tries=0
    until on_node "$2" test -d "/dev/shm/$slurm_user/scr.$job/scr.dataset.$3" 2>/dev/null; do
        _tries=$((_tries + 1))
        [ "$_tries" -le 240 ] || return 1
        sleep 0.25
    done
    for _p in $(ip netns pids "$slurm_ns_prefix$2"); do
        [ "$(cat "/proc/$_p/comm" 2>/dev/null)" = scr_test_app ] && kill -9 "$_p"
    done
    # the relaunch then waits at least 3 s before it starts the next run
    _tries=0
    until grep -q "scr: waited .* for step $job\.0 \|scr: step $job\.0 still" "$slurm_work/$1/out.txt" 2>/dev/null; do
        _tries=$((_tries + 1))
        [ "$_tries" -le 600 ] || return 1
        sleep 0.1
    done
    kill_node "$2"
    crashed_at=$(date +%s)
}

# run_started NAME RUN: the start time of run RUN, once it has started (90 s at most)
run_started() {
    wait_for "$slurm_work/$1/runs.txt" "^run $2 " 90 || return 1
    awk -v r="$2" '$1 == "run" && $2 == r {print $3; exit}' "$slurm_work/$1/runs.txt"
}

# check_next_run NAME RUN LOST: run RUN started within 90 s of the crash of
# LOST, and not on it
check_next_run() {
    if _t=$(run_started "$1" "$2"); then
        _nodes=$(awk -v r="$2" '$1 == "run" && $2 == r {print $4; exit}' "$slurm_work/$1/runs.txt")
        _on=$(scontrol show hostnames "$_nodes" | tr '\n' ' ')
        if printf ' %s' "$_on" | grep -q " $3 "; then
            not_ok "$1: run $2 avoids the lost node $3" "run $2 ran on $_on"
        else
            ok "$1: run $2 started $((_t - crashed_at)) s after $3 was lost, on $_on"
        fi
    else
        not_ok "$1: run $2 starts within 90 s of the loss of $3" "$(cat "$slurm_work/$1/runs.txt" "$slurm_work/$1/out.txt" 2>&1)
$(squeue -s -j "$job" 2>&1)"
    fi
}

# check_finish NAME RANKS STEPS RUNS: the job ran RUNS runs; the last one's
# ranks all restarted from one cached step (>= 2) and checked every byte to
# the end
check_finish() {
    wait_job_gone "$job" 240 || scancel "$job"
    _text=$(cat "$slurm_work/$1/out.txt")
    _last=$(printf '%s\n' "$_text" | awk '/scr: run [0-9]+ ended before SCR_Finalize; starting run/ { seg = ""; next }
                                          { seg = seg $0 "\n" } END { printf "%s", seg }')
    _from=$(printf '%s' "$_last" | sed -n 's/^rank [0-9]*: restarted from step \([0-9]*\)$/\1/p' | sort -u)
    _n=$(printf '%s' "$_last" | grep -c 'restarted from step')
    _runs=$(grep -c '^run ' "$slurm_work/$1/runs.txt" 2>/dev/null)
    if [ "$_runs" = "$4" ] && [ "$_n" -eq "$2" ] && [ "$(printf '%s\n' "$_from" | wc -l)" -eq 1 ] && [ "${_from:-0}" -ge 2 ] &&
       [ "$(printf '%s\n' "$_last" | grep -c "finished step $3")" -eq "$2" ] &&
       printf '%s\n' "$_text" | grep -q "srun status 0" &&
       printf '%s\n' "$_text" | grep -q "not running again after run $4: the job finished"; then
        ok "$1: in $4 runs every rank restarts from cached step $_from, and every byte checks"
    else
        not_ok "$1: in $4 runs every rank restarts from a cached step, and every byte checks" "runs: $_runs
$_text"
    fi
}

revive_nodes() {
    slurm_start_cluster > /dev/null 2>&1
}

# Case 1: the last node of the step, srun -K, sbatch --ntasks-per-node. Also
# what scr-list-down-nodes makes of a node that has just crashed.
loss_job last "-N4 --ntasks-per-node=2" "-K" 3 6 6
if crash_at n3 3; then
    # at once, before slurmctld may have noticed: its slurmd no longer
    # answers, and every other node's still does
    down=$("$top_builddir/cli/scr-list-down-nodes" --reason --health-dir "$slurm_work/no-health" 'n[1-4]' 2>&1)
    status=$?
    if [ "$status" -eq 1 ] && [ "$(printf '%s\n' "$down" | wc -l)" -eq 1 ] &&
       printf '%s\n' "$down" | grep -Eq "^n3: (its slurmd at $(printf '%s' "$slurm_net" | sed 's/\./\\./g')\.13:[0-9]+ does not answer: |Slurm reports it)"; then
        ok "scr-list-down-nodes names the crashed node, and only it, as down"
        echo "# $down"
    else
        not_ok "scr-list-down-nodes names the crashed node, and only it, as down" "status $status: $down"
    fi
    # asked of n3 alone, no node answers: that says more of this host than
    # of the nodes, so the probe is set aside, with a line saying so
    alone=$("$top_builddir/cli/scr-list-down-nodes" --reason --health-dir "$slurm_work/no-health" n3 2>&1)
    status=$?
    if { [ "$status" -eq 0 ] && [ "$alone" = "scr-list-down-nodes: no node's slurmd answered a probe from this host ($slurm_net.13:${SLURMD_PORT:-6818}: Connection refused); judged without it" ]; } ||
       { [ "$status" -eq 1 ] && printf '%s\n' "$alone" | grep -q "^n3: Slurm reports it"; }; then
        ok "when no node's slurmd answers, the probe is set aside and says so"
        echo "# $alone"
    else
        not_ok "when no node's slurmd answers, the probe is set aside and says so" "status $status: $alone"
    fi
    check_next_run last 2 n3
    if wait_node_state n3 DOWN 60; then ok "the crashed node is down"
    else not_ok "the crashed node is down" "$(scontrol -o show node n3)"; fi
    check_finish last 6 6 2
    if grep -q "starting run 2 on 3 nodes, avoiding n3" "$slurm_work/last/out.txt" &&
       grep -q "scr: n3 is down: " "$slurm_work/last/out.txt"; then
        ok "last: srun says it avoids n3 and why"
    else
        not_ok "last: srun says it avoids n3 and why" "$(cat "$slurm_work/last/out.txt")"
    fi
    logs=$(grep -c "\[$job\." "$slurm_lab/log/slurmd-n4.log" 2>/dev/null)
    if [ "$logs" -gt 0 ]; then ok "last: the spare node n4 ran a step of the job"
    else not_ok "last: the spare node n4 ran a step of the job" "n4's slurmd log has no step of job $job"; fi
else
    not_ok "last: the job reaches its third checkpoint" "$(cat "$slurm_work/last/out.txt" 2>&1)"
fi
revive_nodes

# Case 2: the first node after the batch host, no -K, --exclusive. Open MPI
# on the other nodes may notice the loss first and abort, which cancels the
# step before slurmctld declares the node down; the step is cancelled here
# as that abort does, so that srun gives up on the lost node's tasks and
# leaves a step slurmctld keeps (spank/spank_step_leave.c).
loss_job first "-N4 --exclusive" "" 3 6 6
if crash_at n2 3; then
    sleep 0.3
    scancel "$job.0" 2>/dev/null
    check_next_run first 2 n2
    check_finish first 6 6 2
    if grep -q "scr: step $job.0 " "$slurm_work/first/out.txt"; then
        ok "first: srun says what it waited for, and how long"
        grep "scr: step $job.0 \|scr: waited" "$slurm_work/first/out.txt" | sed 's/^/# /'
    else
        not_ok "first: srun says what it waited for, and how long" "$(cat "$slurm_work/first/out.txt")"
    fi
else
    not_ok "first: the job reaches its third checkpoint" "$(cat "$slurm_work/first/out.txt" 2>&1)"
fi
revive_nodes

# Case 3: a middle node of a 4-node step, -K, --ntasks-per-node; the node
# dies as the step ends (crash_as_step_ends): up and answering when srun
# first judges the nodes, gone before the next run starts.
loss_job middle "-N5 --ntasks-per-node=2" "-K" 4 8 6
if crash_as_step_ends middle n3 3; then
    check_next_run middle 2 n3
    check_finish middle 8 6 2
else
    not_ok "middle: the job reaches its third checkpoint" "$(cat "$slurm_work/middle/out.txt" 2>&1)"
fi
revive_nodes

# Case 4: two losses in one job, -K, --exclusive: n2 under run 1, then n3
# under run 2 (which runs on n1, n3 and n4), once run 2 has made a
# checkpoint of its own; run 3 runs on n1, n4 and n5.
loss_job twice "-N5 --exclusive" "-K" 3 6 10
if crash_at n2 3; then
    check_next_run twice 2 n2
    # run 2 restarts from dataset 2 or 3 and numbers its checkpoints on from 4
    if crash_at n3 5; then
        check_next_run twice 3 n3
        check_finish twice 6 10 3
    else
        not_ok "twice: run 2 reaches a checkpoint of its own" "$(cat "$slurm_work/twice/out.txt" 2>&1)"
    fi
else
    not_ok "twice: the job reaches its third checkpoint" "$(cat "$slurm_work/twice/out.txt" 2>&1)"
fi
wait_job_gone "$job" 240 || scancel "$job"
revive_nodes

done_testing
exit $?
