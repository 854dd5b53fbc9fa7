#!/bin/sh
# test_stores.sh — STORE descriptors: a CKPT line caches its datasets in the
# store it names, each store keeps its own COUNT, a lost node is rebuilt
# into the right store, and a store that is undeclared, disabled or owned
# by someone else is refused or skipped with a clear message.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup stores

ssd=$scratch/ssd
# odd checkpoints go to the ssd store (XOR, two kept), even ones to the
# cache base (PARTNER, SCR_CACHE_SIZE=1 kept)
cat > "$scratch/user.conf" <<CONF
STORE=$ssd/%N COUNT=2
CKPT=0 INTERVAL=1 TYPE=XOR SET_SIZE=4 STORE=$ssd/%N
CKPT=1 INTERVAL=2 TYPE=PARTNER
CONF

# ids_in DIR NODE: the dataset ids cached under DIR/NODE, in one line
ids_in() {
    find "$1/$2" -type d -name 'scr.dataset.*' 2> /dev/null |
        sed 's|.*/scr\.dataset\.||' | sort -n | tr '\n' ' '
}

mpi_run 8 4 SCR_FLUSH=0 SCR_CONF_FILE="$scratch/user.conf" -- --steps 5 --files 2 --size 5000 --uneven
mpi_expect_restart "five_checkpoints_over_two_stores" 0 5
for node in node0 node3; do
    check "the_ssd_store_of_${node}_keeps_its_COUNT_of_2:_datasets_3_and_5" test "$(ids_in "$ssd" $node)" = "3 5 "
    check "the_cache_base_of_${node}_keeps_SCR_CACHE_SIZE_1:_dataset_4" test "$(ids_in "$scratch/cache" $node)" = "4 "
done
check "XOR_files_of_dataset_5_are_in_the_ssd_store" \
    test -n "$(find "$ssd/node2" -path '*scr.dataset.5/*' -name '*.xor')"
check "PARTNER_copies_of_dataset_4_are_in_the_cache_base" \
    test -n "$(find "$scratch/cache/node2" -path '*scr.dataset.4/partner.*' -type f)"
check "store_directories_are_private" test "$(stat -c %a "$ssd/node1/$(id -un)")" = 700

# node 1 is lost: dataset 5 is rebuilt from XOR into node 1's ssd store
rm -rf "$ssd/node1" "$scratch/cache/node1" "$scratch/cntl/node1"
mpi_run 8 4 SCR_FLUSH=0 SCR_CONF_FILE="$scratch/user.conf" -- --steps 6 --files 2 --size 5000 --uneven
mpi_expect_restart "losing_node_1_rebuilds_dataset_5_in_the_ssd_store" 5 6
check "node_1s_ssd_store_holds_the_rebuilt_datasets_3_and_5" test "$(ids_in "$ssd" node1)" = "3 5 "
check "and_dataset_6_went_to_the_cache_base" test "$(ids_in "$scratch/cache" node1)" = "6 "

# a CKPT naming a store no STORE line declares: SCR_Init fails, naming it
mpi_reset
cat > "$scratch/bad.conf" <<CONF
CKPT=0 TYPE=XOR STORE=$scratch/nowhere
CONF
mpi_run 4 2 SCR_CONF_FILE="$scratch/bad.conf" -- --steps 1
mpi_expect_failure "an_undeclared_store_is_refused" \
    "CKPT=0: STORE=$scratch/nowhere is neither SCR_CACHE_BASE nor declared by a STORE line"

# a disabled store disables its descriptor: datasets go by the remaining one
mpi_reset
rm -rf "$ssd"
cat > "$scratch/off.conf" <<CONF
STORE=$ssd/%N COUNT=2 ENABLED=0
CKPT=0 INTERVAL=1 TYPE=XOR SET_SIZE=4 STORE=$ssd/%N
CKPT=1 INTERVAL=1 TYPE=PARTNER
CONF
mpi_run 4 2 SCR_FLUSH=0 SCR_CONF_FILE="$scratch/off.conf" -- --steps 2
mpi_expect_restart "a_disabled_store_is_skipped" 0 2
check "nothing_was_written_to_the_disabled_store" test ! -e "$ssd"
check "the_datasets_went_to_the_cache_base" test "$(ids_in "$scratch/cache" node0)" = "2 "

# a store job directory that belongs to another user is not used
mpi_reset
rm -rf "$ssd"
for node in node0 node1; do
    mkdir -p "$ssd/$node/$(id -un)/scr.$SCR_JOB_ID"
    chown nobody "$ssd/$node/$(id -un)/scr.$SCR_JOB_ID"
done
mpi_run 4 2 SCR_FLUSH=0 SCR_CONF_FILE="$scratch/user.conf" -- --steps 1
mpi_expect_failure "a_store_directory_owned_by_another_user_is_refused" "belongs to uid $(id -u nobody) (nobody), not to uid $(id -u)" 2

done_testing
