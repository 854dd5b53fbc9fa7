#!/bin/sh
# test_need_checkpoint.sh — SCR_Need_checkpoint under each policy. The app
# (--need-checkpoint) asks every step, prints "step S checkpoint yes|no" and
# writes a checkpoint only on yes.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup need-checkpoint

halt_set=$top_builddir/tests/mpi/halt_set

mpi_run 4 2 -- --need-checkpoint --steps 3
mpi_expect_lines "no_policy_never_asks_for_a_checkpoint" \
    "fresh start" "step 1 checkpoint no" "step 2 checkpoint no" "step 3 checkpoint no" "finished step 3"
mpi_run 4 2 -- --need-checkpoint --steps 1
mpi_expect_restart "so_nothing_was_written_to_restart_from" 0 1

mpi_reset
mpi_run 4 2 SCR_CHECKPOINT_INTERVAL=3 -- --need-checkpoint --steps 7
mpi_expect_lines "SCR_CHECKPOINT_INTERVAL_3_asks_every_third_call" \
    "step 1 checkpoint no" "step 2 checkpoint no" "step 3 checkpoint yes" \
    "step 4 checkpoint no" "step 5 checkpoint no" "step 6 checkpoint yes" "step 7 checkpoint no"
mpi_lose_all_nodes
mpi_run 4 2 SCR_CHECKPOINT_INTERVAL=3 -- --need-checkpoint --steps 6
mpi_expect_restart "the_last_checkpoint_written_was_6" 6

# SCR_CHECKPOINT_SECONDS asks once that many seconds have passed since the
# last checkpoint (or SCR_Init). Only lower bounds on time are certain on a
# loaded machine, so: 1.1 s between calls is always enough for 1 s, and an
# hour is never reached.
mpi_reset
mpi_run 4 2 SCR_CHECKPOINT_SECONDS=1 -- --need-checkpoint --sleep-ms 1100 --steps 2
mpi_expect_lines "SCR_CHECKPOINT_SECONDS_1_asks_once_a_second_has_passed" \
    "step 1 checkpoint yes" "step 2 checkpoint yes"
mpi_reset
mpi_run 4 2 SCR_CHECKPOINT_SECONDS=3600 -- --need-checkpoint --sleep-ms 100 --steps 3
mpi_expect_lines "SCR_CHECKPOINT_SECONDS_3600_does_not_ask_before_an_hour" \
    "step 1 checkpoint no" "step 2 checkpoint no" "step 3 checkpoint no"

# a halt condition makes a checkpoint needed, so one is written before exiting
mpi_reset
"$halt_set" "$prefix" ExitReason=maintenance || not_ok "halt_set ExitReason=maintenance"
mpi_run 4 2 SCR_CHECKPOINT_INTERVAL=100 -- --need-checkpoint --steps 3
mpi_expect_lines "a_halt_condition_asks_for_a_checkpoint" \
    "step 1 checkpoint yes" "asked to exit after step 1" "finished step 1"
mpi_run 4 2 SCR_HALT_ENABLED=0 -- --steps 1
mpi_expect_restart "the_halted_run_left_checkpoint_1" 1

done_testing
