#!/bin/sh
# test_shared_crc_once.sh — a file that ranks on several nodes wrote (one
# shared file) is read once for its CRC, not once per rank that lists it:
# by the flush, and by the check of a restart that reads it in place. The
# runs go through strace (every process, descriptors shown with their
# paths), and the bytes read from the shared file on the prefix are added
# up after each run; no timing is involved.
#   - the default settings: the nodes' pieces are merged on the prefix at
#     completion, and the flush takes the merged file's CRC;
#   - the restart from the records reads it in place: the application's
#     parts (the file once), and the check (the file once more);
#   - every node lost, SCR_FETCH_BYPASS=1 restarts through the index, in
#     place, the same; and so does the default SCR_FETCH_BYPASS=0, since a
#     copy into cache would read the file once per rank;
#   - SCR_CACHE_BYPASS=1, written in place: the flush and the restart;
#   - SCR_CRC_ON_FLUSH=0: a merged checkpoint is flushed and read back.
# 4 ranks on 2 nodes each list the file: the old way read it 4 times for
# each CRC.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
command -v strace > /dev/null 2>&1 || mpi_skip_all "strace not found (etc/install-deps.sh installs it)"
mpi_setup shared-crc-once

# the mpirun the runs use, under strace; $READ_TRACE names the trace files
traced=$scratch/traced-mpirun
real_mpirun=$(command -v "${MPIRUN:-mpirun}")
cat > "$traced" << EOF || exit 99
#!/bin/sh
exec strace -f -ff -y -qq -e signal=none -e trace=read,pread64,readv,preadv,?preadv2 \\
    -o "\$READ_TRACE" "$real_mpirun" "\$@"
EOF
chmod +x "$traced" || exit 99

size=12004 # 4 ranks' 3000 bytes and rank 0's 4-byte step

# bytes_read TRACE FILE: the bytes read from FILE in the trace files TRACE.*
bytes_read() {
    cat "$1".* | awk -v path="<$2>" '
        index($0, path) && $0 ~ /^(read|pread64|readv|preadv|preadv2)\(/ {
            n = $NF
            if (n ~ /^[0-9]+$/) sum += n
        }
        END { print sum + 0 }'
}

# read_about NAME TRACE FILE TIMES: FILE was read TIMES times its size, give
# or take the few bytes each rank reads twice (rank 0's step, at the front);
# one whole read more is half its size too much
read_about() {
    _got=$(bytes_read "$2" "$3")
    _most=$(((2 * $4 + 1) * size / 2))
    if [ "$_got" -ge $(($4 * size)) ] && [ "$_got" -lt "$_most" ]; then
        ok "$1"
    else
        not_ok "$1" "$_got bytes read from $3, expected $4 times its $size bytes (less than $_most)"
    fi
}

run_traced() {
    _trace=$scratch/trace.$1
    shift
    rm -f "$_trace".*
    mpi_run 4 2 MPIRUN="$traced" READ_TRACE="$_trace" "$@"
}

run_traced merge -- --steps 2 --shared-file --size 3000
mpi_expect_restart "merged_checkpoints_1_and_2_under_strace" 0 2
check "the_merged_file_is_whole" test "$(stat -c %s "$prefix/ckpt.2/shared.dat")" -eq $size
read_about "the_flush_reads_merged_checkpoint_1_once_for_its_CRC" "$scratch/trace.merge" "$prefix/ckpt.1/shared.dat" 1
read_about "and_checkpoint_2" "$scratch/trace.merge" "$prefix/ckpt.2/shared.dat" 1

run_traced merge-restart -- --steps 3 --shared-file --size 3000
mpi_expect_restart "the_merged_checkpoint_2_is_read_in_place_from_the_records" 2 3
read_about "its_check_reads_it_once_beside_the_application" "$scratch/trace.merge-restart" \
    "$prefix/ckpt.2/shared.dat" 2

mpi_lose_all_nodes
run_traced merge-index SCR_FETCH_BYPASS=1 -- --steps 4 --shared-file --size 3000
mpi_expect_restart "with_every_node_lost_checkpoint_3_is_read_in_place_through_the_index" 3 4
read_about "and_its_check_reads_it_once_beside_the_application" "$scratch/trace.merge-index" \
    "$prefix/ckpt.3/shared.dat" 2

# with the default SCR_FETCH_BYPASS=0 too: a copy into each node's cache
# would read the whole file once per rank
mpi_lose_all_nodes
run_traced merge-fetch -- --steps 5 --shared-file --size 3000
mpi_expect_restart "with_default_settings_checkpoint_4_is_also_read_in_place_through_the_index" 4 5
read_about "not_copied_into_cache_by_every_rank" "$scratch/trace.merge-fetch" "$prefix/ckpt.4/shared.dat" 2

mpi_reset
run_traced bypass SCR_CACHE_BYPASS=1 -- --steps 2 --shared-file --size 3000
mpi_expect_restart "written_in_place_with_SCR_CACHE_BYPASS_1_under_strace" 0 2
read_about "the_flush_reads_it_once_for_its_CRC" "$scratch/trace.bypass" "$prefix/ckpt.2/shared.dat" 1
run_traced bypass-restart SCR_CACHE_BYPASS=1 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "and_restarts_in_place" 2 3
read_about "whose_check_reads_it_once_beside_the_application" "$scratch/trace.bypass-restart" \
    "$prefix/ckpt.2/shared.dat" 2
check "without_an_error_said" test ! -s "$mpi_err"

# without CRCs (SCR_CRC_ON_FLUSH=0) no rank waits for one from another
mpi_reset
mpi_run 4 2 SCR_CRC_ON_FLUSH=0 -- --steps 2 --shared-file --size 3000
mpi_expect_restart "with_SCR_CRC_ON_FLUSH_0_a_merged_checkpoint_is_flushed_without_CRCs" 0 2
mpi_run 4 2 SCR_CRC_ON_FLUSH=0 -- --steps 3 --shared-file --size 3000
mpi_expect_restart "and_restarted_from" 2 3

done_testing
