#!/bin/sh
# test_config_errors.sh — a configuration mistake stops SCR_Init with a
# message that names the place: the file and line of a bad value, the
# environment, an SCR_CONF_FILE that is no file, or the missing prefix
# directory, and the application exits with an error. A configuration error is said once (by rank 0); a missing
# prefix by every rank that cannot see it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup config-errors

conf=$scratch/user.conf
printf '# a user configuration file\nSCR_FLUSH=often\n' > "$conf"
mpi_run 4 2 SCR_CONF_FILE="$conf" -- --steps 1
mpi_expect_failure "a_bad_value_in_the_user_file_is_named_with_file_and_line" \
    "$conf:2: SCR_FLUSH=often: expected a whole number of at least 0"

mpi_run 1 1 SCR_FLUSH=-2 -- --steps 1
mpi_expect_failure "a_bad_value_in_the_environment_says_so" "SCR_FLUSH=-2"
check "the_environment_is_named_as_the_origin" grep -q "error: environment: SCR_FLUSH=-2" "$mpi_err"

# a missing one is a user file not written yet (as in SCR 3.1); a directory is no file
mkdir "$scratch/conf.d"
mpi_run 1 1 SCR_CONF_FILE="$scratch/conf.d" -- --steps 1
mpi_expect_failure "an_SCR_CONF_FILE_that_is_no_regular_file_is_named" "$scratch/conf.d"

mpi_run 4 2 SCR_PREFIX="$scratch/no-such-prefix" -- --steps 1
mpi_expect_failure "a_missing_prefix_directory_is_named_once" \
    "SCR_PREFIX $scratch/no-such-prefix (from environment) does not exist" 1

check "a_failed_init_leaves_no_checkpoint_behind" test -z "$(mpi_cache_datasets)"

done_testing
