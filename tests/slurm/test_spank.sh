#!/bin/sh
# test_spank.sh — the SPANK plugin on a real Slurm cluster of 4 nodes.
#
# Options on srun, sbatch and salloc, their checks, the SCR_* variables the
# tasks get, the prolog's directories and health records on every node (kept
# in the control directory until the job's prefix is known, never written to
# the directory the job was submitted from), the refusal of a planted
# directory or symbolic link, SCR_END_TIME, and an MPI job that checkpoints
# with XOR across 3 nodes.
. "$top_srcdir/tests/slurm/slurm-lib.sh"
slurm_setup spank

scr_options="scr scr-prefix scr-conf scr-copy-type scr-set-size scr-cache-base scr-cache-size scr-flush
    scr-runs scr-min-nodes scr-halt-seconds scr-debug"

# HEALTHY (1 or 0) of a node's health record, in the prefix $slurm_work (or
# the directory $2 in it).
healthy() {
    "$top_builddir/cli/scr-print" "$slurm_work/${2:-.}/.scr/health/$1.health" 2>&1 |
        awk '$1 == "HEALTHY" {getline; print $1}'
}
record() {
    "$top_builddir/cli/scr-print" "$slurm_work/${2:-.}/.scr/health/$1.health" 2>&1
}

# --- options -----------------------------------------------------------------
for cmd in srun sbatch salloc; do
    help=$($cmd --help 2>&1)
    missing=
    for o in $scr_options; do
        printf '%s\n' "$help" | grep -q -- "--$o[= ]" || missing="$missing --$o"
    done
    if [ -z "$missing" ]; then ok "$cmd --help lists every --scr option"
    else not_ok "$cmd --help lists every --scr option" "missing:$missing"; fi
done

# a bad value stops the submission, and the message names option and value
refused() { # NAME CMD... : CMD fails and its output names the option's text
    name=$1 text=$2
    shift 2
    if out=$(as_user "$@" 2>&1); then
        not_ok "$name" "accepted: $out"
    elif printf '%s\n' "$out" | grep -q -- "$text"; then
        ok "$name"
    else
        not_ok "$name" "the message does not name $text: $out"
    fi
}
jobs_before=$(next_job_id)
refused "srun refuses --scr-copy-type=FOO" "--scr-copy-type=FOO" srun -N1 --scr-copy-type=FOO true
refused "srun refuses --scr-set-size=0" "--scr-set-size=0" srun -N1 --scr-set-size=0 true
refused "srun refuses --scr-halt-seconds=soon" "--scr-halt-seconds=soon" srun -N1 --scr-halt-seconds=soon true
refused "srun refuses a relative --scr-cache-base" "--scr-cache-base=cache" srun -N1 --scr-cache-base=cache true
refused "sbatch refuses --scr-flush=-2" "--scr-flush=-2" sbatch -N1 --scr-flush=-2 --wrap=true
refused "salloc refuses --scr-runs=x" "--scr-runs=x" salloc -N1 --scr-runs=x true
if [ "$(next_job_id)" = "$jobs_before" ]; then ok "a refused option submits no job"
else not_ok "a refused option submits no job" "next job id went from $jobs_before to $(next_job_id)"; fi

# every option reaches every task as its SCR parameter
out=$(as_user srun -N3 --scr --scr-copy-type=xor --scr-prefix="$slurm_work" --scr-conf="$slurm_work/my.conf" \
      --scr-set-size=3 --scr-cache-size=2 --scr-flush=4 --scr-runs=5 --scr-min-nodes=2 --scr-halt-seconds=30 \
      --scr-debug sh -c 'env | grep "^SCR_" | sed "s/^/$(hostname) /"' 2>&1)
for v in SCR_COPY_TYPE=XOR SCR_PREFIX=$slurm_work SCR_CONF_FILE=$slurm_work/my.conf SCR_SET_SIZE=3 \
         SCR_CACHE_SIZE=2 SCR_FLUSH=4 SCR_RUNS=5 SCR_MIN_NODES=2 SCR_HALT_SECONDS=30 SCR_DEBUG=1; do
    n=$(printf '%s\n' "$out" | grep -c -- " $v\$")
    if [ "$n" -eq 3 ]; then ok "the 3 tasks of srun --scr-* see $v"
    else not_ok "the 3 tasks of srun --scr-* see $v" "$n tasks did:
$out"; fi
done

# given to sbatch and salloc, the options reach the job's sruns
cat > "$slurm_work/batch.sh" <<'SCRIPT'
#!/bin/sh
echo "batch SCR_FLUSH=$SCR_FLUSH"
srun -N2 sh -c 'echo "step $(hostname) SCR_FLUSH=$SCR_FLUSH SCR_COPY_TYPE=$SCR_COPY_TYPE"'
SCRIPT
chmod 755 "$slurm_work/batch.sh"
as_user sbatch -W -N2 -o batch.out --scr-flush=7 --scr-copy-type=PARTNER ./batch.sh > /dev/null 2>&1
n=$(grep -c '^step n[0-9] SCR_FLUSH=7 SCR_COPY_TYPE=PARTNER$' "$slurm_work/batch.out")
if grep -q '^batch SCR_FLUSH=7$' "$slurm_work/batch.out" && [ "$n" -eq 2 ]; then
    ok "sbatch --scr-* reaches the batch script and every srun inside"
else
    not_ok "sbatch --scr-* reaches the batch script and every srun inside" "$(cat "$slurm_work/batch.out")"
fi
out=$(as_user salloc -N2 --scr-cache-size=3 srun sh -c 'echo "SCR_CACHE_SIZE=$SCR_CACHE_SIZE"' 2>/dev/null)
n=$(printf '%s\n' "$out" | grep -c '^SCR_CACHE_SIZE=3$')
if [ "$n" -eq 2 ]; then ok "salloc --scr-* reaches the sruns of the allocation"
else not_ok "salloc --scr-* reaches the sruns of the allocation" "$out"; fi

# --- the site's defaults, as plugin arguments in plugstack.conf ------------------
plugstack=$slurm_lab/etc/plugstack.conf
site_line=$(cat "$plugstack")
echo "$site_line cache_base=/dev/shm/site stores=/dev/shm/site,/dev/shm" > "$plugstack"
refused "srun refuses a cache base the site's stores= does not list" "--scr-cache-base=/tmp" \
    srun -N1 --scr-cache-base=/tmp true
out=$(as_user srun -N1 --scr sh -c 'echo "cache $SCR_CACHE_BASE"' 2>&1)
if [ "$out" = "cache /dev/shm/site" ]; then ok "the site's cache_base= reaches the tasks as SCR_CACHE_BASE"
else not_ok "the site's cache_base= reaches the tasks as SCR_CACHE_BASE" "$out"; fi
out=$(as_user srun -N1 --scr --scr-cache-base=/dev/shm sh -c 'echo "cache $SCR_CACHE_BASE"' 2>&1)
if [ "$out" = "cache /dev/shm" ]; then ok "a job's --scr-cache-base wins over the site's default"
else not_ok "a job's --scr-cache-base wins over the site's default" "$out"; fi
echo "$site_line min_free=1PB" > "$plugstack"
as_user mkdir -p "$slurm_work/small"
# an absolute --scr-prefix is the step's SCR_PREFIX: the record goes there as the task ends
as_user srun -N1 -w n4 --scr-prefix="$slurm_work/small" true > /dev/null 2>&1
if [ "$(healthy n4 small)" = 0 ] && record n4 small | grep -q "bytes free, the job needs"; then
    ok "the site's min_free= makes a node without that much space unhealthy"
else
    not_ok "the site's min_free= makes a node without that much space unhealthy" "$(record n4 small)"
fi
echo "$site_line bogus=1" > "$plugstack"
refused "a bad plugin argument stops srun and is named" "unknown plugin argument 'bogus=1'" srun -N1 true
echo "$site_line" > "$plugstack"

# --- a job without --scr is untouched --------------------------------------------
rm -rf "$slurm_work/.scr"
out=$(as_user srun -N4 sh -c 'echo "job $SLURM_JOB_ID"; env | grep "^SCR_" || true' 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job //p' | head -n 1)
extra=$(printf '%s\n' "$out" | grep '^SCR_' || true)
if [ -n "$job" ] && [ -z "$extra" ]; then ok "a job without --scr has no SCR_* variable"
else not_ok "a job without --scr has no SCR_* variable" "$out"; fi
made=
for n in n1 n2 n3 n4; do
    on_node "$n" test -e "/dev/shm/$slurm_user/scr.$job" && made="$made $n"
done
if [ -n "$job" ] && [ -z "$made" ] && [ ! -e "$slurm_work/.scr" ]; then
    ok "a job without --scr gets no directories and no health records"
else
    not_ok "a job without --scr gets no directories and no health records" "job '$job', made on:$made"
fi

# --- the prolog's directories and health records ---------------------------------
# with PrologFlags=Alloc the prolog runs when the allocation is made, before any step
job=$(next_job_id)
# (looked at while the allocation lasts: the epilog removes them at its end)
as_user salloc -N2 --scr sleep 60 > /dev/null 2>&1 &
tries=60
want=
while [ "$tries" -gt 0 ]; do
    # the nodes it was given (not always n1 and n2: one may still be ending the last job)
    [ -n "$want" ] || want=$(scontrol show hostnames "$(squeue -h -j "$job" -t R -o %N 2>/dev/null)" 2>/dev/null | tr '\n' ' ')
    made=
    for n in $want; do
        [ "$(on_node "$n" stat -c '%U %a' "/dev/shm/$slurm_user/scr.$job" 2>&1)" = "$slurm_user 700" ] && made="$made$n "
    done
    [ -n "$want" ] && [ "$made" = "$want" ] && break
    sleep 0.5
    tries=$((tries - 1))
done
scancel "$job"
wait_job_gone "$job" 60
if [ -n "$want" ] && [ "$made" = "$want" ]; then ok "salloc --scr without a step: the prolog made the directories at allocation"
else not_ok "salloc --scr without a step: the prolog made the directories at allocation" "made on: $made; nodes: $want"; fi

# each task looks at its node's directories and at the health record the
# prolog keeps in the control directory (the epilog removes them when the
# job ends); no run records a prefix and the job names none, so no record
# leaves the node
rm -rf "$slurm_work/.scr"
out=$(as_user srun -N4 --scr sh -c 'echo "job $SLURM_JOB_ID"; for d in /dev/shm/$(id -un) /dev/shm/$(id -un)/scr.$SLURM_JOB_ID; do
      echo "dir $(hostname) $d: $(stat -c "%U %a %F" $d 2>&1)"; done
      echo "kept $(hostname) $(stat -c %U /dev/shm/$(id -un)/scr.$SLURM_JOB_ID/$(hostname).health 2>&1)"' 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job //p' | head -n 1)
bad=
for n in n1 n2 n3 n4; do
    for d in "/dev/shm/$slurm_user" "/dev/shm/$slurm_user/scr.$job"; do
        printf '%s\n' "$out" | grep -qx "dir $n $d: $slurm_user 700 directory" || bad="$bad
$n $d: $(printf '%s\n' "$out" | grep "^dir $n $d:")"
    done
done
if [ -n "$job" ] && [ -z "$bad" ]; then ok "the prolog made the job's directories on all 4 nodes: the user's, mode 0700"
else not_ok "the prolog made the job's directories on all 4 nodes: the user's, mode 0700" "job '$job'$bad"; fi
if [ ! -e "/dev/shm/$slurm_user/scr.$job" ]; then ok "the nodes' directories are in their own /dev/shm"
else not_ok "the nodes' directories are in their own /dev/shm" "/dev/shm/$slurm_user/scr.$job on the host"; fi
n=$(printf '%s\n' "$out" | grep -c "^kept n[1-4] $slurm_user\$")
if [ "$n" -eq 4 ]; then ok "each node's health record is kept in its control directory, as the user"
else not_ok "each node's health record is kept in its control directory, as the user" "$out"; fi
wait_job_gone "$job" 60
if [ ! -e "$slurm_work/.scr" ]; then ok "with no prefix known, nothing is written to the directory the job was submitted from"
else not_ok "with no prefix known, nothing is written to the directory the job was submitted from" "$(ls -laR "$slurm_work/.scr")"; fi
if grep -q "scr: prolog of job $job for $slurm_user: node n3 healthy: .*record kept in /dev/shm/$slurm_user/scr.$job/n3.health" \
    "$slurm_lab/log/slurmd-n3.log"; then
    ok "the prolog says what it did in the slurmd log"
else
    not_ok "the prolog says what it did in the slurmd log" "$(grep 'scr:' "$slurm_lab/log/slurmd-n3.log")"
fi

# a relative --scr-prefix is taken from the job's working directory, by
# the epilog (the step's tasks alone know their directory)
as_user mkdir -p "$slurm_work/run1"
out=$(as_user srun -N2 --scr-prefix=run1 sh -c 'echo "job $SLURM_JOB_ID $(hostname)"' 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\) .*/\1/p' | head -n 1)
nodes=$(printf '%s\n' "$out" | sed -n 's/^job [0-9]* //p' | sort)
wait_job_gone "$job" 60
bad=
for n in $nodes; do
    owner=$(stat -c %U "$slurm_work/run1/.scr/health/$n.health" 2>&1)
    [ "$(healthy $n run1)" = 1 ] && [ "$owner" = "$slurm_user" ] || bad="$bad
$n ($owner): $(record $n run1)"
done
if [ -n "$job" ] && [ "$(echo $nodes | wc -w)" -eq 2 ] && [ -z "$bad" ]; then
    ok "the health records go to the job's --scr-prefix, as the user"
else
    not_ok "the health records go to the job's --scr-prefix, as the user" "job '$job' on '$nodes'$bad"
fi
first=$(echo $nodes | cut -d' ' -f1)
if epilog_lines=$(grep "scr: epilog of job $job " "$slurm_lab/log/slurmd-$first.log" 2>&1) &&
   printf '%s\n' "$epilog_lines" | grep -q "health record: node $first healthy; record $slurm_work/run1/.scr/health/$first.health"; then
    ok "the epilog says where the record went"
else
    not_ok "the epilog says where the record went" "$epilog_lines"
fi

# a directory of someone else and a symbolic link are refused
job=$(next_job_id)
on_node n2 sh -c "mkdir -p /dev/shm/$slurm_user/scr.$job && chown -R nobody /dev/shm/$slurm_user"
on_node n3 sh -c "mkdir -p /dev/shm/$slurm_user /dev/shm/elsewhere && chown $slurm_user /dev/shm/$slurm_user &&
                  ln -s /dev/shm/elsewhere /dev/shm/$slurm_user/scr.$job"
# (the step's SCR_PREFIX names the prefix; a refused control directory
# keeps no record, and the check is made again when the step ends)
as_user mkdir -p "$slurm_work/refused"
as_user srun -N4 --scr --scr-prefix="$slurm_work/refused" true > /dev/null 2>&1
for n in n1 n4; do
    if [ "$(healthy $n refused)" = 1 ]; then ok "untouched $n is healthy"
    else not_ok "untouched $n is healthy" "$(record $n refused)"; fi
done
check_refused() { # NODE WHY: the node's record is unhealthy, says WHY, and so does its log
    txt=$(record "$1" refused)
    if [ "$(healthy "$1" refused)" = 0 ] && printf '%s\n' "$txt" | grep -q "$2" &&
       grep "scr: prolog of job $job" "$slurm_lab/log/slurmd-$1.log" | grep -q "unhealthy: .*$2"; then
        ok "$1: $2 is refused, the record and the slurmd log say so"
    else
        not_ok "$1: $2 is refused, the record and the slurmd log say so" "$txt
$(grep 'scr:' "$slurm_lab/log/slurmd-$1.log")"
    fi
}
check_refused n2 "belongs to uid"
check_refused n3 "symbolic link"
got=$(on_node n3 sh -c 'ls -A /dev/shm/elsewhere; stat -c %U /dev/shm/elsewhere')
if [ "$got" = root ]; then ok "nothing was made through the symbolic link"
else not_ok "nothing was made through the symbolic link" "$got"; fi
out=$(cd "$slurm_work/refused" && "$top_builddir/cli/scr-list-down-nodes" --no-slurm --reason 'n[1-4]' 2>&1)
if printf '%s\n' "$out" | grep -q '^n2:' && printf '%s\n' "$out" | grep -q '^n3:' &&
   [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ]; then ok "scr-list-down-nodes names the two refused nodes"
else not_ok "scr-list-down-nodes names the two refused nodes" "$out"; fi
for n in n2 n3; do on_node "$n" rm -rf "/dev/shm/$slurm_user" /dev/shm/elsewhere; done

# --- SCR_END_TIME --------------------------------------------------------------------
# squeue, asked from a task while the job runs, tells the end Slurm has for it
out=$(as_user srun -N2 -t 7 --scr sh -c 'echo "end $SCR_END_TIME"; echo "slurm $(squeue -h -j $SLURM_JOB_ID -o %e)"' 2>&1)
slurm_end=$(printf '%s\n' "$out" | sed -n 's/^slurm //p' | head -n 1)
want=$(date -d "$slurm_end" +%s 2>/dev/null)
n=$(printf '%s\n' "$out" | grep -c "^end $want\$")
if [ -n "$want" ] && [ "$n" -eq 2 ]; then ok "the tasks' SCR_END_TIME is the job's end time ($slurm_end)"
else not_ok "the tasks' SCR_END_TIME is the job's end time" "EndTime=$slurm_end ($want), tasks: $out"; fi
# a batch script gets it too, and a time limit cut while the job runs
# reaches the steps started after the cut
cat > "$slurm_work/end.sh" <<'SCRIPT'
#!/bin/sh
echo "batch $SCR_END_TIME $(date -d "$(squeue -h -j $SLURM_JOB_ID -o %e)" +%s)"
scontrol update jobid=$SLURM_JOB_ID timelimit=4 || echo "cannot cut the time limit"
srun -N2 sh -c 'echo "step $SCR_END_TIME $(date -d "$(squeue -h -j $SLURM_JOB_ID -o %e)" +%s)"'
SCRIPT
chmod 755 "$slurm_work/end.sh"
as_user sbatch -W -N2 -t 9 --scr -o end.out ./end.sh > /dev/null 2>&1
out=$(cat "$slurm_work/end.out" 2>&1)
batch=$(printf '%s\n' "$out" | awk '$1 == "batch" && $2 == $3 && $2 != "" {print $2}')
steps=$(printf '%s\n' "$out" | awk -v b="$batch" '$1 == "step" && $2 == $3 && $2 + 300 == b' | wc -l)
if [ -n "$batch" ]; then ok "a batch script's SCR_END_TIME is the job's end time"
else not_ok "a batch script's SCR_END_TIME is the job's end time" "$out"; fi
if [ "$steps" -eq 2 ]; then ok "a step after the time limit was cut gets the new end time"
else not_ok "a step after the time limit was cut gets the new end time" "$out"; fi
out=$(as_user srun -N1 --scr sh -c 'echo "end ${SCR_END_TIME-unset}"' 2>&1)
if [ "$out" = "end unset" ]; then ok "a job without a time limit gets no SCR_END_TIME"
else not_ok "a job without a time limit gets no SCR_END_TIME" "$out"; fi

# --- MPI: a checkpoint with XOR across 3 nodes --------------------------------------
app=$top_builddir/tests/mpi/.libs/scr_test_app
if [ ! -x "$app" ]; then
    skip "an MPI job with --scr writes an XOR checkpoint across 3 nodes" "tests/mpi/scr_test_app not built"
else
    out=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" srun --mpi=pmix -N3 -n3 --scr \
          --scr-copy-type=XOR --scr-set-size=3 --scr-flush=1 sh -c "\"$app\" --steps 2; echo \"job \$SLURM_JOB_ID\";
          echo \"xor \$(hostname) \$(ls /dev/shm/\$(id -un)/scr.\$SLURM_JOB_ID/scr.dataset.2 2>/dev/null | grep -c '_of_3_in_0.xor\$')\"" 2>&1)
    n=$(printf '%s\n' "$out" | grep -c 'finished step 2')
    # each task counted its node's XOR files before the job ended (the epilog
    # removes the cache); Slurm may pick any 3 of the 4 nodes
    xor=$(printf '%s\n' "$out" | sed -n 's/^xor n[0-9]* //p' | tr -d '\n')
    nodes=$(printf '%s\n' "$out" | sed -n 's/^xor \(n[0-9]*\) .*/\1/p' | sort -u | wc -l)
    if [ "$n" -eq 3 ] && [ "$xor" = 111 ] && [ "$nodes" -eq 3 ]; then ok "an MPI job with --scr writes an XOR checkpoint across 3 nodes"
    else not_ok "an MPI job with --scr writes an XOR checkpoint across 3 nodes" "xor files per node: $xor
$out"; fi
    out=$("$top_builddir/cli/scr-index" --list --prefix "$slurm_work" 2>&1)
    if printf '%s\n' "$out" | grep -q 'ckpt.2'; then ok "its flushed checkpoint is in the prefix's index"
    else not_ok "its flushed checkpoint is in the prefix's index" "$out"; fi
fi

done_testing
exit $?
