#!/bin/sh
# test_json_output.sh — every command's --json output is one JSON document
# (scr-run's: one per line) that a real JSON parser reads, with the fields
# its man page promises; progress lines go to stderr and never into it.
#
# 4 ranks on 2 simulated nodes leave checkpoint 1 in cache (SCR_FLUSH=0);
# scr-scavenge --status --json and scr-scavenge --json copy it (node 0's
# copy, shorter than 5 s, shows no progress; node 1's shows it every 1 ms
# through SCR_PROGRESS_INTERVAL),
# scr-index --add --json indexes it, scr-index --list --json lists it;
# then scr-halt, scr-list-down-nodes, scr-print and scr-run in JSON. A
# second job at SCR_DEBUG=1 flushes, and rank 0 reports the flush's
# progress on stderr. Last, under `script` (a terminal), scr-scavenge
# rewrites one progress line in place while stdout stays parseable.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup json

py=/usr/bin/python3
[ -x "$py" ] || py=${PYTHON3:-}
if [ -z "$py" ]; then
    skip "json_output" "python3 not found"
    done_testing
    exit
fi
cli=$top_builddir/cli
jout=$scratch/cmd.out
jerr=$scratch/cmd.err

# json NAME FILE EXPR: FILE parses as JSON and EXPR holds of it (as d)
json() {
    if "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2> "$scratch/py.err"; then
        ok "$1"
    else
        not_ok "$1" "expected $3 of: $(cat "$2") $(cat "$scratch/py.err") stderr: $(cat "$jerr")"
    fi
}

# json_lines NAME FILE EXPR: every line of FILE parses; EXPR holds of the list (as d)
json_lines() {
    if "$py" -c 'import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2> "$scratch/py.err"; then
        ok "$1"
    else
        not_ok "$1" "expected $3 of: $(cat "$2") $(cat "$scratch/py.err") stderr: $(cat "$jerr")"
    fi
}

mpi_run 4 2 SCR_FLUSH=0 -- --steps 1 --files 2 --size 300000
mpi_expect_restart "a_job_leaves_checkpoint_1_in_cache" 0 1
mkdir -p "$scratch/saved" && cp -a "$scratch/cache" "$scratch/cntl" "$scratch/saved/"

# --- scr-scavenge ---------------------------------------------------------------------
"$cli/scr-scavenge" --node node0 --status --json > "$jout" 2> "$jerr"
json "scavenge_status_json_names_the_dataset_that_needs_a_copy" "$jout" \
    'd["dataset"] == 1 and d["needs_copy"] is True and d["on_prefix"] is False and d["name"] == "ckpt.1"'

"$cli/scr-scavenge" --node node0 --json > "$jout" 2> "$jerr"
check "a_copy_shorter_than_5_s_shows_no_progress_off_a_terminal" test ! -s "$jerr"
SCR_PROGRESS_INTERVAL=0.001 "$cli/scr-scavenge" --node node1 --json > "$jout" 2> "$jerr"
json "scavenge_json_reports_the_copy" "$jout" \
    'd["outcome"] == "copied" and d["dataset"] == 1 and d["ranks"] == 2 and d["files_copied"] >= 4 and d["bytes_copied"] >= 4 * 300000 and d["files_failed"] == 0'
check "scavenge_progress_lines_go_to_stderr" grep -q "^scr-scavenge: .* of .* MiB (.*%), .* MiB/s, ETA " "$jerr"
check "and_end_with_the_totals" grep -q "^scr-scavenge: done, [0-9.]* MiB in " "$jerr"

"$cli/scr-scavenge" --node node0 --json > "$jout" 2> "$jerr"
json "a_second_scavenge_reports_the_dataset_on_the_prefix" "$jout" 'd["outcome"] == "on_prefix"'
"$cli/scr-scavenge" --node node0 --status --json > "$jout" 2> "$jerr"
json "and_status_says_no_copy_is_needed" "$jout" 'd["needs_copy"] is False and d["on_prefix"] is True'

# --- scr-index ------------------------------------------------------------------------
SCR_PROGRESS_INTERVAL=0.0001 "$cli/scr-index" --add scr.dataset.1 --json > "$jout" 2> "$jerr"
json "index_add_json_reports_the_dataset_complete" "$jout" \
    'd["indexed"] is True and d["dataset"] == 1 and d["complete"] is True and d["missing_ranks"] == []'
check "index_add_shows_the_ranks_read_on_stderr" grep -q "^scr-index: reading rank filemaps: done, 4 ranks in" "$jerr"
"$cli/scr-index" --list --json > "$jout" 2> "$jerr"
json "index_list_json_lists_it" "$jout" 'any(x.get("name") == "ckpt.1" for x in d["datasets"])'

# --- scr-halt -------------------------------------------------------------------------
"$cli/scr-halt" --checkpoints 2 --json > "$jout" 2> "$jerr"
json "halt_json_reports_the_update" "$jout" \
    'd["action"] == "updated" and d["conditions"]["checkpoints_left"] == 2 and d["halts_now"] is False'
"$cli/scr-halt" --list --json > "$jout" 2> "$jerr"
json "halt_list_json_reads_it_back" "$jout" \
    'd["action"] == "list" and d["conditions"]["checkpoints_left"] == 2 and d["conditions"]["exit_reason"] == "SCR_FINALIZE_CALLED"'
"$cli/scr-halt" --after +1h --json > "$jout" 2> "$jerr"
json "halt_json_gives_times_in_seconds_since_the_epoch" "$jout" \
    'abs(d["conditions"]["exit_after"] - (__import__("time").time() + 3600)) < 60'
"$cli/scr-halt" --remove --json > "$jout" 2> "$jerr"
json "halt_remove_json_says_it_was_removed" "$jout" 'd["action"] == "removed" and d["removed"] is True'

# --- scr-list-down-nodes, scr-print ---------------------------------------------------------
SLURM_CONF=$scratch/none "$cli/scr-list-down-nodes" --no-slurm --down n2 --json 'n[1-3]' > "$jout" 2> "$jerr"
json "list_down_nodes_json_has_every_verdict" "$jout" \
    'd["down"] == 1 and [n["node"] for n in d["nodes"] if n["down"]] == ["n2"]'
"$cli/scr-print" --json "$prefix/.scr/index.scr" > "$jout" 2> "$jerr"
json "print_json_shows_the_index" "$jout" '"DSET" in json.dumps(d) or "dataset" in json.dumps(d).lower()'

# --- scr-run: one object per decision, the job's output on stderr ---------------------------
"$cli/scr-run" --json --runs 2 --delay 0 --no-scavenge sh -c 'echo noise from the job; exit 1' > "$jout" 2> "$jerr"
json_lines "run_json_is_one_object_per_decision" "$jout" \
    '[x["event"] for x in d] == ["run", "run", "stop"] and d[0]["exit_status"] == 1 and d[2]["verdict"] == "no_runs_left"'
check "and_the_job's_output_goes_to_stderr" grep -q "noise from the job" "$jerr"

# --- a flush at SCR_DEBUG=1: rank 0 reports it -----------------------------------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_DEBUG=1 SCR_PROGRESS_INTERVAL=0.000001 -- --steps 1 --files 2 --size 300000
mpi_expect_restart "a_job_flushes_at_SCR_DEBUG_1" 0 1
check "rank_0_reports_the_flush's_progress_in_ranks" grep -q "flush of dataset 1: done, 4 ranks in" "$mpi_err"
mpi_run 4 2 SCR_FLUSH=1 -- --steps 1 --files 2 --size 300000
check "and_says_nothing_of_it_at_SCR_DEBUG_0" test "$(grep -c "flush of dataset" "$mpi_err")" -eq 0

# --- on a terminal: one line rewritten in place -------------------------------------------------
if ! command -v script > /dev/null 2>&1; then
    skip "on_a_terminal_the_progress_line_is_rewritten_in_place" "script (util-linux) not found"
else
    mpi_reset
    rm -rf "$scratch/cache" "$scratch/cntl" && cp -a "$scratch/saved/cache" "$scratch/saved/cntl" "$scratch/"
    # stderr is the terminal script makes (what it shows lands in tty.err);
    # stdout goes to a file of its own
    SCR_JOB_ID=${SCR_JOB_ID%%.*} SCR_PROGRESS_INTERVAL=0.001 script -qec \
        "'$cli/scr-scavenge' --node node0 --json > '$jout'" /dev/null > "$scratch/tty.err" 2>&1
    check "on_a_terminal_the_progress_line_is_rewritten_in_place" \
        grep -q "$(printf '\r')scr-scavenge: .*ETA" "$scratch/tty.err"
    json "and_stdout_stays_pure_json" "$jout" 'd["outcome"] == "copied"'
fi

done_testing
