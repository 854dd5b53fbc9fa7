#!/bin/sh
# test_config_api.sh — runs tests/mpi/config_app (SCR_Config through scr.h,
# as SCR 3.1's test of it and on every rank of a job) on 1 rank, then on 4
# ranks of 2 nodes three times: its check of a user file rank 0 rewrites
# between calls would catch ranks that read the file themselves only now
# and then. Each run starts on an empty prefix with SCR_CONF_FILE naming a
# file that does not exist.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup config-api

# config_run NAME RANKS NODES: one run of config_app; its results become
# ours, prefixed by NAME
config_run() {
    mpi_reset
    mpi_run_program "$top_builddir/tests/mpi/config_app" "$2" "$3" SCR_CONF_FILE="$scratch/not-written-yet.conf"
    results=0
    while IFS= read -r line; do
        case $line in
        "ok "*) ok "$1: ${line#* - }"; results=$((results + 1)) ;;
        "not ok "*) not_ok "$1: ${line#* - }"; results=$((results + 1)) ;;
        "#"*) echo "$line" ;;
        esac
    done < "$mpi_out"
    if [ "$mpi_status" -ne 0 ] || [ "$results" -eq 0 ]; then
        not_ok "$1: config_app ran to the end" "$(mpi_diag)"
    fi
}

config_run one_rank 1 1
for round in 1 2 3; do
    config_run "four_ranks_run_$round" 4 2
done
check "the_ranks_that_passed_another_string_said_so" \
    grep -q "SCR_Config('SCRTEST_SAME=rank1'): rank 0 passed 'SCRTEST_SAME=rank0'" "$mpi_err"
check "two_STORE_entries_are_named_when_asked_for_one" grep -q "STORE has 2 values" "$mpi_err"
check "a_set_after_SCR_Init_is_refused_with_a_message" \
    grep -q "SCR_Config('SCR_COPY_TYPE=XOR') called after SCR_Init" "$mpi_err"
check "a_set_after_MPI_Finalize_is_refused_with_a_message" \
    grep -q "SCR_Config('SCR_FLUSH=7') called after MPI_Finalize: no SCR_Init can follow" "$mpi_err"
check "the_user_file_not_written_yet_stays_unwritten" test ! -e "$scratch/not-written-yet.conf"

done_testing
