#!/bin/sh
# test_redundancy.sh — PARTNER, XOR and RS: lost nodes rebuilt in cache.
#
# Each case writes two checkpoints (SCR_FLUSH=0: nothing on the prefix, so a
# restart can only come from the cache), keeps a copy of every node's cache
# and control directories, and then, for each loss pattern, puts that copy
# back, deletes the lost nodes' directories and restarts. The application
# checks every byte it reads back. Files are of uneven sizes, some empty,
# with one rank writing none, and the streaming buffer is small so that
# data crosses many pieces.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy

write_args="--steps 2 --files 2 --size 9000 --uneven --no-files 1"
restart_args="--steps 3 --files 2 --size 9000 --uneven --no-files 1"
common="SCR_FLUSH=0 SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=4096 SCR_MPI_BUF_SIZE=4096"

snapshot() {
    rm -rf "$scratch/saved" && mkdir "$scratch/saved" &&
        cp -a "$scratch/cache" "$scratch/cntl" "$scratch/saved/"
}
restore() {
    rm -rf "$scratch/cache" "$scratch/cntl" &&
        cp -a "$scratch/saved/cache" "$scratch/saved/cntl" "$scratch/"
}

# write TYPE RANKS NODES: the two checkpoints every pattern starts from
write() {
    mpi_reset
    # shellcheck disable=SC2086 # the settings are meant to be split
    mpi_run "$2" "$3" $common SCR_COPY_TYPE="$1" -- $write_args
    mpi_expect_restart "$1_on_$2_ranks_as_$3_nodes_writes_two_checkpoints" 0 2
    snapshot
}

# restart_after TYPE RANKS NODES "LOST NODES" STEP [VAR=VALUE...]
restart_after() {
    type=$1 ranks=$2 nodes=$3 lost=$4 step=$5
    shift 5
    restore
    for n in $lost; do mpi_lose_node "$n"; done
    # shellcheck disable=SC2086
    mpi_run "$ranks" "$nodes" $common "$@" -- $restart_args
    label=$(echo "$lost" | tr ' ' '_')
    if [ "$step" -eq 2 ]; then
        mpi_expect_restart "${type}_${ranks}_ranks_losing_node_${label}_rebuilds_checkpoint_2" 2 3
    else
        mpi_expect_restart "${type}_${ranks}_ranks_losing_node_${label}_cannot_rebuild_and_starts_fresh" 0 3
        check "${type}_${ranks}_ranks_losing_node_${label}_says_why_in_one_line" \
            test "$(grep -c "cannot be rebuilt from cache" "$mpi_err")" -eq 1
    fi
}

# --- 8 ranks as 4 nodes: each set has a member on every node ----------------------
write PARTNER 8 4
for lost in 0 1 2 3; do restart_after PARTNER 8 4 "$lost" 2; done
restart_after PARTNER 8 4 "1 2" 0

write XOR 8 4
for lost in 0 1 2 3; do restart_after XOR 8 4 "$lost" 2; done
restart_after XOR 8 4 "0 3" 0

write RS 8 4
for lost in "0 1" "0 2" "0 3" "1 2" "1 3" "2 3"; do restart_after RS 8 4 "$lost" 2; done
restart_after RS 8 4 "0 1 2" 0

# --- 16 ranks as 8 nodes: two sets per level, a loss in each ------------------------
write XOR 16 8
restart_after XOR 16 8 "1 6" 2
restart_after XOR 16 8 "2 3" 0
write RS 16 8
restart_after RS 16 8 "0 1 4 5" 2

# --- spare nodes, moved ranks, damaged redundancy data --------------------------------
write XOR 8 4
restart_after XOR 8 4 "1" 2 SCR_SIM_SPARE=1=node9
check "the_spare_node_now_holds_the_rebuilt_files" test -d "$scratch/cache/node9"

# 8 ranks of 4 nodes restarted on 2 nodes: ranks 2-3 move to node0, and the
# files of ranks 4-7 (on nodes 2 and 3, not in this run) are rebuilt by RS
write RS 8 4
restart_after RS 8 2 "" 2

# a damaged XOR file is found by its CRC and rebuilt like a lost member
write XOR 8 4
restore
xor=$(find "$scratch/cache/node2" -name '*.xor' | head -1)
mpi_flip_byte "$xor" 300
snapshot
restart_after XOR 8 4 "" 2
check "a_damaged_XOR_file_alone_is_rebuilt" test -n "$xor"
# with a node of the same set lost too, it cannot be
restart_after XOR 8 4 "1" 0

# uneven ranks per node: 3 ranks on 2 nodes make one XOR set {0, 2} and a
# set of one, rank 1, which is SINGLE in effect; both kinds work side by side
write XOR 3 2
restart_after XOR 3 2 "1" 2
restart_after XOR 3 2 "0" 0

# --- several pieces in flight: a file buffer of four pieces, and files long
# enough for several groups of four, the last one short ----------------------------
write_args="--steps 2 --files 2 --size 70000 --uneven --no-files 1"
restart_args="--steps 3 --files 2 --size 70000 --uneven --no-files 1"
common="SCR_FLUSH=0 SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=16384 SCR_MPI_BUF_SIZE=4096"
write PARTNER 8 4
restart_after PARTNER 8 4 "2" 2
write XOR 8 4
restart_after XOR 8 4 "3" 2
write RS 8 4
restart_after RS 8 4 "0 2" 2
restart_after RS 8 2 "" 2
write_args="--steps 2 --files 2 --size 9000 --uneven --no-files 1"
restart_args="--steps 3 --files 2 --size 9000 --uneven --no-files 1"
common="SCR_FLUSH=0 SCR_SET_SIZE=4 SCR_SET_FAILURES=2 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=4096 SCR_MPI_BUF_SIZE=4096"

# a relaunch on fewer ranks cannot re-form the sets: a fresh start, not a failure
write XOR 8 4
restore
# shellcheck disable=SC2086
mpi_run 4 2 $common -- $restart_args
mpi_expect_restart "XOR_8_ranks_relaunched_on_4_ranks_starts_fresh" 0 3

done_testing
