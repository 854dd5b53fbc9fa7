#!/bin/sh
# test_cache_damage.sh — one byte of a cached checkpoint file is changed after
# the run that wrote it died. With SCR_CRC_ON_COPY=1 (a CRC pass of its own
# when the checkpoint completes) as with the default (the CRCs come from the
# redundancy encoding, or a pass of their own in the background with
# SINGLE), SCR_Init reads nothing (no file is lost) and the damage is found
# when the restart reads the file: SCR_Complete_restart fails (the
# application, with --leave-check-to-scr, calls its read valid), naming the
# file, and SCR_Have_restart offers the older checkpoint, on the prefix. A
# filemap changed to list a file outside the cache makes the flush of that
# checkpoint refuse it, naming the filemap, and write nothing.
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
    mpi_run 4 2 SCR_FLUSH=2 SCR_COPY_TYPE=$1 SCR_CRC_ON_COPY=$2 -- --steps 4 --size 4000 --leave-check-to-scr
}

# found_by_the_restart NAME: ckpt.3 was offered, its restart failed naming
# rank 2's file, and the restart came from ckpt.2
found_by_the_restart() {
    mpi_expect_lines "$1" "restart from ckpt.3 failed" "restarted from step 2" "finished step 4"
    check "$1:_the_file_is_named" grep -qE "rank 2's file [^ ]*/rank2_f0\.dat is damaged: CRC32" "$mpi_err"
}

damaged_run SINGLE 1
found_by_the_restart "SINGLE:_the_restart_of_the_damaged_ckpt.3_fails;_ckpt.2_comes_from_the_prefix"

damaged_run XOR 1
found_by_the_restart "XOR:_the_restart_of_the_damaged_ckpt.3_fails;_ckpt.2_comes_from_the_prefix"

damaged_run SINGLE 0
found_by_the_restart "SINGLE_by_default:_the_restart_of_the_damaged_ckpt.3_fails;_ckpt.2_follows"

damaged_run XOR 0
found_by_the_restart "XOR_by_default:_the_restart_of_the_damaged_ckpt.3_fails;_ckpt.2_follows"

# --- a filemap entry naming a file outside the cache ----------------------------------
# ckpt.1 stays in cache (the run dies); rank 0's entry is made to name an exact
# copy of its file outside the cache. The restart reads it, and the flush at
# SCR_Finalize would copy it to the prefix: it is refused and nothing indexed.
if command -v python3 > /dev/null 2>&1; then
    mpi_reset
    mpi_run 2 1 SCR_FLUSH=0 SCR_COPY_TYPE=SINGLE -- --steps 2 --size 4000 --crash-after 1 --crash-rank 1
    mpi_expect_killed "a_run_is_killed_after_checkpoint_1_left_in_cache" 1
    file=$(find "$scratch/cache/node0" -path '*/scr.dataset.1/*' -name 'rank0_f0.dat')
    filemap=$(find "$scratch/cntl/node0" -name 'filemap_0.scrinfo')
    mkdir -p "$scratch/outside" && cp "$file" "$scratch/outside/rank0_f0.dat" || exit 99
    python3 "$top_srcdir/tests/tools/kvtree_ref.py" dump "$filemap" > "$scratch/filemap.json" &&
        python3 - "$scratch/filemap.json" "$file" "$scratch/outside/rank0_f0.dat" <<'PY' &&
import json, sys
path, old, new = sys.argv[1:]
t = json.load(open(path))
files = t["RANK"]["0"]["DSET"]["1"]["FILE"]
files[new] = files.pop(old)
json.dump(t, open(path, "w"))
PY
        python3 "$top_srcdir/tests/tools/kvtree_ref.py" write "$scratch/filemap.json" "$filemap" || exit 99
    mpi_run 2 1 SCR_FLUSH=1 SCR_COPY_TYPE=SINGLE -- --steps 1 --size 4000
    if grep -qF "$filemap: file $scratch/outside/rank0_f0.dat of rank 0 in dataset 1 is not in the dataset's cache directory" \
        "$mpi_err"; then
        ok "the_flush_refuses_a_file_outside_the_cache_naming_the_filemap"
    else
        not_ok "the_flush_refuses_a_file_outside_the_cache_naming_the_filemap" "$(mpi_diag)"
    fi
    check "and_the_checkpoint_is_neither_on_the_prefix_nor_indexed" \
        eval "[ ! -e '$prefix/ckpt.1/rank0_f0.dat' ] && [ -z \"\$(mpi_index_id ckpt.1)\" ]"
else
    for name in a_run_is_killed_after_checkpoint_1_left_in_cache \
        the_flush_refuses_a_file_outside_the_cache_naming_the_filemap \
        and_the_checkpoint_is_neither_on_the_prefix_nor_indexed; do
        skip "$name" "python3 not found (changes the filemap)"
    done
fi

done_testing
