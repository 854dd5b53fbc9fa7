#!/bin/sh
# test_epilog.sh — the plugin's job epilog on a real Slurm cluster of 4 nodes.
#
# A job that checkpoints with SCR_FLUSH=0 and is cancelled leaves its newest
# checkpoint in cache: the epilogs scavenge it to the prefix, the last one
# indexes it (complete and current; a restart reads every byte back), each
# node adds a line to the job's record, and the job's directories are gone
# from every node. With XOR on 4 nodes and one node crashed before the
# cancel, the 3 others scavenge and the index rebuilds the lost node's
# ranks. A flushed job has nothing to copy and is still purged, also from a
# cache base its own environment chose. A job that
# sets its prefix in its script, in SCR_CONF_FILE or by --scr-prefix, away
# from where it was submitted, is scavenged to that prefix, its nodes'
# health records go there, as the user, and nothing to where it was
# submitted; a node none of its runs used holds nothing back. A running job keeps other jobs off
# its prefix, and its epilog releases it. A recorded prefix that leads into a
# root-only directory and a control directory swapped for a symbolic link
# are refused and logged, and nothing is written through them. A job
# without --scr gets no epilog work at all.
. "$top_srcdir/tests/slurm/slurm-lib.sh"
slurm_setup epilog

app=$top_builddir/tests/mpi/.libs/scr_test_app
index=$top_builddir/cli/scr-index
[ -x "$app" ] || slurm_skip_all "tests/mpi/scr_test_app is not built"
app_args="--files 2 --size 5000"

# epilog_lines JOB NODE: the node's epilog lines for JOB in its slurmd log
epilog_lines() {
    grep "scr: epilog of job $1[: ]" "$slurm_lab/log/slurmd-$2.log"
}

# wait_lines FILE PATTERN COUNT: until FILE has COUNT lines matching PATTERN (90 s at most)
wait_lines() {
    _tries=180
    while [ "$_tries" -gt 0 ]; do
        _n=$(grep -c "$2" "$1" 2>/dev/null)
        [ "${_n:-0}" -ge "$3" ] && return 0
        sleep 0.5
        _tries=$((_tries - 1))
    done
    return 1
}

# batch_app NAME NODES OPTIONS...: an sbatch job (--no-kill) that runs the app
# on NODES nodes, one rank each, in the prefix $slurm_work/NAME (the app
# writes its files below its working directory), then waits to be
# cancelled; its id in $job
batch_app() {
    _name=$1 _nodes=$2
    shift 2
    cat > "$slurm_work/$_name.sh" <<SCRIPT
#!/bin/sh
cd "$slurm_work/$_name" || exit 1
srun --mpi=pmix -N$_nodes -n$_nodes "$app" --steps 2 $app_args
echo "app ended \$?"
sleep 300
SCRIPT
    chmod 755 "$slurm_work/$_name.sh"
    as_user mkdir -p "$slurm_work/$_name"
    job=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" sbatch --parsable --no-kill -N"$_nodes" \
          -o "$_name.out" --scr-prefix="$slurm_work/$_name" "$@" "./$_name.sh" 2>&1)
}

# dirs_left JOB NODES...: the NODES that still have the job's directory
dirs_left() {
    _job=$1
    shift
    _left=
    for _n in "$@"; do
        on_node "$_n" test -e "/dev/shm/$slurm_user/scr.$_job" && _left="$_left $_n"
    done
    echo "$_left"
}

# index_complete_current PREFIX NAME: the index lists NAME complete and current
index_complete_current() {
    _out=$("$index" --list --prefix "$1" 2>&1)
    printf '%s\n' "$_out" | grep -q "^\*.* $2 .* yes "
}

# restart_reads PREFIX NODES RANKS: a new job restarts from step 2 of PREFIX,
# reading every byte back
restart_reads() {
    _out=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" srun --mpi=pmix -N"$2" -n"$3" --scr \
           -D "$slurm_work/$1" --scr-prefix="$slurm_work/$1" --scr-copy-type=SINGLE --scr-flush=1 "$app" --steps 3 $app_args 2>&1)
    [ "$(printf '%s\n' "$_out" | grep -c 'restarted from step 2')" -eq "$3" ] ||
        { echo "$_out"; return 1; }
}

# --- a job without --scr ----------------------------------------------------------------
out=$(as_user srun -N2 sh -c 'echo "job $SLURM_JOB_ID"' 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job //p' | head -n 1)
wait_job_gone "$job" 60
lines="$(epilog_lines "$job" n1)$(epilog_lines "$job" n2)"
if [ -n "$job" ] && [ -z "$lines" ] && [ ! -e "$slurm_work/.scr/job.$job.log" ]; then
    ok "a job without --scr: no epilog line, no record"
else
    not_ok "a job without --scr: no epilog line, no record" "job '$job': $lines"
fi

# --- the site's epilog_timeout= -----------------------------------------------------------
plugstack=$slurm_lab/etc/plugstack.conf
site_line=$(cat "$plugstack")
echo "$site_line epilog_timeout=soon" > "$plugstack"
if out=$(as_user srun -N1 true 2>&1); then not_ok "a bad epilog_timeout= is refused and named" "accepted: $out"
elif printf '%s\n' "$out" | grep -q "epilog_timeout=soon"; then ok "a bad epilog_timeout= is refused and named"
else not_ok "a bad epilog_timeout= is refused and named" "$out"; fi
echo "$site_line" > "$plugstack"

# --- (a) a checkpoint left in cache, then the job is cancelled ---------------------------------
batch_app a 2 --scr --scr-flush=0
wait_lines "$slurm_work/a.out" "finished step 2" 2
before=$(on_node n2 ls "/dev/shm/$slurm_user/scr.$job" 2>&1)
scancel "$job"
wait_job_gone "$job" 120
if [ -n "$before" ] && index_complete_current "$slurm_work/a" ckpt.2; then
    ok "cancelled job: the epilogs scavenged ckpt.2, indexed complete and current"
else
    not_ok "cancelled job: the epilogs scavenged ckpt.2, indexed complete and current" "cache before: $before
$("$index" --list --prefix "$slurm_work/a" 2>&1)
$(cat "$slurm_work/a.out")
$(epilog_lines "$job" n1) $(epilog_lines "$job" n2)"
fi
record=$slurm_work/a/.scr/job.$job.log
# each rank wrote 2 files of 5000 bytes, and the node holds its redundancy data too
copied='dataset=2 files=[3-9] bytes=[0-9]* failed=0'
if grep -q "node=n1 $copied" "$record" && grep -q "node=n2 $copied" "$record" &&
   [ "$(grep -c 'index=complete(2)' "$record")" -eq 1 ] && [ "$(wc -l < "$record")" -eq 2 ]; then
    ok "the job record has one line per node, and one of them indexed"
else
    not_ok "the job record has one line per node, and one of them indexed" "$(cat "$record" 2>&1)"
fi
if [ "$(stat -c %U "$record" 2>&1)" = "$slurm_user" ]; then ok "the record is the user's"
else not_ok "the record is the user's" "$(ls -l "$record" 2>&1)"; fi
left=$(dirs_left "$job" n1 n2)
if [ -z "$left" ]; then ok "the job's cache and control directories are gone from both nodes"
else not_ok "the job's cache and control directories are gone from both nodes" "left on:$left"; fi
n=0
for node in n1 n2; do
    # (as information: the health records went to the prefix as the step ended, and nothing failed)
    epilog_lines "$job" $node | grep -q "node $node: node=$node dataset=2 .*; removed" &&
        ! epilog_lines "$job" $node | grep -q "error: " && n=$((n + 1))
done
if [ "$n" -eq 2 ]; then ok "each node says what its epilog did in its slurmd log"
else not_ok "each node says what its epilog did in its slurmd log" "$(epilog_lines "$job" n1) $(epilog_lines "$job" n2)"; fi
if out=$(restart_reads a 2 2); then ok "a restart reads every byte of the scavenged checkpoint"
else not_ok "a restart reads every byte of the scavenged checkpoint" "$out"; fi

# --- (c) a flushed, finalized job ---------------------------------------------------------------
as_user mkdir -p "$slurm_work/c"
out=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" srun --mpi=pmix -N2 -n2 --scr --scr-flush=1 \
      -D "$slurm_work/c" --scr-prefix="$slurm_work/c" sh -c "\"$app\" --steps 2 $app_args; echo \"job \$SLURM_JOB_ID\"" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job //p' | head -n 1)
wait_job_gone "$job" 60
record=$slurm_work/c/.scr/job.$job.log
if [ "$(grep -c 'dataset=2 (already on the prefix) files=0 bytes=0' "$record" 2>/dev/null)" -eq 2 ] &&
   [ -z "$(dirs_left "$job" n1 n2)" ]; then
    ok "a flushed job: the epilogs copy nothing and still purge"
else
    not_ok "a flushed job: the epilogs copy nothing and still purge" "$out
$(cat "$record" 2>&1) left on: $(dirs_left "$job" n1 n2)"
fi

# --- (c2) a cache the site's base does not name ------------------------------------------------
# the job's runs cache under a base of their own (SCR_CACHE_BASE from the
# job's environment): SCR_Init records it in the control directory, and the
# epilogs remove it as they remove the site's
user_cache=/dev/shm/scr-epilog-user-cache
as_user mkdir -p "$slurm_work/c2"
out=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" SCR_CACHE_BASE="$user_cache" srun --mpi=pmix -N2 -n2 \
      --scr --scr-flush=1 -D "$slurm_work/c2" --scr-prefix="$slurm_work/c2" \
      sh -c "\"$app\" --steps 2 $app_args; echo \"job \$SLURM_JOB_ID\"" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job //p' | head -n 1)
wait_job_gone "$job" 60
n=0
for node in n1 n2; do
    epilog_lines "$job" $node | grep -q "removed $user_cache/$slurm_user/scr.$job" && n=$((n + 1))
done
if [ -n "$job" ] && [ "$n" -eq 2 ] && [ ! -e "$user_cache/$slurm_user/scr.$job" ] &&
   index_complete_current "$slurm_work/c2" ckpt.2; then
    ok "a cache under the job's own SCR_CACHE_BASE is removed by the epilogs of both nodes"
else
    not_ok "a cache under the job's own SCR_CACHE_BASE is removed by the epilogs of both nodes" "$out
$(ls -la "$user_cache/$slurm_user" 2>&1)
$(epilog_lines "$job" n1) $(epilog_lines "$job" n2)"
fi

# --- (d) what the epilog refuses ------------------------------------------------------------------
# the job record in the control directory is the user's: a prefix it names
# inside a root-only directory is used as the user, so nothing is written there
rootonly=$slurm_lab/out/rootonly
mkdir -p "$rootonly" && chmod 700 "$rootonly"
batch_app d1 1 -w n3 --scr --scr-flush=0
wait_lines "$slurm_work/d1.out" "finished step 2" 1
printf '{"VERSION": {"1": {}}, "PREFIX": {"%s": {}}}\n' "$rootonly" > "$slurm_work/d1-job.json"
"${PYTHON3:-/usr/bin/python3}" "$top_srcdir/tests/tools/kvtree_ref.py" write "$slurm_work/d1-job.json" "$slurm_work/d1-job.scr"
on_node n3 sh -c "cp '$slurm_work/d1-job.scr' /dev/shm/$slurm_user/scr.$job/job.scr && chown $slurm_user /dev/shm/$slurm_user/scr.$job/job.scr"
scancel "$job"
wait_job_gone "$job" 120
if [ -z "$(ls -A "$rootonly")" ] &&
   epilog_lines "$job" n3 | grep -q "prefix $rootonly (recorded by SCR_Init): .*cannot be used: .*Permission denied"; then
    ok "a recorded prefix inside a root-only directory: nothing written there, the refusal logged"
else
    not_ok "a recorded prefix inside a root-only directory: nothing written there, the refusal logged" \
        "$(ls -A "$rootonly") $(epilog_lines "$job" n3)"
fi

batch_app d2 1 -w n3 --scr --scr-flush=0
wait_lines "$slurm_work/d2.out" "finished step 2" 1
on_node n3 sh -c "mkdir -p /dev/shm/elsewhere && echo keep > /dev/shm/elsewhere/keep && chmod 777 /dev/shm/elsewhere &&
                  rm -rf /dev/shm/$slurm_user/scr.$job && ln -s /dev/shm/elsewhere /dev/shm/$slurm_user/scr.$job"
scancel "$job"
wait_job_gone "$job" 120
got=$(on_node n3 sh -c "ls -A /dev/shm/elsewhere; test -L /dev/shm/$slurm_user/scr.$job && echo link")
if [ "$got" = "keep
link" ] && epilog_lines "$job" n3 | grep -q "refusing /dev/shm/$slurm_user/scr.$job: it is a symbolic link" &&
   [ -z "$(ls -A "$slurm_work/d2/.scr" 2>/dev/null | grep dataset)" ]; then
    ok "a control directory swapped for a symbolic link: not followed, refused in the log"
else
    not_ok "a control directory swapped for a symbolic link: not followed, refused in the log" "$got
$(epilog_lines "$job" n3)"
fi
on_node n3 rm -rf /dev/shm/elsewhere "/dev/shm/$slurm_user/scr.$job"

# --- (b) XOR on 4 nodes, one node crashed before the cancel ------------------------------------------
batch_app b 4 --scr --scr-flush=0 --scr-copy-type=XOR --scr-set-size=4
wait_lines "$slurm_work/b.out" "finished step 2" 4
kill_node n4
if wait_node_state n4 DOWN 60; then ok "the crashed node n4 is DOWN"
else not_ok "the crashed node n4 is DOWN" "$(scontrol -o show node n4)"; fi
scancel "$job"
wait_job_gone "$job" 120
record=$slurm_work/b/.scr/job.$job.log
nodes=$(sed -n 's/.* node=\(n[0-9]\) .*/\1/p' "$record" 2>/dev/null | sort | tr '\n' ' ')
if [ "$nodes" = "n1 n2 n3 " ] && grep -q 'index=complete(2,rebuilt)' "$record" &&
   index_complete_current "$slurm_work/b" ckpt.2; then
    ok "XOR, node lost: the 3 others scavenge, the index rebuilds its rank, complete and current"
else
    not_ok "XOR, node lost: the 3 others scavenge, the index rebuilds its rank, complete and current" \
        "$(cat "$record" 2>&1)
$("$index" --list --prefix "$slurm_work/b" 2>&1)
$(epilog_lines "$job" n1)"
fi
left=$(dirs_left "$job" n1 n2 n3)
if [ -z "$left" ]; then ok "the 3 surviving nodes are purged"
else not_ok "the 3 surviving nodes are purged" "left on:$left"; fi
if out=$(restart_reads b 3 4); then ok "a restart on 3 nodes reads every byte, the rebuilt rank's included"
else not_ok "a restart on 3 nodes reads every byte, the rebuilt rank's included" "$out"; fi

# --- (e) the prefix the job really used ----------------------------------------------------------
# Submitted from one directory, the job sets its prefix elsewhere, one way
# each: exported in the batch script, in an SCR_CONF_FILE, by --scr-prefix.
# Its runs use 2 of its 3 nodes. The epilogs scavenge to the prefix SCR_Init
# resolved, the spare node does not hold the index back, the health records
# of the run's nodes are in that prefix (the prolog kept them on the nodes
# until the run recorded it), and nothing at all goes to the directory the
# job was submitted from.
# prefix_way NAME SCRIPT_LINE SBATCH_OPTIONS...
prefix_way() {
    _name=$1 _line=$2
    shift 2
    as_user mkdir -p "$slurm_work/$_name-submit" "$slurm_work/$_name-prefix"
    cat > "$slurm_work/$_name-submit/job.sh" <<SCRIPT
#!/bin/sh
$_line
cd "$slurm_work/$_name-prefix" || exit 1
srun --mpi=pmix -N2 -n2 "$app" --steps 2 $app_args
echo "app ended \$?"
sleep 300
SCRIPT
    chmod 755 "$slurm_work/$_name-submit/job.sh"
    job=$(as_user sh -c "cd $_name-submit && LD_LIBRARY_PATH='$top_builddir/lib/.libs' sbatch --parsable --no-kill -N3 \
          -o out.txt --scr --scr-flush=0 $* ./job.sh" 2>&1)
    wait_lines "$slurm_work/$_name-submit/out.txt" "finished step 2" 2
    scancel "$job"
    wait_job_gone "$job" 120
    _record=$slurm_work/$_name-prefix/.scr/job.$job.log
    if index_complete_current "$slurm_work/$_name-prefix" ckpt.2 && [ "$(grep -c 'index=complete(2)' "$_record")" -eq 1 ] &&
       [ "$(wc -l < "$_record")" -eq 2 ] && [ ! -e "$slurm_work/$_name-submit/.scr/job.$job.log" ]; then
        ok "prefix $_name: the epilogs scavenge ckpt.2 to it and index it there, complete and current"
    else
        not_ok "prefix $_name: the epilogs scavenge ckpt.2 to it and index it there, complete and current" \
            "$(cat "$_record" 2>&1)
$("$index" --list --prefix "$slurm_work/$_name-prefix" 2>&1)
submit dir: $(ls -A "$slurm_work/$_name-submit/.scr" 2>&1)
$(cat "$slurm_work/$_name-submit/out.txt")
$(epilog_lines "$job" n1) $(epilog_lines "$job" n2) $(epilog_lines "$job" n3)"
    fi
    if epilog_lines "$job" n3 | grep -q "node n3: no run used this node: nothing to scavenge"; then
        ok "prefix $_name: the spare node says it has nothing, and writes nothing"
    else
        not_ok "prefix $_name: the spare node says it has nothing, and writes nothing" "$(epilog_lines "$job" n3)"
    fi
    # the nodes that scavenged are the run's
    _bad=
    for _n in $(sed -n 's/.* node=\(n[0-9]\) .*/\1/p' "$_record" 2>/dev/null); do
        _h=$slurm_work/$_name-prefix/.scr/health/$_n.health
        [ "$(stat -c %U "$_h" 2>&1)" = "$slurm_user" ] &&
            "$top_builddir/cli/scr-print" "$_h" 2>/dev/null | awk '$1 == "HEALTHY" {getline; print $1}' | grep -qx 1 ||
            _bad="$_bad $_n: $(ls -l "$_h" 2>&1)"
    done
    if [ -s "$_record" ] && [ -z "$_bad" ] && [ ! -e "$slurm_work/$_name-submit/.scr" ]; then
        ok "prefix $_name: the run's nodes' health records are there, the user's; the submit directory is untouched"
    else
        not_ok "prefix $_name: the run's nodes' health records are there, the user's; the submit directory is untouched" \
            "$_bad
prefix: $(ls -la "$slurm_work/$_name-prefix/.scr/health" 2>&1)
submit dir: $(ls -laR "$slurm_work/$_name-submit/.scr" 2>&1)"
    fi
}
prefix_way env "export SCR_PREFIX=$slurm_work/env-prefix"
printf 'SCR_PREFIX=%s\n' "$slurm_work/conf-prefix" > "$slurm_work/prefix.conf"
chmod 644 "$slurm_work/prefix.conf"
prefix_way conf "export SCR_CONF_FILE=$slurm_work/prefix.conf"
prefix_way option "" "--scr-prefix=$slurm_work/option-prefix"
if out=$(restart_reads env-prefix 2 2); then ok "a restart reads every byte of the checkpoint scavenged to the script's prefix"
else not_ok "a restart reads every byte of the checkpoint scavenged to the script's prefix" "$out"; fi

# --- (f) one running job per prefix, and a lock a lost node's client keeps ----------------------
# Job A holds the prefix while it runs: another job is refused, naming it.
# A is cancelled: its epilog releases the prefix. A process that keeps the
# lock's fcntl() lock afterwards stands for a file system that holds the
# locks of a lost node; a new job still takes the prefix, saying so, and
# restarts from A's flushed checkpoint.
as_user mkdir -p "$slurm_work/f"
cat > "$slurm_work/f.sh" <<SCRIPT
#!/bin/sh
cd "$slurm_work/f" || exit 1
srun --mpi=pmix -N1 -n2 "$app" --steps 30 --sleep-ms 1000 $app_args
SCRIPT
chmod 755 "$slurm_work/f.sh"
job=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" sbatch --parsable -N1 -n2 -w n1 -o f.out \
      --scr --scr-prefix="$slurm_work/f" --scr-flush=1 ./f.sh 2>&1)
lockfile=$slurm_work/f/.scr/lock.scr
tries=0
until "$top_builddir/cli/scr-index" --list --prefix "$slurm_work/f" 2>/dev/null | grep -q "ckpt.2 " || [ "$tries" -ge 120 ]; do
    sleep 0.5
    tries=$((tries + 1))
done
out=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" srun --mpi=pmix -N1 -n2 -w n2 --scr -D "$slurm_work/f" \
      --scr-prefix="$slurm_work/f" "$app" --steps 3 $app_args 2>&1)
if printf '%s\n' "$out" | grep -q "is in use by job $job of $slurm_user on n1 (process [0-9]*) since "; then
    ok "a second job on the prefix is refused, naming the job that has it"
else
    not_ok "a second job on the prefix is refused, naming the job that has it" "$out
$(cat "$slurm_work/f.out")"
fi
scancel "$job"
wait_job_gone "$job" 120
if epilog_lines "$job" n1 | grep -q "; prefix released"; then ok "the cancelled job's epilog releases the prefix"
else not_ok "the cancelled job's epilog releases the prefix" "$(epilog_lines "$job" n1)"; fi
"${PYTHON3:-/usr/bin/python3}" -c 'import fcntl, sys, time
f = open(sys.argv[1], "r+")
fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("held", flush=True)
time.sleep(600)' "$lockfile" > "$slurm_work/f-holder.out" 2>&1 &
holder=$!
wait_lines "$slurm_work/f-holder.out" "held" 1
out=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" srun --mpi=pmix -N1 -n2 -w n2 --scr -D "$slurm_work/f" \
      --scr-prefix="$slurm_work/f" "$app" --steps 40 $app_args 2>&1)
kill "$holder" 2>/dev/null
if printf '%s\n' "$out" | grep -q "taking the prefix from job $job of $slurm_user on n1 .*which has ended (its epilog released the prefix)" &&
   [ "$(printf '%s\n' "$out" | grep -c 'restarted from step [1-9]')" -eq 2 ] &&
   [ "$(printf '%s\n' "$out" | grep -c 'finished step 40')" -eq 2 ]; then
    ok "with its lock still held, the ended job's prefix is taken, saying so, and its checkpoint restarts"
else
    not_ok "with its lock still held, the ended job's prefix is taken, saying so, and its checkpoint restarts" "$out
holder: $(cat "$slurm_work/f-holder.out")"
fi

done_testing
exit $?
