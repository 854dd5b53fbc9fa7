#!/bin/sh
# test_scr_log.sh — scr-log shows a prefix's events: the table, --json (read
# back by a real JSON parser), every filter (--job, --dataset by id and by
# name, --event repeated and as a list, --since/--until as epoch and ISO
# 8601), damaged lines named by number and skipped, usage errors, a prefix
# without a log; and scr-list-down-nodes --log records down nodes there.
. "$top_srcdir/tests/tap.sh"

log="$top_builddir/cli/scr-log"
down="$top_builddir/cli/scr-list-down-nodes"
py=/usr/bin/python3
[ -x "$py" ] || py=${PYTHON3:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-log-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(SCR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset SLURM_JOB_ID SLURM_NODELIST SLURM_JOB_NODELIST
export SLURM_CONF="$tmp/no-slurm.conf"
p=$tmp/prefix
mkdir -p "$p/.scr"
# the golden events (job 4242), then one of job 7, a garbage line, and a
# last line cut short by a crash
cp "$top_srcdir/tests/data/events/events.jsonl" "$p/.scr/events.jsonl"
cat >> "$p/.scr/events.jsonl" <<'LINES'
{"time":"2026-11-25T10:00:00Z","epoch":1795600800,"job":"7","user":"bob","host":"n1","event":"flush","status":"ok","dataset_id":14,"dataset_name":"ckpt.14","bytes":2048,"seconds":1.000000,"bandwidth":2048,"reason":null}
this is not json
LINES
printf '%s' '{"time":"2026-11-25T10:01:00Z","epoch":1795600860,"job":"7","event":"fl' >> "$p/.scr/events.jsonl"

run() {
    "$log" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}
# ids: the dataset_id (or event name when none) of each object --json printed, comma-separated
ids() {
    "$py" -c '
import json, sys
ev = json.load(open(sys.argv[1]))
assert isinstance(ev, list)
print(",".join(str(e["dataset_id"]) if e["dataset_id"] is not None else e["event"] for e in ev))' "$tmp/out"
}
ids_are() {
    got=$(ids 2>&1)
    if [ "$got" = "$1" ]; then ok "$2"; else not_ok "$2" "got '$got', want '$1'"; fi
}

run --prefix "$p"
check "the_table_exits_0_despite_damaged_lines" test "$status" -eq 0
check "the_table_has_a_header_and_six_events" test "$(wc -l < "$tmp/out")" -eq 7
check "the_table_shows_the_flush_with_its_size" grep -q "flush .* ok .* 13 ckpt.13 .* 1.0 GiB" "$tmp/out"
check "the_table_shows_the_event_fields_and_reason" grep -q "attempt=1 marked=FAILED reason: could not be read back" "$tmp/out"
check "the_garbage_line_is_named_by_number" grep -q "events.jsonl:7: damaged line skipped" "$tmp/err"
check "the_cut_line_is_named_by_number" grep -q "events.jsonl:8: damaged line skipped.*no end of line" "$tmp/err"
check "only_the_two_damaged_lines_are_reported" test "$(wc -l < "$tmp/err")" -eq 2

run --prefix "$p" --json
check "json_exits_0" test "$status" -eq 0
ids_are "12,13,13,halt,node_down,14" "json_is_an_array_of_every_intact_event_in_order"
run --prefix "$p" --json --job 7
ids_are "14" "--job_keeps_that_job's_events"
run --prefix "$p" --json --dataset 13
ids_are "13,13" "--dataset_by_id"
run --prefix "$p" --json --dataset ckpt.14
ids_are "14" "--dataset_by_name"
run --prefix "$p" --json --event init --event halt
ids_are "12,halt" "--event_repeated"
run --prefix "$p" --json --event fetch,node_down
ids_are "13,node_down" "--event_as_a_comma_list"
run --prefix "$p" --json --since 1795600122 --until 1795600244
ids_are "13,halt,node_down" "--since_and_--until_as_epoch_seconds_are_inclusive"
run --prefix "$p" --json --since 2026-11-25T09:49:00Z --until '2026-11-25 10:00'
ids_are "halt,node_down,14" "--since_and_--until_as_ISO_8601"
run --prefix "$p" --json --since 2026-11-25T11:49:00+02:00 --until 2026-11-25T09:50:00Z
ids_are "halt" "an_ISO_8601_offset_is_honoured"
run --prefix "$p" --json --job nobody
check "no_match_is_an_empty_array" test "$(tr -d ' \n' < "$tmp/out")" = "[]"
run --prefix "$p" --event flush --job 7
check "filters_apply_to_the_table_too" test "$(wc -l < "$tmp/out")" -eq 2

(cd "$p" && "$log" --json > "$tmp/out" 2> /dev/null)
ids_are "12,13,13,halt,node_down,14" "the_prefix_defaults_to_the_current_directory"
SCR_PREFIX=$p run --json --job 7
ids_are "14" "or_SCR_PREFIX"

run --prefix "$p" --since yesterday
check "a_bad_time_is_a_usage_error" test "$status" -eq 2
check "naming_the_option_and_the_forms" grep -q -- "--since wants seconds since the epoch or an ISO 8601 time" "$tmp/err"
run --prefix "$p" --bogus
check "an_unknown_option_is_a_usage_error" test "$status" -eq 2
run --prefix "$tmp/empty"
check "a_prefix_without_a_log_exits_1" test "$status" -eq 1
check "saying_nothing_was_recorded" grep -q "no events recorded on" "$tmp/err"
run --help
check "help_exits_0" test "$status" -eq 0

# scr-list-down-nodes --log: a node_down event per down node, with its reason
q=$tmp/down
mkdir -p "$q/.scr"
SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 SCR_JOB_ID=55 "$down" --no-slurm --log --prefix "$q" \
    --exclude 'n[2,4]' 'n[1-4]' > "$tmp/dout" 2> "$tmp/derr"
check "list-down-nodes_--log_exits_as_without_it" test "$?" -eq 1
check "and_prints_the_same" test "$(cat "$tmp/dout")" = "n[2,4]"
run --prefix "$q" --json --event node_down
check "each_down_node_is_an_event" test "$("$py" -c '
import json, sys
print(" ".join("%s:%s:%s" % (e["node"], e["job"], bool(e["reason"])) for e in json.load(open(sys.argv[1]))))' "$tmp/out")" = "n2:55:True n4:55:True"
check "and_a_line_of_the_text_log" test "$(grep -c 'event=node_down' "$q/.scr/log")" -eq 2
# --secs: SCR's meaning, how long the job ran, as the events' seconds
SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 SCR_JOB_ID=56 "$down" --no-slurm --log --secs 3600 --prefix "$q" \
    --exclude n3 'n[1-4]' > /dev/null 2> "$tmp/derr"
run --prefix "$q" --json --event node_down --job 56
check "list-down-nodes_--secs_is_the_run_time_of_the_events" test "$("$py" -c '
import json, sys
print(" ".join("%s:%s" % (e["node"], e["seconds"]) for e in json.load(open(sys.argv[1]))))' "$tmp/out")" = "n3:3600.0"
SCR_LOG_ENABLE=0 "$down" --no-slurm --log --prefix "$q" --exclude n3 'n[1-4]' > /dev/null 2> "$tmp/derr"
check "without_SCR_LOG_ENABLE_--log_says_nothing_was_recorded" grep -q "nothing recorded" "$tmp/derr"
check "and_records_nothing" test "$(grep -c node_down "$q/.scr/events.jsonl")" -eq 3

done_testing
