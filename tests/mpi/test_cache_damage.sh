#!/bin/sh
# test_cache_damage.sh — one byte of a cached checkpoint file is changed after
# the run that wrote it died. With SCR_CRC_ON_COPY=1 (a CRC pass of its own
# when the checkpoint completes) as with the default (the CRCs come from the
# redundancy encoding, or a pass of their own with SINGLE), the damage is
# found at SCR_Init: with SINGLE the checkpoint is dropped and the restart
# comes from the older one on the prefix; with XOR the damaged file is
# rebuilt from its set and the restart uses the cached checkpoint.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup cache-damage

# damaged_run TYPE CRC: ckpt.2 on the prefix, ckpt.3 in cache with rank 2's file
# damaged, then a restart with SCR_COPY_TYPE=TYPE and SCR_CRC_ON_COPY=CRC
damaged_run() {
    mpi_reset
    mpi_run 4 2 SCR_FLUSH=2 SCR_COPY_TYPE=$1 SCR_CRC_ON_COPY=$2 -- --steps 4 --size 4000 --crash-after 3 --crash-rank 0
    mpi_expect_killed "$1:_a_run_is_killed_after_checkpoint_3" 3
    file=$(find "$scratch/cache/node1" -path '*/scr.dataset.3/*' -name 'rank2_f0.dat')
    if [ -f "$file" ]; then
        mpi_flip_byte "$file" 1000
        ok "$1:_rank_2's_cached_file_of_ckpt.3_is_damaged"
    else
        not_ok "$1:_rank_2's_cached_file_of_ckpt.3_is_damaged" "no such file in $scratch/cache/node1"
    fi
    mpi_run 4 2 SCR_FLUSH=2 SCR_COPY_TYPE=$1 SCR_CRC_ON_COPY=$2 -- --steps 4 --size 4000
}

damaged_run SINGLE 1
mpi_expect_restart "SINGLE:_the_damaged_ckpt.3_is_not_used;_the_restart_is_from_ckpt.2_on_the_prefix" 2 4

damaged_run XOR 1
mpi_expect_restart "XOR:_the_damaged_file_is_rebuilt_and_the_restart_is_from_ckpt.3_in_cache" 3 4

damaged_run SINGLE 0
mpi_expect_restart "SINGLE_by_default:_the_damaged_ckpt.3_is_not_used;_the_restart_is_from_ckpt.2" 2 4

damaged_run XOR 0
mpi_expect_restart "XOR_by_default:_the_damaged_file_is_rebuilt_and_the_restart_is_from_ckpt.3" 3 4

done_testing
