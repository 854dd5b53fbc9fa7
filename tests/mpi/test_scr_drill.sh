#!/bin/sh
# test_scr_drill.sh — scr-drill rehearses a failure and judges the restart:
#   - 4 ranks as 4 nodes with XOR, stopped after checkpoint 2, node 1 lost:
#     the restart comes from ckpt.2 in cache, rebuilt by XOR (words and JSON);
#   - two nodes of the one XOR set lost: nothing in cache survives, so the
#     restart is a fresh start, or ckpt.2 from the prefix when it was
#     flushed; an --expect the restart cannot meet fails with a message;
#   - PARTNER survives two lost nodes that do not hold each other's copies,
#     and not a node with its partner;
#   - a random kill with a seed picks the same rank and moment again;
#   - an ordinary user (nobody) runs a drill with no system file of its own;
#   - a program that writes fewer checkpoints than --stop-after is named;
#   - the library keeps a simulated node's directories inside the job's own
#     (<base>/<user>/scr.<jobid>/sim.<name>), refuses names that would leave
#     it, and SCR_CNTL_BASE from the environment still moves nothing.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr-drill

drill=$top_builddir/cli/scr-drill
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# Bases of their own, without %N (a simulated node needs none), that any
# user may create a directory in, as /dev/shm is; the system file names them.
chmod 0755 "$scratch"
mkdir -m 1777 "$scratch/bases" "$scratch/bases/cntl" "$scratch/bases/cache" || exit 99
chmod 1777 "$scratch/bases" "$scratch/bases/cntl" "$scratch/bases/cache"
printf 'SCR_CNTL_BASE=%s/bases/cntl\nSCR_CACHE_BASE=%s/bases/cache\n' "$scratch" "$scratch" > "$scratch/scr.conf"

app_args="--steps 4 --files 2 --size 3000 --sleep-ms 300"
mpirun_opts="--mpirun ${MPIRUN:-mpirun} --mpirun-arg=--oversubscribe --mpirun-arg=--allow-run-as-root"
runs=0

# drill ARGS...: scr-drill on an empty prefix (a checkpoint left by the last
# drill would be restarted from), with its stdout in $d_out, stderr in $d_err,
# status in $status
drill() {
    mpi_reset
    runs=$((runs + 1))
    d_out=$scratch/drill$runs.out d_err=$scratch/drill$runs.err
    # shellcheck disable=SC2086 # the options are meant to be split
    timeout -k 10 300 "$drill" $mpirun_opts "$@" < /dev/null > "$d_out" 2> "$d_err"
    status=$?
}

# field EXPR: a Python expression over r, the JSON report in $d_out
field() {
    "$py" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$d_out" "$1" 2>&1
}

# check_field NAME EXPR: EXPR is True of the last report
check_field() {
    _got=$(field "$2")
    if [ "$_got" = True ]; then ok "$1"; else
        not_ok "$1" "$2 -> $_got
status $status; stdout: $(cat "$d_out")
stderr: $(tail -n 20 "$d_err")"
    fi
}

# expect_status NAME STATUS TEXT: the drill ended with STATUS, saying TEXT on stderr
expect_status() {
    if [ "$status" -eq "$2" ] && grep -qF -- "$3" "$d_err"; then ok "$1"; else
        not_ok "$1" "expected status $2 and '$3'; got $status
stderr: $(cat "$d_err")"
    fi
}

# no_sim_dirs_left: the drill removed its job directories
no_sim_dirs_left() {
    test -z "$(find "$scratch/bases" -name 'sim.*' 2> /dev/null)"
}

# --- a program that writes too few checkpoints (refused arguments: tests/cli/test_scr_drill_args.sh)
drill --ranks 2 --stop-after 3 --json -- "$mpi_app" --steps 2
expect_status "a_program_that_writes_fewer_checkpoints_than_stop_after_is_reported" 1 \
    "the first run ended (status 0) after 2 checkpoints, before checkpoint 3"

# --- XOR, stopped after checkpoint 2, one node lost ----------------------------------------
drill --ranks 4 --nodes 4 --stop-after 2 --lose 1 --json --log-dir "$scratch/logs1" -- "$mpi_app" $app_args
check_field "losing_one_node_restarts_from_ckpt_2_as_expected" \
    'r["as_expected"] is True and r["restart"]["dataset"] == "ckpt.2" and r["restart"]["source"] == "cache"'
check "and_the_drill_exits_0" test "$status" -eq 0
check_field "the_expectation_is_ckpt_2_rebuilt_by_xor" \
    'r["expected"] == {"dataset": "ckpt.2", "source": "cache", "rebuilt_by": "XOR", "given": False}'
check_field "the_report_says_xor_rebuilt_one_rank_of_ckpt_2" \
    '[(e["dataset"], e["scheme"], e["ok"], e["ranks_rebuilt"]) for e in r["rebuilt"]] == [("ckpt.2", "XOR", True, 1)] and r["fetched"] == []'
check_field "the_first_run_was_stopped_after_checkpoint_2" \
    'r["first_run"]["ended"] == "stop_after" and r["first_run"]["stop_after"] == 2 and r["first_run"]["checkpoints"] == 2 and r["lost_nodes"] == ["node1"]'
check "the_application_itself_restarted_from_step_2_and_finished" \
    grep -c "restarted from step 2" "$scratch/logs1/run2.log"
check "the_simulated_nodes_directories_are_removed_afterwards" no_sim_dirs_left

drill --ranks 4 --nodes 4 --stop-after 2 --lose 1 -- "$mpi_app" $app_args
if [ "$status" -eq 0 ] && grep -qx "restart: ckpt.2 from the cache, second run status 0" "$d_out" &&
   grep -qx "rebuilt: ckpt.2 by XOR ok (1 rank rebuilt)" "$d_out" &&
   grep -qx "verdict: the restart was as expected" "$d_out"; then
    ok "the_words_say_the_same"
else
    not_ok "the_words_say_the_same" "status $status; $(cat "$d_out" "$d_err")"
fi

# --- two nodes of the one XOR set lost ----------------------------------------------------
drill --ranks 4 --nodes 4 --stop-after 2 --lose 1,2 --json -- "$mpi_app" $app_args
check_field "losing_two_members_of_an_xor_set_without_a_flush_expects_a_fresh_start" \
    'r["as_expected"] is True and r["expected"]["dataset"] is None and r["expected"]["source"] == "none" and r["restart"]["dataset"] is None'
check_field "and_the_failed_rebuild_is_reported" \
    '[(e["dataset"], e["ok"]) for e in r["rebuilt"]] == [("ckpt.2", False)]'

drill --ranks 4 --nodes 4 --stop-after 2 --lose 1,2 --expect ckpt.2 --json -- "$mpi_app" $app_args
check_field "an_expectation_the_restart_cannot_meet_is_reported" \
    'r["as_expected"] is False and "expected a restart from ckpt.2, but it was a fresh start" in r["reason"]'
expect_status "and_the_drill_exits_1_saying_so" 1 "the restart was not as expected: expected a restart from ckpt.2"

export SCR_FLUSH=1
drill --ranks 4 --nodes 4 --stop-after 2 --lose 1,2 --json -- "$mpi_app" $app_args
unset SCR_FLUSH
check_field "with_every_checkpoint_flushed_the_restart_falls_back_to_the_prefix" \
    'r["as_expected"] is True and r["expected"]["source"] == "prefix" and r["restart"] == {"dataset": "ckpt.2", "source": "prefix", "status": 0}'
check_field "and_the_fetch_is_reported" '[(e["dataset"], e["ok"]) for e in r["fetched"]][-1] == ("ckpt.2", True)'

# --- PARTNER: a node and the one holding its copies cannot both go ------------------------------
export SCR_COPY_TYPE=PARTNER
drill --ranks 4 --nodes 4 --stop-after 2 --lose 1,3 --json -- "$mpi_app" $app_args
check_field "partner_survives_two_nodes_that_do_not_hold_each_others_copies" \
    'r["as_expected"] is True and r["expected"]["rebuilt_by"] == "PARTNER" and r["restart"]["dataset"] == "ckpt.2"'
drill --ranks 4 --nodes 4 --stop-after 2 --lose 1,2 --json -- "$mpi_app" $app_args
check_field "partner_does_not_survive_a_node_and_its_partner" \
    'r["as_expected"] is True and r["expected"]["source"] == "none" and r["restart"]["dataset"] is None'
unset SCR_COPY_TYPE

# --- a random kill, repeated by its seed ---------------------------------------------------
long_args="--steps 30 --files 1 --size 2000 --sleep-ms 200"
drill --ranks 4 --nodes 2 --kill-random --seed 11 --kill-window 4 --json -- "$mpi_app" $long_args
check_field "a_random_kill_is_judged_as_expected" \
    'r["as_expected"] is True and r["first_run"]["ended"] == "kill_random" and r["first_run"]["kill_seconds"] >= r["first_run"]["kill_planned_seconds"]'
first=$(field '(r["first_run"]["seed"], r["first_run"]["killed_rank"], r["first_run"]["kill_planned_seconds"])')
drill --ranks 4 --nodes 2 --kill-random --seed 11 --kill-window 4 --json -- "$mpi_app" $long_args
again=$(field '(r["first_run"]["seed"], r["first_run"]["killed_rank"], r["first_run"]["kill_planned_seconds"])')
if [ "$first" = "$again" ] && [ "$(field 'r["as_expected"]')" = True ]; then
    ok "the_same_seed_kills_the_same_rank_at_the_same_moment"
else
    not_ok "the_same_seed_kills_the_same_rank_at_the_same_moment" "first $first, again $again; $(cat "$d_out" "$d_err")"
fi

# --- as an ordinary user ------------------------------------------------------------------------
if command -v setpriv > /dev/null 2>&1; then
    mkdir -p "$scratch/nobody/prefix" "$scratch/nobody/tmp"
    chown -R 65534:65534 "$scratch/nobody"
    as_nobody() {
        runs=$((runs + 1))
        d_out=$scratch/drill$runs.out d_err=$scratch/drill$runs.err
        # shellcheck disable=SC2086
        (cd "$scratch/nobody/prefix" && timeout -k 10 300 setpriv --reuid=65534 --regid=65534 --clear-groups \
            env HOME="$scratch/nobody" TMPDIR="$scratch/nobody/tmp" "$drill" --mpirun "${MPIRUN:-mpirun}" \
            --mpirun-arg=--oversubscribe --prefix "$scratch/nobody/prefix" "$@") < /dev/null > "$d_out" 2> "$d_err"
        status=$?
    }
    as_nobody --ranks 2 --nodes 2 --stop-after 1 --lose 0 --json -- "$mpi_app" $app_args
    check_field "an_ordinary_user_runs_a_drill_and_restarts_as_expected" \
        'r["as_expected"] is True and r["restart"]["dataset"] == "ckpt.1" and r["restart"]["source"] == "cache" and r["expected"]["rebuilt_by"] == "XOR"'
    check "with_its_directories_in_the_sites_bases" test -d "$scratch/bases/cntl/nobody"
else
    skip "an_ordinary_user_runs_a_drill_and_restarts_as_expected" "no setpriv"
    skip "with_its_directories_in_the_sites_bases" "no setpriv"
fi

# --- the library's side: simulated nodes stay inside the job's directories -------------------------
mpi_reset
user=$(id -un)
mpi_run 1 1 SCR_SIM_NODE=nodeA -- --steps 1
check "a_simulated_node_gets_a_control_directory_inside_the_jobs" \
    test -d "$scratch/bases/cntl/$user/scr.$SCR_JOB_ID/sim.nodeA"
check "and_a_cache_directory_inside_the_jobs" test -d "$scratch/bases/cache/$user/scr.$SCR_JOB_ID/sim.nodeA"

mpi_run 1 1 SCR_SIM_NODE=../escape -- --steps 1
mpi_expect_failure "a_simulated_node_that_leads_out_is_refused" \
    "SCR_SIM_NODE='../escape' cannot name a directory: it contains '/'"
check "and_nothing_is_made_where_it_leads" test -z "$(find "$scratch" -name escape)"
mpi_run 1 1 SCR_SIM_NODE=/ -- --steps 1
mpi_expect_failure "a_simulated_node_named_slash_is_refused" "SCR_SIM_NODE='/' cannot name a directory"
mpi_run 1 1 SCR_SIM_NODE= -- --steps 1
mpi_expect_failure "an_empty_simulated_node_is_refused" "SCR_SIM_NODE='' cannot name a directory: it is empty"
mpi_run 1 1 SCR_SIM_NODE=.. -- --steps 1
mpi_expect_failure "a_simulated_node_of_dots_is_refused" "SCR_SIM_NODE='..' cannot name a directory"
long=$(printf 'n%.0s' $(seq 1 65))
mpi_run 1 1 "SCR_SIM_NODE=$long" -- --steps 1
mpi_expect_failure "a_simulated_node_name_over_64_characters_is_refused" \
    "is too long for a simulated node's name (at most 64 characters)"

mpi_run 1 1 SCR_DRILL_STOP_AFTER=two -- --steps 1
mpi_expect_failure "a_drill_stop_that_is_not_a_number_stops_SCR_Init" \
    "SCR_DRILL_STOP_AFTER='two' is not a number of checkpoints (1 or more)"
mpi_run 2 2 SCR_DRILL_STOP_AFTER=1 -- --steps 3
mpi_expect_killed "SCR_DRILL_STOP_AFTER_kills_every_rank_after_that_checkpoint" 1
mpi_run 2 2 -- --steps 3
mpi_expect_restart "and_the_next_run_restarts_from_that_checkpoint" 1 3

mpi_reset # a fresh start: the 2-rank checkpoints would be read whole by 1 rank
mpi_run 1 1 SCR_SIM_NODE=nodeB "SCR_CNTL_BASE=$scratch/moved" -- --steps 1
mpi_expect_lines "an_environment_naming_another_control_base_still_runs" "finished step 1"
check "but_the_control_base_stays_the_sites" \
    test ! -e "$scratch/moved" -a -d "$scratch/bases/cntl/$user/scr.$SCR_JOB_ID/sim.nodeB"
check "and_it_says_so" grep -q "SCR_CNTL_BASE may only be set by the system configuration; ignored" "$mpi_err"

done_testing
