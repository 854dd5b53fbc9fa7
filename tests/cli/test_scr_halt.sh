#!/bin/sh
# test_scr_halt.sh — scr-halt sets, removes and lists the conditions of a
# prefix's .scr/halt.scr: every option with good and bad input, every TIME
# form, the line "Updating halt file in DIR" scripts written for SCR match,
# a damaged halt file (a clear message, the file left as it was), usage
# errors, and where the prefix comes from. That a job obeys what it sets is
# tests/mpi/test_scr_halt.sh.
. "$top_srcdir/tests/tap.sh"

halt="$top_builddir/cli/scr-halt"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-halt-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX
p=$tmp/prefix
file=$p/.scr/halt.scr

# run ARGS...: scr-halt with ARGS; sets $status, output in $tmp/out and $tmp/err
run() {
    "$halt" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}

# fresh: an empty prefix directory
fresh() {
    rm -rf "$p" && mkdir -p "$p"
}

# listed KEY: the value scr-halt --list shows for KEY (empty when unset)
listed() {
    "$halt" --list "$p" | awk -v key="$1" '$1 == key { print $2 }'
}

# expect NAME KEY VALUE ARGS...: scr-halt ARGS on $p exits 0 and leaves KEY at VALUE
expect() {
    name=$1 key=$2 want=$3
    shift 3
    run "$@" "$p"
    got=$(listed "$key")
    if [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$got" = "$want" ]; then
        ok "$name"
    else
        not_ok "$name" "status $status, $key is '$got', expected '$want': $(cat "$tmp/out" "$tmp/err")"
    fi
}

# refused NAME STATUS PATTERN ARGS...: scr-halt ARGS exits with STATUS, its
# first line on stderr matches PATTERN, and the halt file is as it was
refused() {
    name=$1 want_status=$2 pattern=$3
    shift 3
    if [ -e "$file" ]; then cp "$file" "$tmp/before"; else rm -f "$tmp/before"; fi
    run "$@"
    if [ -e "$tmp/before" ]; then same=$(cmp "$tmp/before" "$file" 2>&1); else same=$(ls "$file" 2>&1 | grep -v 'No such'); fi
    if [ $status -eq "$want_status" ] && head -n 1 "$tmp/err" | grep -q -e "$pattern" && [ -z "$same" ]; then
        ok "$name"
    else
        not_ok "$name" "status $status; file changed: '$same': $(cat "$tmp/out" "$tmp/err")"
    fi
}

# --- setting each condition ---------------------------------------------------------
fresh
run --list "$p"
if [ $status -eq 0 ] && [ "$(cat "$tmp/out")" = "no halt conditions" ] && [ ! -e "$p/.scr" ]; then
    ok "list_without_halt_file_says_no_conditions_and_creates_nothing"
else
    not_ok "list_without_halt_file_says_no_conditions_and_creates_nothing" "status $status: $(cat "$tmp/out" "$tmp/err")"
fi

expect "no_option_sets_the_reason_JOB_HALTED" ExitReason JOB_HALTED
check "no_option_creates_the_prefix_control_directory_mode_0700" \
    test "$(stat -c %a "$p/.scr")" = 700
expect "checkpoints_sets_CheckpointsLeft" CheckpointsLeft 3 --checkpoints 3
check "a_condition_keeps_the_earlier_reason" test "$(listed ExitReason)" = JOB_HALTED
expect "checkpoints_0_is_allowed" CheckpointsLeft 0 -c 0
expect "seconds_sets_HaltSeconds" HaltSeconds 1200 --seconds=1200
expect "before_at_epoch_sets_ExitBefore" ExitBefore "$(date -d @1795368600 +%F)" --before @1795368600
check "times_are_listed_with_their_epoch_seconds" grep -q "^ExitBefore .*(@1795368600)$" "$tmp/out"
expect "after_sets_ExitAfter" ExitAfter 2030-01-02 --after "2030-01-02 03:04"
expect "unset_reason_removes_the_reason" ExitReason "" --unset-reason
expect "immediate_sets_the_reason_JOB_HALTED" ExitReason JOB_HALTED --immediate

# several at once, in one update
fresh
run --checkpoints 5 --after +1h --before +2h --seconds 60 "$p"
check "several_conditions_are_set_at_once_without_a_reason" \
    test "$status $(listed CheckpointsLeft) $(listed HaltSeconds) $(listed ExitReason)" = "0 5 60 "

# --- TIME forms -----------------------------------------------------------------------------
# epoch_of TIME: the seconds scr-halt --after TIME records
epoch_of() {
    "$halt" --after "$1" "$p" | sed -n 's/^ExitAfter .*(@\([0-9]*\))$/\1/p'
}
fresh
check "epoch_form" test "$(epoch_of @1790000000)" = 1790000000
check "local_date_and_time" test "$(epoch_of '2026-11-22 17:30')" = "$(date -d '2026-11-22 17:30' +%s)"
check "local_date_and_time_with_seconds" test "$(epoch_of '2026-11-22 17:30:15')" = "$(date -d '2026-11-22 17:30:15' +%s)"
check "iso_form" test "$(epoch_of 2026-11-22T17:30:00)" = "$(date -d '2026-11-22 17:30:00' +%s)"
check "clock_alone_is_today" test "$(epoch_of 17:30)" = "$(date -d 17:30 +%s)"
for spec in 90s:90 30m:1800 2h:7200 1d:86400; do
    rel=${spec%%:*} secs=${spec#*:}
    # time(2) reads a coarse clock that may still show the last second
    # when date(1) already shows the next: one second of slack below
    lo=$(($(date +%s) + secs - 1))
    got=$(epoch_of "+$rel")
    hi=$(($(date +%s) + secs))
    if [ -n "$got" ] && [ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ]; then
        ok "relative_$rel"
    else
        not_ok "relative_$rel" "got '$got', expected $lo..$hi"
    fi
done

# --- bad input: exit 2 naming the text, the file untouched -------------------------------------
fresh
"$halt" --checkpoints 4 "$p" > /dev/null
for t in tomorrow "2026-13-01 10:00" "2026-02-30 10:00" 24:00 17:5 +5 +5x +-5m @ @12abc "2026-11-22" ""; do
    refused "bad_time_'$t'_is_a_usage_error_naming_it" 2 "scr-halt: --after: cannot read '$t' as a time" \
        --after "$t" "$p"
done
refused "bad_time_of_before_names_the_option" 2 "scr-halt: --before: cannot read 'soon'" --before soon "$p"
for n in x -1 2.5 99999999999 ""; do
    refused "bad_count_'$n'_is_a_usage_error_naming_it" 2 \
        "scr-halt: --checkpoints wants a count of checkpoints (0 or more), not '$n'" --checkpoints "$n" "$p"
done
refused "bad_seconds_is_a_usage_error_naming_it" 2 "scr-halt: --seconds wants a number of seconds.*not 'ten'" \
    --seconds ten "$p"
refused "set_and_unset_of_one_condition_conflict" 2 "scr-halt: --unset-after conflicts" \
    --after +1h --unset-after "$p"
refused "immediate_and_unset_reason_conflict" 2 "scr-halt: --unset-reason conflicts" \
    --immediate --unset-reason "$p"
refused "one_condition_twice_conflicts" 2 "scr-halt: --checkpoints conflicts" -c 1 -c 2 "$p"
refused "remove_with_another_option_is_a_usage_error" 2 "scr-halt: --remove cannot be combined" \
    --remove --checkpoints 1 "$p"
refused "unknown_option_is_a_usage_error_naming_it" 2 "scr-halt: unknown option '--bogus'" --bogus "$p"
refused "option_without_its_argument_is_a_usage_error" 2 "scr-halt: option '--after' wants an argument" --after
refused "flag_with_argument_is_a_usage_error" 2 "scr-halt: option '--immediate=1' takes no argument" --immediate=1 "$p"
refused "two_directories_are_a_usage_error" 2 "scr-halt: unexpected argument 'other'" "$p" other
refused "missing_prefix_is_an_error_naming_it" 1 "scr-halt: error: the prefix $tmp/nowhere is not a directory" \
    "$tmp/nowhere"
check "missing_prefix_is_not_created" test ! -e "$tmp/nowhere"
check "after_refusals_CheckpointsLeft_is_still_4" test "$(listed CheckpointsLeft)" = 4

# --- unsetting and removing ------------------------------------------------------------------
fresh
"$halt" -c 2 -b +1h -a +2h -s 30 -i "$p" > /dev/null
for pair in checkpoints:CheckpointsLeft before:ExitBefore after:ExitAfter seconds:HaltSeconds reason:ExitReason; do
    opt=${pair%%:*} key=${pair#*:}
    expect "unset_${opt}_removes_$key" "$key" "" "--unset-$opt"
done
check "all_unset_lists_no_conditions" test "$("$halt" --list "$p")" = "no halt conditions"
run --unset-after "$p"
check "unsetting_an_absent_condition_is_no_error" test $status -eq 0

run -c 1 "$p"
check "a_change_says_Updating_halt_file_in_DIR_first,_as_SCR_does" test "$(head -1 "$tmp/out")" = "Updating halt file in $p"
run --remove "$p"
check "remove_deletes_the_halt_file" test $status -eq 0 -a ! -e "$file"
check "and_says_Updating_halt_file_in_DIR_first,_as_SCR_does" test "$(head -1 "$tmp/out")" = "Updating halt file in $p"
run -r "$p"
check "remove_without_halt_file_is_no_error" test $status -eq 0
check "remove_without_halt_file_says_so" grep -q "no halt file to remove" "$tmp/out"

# --- a damaged halt file ------------------------------------------------------------------------
fresh
"$halt" -c 2 -a +1h "$p" > /dev/null
size=$(wc -c < "$file")
head -c $((size - 3)) "$file" > "$tmp/truncated"
cp "$tmp/truncated" "$file"
refused "truncated_halt_file_refuses_a_change_naming_the_file" 1 "scr-halt: error: $file: .*truncated" -c 5 "$p"
refused "truncated_halt_file_refuses_the_default_reason" 1 "scr-halt: error: $file: .*truncated" "$p"
refused "truncated_halt_file_refuses_an_unset" 1 "scr-halt: error: $file: .*truncated" --unset-after "$p"
refused "truncated_halt_file_is_not_listed" 1 "scr-halt: error: $file: .*truncated" --list "$p"
check "only_the_damaged_file_is_left_in_.scr" test "$(ls -A "$p/.scr")" = halt.scr
run --remove "$p"
check "remove_deletes_a_damaged_halt_file" test $status -eq 0 -a ! -e "$file"

if [ -n "$PYTHON3" ]; then
    echo '{"CheckpointsLeft": {"many": {}}}' > "$tmp/bad.json"
    "$PYTHON3" "$ref" write "$tmp/bad.json" "$file"
    refused "bad_value_in_halt_file_is_named_with_its_key" 1 \
        "scr-halt: error: $file: key CheckpointsLeft holds 'many'" --after +1h "$p"
    echo '{"VERSION": {"9": {}}}' > "$tmp/new.json"
    "$PYTHON3" "$ref" write "$tmp/new.json" "$file"
    refused "newer_halt_file_version_is_refused" 1 "scr-halt: error: .*$file.*9" -c 1 "$p"
else
    skip "bad_value_in_halt_file_is_named_with_its_key" "python3 not found"
    skip "newer_halt_file_version_is_refused" "python3 not found"
fi

# --- help, version, where the prefix comes from -----------------------------------------------------
run --help
check "help_prints_usage_with_the_TIME_forms" grep -q "'+90s'" "$tmp/out"
run --version
check "version_names_the_command" grep -q "^scr-halt (scr) [0-9]" "$tmp/out"

fresh
mkdir -p "$tmp/env" "$tmp/cwd"
(cd "$tmp/cwd" && SCR_PREFIX="$tmp/env" "$halt" -c 7 "$p") > /dev/null
check "dir_argument_wins_over_scr_prefix" test "$(listed CheckpointsLeft)" = 7 -a ! -e "$tmp/env/.scr"
(cd "$tmp/cwd" && SCR_PREFIX="$tmp/env" "$halt" -c 8) > /dev/null
check "scr_prefix_wins_over_the_current_directory" test -e "$tmp/env/.scr/halt.scr" -a ! -e "$tmp/cwd/.scr"
(cd "$tmp/cwd" && SCR_PREFIX= "$halt" -c 9) > /dev/null
check "current_directory_is_the_default_prefix" test -e "$tmp/cwd/.scr/halt.scr"

done_testing
