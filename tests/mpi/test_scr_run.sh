#!/bin/sh
# test_scr_run.sh — scr-run: a job killed mid-run is started again and
# finishes from the cache; a finished job is not started again; a halt set
# with scr-halt stops the loop; when the runs are used up, the newest
# checkpoint left in cache is scavenged to the prefix and indexed; usage
# errors and a damaged halt file stop it with a clear message.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr-run

run_cmd=$top_builddir/cli/scr-run
index=$top_builddir/cli/scr-index
halt_cmd=$top_builddir/cli/scr-halt
export PATH="$top_builddir/cli:$PATH"

# scr_run [SCR-RUN OPTIONS] -- [APP ARGS]: 8 ranks as 4 simulated nodes
# (options are single words; $scavenge, when set, is the scavenge launcher)
scr_run() {
    opts=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts="$opts $1"; shift; done
    [ $# -gt 0 ] && shift
    mpi_runs=$((mpi_runs + 1))
    mpi_out=$scratch/run$mpi_runs.out
    mpi_err=$scratch/run$mpi_runs.err
    # shellcheck disable=SC2086 # the options are meant to be split
    (cd "$SCR_PREFIX" && timeout -k 10 300 "$run_cmd" --delay 0 ${scavenge:+--scavenge-launcher "$scavenge"} $opts \
        sh "$mpi_sim_run" -n 8 -N 4 -- "$mpi_app" "$@") < /dev/null > "$mpi_out" 2> "$mpi_err"
    mpi_status=$?
}

# 1. killed after checkpoint 2, run again: restarts from checkpoint 2 in cache
scr_run --runs 3 -- --steps 4 --crash-after 2 --crash-rank 5
check "a_killed_job_is_run_again_and_finishes" test "$mpi_status" -eq 0
check "outside_Slurm_no_node_count_is_claimed" grep -q "scr-run: run 1 of 3\$" "$mpi_err"
check "the_second_run_restarted_from_checkpoint_2" grep -q "restarted from step 2" "$mpi_out"
check "two_runs_were_made" test "$(grep -c 'ended with exit status' "$mpi_err")" -eq 2
check "the_loop_stops_because_the_job_finished" grep -q "not running again: the job finished" "$mpi_err"
check "a_finished_job_needs_no_scavenge" test -z "$(grep 'copying the newest dataset' "$mpi_err")"

# 2. runs used up with the newest checkpoint only in cache: scavenged and indexed
mpi_reset
export SCR_FLUSH=0
scavenge="sh $mpi_sim_run -n 4 -N 4 --"
scr_run --runs 1 -- --steps 4 --crash-after 3 --crash-rank 2
unset SCR_FLUSH scavenge
check "the_only_run_dies:_its_status_is_scr-run's" test "$mpi_status" -ne 0
check "no_runs_left_is_said" grep -q "not running again: 1 of 1 runs made" "$mpi_err"
check "the_newest_checkpoint_is_copied_from_the_nodes" grep -q "copying the newest dataset in cache" "$mpi_err"
"$index" --prefix "$SCR_PREFIX" > "$scratch/list" 2>&1
check "scr-index_lists_the_scavenged_checkpoint" grep -q "ckpt.3" "$scratch/list"
mpi_lose_all_nodes
mpi_run 8 4 -- --steps 4
mpi_expect_restart "a_new_job_without_cache_restarts_from_the_scavenged_checkpoint" 3 4

# 3. a halt set with scr-halt stops the loop before another run
mpi_reset
"$halt_cmd" --after @1000 "$SCR_PREFIX" > /dev/null
scr_run --runs 3 -- --steps 4
check "a_halt_condition_stops_the_loop_before_a_run" grep -q "not running again: the time to exit after (ExitAfter) has passed" "$mpi_err"
check "and_nothing_ran" test -z "$(grep 'ended with exit status' "$mpi_err")"

# 4. a damaged halt file: scr-run stops, says so, and leaves it alone
mpi_reset
mkdir -p "$SCR_PREFIX/.scr" && printf 'damaged' > "$SCR_PREFIX/.scr/halt.scr"
scr_run --runs 2 --no-scavenge -- --steps 1
check "a_damaged_halt_file_stops_scr-run" test "$mpi_status" -eq 3
check "naming_the_file" grep -q "halt.scr cannot be used to decide whether to run again" "$mpi_err"
check "which_is_left_as_it_was" test "$(cat "$SCR_PREFIX/.scr/halt.scr")" = damaged

# usage errors
"$run_cmd" > /dev/null 2> "$scratch/err"
check "no_launcher_is_a_usage_error" test $? -eq 2
"$run_cmd" --runs many true > /dev/null 2> "$scratch/err"
check "a_bad_count_names_the_text" grep -q "\-\-runs: 'many' is not a whole number" "$scratch/err"
SCR_RUNS=x "$run_cmd" true > /dev/null 2> "$scratch/err"
check "a_bad_SCR_RUNS_names_the_variable" grep -q "SCR_RUNS: 'x' is not a whole number" "$scratch/err"

done_testing
