#!/bin/sh
# test_scr_adopt.sh — scr-adopt records a directory an application wrote
# without SCR as a checkpoint of the prefix: the rank filemaps, summary and
# index entry a flush would have written, with every file's size and CRC32
# (checked here against zlib's, the records read by the independent kvtree
# reader tests/tools/kvtree_ref.py); the next free id; --global, --ranks,
# --no-current; every refusal, each naming what was wrong and leaving the
# prefix exactly as it was; and a prefix that fills up while the records
# are written, which gets back what it held.
. "$top_srcdir/tests/tap.sh"

adopt="$top_builddir/cli/scr-adopt"
as_nobody= # set: refused runs the command as nobody
run_adopt() {
    if [ -n "$as_nobody" ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$adopt" "$@"
    else "$adopt" "$@"; fi
}
index="$top_builddir/cli/scr-index"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-adopt-test.XXXXXX")
trap 'umount "$tmp/full" 2>/dev/null; chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
unset SCR_PREFIX
p=$tmp/prefix

if [ -z "$PYTHON3" ]; then
    echo "1..0 # SKIP python3 not found (it computes the CRCs and reads the records independently)"
    exit 0
fi

# files DIR N [SIZE]: rank_0.ckpt .. rank_<N-1>.ckpt of different sizes and bytes
files() {
    mkdir -p "$1" || exit 99
    "$PYTHON3" - "$1" "$2" <<'PY' || exit 99
import sys
d, n = sys.argv[1], int(sys.argv[2])
for r in range(n):
    with open(f"{d}/rank_{r}.ckpt", "wb") as f:
        f.write(bytes((r * 131 + i * 7 + (i >> 8)) % 256 for i in range(1000 + 517 * r)))
PY
}

# What the prefix holds: every path and every byte (the lock file's record
# aside, which taking the prefix rewrites).
snapshot() {
    (cd "$p" && find . | sort && find . -type f ! -name lock.scr -exec md5sum {} + | sort)
}

# refused NAME TEXT ARGS...: scr-adopt exits 1, says TEXT, changes nothing
refused() {
    name=$1 text=$2
    shift 2
    before=$(snapshot)
    out=$(run_adopt --prefix "$p" "$@" 2>&1)
    status=$?
    after=$(snapshot)
    if [ "$status" -ne 1 ]; then
        not_ok "$name" "exit status $status, 1 expected: $out"
    elif ! printf '%s\n' "$out" | grep -qF -- "$text"; then
        not_ok "$name" "no '$text' in: $out"
    elif ! printf '%s\n' "$out" | grep -qF "was not adopted; the prefix holds no record of it"; then
        not_ok "$name" "no closing line in: $out"
    elif [ "$before" != "$after" ]; then
        not_ok "$name" "the prefix changed: $(printf '%s\n' "$before" > "$tmp/b"; printf '%s\n' "$after" > "$tmp/a"; diff "$tmp/b" "$tmp/a")"
    else
        ok "$name"
    fi
}

# usage NAME TEXT ARGS...: exit status 2 and TEXT said
usage_error() {
    name=$1 text=$2
    shift 2
    out=$("$adopt" --prefix "$p" "$@" 2>&1)
    status=$?
    if [ "$status" -eq 2 ] && printf '%s\n' "$out" | grep -qF -- "$text"; then ok "$name"
    else not_ok "$name" "exit status $status (2 expected): $out"; fi
}

# check_records ID NAME DIR RANKS [global]: the summary and rank filemaps of
# dataset ID name each file of DIR (relative to the prefix) with its size
# and zlib's CRC32, owned as rank_<r>.ckpt says (all rank 0 with global)
check_records() {
    "$PYTHON3" - "$p" "$ref" "$@" <<'PY'
import json, os, subprocess, sys, zlib
prefix, ref, dsid, name, d, ranks = sys.argv[1:7]
glob = len(sys.argv) > 7
ranks = int(ranks)
dsdir = f"{prefix}/.scr/scr.dataset.{dsid}"
def dump(path):
    return json.loads(subprocess.run([sys.executable, ref, "dump", path], check=True,
                                     capture_output=True, text=True).stdout)
def one(node):
    assert len(node) == 1, node
    return next(iter(node))
errors = []
s = dump(f"{dsdir}/summary.scr")
desc = s["DSET"]
for key, want in (("ID", dsid), ("NAME", name), ("FLAGS", "1"), ("COMPLETE", "1")):
    if one(desc[key]) != want: errors.append(f"summary DSET {key} {one(desc[key])}, {want} expected")
if one(s["RANK2FILE"]["RANKS"]) != str(ranks): errors.append("summary RANKS %s" % s["RANK2FILE"]["RANKS"])
files = sorted(os.listdir(f"{prefix}/{d}"))
total = 0
for f in files:
    data = open(f"{prefix}/{d}/{f}", "rb").read()
    total += len(data)
    rank = 0 if glob else int(f.split("_")[1].split(".")[0])
    rel = f"../../{d}/{f}"
    entry = s["RANK2FILE"]["RANK"].get(str(rank), {}).get("FILE", {}).get(rel)
    if entry is None:
        errors.append(f"summary: no {rel} for rank {rank}")
        continue
    if one(entry["SIZE"]) != str(len(data)): errors.append(f"{rel}: SIZE {entry['SIZE']}, {len(data)} expected")
    if int(one(entry["CRC"]), 16) != zlib.crc32(data): errors.append(f"{rel}: CRC {entry['CRC']}, 0x{zlib.crc32(data):08x} expected")
    m = dump(f"{dsdir}/{rank}.scrfilemap")["RANK"][str(rank)]["DSET"][dsid]["FILE"][rel]["META"]
    want = {"FILE": rel, "TYPE": "FULL", "RANK": str(rank), "RANKS": str(ranks), "NAME": f, "PATH": f"{prefix}/{d}",
            "ORIG": f"{d}/{f}", "SIZE": str(len(data)), "COMPLETE": "1"}
    for key, value in want.items():
        if one(m[key]) != value: errors.append(f"{rank}.scrfilemap {rel} META {key} {one(m[key])}, {value} expected")
    if int(one(m["CRC"]), 16) != zlib.crc32(data): errors.append(f"{rank}.scrfilemap {rel}: CRC {m['CRC']}")
if one(desc["SIZE"]) != str(total): errors.append(f"summary SIZE {desc['SIZE']}, {total} expected")
if one(desc["FILES"]) != str(len(files)): errors.append(f"summary FILES {desc['FILES']}")
for r in range(ranks):
    if not os.path.exists(f"{dsdir}/{r}.scrfilemap"): errors.append(f"no {r}.scrfilemap")
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
}

# index_field ID KEY: a member of dataset ID in scr-index --json
index_field() {
    "$index" --prefix "$p" --json | "$PYTHON3" -c '
import json, sys
for d in json.load(sys.stdin)["datasets"]:
    if d["id"] == int(sys.argv[1]): print(json.dumps(d[sys.argv[2]]))' "$1" "$2"
}

# index_field_id NAME: the id of dataset NAME
index_field_id() {
    "$index" --prefix "$p" --json | "$PYTHON3" -c '
import json, sys
print(*[d["id"] for d in json.load(sys.stdin)["datasets"] if d["name"] == sys.argv[1]])' "$1"
}

# --- what an adoption records ------------------------------------------------
mkdir -p "$p" || exit 99
files "$p/ckpt" 4
cp -r "$p/ckpt" "$tmp/pristine" || exit 99
out=$("$adopt" --prefix "$p" --name ckpt.0 --owner 'rank_%d.ckpt' ckpt 2>&1)
check "a_directory_of_four_ranks_files_is_adopted_as_dataset_1" \
    test "$out" = "adopted ckpt as dataset 1 (ckpt.0) of $p: 4 files, 7102 bytes, 4 ranks; it is the current checkpoint"
check "its_summary_and_rank_filemaps_name_every_file_with_its_size_and_crc32" check_records 1 ckpt.0 ckpt 4
check "the_index_lists_it_as_a_complete_checkpoint" \
    test "$(index_field 1 complete) $(index_field 1 checkpoint) $(index_field 1 files)" = "true true 4"
check "it_is_the_current_checkpoint_and_flushed" \
    test "$(index_field 1 current) $(index_field 1 flushed)" != "false null"
check "the_files_stay_where_they_are_unchanged" diff -r "$tmp/pristine" "$p/ckpt"
check "the_dataset_directory_is_claimed_like_a_flush" test -f "$p/.scr/scr.dataset.1/claim.scr"
check "scr_index_add_with_crc_finds_the_adopted_dataset_complete" "$index" --prefix "$p" --add scr.dataset.1 --crc

# a directory a dataset left behind keeps its id: the next one is above it
mkdir -p "$p/.scr/scr.dataset.7" || exit 99
files "$p/later/deeper" 2
out=$("$adopt" --prefix "$p" --name later --owner 'deeper/rank_%d.ckpt' "$p/later" 2>&1)
check "the_next_id_is_above_every_dataset_directory" test "$(index_field 8 name)" = '"later"'
check "a_later_adoption_becomes_current" test "$(index_field 8 current) $(index_field 1 current)" = "true false"
check "a_file_in_a_subdirectory_is_named_with_its_path" \
    "$PYTHON3" "$ref" dump "$p/.scr/scr.dataset.8/1.scrfilemap"
grep_rmap() { "$PYTHON3" "$ref" dump "$p/.scr/scr.dataset.8/1.scrfilemap" | grep -qF '"../../later/deeper/rank_1.ckpt"'; }
check "a_file_in_a_subdirectory_keeps_its_path_below_the_directory" grep_rmap
ckpt_of() { "$PYTHON3" "$ref" dump "$p/.scr/scr.dataset.$1/summary.scr" | "$PYTHON3" -c 'import json,sys; print(next(iter(json.load(sys.stdin)["DSET"]["CKPT"])))'; }
check "its_checkpoint_number_is_above_every_one_of_the_index" test "$(ckpt_of 1) $(ckpt_of 8)" = "1 2"

files "$p/quiet" 1
"$adopt" --prefix "$p" --name quiet --owner 'rank_%d.ckpt' --no-current quiet > /dev/null 2>&1
check "no_current_leaves_the_current_dataset_as_it_was" \
    test "$(index_field 9 current) $(index_field 8 current)" = "false true"

files "$p/shared" 3
"$adopt" --prefix "$p" --name shared --global shared > /dev/null 2>&1
check "global_records_every_file_as_rank_0_of_one_rank" check_records 10 shared shared 1 global

files "$p/sparse" 2
"$adopt" --prefix "$p" --name sparse --owner 'rank_%d.ckpt' --ranks 4 sparse > /dev/null 2>&1
sparse_rank3() { "$PYTHON3" "$ref" dump "$p/.scr/scr.dataset.11/3.scrfilemap" | "$PYTHON3" -c '
import json, sys
d = json.load(sys.stdin)["RANK"]["3"]["DSET"]["11"]
sys.exit(0 if d["FILES"] == {"0": {}} and "FILE" not in d else 1)'; }
check "ranks_gives_the_ranks_without_a_file_an_empty_rank_filemap" sparse_rank3
check "and_the_records_of_the_others" check_records 11 sparse sparse 4

mkdir -p "$p/padded" && printf 'a' > "$p/padded/r007.x" && printf 'bb' > "$p/padded/r00.x" &&
    printf 'c' > "$p/padded/r1.x" && printf 'd' > "$p/padded/r1-extra.x" || exit 99
"$adopt" --prefix "$p" --name padded --owner 'r%d*.x' --ranks 8 padded > /dev/null 2>&1
padded() { "$PYTHON3" "$ref" dump "$p/.scr/scr.dataset.12/summary.scr" | "$PYTHON3" -c '
import json, sys
r = json.load(sys.stdin)["RANK2FILE"]["RANK"]
got = {k: sorted(v.get("FILE", {})) for k, v in r.items()}
want = {"0": ["../../padded/r00.x"], "7": ["../../padded/r007.x"], "1": ["../../padded/r1-extra.x", "../../padded/r1.x"]}
sys.exit(0 if all(got.get(k) == v for k, v in want.items()) else print(got) or 1)'; }
check "leading_zeros_and_a_star_in_the_rule_give_the_ranks_their_files" padded

# --- refusals: each says what was wrong, and nothing changes ------------------
refused "a_missing_directory_is_refused" "$p/nowhere: No such file or directory" --name x --global nowhere
mkdir -p "$p/empty"
refused "an_empty_directory_is_refused" "$p/empty: it holds no file" --name x --global empty
files "$p/next" 2
refused "a_name_the_index_has_is_refused" "the name ckpt.0 belongs to dataset 1" --name ckpt.0 --global next
files "$tmp/outside" 2
refused "a_directory_outside_the_prefix_is_refused" "it is outside the prefix" --name x --global "$tmp/outside"
ln -s "$tmp/outside" "$p/link" || exit 99
refused "a_symbolic_link_to_a_directory_outside_is_refused" "it is outside the prefix" --name x --global link
rm "$p/link"
refused "the_prefix_itself_is_refused" "it is the prefix itself" --name x --global .
refused "a_directory_in_the_prefix_s_scr_is_refused" "in the prefix's .scr directory" --name x --global .scr/scr.dataset.1
refused "a_directory_that_is_a_dataset_already_is_refused" "a file of dataset 1 (ckpt.0) already" \
    --name again --owner 'rank_%d.ckpt' ckpt
files "$p/links" 2
ln -s "$tmp/outside/rank_0.ckpt" "$p/links/rank_2.ckpt" || exit 99
refused "a_symbolic_link_to_a_file_outside_the_prefix_is_refused" "$p/links/rank_2.ckpt: a symbolic link to $tmp/outside/rank_0.ckpt, which is outside the prefix" \
    --name x --owner 'rank_%d.ckpt' links
rm "$p/links/rank_2.ckpt" && ln -s ../next/rank_0.ckpt "$p/links/rank_2.ckpt" || exit 99
refused "a_symbolic_link_to_a_file_inside_the_prefix_is_refused_too" \
    "$p/links/rank_2.ckpt: a symbolic link to $p/next/rank_0.ckpt; a checkpoint's files are never read through a link" \
    --name links --owner 'rank_%d.ckpt' links
ln -s "$p/nothing" "$p/next/rank_2.ckpt" || exit 99
refused "a_dangling_symbolic_link_is_refused" "$p/next/rank_2.ckpt: a symbolic link to nothing" \
    --name x --owner 'rank_%d.ckpt' next
rm "$p/next/rank_2.ckpt"
ln -s ../.scr/index.scr "$p/next/rank_2.ckpt" || exit 99
refused "a_symbolic_link_into_the_prefix_s_scr_is_refused" "which is in the prefix's .scr directory" \
    --name x --owner 'rank_%d.ckpt' next
rm "$p/next/rank_2.ckpt"
mkfifo "$p/next/rank_2.ckpt" || exit 99
refused "a_fifo_is_refused" "$p/next/rank_2.ckpt: not a regular file" --name x --owner 'rank_%d.ckpt' next
rm "$p/next/rank_2.ckpt"
refused "a_rule_that_matches_no_file_is_refused" "the rule 'step_%d.dat' matches no file of $p/next" \
    --name x --owner 'step_%d.dat' next
printf 'notes\n' > "$p/next/README" && printf 'x' > "$p/next/rank_x.ckpt" || exit 99
refused "files_the_rule_leaves_unowned_are_named" "2 files of $p/next match no rank by the rule 'rank_%d.ckpt': README, rank_x.ckpt" \
    --name x --owner 'rank_%d.ckpt' next
rm "$p/next/README" "$p/next/rank_x.ckpt"
files "$p/gaps" 6 && rm "$p/gaps/rank_1.ckpt" "$p/gaps/rank_4.ckpt"
refused "ranks_without_a_file_are_named" "2 ranks below the highest rank 5 own no file of $p/gaps: 1, 4 (give --ranks 6" \
    --name x --owner 'rank_%d.ckpt' gaps
refused "a_file_of_a_rank_above_ranks_is_refused" "$p/gaps/rank_5.ckpt belongs to rank 5 by the rule 'rank_%d.ckpt', but --ranks says the dataset has 4 ranks" \
    --name x --owner 'rank_%d.ckpt' --ranks 4 gaps
refused "a_rule_with_two_ranks_is_refused" "has 2 %d; it needs exactly one" --name x --owner 'r%d_%d' next
refused "a_rule_with_an_unknown_percent_is_refused" "'%s' is not understood" --name x --owner 'r%d_%s' next
# root reads every file: the command then runs as nobody, who can read the
# others (the scratch directory is opened to it for this one case)
if [ "$(id -u)" -eq 0 ] && ! command -v setpriv > /dev/null 2>&1; then
    skip "an_unreadable_file_is_refused" "root reads every file, and setpriv is not there to run as nobody"
else
    chmod 755 "$tmp" && chmod 000 "$p/next/rank_1.ckpt"
    [ "$(id -u)" -eq 0 ] && as_nobody=1
    refused "an_unreadable_file_is_refused" "$p/next/rank_1.ckpt: it cannot be read: Permission denied" \
        --name x --owner 'rank_%d.ckpt' next
    as_nobody=
    chmod 644 "$p/next/rank_1.ckpt" && chmod 700 "$tmp"
fi
cp "$p/.scr/index.scr" "$tmp/index.good"
printf 'damaged' > "$p/.scr/index.scr"
refused "a_damaged_index_is_refused" "index.scr" --name x --owner 'rank_%d.ckpt' next
cp "$tmp/index.good" "$p/.scr/index.scr"

# a job that holds the prefix (its SCR_Init took the lock and wrote its record) keeps it
"$PYTHON3" - "$p/.scr/lock.scr" "$tmp/held" "$ref" <<'PY' &
import fcntl, json, os, subprocess, sys, time
lock, held, ref = sys.argv[1:4]
fd = os.open(lock, os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX)
record = {"VERSION": {"1": {}}, "JOBID": {"4242": {}}, "USER": {"alice": {}}, "HOST": {"n17": {}},
          "PID": {"4711": {}}, "SINCE": {"1795591577": {}}}
with open(held + ".json", "w") as f:
    json.dump(record, f)
subprocess.run([sys.executable, ref, "write", held + ".json", held + ".scr"], check=True)
data = open(held + ".scr", "rb").read()
os.ftruncate(fd, 0)
os.pwrite(fd, data, 0)
open(held, "w").close()
time.sleep(30)
PY
holder=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do [ -f "$tmp/held" ] && break; sleep 0.2; done
refused "a_prefix_a_job_holds_is_refused" "is in use by job 4242 of alice on n17" --name x --owner 'rank_%d.ckpt' next
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# a prefix that fills up while the records are written: what was written is
# taken back (a 256 KiB tmpfs, 24 KiB of it free: room for a few of the 20
# rank filemaps; skipped where a tmpfs cannot be mounted)
full=$tmp/full
mkdir -p "$full" || exit 99
if mount -t tmpfs -o size=256k tmpfs "$full" 2> /dev/null; then
    mkdir "$full/d" && head -c 155648 /dev/zero > "$full/filler" || exit 99
    for r in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do printf x > "$full/d/rank_$r.ckpt"; done
    out=$("$adopt" --prefix "$full" --name full --owner 'rank_%d.ckpt' d 2>&1)
    status=$?
    if [ "$status" -eq 1 ] && printf '%s\n' "$out" | grep -q "scrfilemap.* failed: No space left on device"; then
        ok "a_full_prefix_is_named_as_the_cause"
    else
        not_ok "a_full_prefix_is_named_as_the_cause" "exit status $status: $out"
    fi
    check "what_was_written_before_the_disk_filled_is_taken_back" \
        test "$(cd "$full/.scr" && find . | sort | tr '\n' ' ')" = ". ./lock.scr "
    umount "$full"
else
    skip "a_full_prefix_is_named_as_the_cause" "cannot mount a small tmpfs here"
    skip "what_was_written_before_the_disk_filled_is_taken_back" "cannot mount a small tmpfs here"
fi

# --json: the outcome as one document, adopted or not
files "$p/js" 2
json_of() { "$PYTHON3" -c 'import json, sys; d = json.load(sys.stdin); print(" ".join(str(d.get(k)) for k in sys.argv[1:]))' "$@"; }
got=$("$adopt" --prefix "$p" --name js --owner 'rank_%d.ckpt' --no-current --json js 2>/dev/null | json_of adopted name ranks files size current)
check "json_describes_the_adopted_dataset" test "$got" = "True js 2 2 2517 False"
got=$("$adopt" --prefix "$p" --name js --global --json js 2>/dev/null | json_of adopted error)
check "json_says_why_a_directory_was_not_adopted" test "$got" = "False the name js belongs to dataset $(index_field_id js) of $p already; give the adopted dataset another one"

# --- usage errors ---------------------------------------------------------------
usage_error "a_name_is_required" "--name is required" --global next
usage_error "owner_and_global_do_not_combine" "--owner and --global cannot be combined" --name x --global --owner 'r%d' next
usage_error "a_rule_or_global_is_required" "--owner RULE, or --global" --name x next
usage_error "ranks_wants_a_positive_number" "--ranks wants a number of ranks" --name x --owner 'r%d' --ranks 0 next
usage_error "a_directory_is_required" "no directory to adopt given" --name x --global
out=$("$adopt" --prefix "$p" --name quiet2 --owner 'rank_%d.ckpt' next 2>&1)
check "after_every_refusal_the_directory_is_still_adopted_when_right" test $? -eq 0

done_testing
