#!/bin/sh
# test_scr31_names.sh — SCR 3.1's command names (cli/scr31/*) take SCR 3.1's
# options and do what they say, on the prefix SCR 3.1.0 itself wrote
# (tests/data/scr31-prefix-xor4.tar.gz): scr_index lists, sets current,
# removes and adds by dataset id; scr_halt sets conditions in one prefix or
# several, defaulting to the current directory; scr_prerun makes the prefix
# ready and names a bad parameter; scr_postrun and scr_srun hand the job to
# scr-run (seen through a stand-in srun that records what it is asked);
# scr_list_down_nodes, scr_env and scr_list_dir answer as SCR 3.1's do.
# What SCR 3.1 has and we cannot honour (scr_halt --immediate, scr_srun
# --restart-cmd, a launcher other than srun or mpirun) is refused, named,
# with exit status 2. That a real job script runs with them is
# tests/slurm/test_scr31_jobscript.sh.
. "$top_srcdir/tests/tap.sh"

bin=$top_builddir/cli/scr31
halt="$top_builddir/cli/scr-halt"
archive="$top_srcdir/tests/data/scr31-prefix-xor4.tar.gz"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr31-names.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX SCR_ENABLE SLURM_JOB_ID SCR_JOB_ID SLURM_NODELIST SLURM_JOB_NODELIST SCR_NODELIST SCR_END_TIME
user=$(id -un)

# fresh: $p is the archive's prefix again
fresh() {
    rm -rf "$tmp/prefix" && tar -xzf "$archive" -C "$tmp" || exit 99
    p=$tmp/prefix
}

# run CMD ARGS...: sets $status, output in $tmp/out and $tmp/err
run() {
    "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}

# expect NAME STATUS PATTERN CMD ARGS...: CMD exits with STATUS and its
# standard output (STATUS 0) or the first line of its standard error matches PATTERN
expect() {
    _name=$1 _want=$2 _pattern=$3
    shift 3
    run "$@"
    if [ "$_want" -eq 0 ]; then _text=$(cat "$tmp/out"); else _text=$(head -n 1 "$tmp/err"); fi
    if [ "$status" -eq "$_want" ] && printf '%s\n' "$_text" | grep -q -e "$_pattern"; then
        ok "$_name"
    else
        not_ok "$_name" "status $status (expected $_want): $(cat "$tmp/out" "$tmp/err")"
    fi
}

# current_is NAME: the index of $p lists NAME as current
current_is() {
    "$bin/scr_index" --prefix="$p" | grep -q "^\* *[0-9]*  $1 "
}

# --- scr_index -----------------------------------------------------------------------------
fresh
expect "scr_index --list --prefix=DIR lists SCR 3.1's datasets, the newest current" 0 "^\* *4  ckpt.4 " \
    "$bin/scr_index" --list --prefix="$p"
run sh -c "cd '$p' && SCR_PREFIX='$tmp/elsewhere' '$bin/scr_index'"
if [ $status -eq 0 ] && grep -q "ckpt.1 " "$tmp/out"; then ok "scr_index lists the current directory's index, as SCR 3.1's does"
else not_ok "scr_index lists the current directory's index, as SCR 3.1's does" "$(cat "$tmp/out" "$tmp/err")"; fi
run "$bin/scr_index" --prefix="$p" --current ckpt.3
if [ $status -eq 0 ] && current_is ckpt.3; then ok "scr_index --current NAME makes NAME current"
else not_ok "scr_index --current NAME makes NAME current" "$(cat "$tmp/out" "$tmp/err")"; fi
run "$bin/scr_index" -p "$p" -r ckpt.1
if [ $status -eq 0 ] && ! "$bin/scr_index" -p "$p" | grep -q " ckpt.1 " && [ -d "$p/ckpt.1" ]; then
    ok "scr_index --remove NAME takes NAME out of the index, its files stay"
else
    not_ok "scr_index --remove NAME takes NAME out of the index, its files stay" "$(cat "$tmp/out" "$tmp/err")"
fi
run "$bin/scr_index" -p "$p" --add=1
if [ $status -eq 0 ] && "$bin/scr_index" -p "$p" | grep -q "^  *1  ckpt.1 .* yes "; then
    ok "scr_index --add=ID indexes .scr/scr.dataset.ID again, complete"
else
    not_ok "scr_index --add=ID indexes .scr/scr.dataset.ID again, complete" "$(cat "$tmp/out" "$tmp/err")"
fi
expect "scr_index --add of an id without a directory fails, naming it" 1 "scr.dataset.9" \
    "$bin/scr_index" -p "$p" --add 9
expect "scr_index --add takes a dataset id, and says so" 2 "--add wants a dataset id.*'ckpt.2'" \
    "$bin/scr_index" -p "$p" --add ckpt.2
expect "scr_index takes one action at a time, naming SCR 3.1's options" 2 "--remove and --current" \
    "$bin/scr_index" -p "$p" --remove ckpt.2 --current ckpt.3
expect "scr_index names an option SCR 3.1 does not have" 2 "unknown option '--drop'" \
    "$bin/scr_index" -p "$p" --drop ckpt.2

# --- scr_halt ------------------------------------------------------------------------------
fresh
expect "scr_halt --checkpoints N DIR says which halt file it updates" 0 "Updating halt file in $p" \
    "$bin/scr_halt" --checkpoints 3 "$p"
if "$halt" --list "$p" | grep -q "^CheckpointsLeft *3$"; then ok "and the job halts after N more checkpoints"
else not_ok "and the job halts after N more checkpoints" "$("$halt" --list "$p" 2>&1)"; fi
mkdir -p "$tmp/second"
run "$bin/scr_halt" -b '2031-01-01 06:00' -s 600 "$p" "$tmp/second"
if [ $status -eq 0 ] && "$halt" --list "$tmp/second" | grep -q "^HaltSeconds *600$" &&
   "$halt" --list "$p" | grep -q "^HaltSeconds *600$" && "$halt" --list "$p" | grep -q "^ExitBefore .*2031-01-01"; then
    ok "scr_halt sets the same conditions in every DIR given"
else
    not_ok "scr_halt sets the same conditions in every DIR given" "$(cat "$tmp/out" "$tmp/err")"
fi
run sh -c "cd '$tmp/second' && '$bin/scr_halt' --unset-seconds && '$bin/scr_halt'"
if [ $status -eq 0 ] && "$halt" --list "$tmp/second" | grep -q "^ExitReason *JOB_HALTED$" &&
   ! "$halt" --list "$tmp/second" | grep -q "^HaltSeconds"; then
    ok "without DIR, scr_halt works on the current directory; without a condition it halts the job"
else
    not_ok "without DIR, scr_halt works on the current directory; without a condition it halts the job" \
        "$(cat "$tmp/out" "$tmp/err"; "$halt" --list "$tmp/second" 2>&1)"
fi
cp "$p/.scr/halt.scr" "$tmp/halt.before"
expect "scr_halt --immediate is refused, named, with what to do instead" 2 "--immediate is not supported.*scancel" \
    "$bin/scr_halt" --immediate "$p"
if [ $status -eq 2 ] && cmp -s "$tmp/halt.before" "$p/.scr/halt.scr"; then ok "and the halt file is left as it was"
else not_ok "and the halt file is left as it was" "$("$halt" --list "$p" 2>&1)"; fi
run "$bin/scr_halt" --remove "$p"
if [ $status -eq 0 ] && [ ! -e "$p/.scr/halt.scr" ]; then ok "scr_halt --remove removes the halt file"
else not_ok "scr_halt --remove removes the halt file" "$(cat "$tmp/out" "$tmp/err")"; fi
expect "scr_halt passes a bad count on, and it is named" 2 "--checkpoints.*'many'" \
    "$bin/scr_halt" --checkpoints many "$p"
mkdir -p "$tmp/-r"
expect "scr_halt -- DIR takes a DIR that begins with '-' as a prefix, not an option" 0 "Updating halt file in -r" \
    sh -c "cd '$tmp' && '$bin/scr_halt' --checkpoints 2 -- -r"
if "$halt" --list "$tmp/-r" | grep -q "^CheckpointsLeft *2$"; then ok "and its halt file has the condition"
else not_ok "and its halt file has the condition" "$("$halt" --list "$tmp/-r" 2>&1)"; fi

# --- scr_prerun ----------------------------------------------------------------------------
run "$bin/scr_prerun" -p "$tmp/new/run1" -v
if [ $status -eq 0 ] && [ -d "$tmp/new/run1/.scr" ] && [ "$(stat -c %a "$tmp/new/run1/.scr")" = 700 ] &&
   grep -q "prefix $tmp/new/run1 ready" "$tmp/out"; then
    ok "scr_prerun -p DIR makes the prefix and its private .scr"
else
    not_ok "scr_prerun -p DIR makes the prefix and its private .scr" "$(cat "$tmp/out" "$tmp/err"; ls -la "$tmp/new/run1")"
fi
expect "scr_prerun names a parameter the job would refuse, before the job starts" 1 "SCR_COPY_TYPE=BOGUS" \
    env SCR_COPY_TYPE=BOGUS "$bin/scr_prerun" -p "$tmp/new/run2"
run env SCR_ENABLE=0 "$bin/scr_prerun" -p "$tmp/new/run3"
if [ $status -eq 0 ] && [ ! -e "$tmp/new/run3" ]; then ok "with SCR_ENABLE=0 scr_prerun does nothing"
else not_ok "with SCR_ENABLE=0 scr_prerun does nothing" "$(cat "$tmp/out" "$tmp/err")"; fi

# --- scr_srun and scr_postrun, through a stand-in srun ----------------------------------------
# it records its arguments, one run a line, and runs nothing
mkdir -p "$tmp/fakebin"
cat > "$tmp/fakebin/srun" <<SCRIPT
#!/bin/sh
echo "\$*" >> "$tmp/srun.log"
exit 0
SCRIPT
chmod +x "$tmp/fakebin/srun"
fresh
rm -f "$tmp/srun.log"
run env PATH="$tmp/fakebin:$PATH" SCR_RUNS=1 "$bin/scr_srun" -N2 -n4 ./app --steps 3
if [ $status -eq 0 ] && [ "$(head -n 1 "$tmp/srun.log")" = "-N2 -n4 ./app --steps 3" ] &&
   sed -n 2p "$tmp/srun.log" | grep -q "scr-scavenge --prefix $PWD"; then
    ok "scr_srun runs srun with its arguments, then copies what is left in cache to the prefix"
else
    not_ok "scr_srun runs srun with its arguments, then copies what is left in cache to the prefix" \
        "$(cat "$tmp/out" "$tmp/err" "$tmp/srun.log")"
fi
rm -f "$tmp/srun.log"
run env PATH="$tmp/fakebin:$PATH" SCR_ENABLE=0 SCR_RUNS=3 "$bin/scr_srun" -N2 ./app
if [ $status -eq 0 ] && [ "$(cat "$tmp/srun.log")" = "-N2 ./app" ]; then
    ok "with SCR_ENABLE=0 scr_srun runs srun once, and copies nothing"
else
    not_ok "with SCR_ENABLE=0 scr_srun runs srun once, and copies nothing" "$(cat "$tmp/out" "$tmp/err" "$tmp/srun.log")"
fi
expect "scr_srun --restart-cmd is refused, named" 2 "--restart-cmd=./other is not supported" \
    "$bin/scr_srun" -N2 --restart-cmd=./other ./app
rm -f "$tmp/srun.log"
expect "scr_srun shows its help for -h among its options, as SCR 3.1 does" 0 "^Usage: scr_srun" \
    env PATH="$tmp/fakebin:$PATH" SCR_RUNS=1 "$bin/scr_srun" -N2 -h ./app
if [ ! -e "$tmp/srun.log" ]; then ok "and runs nothing"
else not_ok "and runs nothing" "$(cat "$tmp/srun.log")"; fi
rm -f "$tmp/srun.log"
run env PATH="$tmp/fakebin:$PATH" "$bin/scr_postrun" -p "$p" -j srun
if [ $status -eq 0 ] && [ "$(wc -l < "$tmp/srun.log")" -eq 1 ] &&
   grep -q "^--nodes=1 --ntasks-per-node=1 .*scr-scavenge --prefix $p$" "$tmp/srun.log"; then
    ok "scr_postrun -p DIR -j srun copies each node's cache to DIR, and runs nothing else"
else
    not_ok "scr_postrun -p DIR -j srun copies each node's cache to DIR, and runs nothing else" \
        "$(cat "$tmp/out" "$tmp/err" "$tmp/srun.log")"
fi
rm -f "$tmp/srun.log"
run env PATH="$tmp/fakebin:$PATH" SCR_ENABLE=0 "$bin/scr_postrun" -p "$p" -j srun
if [ $status -eq 0 ] && [ ! -e "$tmp/srun.log" ]; then ok "with SCR_ENABLE=0 scr_postrun does nothing"
else not_ok "with SCR_ENABLE=0 scr_postrun does nothing" "$(cat "$tmp/out" "$tmp/err")"; fi
expect "scr_postrun wants the launcher, as SCR 3.1's does" 2 "-j/--joblauncher is required" \
    "$bin/scr_postrun" -p "$p"
expect "scr_postrun refuses a launcher it cannot use, naming it" 2 "job launcher 'jsrun' is not supported" \
    "$bin/scr_postrun" -p "$p" -j jsrun

# --- scr_list_down_nodes ----------------------------------------------------------------------
# (exit status 1: some node is down, as scr-list-down-nodes says)
run env SLURM_CONF=/nonexistent "$bin/scr_list_down_nodes" -j srun --down n2 'n[1-3]'
if [ $status -eq 1 ] && [ "$(cat "$tmp/out")" = n2 ]; then ok "scr_list_down_nodes -j srun --down lists the nodes named down"
else not_ok "scr_list_down_nodes -j srun --down lists the nodes named down" "$status $(cat "$tmp/out" "$tmp/err")"; fi
run env SLURM_CONF=/nonexistent "$bin/scr_list_down_nodes" -j srun -r -d n2 'n[1-3]'
if [ $status -eq 1 ] && grep -q "^n2: .*down" "$tmp/out" && [ "$(wc -l < "$tmp/out")" -eq 1 ]; then
    ok "scr_list_down_nodes --reason says why"
else
    not_ok "scr_list_down_nodes --reason says why" "$status $(cat "$tmp/out" "$tmp/err")"
fi
run env SLURM_CONF=/nonexistent "$bin/scr_list_down_nodes" -j mpirun 'n[1-3]'
if [ $status -eq 0 ] && [ ! -s "$tmp/out" ]; then ok "scr_list_down_nodes prints nothing when every node is up"
else not_ok "scr_list_down_nodes prints nothing when every node is up" "$status $(cat "$tmp/out" "$tmp/err")"; fi
expect "scr_list_down_nodes wants the launcher" 2 "-j/--joblauncher is required" \
    "$bin/scr_list_down_nodes" 'n[1-3]'
expect "scr_list_down_nodes refuses a launcher it cannot use, naming it" 2 "'flux' is not supported" \
    "$bin/scr_list_down_nodes" -j flux 'n[1-3]'

# --- scr_env ----------------------------------------------------------------------------------
run env SLURM_JOB_ID=77 SLURM_NODELIST='n[1-3]' "$bin/scr_env" --user --jobid --nodes --runnodes
if [ $status -eq 0 ] && [ "$(cat "$tmp/out" | tr '\n' ' ')" = "$user 77 n[1-3] 0 " ]; then
    ok "scr_env prints the user, the job id, its nodes and the last run's node count"
else
    not_ok "scr_env prints the user, the job id, its nodes and the last run's node count" "$(cat "$tmp/out" "$tmp/err")"
fi
expect "scr_env --endtime prints the allocation's end" 0 "^1900000000$" \
    env SCR_END_TIME=1900000000 "$bin/scr_env" -e
expect "scr_env --endtime without a known end fails, saying why" 1 "SCR_END_TIME is unset" \
    "$bin/scr_env" --endtime
expect "scr_env --jobid outside a job fails, saying why" 1 "no job id" "$bin/scr_env" -j
run env SLURM_JOB_ID=77 "$bin/scr_env"
if [ $status -eq 0 ] && grep -q "^jobid: 77$" "$tmp/out" && grep -q "^user: $user$" "$tmp/out"; then
    ok "scr_env without options names every value"
else
    not_ok "scr_env without options names every value" "$(cat "$tmp/out" "$tmp/err")"
fi

# --- scr_list_dir -----------------------------------------------------------------------------
expect "scr_list_dir cache prints the job's cache directory" 0 "^$tmp/cache/$user/scr.77$" \
    env SLURM_JOB_ID=77 SCR_CACHE_BASE="$tmp/cache" "$bin/scr_list_dir" cache
expect "scr_list_dir --user --jobid control: another user's job" 0 "/bob/scr.5$" \
    "$bin/scr_list_dir" --user bob --jobid 5 control
expect "scr_list_dir --base cache prints the base alone" 0 "^$tmp/cache$" \
    env SCR_CACHE_BASE="$tmp/cache" "$bin/scr_list_dir" --base cache
expect "scr_list_dir outside a job, without --jobid, says why" 1 "no job id" "$bin/scr_list_dir" control
expect "scr_list_dir wants control or cache" 2 "'prefix' is neither control nor cache" \
    "$bin/scr_list_dir" prefix
expect "scr_list_dir refuses a user name that cannot be a directory" 2 "cannot name a directory" \
    "$bin/scr_list_dir" -u ../x -j 5 control

done_testing
