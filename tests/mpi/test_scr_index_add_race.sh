#!/bin/sh
# test_scr_index_add_race.sh — two scr-index --add and a job's flushes update
# one index at once, and no entry is lost.
#
# A first job leaves checkpoints 11 and 12 in cache with nothing on the
# prefix; every node is scavenged, which leaves two dataset directories on
# the prefix without summaries and outside the index: a template, given an
# index that lists no dataset (on a prefix with dataset directories and no
# index at all, SCR_Init refuses to start afresh). Then, a
# few times over, on a fresh prefix holding the template: a job flushes
# checkpoints 1 .. 8 (SCR_FETCH=0, so it never restarts from what the adds
# index), and as soon as its first flush is in the index, two scr-index
# --add run at once, one per scavenged dataset. At the end of each round
# both adds succeeded, the index is readable and lists every flushed
# checkpoint and both added ones, complete.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup index_add_race

index=$top_builddir/cli/scr-index
scavenge=$top_builddir/cli/scr-scavenge
rounds=4

# --- the template: datasets 11 and 12 scavenged, not indexed -------------------------
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --steps 12
mpi_expect_restart "a_job_leaves_checkpoints_11_and_12_in_cache" 0 12
failed=
for node in node0 node1; do
    for id in 11 12; do
        "$scavenge" --node "$node" --id "$id" > "$scratch/scavenge.out" 2>&1 ||
            failed="$failed $node/$id: $(cat "$scratch/scavenge.out")"
    done
done
check "both_datasets_are_scavenged_from_every_node" test -z "$failed"
check "the_scavenged_datasets_have_no_summary_and_no_index" \
    test -d "$prefix/.scr/scr.dataset.11" -a ! -e "$prefix/.scr/scr.dataset.11/summary.scr" \
    -a ! -e "$prefix/.scr/index.scr"
# an index without datasets: the 28 bytes of a hash file holding an empty tree
printf '\225\037\303\365\000\001\000\001\000\000\000\000\000\000\000\034\000\000\000\001\000\000\000\000\002\024\232\016' \
    > "$prefix/.scr/index.scr"
check "the_template_index_lists_no_dataset" sh -c "'$index' --prefix '$prefix' | awk 'END { exit NR != 1 }'"
rm -rf "$scratch/template" && cp -a "$prefix" "$scratch/template"

# add_in_background ID: scr-index --add of scr.dataset.ID; pid in $add_pid
add_in_background() {
    "$index" --add "scr.dataset.$1" > "$scratch/add$1.out" 2>&1 &
    add_pid=$!
}

round=1
while [ $round -le $rounds ]; do
    mpi_reset
    cp -a "$scratch/template/." "$prefix/" || exit 99
    mpi_start 4 2 SCR_FLUSH=1 SCR_FETCH=0 -- --steps 8
    # the race starts once the job's first flush is in the index
    waited=0
    while [ -z "$(mpi_index_id ckpt.1)" ] && [ $waited -lt 600 ] && kill -0 "$_mpi_bg_pid" 2> /dev/null; do
        sleep 0.1
        waited=$((waited + 1))
    done
    add_in_background 11
    pid11=$add_pid
    add_in_background 12
    pid12=$add_pid
    wait "$pid11"
    status11=$?
    wait "$pid12"
    status12=$?
    job_done_first=0
    kill -0 "$_mpi_bg_pid" 2> /dev/null || job_done_first=1
    mpi_wait
    mpi_expect_restart "round_${round}_the_job_flushes_checkpoints_1_to_8" 0 8
    echo "# round $round: the job had $( [ $job_done_first -eq 1 ] && echo "finished" || echo "not finished") when both adds were done"
    check "round_${round}_both_adds_index_their_dataset_complete" \
        test "$status11 $status12" = "0 0"
    check "round_${round}_the_index_is_readable_after_the_race" "$index" --prefix "$prefix"
    lost=
    for step in 1 2 3 4 5 6 7 8 11 12; do
        id=$(mpi_index_id "ckpt.$step")
        if [ -z "$id" ] || ! mpi_index_has "DSET/$id/COMPLETE/1"; then lost="$lost ckpt.$step"; fi
    done
    check "round_${round}_no_entry_is_lost_and_every_one_is_complete" test -z "$lost"
    [ -z "$lost" ] || echo "# lost:$lost; $(cat "$scratch/add11.out" "$scratch/add12.out")"
    round=$((round + 1))
done

done_testing
