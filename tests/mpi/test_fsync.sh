#!/bin/sh
# test_fsync.sh — every file libscr leaves on the prefix or in a control
# directory, and every file it fetches into cache, is synced before the job
# ends: a node or file server that fails right after must not leave a
# record, an index entry or a flushed file that is empty or short.
#
# The runs go through strace (every process, descriptors shown with their
# paths); tests/mpi/fsync-trace.awk follows each file through its opens,
# writes, fsyncs and renames (a temporary file synced, then renamed into
# place, counts as synced) and names the files left unsynced. No timing is
# involved: the trace is read after the run.
#   - 4 ranks on 2 nodes, two checkpoints, each flushed (SCR_FLUSH=1): every
#     file on the prefix (the application's files, rank filemaps, claims,
#     summaries, the index, the lock, the halt record, app.conf) and every
#     record in the control directories, and the XOR files in cache;
#   - both nodes lost, the restart fetches ckpt.2 into cache: every file in
#     the caches and control directories, and the records under .scr/ the
#     fetch rewrote (the index among them).
. "$top_srcdir/tests/mpi/mpi-lib.sh"
command -v strace > /dev/null 2>&1 || mpi_skip_all "strace not found (etc/install-deps.sh installs it)"
mpi_setup fsync

# the mpirun the runs use, under strace; $FSYNC_TRACE names the trace file
traced=$scratch/traced-mpirun
real_mpirun=$(command -v "${MPIRUN:-mpirun}")
cat > "$traced" << EOF || exit 99
#!/bin/sh
exec strace -f -y -qq -e signal=none \\
    -e trace=?open,openat,?creat,write,pwrite64,writev,pwritev,?pwritev2,ftruncate,fsync,fdatasync,?rename,renameat,?renameat2,?link,linkat \\
    -o "\$FSYNC_TRACE" "$real_mpirun" "\$@"
EOF
chmod +x "$traced" || exit 99

# unsynced NAME MODE TRACE FILES...: FILES (found by find) are synced in TRACE
unsynced() {
    _name=$1 _mode=$2 _trace=$3
    shift 3
    find "$@" -type f | sort > "$scratch/listed"
    _bad=$(awk -v mode="$_mode" -f "$top_srcdir/tests/mpi/fsync-trace.awk" "$_trace" "$scratch/listed")
    if [ -s "$scratch/listed" ] && [ -z "$_bad" ]; then
        ok "$_name"
    else
        not_ok "$_name" "$(wc -l < "$scratch/listed") file(s) listed; not synced:
$_bad"
    fi
}

mpi_run 4 2 MPIRUN="$traced" FSYNC_TRACE="$scratch/trace.flush" SCR_FLUSH=1 -- --steps 2 --size 4000
mpi_expect_restart "two_checkpoints_are_flushed_under_strace" 0 2
check "both_checkpoints_are_on_the_prefix" test -f "$prefix/ckpt.1/rank3_f0.dat" -a -f "$prefix/ckpt.2/rank3_f0.dat"
unsynced "every_file_on_the_prefix_is_synced" all "$scratch/trace.flush" "$prefix"
unsynced "every_record_in_the_control_directories_is_synced" all "$scratch/trace.flush" "$scratch/cntl"
# (the application's own files in cache are its to sync; the XOR files are libscr's)
# shellcheck disable=SC2046 # one path a word
unsynced "every_XOR_file_in_cache_is_synced" all "$scratch/trace.flush" $(find "$scratch/cache" -name '*.xor')

mpi_lose_all_nodes
mpi_run 4 2 MPIRUN="$traced" FSYNC_TRACE="$scratch/trace.fetch" SCR_FLUSH=1 -- --steps 2 --size 4000
mpi_expect_restart "the_restart_fetches_ckpt.2_under_strace" 2 2
check "ckpt.2_was_fetched_into_both_caches" \
    test -n "$(find "$scratch/cache/node0" -name rank0_f0.dat)" -a -n "$(find "$scratch/cache/node1" -name rank3_f0.dat)"
unsynced "every_file_fetched_into_cache_is_synced" all "$scratch/trace.fetch" "$scratch/cache"
unsynced "every_record_in_the_control_directories_is_synced_after_the_fetch" all "$scratch/trace.fetch" "$scratch/cntl"
unsynced "the_index_the_fetch_rewrote_is_synced" all "$scratch/trace.fetch" "$prefix/.scr/index.scr"
unsynced "every_other_file_the_fetch_wrote_on_the_prefix_is_synced" written "$scratch/trace.fetch" "$prefix"

done_testing
