#!/bin/sh
# test_store_attributes.sh — SCR 3.1's STORE attributes MKDIR= and FLUSH=:
# with MKDIR=0 SCR does not create the store's path, which must exist;
# FLUSH=PTHREAD flushes that store's datasets in the background, FLUSH=SYNC
# in the application's calls even with SCR_FLUSH_ASYNC=1, and any other
# transfer is refused at SCR_Init, naming the two there are.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup store-attributes

ssd=$scratch/ssd
cat > "$scratch/user.conf" <<CONF
STORE=$ssd/%N COUNT=1 MKDIR=0 FLUSH=SYNC
CKPT=0 INTERVAL=1 TYPE=XOR STORE=$ssd/%N
CONF
mpi_run 4 2 SCR_FLUSH=0 SCR_CONF_FILE="$scratch/user.conf" -- --steps 1
mpi_expect_failure "MKDIR=0_and_a_missing_store_path_fail_naming_it" \
    "STORE=$ssd/%N says MKDIR=0, so SCR does not create it, and $ssd/node0: No such file or directory"
check "nothing_was_made_there" test ! -e "$ssd"

mkdir -p "$ssd/node0" "$ssd/node1"
mpi_run 4 2 SCR_FLUSH=0 SCR_CONF_FILE="$scratch/user.conf" -- --steps 2
mpi_expect_restart "MKDIR=0_uses_a_store_path_that_exists" 0 2
check "the_checkpoints_are_cached_there" test -n "$(find "$ssd/node1" -type d -name 'scr.dataset.2')"

mpi_reset
mpi_run 2 1 SCR_FLUSH=0 -- --steps 1 --config "STORE=$ssd/%N COUNT=1 MKDIR=1" \
    --config "CKPT=0 TYPE=SINGLE STORE=$ssd/%N"
mpi_expect_restart "MKDIR=1_(the_default)_creates_the_store_path" 0 1

# the cache base is a store too: SCR_Init makes its job directory
mpi_reset
printf 'STORE=%s/cache/%%N MKDIR=0\n' "$scratch" > "$scratch/base.conf"
mpi_run 2 1 SCR_CONF_FILE="$scratch/base.conf" -- --steps 1
mpi_expect_failure "MKDIR=0_on_the_cache_base_is_checked_at_SCR_Init" \
    "STORE=$scratch/cache/%N says MKDIR=0, so SCR does not create it, and $scratch/cache/node0: No such file or directory"
mkdir -p "$scratch/cache/node0"
mpi_run 2 1 SCR_CONF_FILE="$scratch/base.conf" -- --steps 1
mpi_expect_restart "and_used_once_it_exists" 0 1

events=$prefix/.scr/events.jsonl
flushes() { # the flush events, and those of them in the background
    printf '%s %s' "$(grep -c '"event":"flush"' "$events")" "$(grep '"event":"flush"' "$events" | grep -c '"background":1')"
}
sed 's/FLUSH=SYNC/FLUSH=PTHREAD/' "$scratch/user.conf" > "$scratch/pthread.conf"
mpi_reset
mpi_run 4 2 SCR_LOG_ENABLE=1 SCR_FLUSH=1 SCR_CONF_FILE="$scratch/pthread.conf" -- --steps 2
mpi_expect_restart "FLUSH=PTHREAD_runs" 0 2
check "FLUSH=PTHREAD_flushes_the_store's_datasets_in_the_background" test "$(flushes)" = "2 2"
mpi_reset
mpi_run 4 2 SCR_LOG_ENABLE=1 SCR_FLUSH=1 SCR_FLUSH_ASYNC=1 SCR_CONF_FILE="$scratch/user.conf" -- --steps 2
mpi_expect_restart "FLUSH=SYNC_with_SCR_FLUSH_ASYNC=1_runs" 0 2
check "FLUSH=SYNC_flushes_in_the_application's_calls_even_with_SCR_FLUSH_ASYNC=1" test "$(flushes)" = "2 0"

sed 's/FLUSH=SYNC/FLUSH=BBAPI/' "$scratch/user.conf" > "$scratch/bbapi.conf"
mpi_run 4 2 SCR_CONF_FILE="$scratch/bbapi.conf" -- --steps 1
mpi_expect_failure "FLUSH=BBAPI_is_refused_once_with_the_reason" \
    "STORE=$ssd/%N FLUSH=BBAPI (from $scratch/bbapi.conf:1): this SCR flushes with FLUSH=SYNC, in the application's own calls, or FLUSH=PTHREAD, in a thread of each node; the other transfers are not built" 1

done_testing
