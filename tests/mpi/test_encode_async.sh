#!/bin/sh
# test_encode_async.sh — with MPI_THREAD_MULTIPLE (and SCR_ENCODE_ASYNC=1,
# the default), PARTNER, XOR and RS are applied in a library thread after
# SCR_Complete_checkpoint returns; the dataset counts as protected only once
# every rank's encode finished and the ranks agreed on it at a later call.
# An application at MPI_THREAD_SINGLE, or SCR_ENCODE_ASYNC=0, keeps the
# encode before Complete returns, and so does one that computed on busy
# cores since its last checkpoint (unless SCR_ENCODE_ASYNC_BUSY=1), while
# one that sleeps between checkpoints gets every encode in the background.
# A node lost after a protected checkpoint is rebuilt from cache; a node
# lost while the newest encode had not been agreed on falls back to the
# newest protected dataset. The runs that need the background whatever the
# load of the machine set SCR_ENCODE_ASYNC_BUSY=1.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup encode-async

events=$scratch/prefix/.scr/events.jsonl
# the encode events of the log that ran in the background
background_encodes() {
    grep '"event":"encode"' "$events" 2> /dev/null | grep -c '"background":1'
}

for scheme in XOR RS PARTNER; do
    mpi_reset
    mpi_run 4 4 SCR_LOG_ENABLE=1 SCR_DEBUG=1 SCR_ENCODE_ASYNC_BUSY=1 SCR_COPY_TYPE=$scheme SCR_SET_SIZE=4 SCR_FLUSH=0 \
        SCR_CACHE_SIZE=2 -- --steps 3 --size 65536 --thread-multiple
    mpi_expect_restart "${scheme}_with_MPI_THREAD_MULTIPLE_runs" 0 3
    check "${scheme}:_SCR_Init_says_the_encode_goes_on_in_the_background" \
        grep -q "redundancy is applied in the background" "$mpi_err"
    check "${scheme}:_every_encode_ran_in_the_background" test "$(background_encodes)" -eq 3
    check "${scheme}:_no_encode_filemap_is_left" test -z "$(find "$scratch/cntl" -name 'encode_*')"
    for lost in 0 3; do
        rm -rf "$scratch/saved" && mkdir "$scratch/saved" && cp -a "$scratch/cache" "$scratch/cntl" "$scratch/saved/"
        mpi_lose_node $lost
        mpi_run 4 4 SCR_ENCODE_ASYNC_BUSY=1 SCR_COPY_TYPE=$scheme SCR_SET_SIZE=4 SCR_FLUSH=0 -- --steps 3 --size 65536 \
            --thread-multiple
        mpi_expect_restart "${scheme}:_node_${lost}_lost:_rebuilt_from_cache" 3 3
        rm -rf "$scratch/cache" "$scratch/cntl" && cp -a "$scratch/saved/cache" "$scratch/saved/cntl" "$scratch/"
    done
done

# killed right after SCR_Complete_checkpoint of ckpt.2 returned, before any
# later call: the ranks never agreed on its encode, whether or not the
# threads had finished it
for scheme in XOR RS PARTNER; do
    mpi_reset
    run_args="SCR_ENCODE_ASYNC_BUSY=1 SCR_COPY_TYPE=$scheme SCR_SET_SIZE=4 SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --size 65536"
    run_args="$run_args --thread-multiple"
    # shellcheck disable=SC2086 # the settings are meant to be split
    mpi_run 4 4 $run_args --steps 3 --crash-after 2 --crash-rank 1
    mpi_expect_killed "${scheme}:_killed_before_the_encode_of_ckpt.2_was_agreed_on" 2
    check "${scheme}:_the_encode_thread's_filemap_names_what_it_wrote" test -n "$(find "$scratch/cntl" -name 'encode_*')"
    rm -rf "$scratch/saved" && mkdir "$scratch/saved" && cp -a "$scratch/cache" "$scratch/cntl" "$scratch/saved/"
    # every node there: ckpt.2 is intact, and used
    # shellcheck disable=SC2086
    mpi_run 4 4 $run_args --steps 3
    mpi_expect_restart "${scheme}:_every_node_kept:_restarts_from_the_unprotected_but_intact_ckpt.2" 2 3
    rm -rf "$scratch/cache" "$scratch/cntl" && cp -a "$scratch/saved/cache" "$scratch/saved/cntl" "$scratch/"
    # a node lost: ckpt.2 was never protected, ckpt.1 was
    mpi_lose_node 2
    # shellcheck disable=SC2086
    mpi_run 4 4 SCR_DEBUG=1 $run_args --steps 3
    mpi_expect_restart "${scheme}:_node_2_lost:_restarts_from_the_protected_ckpt.1" 1 3
    # the lost rank's record was SINGLE, and no neighbour had adopted a copy of its XOR, RS or PARTNER record
    check "${scheme}:_ckpt.2_cannot_be_rebuilt:_no_rank_kept_a_protected_record_of_it" \
        grep -q "dataset 2 (ckpt.2) cannot be rebuilt from cache: " "$mpi_err"
    check "${scheme}:_what_the_unfinished_encode_left_is_removed" \
        test -z "$(find "$scratch/cntl" -name 'encode_*')" -a -n "$(grep "removing what an unfinished encode left" "$mpi_err")"
done

# MPI_THREAD_SINGLE: the encode before Complete returns, said at SCR_DEBUG=1
mpi_reset
mpi_run 4 4 SCR_LOG_ENABLE=1 SCR_DEBUG=1 SCR_COPY_TYPE=XOR SCR_SET_SIZE=4 SCR_FLUSH=0 -- --steps 2
mpi_expect_restart "MPI_THREAD_SINGLE_runs" 0 2
check "MPI_THREAD_SINGLE:_SCR_Init_says_once_that_the_encode_stays_before_Complete" \
    test "$(grep -c "redundancy is applied before SCR_Complete_checkpoint returns: MPI gives MPI_THREAD_SINGLE" "$mpi_err")" -eq 1
check "MPI_THREAD_SINGLE:_no_encode_ran_in_the_background" test "$(background_encodes)" -eq 0
check "MPI_THREAD_SINGLE:_every_encode_was_logged" test "$(grep -c '"event":"encode"' "$events")" -eq 2

# Where the encode runs follows what the application did since its last
# checkpoint: sleeping (as one that waits for its GPU), it leaves the cores
# idle, and every encode goes to the background; computing on its core
# (2 ranks, each bound to a core of its own and computing 300 ms before
# each checkpoint), the encode would take its cycles from the computation,
# and every one stays before Complete returns, which rank 0 says once at
# SCR_DEBUG=1
mpi_reset
mpi_run 2 2 SCR_LOG_ENABLE=1 SCR_DEBUG=1 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 SCR_FLUSH=0 -- --steps 3 \
    --thread-multiple --sleep-ms 300
mpi_expect_restart "sleeping_between_checkpoints:_runs" 0 3
check "sleeping_between_checkpoints:_every_encode_ran_in_the_background" test "$(background_encodes)" -eq 3
check "sleeping_between_checkpoints:_no_encode_was_kept_in_the_foreground" \
    test "$(grep -c "is encoded before SCR_Complete_checkpoint returns" "$mpi_err")" -eq 0
mpi_reset
mpi_run 2 2 SCR_SIM_MPIRUN_ARGS="--bind-to core" SCR_LOG_ENABLE=1 SCR_DEBUG=1 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 \
    SCR_FLUSH=0 -- --steps 3 --thread-multiple --compute-ms 300
mpi_expect_restart "computing_between_checkpoints:_runs" 0 3
check "computing_between_checkpoints:_no_encode_ran_in_the_background" test "$(background_encodes)" -eq 0
check "computing_between_checkpoints:_every_encode_was_logged" test "$(grep -c '"event":"encode"' "$events")" -eq 3
check "computing_between_checkpoints:_rank_0_says_why,_once" \
    test "$(grep -c "dataset 1 is encoded before SCR_Complete_checkpoint returns: on [12] of 2 ranks the application computed" "$mpi_err")" -eq 1
check "computing_between_checkpoints:_and_never_goes_back" test "$(grep -c "encoded in the background again" "$mpi_err")" -eq 0
mpi_reset
mpi_run 2 2 SCR_SIM_MPIRUN_ARGS="--bind-to core" SCR_LOG_ENABLE=1 SCR_ENCODE_ASYNC_BUSY=1 SCR_COPY_TYPE=XOR \
    SCR_SET_SIZE=2 SCR_FLUSH=0 -- --steps 3 --thread-multiple --compute-ms 300
mpi_expect_restart "SCR_ENCODE_ASYNC_BUSY=1:_runs" 0 3
check "SCR_ENCODE_ASYNC_BUSY=1:_every_encode_ran_in_the_background_on_busy_cores" test "$(background_encodes)" -eq 3
# ... and where no encode runs in the background, SCR_Init says it has no effect
mpi_reset
mpi_run 2 2 SCR_ENCODE_ASYNC_BUSY=1 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 SCR_FLUSH=0 -- --steps 1
mpi_expect_restart "SCR_ENCODE_ASYNC_BUSY=1_at_MPI_THREAD_SINGLE:_runs" 0 1
check "SCR_ENCODE_ASYNC_BUSY=1_at_MPI_THREAD_SINGLE:_SCR_Init_says_it_has_no_effect" \
    grep -q "SCR_ENCODE_ASYNC_BUSY=1 (from environment) has no effect" "$mpi_err"

# SCR_ENCODE_ASYNC=0 turns it off
mpi_reset
mpi_run 4 4 SCR_LOG_ENABLE=1 SCR_ENCODE_ASYNC=0 SCR_COPY_TYPE=XOR SCR_SET_SIZE=4 SCR_FLUSH=0 -- --steps 2 --thread-multiple
mpi_expect_restart "SCR_ENCODE_ASYNC=0_runs" 0 2
check "SCR_ENCODE_ASYNC=0:_no_encode_ran_in_the_background" test "$(background_encodes)" -eq 0

done_testing
