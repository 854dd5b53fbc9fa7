#!/bin/sh
# test_redundancy_xor.sh — XOR: one lost member per set rebuilt from the
# XOR of the others.
#
# On 8 ranks as 4 nodes with sets of 4, every single lost node restarts from
# cache, and on 16 ranks as 8 nodes with sets of 8, two between the first
# and the last (which the sets of 4 covered), also when the restart asks
# for sets of 4; on 16 ranks as 8 nodes with
# sets of 4 (nodes 0-3 and 4-7), pairs of nodes in different sets do, the
# first and the last member of each set lost once. Two nodes of one
# set are too many: the restart falls back to the prefix (or starts fresh
# without one), said in one line. After a restart that rebuilt a node, its
# neighbours can be lost in turn. A damaged XOR file is found by its CRC
# when a rebuild reads it, named once, and counts as a lost member; while
# nothing is lost, nothing reads it. SCR_GROUP chooses the failure groups
# the sets are drawn across: racks that GROUPS lines define, or WORLD.
# See tests/mpi/redundancy-lib.sh.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-xor
. "$top_srcdir/tests/mpi/redundancy-lib.sh"

red_write XOR 8 4 SCR_SET_SIZE=4
for lost in 0 1 2 3; do red_expect_rebuilt "$lost"; done
red_expect_prefix "0 3"
red_expect_fresh "1 2"
red_expect_protected_again 1 0 2

# a damaged XOR file: not read while nothing is lost (a restart reads the
# application's files alone); the rebuild that reads it, with another
# member of its set lost, finds it by its CRC, names it once, and cannot
# rebuild the set
red_restore saved
xor=$(red_redundancy_file 2 xor)
mpi_flip_byte "$xor" $(($(wc -c < "$xor") - 1))
red_snapshot damaged
red_from=damaged red_case=with_a_damaged_XOR_file red_damaged=1
red_expect_rebuilt ""
check "the_damaged_XOR_file_is_not_read_while_nothing_is_lost" \
    sh -c "cmp -s '$scratch/damaged/${xor#"$scratch/"}' '$xor' && ! grep -q 'is damaged' '$mpi_err'"
red_expect_prefix 1
red_from= red_case= red_damaged=

# the ring turns with the member: a member's place in the set, not its
# number, decides its part; two between the first and the last
red_write XOR 16 8 SCR_SET_SIZE=8
for lost in 2 5; do red_expect_rebuilt "$lost"; done
# a restart configured with sets of 4 forms the sets of 8 the checkpoint
# was written with again, from its records, to rebuild it
red_case=with_sets_of_4_configured red_expect_rebuilt 5 SCR_SET_SIZE=4
red_expect_prefix "2 3"
red_expect_protected_again 3 2

red_write XOR 16 8 SCR_SET_SIZE=4
for pair in "0 7" "3 4"; do red_expect_rebuilt "$pair"; done
red_expect_prefix "4 6"

# SCR_GROUP: the failure group a set's members are drawn from. Racks a
# (nodes 0, 1) and b (nodes 2, 3), from GROUPS lines of the system file,
# give the sets {0, 2} and {1, 3}: a lost rack is rebuilt, where with the
# default NODE groups the sets {0, 1} and {2, 3} would lose two members
# each; nodes 0 and 2, one set, are too many.
printf 'GROUPS=node%s RACK=%s\n' 0 a 1 a 2 b 3 b >> "$scratch/scr.conf"
red_write XOR 4 4 SCR_SET_SIZE=2 SCR_GROUP=RACK
red_expect_rebuilt "0 1"
red_expect_prefix "0 2"
# WORLD is one group holding every rank: sets of one member, SINGLE in
# effect, so no lost node can be rebuilt
red_write XOR 4 4 SCR_SET_SIZE=2 SCR_GROUP=WORLD
red_expect_prefix 3

done_testing
