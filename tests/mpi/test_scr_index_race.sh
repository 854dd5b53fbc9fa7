#!/bin/sh
# test_scr_index_race.sh — scr-index changes the index while a job flushes
# into it: a loop of --drop and --current runs during a job that flushes a
# checkpoint every step, and a reader parses the index without any lock all
# along. Afterwards every flushed checkpoint is in the index, every drop
# took, and no read ever saw a torn file. Then: what --current sets is what
# a restart from the prefix loads.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup index_race

index=$top_builddir/cli/scr-index

# ckpt.1 .. ckpt.12 on the prefix
mpi_run 4 2 SCR_FLUSH=1 -- --steps 12
mpi_expect_restart "a_first_run_flushes_checkpoints_1_to_12" 0 12

# the job flushes ckpt.13 .. ckpt.60 while the loop drops ckpt.1 .. ckpt.11
# and makes ckpt.12 current again and again
mpi_start 4 2 SCR_FLUSH=1 -- --steps 60
edits=0 edit_failures=0 reads=0 read_failures=0 next_drop=1
: > "$scratch/loop.err"
while kill -0 "$_mpi_bg_pid" 2> /dev/null; do
    if [ $next_drop -le 11 ]; then
        "$index" --drop "ckpt.$next_drop" > /dev/null 2>> "$scratch/loop.err" ||
            edit_failures=$((edit_failures + 1))
        next_drop=$((next_drop + 1))
    fi
    "$index" --current ckpt.12 > /dev/null 2>> "$scratch/loop.err" || edit_failures=$((edit_failures + 1))
    edits=$((edits + 1))
    # scr-print takes no lock: only an atomic replace keeps it from a torn file
    "$mpi_print" "$prefix/.scr/index.scr" > /dev/null 2>> "$scratch/loop.err" ||
        read_failures=$((read_failures + 1))
    reads=$((reads + 1))
done
mpi_wait
mpi_expect_restart "the_job_flushed_checkpoints_13_to_60_meanwhile" 12 60
echo "# $edits rounds of index edits, $reads lock-free reads during the job"
check "every_index_edit_succeeded" test "$edit_failures" -eq 0
check "every_lock_free_read_parsed_the_index" test "$read_failures" -eq 0
check "the_loop_said_nothing_on_stderr" test ! -s "$scratch/loop.err"

# drops that the job's run never reached still happen
while [ $next_drop -le 11 ]; do
    "$index" --drop "ckpt.$next_drop" > /dev/null 2>&1 || edit_failures=$((edit_failures + 1))
    next_drop=$((next_drop + 1))
done
lost= kept=
step=12
while [ $step -le 60 ]; do
    [ -n "$(mpi_index_id "ckpt.$step")" ] || lost="$lost ckpt.$step"
    step=$((step + 1))
done
step=1
while [ $step -le 11 ]; do
    [ -z "$(mpi_index_id "ckpt.$step")" ] || kept="$kept ckpt.$step"
    step=$((step + 1))
done
check "no_flushed_checkpoint_is_lost_from_the_index" test -z "$lost"
check "every_dropped_checkpoint_is_gone" test -z "$kept"
check "the_index_lists_after_the_race" "$index"

# what --current sets, a restart from the prefix loads
"$index" --current ckpt.40 > /dev/null
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 -- --steps 41
mpi_expect_restart "current_ckpt.40_is_what_a_restart_from_the_prefix_loads" 40 41
check "the_restart_made_the_flushed_ckpt.41_current" eval "'$index' | grep -q '^\\*.* ckpt.41 '"

done_testing
