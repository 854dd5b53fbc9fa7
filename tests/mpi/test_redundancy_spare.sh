#!/bin/sh
# test_redundancy_spare.sh — lost nodes replaced by spare nodes.
#
# For PARTNER, XOR and RS on 8 ranks as 4 nodes, the ranks of lost nodes run
# on spare nodes (SCR_SIM_SPARE) with an empty cache: their files are
# rebuilt there, and the dataset is protected again, so a later loss of
# another node, with the spares still in place, restarts from cache too.
# See tests/mpi/redundancy-lib.sh.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup redundancy-spare
. "$top_srcdir/tests/mpi/redundancy-lib.sh"

# spare_case TYPE "LOST" "SPARES" "LATER" [VAR=VALUE...]
spare_case() {
    _type=$1 _lost=$2 _spares=$3 _later=$4
    shift 4
    red_write "$_type" 8 4 "$@"
    red_extra="SCR_SIM_SPARE=$_spares" red_case=on_spare_nodes
    red_expect_protected_again "$_lost" "$_later"
    red_restore rebuilt
    for _spare in $(echo "$_spares" | tr , " "); do
        check "${red_label}_spare_node_${_spare#*=}_holds_the_rebuilt_files" \
            test -n "$(find "$scratch/cache/${_spare#*=}" -name 'rank*.dat' | head -n 1)"
    done
    red_extra= red_case=
}

spare_case PARTNER 1 "1=node9" 0 SCR_SET_SIZE=4
spare_case XOR 2 "2=node9" 1 SCR_SET_SIZE=4
spare_case RS "1 2" "1=node8,2=node9" "0 3" SCR_SET_SIZE=4 SCR_SET_FAILURES=2

done_testing
