#!/bin/sh
# test_scr_drill_args.sh — scr-drill refuses what it cannot do, before and
# without any MPI job, each with a message that names the problem: bad or
# missing arguments (exit 2), an mpirun that is not there, a prefix that is
# not there, and a program that never reaches SCR_Init (exit 1). A stand-in
# mpirun (a script) starts each rank as the launcher would, so that the
# ranks' wrapper is tried too: rank 1 of 2 ranks on 2 nodes is node1. The
# drills that run real MPI jobs are tests/mpi/test_scr_drill.sh.
. "$top_srcdir/tests/tap.sh"

drill="$top_builddir/cli/scr-drill"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-drill-args.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(SCR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset SLURM_JOB_ID
mkdir "$tmp/prefix"
cd "$tmp/prefix" || exit 99

# A stand-in mpirun: skips its options up to -np N, then runs the command
# once per rank with OMPI_COMM_WORLD_RANK set, as Open MPI would.
cat > "$tmp/fake-mpirun" <<'SCRIPT'
#!/bin/sh
while [ "$1" != -np ]; do shift; done
n=$2
shift 2
r=0
while [ "$r" -lt "$n" ]; do
    OMPI_COMM_WORLD_RANK=$r "$@" || exit $?
    r=$((r + 1))
done
SCRIPT
chmod +x "$tmp/fake-mpirun"
# what each rank runs: it says which simulated node it is
printf '#!/bin/sh\necho "rank $OMPI_COMM_WORLD_RANK is $SCR_SIM_NODE"\n' > "$tmp/rank"
chmod +x "$tmp/rank"

# expect NAME STATUS TEXT ARGS...: scr-drill ARGS exits with STATUS saying TEXT on stderr
expect() {
    _name=$1 _status=$2 _text=$3
    shift 3
    "$drill" "$@" < /dev/null > "$tmp/out" 2> "$tmp/err"
    _got=$?
    if [ "$_got" -eq "$_status" ] && grep -qF -- "$_text" "$tmp/err"; then ok "$_name"; else
        not_ok "$_name" "expected status $_status and '$_text'; got $_got: $(cat "$tmp/err")"
    fi
}

expect "more_nodes_than_ranks_is_refused" 2 "--nodes 4 is more than --ranks 2" \
    --ranks 2 --nodes 4 --stop-after 1 -- /bin/true
expect "a_missing_program_is_refused" 2 "no program to run" --ranks 4 --nodes 4 --stop-after 1
expect "an_unknown_option_is_refused" 2 "unknown option '--bogus'" --ranks 4 --stop-after 1 --bogus -- /bin/true
expect "losing_a_node_that_does_not_exist_is_refused" 2 "--lose 4: there is no node 4: the nodes are 0 to 3" \
    --ranks 4 --nodes 4 --stop-after 1 --lose 4 -- /bin/true
expect "a_lose_list_that_is_not_numbers_is_refused" 2 "--lose wants node numbers" \
    --ranks 4 --stop-after 1 --lose 1,x -- /bin/true
expect "a_drill_without_a_failure_is_refused" 2 "give --stop-after K or --kill-random" --ranks 4 -- /bin/true
expect "both_failures_at_once_are_refused" 2 "give --stop-after or --kill-random, not both" \
    --ranks 4 --stop-after 1 --kill-random -- /bin/true
expect "a_missing_rank_count_is_refused" 2 "--ranks is missing" --nodes 4 --stop-after 1 -- /bin/true
expect "zero_ranks_are_refused" 2 "--ranks wants a whole number from 1" --ranks 0 --stop-after 1 -- /bin/true
expect "stop_after_0_is_refused" 2 "--stop-after wants a whole number from 1" --ranks 4 --stop-after 0 -- /bin/true
expect "a_seed_without_a_random_kill_is_refused" 2 "--seed goes with --kill-random" \
    --ranks 2 --stop-after 1 --seed 3 -- /bin/true
expect "an_option_without_its_value_is_refused" 2 "option '--ranks' wants an argument" --ranks

if "$drill" --help > "$tmp/out" 2>&1 && grep -q "^Usage: scr-drill --ranks N" "$tmp/out"; then
    ok "help_shows_the_usage"
else
    not_ok "help_shows_the_usage" "$(cat "$tmp/out")"
fi

expect "a_missing_mpirun_is_named" 1 "cannot run $tmp/none: it is not an executable file (give --mpirun PATH)" \
    --mpirun "$tmp/none" --ranks 2 --stop-after 1 -- /bin/true
env PATH="$tmp/empty" "$drill" --ranks 2 --stop-after 1 -- /bin/true < /dev/null > "$tmp/out" 2> "$tmp/err"
if [ $? -eq 1 ] && grep -qF "cannot run mpirun: it is not found in PATH" "$tmp/err"; then
    ok "an_mpirun_not_in_path_is_named"
else
    not_ok "an_mpirun_not_in_path_is_named" "$(cat "$tmp/err")"
fi
expect "a_missing_prefix_is_named" 1 "the prefix $tmp/none: No such file or directory" \
    --mpirun "$tmp/fake-mpirun" --prefix "$tmp/none" --ranks 2 --stop-after 1 -- /bin/true

expect "a_program_that_never_reaches_SCR_Init_is_named" 1 "before SCR_Init recorded anything on the prefix" \
    --mpirun "$tmp/fake-mpirun" --log-dir "$tmp/logs" --ranks 2 --nodes 2 --stop-after 1 -- "$tmp/rank"
check "each_rank_ran_as_its_simulated_node" \
    grep -qx "rank 1 is node1" "$tmp/logs/run1.log"
check "and_the_log_directory_is_named" grep -q "the runs' output is in $tmp/logs" "$tmp/err"

# two drills in one allocation would share its simulated nodes: while one
# holds the job's lock, the next is refused
if command -v flock > /dev/null 2>&1; then
    lock="$tmp/scr-drill.$(id -u).4711.lock"
    flock "$lock" sleep 30 &
    holder=$!
    sleep 1
    SLURM_JOB_ID=4711 TMPDIR=$tmp expect "a_second_drill_in_one_job_is_refused" 1 "another scr-drill runs in job 4711" \
        --mpirun "$tmp/fake-mpirun" --ranks 2 --nodes 2 --stop-after 1 -- "$tmp/rank"
    kill "$holder" 2> /dev/null
    wait "$holder" 2> /dev/null
else
    skip "a_second_drill_in_one_job_is_refused" "no flock command"
fi

done_testing
