#!/bin/sh
# test_scr31_jobscript.sh — job scripts written for SCR 3.1 run as they are,
# on a cluster without the Slurm plugin.
#
# The plugin is taken out of plugstack.conf first (srun then refuses its
# --scr-* options). (a) The batch script SCR 3.1 ships as its example
# (#SBATCH --no-kill, scr_prerun -p $prefix, srun -K, scr_postrun -p $prefix
# -j srun): the run dies right after checkpoint 2, which was never flushed
# (SCR_FLUSH=10); scr_inspect, asked first, lists it (SINGLE: only with
# both nodes' caches read); scr_postrun copies it from both nodes' cache to
# the prefix, and scr_index --list --prefix=DIR lists it complete and
# current.
# (b) The same job through scr_srun with SCR_RUNS=2: the second run restarts
# from the cache, finishes, and its last checkpoint is on the prefix, listed
# current by scr_index. (c) Without the plugin, scr_env --endtime asks
# slurmctld for the allocation's end, and scr_srun passes it on: with
# SCR_HALT_SECONDS longer than the time left, nothing runs.
. "$top_srcdir/tests/slurm/slurm-lib.sh"
NNODES=3
slurm_setup scr31

app=$top_builddir/tests/mpi/.libs/scr_test_app
bin31=$top_builddir/cli/scr31
[ -x "$app" ] || slurm_skip_all "tests/mpi/scr_test_app is not built"
app_args="--files 2 --size 5000 --steps 3 --crash-after 2 --crash-rank 1"

# --- no plugin --------------------------------------------------------------------------
: > "$slurm_lab/etc/plugstack.conf"
scontrol reconfigure > /dev/null 2>&1
if out=$(as_user srun -N1 --scr-flush=1 true 2>&1); then
    not_ok "without the plugin, srun knows no --scr-* option" "accepted: $out"
else
    ok "without the plugin, srun knows no --scr-* option"
fi

# submit NAME SCRIPT-BODY: an sbatch job (-N2, -t 10, --no-kill from the script)
# running SCRIPT-BODY in the prefix $slurm_work/NAME, with SCR 3.1's command
# names first in PATH; waits for it to end; output in $slurm_work/NAME.out
submit() {
    _name=$1
    cat > "$slurm_work/$_name.sh" <<SCRIPT
#!/bin/bash
#SBATCH --no-kill
export PATH=$bin31:\$PATH
export SCR_FLUSH=10 SCR_COPY_TYPE=SINGLE
$2
SCRIPT
    chmod 755 "$slurm_work/$_name.sh"
    as_user mkdir -p "$slurm_work/$_name"
    as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" sbatch -W -N2 -t 10 -D "$slurm_work/$_name" \
        -o "$slurm_work/$_name.out" "$slurm_work/$_name.sh" > /dev/null 2>&1
}

# listed PREFIX NAME: scr_index --list --prefix=PREFIX shows NAME complete and current
listed() {
    "$bin31/scr_index" --list --prefix="$1" 2>&1 | grep -q "^\*.* $2 .* yes "
}

# --- (a) SCR 3.1's example batch script ---------------------------------------------------
submit example "
scr_prefix=\`pwd\`
scr_prerun -p \$scr_prefix
if [ \$? -ne 0 ] ; then
    echo \"ERROR: scr_prerun -p \$scr_prefix\"
    exit 1
fi
srun -K --mpi=pmix -N2 -n2 $app $app_args
echo \"srun ended \$?\"
echo \"inspect: \$(scr_inspect -j \$SLURM_JOB_NODELIST -d \"\$(scr_list_down_nodes -j srun)\" -f \"\$(scr_list_dir control)\")\"
scr_postrun -p \$scr_prefix -j srun
echo \"scr_postrun ended \$?\""
p=$slurm_work/example
out=$(cat "$slurm_work/example.out" 2>&1)
if printf '%s\n' "$out" | grep -q "srun ended [1-9]" && [ ! -e "$p/ckpt.3" ] &&
   [ "$(printf '%s\n' "$out" | grep -c '^dataset 2: 2 file(s), [0-9]* bytes copied')" -eq 2 ]; then
    ok "SCR 3.1's example script: the run dies after checkpoint 2, which each node then copies"
else
    not_ok "SCR 3.1's example script: the run dies after checkpoint 2, which each node then copies" "$out"
fi
if printf '%s\n' "$out" | grep -q "^inspect: 2$"; then
    ok "scr_inspect, run before scr_postrun, reads both nodes' caches with srun and lists dataset 2"
else
    not_ok "scr_inspect, run before scr_postrun, reads both nodes' caches with srun and lists dataset 2" "$out"
fi
if listed "$p" ckpt.2 && [ -s "$p/ckpt.2/rank0_f0.dat" ] && [ -s "$p/ckpt.2/rank1_f1.dat" ] &&
   printf '%s\n' "$out" | grep -q "scr_postrun ended 0"; then
    ok "scr_postrun copies ckpt.2 from the nodes' cache, and scr_index lists it complete and current"
else
    not_ok "scr_postrun copies ckpt.2 from the nodes' cache, and scr_index lists it complete and current" \
        "$("$bin31/scr_index" --list --prefix="$p" 2>&1)
$(ls -la "$p" "$p/ckpt.2" 2>&1)
$out"
fi
restart=$(as_user env LD_LIBRARY_PATH="$top_builddir/lib/.libs" SCR_COPY_TYPE=SINGLE srun --mpi=pmix -N2 -n2 \
          -D "$p" "$app" --files 2 --size 5000 --steps 3 2>&1)
if [ "$(printf '%s\n' "$restart" | grep -c 'restarted from step 2')" -eq 2 ]; then
    ok "a new job restarts from the scavenged ckpt.2, every byte checked"
else
    not_ok "a new job restarts from the scavenged ckpt.2, every byte checked" "$restart"
fi

# --- (b) scr_srun runs the job again -------------------------------------------------------
submit relaunch "
scr_prerun -p \$PWD || exit 1
SCR_RUNS=2 scr_srun -K --mpi=pmix -N2 -n2 $app $app_args
echo \"scr_srun ended \$?\""
p=$slurm_work/relaunch
out=$(cat "$slurm_work/relaunch.out" 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c 'restarted from step 2')" -eq 2 ] &&
   printf '%s\n' "$out" | grep -q "scr_srun ended 0" && listed "$p" ckpt.3; then
    ok "scr_srun runs again after the failure, from the cache; the last checkpoint is on the prefix, current"
else
    not_ok "scr_srun runs again after the failure, from the cache; the last checkpoint is on the prefix, current" \
        "$("$bin31/scr_index" --list --prefix="$p" 2>&1)
$out"
fi

# --- (c) the allocation's end, without the plugin ---------------------------------------------
submit halt "
echo \"end \$(scr_env --endtime)\"
SCR_HALT_SECONDS=3600 scr_srun -N1 touch ran
echo \"scr_srun ended \$?\""
out=$(cat "$slurm_work/halt.out" 2>&1)
end=$(printf '%s\n' "$out" | sed -n 's/^end \([0-9][0-9]*\)$/\1/p')
now=$(date +%s)
if [ -n "$end" ] && [ "$end" -gt "$now" ] && [ "$end" -le $((now + 620)) ]; then
    ok "scr_env --endtime prints the allocation's end, asked of slurmctld"
else
    not_ok "scr_env --endtime prints the allocation's end, asked of slurmctld" "now $now: $out"
fi
if [ ! -e "$slurm_work/halt/ran" ] && printf '%s\n' "$out" | grep -q "scr-run: not running again" &&
   printf '%s\n' "$out" | grep -q "scr_srun ended 0"; then
    ok "scr_srun counts SCR_HALT_SECONDS from that end: with less time left, nothing runs"
else
    not_ok "scr_srun counts SCR_HALT_SECONDS from that end: with less time left, nothing runs" "$out"
fi

done_testing
