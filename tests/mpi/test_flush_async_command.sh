#!/bin/sh
# test_flush_async_command.sh — the COMMAND of a node's transfer file steers
# its background flush, as seed 003's transfer daemon was steered: STOP
# pauses the copy (the thread says STATE STOPPED, and SCR_Finalize waits),
# RUN resumes it and the dataset is indexed; EXIT abandons the copy: the
# background flush fails, says why, takes back what it wrote, and the
# newest checkpoint is flushed again at SCR_Finalize.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-async-command

command=$top_builddir/tests/mpi/transfer_command
# 2 ranks on one node, 2 x 512 KiB at 256 KB/s: the copy takes 4 s
settings="SCR_LOG_ENABLE=1 SCR_COPY_TYPE=SINGLE SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=256KB"
app_args="--steps 1 --size 524288"

# the node's transfer file, once the flush has written it (at most 60 s)
transfer_file() {
    _t=0
    while [ "$_t" -lt 600 ]; do
        _f=$(find "$scratch/cntl" -name transfer.scr 2> /dev/null | head -1)
        [ -n "$_f" ] && { echo "$_f"; return 0; }
        sleep 0.1
        _t=$((_t + 1))
    done
    return 1
}

# wait (at most 30 s) until the transfer file's state is $2
wait_state() {
    _t=0
    while [ "$_t" -lt 300 ]; do
        [ "$("$command" "$1" --state 2> /dev/null | head -1)" = "$2" ] && return 0
        sleep 0.1
        _t=$((_t + 1))
    done
    return 1
}

# shellcheck disable=SC2086 # the settings are meant to be split
mpi_start 2 1 $settings -- $app_args
file=$(transfer_file)
check "the_background_flush_writes_the_node's_transfer_file" test -n "$file"
"$command" "$file" STOP
check "COMMAND_STOP:_the_thread_says_STATE_STOPPED" wait_state "$file" STOPPED
sleep 1
check "while_stopped,_the_run_waits_at_SCR_Finalize" test -z "$(mpi_index_id ckpt.1)"
"$command" "$file" RUN
check "COMMAND_RUN:_the_thread_runs_again" wait_state "$file" RUNNING
mpi_wait
mpi_expect_restart "the_run_completes_after_RUN" 0 1
check "the_dataset_is_indexed" test -n "$(mpi_index_id ckpt.1)"
check "the_transfer_file_says_DONE" sh -c "'$command' '$file' --state | grep -qx DONE"

mpi_reset
# shellcheck disable=SC2086
mpi_start 2 1 $settings -- $app_args
file=$(transfer_file)
"$command" "$file" EXIT
mpi_wait
mpi_expect_restart "COMMAND_EXIT:_the_run_completes" 0 1
check "COMMAND_EXIT:_the_thread_says_why_it_stopped" grep -q "background flush of dataset 1 stopped: $file says COMMAND EXIT" "$mpi_err"
check "COMMAND_EXIT:_the_background_flush_failed" \
    test "$(grep '"event":"flush"' "$prefix/.scr/events.jsonl" | grep '"background":1' | grep -c '"status":"failed"')" -eq 1
check "COMMAND_EXIT:_no_FLAG_DONE" sh -c "! '$command' '$file' --state | grep -qx DONE"
check "COMMAND_EXIT:_SCR_Finalize_flushed_it_again_and_indexed_it" test -n "$(mpi_index_id ckpt.1)"

done_testing
