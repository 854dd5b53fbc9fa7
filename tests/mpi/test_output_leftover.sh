#!/bin/sh
# test_output_leftover.sh — an output dataset left in cache unflushed by a run
# that died is copied to the prefix by the next run's SCR_Init.
#
# SCR_Complete_output flushes output before it returns, so the app cannot be
# killed between the two; instead the flush is made to fail: a plain file
# stands where the dataset's directory out.2 must go, the flush fails and the
# app aborts, leaving out.2 in cache. Once the file is gone, the next run
# copies it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup output-leftover

echo "in the way" > "$prefix/out.2"
mpi_run 4 2 SCR_FLUSH=0 -- --steps 3 --output-every 2
mpi_expect_killed "the_run_aborts_when_output_2_cannot_be_flushed" 2
# (which ranks get to say so before the abort kills the others varies)
check "the_app_saw_SCR_Complete_output_of_out.2_fail" grep -q "SCR_Complete_output out.2" "$mpi_err"
check "out.2_is_not_in_the_index" test -z "$(mpi_index_id out.2)"
check "out.2_is_left_in_cache" test -n "$(mpi_cache_datasets | grep '/scr\.dataset\.3$')"

rm "$prefix/out.2"
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "the_next_run_restarts_from_ckpt.2_in_cache" 2
check "SCR_Init_said_it_copied_the_leftover_output" grep -q "output dataset 3 was not copied" "$mpi_err"
why=
for r in 0 1 2 3; do
    file=$prefix/out.2/rank$r.txt
    [ "$(cat "$file" 2> /dev/null)" = "output of rank $r at step 2" ] || why="$why
$file: $(cat "$file" 2>&1)"
done
if [ -z "$why" ]; then ok "out.2_reached_the_prefix_with_its_content"; else not_ok "out.2_reached_the_prefix_with_its_content" "$why"; fi
check "out.2_is_listed_in_the_index" test -n "$(mpi_index_id out.2)"
check "out.2_left_the_cache" test -z "$(mpi_cache_datasets | grep '/scr\.dataset\.3$')"

done_testing
