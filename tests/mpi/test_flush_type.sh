#!/bin/sh
# test_flush_type.sh — SCR_FLUSH_TYPE: SYNC flushes in the foreground;
# PTHREAD is taken without a word and flushes in the background, as
# SCR_FLUSH_ASYNC=1 does (tests/mpi/test_flush_async.sh), also when both
# ask for it; SCR's burst-buffer transfers are refused by name, with the
# accepted types, and SCR_Init fails.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-type

events=$prefix/.scr/events.jsonl

mpi_run 2 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=SYNC SCR_LOG_ENABLE=1 -- --steps 1
mpi_expect_restart "SYNC_flushes" 0 1
check "the_checkpoint_is_on_the_prefix" test -n "$(mpi_index_id ckpt.1)"
check "without_a_word" test ! -s "$mpi_err"
check "SYNC_flushes_in_the_foreground" \
    test "$(grep -c '"event":"flush","status":"ok"' "$events")" -eq 1 -a "$(grep -c '"background"' "$events")" -eq 0

mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=PTHREAD SCR_LOG_ENABLE=1 -- --steps 2
mpi_expect_restart "PTHREAD_runs" 0 2
check "PTHREAD_is_taken_without_a_word" test ! -s "$mpi_err"
check "PTHREAD_flushes_both_checkpoints" test -n "$(mpi_index_id ckpt.1)" -a -n "$(mpi_index_id ckpt.2)"
check "PTHREAD_flushes_in_the_background" \
    test "$(grep -c '"event":"flush","status":"ok".*"background":1' "$events")" -eq 2
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=PTHREAD SCR_FLUSH_ASYNC=1 SCR_LOG_ENABLE=1 -- --steps 1
mpi_expect_restart "PTHREAD_and_SCR_FLUSH_ASYNC_1_run" 0 1
check "asked_for_twice_it_is_taken_without_a_word" test ! -s "$mpi_err"
check "asked_for_twice_it_flushes_in_the_background" \
    grep -q '"event":"flush","status":"ok".*"background":1' "$events"

for type in BBAPI DATAWARP CPPR; do
    mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_TYPE=$type -- --steps 1
    mpi_expect_failure "${type}_is_refused_by_name_with_the_accepted_types" \
        "environment: SCR_FLUSH_TYPE=$type: expected one of SYNC, PTHREAD ($type, " 1
    check "${type}_is_said_to_be_not_available" grep -q "is not available in this version)" "$mpi_err"
done

done_testing
