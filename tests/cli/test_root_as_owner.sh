#!/bin/sh
# test_root_as_owner.sh — a command root runs on a user's prefix or control
# directory acts as that user: what it writes is the user's, made with the
# modes the user's own run makes, and the user reads, changes and removes it
# afterwards. scr-halt, scr-index --current, scr-list-down-nodes --log and
# scr-scavenge are run by root on a prefix (and a control directory) of an
# unprivileged user; the user's side runs through runuser (or setpriv). A
# prefix whose .scr belongs to someone else, or a scavenge whose control
# directory and prefix belong to two users, is refused naming both, with
# nothing written. A root-owned prefix keeps the command root. SCR_DEBUG=1
# says whom the command acts as. Needs root; the user is $SCR_TEST_USER, else
# scrtest, else nobody.
. "$top_srcdir/tests/tap.sh"

halt="$top_builddir/cli/scr-halt"
index="$top_builddir/cli/scr-index"
down="$top_builddir/cli/scr-list-down-nodes"
scavenge="$top_builddir/cli/scr-scavenge"
ref="$top_srcdir/tests/tools/kvtree_ref.py"
unset SCR_PREFIX SCR_CONF_FILE SCR_DEBUG

tests="halt_set_by_root_is_the_users
with_the_mode_the_users_own_halt_has
the_user_lists_the_halt_root_set
the_user_removes_the_halt_root_set
debug_says_which_user_the_command_acts_as
index_edited_by_root_stays_the_users
with_its_mode_unchanged
the_user_lists_the_current_root_set
the_user_changes_the_index_after_root
log_line_appended_by_root_is_in_a_file_of_the_user
scavenge_by_root_writes_files_of_the_user
and_the_user_replaces_them
a_prefix_whose_scr_is_roots_is_refused_naming_both
and_nothing_is_written_there
a_control_directory_and_a_prefix_of_two_users_are_refused_naming_both
a_prefix_of_root_keeps_the_command_root
a_prefix_of_root_reached_through_a_users_link_is_the_users
a_prefix_of_root_inside_a_users_directory_is_the_users"
skip_all() {
    for name in $tests; do skip "$name" "$1"; done
    done_testing
    exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root: a command changes identity only when root runs it"
[ -n "$PYTHON3" ] || skip_all "python3 not found"
user=${SCR_TEST_USER:-scrtest}
id -u "$user" > /dev/null 2>&1 || user=nobody
id -u "$user" > /dev/null 2>&1 || skip_all "no unprivileged user (scrtest, nobody) to act as"
group=$(id -gn "$user")
other=nobody
[ "$other" != "$user" ] && id -u "$other" > /dev/null 2>&1 || other=

if command -v runuser > /dev/null 2>&1; then
    as_user() { runuser -u "$user" -- "$@"; }
elif command -v setpriv > /dev/null 2>&1; then
    as_user() { setpriv --reuid="$user" --regid="$group" --init-groups -- "$@"; }
else
    skip_all "neither runuser nor setpriv to run the user's side"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-root-as-owner.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
cd "$tmp" || exit 99

# userdir DIR: an empty directory of the user
userdir() {
    rm -rf "$1" && mkdir -p "$1" && chown "$user:$group" "$1" || exit 99
}
owner() { stat -c %U "$1" 2> /dev/null; }
mode() { stat -c %a "$1" 2> /dev/null; }
run() {
    "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
}
said() {
    printf 'status %s\nstdout: %s\nstderr: %s\n' "$status" "$(cat "$tmp/out")" "$(cat "$tmp/err")"
}
# is NAME WANT GOT: ok when GOT is WANT
is() {
    if [ "$3" = "$2" ]; then ok "$1"; else not_ok "$1" "expected '$2', got '$3'"; fi
}

# --- scr-halt ------------------------------------------------------------------------
p=$tmp/prefix
userdir "$p"
userdir "$tmp/own"
as_user "$halt" --checkpoints 1 "$tmp/own" > /dev/null || exit 99
SCR_DEBUG=1 run "$halt" --checkpoints 1 "$p"
is "halt_set_by_root_is_the_users" "$user $user" "$(owner "$p/.scr/halt.scr") $(owner "$p/.scr")"
is "with_the_mode_the_users_own_halt_has" "$(mode "$tmp/own/.scr/halt.scr") $(mode "$tmp/own/.scr")" \
    "$(mode "$p/.scr/halt.scr") $(mode "$p/.scr")"
check "the_user_lists_the_halt_root_set" eval "as_user '$halt' --list '$p' | grep -q 'CheckpointsLeft *1'"
check "the_user_removes_the_halt_root_set" eval "as_user '$halt' --remove '$p' > /dev/null && [ ! -e '$p/.scr/halt.scr' ]"
if grep -q "scr-halt: acting as $user (uid $(id -u "$user"), gid $(id -g "$user")), the owner of $p" "$tmp/err"; then
    ok "debug_says_which_user_the_command_acts_as"
else
    not_ok "debug_says_which_user_the_command_acts_as" "$(said)"
fi

# --- scr-index --current --------------------------------------------------------------
userdir "$p"
# (cat, not cp: a source tree unpacked read-only, as make distcheck does, would give its mode)
as_user mkdir "$p/.scr" && as_user sh -c "umask 077 && cat > '$p/.scr/index.scr'" < "$top_srcdir/tests/data/index/index.scr" || exit 99
before=$(mode "$p/.scr/index.scr")
run "$index" --prefix "$p" --current ckpt.3
is "index_edited_by_root_stays_the_users" "0 $user" "$status $(owner "$p/.scr/index.scr")"
is "with_its_mode_unchanged" "$before" "$(mode "$p/.scr/index.scr")"
is "the_user_lists_the_current_root_set" "ckpt.3" \
    "$(as_user "$index" --prefix "$p" | awk '$1 == "*" { print $3 }')"
check "the_user_changes_the_index_after_root" as_user "$index" --prefix "$p" --drop ckpt.12

# --- scr-list-down-nodes --log ----------------------------------------------------------
userdir "$p"
as_user mkdir "$p/.scr" || exit 99
SCR_LOG_ENABLE=1 SCR_LOG_SYSLOG_ENABLE=0 SCR_JOB_ID=55 "$down" --no-slurm --log --prefix "$p" \
    --exclude n2 'n[1-2]' > /dev/null 2> "$tmp/err"
if [ "$(owner "$p/.scr/log")" = "$user" ] && grep -q 'event=node_down' "$p/.scr/log" &&
    [ -z "$(find "$p" ! -user "$user")" ]; then
    ok "log_line_appended_by_root_is_in_a_file_of_the_user"
else
    not_ok "log_line_appended_by_root_is_in_a_file_of_the_user" "$(ls -laR "$p"; cat "$tmp/err")"
fi

# --- scr-scavenge -----------------------------------------------------------------------
# node: the user's control directory and cache, rank 0's file of dataset 6
# (written by root, then given to the user: the user may not run $PYTHON3)
cntl=$tmp/cntl cache=$tmp/cache/scr.1
node() {
    rm -rf "$cntl" "$tmp/cache"
    mkdir -p "$cntl" "$cache/scr.dataset.6/ckpt.6" || exit 99
    "$PYTHON3" - "$ref" "$cntl" "$p" "$cache" <<'PY' || exit 99
import json, subprocess, sys, zlib
ref, cntl, prefix, cache = sys.argv[1:]
data = b"checkpoint of rank 0"
cfile = cache + "/scr.dataset.6/ckpt.6/rank_0.ckpt"
with open(cfile, "wb") as f:
    f.write(data)
def v(x): return {str(x): {}}
meta = {"CKPT": v(6), "COMPLETE": v(1), "CRC": v("0x%08x" % zlib.crc32(data)), "FILE": v("ckpt.6/rank_0.ckpt"),
        "NAME": v("rank_0.ckpt"), "PATH": v(prefix + "/ckpt.6"), "RANK": v(0), "RANKS": v(1), "SIZE": v(len(data)),
        "TYPE": v("FULL")}
desc = {"CKPT": v(6), "COMPLETE": v(1), "FLAGS": v(1), "ID": v(6), "NAME": v("ckpt.6")}
tree = {"VERSION": v(1), "DSET": {"6": {"RANK": v(0)}},
        "RANK": {"0": {"DSET": {"6": {"DSETDESC": desc, "FILE": {cfile: {"META": meta}}, "FILES": v(1)}}}}}
with open(cntl + "/filemap.json", "w") as f:
    json.dump(tree, f)
subprocess.run([sys.executable, ref, "write", cntl + "/filemap.json", cntl + "/filemap_0.scrinfo"], check=True)
PY
    rm -f "$cntl/filemap.json"
    chown -R "$user:$group" "$cntl" "$tmp/cache" || exit 99
}
userdir "$p"
node
run "$scavenge" --cntl-dir "$cntl" --prefix "$p"
notusers=$(find "$p" "$cntl" ! -user "$user")
if [ "$status" -eq 0 ] && [ -z "$notusers" ] && [ -e "$p/ckpt.6/rank_0.ckpt" ]; then
    ok "scavenge_by_root_writes_files_of_the_user"
else
    not_ok "scavenge_by_root_writes_files_of_the_user" "$(said; echo "not the user's: $notusers")"
fi
check "and_the_user_replaces_them" eval "as_user '$scavenge' --cntl-dir '$cntl' --prefix '$p' --force > /dev/null 2>&1 &&
    as_user '$index' --prefix '$p' --add scr.dataset.6 > /dev/null"

# --- refusals ---------------------------------------------------------------------------
userdir "$p"
mkdir "$p/.scr"
run "$halt" "$p"
if [ "$status" -eq 1 ] && grep -q "the prefix $p belongs to $user but its $p/.scr belongs to root" "$tmp/err"; then
    ok "a_prefix_whose_scr_is_roots_is_refused_naming_both"
else
    not_ok "a_prefix_whose_scr_is_roots_is_refused_naming_both" "$(said)"
fi
is "and_nothing_is_written_there" "" "$(ls -A "$p/.scr")"

if [ -n "$other" ]; then
    node
    rm -rf "$tmp/theirs" && mkdir "$tmp/theirs" && chown "$other" "$tmp/theirs"
    run "$scavenge" --cntl-dir "$cntl" --prefix "$tmp/theirs"
    if [ "$status" -eq 1 ] && [ -z "$(ls -A "$tmp/theirs")" ] &&
        grep -q "the control directory $cntl belongs to $user but the prefix $tmp/theirs belongs to $other" "$tmp/err"; then
        ok "a_control_directory_and_a_prefix_of_two_users_are_refused_naming_both"
    else
        not_ok "a_control_directory_and_a_prefix_of_two_users_are_refused_naming_both" "$(said)"
    fi
else
    skip "a_control_directory_and_a_prefix_of_two_users_are_refused_naming_both" "no second user (nobody)"
fi

rm -rf "$p" && mkdir "$p"
run "$halt" "$p"
is "a_prefix_of_root_keeps_the_command_root" "0 root" "$status $(owner "$p/.scr/halt.scr")"

# a root-owned directory that a user's link or directory leads to: the user
# could swap it for their own between root's look and root's write, so the
# command acts as the user, and root's directory is not written
rm -rf "$p" "$tmp/link" && mkdir "$p"
ln -s "$p" "$tmp/link" && chown -h "$user" "$tmp/link"
run "$halt" --checkpoints 1 "$tmp/link"
if [ "$status" -ne 0 ] && [ ! -e "$p/.scr/halt.scr" ]; then
    ok "a_prefix_of_root_reached_through_a_users_link_is_the_users"
else
    not_ok "a_prefix_of_root_reached_through_a_users_link_is_the_users" "$(said; ls -la "$p/.scr" 2>&1)"
fi
userdir "$tmp/home"
mkdir "$tmp/home/p"
run "$halt" --checkpoints 1 "$tmp/home/p"
if [ "$status" -ne 0 ] && [ ! -e "$tmp/home/p/.scr/halt.scr" ]; then
    ok "a_prefix_of_root_inside_a_users_directory_is_the_users"
else
    not_ok "a_prefix_of_root_inside_a_users_directory_is_the_users" "$(said; ls -la "$tmp/home/p/.scr" 2>&1)"
fi

done_testing
