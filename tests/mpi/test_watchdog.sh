#!/bin/sh
# test_watchdog.sh — SCR_WATCHDOG_TIMEOUT_PFS abandons a copy to or from a
# prefix that stops answering, and the run goes on.
#
# A file system that stops answering is tests/tools/stall_open.c, preloaded
# into the ranks: an open of the file it names waits until the test lets it
# go, as a hung server makes it wait, with no hook in the library. With the
# watchdog, the rank says so in one line (rank, operation, file, time), the
# run ends normally, nothing of the dataset is indexed, and the next run
# restarts from the cache (flush) or from an older dataset (fetch). Without
# it (0, the default), the run waits for the file system as it always did.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup watchdog

common="SCR_FLUSH=1 SCR_COPY_TYPE=SINGLE"
shim=$top_builddir/tests/tools/.libs/libstall_open.so
release=$scratch/answer-again
# the ranks, with opens of $SCR_TEST_STALL_OPEN held until $release exists;
# preloaded into the program itself, not into libtool's wrapper script, since
# a sanitizer's shim loads only into a program that carries the sanitizer
app_bin=$(dirname "$mpi_app")/.libs/$(basename "$mpi_app")
[ -x "$app_bin" ] || app_bin=$mpi_app
stalled_app=$scratch/stalled_app
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\nLD_PRELOAD=%s SCR_TEST_STALL_RELEASE=%s exec %s "$@"\n' \
    "$top_builddir/lib/.libs" "$shim" "$release" "$app_bin" > "$stalled_app" && chmod +x "$stalled_app" || exit 99
if [ ! -f "$shim" ] || ! LD_PRELOAD=$shim "$top_builddir/cli/scr-print" --version > /dev/null 2>&1; then
    mpi_skip_all "the stall shim $shim cannot be preloaded in this build"
fi
# hang PATH: opens of PATH wait from now on; answer: they go on
hang() { rm -f "$release"; export SCR_TEST_STALL_OPEN="$1"; }
answer() { : > "$release"; }

# --- a flush ---------------------------------------------------------------------
hang "$prefix/ckpt.1/rank1_f0.dat"
t0=$(date +%s)
# shellcheck disable=SC2086 # the settings are meant to be split
mpi_run_program "$stalled_app" 2 2 $common SCR_WATCHDOG_TIMEOUT_PFS=3 -- --steps 1
took=$(($(date +%s) - t0))
mpi_expect_restart "a_flush_to_a_prefix_that_stops_answering_does_not_stop_the_run" 0 1
check "rank_1_says_the_operation_the_file_and_the_time" grep -q \
    "^SCR rank 1: .*watchdog: flush of dataset 1: copying .* to $prefix/ckpt.1/rank1_f0.dat took more than SCR_WATCHDOG_TIMEOUT_PFS=3 s" \
    "$mpi_err"
check "once" test "$(grep -c 'watchdog: flush of dataset 1: copying' "$mpi_err")" -eq 1
check "the_dataset_is_not_in_the_index" test -z "$(mpi_index_id ckpt.1)"
check "rank_0's_copy_is_taken_back" test ! -e "$prefix/ckpt.1/rank0_f0.dat"
check "no_flush_starts_while_the_abandoned_copy_has_not_returned" \
    grep -q "watchdog: flush of dataset 1 not started" "$mpi_err"
check "the_run_ends_without_waiting_for_the_file_system (${took}s)" test "$took" -lt 60
answer
# copies that end in time, in their threads
# shellcheck disable=SC2086
mpi_run 2 2 $common SCR_WATCHDOG_TIMEOUT_PFS=30 -- --steps 2
mpi_expect_restart "the_next_run_restarts_from_the_cache" 1 2
check "and_flushes_to_the_prefix_that_answers_again" test -n "$(mpi_index_id ckpt.2)"
check "with_no_watchdog_line" test -z "$(grep "watchdog:" "$mpi_err")"

# SCR_WATCHDOG_TIMEOUT (cache writes, which are the application's) is refused with a word
# shellcheck disable=SC2086
mpi_run 2 2 $common SCR_WATCHDOG_TIMEOUT=30 -- --steps 2
mpi_expect_restart "SCR_WATCHDOG_TIMEOUT_does_not_stop_a_run" 2
check "SCR_Init_says_once_that_it_is_not_used_and_names_the_one_that_is" test "$(grep -c \
    "^SCR rank 0: warning: SCR_WATCHDOG_TIMEOUT=30 is not used: .*SCR_WATCHDOG_TIMEOUT_PFS (now 0, 0: no limit)" \
    "$mpi_err")" -eq 1

# --- a fetch ---------------------------------------------------------------------
mpi_reset
# shellcheck disable=SC2086
mpi_run 2 2 $common -- --steps 2
check "two_checkpoints_on_the_prefix" test -n "$(mpi_index_id ckpt.1)" -a -n "$(mpi_index_id ckpt.2)"
mpi_lose_all_nodes
hang "$prefix/ckpt.2/rank1_f0.dat"
# shellcheck disable=SC2086
mpi_run_program "$stalled_app" 2 2 $common SCR_WATCHDOG_TIMEOUT_PFS=3 -- --steps 1
mpi_expect_restart "a_fetch_from_a_prefix_that_stops_answering_falls_back_to_the_older_checkpoint" 1
answer
check "rank_1_says_the_operation_the_file_and_the_time" grep -q \
    "^SCR rank 1: .*watchdog: fetch of dataset 2: copying $prefix/ckpt.2/rank1_f0.dat to .* took more than SCR_WATCHDOG_TIMEOUT_PFS=3 s" \
    "$mpi_err"
check "the_dataset_is_marked_failed_in_the_index" mpi_index_has "DSET/2/FAILED"
mpi_lose_all_nodes
# shellcheck disable=SC2086
mpi_run 2 2 $common SCR_WATCHDOG_TIMEOUT_PFS=30 -- --steps 1
mpi_expect_restart "a_later_run_restarts_from_the_older_checkpoint" 1 1
check "without_trying_the_failed_one_again" test -z "$(grep "watchdog:" "$mpi_err")"

# --- without the watchdog ----------------------------------------------------------
mpi_reset
hang "$prefix/ckpt.1/rank1_f0.dat"
# shellcheck disable=SC2086
(
    mpi_run_program "$stalled_app" 2 2 $common -- --steps 1
    exit "$mpi_status"
) &
waiter=$!
held_out=$scratch/run$((mpi_runs + 1)).out held_err=$scratch/run$((mpi_runs + 1)).err
sleep 5
check "without_the_watchdog_the_flush_waits_for_the_file_system" \
    test -z "$(grep 'finished step' "$held_out"; grep "watchdog:" "$held_err")"
# the file system answers: the flush goes on and completes
answer
wait "$waiter"
status=$?
mpi_runs=$((mpi_runs + 1)) mpi_out=$held_out mpi_err=$held_err mpi_status=$status
mpi_expect_restart "and_goes_on_when_it_answers" 0 1
check "the_checkpoint_it_held_is_on_the_prefix" test -n "$(mpi_index_id ckpt.1)"
check "with_no_watchdog_line" test -z "$(grep "watchdog:" "$mpi_err")"
unset SCR_TEST_STALL_OPEN

done_testing
