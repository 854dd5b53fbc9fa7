#!/bin/sh
# test_restart_ranks.sh — a run with another number of ranks than the one
# that wrote the checkpoint reads it whole: any rank may route any file of
# it, from its node's cache where that holds the file, else from the
# prefix. 4 ranks write; 2 and 6 ranks read (scr_test_app --written-by 4:
# every file is read, some by two ranks, every byte checked).
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup restart-ranks

write4() { # four ranks as four nodes write ckpt.1 .. ckpt.3 (ARGS: extra VAR=VALUE)
    mpi_reset
    mpi_run 4 4 SCR_COPY_TYPE=XOR SCR_SET_SIZE=4 "$@" -- --steps 3 --files 2 --size 3000
    mpi_expect_restart "4 ranks write three checkpoints" 0 3
}

# --- from the prefix: every cache lost ---------------------------------------------
write4 SCR_FLUSH=1
mpi_lose_all_nodes
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "4 -> 2 ranks, from the prefix: every file read back" 3 4
check "the 2-rank run's own checkpoint is flushed beside it" test -f "$prefix/ckpt.4/rank1_f1.dat"
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 5 --files 2 --size 3000
mpi_expect_restart "then 2 -> 2 ranks: the usual restart from the 2-rank checkpoint" 4 5

write4 SCR_FLUSH=1
mpi_lose_all_nodes
mpi_run 6 3 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4 --restart-by-path
mpi_expect_restart "4 -> 6 ranks, from the prefix, files named by path" 3 4

# a compressed flush (SCR_FLUSH_COMPRESS): each rank expands what it reads
mpi_reset
mpi_run 4 4 SCR_COPY_TYPE=XOR SCR_SET_SIZE=4 SCR_FLUSH=1 SCR_FLUSH_COMPRESS=1 -- --steps 3 --files 2 --size 30000 \
    --compressible 2
mpi_expect_restart "4 ranks write three checkpoints, flushed compressed" 0 3
check "the prefix holds them as gzip" gzip -t "$prefix/ckpt.3/rank3_f1.dat"
mpi_lose_all_nodes
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 30000 --compressible 2 --written-by 4
mpi_expect_restart "4 -> 2 ranks from a compressed flush: every file expanded and read back" 3 4

# --- from cache: a damaged prefix copy is not read where a node holds the file -----
write4 SCR_FLUSH=1
for r in 0 1; do mpi_flip_byte "$prefix/ckpt.3/rank${r}_f0.dat" 100; done
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "4 -> 2 ranks: nodes 0 and 1 read their own cached copies, the rest the prefix" 3 4

# rank r runs on node r and reads writer r's files (r < 4), which node r
# holds; ranks 4 and 5 read writers 0 and 1 from the prefix
write4 SCR_FLUSH=1
for r in 2 3; do mpi_flip_byte "$prefix/ckpt.3/rank${r}_f1.dat" 7; done
mpi_run 6 6 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "4 -> 6 ranks on 6 nodes: cached copies where the node has them" 3 4

# a file only the prefix has, damaged there: the restart falls back to ckpt.2
write4 SCR_FLUSH=1
mpi_flip_byte "$prefix/ckpt.3/rank3_f1.dat" 50
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "a damaged file on the prefix only: back to ckpt.2" 2 4
check "the damage is named" grep -q "rank3_f1.dat is damaged: CRC32" "$mpi_err"
check "the checkpoint is marked failed in the index" mpi_index_has "DSET/3/FAILED"

# a damaged cached copy falls back to the prefix copy
write4 SCR_FLUSH=1
for f in "$scratch"/cache/node0/*/*/scr.dataset.3/ckpt.3/rank0_f0.dat; do mpi_flip_byte "$f" 9; done
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "a damaged cached copy: the prefix copy is read instead" 3 4
check "the damaged copy is named" grep -q "cached copy .*rank0_f0.dat is damaged" "$mpi_err"

# --- what cannot work -------------------------------------------------------------
# in cache only: not every rank could reach every file
write4 SCR_FLUSH=0
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "a checkpoint of 4 ranks in cache only: 2 ranks start afresh" 0 4
check "and are told why and what to do" \
    grep -q "written by 4 ranks and is in cache only: a run of 2 ranks can restart from it once it is on the prefix" \
    "$mpi_err"

# a name the checkpoint does not have: that restart fails, every older one too
write4 SCR_FLUSH=1
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 5
mpi_expect_restart "a file the checkpoint lacks: no restart, a fresh start" 0 4
check "the missing name is said" grep -q "checkpoint ckpt.3 has no file rank4_f0.dat" "$mpi_err"

# a file missing on the prefix (and in every cache): the next older checkpoint
write4 SCR_FLUSH=1
mpi_lose_all_nodes
rm "$prefix/ckpt.3/rank2_f0.dat"
mpi_run 2 2 SCR_COPY_TYPE=XOR SCR_SET_SIZE=2 -- --steps 4 --files 2 --size 3000 --written-by 4
mpi_expect_restart "a file missing on the prefix: back to ckpt.2" 2 4
check "the missing file is named" grep -q "rank2_f0.dat (rank 2 of the run that wrote it) is missing" "$mpi_err"

done_testing
