#!/bin/sh
# test_restart_retry.sh — after SCR_Complete_restart(0) the same run is
# offered the next older checkpoint, as SCR does: from cache when it is
# there, else fetched from the prefix (or read there in place, with
# SCR_FETCH_BYPASS=1); the one that failed is marked FAILED
# and never offered again; when every checkpoint fails the run starts
# afresh. The last rank reports its read invalid (--fail-restart-of), so
# the ranks must agree on the outcome. A summary on the prefix that sends
# one rank's file outside the prefix is refused, naming it, and the older
# checkpoint is fetched.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-retry

# --- from cache: three checkpoints there, only the newest on the prefix -------
mpi_run 4 2 SCR_CACHE_SIZE=3 -- --steps 3
mpi_expect_restart "three_checkpoints_written" 0 3
id3=$(mpi_index_id ckpt.3)
check "only_checkpoint_3_is_on_the_prefix" \
    eval "[ -n '$id3' ] && [ -z '$(mpi_index_id ckpt.2)' ] && [ -z '$(mpi_index_id ckpt.1)' ]"

# (no new checkpoint: a new ckpt.3 would take the failed one's place in the index)
mpi_run 4 2 SCR_CACHE_SIZE=3 -- --steps 2 --fail-restart-of ckpt.3
mpi_expect_lines "a_failed_restart_from_3_is_followed_by_one_from_2_in_cache" \
    "restart from ckpt.3 failed" "restarted from step 2" "finished step 2"
check "checkpoint_3_is_marked_FAILED_in_the_index" mpi_index_has "DSET/$id3/FAILED"
check "checkpoint_3_is_no_longer_current" eval "! mpi_index_has CURRENT/ckpt.3"

# --- from the prefix: every checkpoint flushed, the cache lost ------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 3
mpi_expect_restart "three_checkpoints_flushed" 0 3
id1=$(mpi_index_id ckpt.1) id2=$(mpi_index_id ckpt.2) id3=$(mpi_index_id ckpt.3)
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2 --fail-restart-of ckpt.3
mpi_expect_lines "a_failed_restart_from_3_is_followed_by_a_fetch_of_2" \
    "restart from ckpt.3 failed" "restarted from step 2" "finished step 2"
check "the_fetched_checkpoint_3_is_marked_FAILED" mpi_index_has "DSET/$id3/FAILED"
check "checkpoint_2_is_marked_FETCHED" mpi_index_has "DSET/$id2/FETCHED"

mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2
mpi_expect_restart "a_later_run_is_not_offered_the_failed_checkpoint_again" 2
check "a_later_run_says_nothing_of_checkpoint_3" eval "! grep -q 'ckpt.3' '$mpi_out'"

# --- every one fails: checkpoint 2 in cache, then 1 from the prefix -------------
mpi_run 4 2 SCR_FLUSH=1 -- --steps 0 --fail-restart-of 2
mpi_expect_lines "when_every_checkpoint_fails_the_run_starts_afresh" \
    "restart from ckpt.2 failed" "restart from ckpt.1 failed" "fresh start" "finished step 0"
check "checkpoints_1_and_2_are_marked_FAILED" \
    eval "mpi_index_has DSET/$id1/FAILED && mpi_index_has DSET/$id2/FAILED"

# --- read in place on the prefix (SCR_FETCH_BYPASS=1): the same -------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 -- --steps 2
id2=$(mpi_index_id ckpt.2)
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=1 SCR_FETCH_BYPASS=1 -- --steps 1 --fail-restart-of ckpt.2
mpi_expect_lines "with_fetch_bypass_a_failed_restart_from_2_is_followed_by_1" \
    "restart from ckpt.2 failed" "restarted from step 1" "finished step 1"
check "with_fetch_bypass_checkpoint_2_is_marked_FAILED" mpi_index_has "DSET/$id2/FAILED"

# --- a summary naming a file outside the prefix ------------------------------------
# The last rank's file of checkpoint 2 is listed outside the prefix, where an
# exact copy of it lies: a fetch that followed the record would read it and
# write it outside the cache; the dataset is refused and checkpoint 1 fetched.
if command -v python3 > /dev/null 2>&1; then
    mpi_reset
    mpi_run 4 2 SCR_FLUSH=1 -- --steps 2
    id2=$(mpi_index_id ckpt.2)
    summary=$prefix/.scr/scr.dataset.$id2/summary.scr
    part=$prefix/.scr/scr.dataset.$id2/summary.0.scr # lists the ranks of a summary.scr in parts
    mpi_lose_all_nodes
    mkdir -p "$scratch/outside" || exit 99
    python3 "$top_srcdir/tests/tools/kvtree_ref.py" dump "$part" > "$scratch/summary.json" || exit 99
    python3 - "$scratch/summary.json" "$(dirname "$summary")" "$scratch/outside" <<'PY' || exit 99
import json, shutil, sys
path, dsdir, outside = sys.argv[1:]
t = json.load(open(path))
files = t["RANK2FILE"]["RANK"]["3"]["FILE"]
name = next(iter(files))
shutil.copy(dsdir + "/" + name, outside + "/stolen")
files["../../../outside/stolen"] = files.pop(name)
json.dump(t, open(path, "w"))
PY
    python3 "$top_srcdir/tests/tools/kvtree_ref.py" write "$scratch/summary.json" "$part" || exit 99
    # (no new checkpoint: a new ckpt.2 would take the refused one's place in the index)
    mpi_run 4 2 SCR_FLUSH=1 -- --steps 1
    mpi_expect_restart "a_summary_naming_a_file_outside_the_prefix_is_refused_and_1_fetched" 1
    if grep -qF "$summary: the file '../../../outside/stolen' leads to $scratch/outside/stolen, outside the prefix $prefix" \
        "$mpi_err"; then
        ok "the_refusal_names_the_summary_and_the_path"
    else
        not_ok "the_refusal_names_the_summary_and_the_path" "$(mpi_diag)"
    fi
    check "the_refused_checkpoint_2_is_marked_FAILED" mpi_index_has "DSET/$id2/FAILED"
    check "nothing_was_written_outside_the_dataset_cache_directory" \
        eval "[ -z \"\$(find '$scratch' -name stolen ! -path '$scratch/outside/stolen')\" ]"
else
    for name in a_summary_naming_a_file_outside_the_prefix_is_refused_and_1_fetched \
        the_refusal_names_the_summary_and_the_path the_refused_checkpoint_2_is_marked_FAILED \
        nothing_was_written_outside_the_dataset_cache_directory; do
        skip "$name" "python3 not found (doctors the summary)"
    done
fi

done_testing
