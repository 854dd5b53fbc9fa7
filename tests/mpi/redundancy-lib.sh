# redundancy-lib.sh — loss patterns replayed against one saved job, for the
# test_redundancy_*.sh tests (source it after mpi-lib.sh and mpi_setup).
#
# red_write TYPE RANKS NODES [VAR=VALUE...] writes the job every pattern of
# one configuration starts from, in two runs: checkpoint 1, flushed to the
# prefix, then checkpoint 2, in cache only (SCR_FLUSH=0; SCR_CACHE_SIZE=1
# leaves nothing else in cache). Files are of uneven sizes, some empty, two
# per rank, with rank 1 writing none, and the streaming buffers are small so
# that data crosses many pieces. The cache, control and prefix directories
# are then saved; each pattern puts them back (red_restore), so that a
# configuration is written once however many patterns it serves.
#
# A pattern deletes the cache and control directories of the lost nodes and
# restarts on the same layout (extra VAR=VALUE settings, such as
# SCR_SIM_SPARE, hold for that run). The application checks every byte it
# reads back.
#   red_expect_rebuilt "LOST" [VAR=VALUE...]     restarts from checkpoint 2
#   red_expect_prefix "LOST" [VAR=VALUE...]      cannot rebuild, says so in one
#                                                line, restarts from the
#                                                prefix's checkpoint 1
#   red_expect_fresh "LOST" [VAR=VALUE...]       the same with an empty prefix:
#                                                a fresh start
#   red_expect_protected_again "FIRST" "LATER..." after a restart that rebuilt
#                                                the nodes FIRST, each LATER
#                                                loss (from that state) is
#                                                rebuilt too
#   red_pairs "NODES..."                         every pair of NODES, one a line
# Patterns start from the snapshot named by $red_from (default: saved);
# $red_extra holds VAR=VALUE settings for every run of a pattern (a spare
# node, say), $red_case a word for the test names, and $red_damaged how many
# files of the snapshot are damaged (each is named once when it is found).
#   red_snapshot NAME, red_restore NAME          save or put back the job
#   red_redundancy_file NODE EXT                 the first .EXT file in NODE's cache
#   red_same_data FILE1 FILE2                    two redundancy files hold the
#                                                same bytes after their headers
#                                                (a rebuilt header may list the
#                                                same metas in another order)
# Test names start with $red_label (TYPE_RANKSxNODES_setN, and _group_G
# with SCR_GROUP=G).
red_common="SCR_FLUSH=0 SCR_CRC_ON_COPY=1 SCR_FILE_BUF_SIZE=4096 SCR_MPI_BUF_SIZE=4096"
red_files="--files 2 --size 9000 --uneven --no-files 1"

red_snapshot() {
    rm -rf "$scratch/$1" && mkdir "$scratch/$1" &&
        cp -a "$scratch/cache" "$scratch/cntl" "$prefix" "$scratch/$1/"
}

red_restore() {
    cd "$scratch" && rm -rf "$scratch/cache" "$scratch/cntl" "$prefix" &&
        cp -a "$scratch/$1/cache" "$scratch/$1/cntl" "$scratch/$1/prefix" "$scratch/" &&
        cd "$prefix" || exit 99
}

# red_run STEPS [VAR=VALUE...]: the application on this configuration's layout
red_run() {
    _red_steps=$1
    shift
    # shellcheck disable=SC2086 # the settings and arguments are meant to be split
    mpi_run "$red_ranks" "$red_nodes" $red_common $red_settings ${red_extra:-} "$@" -- --steps "$_red_steps" $red_files
}

red_write() {
    red_type=$1 red_ranks=$2 red_nodes=$3
    shift 3
    red_settings="SCR_COPY_TYPE=$red_type $*"
    red_label=${red_type}_${red_ranks}x${red_nodes}
    for _red_s in "$@"; do
        case $_red_s in
        SCR_SET_SIZE=*) red_label=${red_label}_set${_red_s#*=} ;;
        SCR_GROUP=*) red_label=${red_label}_group_${_red_s#*=} ;;
        esac
    done
    mpi_reset
    red_run 1 SCR_FLUSH=1
    mpi_expect_restart "${red_label}_writes_checkpoint_1_to_the_prefix" 0 1
    red_run 2
    mpi_expect_restart "${red_label}_writes_checkpoint_2_in_cache_only" 1 2
    check "${red_label}_checkpoint_2_is_not_on_the_prefix" sh -c "! test -e '$prefix/ckpt.2'"
    red_snapshot saved
}

# red_lose "LOST": delete those nodes' directories
red_lose() {
    for _red_n in $1; do mpi_lose_node "$_red_n"; done
}

# red_name "LOST" WHAT: a test name
red_name() {
    _red_what=${red_case:+_$red_case}
    [ -z "$1" ] || _red_what="${_red_what}_losing_node$(echo " $1" | tr ' ' '_')"
    echo "${red_label}${_red_what}_$2"
}

# the length of a redundancy file's header: bytes 8-15, big-endian
red_header_size() {
    od -An -tu1 -j8 -N8 "$1" | awk '{ n = 0; for (i = 1; i <= NF; i++) n = n * 256 + $i; print n }'
}

red_same_data() {
    _red_h1=$(red_header_size "$1") && _red_h2=$(red_header_size "$2") &&
        [ "$(($(wc -c < "$1") - _red_h1))" -eq "$(($(wc -c < "$2") - _red_h2))" ] &&
        cmp -i "$_red_h1:$_red_h2" "$1" "$2"
}

red_redundancy_file() {
    find "$scratch/cache/node$1" -name "*.$2" | sort | head -n 1
}

# red_replay "LOST" [VAR=VALUE...]: the saved job restarted without those nodes
red_replay() {
    _red_lost=$1
    shift
    red_restore "${red_from:-saved}"
    red_lose "$_red_lost"
    [ -z "${red_empty_prefix:-}" ] || { rm -rf "$prefix" && mkdir "$prefix" && cd "$prefix"; } || exit 99
    red_run 2 "$@"
}

red_expect_rebuilt() {
    red_replay "$@"
    mpi_expect_restart "$(red_name "$_red_lost" rebuilds_checkpoint_2)" 2 2
}

# the one line that says why the cache could not be used, and no other error
# but, with $red_damaged set, that many lines naming a file whose CRC differs
red_expect_one_line() {
    _red_lines=$(grep -c "cannot be rebuilt from cache" "$mpi_err")
    _red_damage=$(grep -c "is damaged: CRC32 0x[0-9a-f]* found" "$mpi_err")
    _red_errors=$(grep -ci "error" "$mpi_err")
    if [ "$_red_lines" -eq 1 ] && [ "$_red_damage" -eq "${red_damaged:-0}" ] &&
       [ "$_red_errors" -eq $((1 + ${red_damaged:-0})) ]; then
        ok "$1"
    else
        not_ok "$1" "expected one error line saying the dataset cannot be rebuilt from cache and ${red_damaged:-0} naming a damaged file; got $_red_lines, $_red_damage and $_red_errors error line(s) in all
$(mpi_diag)"
    fi
}

red_expect_prefix() {
    red_replay "$@"
    mpi_expect_restart "$(red_name "$_red_lost" falls_back_to_checkpoint_1_on_the_prefix)" 1 2
    red_expect_one_line "$(red_name "$_red_lost" says_why_in_one_line)"
}

red_expect_fresh() {
    red_empty_prefix=1
    red_replay "$@"
    red_empty_prefix=
    mpi_expect_restart "$(red_name "$_red_lost" with_an_empty_prefix_starts_fresh)" 0 2
    red_expect_one_line "$(red_name "$_red_lost" with_an_empty_prefix_says_why_in_one_line)"
}

red_expect_protected_again() {
    _red_first=$1
    shift
    red_replay "$_red_first"
    mpi_expect_restart "$(red_name "$_red_first" rebuilds_checkpoint_2_before_a_second_loss)" 2 2
    red_snapshot rebuilt
    for _red_later in "$@"; do
        red_restore rebuilt
        red_lose "$_red_later"
        red_run 2
        mpi_expect_restart "$(red_name "$_red_first" "then_node$(echo " $_red_later" | tr ' ' '_')_rebuilds_again")" 2 2
    done
}

red_pairs() {
    for _red_a in $1; do
        _red_seen=
        for _red_b in $1; do
            [ -n "$_red_seen" ] && echo "$_red_a $_red_b"
            [ "$_red_a" = "$_red_b" ] && _red_seen=1
        done
    done
}
