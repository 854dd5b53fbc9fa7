#!/bin/sh
# test_flush_async.sh — SCR_FLUSH_ASYNC=1: the flush goes on in a thread of
# each node while the application computes, and is concluded at a later
# API call: then the dataset is indexed and current, its rank filemaps and
# summary on the prefix, the node's transfer file says DONE, and the flush
# event says it ran in the background. SCR_FLUSH_TYPE=PTHREAD asks for the
# same (tests/mpi/test_flush_type.sh).
#
# What goes wrong while a flush runs in the background:
# - a rank killed while it runs (right after checkpoint 2 completes): the
#   previous flushed checkpoint stays current, the partial one is not
#   indexed and left FLUSHING; the next run restarts from it in cache, and
#   its SCR_Finalize flushes it; or, from a copy of the caches as the crash
#   left them, scr-scavenge on each node and scr-index --add redo the flush,
#   and a run that lost every node restarts from it on the prefix;
# - (every rank killed at a random moment while flushes and encodes run in
#   the background: tests/mpi/test_background_kill.sh);
# - a halt condition (CheckpointsLeft, with and without SCR_HALT_EXIT=1):
#   the run exits 0, its newest checkpoint indexed, nothing left FLUSHING;
# - SCR_CACHE_SIZE=1: the next checkpoint waits for the flush of the one it
#   evicts (said at SCR_DEBUG=1), and every checkpoint is indexed;
# - COMMAND EXIT set in the node's transfer file (tests/mpi/transfer_command):
#   the copy is abandoned and said so, the flush fails and is taken back,
#   and the next flush runs;
# - the prefix fills up (a small tmpfs; skipped where mount is not
#   allowed): the error names the file and the cause, nothing of the
#   dataset is left on the prefix or in the index, SCR_Finalize's retry of
#   the newest checkpoint fails too (the app exits 3), and with room again
#   the next run restarts from the checkpoint kept in cache.
# SCR_FLUSH_ASYNC_PERCENT outside 0..100 fails SCR_Init, naming it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-async

scavenge=$top_builddir/cli/scr-scavenge
index=$top_builddir/cli/scr-index
halt_set=$top_builddir/tests/mpi/halt_set
transfer_command=$top_builddir/tests/mpi/transfer_command
events=$scratch/prefix/.scr/events.jsonl
# the line numbers of the events named $1 about dataset $2 in events.jsonl
event_lines() {
    grep -n "\"event\":\"$1\"" "$events" | grep "\"dataset_id\":$2," | cut -d: -f1 | tr '\n' ' '
}
# the flush events of dataset $1
flush_events() {
    grep '"event":"flush"' "$events" | grep "\"dataset_id\":$1,"
}
# NAME LIST: pass when LIST (of what went wrong) is empty, else show it
none_failed() {
    if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$2"; fi
}
# the name of the current dataset in the index
current() {
    "$index" --prefix "$prefix" 2> /dev/null | awk '$1 == "*" { print $3 }'
}
# the flush file of every node names no dataset FLUSHING
nothing_flushing() {
    for _f in "$scratch"/cntl/node*/*/scr.*/flush.scr; do
        [ -f "$_f" ] || { echo "no flush file: $_f"; return 1; }
        if mpi_tree_paths "$_f" | grep 'LOCATION/FLUSHING$'; then return 1; fi
    done
}
# node $1's flush file says FLUSHING for dataset $2
flushing_on() {
    mpi_tree_paths "$scratch/cntl/node$1/"*/scr.*/flush.scr 2> /dev/null | grep -qx "DSET/$2/LOCATION/FLUSHING"
}

# 4 ranks on 2 nodes write 2 x 256 KiB a node: at 1 MB/s each flush takes
# half a second, during which the application goes on
mpi_run 4 2 SCR_LOG_ENABLE=1 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=1MB SCR_CACHE_SIZE=2 -- \
    --steps 3 --size 262144
mpi_expect_restart "background_flush:_the_run_completes" 0 3
for step in 1 2 3; do
    check "ckpt.${step}_is_indexed" test -n "$(mpi_index_id ckpt.$step)"
done
check "the_flush_events_say_background" test "$(grep -c '"event":"flush".*"background":1' "$events")" -eq 3
check "ckpt.2_started_before_the_flush_of_ckpt.1_was_concluded" \
    test "$(event_lines checkpoint_start 2)" -lt "$(event_lines flush 1)"

check "the_transfer_file_says_DONE" sh -c "'$mpi_print' '$scratch/cntl/node0/'*/scr.*/transfer.scr | grep -q DONE"
mpi_lose_all_nodes
mpi_run 4 2 -- --steps 4 --size 262144
mpi_expect_restart "every_node_lost:_restarts_from_the_background_flushed_ckpt.3" 3 4

# --- a rank killed while the flush runs ---------------------------------------------
# rank 0 dies right after checkpoint 2 completes: its SCR_Complete_checkpoint
# concluded the flush of ckpt.1 and started that of ckpt.2, which node0's
# thread, dying with rank 0, leaves half done
mpi_reset
crash_args="--steps 3 --size 262144"
# shellcheck disable=SC2086 # the arguments are meant to be split
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=1MB SCR_CACHE_SIZE=2 -- $crash_args --crash-after 2
mpi_expect_killed "crash_during_a_background_flush:_the_run_dies" 2
check "crash:_the_flushed_ckpt.1_is_indexed_and_current" test "$(current)" = ckpt.1
check "crash:_ckpt.2_whose_flush_was_interrupted_is_not_in_the_index" test -z "$(mpi_index_id ckpt.2)"
check "crash:_the_flush_file_leaves_ckpt.2_FLUSHING" flushing_on 0 2
rm -rf "$scratch/crashed" && mkdir "$scratch/crashed" && cp -a "$scratch/cache" "$scratch/cntl" "$prefix" "$scratch/crashed/"

# (a) every node intact: the next run restarts from ckpt.2 in cache, and
# its SCR_Finalize flushes it
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 -- --steps 2 --size 262144
mpi_expect_restart "crash:_the_next_run_restarts_from_ckpt.2_in_cache" 2 2
check "crash:_its_SCR_Finalize_flushes_the_interrupted_ckpt.2" test "$(current)" = ckpt.2

# (b) the caches and the prefix as the crash left them: the scavenge copies
# each node's part, scr-index --add indexes it, and a run that lost every
# node reads it back from the prefix
rm -rf "$scratch/cache" "$scratch/cntl" "$prefix" &&
    cp -a "$scratch/crashed/cache" "$scratch/crashed/cntl" "$scratch/crashed/prefix" "$scratch/" &&
    cd "$prefix" || exit 99
"$scavenge" --node node0 --status > "$scratch/status.out" 2>&1
check "crash:_scr-scavenge_status_says_ckpt.2_needs_a_copy" \
    grep -q "dataset 2 (ckpt.2): needs a copy" "$scratch/status.out"
failed=
for n in 0 1; do
    "$scavenge" --node "node$n" > "$scratch/scavenge.out" 2>&1 || failed="$failed node$n: $(cat "$scratch/scavenge.out")"
done
none_failed "crash:_scr-scavenge_copies_ckpt.2_from_every_node" "$failed"
"$index" --add scr.dataset.2 > "$scratch/index.out" 2>&1
check "crash:_scr-index_add_indexes_ckpt.2" test $? -eq 0
check "crash:_the_scavenged_ckpt.2_is_current" test "$(current)" = ckpt.2
mpi_lose_all_nodes
# shellcheck disable=SC2086
mpi_run 4 2 -- $crash_args
mpi_expect_restart "crash:_every_node_lost:_restarts_from_the_scavenged_ckpt.2_on_the_prefix" 2 3

# --- a halt condition while the flush runs --------------------------------------------
# CheckpointsLeft=2: checkpoint 2 makes it true as its flush starts
halt_args="SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=1MB SCR_LOG_ENABLE=1"
mpi_reset
"$halt_set" "$prefix" CheckpointsLeft=2 || not_ok "halt_set CheckpointsLeft=2"
# shellcheck disable=SC2086
mpi_run 4 2 $halt_args SCR_HALT_EXIT=1 -- --steps 5 --size 262144
if [ "$mpi_status" -eq 0 ] && ! grep -q "finished step\|asked to exit" "$mpi_out"; then
    ok "halt:_SCR_HALT_EXIT_1_exits_inside_checkpoint_2_with_status_0"
else
    not_ok "halt:_SCR_HALT_EXIT_1_exits_inside_checkpoint_2_with_status_0" "$(mpi_diag)"
fi
check "halt:_the_halting_ckpt.2_is_indexed_and_current" test "$(current)" = ckpt.2
check "halt:_its_background_flush_was_waited_for" \
    eval "flush_events 2 | grep -q '\"status\":\"ok\".*\"background\":1'"
check "halt:_nothing_is_left_FLUSHING" nothing_flushing
mpi_reset
"$halt_set" "$prefix" CheckpointsLeft=2 || not_ok "halt_set CheckpointsLeft=2"
# shellcheck disable=SC2086
mpi_run 4 2 $halt_args -- --steps 5 --size 262144
mpi_expect_lines "halt:_SCR_Should_exit_stops_the_run_after_checkpoint_2" \
    "asked to exit after step 2" "finished step 2"
check "halt:_SCR_Should_exit:_ckpt.2_is_indexed_and_current" test "$(current)" = ckpt.2
check "halt:_SCR_Should_exit:_nothing_is_left_FLUSHING" nothing_flushing

# --- SCR_CACHE_SIZE=1 ----------------------------------------------------------------
# each checkpoint evicts the one before, whose flush it must wait for
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=512KB SCR_CACHE_SIZE=1 SCR_DEBUG=1 -- \
    --steps 3 --size 131072
mpi_expect_restart "cache_size_1:_the_run_completes" 0 3
missing=
for step in 1 2 3; do [ -n "$(mpi_index_id ckpt.$step)" ] || missing="$missing ckpt.$step"; done
check "cache_size_1:_every_checkpoint_is_indexed" test -z "$missing"
for id in 1 2; do
    check "cache_size_1:_checkpoint_$((id + 1))_waits_for_the_flush_of_dataset_$id" grep -q \
        "dataset $id is still being flushed and must leave the cache for the next: waiting for its flush" "$mpi_err"
done

# --- COMMAND EXIT in the transfer file ----------------------------------------------
# (tests/mpi/test_flush_async_command.sh steers the flush with STOP, RUN and
# EXIT; here: what an abandoned copy leaves, and that the next flush runs)
# at 128 KB/s each flush of 2 x 128 KiB takes two seconds
mpi_reset
mpi_start 2 1 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=128KB SCR_FILE_BUF_SIZE=16KB \
    SCR_COPY_TYPE=SINGLE SCR_LOG_ENABLE=1 -- --steps 2 --size 131072
# the first transfer file is the first flush's: EXIT as soon as it is there
transfer=
while kill -0 "$_mpi_bg_pid" 2> /dev/null; do
    transfer=$(ls "$scratch/cntl/node0/"*/scr.*/transfer.scr 2> /dev/null)
    [ -n "$transfer" ] && break
    sleep 0.02
done
"$transfer_command" "$transfer" EXIT > "$scratch/command.out" 2>&1
command_status=$?
mpi_wait
check "command_exit:_is_set_in_the_transfer_file_while_the_flush_of_ckpt.1_runs" \
    sh -c "[ $command_status -eq 0 ] || { echo '$transfer'; cat '$scratch/command.out'; exit 1; }"
mpi_expect_restart "command_exit:_the_run_completes" 0 2
check "command_exit:_the_abandoned_copy_is_said_naming_the_transfer_file" grep -q \
    "background flush of dataset 1 stopped: $transfer says COMMAND EXIT" "$mpi_err"
check "command_exit:_the_background_flush_of_ckpt.1_fails" \
    eval "flush_events 1 | grep -q '\"status\":\"failed\".*\"background\":1'"
check "command_exit:_ckpt.1_is_not_in_the_index" test -z "$(mpi_index_id ckpt.1)"
check "command_exit:_nothing_of_ckpt.1_is_left_on_the_prefix" \
    test -z "$(cd "$prefix" && find . -path './ckpt.1*' -o -path './.scr/scr.dataset.1*')"
check "command_exit:_the_next_flush_runs_again_and_ckpt.2_is_current" test "$(current)" = ckpt.2

# --- SCR_FLUSH_ASYNC_PERCENT out of range -----------------------------------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_PERCENT=150 -- --steps 1
percent_error="SCR_FLUSH_ASYNC_PERCENT=150 (from environment): expected a share of a core from 0 to 100"
if [ "$mpi_status" -eq 3 ] && [ "$(grep -c "FAIL: SCR_Init" "$mpi_err")" -eq 4 ] &&
   grep -qF "$percent_error" "$mpi_err" && [ ! -s "$mpi_out" ]; then
    ok "SCR_FLUSH_ASYNC_PERCENT_150_fails_SCR_Init_naming_the_parameter"
else
    not_ok "SCR_FLUSH_ASYNC_PERCENT_150_fails_SCR_Init_naming_the_parameter" "$(mpi_diag)"
fi
# a configuration error is said once, by rank 0 (tests/mpi/test_config_errors.sh)
check "SCR_FLUSH_ASYNC_PERCENT_150_is_said_once_by_rank_0" \
    test "$(grep -cF "$percent_error" "$mpi_err")" -eq 1 -a "$(grep -c 'SCR rank [1-9][0-9]*: error' "$mpi_err")" -eq 0

# --- the prefix fills up during the flush ---------------------------------------------
# a 160 KiB prefix: rank 0's 100 KB file fits, rank 1's does not
mpi_reset
cd / || exit 99
if mount -t tmpfs -o size=160k tmpfs "$prefix" 2> /dev/null; then
    trap 'cd /; umount "$prefix" 2> /dev/null; mpi_cleanup' EXIT
    cd "$prefix" || exit 99
    full_args="SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=512KB SCR_COPY_TYPE=SINGLE SCR_LOG_ENABLE=1"
    # shellcheck disable=SC2086
    mpi_run 2 1 $full_args -- --steps 2 --size 100000
    # the background flushes fail and the application goes on; SCR_Finalize
    # flushes the newest checkpoint again, in the foreground, which fails too
    # (checkpoint 2 in cache: no call before SCR_Finalize failed)
    if [ "$mpi_status" -eq 3 ] && grep -q 'FAIL: SCR_Finalize' "$mpi_err" &&
       [ -z "$(mpi_ranks_without "fresh start")" ] && mpi_cache_datasets | grep -q 'scr\.dataset\.2$'; then
        ok "full_prefix:_the_run_writes_both_checkpoints_and_exits_3_from_SCR_Finalize"
    else
        not_ok "full_prefix:_the_run_writes_both_checkpoints_and_exits_3_from_SCR_Finalize" "$(mpi_diag)"
    fi
    check "full_prefix:_the_error_names_the_file_and_says_the_disk_is_full" \
        grep -q "write to $prefix/ckpt.1/rank[01]_f0.dat failed: No space left on device" "$mpi_err"
    check "full_prefix:_the_failed_flush_says_it_removed_the_files_it_had_written" grep -q \
        "flush of dataset 1 (ckpt.1) to $prefix failed; it is not in the index, and the [1-9][0-9]* files\{0,1\} the flush had written there w[ae][sr]e\{0,1\} removed" "$mpi_err"
    check "full_prefix:_the_background_flush_of_ckpt.1_fails" \
        eval "flush_events 1 | grep -q '\"status\":\"failed\".*\"background\":1'"
    check "full_prefix:_no_copy_whole_or_half_written_is_left_on_the_prefix" \
        test -z "$(find "$prefix" -name 'rank*_f0.dat')"
    check "full_prefix:_the_datasets_are_not_in_the_index" \
        test -z "$(mpi_index_id ckpt.1)$(mpi_index_id ckpt.2)"
    cd / && umount "$prefix" && cd "$prefix" || exit 99
    trap mpi_cleanup EXIT
    # shellcheck disable=SC2086
    mpi_run 2 1 $full_args -- --steps 2 --size 100000
    mpi_expect_restart "full_prefix:_with_room_again_the_next_run_restarts_from_the_cached_checkpoint" 2 2
    check "full_prefix:_and_flushes_it" test "$(current)" = ckpt.2
else
    cd "$prefix" || exit 99
    for name in the_run_writes_both_checkpoints_and_exits_3_from_SCR_Finalize \
        the_error_names_the_file_and_says_the_disk_is_full the_failed_flush_says_it_removed_the_files_it_had_written \
        the_background_flush_of_ckpt.1_fails \
        no_copy_whole_or_half_written_is_left_on_the_prefix the_datasets_are_not_in_the_index \
        with_room_again_the_next_run_restarts_from_the_cached_checkpoint and_flushes_it; do
        skip "full_prefix:_$name" "cannot mount a small tmpfs here"
    done
fi

# --- a lost node took the dataset whose flush a crash interrupted -----------------------
# SINGLE: ckpt.1 cannot come back from cache without node1, and its flush
# (at 256 KB/s) had not been concluded when the run died
mpi_reset
lost_args="SCR_COPY_TYPE=SINGLE SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=256KB"
# shellcheck disable=SC2086
mpi_run 2 2 $lost_args -- --steps 2 --size 524288 --crash-after 1 --crash-rank 1
mpi_expect_killed "lost_dataset:_killed_while_the_flush_of_ckpt.1_runs" 1
check "lost_dataset:_the_unfinished_flush_left_its_directory" test -f "$prefix/.scr/scr.dataset.1/claim.scr"
mpi_lose_node 1
# shellcheck disable=SC2086
mpi_run 2 2 $lost_args -- --steps 2 --size 524288
# its directory on the prefix holds no records yet (a background flush
# writes the rank filemaps when it is concluded): nothing to index
mpi_expect_restart "lost_dataset:_the_next_run_starts_fresh_beside_the_unfinished_flush" 0 2
check "lost_dataset:_the_new_ckpt.1_is_indexed_under_a_new_id" test "$(mpi_index_id ckpt.1)" -gt 1

done_testing
