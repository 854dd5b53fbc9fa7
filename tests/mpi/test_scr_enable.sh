#!/bin/sh
# test_scr_enable.sh — with SCR_ENABLE=0 every SCR call succeeds and does
# nothing: files are written at the paths the application asked for, and
# nothing appears in cache, in the control directory or in the prefix's .scr.
# The application creates its directories itself then (--mkdir).
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr-enable

# disabled_run LABEL RANKS NODES
disabled_run() {
    mpi_reset
    mpi_run "$2" "$3" SCR_ENABLE=0 -- --steps 2 --files 2 --output-every 2 --mkdir
    mpi_expect_restart "$1_run_to_the_end" 0 2
    missing=
    r=0
    while [ $r -lt "$2" ]; do
        for f in ckpt.1/rank${r}_f0.dat ckpt.1/rank${r}_f1.dat ckpt.2/rank${r}_f1.dat out.2/rank$r.txt; do
            [ -f "$prefix/$f" ] || missing="$missing $f"
        done
        r=$((r + 1))
    done
    check "$1_write_their_files_at_their_own_paths" test -z "$missing"
    check "$1_leave_no_cache_or_control_directory" test ! -e "$scratch/cache" -a ! -e "$scratch/cntl"
    check "$1_leave_no_index_or_halt_file" test ! -e "$prefix/.scr"
}

disabled_run one_rank_with_scr_disabled 1 1
disabled_run four_ranks_on_two_nodes_with_scr_disabled 4 2

# a disabled run offers no restart, even with the files of step 2 present
mpi_run 4 2 SCR_ENABLE=0 -- --steps 1 --mkdir
mpi_expect_restart "a_disabled_run_never_restarts" 0 1

done_testing
