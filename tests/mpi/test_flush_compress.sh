#!/bin/sh
# test_flush_compress.sh — SCR_FLUSH_COMPRESS=<level>: a flush stores each
# file that compresses as one gzip stream under the application's own name,
# and records it (COMPRESSED <bytes on the prefix> in the rank filemap and
# the summary); SIZE and CRC stay those of the bytes the application wrote.
# - the prefix files are smaller, `gzip -dc` gives back the exact bytes of
#   the file in cache, and a run that lost every node restarts from them
#   (the test app checks every byte); SCR_FETCH_BYPASS=1 says it cannot
#   read a compressed file in place and does not restart from it;
# - a file that does not shrink (random bytes) is stored as written, and a
#   dataset with both kinds restarts;
# - the background flush (SCR_FLUSH_ASYNC=1) compresses too;
# - a scavenge stores files as written, beside a compressed flush of an
#   older checkpoint; both restart, and scr-index --add of a compressed
#   dataset checks it (CRCs of the expanded bytes);
# - a compressed file truncated or corrupted on the prefix is named at the
#   restart, which falls back to the previous checkpoint;
# - SCR_FLUSH_COMPRESS outside 0..9 or not a number fails SCR_Init, naming it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup flush-compress

scavenge=$top_builddir/cli/scr-scavenge
index=$top_builddir/cli/scr-index
size=1048576
full=$((size + 4)) # the app writes the step first

# the size of file $1
size_of() {
    wc -c < "$1" | tr -d ' '
}
# the copy in cache of the prefix's file $1 (a path relative to the prefix)
cache_copy() {
    find "$scratch/cache" -path "*/$1" -type f | head -n 1
}
# the rank filemap or summary $1 records COMPRESSED for a file named $2
records_compressed() {
    mpi_tree_paths "$1" | grep "$2" | grep -q '/COMPRESSED/[0-9]*$'
}
# every prefix file of step $1, file $2 of each of 4 ranks, is smaller than
# written and expands (gzip -dc) to the bytes of its copy in cache
all_compressed_and_exact() {
    for _r in 0 1 2 3; do
        _f=ckpt.$1/rank${_r}_f$2.dat
        [ "$(size_of "$_f")" -lt "$full" ] || { echo "$_f: $(size_of "$_f") bytes, not smaller"; return 1; }
        _c=$(cache_copy "$_f")
        [ -n "$_c" ] || { echo "$_f: no copy in cache"; return 1; }
        gzip -dc < "$_f" > "$scratch/expanded" || { echo "$_f: gzip -d refuses it"; return 1; }
        cmp "$scratch/expanded" "$_c" || return 1
    done
}
# every prefix file of step $1, file $2, is stored as written
all_raw() {
    for _r in 0 1 2 3; do
        _f=ckpt.$1/rank${_r}_f$2.dat
        [ "$(size_of "$_f")" -eq "$full" ] || { echo "$_f: $(size_of "$_f") bytes"; return 1; }
        cmp "$_f" "$(cache_copy "$_f")" || return 1
    done
}
dsdir() {
    echo "$prefix/.scr/scr.dataset.$(mpi_index_id "$1")"
}

# --- a compressed flush and a restart from it ----------------------------------------
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_COMPRESS=1 SCR_CACHE_SIZE=2 -- --steps 2 --size $size --compressible 1
mpi_expect_restart "compressed_flush:_the_run_completes" 0 2
check "compressed_flush:_prefix_files_are_smaller_and_gzip_-d_gives_the_exact_bytes" all_compressed_and_exact 2 0
check "compressed_flush:_the_rank_filemap_records_COMPRESSED" \
    records_compressed "$(dsdir ckpt.2)/0.scrfilemap" rank0_f0.dat
check "compressed_flush:_the_summary_records_COMPRESSED" \
    records_compressed "$(dsdir ckpt.2)/summary.0.scr" rank3_f0.dat
mpi_tree_paths "$(dsdir ckpt.2)/summary.0.scr" > "$scratch/summary.paths"
check "compressed_flush:_SIZE_stays_the_size_written" grep -q "rank3_f0.dat/SIZE/$full\$" "$scratch/summary.paths"
check "compressed_flush:_COMPRESSED_is_the_size_on_the_prefix" \
    grep -q "rank3_f0.dat/COMPRESSED/$(size_of ckpt.2/rank3_f0.dat)\$" "$scratch/summary.paths"
"$index" --add "scr.dataset.$(mpi_index_id ckpt.2)" > "$scratch/index.out" 2>&1
check "compressed_flush:_scr-index_add_checks_the_CRCs_of_the_expanded_files" test $? -eq 0
mpi_lose_all_nodes
cp -a "$prefix" "$scratch/flushed"
mpi_run 4 2 SCR_FLUSH_COMPRESS=1 -- --steps 3 --size $size --compressible 1
mpi_expect_restart "compressed_flush:_every_node_lost:_restarts_from_ckpt.2_on_the_prefix" 2 3
# SCR_FETCH_BYPASS cannot read a gzip file in place: said, and no restart from it
rm -rf "$prefix" "$scratch/cache" "$scratch/cntl" && cp -a "$scratch/flushed" "$prefix" && cd "$prefix" || exit 99
mpi_run 4 2 SCR_FETCH_BYPASS=1 -- --steps 3 --size $size --compressible 1
check "fetch_bypass:_a_compressed_file_is_not_read_in_place" \
    grep -q "SCR_FETCH_BYPASS=1 cannot restart from .*ckpt.2/rank[0-3]_f0.dat in place: it is stored compressed" "$mpi_err"
check "fetch_bypass:_no_rank_restarts_from_the_compressed_ckpt.2" sh -c "! grep -q 'restarted from step 2' '$mpi_out'"

# --- random data stays raw; a dataset of both kinds ------------------------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_COMPRESS=6 -- --steps 1 --files 2 --size $size --compressible 1
mpi_expect_restart "mixed:_the_run_completes" 0 1
check "mixed:_the_compressible_file_is_stored_compressed" all_compressed_and_exact 1 0
check "mixed:_the_random_file_is_stored_as_written" all_raw 1 1
mpi_tree_paths "$(dsdir ckpt.1)/summary.0.scr" > "$scratch/summary.paths"
check "mixed:_the_summary_lists_the_random_file_without_COMPRESSED" sh -c \
    "grep -q 'rank1_f1.dat/SIZE/$full\$' '$scratch/summary.paths' && ! grep -q 'rank1_f1.dat/COMPRESSED' '$scratch/summary.paths'"
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH_COMPRESS=6 -- --steps 2 --files 2 --size $size --compressible 1
mpi_expect_restart "mixed:_every_node_lost:_restarts_from_both_kinds_of_files" 1 2

# --- the background flush ------------------------------------------------------------
mpi_reset
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_FLUSH_COMPRESS=1 SCR_CACHE_SIZE=2 -- \
    --steps 2 --size $size --compressible 1
mpi_expect_restart "background:_the_run_completes" 0 2
check "background:_prefix_files_are_compressed_and_exact" all_compressed_and_exact 2 0
check "background:_the_transfer_file_says_DONE" \
    sh -c "'$mpi_print' '$scratch/cntl/node0/'*/scr.*/transfer.scr | grep -q DONE"
mpi_lose_all_nodes
mpi_run 4 2 -- --steps 3 --size $size --compressible 1
mpi_expect_restart "background:_every_node_lost:_restarts_from_ckpt.2" 2 3

# --- a scavenge beside a compressed flush ------------------------------------------------
# ckpt.1 is flushed compressed; ckpt.2 stays in cache until the scavenge copies it
mpi_reset
mpi_run 4 2 SCR_FLUSH=2 SCR_FLUSH_COMPRESS=1 SCR_CACHE_SIZE=2 -- --steps 3 --size $size --compressible 1 \
    --crash-after 3
mpi_expect_killed "scavenge:_the_run_dies_after_ckpt.3" 3
check "scavenge:_the_flushed_ckpt.2_is_compressed" all_compressed_and_exact 2 0
failed=
for n in 0 1; do
    "$scavenge" --node "node$n" > "$scratch/scavenge.out" 2>&1 || failed="$failed node$n: $(cat "$scratch/scavenge.out")"
done
check "scavenge:_scr-scavenge_copies_ckpt.3_from_every_node" test -z "$failed"
"$index" --add scr.dataset.3 > "$scratch/index.out" 2>&1
check "scavenge:_scr-index_add_indexes_ckpt.3" test $? -eq 0
check "scavenge:_the_scavenged_files_are_stored_as_written" all_raw 3 0
mpi_lose_all_nodes
mpi_run 4 2 SCR_FLUSH_COMPRESS=1 -- --steps 4 --size $size --compressible 1
mpi_expect_restart "scavenge:_every_node_lost:_restarts_from_the_scavenged_ckpt.3" 3 4
"$index" --drop ckpt.4 > /dev/null 2>&1
"$index" --drop ckpt.3 > /dev/null 2>&1
mpi_lose_all_nodes
mpi_run 4 2 -- --steps 3 --size $size --compressible 1
mpi_expect_restart "scavenge:_with_ckpt.3_dropped:_restarts_from_the_compressed_ckpt.2" 2 3

# --- damage on the prefix -------------------------------------------------------------
# ckpt.1 and ckpt.2 flushed compressed; one file of ckpt.2 is damaged
damaged_run() {
    mpi_reset
    mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_COMPRESS=1 SCR_CACHE_SIZE=2 -- --steps 2 --size $size --compressible 1
    mpi_lose_all_nodes
}
damaged_run
victim=ckpt.2/rank1_f0.dat
stored=$(size_of "$victim")
truncate -s $((stored / 2)) "$victim"
mpi_run 4 2 -- --steps 3 --size $size --compressible 1
mpi_expect_restart "truncated:_the_restart_falls_back_to_ckpt.1" 1 3
check "truncated:_the_error_names_the_file" grep -q "$victim is truncated" "$mpi_err"

damaged_run
mpi_flip_byte "$victim" $(($(size_of "$victim") / 2))
mpi_run 4 2 -- --steps 3 --size $size --compressible 1
mpi_expect_restart "corrupted:_the_restart_falls_back_to_ckpt.1" 1 3
check "corrupted:_the_error_names_the_file" grep -q "$victim" "$mpi_err"
"$index" --add scr.dataset.2 > "$scratch/index.out" 2>&1
check "corrupted:_scr-index_add_finds_the_damage" grep -q "$victim" "$scratch/index.out"

# --- bad values ----------------------------------------------------------------------
mpi_reset
mpi_run 1 1 SCR_FLUSH_COMPRESS=10 -- --steps 1
mpi_expect_failure "a_level_above_9_is_refused" "SCR_FLUSH_COMPRESS=10"
mpi_run 1 1 SCR_FLUSH_COMPRESS=fast -- --steps 1
mpi_expect_failure "a_level_that_is_no_number_is_refused" "SCR_FLUSH_COMPRESS=fast"
mpi_run 1 1 SCR_FLUSH_COMPRESS=-1 -- --steps 1
mpi_expect_failure "a_negative_level_is_refused" "SCR_FLUSH_COMPRESS=-1"

done_testing
