#!/bin/sh
# test_flush_async.sh — SCR_FLUSH_ASYNC=1: the flush goes on in a thread of
# each node while the application computes, and is concluded at a later
# API call: then the dataset is indexed and current, its rank filemaps and
# summary on the prefix, the node's transfer file says DONE, and the flush
# event says it ran in the background. SCR_FLUSH_TYPE=PTHREAD asks for the
# same. SCR_Finalize finishes the newest checkpoint's flush; a halt still
# exits cleanly; a dataset being flushed is not evicted (SCR_CACHE_SIZE=1
# waits for it). A crash while the flush runs leaves the previous flushed
# checkpoint current and the partial one unindexed, and the scavenge redoes
# it. A prefix that fills up during the flush fails it: it is taken back,
# not indexed, and the run goes on from cache.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-async

events=$scratch/prefix/.scr/events.jsonl
# the line numbers of the events named $1 about dataset $2 in events.jsonl
event_lines() {
    grep -n "\"event\":\"$1\"" "$events" | grep "\"dataset_id\":$2," | cut -d: -f1 | tr '\n' ' '
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

done_testing
