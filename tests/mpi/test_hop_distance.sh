#!/bin/sh
# test_hop_distance.sh — SCR_HOP_DISTANCE and the HOP_DISTANCE attribute of a
# CKPT descriptor: PARTNER keeps a rank's copy on the node that many places
# to its right in the set's ring, and XOR draws a set's members that many
# nodes apart.
#
# 4 ranks on 4 nodes (rank r on node r), one set of 4 for PARTNER: with hop 2
# rank 2's files are copied to node 0 (hop 1: node 3). Every single lost node
# is rebuilt, and so are the neighbours 0 and 1 lost together (their copies
# are on 2 and 3), which hop 1 cannot survive; nodes 0 and 2, each other's
# partners, fall back to the prefix. XOR with sets of 2: hop 1 pairs nodes
# {0,1} {2,3}, hop 2 pairs {0,2} {1,3}, so losing 0 and 1 is rebuilt only
# with hop 2. See tests/mpi/redundancy-lib.sh.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup hop-distance
. "$top_srcdir/tests/mpi/redundancy-lib.sh"

# nodes_holding FILE: the nodes whose cache holds a file called FILE
nodes_holding() {
    find "$scratch/cache" -name "$1" | sed -n 's|^.*/cache/\(node[0-9]*\)/.*$|\1|p' | sort -u | tr '\n' ' '
}
# xor_sets: "node:set" for every XOR file in cache, sorted
xor_sets() {
    find "$scratch/cache" -name '*.xor' | sed -n 's|^.*/cache/\(node[0-9]*\)/.*_in_\([0-9]*\)\.xor$|\1:\2|p' | sort | tr '\n' ' '
}

red_write PARTNER 4 4 SCR_SET_SIZE=4 SCR_HOP_DISTANCE=2
red_case=hop2
check "hop2_rank_2s_files_are_on_node2_and_node0" test "$(nodes_holding rank2_f1.dat)" = "node0 node2 "
check "hop2_rank_3s_files_are_on_node3_and_node1" test "$(nodes_holding rank3_f1.dat)" = "node1 node3 "
for lost in 0 1 2 3; do red_expect_rebuilt "$lost"; done
red_expect_rebuilt "0 1"
red_expect_prefix "0 2"

red_write PARTNER 4 4 SCR_SET_SIZE=4
red_case=hop1
check "hop1_rank_2s_files_are_on_node2_and_node3" test "$(nodes_holding rank2_f1.dat)" = "node2 node3 "
red_expect_prefix "2 3"

# the CKPT attribute, from a user configuration file
printf 'CKPT=0 TYPE=PARTNER SET_SIZE=4 HOP_DISTANCE=2\n' > "$scratch/hop.conf"
red_write PARTNER 4 4 SCR_CONF_FILE="$scratch/hop.conf"
red_case=ckpt_attribute
check "HOP_DISTANCE_2_on_a_CKPT_line_puts_rank_2s_copy_on_node0" test "$(nodes_holding rank2_f1.dat)" = "node0 node2 "
red_expect_rebuilt "0 1" SCR_CONF_FILE="$scratch/hop.conf"

red_write XOR 4 4 SCR_SET_SIZE=2
red_case=xor_hop1
check "xor_hop1_sets_pair_nodes_0_1_and_2_3" test "$(xor_sets)" = "node0:0 node1:0 node2:2 node3:2 "
red_expect_prefix "0 1"

red_write XOR 4 4 SCR_SET_SIZE=2 SCR_HOP_DISTANCE=2
red_case=xor_hop2
check "xor_hop2_sets_pair_nodes_0_2_and_1_3" test "$(xor_sets)" = "node0:0 node1:1 node2:0 node3:1 "
red_expect_rebuilt "0 1"

done_testing
