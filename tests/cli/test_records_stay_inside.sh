#!/bin/sh
# test_records_stay_inside.sh — scr-scavenge and scr-index --add read and
# write only inside the prefix and the cache they were given, whatever the
# records they follow say.
#
# scr-scavenge copies what a control directory's filemap lists: a file whose
# original path (PATH/NAME) lies outside --prefix (elsewhere, or out of it
# through ".."), a cache file outside the dataset's cache directory, and a
# master list naming a filemap outside the control directory are refused,
# naming the filemap and the path, and nothing is copied; the file that
# would have been written is untouched. A file under the prefix the job
# recorded (job.scr) goes to the same place under --prefix instead.
# scr-index --add refuses a rank filemap or a summary naming a file outside
# the prefix, and a directory that is not in <prefix>/.scr. The records are
# written by the independent kvtree writer (needs python3).
. "$top_srcdir/tests/tap.sh"

scavenge="$top_builddir/cli/scr-scavenge"
index="$top_builddir/cli/scr-index"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-records-inside.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset SCR_PREFIX SCR_CONF_FILE
export SCR_LOG_ENABLE=0

tests="scavenge_to_another_directory_is_refused_naming_the_filemap
and_leaves_the_file_there_untouched
scavenge_out_of_the_prefix_through_dotdot_is_refused
and_leaves_that_file_untouched
a_cache_file_outside_the_dataset_cache_directory_is_refused
and_its_bytes_reach_no_prefix
a_master_list_naming_a_filemap_elsewhere_is_refused
a_file_under_the_job_prefix_goes_under_the_prefix_given
and_the_job_prefix_is_left_alone
and_its_rank_filemap_says_where_it_went
a_relative_cntl_dir_spelled_through_a_link_scavenges
add_of_a_rank_filemap_climbing_out_of_the_prefix_is_refused_naming_it
and_the_file_outside_is_left_alone
add_of_a_rank_filemap_leaving_through_dotdot_is_refused
add_of_a_summary_naming_a_file_outside_is_refused_naming_it
add_of_a_directory_outside_the_prefix_scr_is_refused"
if [ -z "$PYTHON3" ]; then
    for name in $tests; do skip "$name" "python3 not found"; done
    done_testing
    exit
fi

p=$tmp/prefix
cache=$tmp/cache/scr.1
cntl=$tmp/cntl
victim=$tmp/victim
data="checkpoint of rank 0"

# node PATH [CACHEFILE] [JOBPREFIX]: a control directory whose filemap lists
# rank 0's file of dataset 6 in cache (CACHEFILE, default the dataset's cache
# directory) with its original path PATH/rank_0.ckpt; with JOBPREFIX, a job
# file recording that prefix and the cache directory.
node() {
    rm -rf "$p" "$tmp/cache" "$cntl" "$tmp/q" && mkdir -p "$p" "$cache/scr.dataset.6/ckpt.6" "$cntl" || exit 99
    printf '%s' "$data" > "$cache/scr.dataset.6/ckpt.6/rank_0.ckpt"
    "$PYTHON3" - "$ref" "$cntl" "$1" "${2:-$cache/scr.dataset.6/ckpt.6/rank_0.ckpt}" "${3:-}" "$cache" "$data" <<'PY' || exit 99
import json, subprocess, sys, zlib
ref, cntl, path, cfile, job_prefix, cache, data = sys.argv[1:]
def v(x): return {str(x): {}}
meta = {"CKPT": v(6), "COMPLETE": v(1), "CRC": v("0x%08x" % zlib.crc32(data.encode())), "FILE": v("ckpt.6/rank_0.ckpt"),
        "NAME": v("rank_0.ckpt"), "ORIG": v("ckpt.6/rank_0.ckpt"), "PATH": v(path), "RANK": v(0), "RANKS": v(1),
        "SIZE": v(len(data)), "TYPE": v("FULL")}
desc = {"CKPT": v(6), "COMPLETE": v(1), "FLAGS": v(1), "ID": v(6), "NAME": v("ckpt.6")}
tree = {"VERSION": v(1), "DSET": {"6": {"RANK": v(0)}},
        "RANK": {"0": {"DSET": {"6": {"DSETDESC": desc, "FILE": {cfile: {"META": meta}}, "FILES": v(1)}}}}}
def write(tree, out):
    with open(out + ".json", "w") as f:
        json.dump(tree, f)
    subprocess.run([sys.executable, ref, "write", out + ".json", out], check=True)
write(tree, cntl + "/filemap_0.scrinfo")
if job_prefix:
    write({"VERSION": v(1), "PREFIX": v(job_prefix), "CACHE": v(cache)}, cntl + "/job.scr")
PY
    rm -f "$cntl"/*.json
}

# victim_is_untouched: the file a doctored record aims at is as it was
victim_is_untouched() {
    [ "$(cat "$victim")" = "root's own file" ]
}

run() {
    "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}
said() {
    printf 'status %s\nstdout: %s\nstderr: %s\n' "$status" "$(cat "$tmp/out")" "$(cat "$tmp/err")"
}
# refused NAME PATTERN: the last command exited 1 and said PATTERN, naming the filemap
refused() {
    if [ "$status" -eq 1 ] && grep -q -e "$2" "$tmp/err"; then ok "$1"; else not_ok "$1" "$(said)"; fi
}

# --- scr-scavenge --------------------------------------------------------------------
mkdir -p "$tmp/elsewhere"
victim=$tmp/elsewhere/rank_0.ckpt
printf "root's own file" > "$victim"
node "$tmp/elsewhere"
run "$scavenge" --cntl-dir "$cntl" --prefix "$p" --force
refused "scavenge_to_another_directory_is_refused_naming_the_filemap" \
    "$cntl/filemap_0.scrinfo: the file $tmp/elsewhere/rank_0.ckpt of rank 0 in dataset 6 is to go outside the prefix $p"
check "and_leaves_the_file_there_untouched" victim_is_untouched

mkdir -p "$tmp/outside"
victim=$tmp/outside/rank_0.ckpt
printf "root's own file" > "$victim"
node "$p/ckpt.6/../../outside"
run "$scavenge" --cntl-dir "$cntl" --prefix "$p" --force
refused "scavenge_out_of_the_prefix_through_dotdot_is_refused" "$cntl/filemap_0.scrinfo: the file .*outside the prefix"
check "and_leaves_that_file_untouched" victim_is_untouched

# a file elsewhere with the very size and CRC recorded, which a copy would take
printf '%s' "$data" > "$tmp/secret"
node "$p/ckpt.6" "$tmp/secret"
run "$scavenge" --cntl-dir "$cntl" --prefix "$p"
refused "a_cache_file_outside_the_dataset_cache_directory_is_refused" \
    "$cntl/filemap_0.scrinfo: the file $tmp/secret of rank 0 in dataset 6 is not in the dataset's cache directory"
check "and_its_bytes_reach_no_prefix" test ! -e "$p/ckpt.6/rank_0.ckpt"

node "$p/ckpt.6"
mkdir -p "$tmp/other" && mv "$cntl/filemap_0.scrinfo" "$tmp/other/filemap_0.scrinfo"
printf '{"Filemap": {"%s": {}}}' "$tmp/other/filemap_0.scrinfo" > "$tmp/master.json"
"$PYTHON3" "$ref" write "$tmp/master.json" "$cntl/filemap.scrinfo" || exit 99
run "$scavenge" --cntl-dir "$cntl" --prefix "$p"
refused "a_master_list_naming_a_filemap_elsewhere_is_refused" \
    "$cntl/filemap.scrinfo: the filemap $tmp/other/filemap_0.scrinfo is not in the control directory"

# the job ran with the prefix $tmp/q; the dataset is scavenged to $p
node "$tmp/q/ckpt.6" "" "$tmp/q"
mkdir -p "$tmp/q"
run "$scavenge" --cntl-dir "$cntl" --prefix "$p"
if [ "$status" -eq 0 ] && [ "$(cat "$p/ckpt.6/rank_0.ckpt" 2>&1)" = "$data" ]; then
    ok "a_file_under_the_job_prefix_goes_under_the_prefix_given"
else
    not_ok "a_file_under_the_job_prefix_goes_under_the_prefix_given" "$(said)"
fi
check "and_the_job_prefix_is_left_alone" eval "[ -z \"\$(ls -A '$tmp/q')\" ]"
check "and_its_rank_filemap_says_where_it_went" \
    eval "'$PYTHON3' '$ref' dump '$p/.scr/scr.dataset.6/0.scrfilemap' | grep -q '\"$p/ckpt.6\"'"

# the master list names its filemaps by absolute paths, as libscr writes
# them; --cntl-dir is given relative to the current directory, through a link
node "$p/ckpt.6"
printf '{"Filemap": {"%s": {}}}' "$cntl/filemap_0.scrinfo" > "$tmp/master.json"
"$PYTHON3" "$ref" write "$tmp/master.json" "$cntl/filemap.scrinfo" || exit 99
ln -sfn "$cntl" "$tmp/cntl-link" || exit 99
(cd "$tmp" && "$scavenge" --cntl-dir cntl-link --prefix prefix > "$tmp/out" 2> "$tmp/err")
status=$?
if [ "$status" -eq 0 ] && [ "$(cat "$p/ckpt.6/rank_0.ckpt" 2>&1)" = "$data" ]; then
    ok "a_relative_cntl_dir_spelled_through_a_link_scavenges"
else
    not_ok "a_relative_cntl_dir_spelled_through_a_link_scavenges" "$(said)"
fi

# --- scr-index --add ------------------------------------------------------------------

# dataset NAME: the rank filemap of rank 0 of dataset 7 in $p, listing its
# file under NAME (relative to the dataset directory); the file itself, with
# the bytes it lists, both at ckpt.7/rank_0.ckpt and at the victim's place.
dataset() {
    rm -rf "$p" && mkdir -p "$p/.scr/scr.dataset.7" "$p/ckpt.7" || exit 99
    printf '%s' "$data" > "$p/ckpt.7/rank_0.ckpt"
    printf '%s' "$data" > "$victim"
    "$PYTHON3" - "$ref" "$p" "$1" "$data" <<'PY' || exit 99
import json, subprocess, sys, zlib
ref, prefix, name, data = sys.argv[1:]
def v(x): return {str(x): {}}
meta = {"CKPT": v(7), "COMPLETE": v(1), "CRC": v("0x%08x" % zlib.crc32(data.encode())), "FILE": v(name),
        "NAME": v("rank_0.ckpt"), "PATH": v(prefix + "/ckpt.7"), "RANK": v(0), "RANKS": v(1), "SIZE": v(len(data)),
        "TYPE": v("FULL")}
desc = {"CKPT": v(7), "COMPLETE": v(1), "FLAGS": v(1), "ID": v(7), "NAME": v("ckpt.7")}
tree = {"VERSION": v(1), "DSET": {"7": {"RANK": v(0)}},
        "RANK": {"0": {"DSET": {"7": {"DSETDESC": desc, "FILE": {name: {"META": meta}}, "FILES": v(1)}}}}}
out = prefix + "/.scr/scr.dataset.7/0.scrfilemap"
with open(prefix + "/rmap.json", "w") as f:
    json.dump(tree, f)
subprocess.run([sys.executable, ref, "write", prefix + "/rmap.json", out], check=True)
PY
    rm -f "$p/rmap.json"
}
indexed() {
    [ -e "$p/.scr/index.scr" ] && "$index" --prefix "$p" 2> /dev/null | grep -q 'ckpt.7'
}

victim=$tmp/outside/rank_0.ckpt
dataset "../../../outside/rank_0.ckpt"
run "$index" --prefix "$p" --add scr.dataset.7
if [ "$status" -eq 1 ] && ! indexed &&
    grep -q "$p/.scr/scr.dataset.7/0.scrfilemap: the file '../../../outside/rank_0.ckpt' leads to $victim, outside the prefix $p" "$tmp/err"; then
    ok "add_of_a_rank_filemap_climbing_out_of_the_prefix_is_refused_naming_it"
else
    not_ok "add_of_a_rank_filemap_climbing_out_of_the_prefix_is_refused_naming_it" "$(said)"
fi
check "and_the_file_outside_is_left_alone" eval "[ \"\$(cat '$victim')\" = '$data' ]"

dataset "../../ckpt.7/../../outside/rank_0.ckpt"
run "$index" --prefix "$p" --add scr.dataset.7
if [ "$status" -eq 1 ] && ! indexed && grep -q "0.scrfilemap: the file .* outside the prefix $p" "$tmp/err"; then
    ok "add_of_a_rank_filemap_leaving_through_dotdot_is_refused"
else
    not_ok "add_of_a_rank_filemap_leaving_through_dotdot_is_refused" "$(said)"
fi

# a summary (which --add takes as it is, without --crc) naming a file outside
dataset "../../ckpt.7/rank_0.ckpt"
"$PYTHON3" - "$ref" "$p" <<'PY' || exit 99
import json, subprocess, sys
ref, prefix = sys.argv[1:]
def v(x): return {str(x): {}}
desc = {"CKPT": v(7), "COMPLETE": v(1), "FLAGS": v(1), "ID": v(7), "NAME": v("ckpt.7")}
tree = {"VERSION": v(6), "DSET": desc,
        "RANK2FILE": {"RANKS": v(1), "RANK": {"0": {"FILES": v(1), "FILE": {"../../../outside/rank_0.ckpt": {"SIZE": v(20)}}}}}}
with open(prefix + "/summary.json", "w") as f:
    json.dump(tree, f)
subprocess.run([sys.executable, ref, "write", prefix + "/summary.json", prefix + "/.scr/scr.dataset.7/summary.scr"],
               check=True)
PY
run "$index" --prefix "$p" --add scr.dataset.7 --no-crc
if [ "$status" -eq 1 ] && ! indexed &&
    grep -q "$p/.scr/scr.dataset.7/summary.scr: the file '../../../outside/rank_0.ckpt' leads to .*outside the prefix" "$tmp/err"; then
    ok "add_of_a_summary_naming_a_file_outside_is_refused_naming_it"
else
    not_ok "add_of_a_summary_naming_a_file_outside_is_refused_naming_it" "$(said)"
fi

dataset "../../ckpt.7/rank_0.ckpt"
mkdir -p "$tmp/loose" && cp -r "$p/.scr/scr.dataset.7" "$tmp/loose/"
run "$index" --prefix "$p" --add "$tmp/loose/scr.dataset.7"
if [ "$status" -eq 1 ] && ! indexed && grep -q "is not a dataset directory of the prefix $p" "$tmp/err"; then
    ok "add_of_a_directory_outside_the_prefix_scr_is_refused"
else
    not_ok "add_of_a_directory_outside_the_prefix_scr_is_refused" "$(said)"
fi

done_testing
