#!/bin/sh
# test_scr_config.sh — SCR_Config in a real job behaves as in SCR 3.1: a
# setting holds for the run that made it (.scr/app.conf records it and is
# not read back), SCR_CACHE_BASE and SCR_CONF_FILE set through it take
# effect, a question gets what some place set (never a built-in default,
# the environment first), SCR_CNTL_BASE stays the site's, and
# SCR_COPY_TYPE=FILE leaves the scheme to the CKPT lines.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr-config

# a dataset written in place is on the prefix, with nothing in cache
mpi_run 4 2 -- --steps 1 --config SCR_CACHE_BYPASS=1
mpi_expect_restart "SCR_Config_SCR_CACHE_BYPASS=1_is_used" 0 1
check "its_checkpoint_is_written_in_place" test -f "$prefix/ckpt.1/rank3_f0.dat" -a -z "$(mpi_cache_datasets)"
check "app.conf_records_the_setting_as_a_configuration_line" \
    test "$(cat "$prefix/.scr/app.conf")" = "SCR_CACHE_BYPASS=1"

mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "the_next_run_restarts" 1 2
check "the_next_run_does_not_read_it_back:_checkpoint_2_is_cached" \
    test -n "$(mpi_cache_datasets)" -a ! -e "$prefix/ckpt.2"
check "app.conf_is_empty_when_SCR_Config_set_nothing" test -f "$prefix/.scr/app.conf" -a ! -s "$prefix/.scr/app.conf"
check "the_run_said_nothing_about_app.conf" eval "! grep -q app.conf '$mpi_err'"

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
