# fsync-trace.awk — which files a traced run left unsynced (for test_fsync.sh).
#
#   awk -v mode=all|written -f fsync-trace.awk TRACE LIST
#
# TRACE is the output of `strace -f -y` (descriptors shown with their paths)
# tracing the opens, writes, truncations, fsync/fdatasync, renames and links
# of a run; LIST names files, one absolute path a line. A file's state
# follows the trace in order: created, truncated or written -> "written, not
# synced"; fsync or fdatasync of a descriptor on it -> "synced"; renamed or
# linked -> the new name takes the old name's state (a temporary file synced
# and then renamed into place is synced). An open for reading and writing
# that neither creates nor truncates (a lock) changes nothing by itself.
#
# Prints "STATE: PATH" for every listed file whose state is not "synced".
# With mode=all a listed file the trace never wrote is printed as well
# ("never written"); with mode=written it is left out.

# the n-th quoted argument of a traced call
function quoted(s, n,   i, q) {
    for (i = 1; i <= n; i++) {
        if (match(s, /"[^"]*"/) == 0) return ""
        q = substr(s, RSTART + 1, RLENGTH - 2)
        s = substr(s, RSTART + RLENGTH)
    }
    return q
}

# the path of the first "<PATH>" that strace -y prints in s
function fdpath(s) {
    if (match(s, /<\/[^>]*>/) == 0) return ""
    return substr(s, RSTART + 1, RLENGTH - 2)
}

FILENAME == ARGV[2] {
    if (!($0 in state)) { if (mode == "all") print "never written: " $0 }
    else if (state[$0] != "synced") print state[$0] ": " $0
    next
}

# a call another process interrupted comes in two lines: join them
/ <unfinished \.\.\.>$/ { sub(/ <unfinished \.\.\.>$/, ""); pending[$1] = $0; next }
/^[0-9]+ +<\.\.\. [a-z0-9_]+ resumed>/ {
    pid = $1
    rest = $0
    sub(/^[0-9]+ +<\.\.\. [a-z0-9_]+ resumed>/, "", rest)
    $0 = pending[pid] rest
    delete pending[pid]
}

{ call = $2; sub(/\(.*/, "", call) }

call ~ /^(open|openat|creat)$/ && / = [0-9]+<\// {
    if (call == "creat" || /O_WRONLY|O_CREAT|O_TRUNC/) {
        p = $0
        sub(/.* = [0-9]+</, "<", p)
        state[fdpath(p)] = "written, not synced"
    }
    next
}
call ~ /^(write|pwrite64|writev|pwritev|pwritev2|ftruncate)$/ && / = [0-9]+$/ {
    state[fdpath($0)] = "written, not synced"
    next
}
call ~ /^(fsync|fdatasync)$/ && / = 0$/ { state[fdpath($0)] = "synced"; next }
call ~ /^(rename|renameat|renameat2|link|linkat)$/ && / = 0$/ {
    from = quoted($0, 1)
    to = quoted($0, 2)
    state[to] = (from in state) ? state[from] : "renamed from a file the trace never wrote"
    if (call ~ /^rename/) delete state[from]
}
