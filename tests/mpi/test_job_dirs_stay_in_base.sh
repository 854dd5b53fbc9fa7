#!/bin/sh
# test_job_dirs_stay_in_base.sh — SCR_Init puts a job's cache and control
# directories inside their bases, or refuses with a message that says why:
#   - a node name, user name or job id that would not stay one directory
#     level (a '/', dots alone, empty, a control character) is named with
#     its variable and value, and nothing is made outside the bases;
#   - in a shared cache base (SCR_CACHE_BASE=<shared>/%N, <shared> as /tmp
#     is: root's, mode 1777), a symbolic link or a directory another user
#     planted where the node's level goes is refused, naming the path and
#     its owner, and nothing lands in that user's directory. The other user
#     (scrother, created when missing) plants them with runuser; without
#     root, useradd or runuser those cases are skipped.
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

# --- what another user planted in a shared base ------------------------------------------
other=scrother
link_tests="a_link_another_user_planted_in_a_shared_base_is_refused_naming_it_and_its_owner
nothing_lands_in_the_directory_the_link_leads_to
a_directory_another_user_made_in_a_shared_base_is_refused_naming_its_owner
nothing_lands_in_the_other_users_directory
with_nothing_planted_the_shared_base_serves"
why=
if ! command -v runuser > /dev/null 2>&1; then
    why="runuser not found"
elif ! id -u "$other" > /dev/null 2>&1 && ! useradd -M -d /nonexistent -s /bin/sh "$other" > /dev/null 2>&1; then
    why="cannot create the user $other"
fi
if [ -n "$why" ]; then
    for name in $link_tests; do skip "$name" "$why"; done
    done_testing
    exit
fi
other_uid=$(id -u "$other")
as_other() {
    runuser -u "$other" -- "$@"
}

mpi_reset
# the other user reaches the shared directory, as it would /tmp
chmod 0711 "$scratch"
shared=$scratch/shared
mkdir "$shared" && chmod 1777 "$shared" || exit 99
as_other mkdir "$shared/theirs" && as_other ln -s "$shared/theirs" "$shared/node0" || exit 99

mpi_run 1 1 SCR_CACHE_BASE="$shared/%N" -- --steps 1
mpi_expect_failure "a_link_another_user_planted_in_a_shared_base_is_refused_naming_it_and_its_owner" \
    "refusing $shared/node0: it is a symbolic link owned by uid $other_uid ($other), not by root"
check "nothing_lands_in_the_directory_the_link_leads_to" test -z "$(ls -A "$shared/theirs")"

as_other rm "$shared/node0" && as_other mv "$shared/theirs" "$shared/node0" || exit 99
mpi_run 1 1 SCR_CACHE_BASE="$shared/%N" -- --steps 1
mpi_expect_failure "a_directory_another_user_made_in_a_shared_base_is_refused_naming_its_owner" \
    "refusing $shared/node0: it is a directory owned by uid $other_uid ($other), not by root"
check "nothing_lands_in_the_other_users_directory" test -z "$(ls -A "$shared/node0")"

rm -rf "$shared/node0"
mpi_run 1 1 SCR_CACHE_BASE="$shared/%N" -- --steps 1
mpi_expect_restart "with_nothing_planted_the_shared_base_serves" 0 1

done_testing
