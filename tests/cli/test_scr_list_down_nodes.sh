#!/bin/sh
# test_scr_list_down_nodes.sh — scr-list-down-nodes: host lists in and out,
# the exclude list, health records (failed, healthy, damaged, absent), the
# three output forms, exit codes, a clear note when Slurm cannot be asked,
# and SCR's --down and --free (this node's job directories checked now).
. "$top_srcdir/tests/tap.sh"

cmd="$top_builddir/cli/scr-list-down-nodes"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-down-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX SCR_EXCLUDE_NODES SLURM_NODELIST SLURM_JOB_NODELIST
# no Slurm client configuration: node states cannot be asked here
export SLURM_CONF="$tmp/no-slurm.conf"

run() {
    "$cmd" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}
out_is() { test "$(cat "$tmp/out")" = "$1"; }

# health NODE HEALTHY [REASON]: a record written by the independent writer
health() {
    mkdir -p "$tmp/prefix/.scr/health"
    if [ "$2" = 1 ]; then
        printf '{"VERSION": {"1": {}}, "NODE": {"%s": {}}, "HEALTHY": {"1": {}}, "CHECKED": {"1795372800": {}}}' "$1"
    else
        printf '{"VERSION": {"1": {}}, "NODE": {"%s": {}}, "HEALTHY": {"0": {}}, "REASON": {"%s": {}}, "CHECKED": {"1795372800": {}}}' "$1" "$3"
    fi > "$tmp/h.json"
    "$PYTHON3" "$ref" write "$tmp/h.json" "$tmp/prefix/.scr/health/$1.health"
}

run --no-slurm 'n[1-4]'
check "no_node_down:_exit_0_and_nothing_printed" test "$status" -eq 0 -a ! -s "$tmp/out"

run --no-slurm --exclude 'n[2,4]' 'n[1-4]'
check "excluded_nodes_are_down:_exit_1" test "$status" -eq 1
check "printed_as_one_host_list_for_srun_--exclude" out_is "n[2,4]"
SCR_EXCLUDE_NODES=n3 run --no-slurm 'n[1-4]'
check "SCR_EXCLUDE_NODES_is_the_default_exclude_list" out_is "n3"
SLURM_NODELIST='n[7-9]' SCR_EXCLUDE_NODES=n8 run --no-slurm
check "SLURM_NODELIST_is_the_default_node_list" out_is "n8"
SLURM_JOB_NODELIST='n[7-9]' SCR_EXCLUDE_NODES=n9 run --no-slurm
check "then_SLURM_JOB_NODELIST" out_is "n9"

health n1 1
health n2 0 "/dev/shm/u/scr.7 is not writable: Read-only file system"
printf 'garbage' > "$tmp/prefix/.scr/health/n4.health"
run --no-slurm --reason --prefix "$tmp/prefix" 'n[1-5]'
check "health:_a_failed_check_and_a_damaged_record_are_down" test "$status" -eq 1
check "--reason_names_each_down_node_and_why" test "$(cut -d: -f1 "$tmp/out" | tr '\n' ' ')" = "n2 n4 "
check "the_failed_check's_reason_is_given" grep -q "^n2: failed its health check: /dev/shm/u/scr.7 is not writable" "$tmp/out"
check "the_damaged_record_is_named" grep -q "^n4: its health record .*n4.health is damaged" "$tmp/out"
run --no-slurm --health-dir "$tmp/prefix/.scr/health" 'n[1-3]'
check "--health-dir_gives_the_records'_directory" out_is "n2"
(cd "$tmp/prefix" && "$cmd" --no-slurm 'n[1-3]' > "$tmp/out")
check "the_current_directory_is_the_default_prefix" out_is "n2"
SCR_PREFIX="$tmp/prefix" run --no-slurm 'n[1-3]'
check "then_SCR_PREFIX" out_is "n2"
run --no-slurm --exclude n2 --reason --prefix "$tmp/prefix" 'n[1-3]'
check "the_first_reason_found_stands" grep -q "^n2: excluded by SCR_EXCLUDE_NODES" "$tmp/out"

run --no-slurm --json --prefix "$tmp/prefix" 'n[1-3]'
check "--json_is_valid_JSON_with_every_node" "$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["down"] == 1, d
assert [n["node"] for n in d["nodes"]] == ["n1", "n2", "n3"], d
assert [n["down"] for n in d["nodes"]] == [False, True, False], d
assert "health check" in d["nodes"][1]["reason"], d
assert d["slurm"]["asked"] is False, d' "$tmp/out"

run 'n[1-2]'
check "without_a_Slurm_configuration_the_nodes_are_judged_anyway" test "$status" -eq 0
check "and_one_line_says_node_states_were_not_checked" \
    test "$(grep -c 'node states not checked with Slurm: no Slurm configuration here' "$tmp/err")" -eq 1

# --- SCR's --down and --free; --probe-timeout ------------------------------------------------------
run --no-slurm --down 'n[2,4]' --exclude n4 --reason 'n[1-4]'
check "--down_counts_nodes_down_unchecked" test "$status" -eq 1 -a "$(cut -d: -f1 "$tmp/out" | tr '\n' ' ')" = "n2 n4 "
check "--down_comes_first_among_the_reasons" grep -q "^n4: named down (--down), not checked" "$tmp/out"

# --free: this node (SCR_NODE_NAME) checked now; the control base comes only
# from a system configuration root owns, so a plain user cannot run these
if [ "$(id -u)" -eq 0 ]; then
    cntl=$tmp/cntl cache=$tmp/cache
    mkdir -p "$cntl/root/scr.free-1" "$cache/root/scr.free-1"
    conf() { (umask 077 && printf 'SCR_CNTL_BASE=%s\nSCR_CACHE_BASE=%s\n%s\n' "$cntl" "$cache" "$1" > "$tmp/sys.conf"); }
    free_run() {
        SCR_SYSTEM_CONF_FILE=$tmp/sys.conf SCR_NODE_NAME=n2 SCR_JOB_ID=free-1 SCR_USER_NAME=root \
            run --no-slurm --free --reason "$@"
    }
    conf ""
    free_run 'n[1-3]'
    check "--free:_a_node_whose_directories_take_a_file_is_up" test "$status" -eq 0 -a ! -s "$tmp/out"
    conf "STORE=$cache BYTES=1000PB"
    free_run 'n[1-3]'
    check "--free:_less_free_space_than_the_store's_BYTES_is_down" \
        grep -q "^n2: failed the --free check of SCR_CACHE_BASE: .* bytes free, the job needs" "$tmp/out"
    conf ""
    rm -rf "$cntl/root/scr.free-1"
    free_run 'n[1-3]'
    check "--free:_a_missing_control_directory_is_down" \
        grep -q "^n2: failed the --free check of SCR_CNTL_BASE: .*No such file" "$tmp/out"
    free_run 'n[5-6]'
    check "--free:_this_node_outside_the_list_is_said_and_nothing_is_down" \
        test "$status" -eq 0 -a "$(grep -c "which is not in the node list" "$tmp/err")" -eq 1
else
    for t in up down_by_BYTES down_missing outside; do skip "--free_$t" "needs root for a system configuration"; done
fi

# refused STATUS PATTERN ARGS...
refused() {
    want=$1 pattern=$2
    shift 2
    run "$@"
    test "$status" -eq "$want" && grep -q -- "$pattern" "$tmp/err" && test ! -s "$tmp/out"
}
check "a_bad_node_list_is_a_usage_error_naming_it" refused 2 "node list: 'n\[1-' is not a host list" --no-slurm 'n[1-'
check "a_reversed_range_is_refused" refused 2 "not a host list" --no-slurm 'n[3-1]'
check "a_bad_exclude_list_is_refused" refused 2 "exclude list: 'a\[' is not a host list" --no-slurm -x 'a[' n1
check "no_node_list_at_all_is_refused" refused 2 "no node list" --no-slurm
check "an_unknown_option_is_refused" refused 2 "unknown option '--bogus'" --bogus
check "two_node_lists_are_refused" refused 2 "unexpected argument 'n2'" n1 n2
check "an_empty_--health-dir_is_refused" refused 2 "--health-dir wants a directory" --health-dir '' n1
check "--probe-timeout_0_is_refused" refused 2 "--probe-timeout wants a whole number of seconds" --probe-timeout 0 n1
check "a_negative_--secs_is_refused" refused 2 "--secs wants the job's run time" --secs -5 n1
check "a_bad_--down_list_is_refused" refused 2 "--down list: 'x\[' is not a host list" --no-slurm --down 'x[' n1
run --help
check "--help_documents_the_exit_status" grep -q "Exit status: 0 if no node is down" "$tmp/out"

done_testing
