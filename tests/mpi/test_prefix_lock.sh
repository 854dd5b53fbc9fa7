#!/bin/sh
# test_prefix_lock.sh — a prefix belongs to one running job at a time.
#
# Job A (2 ranks, a checkpoint flushed every step, slowly) runs while job B
# starts on the same prefix: B's SCR_Init is refused with a message naming
# A's job, user, host and start, and B writes nothing; A finishes with every
# one of its checkpoints indexed and current as it should be, and marks the
# prefix released. A job killed while it holds the prefix (rank 0 gets
# SIGKILL) keeps it from no one: the next job takes it over, says from whom,
# and restarts from the killed job's flushed checkpoint. With the lock
# broken by hand, two jobs still never mix their datasets: the second flush
# of an id is refused, and the index, claims and summaries agree.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup prefix-lock

lock=$prefix/.scr/lock.scr

# wait_for_lock: until a job has written its record into lock.scr (60 s at most)
wait_for_lock() {
    _tries=0
    until [ -s "$lock" ] && "$mpi_print" "$lock" 2> /dev/null | grep -q "JOBID"; do
        _tries=$((_tries + 1))
        [ "$_tries" -le 240 ] || return 1
        sleep 0.25
    done
}

# --- two jobs at once ---------------------------------------------------------------------
job_a=$SCR_JOB_ID
mpi_start 2 1 SCR_FLUSH=1 -- --steps 6 --sleep-ms 600
if wait_for_lock; then ok "job A holds the prefix"
else not_ok "job A holds the prefix" "$(ls -la "$prefix/.scr" 2>&1)"; fi
mpi_run 2 1 SCR_JOB_ID=other-$$ SCR_FLUSH=1 -- --steps 2
mpi_expect_failure "job B is refused while A runs, naming A's job, user and host" \
    "is in use by job $job_a of $(id -un) on node0 (process "
if grep -q "since 20[0-9][0-9]-" "$mpi_err"; then ok "the refusal says since when"
else not_ok "the refusal says since when" "$(cat "$mpi_err")"; fi
mpi_wait
mpi_expect_restart "job A runs on undisturbed" 0 6
ids=$(mpi_index_paths | sed -n 's|^DSET/\([0-9]*\)/NAME/ckpt\.\([0-9]*\)$|\1=\2|p' | sort -n | tr '\n' ' ')
if [ "$ids" = "1=1 2=2 3=3 4=4 5=5 6=6 " ] && mpi_index_has "CURRENT/ckpt.6"; then
    ok "the index holds A's six checkpoints, ckpt.6 current"
else
    not_ok "the index holds A's six checkpoints, ckpt.6 current" "$ids
$(mpi_index_paths)"
fi
if [ ! -e "$prefix/.scr/scr.dataset.7" ]; then ok "B wrote no dataset"
else not_ok "B wrote no dataset" "$(ls "$prefix/.scr")"; fi
record=$("$mpi_print" "$lock" 2>&1)
if printf '%s\n' "$record" | grep -q "RELEASED" && printf '%s\n' "$record" | grep -q "$job_a"; then
    ok "A's SCR_Finalize marks the prefix released"
else
    not_ok "A's SCR_Finalize marks the prefix released" "$record"
fi
mpi_run 2 1 SCR_JOB_ID=other-$$ SCR_FLUSH=1 -- --steps 7
mpi_expect_restart "job B, run again after A, restarts from A's ckpt.6" 6 7

# --- a job killed while it holds the prefix ---------------------------------------------------
mpi_reset
job_k=$SCR_JOB_ID
mpi_run 2 1 SCR_FLUSH=1 -- --steps 4 --crash-after 2 --crash-rank 0
mpi_expect_killed "job K's rank 0 is killed after its second checkpoint" 2
mpi_run 2 1 SCR_JOB_ID=next-$$ SCR_FLUSH=1 -- --steps 4
mpi_expect_restart "the next job takes the prefix and restarts from K's ckpt.2" 2 4
if grep -q "taking over the prefix from job $job_k of .*: no process holds its lock any more" "$mpi_err"; then
    ok "it says from which job it took the prefix over"
else
    not_ok "it says from which job it took the prefix over" "$(cat "$mpi_err")"
fi

# --- the lock broken by hand: datasets still never mix ------------------------------------------
# A runs; its lock.scr is removed, so B (working in another directory of the
# same prefix) gets a lock of its own and runs too. They number their
# datasets alike; whichever flushes an id second is refused, and every
# dataset the index lists is the one its directory's claim and summary
# name.
mpi_reset
job_a=$SCR_JOB_ID
mkdir -p "$prefix/jb"
mpi_start 2 1 SCR_FLUSH=1 -- --steps 8 --sleep-ms 500
wait_for_lock
rm -f "$lock"
cd "$prefix/jb" || exit 99
mpi_run 2 1 SCR_JOB_ID=broken-$$ SCR_FLUSH=1 -- --steps 8 --sleep-ms 400
cd "$prefix" || exit 99
b_err=$mpi_err
mpi_wait
if grep -q "two jobs write to one prefix" "$mpi_err" "$b_err"; then ok "a flush into a dataset id the other job owns is refused"
else not_ok "a flush into a dataset id the other job owns is refused" "A: $(cat "$mpi_err")
B: $(cat "$b_err")"; fi
# jobid_of FILE: the JOBID a hash file names
jobid_of() {
    "$mpi_print" "$1" 2> /dev/null | tr -s ' \n' ' ' | sed -n 's/.*JOBID \([^ ]*\).*/\1/p'
}
# summary_jobid DIR: the JOBID of the dataset DIR's summary describes
summary_jobid() {
    "$mpi_print" "$1/summary.scr" 2> /dev/null | tr -s ' \n' ' ' | grep -o "JOBID [^ ]*" | head -1 | cut -d' ' -f2
}
mixed=
for dir in "$prefix"/.scr/scr.dataset.*; do
    id=${dir##*.}
    claimed=$(jobid_of "$dir/claim.scr")
    summed=$(summary_jobid "$dir")
    listed=$(mpi_index_paths | sed -n "s|^DSET/$id/DSETDESC/JOBID/\\(.*\\)$|\\1|p")
    [ -n "$claimed" ] && [ "$claimed" = "$summed" ] && { [ -z "$listed" ] || [ "$listed" = "$claimed" ]; } ||
        mixed="$mixed $id(claim $claimed, summary $summed, index $listed)"
done
if [ -z "$mixed" ] && mpi_index_paths | grep -q '^DSET/[0-9]*$'; then
    ok "each dataset directory holds one job's dataset, which is the one the index lists"
else
    not_ok "each dataset directory holds one job's dataset, which is the one the index lists" "$mixed
$(mpi_index_paths)"
fi

# --- records that are not what their names say ----------------------------------------------
# The prefix is the user's: a link or a FIFO in place of a record is refused by
# name, never written through nor waited on (the run is under a timeout).
mpi_reset
printf 'not yours\n' > "$scratch/outside"
mkdir -p "$prefix/.scr" && ln -s "$scratch/outside" "$lock"
mpi_run 2 1 SCR_FLUSH=1 -- --steps 1
mpi_expect_failure "a link at lock.scr: SCR_Init refuses the prefix, naming the link" \
    "refusing $lock: it is a symbolic link"
if [ "$(cat "$scratch/outside")" = "not yours" ]; then ok "and the file it leads to is untouched"
else not_ok "and the file it leads to is untouched" "$(cat "$scratch/outside")"; fi
rm -f "$lock" "$prefix/.scr/halt.scr"
mkfifo "$prefix/.scr/halt.scr"
mpi_run 2 1 SCR_FLUSH=1 -- --steps 1
if [ "$mpi_status" -ne 124 ] && [ "$mpi_status" -ne 137 ] &&
   grep -q "refusing $prefix/.scr/halt.scr: it is a FIFO" "$mpi_err"; then
    ok "a FIFO at halt.scr: SCR_Init does not wait on it and names it"
else
    not_ok "a FIFO at halt.scr: SCR_Init does not wait on it and names it" "$(mpi_diag)"
fi
rm -f "$prefix/.scr/halt.scr"
ln -s "$scratch/outside" "$prefix/.scr/events.jsonl"
ln -s "$scratch/outside" "$prefix/.scr/log"
mpi_run 2 1 SCR_FLUSH=1 SCR_LOG_ENABLE=1 -- --steps 2
mpi_expect_restart "links at the event logs: the run goes on" 1 2
if [ "$(cat "$scratch/outside")" = "not yours" ] && grep -q "events.jsonl: it is a symbolic link" "$mpi_err"; then
    ok "no event is appended through them, and the run says why"
else
    not_ok "no event is appended through them, and the run says why" "$(cat "$scratch/outside")
$(mpi_diag)"
fi

done_testing
exit $?
