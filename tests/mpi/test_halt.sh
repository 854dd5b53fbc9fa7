#!/bin/sh
# test_halt.sh — every halt condition stops a run: SCR_Should_exit says so on
# every rank after the checkpoint during which it became true, and the app
# prints "asked to exit after step S". The halt file is written with
# tests/mpi/halt_set through lib/records/halt_file.h, as a halt command would.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup halt

halt_set=$top_builddir/tests/mpi/halt_set
now=$(date +%s)

# halted_run NAME STEP [VAR=VALUE...]: a fresh 4-rank run of 5 steps on 2
# nodes, with the halt file set up beforehand, must stop after STEP
halted_run() {
    name=$1 step=$2
    shift 2
    mpi_run 4 2 "$@" -- --steps 5
    mpi_expect_lines "$name" "asked to exit after step $step" "finished step $step"
}

# set_halt KEY=VALUE...: a fresh prefix whose halt file holds these
set_halt() {
    mpi_reset
    "$halt_set" "$prefix" "$@" || not_ok "halt_set $*"
}

set_halt CheckpointsLeft=2
halted_run "CheckpointsLeft_2_stops_after_two_checkpoints" 2
halt_paths=$(mpi_tree_paths "$prefix/.scr/halt.scr")
check "CheckpointsLeft_counted_down_to_0" eval "echo '$halt_paths' | grep -qx CheckpointsLeft/0"

set_halt ExitAfter=$((now - 60))
halted_run "ExitAfter_in_the_past_stops_after_the_first_checkpoint" 1

set_halt ExitBefore=$((now + 300)) HaltSeconds=600
halted_run "ExitBefore_within_HaltSeconds_stops_after_the_first_checkpoint" 1

set_halt ExitBefore=$((now + 3600)) HaltSeconds=60
mpi_run 4 2 -- --steps 3
mpi_expect_restart "ExitBefore_further_away_than_HaltSeconds_does_not_stop" 0 3

set_halt ExitReason=maintenance
halted_run "an_ExitReason_stops_after_the_first_checkpoint" 1

mpi_reset
halted_run "SCR_END_TIME_within_SCR_HALT_SECONDS_stops_after_the_first_checkpoint" 1 \
    SCR_END_TIME=$((now + 60)) SCR_HALT_SECONDS=120
mpi_reset
mpi_run 4 2 SCR_END_TIME=$((now + 3600)) SCR_HALT_SECONDS=120 -- --steps 3
mpi_expect_restart "SCR_END_TIME_further_away_than_SCR_HALT_SECONDS_does_not_stop" 0 3

set_halt CheckpointsLeft=0
mpi_run 4 2 SCR_HALT_ENABLED=0 -- --steps 5
mpi_expect_restart "SCR_HALT_ENABLED_0_ignores_the_halt_file" 0 5

# SCR_HALT_EXIT=1: the library ends the job itself inside the checkpoint
# that makes the condition true
set_halt CheckpointsLeft=1
mpi_run 4 2 SCR_HALT_EXIT=1 -- --steps 5
if [ "$mpi_status" -eq 0 ] && ! grep -q "finished step\|asked to exit" "$mpi_out"; then
    ok "SCR_HALT_EXIT_1_exits_inside_the_checkpoint_with_status_0"
else
    not_ok "SCR_HALT_EXIT_1_exits_inside_the_checkpoint_with_status_0" "$(mpi_diag)"
fi
"$halt_set" "$prefix" CheckpointsLeft=
mpi_run 4 2 -- --steps 2
mpi_expect_restart "SCR_HALT_EXIT_1_exited_after_completing_checkpoint_1" 1 2

# a condition that holds at SCR_Init: said once; with SCR_HALT_EXIT=1 the
# job ends there, before it restarts or writes anything
set_halt ExitReason=maintenance
mpi_run 4 2 SCR_HALT_EXIT=1 -- --steps 5
if [ "$mpi_status" -eq 0 ] && [ ! -s "$mpi_out" ] && [ -z "$(mpi_cache_datasets)" ] &&
   [ "$(grep -c 'halt condition holds already at SCR_Init' "$mpi_err")" -eq 1 ]; then
    ok "SCR_HALT_EXIT_1_ends_the_job_in_SCR_Init_when_a_condition_holds_already"
else
    not_ok "SCR_HALT_EXIT_1_ends_the_job_in_SCR_Init_when_a_condition_holds_already" "$(mpi_diag)"
fi
set_halt ExitReason=maintenance
mpi_run 4 2 -- --steps 5
mpi_expect_lines "without_SCR_HALT_EXIT_the_run_is_told_at_its_first_check" \
    "asked to exit after step 1"
check "a_condition_holding_at_SCR_Init_is_said_once_naming_it" \
    test "$(grep -c 'halt condition holds already at SCR_Init (halt file reason: maintenance' "$mpi_err")" -eq 1

# the halt file's HaltSeconds is the margin before the allocation's end too,
# and SCR_HALT_SECONDS the margin before ExitBefore when it has none
set_halt HaltSeconds=120
halted_run "HaltSeconds_is_the_margin_before_SCR_END_TIME" 1 SCR_END_TIME=$((now + 60))
set_halt HaltSeconds=10
mpi_run 4 2 SCR_END_TIME=$((now + 3600)) SCR_HALT_SECONDS=7200 -- --steps 3
mpi_expect_restart "HaltSeconds_replaces_SCR_HALT_SECONDS" 0 3
set_halt ExitBefore=$((now + 3600))
halted_run "SCR_HALT_SECONDS_is_the_margin_before_ExitBefore_without_HaltSeconds" 1 \
    SCR_HALT_SECONDS=7200

# a normal end leaves ExitReason SCR_FINALIZE_CALLED, which halts nobody
mpi_reset
mpi_run 4 2 -- --steps 2
mpi_expect_restart "a_run_without_halt_conditions_finishes" 0 2
check "SCR_Finalize_records_SCR_FINALIZE_CALLED" \
    eval "mpi_tree_paths '$prefix/.scr/halt.scr' | grep -qx ExitReason/SCR_FINALIZE_CALLED"
mpi_run 4 2 -- --steps 4
mpi_expect_restart "the_next_run_is_not_halted_by_SCR_FINALIZE_CALLED" 2 4

done_testing
