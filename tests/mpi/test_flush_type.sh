#!/bin/sh
# test_flush_type.sh — SCR_FLUSH_TYPE: SYNC is the flush there is; PTHREAD
# (a background flush, not in this version) is said once at SCR_Init and
# the flush runs synchronously; SCR's burst-buffer transfers are refused by
# name, with the accepted types, and SCR_Init fails.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-type

mpi_run 2 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=SYNC -- --steps 1
mpi_expect_restart "SYNC_flushes" 0 1
check "the_checkpoint_is_on_the_prefix" test -n "$(mpi_index_id ckpt.1)"
check "without_a_word" test ! -s "$mpi_err"

mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=PTHREAD -- --steps 2
mpi_expect_restart "PTHREAD_runs" 0 2
check "SCR_Init_says_once_that_the_flush_runs_synchronously" test "$(grep -c \
    "^SCR rank 0: warning: SCR_FLUSH_TYPE=PTHREAD (from environment) is not taken: background flush is not available in this version, so every flush runs synchronously$" \
    "$mpi_err")" -eq 1
check "and_it_does" test -n "$(mpi_index_id ckpt.1)" -a -n "$(mpi_index_id ckpt.2)"
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=PTHREAD SCR_FLUSH_ASYNC=1 -- --steps 1
check "asked_for_twice_it_is_one_line" test "$(grep -c \
    "warning: SCR_FLUSH_ASYNC=1 (from environment) and SCR_FLUSH_TYPE=PTHREAD (from environment) is not taken" \
    "$mpi_err")" -eq 1 -a "$(grep -c "background flush" "$mpi_err")" -eq 1

for type in BBAPI DATAWARP CPPR; do
    mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=$type -- --steps 1
    mpi_expect_failure "${type}_is_refused_by_name_with_the_accepted_types" \
        "environment: SCR_FLUSH_TYPE=$type: expected one of SYNC, PTHREAD ($type, " 1
    check "${type}_is_said_to_be_not_available" grep -q "is not available in this version)" "$mpi_err"
done

done_testing
