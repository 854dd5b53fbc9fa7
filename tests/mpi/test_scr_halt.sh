#!/bin/sh
# test_scr_halt.sh — what scr-halt sets, real jobs obey: --checkpoints 2
# stops a job after two checkpoints, --before a past time, --after, --seconds
# against the allocation's end and the default reason stop it at its first
# check, a job already running stops when told, and after --immediate a job
# with SCR_HALT_EXIT=1 does not start at all.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr_halt

halt=$top_builddir/cli/scr-halt
now=$(date +%s)

# halt_first ARGS...: a fresh prefix on which scr-halt ARGS ran
halt_first() {
    mpi_reset
    "$halt" "$@" > /dev/null || not_ok "scr-halt $*"
}

# halted_run NAME STEP [VAR=VALUE...]: a 4-rank run of 5 steps on 2 nodes stops after STEP
halted_run() {
    name=$1 step=$2
    shift 2
    mpi_run 4 2 "$@" -- --steps 5
    mpi_expect_lines "$name" "asked to exit after step $step" "finished step $step"
}

halt_first --checkpoints 2
halted_run "checkpoints_2_stops_the_job_after_two_checkpoints" 2
check "the_job_counted_CheckpointsLeft_down_to_0" \
    eval "'$halt' --list | grep -qx 'CheckpointsLeft  0'"

halt_first --before @$((now - 60))
halted_run "before_a_past_time_stops_the_job_at_its_first_check" 1
halt_first --before "+1h"
mpi_run 4 2 -- --steps 3
mpi_expect_restart "before_an_hour_from_now_does_not_stop_the_job" 0 3
halt_first --before "+1h" --seconds 7200
halted_run "before_within_seconds_stops_the_job" 1

halt_first --seconds 120
halted_run "seconds_is_the_margin_before_the_allocation_ends" 1 SCR_END_TIME=$((now + 60))
halt_first --seconds 10
mpi_run 4 2 SCR_END_TIME=$((now + 3600)) SCR_HALT_SECONDS=7200 -- --steps 3
mpi_expect_restart "seconds_replaces_SCR_HALT_SECONDS" 0 3

halt_first --after "@$((now - 1))"
halted_run "after_a_past_time_stops_the_job_at_its_first_check" 1
halt_first --after "+1d"
mpi_run 4 2 -- --steps 3
mpi_expect_restart "after_a_day_from_now_does_not_stop_the_job" 0 3

halt_first
halted_run "no_option_stops_the_job_at_its_first_check" 1

# a job already running: told once it has written its second checkpoint
mpi_reset
mpi_start 4 2 -- --steps 300 --sleep-ms 100
while kill -0 "$_mpi_bg_pid" 2> /dev/null &&
      ! mpi_cache_datasets | grep -q 'scr\.dataset\.\([2-9]\|[1-9][0-9]\+\)$'; do
    sleep 0.1
done
"$halt" > /dev/null
mpi_wait
stopped=$(sed -n 's/^rank 0: asked to exit after step \([0-9]*\)$/\1/p' "$mpi_out")
if [ "$mpi_status" -eq 0 ] && [ -n "$stopped" ] && [ "$stopped" -ge 2 ] && [ "$stopped" -lt 300 ] &&
   [ -z "$(mpi_ranks_without "finished step $stopped")" ]; then
    ok "a_running_job_stops_when_told"
else
    not_ok "a_running_job_stops_when_told" "$(mpi_diag)"
fi
check "its_SCR_Finalize_replaced_the_reason" \
    eval "'$halt' --list | grep -qx 'ExitReason       SCR_FINALIZE_CALLED'"

# --immediate: a job that may end itself does not start
halt_first --immediate
mpi_run 4 2 SCR_HALT_EXIT=1 -- --steps 5
if [ "$mpi_status" -eq 0 ] && [ ! -s "$mpi_out" ] && [ -z "$(mpi_cache_datasets)" ] &&
   grep -q "halt condition holds already at SCR_Init (halt file reason: JOB_HALTED" "$mpi_err"; then
    ok "after_immediate_a_job_with_SCR_HALT_EXIT_1_does_not_start"
else
    not_ok "after_immediate_a_job_with_SCR_HALT_EXIT_1_does_not_start" "$(mpi_diag)"
fi
halt_first --immediate
halted_run "after_immediate_a_job_is_told_at_its_first_check" 1
check "which_it_hears_at_SCR_Init" grep -q "halt condition holds already at SCR_Init" "$mpi_err"

# taking conditions back
halt_first --immediate --checkpoints 0
"$halt" --unset-reason --unset-checkpoints > /dev/null
mpi_run 4 2 -- --steps 3
mpi_expect_restart "after_unset_reason_and_unset_checkpoints_the_job_runs_on" 0 3
halt_first --checkpoints 0
"$halt" --remove > /dev/null
mpi_run 4 2 -- --steps 3
mpi_expect_restart "after_remove_the_job_runs_on" 0 3

done_testing
