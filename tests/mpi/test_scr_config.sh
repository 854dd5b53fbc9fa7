#!/bin/sh
# test_scr_config.sh — SCR_Config in a real job behaves as in SCR 3.1: a
# setting lasts until changed or unset (.scr/app.conf keeps it, the next
# runs read it back below the environment and the user file; a damaged one
# stops SCR_Init), SCR_CACHE_BASE and SCR_CONF_FILE set through it take
# effect, a question gets what some place set (never a built-in default,
# the environment first), SCR_CNTL_BASE stays the site's, and
# SCR_COPY_TYPE=FILE leaves the scheme to the CKPT lines.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr-config
app_conf=$prefix/.scr/app.conf

# a dataset written in place is on the prefix, with nothing in cache
mpi_run 4 2 -- --steps 1 --config SCR_CACHE_BYPASS=1
mpi_expect_restart "SCR_Config_SCR_CACHE_BYPASS=1_is_used" 0 1
check "its_checkpoint_is_written_in_place" test -f "$prefix/ckpt.1/rank3_f0.dat" -a -z "$(mpi_cache_datasets)"
check "app.conf_records_the_setting_as_a_configuration_line" test "$(cat "$app_conf")" = "SCR_CACHE_BYPASS=1"

# the next run sets nothing and reads the setting back
mpi_run 4 2 -- --steps 2 --ask SCR_CACHE_BYPASS
mpi_expect_restart "the_next_run_restarts" 1 2
mpi_expect_lines "a_run_that_sets_nothing_reads_the_earlier_setting_back" \
    "after SCR_Init: SCR_Config SCR_CACHE_BYPASS = 1"
check "and_uses_it:_checkpoint_2_is_written_in_place_too" \
    test -f "$prefix/ckpt.2/rank3_f0.dat" -a -z "$(mpi_cache_datasets)"
check "app.conf_keeps_the_setting" test "$(cat "$app_conf")" = "SCR_CACHE_BYPASS=1"
check "the_run_said_nothing_about_app.conf" eval "! grep -q app.conf '$mpi_err'"

# the environment still comes first, and the setting stays for later
mpi_run 4 2 SCR_CACHE_BYPASS=0 SCR_FLUSH=0 -- --steps 3 --ask SCR_CACHE_BYPASS
mpi_expect_restart "a_run_with_SCR_CACHE_BYPASS=0_in_its_environment_restarts" 2 3
mpi_expect_lines "the_environment_wins_over_app.conf" "after SCR_Init: SCR_Config SCR_CACHE_BYPASS = 0"
check "checkpoint_3_is_cached" test -n "$(mpi_cache_datasets)" -a ! -e "$prefix/ckpt.3"
check "app.conf_still_holds_the_setting" test "$(cat "$app_conf")" = "SCR_CACHE_BYPASS=1"

# a run that unsets it: before SCR_Init, every rank gets app.conf's value
# (rank 0 reads it with the other files), then none
mpi_run 4 2 SCR_FLUSH=0 -- --steps 4 --config SCR_CACHE_BYPASS --config SCR_CACHE_BYPASS= --config SCR_CACHE_BYPASS
mpi_expect_restart "a_run_that_unsets_it_restarts" 3 4
mpi_expect_lines "SCR_Config_answers_from_app.conf_before_SCR_Init_then_unsets_it" \
    "SCR_Config SCR_CACHE_BYPASS = 1" "SCR_Config SCR_CACHE_BYPASS = (null)"
check "checkpoint_4_is_cached" test -n "$(mpi_cache_datasets)" -a ! -e "$prefix/ckpt.4"
check "app.conf_is_empty_once_the_setting_is_unset" test -f "$app_conf" -a ! -s "$app_conf"

# an app.conf as SCR 3.1 writes it: a line per parameter, a descriptor's
# pairs on one line
mpi_reset
mkdir "$prefix/.scr"
printf 'SCR_COPY_TYPE=FILE\nCKPT=0 INTERVAL=1 GROUP=NODE TYPE=PARTNER\n' > "$app_conf"
mpi_run 4 2 -- --steps 1 --ask SCR_COPY_TYPE
mpi_expect_restart "a_run_on_an_app.conf_SCR_3.1_wrote" 0 1
mpi_expect_lines "its_SCR_COPY_TYPE_is_read" "after SCR_Init: SCR_Config SCR_COPY_TYPE = FILE"
check "its_CKPT_line_decides:_PARTNER_copies" \
    test -n "$(find "$scratch/cache" -path '*scr.dataset.1/partner.*' -type f)"

# a damaged one stops SCR_Init, said once, and is left for the user to fix
printf 'SCR_CACHE_BYPASS\n' > "$app_conf"
mpi_run 2 1 -- --steps 1
mpi_expect_failure "a_damaged_app.conf_stops_SCR_Init_naming_file_and_line" \
    "$app_conf:1: key 'SCR_CACHE_BYPASS' has no '=VALUE'"
check "the_damaged_app.conf_is_left_as_it_was" test "$(cat "$app_conf")" = "SCR_CACHE_BYPASS"

mpi_reset
mpi_run 2 2 SCR_FLUSH=0 -- --steps 1 --config "SCR_CACHE_BASE = $scratch/other/%N"
mpi_expect_restart "SCR_Config_SCR_CACHE_BASE_with_blanks_around_the_=_is_used" 0 1
check "the_checkpoint_is_cached_under_that_base" \
    test -n "$(find "$scratch/other/node1" -type d -name 'scr.dataset.1')"

mpi_reset
printf 'SCR_CACHE_BYPASS=1\n' > "$scratch/user.conf"
mpi_run 2 2 -- --steps 1 --config "SCR_CONF_FILE=$scratch/user.conf"
mpi_expect_restart "SCR_Config_SCR_CONF_FILE_names_the_user_file" 0 1
check "the_user_file_it_names_is_read" test -f "$prefix/ckpt.1/rank1_f0.dat" -a -z "$(mpi_cache_datasets)"

mpi_reset
mpi_run 2 1 SCR_HALT_SECONDS=5 MYAPP_SETTING=from-env -- --steps 1 --config SCR_FLUSH --config SCR_HALT_SECONDS \
    --config MYAPP_SETTING=from-app --config MYAPP_SETTING --config "CKPT=0 TYPE"
mpi_expect_lines "a_question_gets_what_is_set_and_NULL_for_a_default" "SCR_Config SCR_FLUSH = (null)" \
    "SCR_Config SCR_HALT_SECONDS = 5" "SCR_Config MYAPP_SETTING = from-env" "SCR_Config CKPT=0 TYPE = (null)"

mpi_run 2 1 -- --steps 1 --config "SCR_CNTL_BASE=$scratch/mine"
check "SCR_CNTL_BASE_stays_the_site's" test ! -e "$scratch/mine" -a -d "$scratch/cntl/node0"
check "and_SCR_Config_says_so" grep -q "SCR_Config: SCR_CNTL_BASE may only be set by the system configuration" "$mpi_err"

mpi_reset
printf 'CKPT=0 TYPE=PARTNER\n' > "$scratch/user.conf"
mpi_run 4 2 SCR_FLUSH=0 SCR_COPY_TYPE=FILE SCR_CONF_FILE="$scratch/user.conf" -- --steps 1
mpi_expect_restart "SCR_COPY_TYPE=FILE_is_accepted" 0 1
check "the_CKPT_line_decides:_PARTNER_copies" \
    test -n "$(find "$scratch/cache" -path '*scr.dataset.1/partner.*' -type f)"
mpi_reset
mpi_run 4 2 SCR_FLUSH=0 SCR_COPY_TYPE=FILE -- --steps 1
mpi_expect_restart "SCR_COPY_TYPE=FILE_without_CKPT_lines_runs" 0 1
check "with_the_default_descriptor:_XOR" test -n "$(find "$scratch/cache" -path '*scr.dataset.1/*' -name '*.xor')"

done_testing
