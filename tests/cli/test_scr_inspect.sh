#!/bin/sh
# test_scr_inspect.sh — scr_inspect, SCR 3.1's name, lists the cached
# datasets that the nodes still up can give back whole, on caches real runs
# left (4 ranks on 4 simulated nodes, rank 3 writing no file, SCR_FLUSH=0,
# nothing on the prefix).
#
# scr_inspect reaches each up node with srun; here a stand-in srun runs
# scr_inspect_cache once per node of its --nodelist, with SCR_NODE_NAME set
# to it, as srun would start it on that node, and -f names the control
# directory with %N, which each node's name fills in. An XOR dataset (one
# set of 4) with one node down, or gone, is listed; with two nodes of its
# set down it is not; nor is a SINGLE dataset with a node down, or a
# dataset a rank holds only partly. A node set (-j 'node[0-3]', -u, -d) is
# expanded as Slurm's host lists are. What scr_inspect cannot honour is
# refused, naming it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup scr_inspect

inspect=$top_builddir/cli/scr31/scr_inspect
user=$(id -un)
mkdir -p "$scratch/fakebin"
cat > "$scratch/fakebin/srun" <<'SCRIPT'
#!/bin/sh
# stand-in srun: the command once per node of --nodelist, as that node
nodes=
while [ $# -gt 0 ]; do
    case $1 in
    --nodelist=*) nodes=${1#--nodelist=}; shift ;;
    --*) shift ;;
    *) break ;;
    esac
done
echo "$nodes" >> "$SRUN_LOG"
status=0
for n in $(echo "$nodes" | tr ',' ' '); do
    SCR_NODE_NAME=$n "$@" || status=1
done
exit $status
SCRIPT
chmod +x "$scratch/fakebin/srun"
export SRUN_LOG="$scratch/srun.log"

# inspect ARGS...: scr_inspect in a (stand-in) allocation, -f the run's
# control directories; sets $status, output in $scratch/inspect.out/.err
inspect() {
    env PATH="$scratch/fakebin:$PATH" SLURM_JOB_ID=1234 \
        "$inspect" -f "$scratch/cntl/%N/$user/scr.$SCR_JOB_ID" "$@" \
        > "$scratch/inspect.out" 2> "$scratch/inspect.err"
    status=$?
}

# lists NAME WANT ARGS...: scr_inspect ARGS exits 0 and prints exactly WANT
lists() {
    _name=$1 _want=$2
    shift 2
    inspect "$@"
    if [ "$status" -eq 0 ] && [ "$(cat "$scratch/inspect.out")" = "$_want" ]; then ok "$_name"
    else not_ok "$_name" "status $status, printed '$(cat "$scratch/inspect.out")', wanted '$_want': $(cat "$scratch/inspect.err")"; fi
}

# write TYPE: checkpoints 1 and 2 of 4 ranks on 4 nodes, left in cache
write() {
    mpi_reset
    mpi_run 4 4 SCR_FLUSH=0 SCR_CACHE_SIZE=2 SCR_COPY_TYPE="$1" SCR_SET_SIZE=4 -- --steps 2 --files 2 --size 3000 \
        --no-files 3
    mpi_expect_restart "$1_run_leaves_two_checkpoints_in_cache" 0 2
}

# --- XOR: one set of 4, one member per node ------------------------------------------
write XOR
lists "XOR: with every node up, both cached datasets are listed, ascending, on one line" "1 2" \
    -j node0,node1,node2,node3
check "scr_inspect reads each up node's cache through srun, once, on the up nodes" \
    test "$(cat "$SRUN_LOG")" = "node0,node1,node2,node3"
rm -f "$SRUN_LOG"
lists "XOR: one node down (-d), its rank is rebuilt from the others: listed" "1 2" -j 'node[0-3]' -d node1
check "the down node is not asked" test "$(cat "$SRUN_LOG")" = "node0,node2,node3"
lists "XOR: two nodes of the set down: not listed" "" -j 'node[0-3]' -d 'node[1-2]'
lists "XOR: an empty -d names no node down, as scr_list_down_nodes prints it: listed" "1 2" -j 'node[0-3]' -d ''
lists "XOR: the up nodes given (-u) instead: listed when one member is missing" "1 2" -j 'node[0-3]' \
    -u node0,node2,node3
lists "XOR: -u with two members missing: not listed" "" -j 'node[0-3]' -u node0,node3
# a rank that holds a dataset only partly counts as missing
f=$(find "$scratch/cache/node2" -path '*scr.dataset.2*' -name 'rank2_f0.dat' | head -n 1)
check "rank 2 has its file of checkpoint 2 in node2's cache" test -n "$f"
: > "$f"
lists "XOR: a node down and another's rank only partly cached: that dataset is not listed" "1" \
    -j 'node[0-3]' -d node0
lists "XOR: with every node up, the partly cached rank is rebuilt: listed" "1 2" -j 'node[0-3]'
mpi_lose_node 3
lists "XOR: a node whose cache is gone, though counted up: dataset 1 listed; 2 lacks rank 2 as well: not" "1" \
    -j 'node[0-3]'
lists "XOR: a node gone and another down: not listed" "" -j 'node[0-3]' -d node1

# --- SINGLE: no redundancy ------------------------------------------------------------
write SINGLE
lists "SINGLE: with every node up: listed" "1 2" -j 'node[0-3]'
lists "SINGLE: one node down: not listed" "" -j 'node[0-3]' -d node2
f=$(find "$scratch/cache/node1" -path '*scr.dataset.1*' -name 'rank1_f1.dat' | head -n 1)
check "rank 1 has its file of checkpoint 1 in node1's cache" test -n "$f"
rm -f "$f"
lists "SINGLE: a rank's file gone from cache: that dataset is not listed" "2" -j 'node[0-3]'

# --- what it refuses ---------------------------------------------------------------------
# refused NAME PATTERN ARGS...: scr_inspect ARGS exits 2, its first error line matching PATTERN
refused() {
    _name=$1 _pattern=$2
    shift 2
    env PATH="$scratch/fakebin:$PATH" SLURM_JOB_ID=1234 "$inspect" "$@" > "$scratch/inspect.out" 2> "$scratch/inspect.err"
    status=$?
    if [ "$status" -eq 2 ] && head -n 1 "$scratch/inspect.err" | grep -q -e "$_pattern" && [ ! -s "$scratch/inspect.out" ]
    then ok "$_name"; else not_ok "$_name" "status $status: $(cat "$scratch/inspect.out" "$scratch/inspect.err")"; fi
}
refused "an option SCR 3.1's scr_inspect does not have is refused, named" "unknown option '--verbose'" \
    -j node0 -f /x --verbose
refused "the job's node set is required" "-j/--jobset NODESET is required" -f /x
refused "the control directory is required" "-f/--from CNTLDIR is required" -j node0
refused "--up and --down together are refused, named" "--up and --down cannot be combined" -j node0 -f /x -u node0 -d node1
refused "a node set that does not parse is refused" "node\[0-" -j 'node[0-' -f /x
refused "an argument is refused, named" "unexpected argument 'extra'" -j node0 -f /x extra
env -u SLURM_JOB_ID "$inspect" -j node0 -f /x > "$scratch/inspect.out" 2> "$scratch/inspect.err"
check "outside an allocation it fails, saying the nodes are read with srun" \
    sh -c "test $? -eq 1 && grep -q 'no Slurm allocation.*srun' '$scratch/inspect.err'"

done_testing
