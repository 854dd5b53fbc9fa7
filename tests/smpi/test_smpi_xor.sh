#!/bin/sh
# test_smpi_xor.sh — libscr under SimGrid's SMPI: 64 simulated ranks on 16
# simulated hosts (tests/smpi/cluster16.xml), 4 a host.
#
# Each host is a node of its own, named by MPI (no SCR_NODE_NAME): its own
# cache and control directory holding its 4 ranks' files, in XOR sets of 8
# across hosts. A checkpoint kept in cache alone survives the loss of one
# host's cache and control directories: the restart rebuilds it and the
# application checks every byte it reads. SCR_Init says once that no
# library thread runs under SMPI; a SINGLE checkpoint gets its CRCs in the
# ranks' own calls, and a restart from cache checks them there; without
# SMPI's privatization, where the ranks would share libscr's globals, it
# refuses to start, saying how to run. And libscr's own communicator split, which it uses under SMPI,
# makes the groups MPI_Comm_split makes (tests/smpi/split_check.c). All
# ranks share one table of descriptors: 64 ranks encode XOR within 100. See
# tests/smpi/smpi-lib.sh.
. "$top_srcdir/tests/smpi/smpi-lib.sh"
smpi_setup smpi-xor

settings="SCR_COPY_TYPE=XOR SCR_SET_SIZE=8 SCR_FLUSH=0 SCR_CACHE_SIZE=2"
files="--files 2 --size 20000 --uneven"

# shellcheck disable=SC2086 # the settings and arguments are meant to be split
mpi_run 64 16 $settings -- --steps 2 $files
mpi_expect_restart "64_ranks_on_16_hosts_write_two_checkpoints" 0 2

said=$(grep -c "SimGrid's SMPI: all ranks share one process, so no library thread runs" "$mpi_err")
if [ "$said" -eq 1 ]; then ok "SCR_Init_says_once_that_no_library_thread_runs"
else not_ok "SCR_Init_says_once_that_no_library_thread_runs" "said $said times"; fi

# host k holds the files of ranks 4k .. 4k+3 of checkpoint 2, and no other
wrong=
for k in $(seq 0 15); do
    got=$(find "$scratch/cache/node$k" -path '*ckpt.2/rank*_f0.dat' 2> /dev/null |
        sed 's|.*/rank\([0-9]*\)_f0\.dat$|\1|' | sort -n | tr '\n' ' ')
    want="$((4 * k)) $((4 * k + 1)) $((4 * k + 2)) $((4 * k + 3)) "
    [ "$got" = "$want" ] || wrong="$wrong node$k holds ranks '$got' (want '$want');"
done
if [ -z "$wrong" ]; then ok "each_simulated_host_is_a_node_with_its_own_cache"
else not_ok "each_simulated_host_is_a_node_with_its_own_cache" "$wrong"; fi
check "checkpoint_2_is_in_cache_alone" sh -c "! test -e '$prefix/ckpt.2'"

mpi_lose_node 5
check "host_node5_lost_its_cache_and_control_directories" sh -c "! test -e '$scratch/cache/node5' && ! test -e '$scratch/cntl/node5'"
# shellcheck disable=SC2086
mpi_run 64 16 $settings -- --steps 3 $files
mpi_expect_restart "the_restart_rebuilds_the_lost_host_and_reads_every_byte_of_checkpoint_2" 2 3

# libscr splits its communicators itself under SMPI (lib/mpi/mpi_split.h):
# the same groups, in the same order, as MPI_Comm_split's, MPI_UNDEFINED too
# and counts ranks by class (a scan up and down a tree) as a count of
# every rank's class does, and groups ranks by node name, two names of one
# hash apart, on a power of two and on a size that is not
for np in 64 45; do
    mpi_run_program "$top_builddir/tests/smpi/split_check" $np 15
    if [ "$mpi_status" -eq 0 ] && grep -q "split_check: 6 patterns agree on $np ranks" "$mpi_out"; then
        ok "libscr_splits_communicators_as_MPI_Comm_split_does_on_${np}_ranks"
    else
        not_ok "libscr_splits_communicators_as_MPI_Comm_split_does_on_${np}_ranks" "status $mpi_status: $(tail -3 "$mpi_err")"
    fi
    if [ "$mpi_status" -eq 0 ] && grep -q "split_check: 5 class patterns agree on $np ranks" "$mpi_out"; then
        ok "libscr_counts_ranks_by_class_on_${np}_ranks"
    else
        not_ok "libscr_counts_ranks_by_class_on_${np}_ranks" "status $mpi_status: $(tail -3 "$mpi_err")"
    fi
    if [ "$mpi_status" -eq 0 ] && grep -q "split_check: 3 name patterns agree on $np ranks" "$mpi_out"; then
        ok "libscr_groups_ranks_by_node_name_names_sharing_a_hash_too_on_${np}_ranks"
    else
        not_ok "libscr_groups_ranks_by_node_name_names_sharing_a_hash_too_on_${np}_ranks" "status $mpi_status: $(tail -3 "$mpi_err")"
    fi
done

# Every rank shares the one process's table of descriptors, so no rank
# holds a file through the XOR ring that it does not need there: 64 ranks
# of one file each encode within 100 descriptors (when each rank held its
# XOR file through the ring beside its own file, they took 150)
mpi_reset
cat > "$scratch/smpirun-100-fds" << EOF
#!/bin/sh
ulimit -n 100 && exec "$SMPIRUN" "\$@"
EOF
chmod +x "$scratch/smpirun-100-fds"
smpirun_saved=$SMPIRUN
SMPIRUN=$scratch/smpirun-100-fds
# shellcheck disable=SC2086
mpi_run 64 16 $settings -- --steps 2 --files 1 --size 20000
SMPIRUN=$smpirun_saved
mpi_expect_restart "64_ranks_encode_XOR_within_100_descriptors_of_their_shared_process" 0 2
check "no_rank_ran_out_of_descriptors" sh -c "! grep -q 'Too many open files' '$mpi_err'"

# SINGLE: no library thread runs, so each rank computes its CRCs in
# SCR_Complete_checkpoint and checks the files of a restart in
# SCR_Complete_restart; a bit flipped in cache fails that restart, naming
# the file, and the older checkpoint follows
mpi_reset
mpi_run 8 2 SCR_COPY_TYPE=SINGLE SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --steps 2 --size 4000
mpi_expect_restart "SINGLE:_8_ranks_on_2_hosts_write_two_checkpoints" 0 2
cached=$(find "$scratch/cache/node1" -path '*/scr.dataset.2/*' -name 'rank5_f0.dat')
mpi_flip_bit "$cached" 1000 3
mpi_run 8 2 SCR_COPY_TYPE=SINGLE SCR_FLUSH=0 SCR_CACHE_SIZE=2 -- --steps 2 --size 4000 --leave-check-to-scr
mpi_expect_lines "SINGLE:_the_restart_of_the_damaged_ckpt.2_fails_and_ckpt.1_follows" \
    "restart from ckpt.2 failed" "restarted from step 1" "finished step 2"
check "SINGLE:_the_damaged_file_is_named" \
    grep -qE "dataset 2 \(ckpt\.2\): rank 5's file [^ ]*/rank5_f0\.dat is damaged: CRC32" "$mpi_err"

SMPI_RUN_ARGS=--cfg=smpi/privatization:no mpi_run 4 2
mpi_expect_failure "without_privatization_SCR_Init_refuses_to_share_its_globals" \
    "here the ranks share libscr's globals: run smpirun with --cfg=smpi/privatization:dlopen"

done_testing
