#!/bin/sh
# test_layer_types.sh — a layer's structs hold nothing of the layers above.
#
# test_layers.sh proves that no file includes a header of a layer above
# its own. A struct can still reach upward without an #include: a pointer
# to an incomplete type (`struct scr_flush_async *` in the cache layer's
# state of a run) compiles anywhere, and leaves the lower layer holding
# state that only a higher one knows. This reads every header of lib/ and,
# for each struct, union or enum defined there, every struct, union or
# enum (or typedef name) its body names; a type defined (given a body or a
# typedef) only in a folder the header's own may not include (the allow
# lines of tests/lib/layers.txt, made from lib/lib.am) is a violation. The
# types of a layer are looked for in its .c files too, so that an opaque
# type of a higher layer counts as that layer's.
. "$top_srcdir/tests/tap.sh"

layers=$top_builddir/tests/lib/layers.txt
if [ ! -r "$layers" ]; then
    not_ok "the build lists the layers" "no $layers"
    done_testing
    exit $?
fi
if ! command -v python3 > /dev/null 2>&1; then
    skip "no struct of a layer names a type of a layer above it" "no python3"
    done_testing
    exit $?
fi

out=$(python3 - "$top_srcdir/lib" "$layers" << 'EOF'
import os, re, sys

lib, layers = sys.argv[1], sys.argv[2]
allow = {}
for line in open(layers):
    w = line.split()
    if w and w[0] == "allow" and os.path.isdir(os.path.join(lib, w[1])):
        allow[w[1]] = set(w[2:])


def clean(text):
    """The text without comments, strings and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\])*'", "''", text)
    return re.sub(r"(?m)^\s*#.*(\\\n.*)*$", " ", text)


def bodies(text):
    """(kind, name, body) of every struct, union and enum given a body."""
    for m in re.finditer(r"\b(struct|union|enum)\s+(\w+)\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), m.group(2), text[m.end():i - 1]


def typedef_names(text):
    """The name each typedef gives: typedef T name; typedef R (*name)(...);"""
    for m in re.finditer(r"\btypedef\b", text):
        depth, i = 0, m.end()
        while i < len(text) and (depth or text[i] != ";"):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        stmt = re.sub(r"\{.*\}", " ", text[m.end():i], flags=re.S)
        fn = re.search(r"\(\s*\*\s*(\w+)\s*\)", stmt)
        last = re.findall(r"(\w+)\s*(?:\[[^]]*\]\s*)*$", stmt)
        if fn or last:
            yield fn.group(1) if fn else last[0]


defined = {}  # "struct x" or a typedef name -> folders that define it
sources = {}
for folder in allow:
    for f in sorted(os.listdir(os.path.join(lib, folder))):
        if f.endswith((".h", ".c")):
            path = os.path.join(lib, folder, f)
            sources[path] = (folder, clean(open(path, errors="replace").read()))
for path, (folder, text) in sources.items():
    for kind, name, _ in bodies(text):
        defined.setdefault(kind + " " + name, set()).add(folder)
    for name in typedef_names(text):
        defined.setdefault(name, set()).add(folder)

structs = names = 0
for path, (folder, text) in sorted(sources.items()):
    if not path.endswith(".h"):
        continue
    for kind, name, body in bodies(text):
        structs += 1
        used = set(k + " " + n for k, n in re.findall(r"\b(struct|union|enum)\s+(\w+)", body))
        used |= set(w for w in re.findall(r"\b\w+\b", body) if w in defined)
        for t in sorted(used):
            where = defined.get(t)
            if not where:
                continue  # a system type (MPI_Comm, pthread_t, ...)
            names += 1
            if not where & allow[folder]:
                print("bad %s/%s: %s %s names %s, a type of %s" % (
                    folder, os.path.basename(path), kind, name, t, " ".join(sorted(where))))
print("counted %d %d" % (structs, names))
EOF
)
counted=$(printf '%s\n' "$out" | sed -n 's/^counted //p')
bad=$(printf '%s\n' "$out" | sed -n 's/^bad //p')
structs=${counted%% *}
names=${counted#* }
if [ -z "$counted" ]; then
    not_ok "the headers of lib/ are read" "$out"
elif [ "$structs" -lt 50 ] || [ "$names" -lt 50 ]; then
    not_ok "the headers of lib/ are read" "only $structs types and $names names of ours found"
elif [ -n "$bad" ]; then
    not_ok "no struct of a layer names a type of a layer above it" "$bad"
else
    ok "no struct of a layer names a type of a layer above it ($structs types, $names names of ours)"
fi
done_testing
