#!/bin/sh
# test_hostile_files.sh — a record that is not what its name says is refused,
# never waited on and never written through.
#
# A prefix, control or health directory belongs to the job's user, who can
# put a FIFO, a symbolic link or (as root) a device where a record is
# expected. Every command that reads such a record is run on each of them
# under a timeout: it must end, fail, and name the file and what it is. A
# link to a file elsewhere must leave that file as it was, whether the
# command reads or appends. An event log with a huge hole is streamed, not
# read into memory, and a line too long to be an event is skipped.
. "$top_srcdir/tests/tap.sh"

b=$top_builddir/cli
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-hostile-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(SCR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset SLURM_JOB_ID SLURM_NODELIST SLURM_JOB_NODELIST
export SLURM_CONF="$tmp/no-slurm.conf"
p=$tmp/prefix
c=$tmp/cntl
outside=$tmp/outside
printf 'not yours\n' > "$outside"
cp "$outside" "$tmp/outside.orig"
is_root=0
[ "$(id -u)" -eq 0 ] && is_root=1

# plant KIND PATH: put a FIFO, a symbolic link to $outside, a link to
# /dev/zero, or a character device (root only) at PATH
plant() {
    rm -rf "$2"
    mkdir -p "$(dirname "$2")"
    case $1 in
    fifo) mkfifo "$2" ;;
    symlink) ln -s "$outside" "$2" ;;
    zero-link) ln -s /dev/zero "$2" ;;
    device) mknod "$2" c 1 5 ;;
    esac
}

# what KIND: the words a refusal must use for KIND
what() {
    case $1 in
    fifo) echo "a FIFO" ;;
    symlink | zero-link) echo "a symbolic link" ;;
    device) echo "a character device" ;;
    esac
}

# refused NAME KIND FILE CMD...: CMD ends within 20 s, fails, and names FILE
# and what it is; $outside is unchanged
refused() {
    name=$1 kind=$2 file=$3
    shift 3
    timeout 20 "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    status=$?
    if [ "$status" -eq 124 ]; then
        not_ok "$name" "still waiting after 20 s: $*"
    elif [ "$status" -eq 0 ]; then
        not_ok "$name" "exit status 0: $(cat "$tmp/out" "$tmp/err")"
    elif ! grep -qF "$file" "$tmp/err" || ! grep -qF "$(what "$kind")" "$tmp/err"; then
        not_ok "$name" "the error names neither $file nor $(what "$kind"): $(cat "$tmp/err")"
    elif ! cmp -s "$outside" "$tmp/outside.orig"; then
        not_ok "$name" "the file the link leads to changed: $(cat "$outside")"
    else
        ok "$name"
    fi
}

kinds="fifo symlink zero-link"
if [ "$is_root" -eq 1 ]; then kinds="$kinds device"; fi

for k in $kinds; do
    rm -rf "$p" "$c"
    mkdir -p "$p/.scr" "$c"

    plant "$k" "$p/.scr/index.scr"
    refused "scr-index --list: an index that is $k" "$k" "$p/.scr/index.scr" "$b/scr-index" --list --prefix "$p"
    mkdir -p "$p/ckpt.1"
    refused "scr-index --add: an index that is $k" "$k" "$p/.scr/index.scr" \
        "$b/scr-index" --add ckpt.1 --prefix "$p"
    refused "scr-index --current: an index that is $k" "$k" "$p/.scr/index.scr" \
        "$b/scr-index" --current ckpt.1 --prefix "$p"
    refused "scr-print: a file that is $k" "$k" "$p/.scr/index.scr" "$b/scr-print" "$p/.scr/index.scr"

    plant "$k" "$p/.scr/halt.scr"
    refused "scr-halt --list: a halt file that is $k" "$k" "$p/.scr/halt.scr" "$b/scr-halt" --list "$p"
    refused "scr-halt --checkpoints: a halt file that is $k" "$k" "$p/.scr/halt.scr" \
        "$b/scr-halt" --checkpoints 1 "$p"

    plant "$k" "$p/.scr/events.jsonl"
    refused "scr-log: an event log that is $k" "$k" "$p/.scr/events.jsonl" "$b/scr-log" --prefix "$p"

    plant "$k" "$p/.scr/health/n1.health"
    refused "scr-list-down-nodes: a health record that is $k" "$k" "$p/.scr/health/n1.health" \
        "$b/scr-list-down-nodes" --no-slurm --reason --prefix "$p" n1

    plant "$k" "$c/flush.scr"
    refused "scr-scavenge --status: a flush file that is $k" "$k" "$c/flush.scr" \
        "$b/scr-scavenge" --status --cntl-dir "$c" --prefix "$p"
    refused "scr-scavenge: a flush file that is $k" "$k" "$c/flush.scr" \
        "$b/scr-scavenge" --cntl-dir "$c" --prefix "$p"
done
if [ "$is_root" -eq 0 ]; then skip "a device in place of a record" "mknod needs root"; fi

# --- writers: a link planted at a log is never appended through ---------------------------
rm -rf "$p" && mkdir -p "$p/.scr"
ln -s "$outside" "$p/.scr/events.jsonl"
ln -s "$outside" "$p/.scr/log"
SCR_LOG_ENABLE=1 timeout 20 "$b/scr-list-down-nodes" --no-slurm --down n2 --log --prefix "$p" n2 \
    > "$tmp/out" 2> "$tmp/err"
status=$?
if [ "$status" -eq 1 ] && grep -qx n2 "$tmp/out" && cmp -s "$outside" "$tmp/outside.orig"; then
    ok "scr-list-down-nodes --log appends nothing through links at .scr/events.jsonl and .scr/log"
else
    not_ok "scr-list-down-nodes --log appends nothing through links at .scr/events.jsonl and .scr/log" \
        "status $status; $(cat "$tmp/out" "$tmp/err"); outside: $(cat "$outside")"
fi
if grep -q "events.jsonl: it is a symbolic link" "$tmp/err"; then ok "and says the event log is a link"
else not_ok "and says the event log is a link" "$(cat "$tmp/err")"; fi

# scr-adopt takes the prefix's lock: a link there is refused, its target untouched
rm -rf "$p" && mkdir -p "$p/.scr" "$p/run1" && printf 'data' > "$p/run1/rank0.dat"
ln -s "$outside" "$p/.scr/lock.scr"
refused "scr-adopt: a prefix lock that is a symbolic link" symlink "$p/.scr/lock.scr" \
    "$b/scr-adopt" --name adopted.1 --global --prefix "$p" run1

# --- configuration files may be links (to a site's shared copy): followed ----------------
printf 'SCR_FLUSH=3\n' > "$tmp/site.conf"
ln -s "$tmp/site.conf" "$tmp/link.conf"
SCR_JOB_ID=hostile-$$ SCR_CONF_FILE=$tmp/link.conf timeout 20 "$b/scr-scavenge" --status \
    --prefix "$p" > "$tmp/out" 2> "$tmp/err"
status=$?
if [ "$status" -ne 1 ] && [ "$status" -ne 124 ] && ! grep -q "refusing" "$tmp/err"; then
    ok "a configuration file behind a symbolic link is read"
else
    not_ok "a configuration file behind a symbolic link is read" "status $status: $(cat "$tmp/err")"
fi
rm -f "$tmp/link.conf" && mkfifo "$tmp/link.conf"
SCR_JOB_ID=hostile-$$ SCR_CONF_FILE=$tmp/link.conf timeout 20 "$b/scr-scavenge" --status \
    --prefix "$p" > "$tmp/out" 2> "$tmp/err"
status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && grep -q "refusing $tmp/link.conf: it is a FIFO" "$tmp/err"; then
    ok "a configuration file that is a FIFO is refused without waiting"
else
    not_ok "a configuration file that is a FIFO is refused without waiting" "status $status: $(cat "$tmp/err")"
fi

# --- a log that is mostly hole, and a line longer than any event ---------------------------
rm -rf "$p" && mkdir -p "$p/.scr"
ev=$p/.scr/events.jsonl
line='{"time":"2026-11-25T10:00:00Z","epoch":1795600800,"job":"7","user":"bob","host":"n1","event":"flush","status":"ok","dataset_id":14,"dataset_name":"ckpt.14","bytes":2048,"seconds":1.000000,"bandwidth":2048,"reason":null}'
printf '%s\n' "$line" > "$ev"
# 64 GiB of hole: read whole, it would take minutes and more memory than the machine has
truncate -s 64G "$ev"
printf '\n%s\n' "$line" | sed 's/"ckpt.14"/"ckpt.15"/; s/"dataset_id":14/"dataset_id":15/' >> "$ev"
head -c 3000000 /dev/zero | tr '\0' 'x' >> "$ev"
printf '\n%s\n' "$line" | sed 's/"ckpt.14"/"ckpt.16"/; s/"dataset_id":14/"dataset_id":16/' >> "$ev"
timeout 60 "$b/scr-log" --json --prefix "$p" > "$tmp/out" 2> "$tmp/err"
status=$?
got=$(grep -o '"dataset_id":1[0-9]' "$tmp/out" | tr '\n' ' ')
if [ "$status" -eq 0 ] && [ "$got" = '"dataset_id":14 "dataset_id":15 "dataset_id":16 ' ]; then
    ok "scr-log streams a log with a 64 GiB hole and shows the events around it"
else
    not_ok "scr-log streams a log with a 64 GiB hole and shows the events around it" \
        "status $status, events: $got; $(head -c 2000 "$tmp/err")"
fi
if grep -q "damaged line skipped: longer than" "$tmp/err" && grep -q "bytes of zeros (a hole, not events) skipped" "$tmp/err"
then ok "and says it skipped the hole and a line longer than an event"
else not_ok "and says it skipped the hole and a line longer than an event" "$(head -c 2000 "$tmp/err")"; fi

# a writer stopped while it holds the log's lock keeps no reader waiting
py=/usr/bin/python3
[ -x "$py" ] || py=${PYTHON3:-python3}
printf '%s\n' "$line" > "$ev"
"$py" -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.lockf(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(60)' \
    "$ev" "$tmp/locked" &
holder=$!
for _ in $(seq 1 100); do [ -e "$tmp/locked" ] && break; sleep 0.1; done
timeout 20 "$b/scr-log" --prefix "$p" > "$tmp/out" 2> "$tmp/err"
status=$?
kill "$holder" 2> /dev/null
wait "$holder" 2> /dev/null
if [ -e "$tmp/locked" ] && [ "$status" -eq 0 ] && grep -q "ckpt.14" "$tmp/out"; then
    ok "scr-log does not wait on a writer that keeps the log locked"
else
    not_ok "scr-log does not wait on a writer that keeps the log locked" "status $status: $(cat "$tmp/err")"
fi

# a huge sparse index is refused by its size, not read
rm -rf "$p" && mkdir -p "$p/.scr" && truncate -s 64G "$p/.scr/index.scr"
timeout 20 "$b/scr-index" --list --prefix "$p" > "$tmp/out" 2> "$tmp/err"
status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && grep -q "index.scr.*larger than" "$tmp/err"; then
    ok "scr-index --list refuses a 64 GiB sparse index by its size"
else
    not_ok "scr-index --list refuses a 64 GiB sparse index by its size" "status $status: $(cat "$tmp/err")"
fi

done_testing
