#!/bin/sh
# test_cache_crc.sh — with the defaults (SCR_CRC_ON_COPY=0) every file in
# cache gets a CRC32 when its checkpoint completes (SINGLE: from a thread,
# recorded at a later call), and a flipped bit is caught wherever cached
# bytes are trusted.
#
# Each case: 4 ranks on 2 simulated nodes, SCR_CACHE_SIZE=2, a job stopped
# right after its third checkpoint (ckpt.2 and ckpt.3 in cache, nothing on the
# prefix), then one bit of rank 2's file in scr.dataset.3 flipped.
#   - restart, SINGLE, XOR and PARTNER: SCR_Init reads nothing (no file is
#     lost); the restart of ckpt.3 fails in SCR_Complete_restart with one
#     line naming the dataset, the rank, the file and both CRCs, and the
#     restart comes from ckpt.2 (the application calls its read valid and
#     leaves the check to SCR); a damaged PARTNER copy is found by the
#     rebuild that reads it, after a node is lost, and ckpt.2 is used;
#   - scr-scavenge then scr-index --add: the damaged file is not copied; XOR
#     rebuilds it byte-exact on the prefix, SINGLE indexes the dataset
#     incomplete, never complete with the flipped bit;
#   - a bit flipped on the prefix after a clean scavenge: scr-index --add
#     finds it by its CRC, with the same outcomes;
#   - files fetched from the prefix into cache get CRCs too, even when the
#     prefix has none;
#   - a file damaged while the job runs, after its checkpoint completed and
#     before the flush at SCR_Finalize (SCR_FLUSH set, the checkpoint not
#     flushed when it completed): the flush compares the CRC of the bytes it
#     copies with the one recorded at the checkpoint and refuses, naming the
#     file; nothing of the dataset stays on the prefix or in the index;
#   - SINGLE, a job killed once a thread noted the CRCs of the checkpoint
#     that just completed, before its rank recorded them: the next SCR_Init
#     takes them from the note, and a bit flipped meanwhile fails the
#     restart;
#   - SINGLE, a rank killed right after SCR_Complete_checkpoint with the
#     CRCs never noted: the restart uses the checkpoint, each rank says in
#     one line per file that it was read unchecked and records its CRC, so
#     that a bit flipped after that fails the next restart.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup cache-crc

scavenge=$top_builddir/cli/scr-scavenge
index=$top_builddir/cli/scr-index
app_args="--steps 4 --size 4000"

# stopped_after_3 TYPE: the job of every case; $cached names rank 2's file of
# ckpt.3 in cache, and $scratch/orig.dat keeps its bytes
stopped_after_3() {
    mpi_reset
    # shellcheck disable=SC2086 # the arguments are meant to be split
    mpi_run 4 2 SCR_CACHE_SIZE=2 SCR_COPY_TYPE="$1" -- $app_args --crash-after 3 --crash-rank 0
    mpi_expect_killed "$1:_the_job_is_stopped_after_its_third_checkpoint" 3
    cached=$(find "$scratch/cache/node1" -path '*/scr.dataset.3/*' -name 'rank2_f0.dat')
    if [ -f "$cached" ] && cp "$cached" "$scratch/orig.dat"; then
        ok "$1:_rank_2's_file_of_ckpt.3_is_in_node1's_cache"
    else
        not_ok "$1:_rank_2's_file_of_ckpt.3_is_in_node1's_cache" "no such file in $scratch/cache/node1"
    fi
}

# restart TYPE: the next run, with the same settings; the application calls
# what it read valid, so that SCR's own checks decide
restart() {
    # shellcheck disable=SC2086
    mpi_run 4 2 SCR_CACHE_SIZE=2 SCR_COPY_TYPE="$1" -- $app_args --leave-check-to-scr
}

# logged_once NAME: stderr of the last run names the damage in exactly one line
logged_once() {
    _n=$(grep -cE "dataset 3 \(ckpt\.3\): rank 2's file [^ ]*/rank2_f0\.dat is damaged: CRC32 0x[0-9a-f]{8} found, 0x[0-9a-f]{8} recorded" "$mpi_err")
    if [ "$_n" -eq 1 ]; then ok "$1"; else not_ok "$1" "said $_n times
$(mpi_diag)"; fi
}

# scavenge_all: scr-scavenge on both nodes; the exit statuses in $scavenged
scavenge_all() {
    scavenged=
    for _n in 0 1; do
        "$scavenge" --node "node$_n" > "$scratch/scavenge$_n.out" 2> "$scratch/scavenge$_n.err"
        scavenged="$scavenged$?"
    done
}

# index_add: scr-index --add of dataset 3; its exit status in $indexed
index_add() {
    "$index" --add scr.dataset.3 > "$scratch/index.out" 2> "$scratch/index.err"
    indexed=$?
}

index_says() {
    "$mpi_print" "$prefix/.scr/index.scr" | tr -s ' \n' ' ' | grep -q "$1"
}

# --- restart from cache ---------------------------------------------------------------

for type in SINGLE XOR PARTNER; do
    stopped_after_3 $type
    mpi_flip_bit "$cached" 1000 3
    restart $type
    mpi_expect_lines "$type:_the_restart_of_the_damaged_ckpt.3_fails_and_the_restart_comes_from_ckpt.2" \
        "restart from ckpt.3 failed" "restarted from step 2" "finished step 4"
    logged_once "$type:_the_damage_is_logged_once_with_dataset_rank_file_and_both_CRCs"
done

# a damaged PARTNER copy is not read while nothing is lost; the rebuild that
# needs it (node1 lost) reads it, names it, and cannot use ckpt.3, so the
# restart comes from ckpt.2, rebuilt from its intact copies
stopped_after_3 PARTNER
copy=$(find "$scratch/cache/node0" -path '*/scr.dataset.3/partner.2/*' -name 'rank2_f0.dat')
check "PARTNER:_node0_holds_the_copy_of_rank_2's_file_of_ckpt.3" test -f "$copy"
mpi_flip_bit "$copy" 1000 3
mpi_run 4 2 SCR_CACHE_SIZE=2 SCR_COPY_TYPE=PARTNER SCR_FLUSH=0 -- --steps 3 --size 4000 --leave-check-to-scr
mpi_expect_restart "PARTNER:_with_nothing_lost_the_restart_comes_from_ckpt.3" 3 3
check "PARTNER:_with_nothing_lost_the_damaged_copy_is_not_read" sh -c "! grep -q 'is damaged' '$mpi_err'"
mpi_lose_node 1
restart PARTNER
mpi_expect_restart "PARTNER:_with_the_copy_damaged_and_node1_lost_the_restart_comes_from_ckpt.2" 2 4
check "PARTNER:_the_rebuild_names_the_damaged_copy" \
    grep -qE "dataset 3 \(ckpt\.3\): rank 2's file [^ ]*/partner\.2/[^ ]*rank2_f0\.dat is damaged: CRC32" "$mpi_err"

# --- scr-scavenge and scr-index --add ----------------------------------------------------

for type in SINGLE XOR; do
    stopped_after_3 $type
    mpi_flip_bit "$cached" 1000 3
    scavenge_all
    check "$type:_the_scavenge_of_node1_fails" test "$scavenged" = 01
    check "$type:_the_scavenge_names_the_damaged_file" grep -q "rank2_f0.dat is damaged in cache" "$scratch/scavenge1.err"
    check "$type:_the_damaged_file_is_not_on_the_prefix" test ! -e "$prefix/ckpt.3/rank2_f0.dat"
    index_add
    if [ $type = XOR ]; then
        check "XOR:_index_add_rebuilds_the_file_from_XOR" test "$indexed" -eq 0
        check "XOR:_the_rebuilt_file_is_byte_exact" cmp "$scratch/orig.dat" "$prefix/ckpt.3/rank2_f0.dat"
        check "XOR:_the_dataset_is_indexed_complete" index_says "DSET 3 COMPLETE 1"
    else
        check "SINGLE:_index_add_says_incomplete" test "$indexed" -eq 3
        check "SINGLE:_the_dataset_is_indexed_incomplete_missing_rank_2" index_says "DSET 3 COMPLETE 0 .*MISSING 2"
    fi
done

# --- a bit flipped on the prefix, after a clean scavenge --------------------------------

for type in SINGLE XOR; do
    stopped_after_3 $type
    scavenge_all
    check "$type:_a_clean_cache_is_scavenged" test "$scavenged" = 00
    check "$type:_the_scavenged_copy_is_byte_exact" cmp "$scratch/orig.dat" "$prefix/ckpt.3/rank2_f0.dat"
    mpi_flip_bit "$prefix/ckpt.3/rank2_f0.dat" 1000 3
    index_add
    check "$type:_index_add_names_the_damaged_file_on_the_prefix" grep -q "rank2_f0.dat is damaged: CRC32" "$scratch/index.err"
    if [ $type = XOR ]; then
        check "XOR:_index_add_rebuilds_the_damaged_file_on_the_prefix" test "$indexed" -eq 0
        check "XOR:_the_file_rebuilt_on_the_prefix_is_byte_exact" cmp "$scratch/orig.dat" "$prefix/ckpt.3/rank2_f0.dat"
        mpi_lose_all_nodes
        restart XOR
        mpi_expect_restart "XOR:_a_restart_reads_the_rebuilt_ckpt.3_from_the_prefix" 3 4
    else
        check "SINGLE:_index_add_of_a_damaged_prefix_copy_says_incomplete" test "$indexed" -eq 3
        check "SINGLE:_the_damaged_prefix_copy_is_indexed_incomplete" index_says "DSET 3 COMPLETE 0 .*MISSING 2"
        mpi_lose_all_nodes
        restart SINGLE
        mpi_expect_restart "SINGLE:_a_restart_never_reads_the_damaged_ckpt.3" 0 4
    fi
done

# --- files fetched from the prefix into cache ----------------------------------------

# written straight to the prefix without CRCs (SCR_CACHE_BYPASS=1,
# SCR_CRC_ON_FLUSH=0), then fetched into cache: the fetch records the CRCs
# it computes in the filemap (a fetched dataset has no redundancy record
# and is not restarted from in cache: a bit flipped in the fetched copy is
# never read, and ckpt.2 comes from the prefix again)
mpi_reset
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_CRC_ON_FLUSH=0 -- --steps 2 --size 4000
mpi_expect_restart "fetch:_two_checkpoints_go_to_the_prefix_without_CRCs" 0 2
check "fetch:_the_summary_of_ckpt.2_has_no_CRC" \
    sh -c "'$mpi_print' '$prefix/.scr/scr.dataset.2/summary.0.scr' | grep -q SIZE && ! '$mpi_print' '$prefix/.scr/scr.dataset.2/summary.0.scr' | grep -q CRC"
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2 --size 4000
mpi_expect_restart "fetch:_the_restart_fetches_ckpt.2_into_cache" 2 2
fetched=$(find "$scratch/cache/node1" -path '*/scr.dataset.2/*' -name 'rank2_f0.dat')
check "fetch:_rank_2's_file_was_fetched_into_node1's_cache" test -f "$fetched"
filemap=$(grep -l "rank2_f0.dat" "$scratch"/cntl/node1/*/*/filemap_*.scrinfo | head -n 1)
check "fetch:_the_fetch_recorded_the_CRC_of_rank_2's_copy" \
    sh -c "'$mpi_print' '$filemap' | tr -s ' \n' ' ' | grep -qE 'rank2_f0\.dat META [^/]* CRC 0x[0-9a-f]{8}'"
mpi_flip_bit "$fetched" 1000 3
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2 --size 4000 --leave-check-to-scr
mpi_expect_restart "fetch:_the_next_restart_reads_ckpt.2_from_the_prefix_again" 2 2

# --- a file damaged in cache before the flush ---------------------------------------

# rank 2 inverts a byte of its ckpt.2 file once the checkpoint completed; the
# flush at SCR_Finalize then copies bytes whose CRC differs from the one
# recorded (SCR_FLUSH=5: neither checkpoint was flushed when it completed)
mpi_reset
mpi_run 4 2 SCR_FLUSH=5 -- --steps 2 --size 4000 --damage-after 2 --damage-rank 2
check "flush:_rank_2_damaged_its_cached_file_of_ckpt.2" grep -q "^rank 2: damaged byte 2002 of .*/rank2_f0.dat$" "$mpi_out"
_said=$(grep -cE "flush of [^ ]*/scr\.dataset\.2/ckpt\.2/rank2_f0\.dat: CRC32 0x[0-9a-f]{8} differs from 0x[0-9a-f]{8} recorded when it was written; the file in cache is damaged" "$mpi_err")
if [ "$mpi_status" -ne 0 ] && [ "$_said" -eq 1 ]; then
    ok "flush:_the_final_flush_fails_naming_the_damaged_file_and_both_CRCs_once"
else
    not_ok "flush:_the_final_flush_fails_naming_the_damaged_file_and_both_CRCs_once" "said $_said times
$(mpi_diag)"
fi
check "flush:_the_damaged_ckpt.2_is_not_in_the_index" test -z "$(mpi_index_id ckpt.2)"
check "flush:_no_summary_calls_dataset_2_flushed" test ! -e "$prefix/.scr/scr.dataset.2/summary.scr"
check "flush:_no_file_of_ckpt.2_is_left_on_the_prefix" test -z "$(find "$prefix/ckpt.2" -type f 2> /dev/null)"

# --- SINGLE: a process killed before its rank recorded the CRCs -------------------------

single="SCR_COPY_TYPE=SINGLE SCR_FLUSH=0 SCR_CACHE_SIZE=2"

# every process dies once its thread noted the CRCs of ckpt.1 (the first
# thread to note kills its process, which ends the job: the other ranks'
# notes may or may not be written by then), before any rank recorded them;
# a file whose CRC a note holds then loses a bit
mpi_reset
# shellcheck disable=SC2086 # $single holds several settings
mpi_run 4 2 $single SCRTEST_CRC_ASYNC=crash-after-note -- --steps 2 --size 4000
mpi_expect_killed "noted:_the_job_dies_once_a_thread_noted_its_CRCs" 1
note=$(find "$scratch/cntl" -name 'crc_*.scrinfo' | head -n 1)
noted=$("$mpi_print" "$note" 2> /dev/null | awk '$1 == "FILE" { getline; print $1; exit }')
check "noted:_a_note_names_a_file_of_ckpt.1_in_cache" test -f "$noted"
mpi_flip_bit "$noted" 1000 3
# shellcheck disable=SC2086
mpi_run 4 2 $single -- --steps 2 --size 4000 --leave-check-to-scr
mpi_expect_lines "noted:_the_restart_of_the_damaged_ckpt.1_fails_and_the_run_starts_fresh" \
    "restart from ckpt.1 failed" "fresh start" "finished step 2"
check "noted:_the_damaged_file_is_named_by_the_CRC_taken_from_the_note" \
    grep -qF "file $noted is damaged: CRC32" "$mpi_err"

# rank 0 is killed right after ckpt.3 completes and no CRC of it is ever
# noted or recorded (SCRTEST_CRC_ASYNC=lost): the restart reads it unchecked
# and says so, once per file; a bit flipped after that is caught
mpi_reset
# shellcheck disable=SC2086 # $single holds several settings
mpi_run 4 2 $single SCRTEST_CRC_ASYNC=lost -- --steps 4 --size 4000 --crash-after 3 --crash-rank 0
mpi_expect_killed "lost:_rank_0_is_killed_right_after_ckpt.3_completes" 3
# shellcheck disable=SC2086 # $single holds several settings
mpi_run 4 2 $single -- --steps 3 --size 4000 --leave-check-to-scr
mpi_expect_restart "lost:_the_restart_comes_from_ckpt.3" 3 3
_n=$(grep -cE "dataset 3 \(ckpt\.3\): rank [0-3]'s file [^ ]*/rank[0-3]_f0\.dat had no CRC recorded .* read it unchecked; its CRC is recorded now" "$mpi_err")
if [ "$_n" -eq 4 ]; then
    ok "lost:_each_rank_says_once_that_its_file_was_read_unchecked"
else
    not_ok "lost:_each_rank_says_once_that_its_file_was_read_unchecked" "said $_n times
$(mpi_diag)"
fi
cached=$(find "$scratch/cache/node0" -path '*/scr.dataset.3/*' -name 'rank0_f0.dat')
mpi_flip_bit "$cached" 1000 3
# shellcheck disable=SC2086 # $single holds several settings
mpi_run 4 2 $single -- --steps 3 --size 4000 --leave-check-to-scr
mpi_expect_lines "lost:_the_CRC_recorded_at_the_restart_catches_a_later_flip" \
    "restart from ckpt.3 failed" "restarted from step 2" "finished step 3"
check "lost:_the_later_flip_is_named" \
    grep -qE "dataset 3 \(ckpt\.3\): rank 0's file [^ ]*/rank0_f0\.dat is damaged: CRC32" "$mpi_err"

done_testing
