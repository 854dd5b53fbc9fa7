#!/bin/sh
# test_job_dirs_stay_in_base.sh — SCR_Init puts a job's cache and control
# directories inside their bases, or refuses with a message that says why:
# a node name, user name or job id that would not stay one directory level
# (a '/', dots alone, empty, a control character) is named with its
# variable and value, and nothing is made outside the bases.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup job-dirs

# nothing_outside NAME: no file or directory called NAME anywhere in the scratch directory
nothing_outside() {
    test -z "$(find "$scratch" -name "$1" 2> /dev/null)"
}

# --- names --------------------------------------------------------------------------
mpi_run 1 1 SCR_USER_NAME=../../user-out -- --steps 1
mpi_expect_failure "a_user_name_that_leads_out_of_the_base_stops_SCR_Init_naming_it" \
    "SCR_USER_NAME='../../user-out' cannot name a directory: it contains '/'"
check "and_nothing_is_made_where_it_leads" nothing_outside user-out

mpi_run 1 1 SCR_JOB_ID=../../../job-out -- --steps 1
mpi_expect_failure "a_job_id_that_leads_out_of_the_base_stops_SCR_Init_naming_it" \
    "SCR_JOB_ID='../../../job-out' cannot name a directory: it contains '/'"
check "and_nothing_is_made_where_the_job_id_leads" nothing_outside job-out

mpi_run 1 1 SCR_SIM_SPARE=0=../node-out -- --steps 1
mpi_expect_failure "a_node_name_that_leads_out_of_the_base_stops_SCR_Init_naming_it" \
    "SCR_NODE_NAME='../node-out' cannot name a directory: it contains '/'"
check "and_nothing_is_made_where_the_node_name_leads" nothing_outside node-out

mpi_run 1 1 SCR_SIM_SPARE=0=.. -- --steps 1
mpi_expect_failure "a_node_name_of_dots_stops_SCR_Init" "SCR_NODE_NAME='..' cannot name a directory"

mpi_run 1 1 SCR_JOB_ID= -- --steps 1
mpi_expect_failure "an_empty_job_id_stops_SCR_Init_rather_than_being_replaced" \
    "SCR_JOB_ID='' cannot name a directory: it is empty"

mpi_run 1 1 "SCR_USER_NAME=ann	bob" -- --steps 1
mpi_expect_failure "a_user_name_with_a_control_character_stops_SCR_Init" \
    "SCR_USER_NAME='ann\\tbob' cannot name a directory: it contains a control character"

done_testing
