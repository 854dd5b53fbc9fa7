#!/bin/sh
# test_api.sh — runs tests/mpi/test_api (the API's state machine and argument
# checks) three times on one prefix with 2 ranks, merging its TAP output, and
# checks what the runs leave in the index.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup api

# api_run RUN: one run of test_api; its results become ours, prefixed by RUN
api_run() {
    mpi_run_program "$top_builddir/tests/mpi/test_api" 2 2 SCR_CACHE_SIZE=2 -- "$1"
    results=0
    while IFS= read -r line; do
        case $line in
        "ok "*) ok "$1: ${line#* - }"; results=$((results + 1)) ;;
        "not ok "*) not_ok "$1: ${line#* - }"; results=$((results + 1)) ;;
        "#"*) echo "$line" ;;
        esac
    done < "$mpi_out"
    if [ "$mpi_status" -ne 0 ] || [ "$results" -eq 0 ]; then
        not_ok "$1: test_api ran to the end" "$(mpi_diag)"
    fi
}

api_run first
if grep -q "SCR_Complete_checkpoint called outside any phase; expected SCR_Start_checkpoint first" "$mpi_err"; then
    ok "a_call_in_the_wrong_state_says_which_call_was_expected"
else
    not_ok "a_call_in_the_wrong_state_says_which_call_was_expected" "$(mpi_diag)"
fi
check "the_invalid_checkpoint_is_not_in_the_index" test -z "$(mpi_index_id bad)"
check "a_reused_name_leaves_one_dataset_of_that_name_in_the_index" \
    test "$(mpi_index_id dup | wc -l)" -eq 1
good=$(mpi_index_id good)
check "the_valid_checkpoint_is_in_the_index_and_current" \
    eval "[ -n '$good' ] && mpi_index_has CURRENT/good"

api_run restart
check "the_checkpoint_a_rank_could_not_read_is_marked_FAILED" mpi_index_has "DSET/$good/FAILED"
check "the_failed_checkpoint_is_no_longer_current" eval "! mpi_index_has CURRENT/good"

api_run after

done_testing
