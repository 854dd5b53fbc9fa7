#!/bin/sh
# test_cache_crc.sh — with the defaults (SCR_CRC_ON_COPY=0) every file in
# cache has a CRC32 from the moment its checkpoint completes, and a flipped
# bit is caught wherever cached bytes are trusted.
#
# Each case: 4 ranks on 2 simulated nodes, SCR_CACHE_SIZE=2, a job stopped
# right after its third checkpoint (ckpt.2 and ckpt.3 in cache, nothing on the
# prefix), then one bit of rank 2's file in scr.dataset.3 flipped.
#   - restart, SINGLE: ckpt.3 is dropped with one line naming the dataset,
#     the rank, the file and both CRCs; the restart comes from ckpt.2;
#   - restart, XOR: the file is rebuilt from XOR and the restart comes from
#     ckpt.3, every byte checked by the application; PARTNER: the copy on the
#     other node stands in for it;
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
#     file; nothing of the dataset stays on the prefix or in the index.
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

# restart TYPE: the next run, with the same settings
restart() {
    # shellcheck disable=SC2086
    mpi_run 4 2 SCR_CACHE_SIZE=2 SCR_COPY_TYPE="$1" -- $app_args
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

stopped_after_3 SINGLE
mpi_flip_bit "$cached" 1000 3
restart SINGLE
mpi_expect_restart "SINGLE:_the_damaged_ckpt.3_is_dropped_and_the_restart_comes_from_ckpt.2" 2 4
logged_once "SINGLE:_the_damage_is_logged_once_with_dataset_rank_file_and_both_CRCs"

stopped_after_3 XOR
mpi_flip_bit "$cached" 1000 3
restart XOR
mpi_expect_restart "XOR:_the_damaged_file_is_rebuilt_and_the_restart_comes_from_ckpt.3" 3 4
logged_once "XOR:_the_damage_is_logged_once_with_dataset_rank_file_and_both_CRCs"

stopped_after_3 PARTNER
mpi_flip_bit "$cached" 1000 3
restart PARTNER
mpi_expect_restart "PARTNER:_the_neighbour's_copy_replaces_the_damaged_file;_the_restart_comes_from_ckpt.3" 3 4
logged_once "PARTNER:_the_damage_is_logged_once_with_dataset_rank_file_and_both_CRCs"

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
# it computes, so the next SCR_Init names a bit flipped in the fetched copy
# (a fetched dataset has no redundancy record and is not restarted from in
# cache either way: ckpt.2 comes from the prefix again)
mpi_reset
mpi_run 4 2 SCR_CACHE_BYPASS=1 SCR_CRC_ON_FLUSH=0 -- --steps 2 --size 4000
mpi_expect_restart "fetch:_two_checkpoints_go_to_the_prefix_without_CRCs" 0 2
check "fetch:_the_summary_of_ckpt.2_has_no_CRC" \
    sh -c "! '$mpi_print' '$prefix/.scr/scr.dataset.2/summary.scr' | grep -q CRC"
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2 --size 4000
mpi_expect_restart "fetch:_the_restart_fetches_ckpt.2_into_cache" 2 2
fetched=$(find "$scratch/cache/node1" -path '*/scr.dataset.2/*' -name 'rank2_f0.dat')
check "fetch:_rank_2's_file_was_fetched_into_node1's_cache" test -f "$fetched"
mpi_flip_bit "$fetched" 1000 3
mpi_run 4 2 SCR_FLUSH=0 -- --steps 2 --size 4000
mpi_expect_restart "fetch:_the_next_restart_reads_ckpt.2_from_the_prefix_again" 2 2
check "fetch:_the_CRC_the_fetch_recorded_names_the_damaged_copy" \
    grep -qE "dataset 2 \(ckpt\.2\): rank 2's file [^ ]*/rank2_f0\.dat is damaged: CRC32" "$mpi_err"

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

done_testing
