#!/bin/sh
# test_relaunch.sh — srun runs a failed SCR step again inside its allocation.
#
# A node crashed under a running MPI job (sbatch --no-kill --scr
# --scr-runs=3, 4 nodes, 3 used): the next run avoids it, rebuilds the lost
# node's XOR-protected checkpoint from cache onto the spare node, finishes,
# and every byte checks. Also: a run killed without a node loss is run again
# once and resumes; the run limit; a job that finished is not run again;
# an srun outside sbatch/salloc only says it cannot relaunch.
. "$top_srcdir/tests/slurm/slurm-lib.sh"
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
as_user sh -c "cd crash && sbatch -W -N2 --scr --scr-runs=3 --scr-flush=0 -o out.txt ./job.sh" > /dev/null 2>&1
out=$(cat "$slurm_work/crash/out.txt" 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c 'restarted from step 1')" -eq 2 ] &&
   [ "$(printf '%s\n' "$out" | grep -c 'finished step 3')" -eq 2 ] &&
   printf '%s\n' "$out" | grep -q "starting run 2" && ! printf '%s\n' "$out" | grep -q "starting run 3" &&
   printf '%s\n' "$out" | grep -q "srun status 0"; then
    ok "a killed run is run again, resumes from its cached checkpoint, finishes, and is not run a third time"
else
    not_ok "a killed run is run again, resumes from its cached checkpoint, finishes, and is not run a third time" "$out"
fi

# --- a node crash: the next run avoids it and rebuilds onto the spare node ---------------------
mkdir -p "$slurm_work/node"
chown "$slurm_user" "$slurm_work/node"
cat > "$slurm_work/node/job.sh" <<SCRIPT
#!/bin/sh
echo "job \$SLURM_JOB_ID"
srun --mpi=pmix -K -N3 -n6 env LD_LIBRARY_PATH=$libs $app --steps 8 --files 2 --size 200000 --uneven --sleep-ms 1500
echo "srun status \$?"
SCRIPT
chmod 755 "$slurm_work/node/job.sh"
as_user sh -c "cd node && sbatch --no-kill -N4 --ntasks-per-node=2 --scr --scr-runs=3 --scr-copy-type=XOR --scr-set-size=3 \
    --scr-cache-size=2 --scr-flush=0 -o out.txt ./job.sh" > /dev/null 2>&1
out=$slurm_work/node/out.txt
wait_for "$out" "^job " 30
job=$(sed -n 's/^job //p' "$out")
# the crash comes once the third checkpoint has begun in n3's cache, so the
# second is complete there (two are kept: a crash amid a checkpoint leaves
# the one before it)
tries=0
until on_node n3 test -d "/dev/shm/$slurm_user/scr.$job/scr.dataset.3" 2>/dev/null || [ "$tries" -ge 120 ]; do
    sleep 0.5
    tries=$((tries + 1))
done
kill_node n3
# at once, before slurmctld may have noticed: its slurmd no longer answers,
# and every other node's still does
down=$("$top_builddir/cli/scr-list-down-nodes" --reason --health-dir "$slurm_work/no-health" 'n[1-4]' 2>&1)
status=$?
if [ "$status" -eq 1 ] && [ "$(printf '%s\n' "$down" | wc -l)" -eq 1 ] &&
   printf '%s\n' "$down" | grep -Eq "^n3: (its slurmd at 10\.77\.0\.13:[0-9]+ does not answer: |Slurm reports it)"; then
    ok "scr-list-down-nodes names the crashed node, and only it, as down"
    echo "# $down"
else
    not_ok "scr-list-down-nodes names the crashed node, and only it, as down" "status $status: $down"
fi
# asked of n3 alone, no node answers: that says more of this host than of the
# nodes, so the probe is set aside, with a line saying so
alone=$("$top_builddir/cli/scr-list-down-nodes" --reason --health-dir "$slurm_work/no-health" n3 2>&1)
status=$?
if { [ "$status" -eq 0 ] && [ "$alone" = "scr-list-down-nodes: no node's slurmd answered a probe from this host (10.77.0.13:6818: Connection refused); judged without it" ]; } ||
   { [ "$status" -eq 1 ] && printf '%s\n' "$alone" | grep -q "^n3: Slurm reports it"; }; then
    ok "when no node's slurmd answers, the probe is set aside and says so"
    echo "# $alone"
else
    not_ok "when no node's slurmd answers, the probe is set aside and says so" "status $status: $alone"
fi
if wait_node_state n3 DOWN 60; then ok "the crashed node is down"
else not_ok "the crashed node is down" "$(scontrol -o show node n3)"; fi
wait_job_gone "$job" 180 || scancel "$job"
text=$(cat "$out")
# what the last run printed: when Open MPI fails run 2 by itself (below),
# run 3 restarts from whatever run 2 reached
last_run=$(printf '%s\n' "$text" | awk '/scr: run [0-9]+ ended before SCR_Finalize; starting run/ { seg = ""; next }
                                        { seg = seg $0 "\n" } END { printf "%s", seg }')
restarted=$(printf '%s' "$last_run" | sed -n 's/^rank [0-9]*: restarted from step \([0-9]*\)$/\1/p' | sort -u)
nrestarted=$(printf '%s' "$last_run" | grep -c 'restarted from step')
if printf '%s\n' "$text" | grep -q "starting run 2 on 3 nodes, avoiding n3" &&
   printf '%s\n' "$text" | grep -q "scr: n3 is down: " &&
   [ "$nrestarted" -eq 6 ] && [ -n "$restarted" ] &&
   [ "$(printf '%s\n' "$restarted" | wc -l)" -eq 1 ] && [ "$restarted" -ge 2 ]; then
    ok "run 2 avoids n3, runs on the 3 nodes left, and every rank restarts from cached step $restarted"
else
    not_ok "run 2 avoids n3, runs on the 3 nodes left, and every rank restarts from a cached checkpoint" "$text"
fi
# Open MPI 4.1's TCP transport now and then crashes in MPI_Init of a step
# started right after a node failure; the relaunch must then carry on
if printf '%s\n' "$text" | grep -q "starting run 3"; then
    echo "# run 2 failed by itself, run 3 went on:"
    printf '%s\n' "$text" | grep -i "segmentation\|scr:" | sed 's/^/#   /'
fi
if [ "$(printf '%s\n' "$text" | grep -c 'finished step 8')" -eq 6 ] && printf '%s\n' "$text" | grep -q "srun status 0" &&
   printf '%s\n' "$text" | grep -q "not running again after run [23]: the job finished"; then
    ok "it finishes with every byte checked, and srun stops relaunching because the job finished"
else
    not_ok "it finishes with every byte checked, and srun stops relaunching because the job finished" "$text"
fi
logs=$(cat "$slurm_lab"/log/slurmd-n4.log 2>/dev/null | grep -c "\[$job\.")
if [ "$logs" -gt 0 ]; then ok "the spare node n4 ran a step of the job"
else not_ok "the spare node n4 ran a step of the job" "n4's slurmd log has no step of job $job"; fi
LAB=$slurm_lab NNODES=$NNODES SPANK_PLUGIN=$slurm_plugin sh "$slurm_dir/start-cluster.sh" > /dev/null 2>&1

done_testing
exit $?
