#!/bin/sh
# test_python.sh — the Python module scr (python/scr.py, over the built
# libscr) drives a pure-Python MPI application (tests/mpi/scr_py_app.py,
# mpi4py) on 4 ranks as 2 simulated nodes: a fresh run with config() get,
# set and unset before init(), a restart from cache, a restart from the
# prefix where one rank cannot read the newest checkpoint and an older one
# follows, drop() and delete() (drop() of a name the index does not hold
# returns None, as in SCR 3.1), and init() raising RuntimeError.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup python

py=${PYTHON:-/usr/bin/python3}
if [ -z "$py" ] || [ "$py" = : ]; then mpi_skip_all "configure found no Python 3"; fi
"$py" -c 'import mpi4py' 2> /dev/null ||
    mpi_skip_all "mpi4py is not installed for $py (Debian: apt-get install python3-mpi4py)"
libscr=$top_builddir/lib/.libs/libscr.so
nm -D "$libscr" 2> /dev/null | grep -q __asan_ &&
    mpi_skip_all "libscr is built with AddressSanitizer, which Python cannot load without its runtime"
app=$top_srcdir/tests/mpi/scr_py_app.py
pyenv="PYTHONPATH=$top_builddir/python SCR_PYTHON_LIBSCR=$libscr PYTHONDONTWRITEBYTECODE=1"

# py_run [VAR=VALUE...] -- ARGS...: the app on 4 ranks as 2 nodes
py_run() {
    _py_env=
    while [ "$1" != -- ]; do _py_env="$_py_env $1"; shift; done
    shift
    # shellcheck disable=SC2086 # the settings are words
    mpi_run_program "$py" 4 2 $pyenv $_py_env -- "$app" "$@"
}

# py_said NAME TEXT: every rank printed TEXT, whatever the exit status
py_said() {
    _missing=$(mpi_ranks_without "$2")
    if [ -z "$_missing" ]; then ok "$1"; else not_ok "$1" "rank(s) $_missing did not print '$2'
$(mpi_diag)"; fi
}

# --- a fresh run; config() before init() sets SCR_FLUSH=1 for it --------------
py_run -- --config --steps 3
py_said "config_of_an_unset_parameter_is_None" "config of an unset parameter ok"
py_said "config_of_a_parameter_left_at_its_default_is_None" \
    "config of a parameter left at its default ok"
py_said "config_set_returns_None" "config set ok"
py_said "config_get_returns_the_value_set" "config get ok"
py_said "config_unset_then_get_returns_None" "config unset ok"
py_said "a_fresh_run_starts_afresh" "fresh start"
py_said "a_fresh_run_writes_three_checkpoints" "finished step 3"
check "the_SCR_FLUSH_set_by_config_flushed_every_checkpoint" \
    eval "[ -n '$(mpi_index_id ckpt.1)' ] && [ -n '$(mpi_index_id ckpt.2)' ] && [ -n '$(mpi_index_id ckpt.3)' ]"

# --- a restart from cache ---------------------------------------------------------
py_run -- --steps 4 --route-missing
mpi_expect_lines "a_restart_reads_checkpoint_3_and_goes_on" \
    "restarted from step 3" "route_file of a missing file raised RuntimeError" "finished step 4"

# --- one rank cannot read checkpoint 4: checkpoint 3 is fetched instead ------------
id4=$(mpi_index_id ckpt.4)
mpi_lose_all_nodes
py_run -- --steps 3 --fail-restart-of ckpt.4
mpi_expect_lines "after_a_failed_restart_the_older_checkpoint_is_read" \
    "restart from ckpt.4 failed" "restarted from step 3" "finished step 3"
check "the_checkpoint_that_failed_is_marked_FAILED" mpi_index_has "DSET/$id4/FAILED"

# --- drop and delete ----------------------------------------------------------------
py_run -- --steps 3 --drop ckpt.1 --drop timestep_doesnotexist --delete ckpt.2
mpi_expect_lines "drop_and_delete_return" "drop ckpt.1 returned None" "restarted from step 3" "finished step 3"
mpi_expect_lines "drop_of_a_name_the_index_does_not_hold_returns_None_as_in_SCR_3.1" \
    "drop timestep_doesnotexist returned None"
check "drop_removes_the_index_entry" test -z "$(mpi_index_id ckpt.1)"
check "drop_leaves_the_files" test -f "$prefix/ckpt.1/rank0.txt"
check "delete_removes_the_index_entry_and_the_files" \
    eval "[ -z '$(mpi_index_id ckpt.2)' ] && [ ! -e '$prefix/ckpt.2/rank0.txt' ]"

# --- init() raises when SCR_Init fails -------------------------------------------------
py_run SCR_FLUSH=-2 -- --expect-init-failure
mpi_expect_lines "init_raises_RuntimeError_when_SCR_Init_fails" "init raised RuntimeError"

done_testing
