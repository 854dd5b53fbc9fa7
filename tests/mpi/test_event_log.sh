#!/bin/sh
# test_event_log.sh — with SCR_LOG_ENABLE=1 a real job's events reach the
# text log (<prefix>/.scr/log) and the JSON lines (<prefix>/.scr/events.jsonl):
# checkpoints, redundancy, evictions and flushes; a restart after a lost node
# logs init from the cache and the rebuild; a restart after losing every
# node logs init from the prefix, a fetch that fails (marked FAILED) and the
# fallback to an older dataset; a halt with its reason; finalize. With the
# default SCR_LOG_ENABLE=0 nothing is written. scr-scavenge records its copy
# and scr-run its relaunch.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup event-log

py=/usr/bin/python3
[ -x "$py" ] || py=python3
jsonl=$prefix/.scr/events.jsonl
txt=$prefix/.scr/log

# query EXPR: evaluates a Python expression over ev, the list of events
# parsed from events.jsonl (every line must parse), and prints it
query() {
    "$py" -c '
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
print(eval(sys.argv[2]))' "$jsonl" "$1"
}

# check_query NAME EXPR: EXPR is True
check_query() {
    _got=$(query "$2" 2>&1)
    if [ "$_got" = True ]; then ok "$1"; else not_ok "$1" "$2 -> $_got"; fi
}

log="SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0"

# 1. four checkpoints of 4 ranks on 2 nodes, XOR, every second one flushed
mpi_run 4 2 $log SCR_FLUSH=2 -- --steps 4 --files 2 --size 4000 --crash-after 3 --crash-rank 3
mpi_expect_killed "the_first_run_is_killed_after_checkpoint_3" 3
# what one checkpoint holds: the files of checkpoint 2 on the prefix
bytes=$(cat "$prefix"/ckpt.2/* | wc -c)
check "the_json_lines_exist" test -s "$jsonl"
check "the_text_log_exists" test -s "$txt"
check_query "every_line_has_the_schema_fields" \
  'all(set(["time","epoch","job","user","host","event","status","dataset_id","dataset_name","bytes","seconds","bandwidth","reason"]) <= set(e) for e in ev)'
check_query "init_says_there_is_nothing_to_restart_from" \
  '[e["restart_source"] for e in ev if e["event"]=="init"] == ["none"]'
check_query "three_checkpoints_start_and_complete" \
  '[e["dataset_id"] for e in ev if e["event"]=="checkpoint_start"] == [1,2,3] and [e["dataset_id"] for e in ev if e["event"]=="checkpoint_complete" and e["status"]=="ok"] == [1,2,3]'
check_query "a_checkpoint_complete_has_bytes_seconds_and_bandwidth" \
  'all(e["bytes"]=='"$bytes"' and e["seconds"]>=0 and e["dataset_name"]=="ckpt.%d" % e["dataset_id"] for e in ev if e["event"]=="checkpoint_complete")'
check_query "each_checkpoint_is_encoded_with_xor" \
  '[(e["dataset_id"], e["scheme"]) for e in ev if e["event"]=="encode"] == [(1,"XOR"),(2,"XOR"),(3,"XOR")]'
check_query "checkpoint_2_is_flushed_with_its_bandwidth" \
  '[(e["dataset_id"], e["status"], e["bytes"]) for e in ev if e["event"]=="flush"] == [(2,"ok",'"$bytes"')] and all(e["bandwidth"]>0 for e in ev if e["event"]=="flush")'
check_query "the_older_checkpoints_are_evicted_from_cache" \
  '[e["dataset_id"] for e in ev if e["event"]=="evict"] == [1,2]'
check_query "the_job_user_and_host_are_recorded" \
  'all(e["job"]=="'"$SCR_JOB_ID"'" and e["user"] and e["host"] for e in ev)'
check "the_text_log_has_the_flush_line" \
  grep -q "event=flush status=ok dataset=2 name=ckpt.2 bytes=$bytes seconds=" "$txt"

# scr-scavenge, a command acting on the prefix, records its copy too
(cd "$prefix" && SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 "$top_builddir/cli/scr-scavenge" --node node0 \
    > "$scratch/scavenge.out" 2>&1)
check_query "scr-scavenge_records_its_copy_of_checkpoint_3" \
  '[(e["dataset_id"], e["node"], e["status"], e["bytes"] > 0) for e in ev if e["event"]=="scavenge"] == [(3,"node0","ok",True)]'

# 2. node 1 is lost: the next run rebuilds checkpoint 3 from XOR in cache
mpi_lose_node 1
mpi_run 4 2 $log SCR_FLUSH=2 -- --steps 4 --files 2 --size 4000
mpi_expect_restart "the_second_run_restarts_from_checkpoint_3" 3 4
check_query "init_of_the_second_run_restarts_from_the_cache" \
  '[(e["restart_source"], e["dataset_id"], e["dataset_name"]) for e in ev if e["event"]=="init"][1] == ("cache", 3, "ckpt.3")'
check_query "the_rebuild_of_checkpoint_3_names_the_two_lost_ranks" \
  '[(e["dataset_id"], e["status"], e["ranks_rebuilt"]) for e in ev if e["event"]=="rebuild"] == [(3,"ok",2)]'
check_query "checkpoint_4_is_flushed_and_the_run_finalizes" \
  '[e["dataset_id"] for e in ev if e["event"]=="flush"] == [2,4] and [e["status"] for e in ev if e["event"]=="finalize"] == ["ok"]'
check "the_text_log_has_init_from_the_cache" grep -q "event=init status=ok dataset=3 name=ckpt.3 .*restart_source=cache" "$txt"

# 3. every node is lost and checkpoint 4 on the prefix is damaged: its
# fetch fails, it is marked FAILED, and checkpoint 2 is fetched instead
mpi_lose_all_nodes
echo garbage > "$prefix/ckpt.4/rank0_f0.dat"
mpi_run 4 2 $log SCR_FLUSH=2 -- --steps 5 --files 2 --size 4000
check_query "init_of_the_third_run_would_restart_from_the_prefix" \
  '[(e["restart_source"], e["dataset_id"]) for e in ev if e["event"]=="init"][2] == ("prefix", 4)'
check_query "the_fetch_of_checkpoint_4_fails_and_it_is_marked_failed" \
  '[(e["dataset_id"], e["status"], e["marked"], e["attempt"]) for e in ev if e["event"]=="fetch" and e["status"]=="failed"] == [(4,"failed","FAILED",1)] and all(e["reason"] for e in ev if e["event"]=="fetch" and e["status"]=="failed")'
check_query "the_fallback_fetches_checkpoint_2" \
  '[(e["dataset_id"], e["attempt"], e["bytes"]) for e in ev if e["event"]=="fetch" and e["status"]=="ok"] == [(2,2,'"$bytes"')]'
check "the_text_log_has_the_failed_fetch" grep -q "event=fetch status=failed dataset=4 .*marked=FAILED" "$txt"

# 4. a halt condition is logged with its reason
"$top_builddir/cli/scr-halt" --checkpoints 1 "$prefix" > /dev/null 2>&1
mpi_run 4 2 $log SCR_FLUSH=2 -- --steps 9 --files 2 --size 4000
check_query "the_halt_is_logged_with_its_reason" \
  'len([e for e in ev if e["event"]=="halt" and e["reason"]]) == 1'
check_query "every_json_line_parses_and_lines_are_in_time_order" \
  'all(a["epoch"] <= b["epoch"] for a, b in zip(ev, ev[1:]))'
check "text_and_json_have_one_line_per_event" test "$(wc -l < "$txt")" -eq "$(wc -l < "$jsonl")"

# 5. without SCR_LOG_ENABLE nothing is written
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2
mpi_expect_restart "a_run_without_logging_finishes" 0 2
check "without_SCR_LOG_ENABLE_there_is_no_json_log" test ! -e "$jsonl"
check "without_SCR_LOG_ENABLE_there_is_no_text_log" test ! -e "$txt"

# 6. SCR_LOG_JSON_ENABLE=0 and SCR_LOG_TXT_ENABLE=0 each turn their file off
mpi_run 4 2 SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 SCR_LOG_JSON_ENABLE=0 SCR_FLUSH=1 -- --steps 3
check "SCR_LOG_JSON_ENABLE_0_writes_no_json" test ! -e "$jsonl"
check "the_text_log_is_still_written" test -s "$txt"
rm -f "$txt"
mpi_run 4 2 SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 SCR_LOG_TXT_ENABLE=0 SCR_FLUSH=1 -- --steps 4
check "SCR_LOG_TXT_ENABLE_0_writes_no_text_log" test ! -e "$txt"
check "the_json_is_still_written" test -s "$jsonl"

# 7. a prefix whose log cannot be written warns once and the run goes on
mpi_reset
mkdir -p "$prefix/.scr"
mkdir "$jsonl"   # a directory where the file should be: open() fails
mpi_run 4 2 SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 SCR_LOG_TXT_ENABLE=0 SCR_FLUSH=1 -- --steps 3
mpi_expect_restart "a_run_whose_log_cannot_be_written_finishes" 0 3
check "it_warns_once_about_the_log" test "$(grep -c 'could not open the event log' "$mpi_err")" -eq 1

# 8. scr-run, the relaunch loop for launchers other than srun, records its relaunch
mpi_reset
(cd "$prefix" && SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 timeout -k 10 120 "$top_builddir/cli/scr-run" --delay 0 \
    --runs 2 --no-scavenge sh "$mpi_sim_run" -n 4 -N 2 -- "$mpi_app" --steps 3 --crash-after 1 --crash-rank 1) \
    < /dev/null > "$scratch/scr-run.out" 2>&1
check_query "scr-run_records_its_relaunch_between_the_two_runs" \
  '[(e["event"], e.get("run"), e.get("restart_source")) for e in ev if e["event"] in ("init","relaunch")] == [("init",None,"none"),("relaunch",2,None),("init",None,"cache")]'

done_testing
