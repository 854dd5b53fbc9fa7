#!/bin/sh
# test_redundancy_rs.sh — Reed-Solomon with two failures: any two lost
# members of a set rebuilt.
#
# On 8 ranks as 4 nodes (N=4, k=2) all 6 pairs of lost nodes, and on 16
# ranks as 8 nodes (N=8, k=2) five of the 28, restart from cache; three lost
# nodes are too many: the restart falls back to the prefix (or starts fresh
# without one), said in one line. After a restart that rebuilt two nodes, two
# others can be lost in turn. A damaged RS file is found by its CRC when a
# rebuild reads it, named once, and counts as a lost member; while nothing
# is lost, nothing reads it. See tests/mpi/redundancy-lib.sh.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-rs
. "$top_srcdir/tests/mpi/redundancy-lib.sh"

red_write RS 8 4 SCR_SET_SIZE=4 SCR_SET_FAILURES=2
red_pairs "0 1 2 3" > "$scratch/pairs"
while read -r pair; do red_expect_rebuilt "$pair"; done < "$scratch/pairs"
red_expect_prefix "0 1 2"
red_expect_fresh "1 2 3"
red_expect_protected_again "1 2" "0 3"

# a damaged RS file: not read while nothing is lost (a restart reads the
# application's files alone); found by the rebuild that reads it, with
# another member lost, and rebuilt to its old bytes; with two others lost,
# one too many
red_restore saved
rs=$(red_redundancy_file 2 rs)
mpi_flip_byte "$rs" $(($(wc -c < "$rs") - 1))
red_snapshot damaged
red_from=damaged red_case=with_a_damaged_RS_file red_damaged=1
red_expect_rebuilt ""
check "the_damaged_RS_file_is_not_read_while_nothing_is_lost" \
    sh -c "cmp -s '$scratch/damaged/${rs#"$scratch/"}' '$rs' && ! grep -q 'is damaged' '$mpi_err'"
red_expect_rebuilt 0
check "the_rebuild_that_reads_the_damaged_RS_file_names_it" grep -q "is damaged: CRC32" "$mpi_err"
check "the_damaged_RS_file_has_its_old_bytes_back" red_same_data "$scratch/saved/${rs#"$scratch/"}" "$rs"
red_expect_prefix "0 1"
red_from= red_case= red_damaged=

# The layout turns with the member (stripe s has its parity on members s and
# s+1), so what a pair of losses asks of the decoder is the pair's distance
# around the set: each distance, 1 to 4, across the wrap from 7 to 0, and
# every node lost at least once (the sets of 4 above took every pair of a
# smaller ring).
red_write RS 16 8 SCR_SET_SIZE=8 SCR_SET_FAILURES=2
for pair in "0 7" "1 3" "2 5" "4 6" "0 4"; do red_expect_rebuilt "$pair"; done
red_expect_prefix "0 3 6"
red_expect_protected_again "2 3" "0 1"

done_testing
