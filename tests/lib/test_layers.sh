#!/bin/sh
# test_layers.sh — the include paths of lib/'s folders keep the layers apart.
#
# Each folder of lib/ is compiled with an include path that names only
# itself and the folders below it (lib/lib.am). tests/lib/layers.txt, made
# by the build, lists every folder, the commands and the plugin with the
# flags they are compiled with, lowest first. For every pair this compiles a
# one-line file that includes a header of the other folder:
#   - from a folder above (or beside) it, the #include must fail to compile,
#     as an upward include in the library would;
#   - from its own folder or one below, it must compile, so that a broken
#     path cannot pass for a refusal.
# The commands and the plugin are rows of the table too: no MPI layer's
# header compiles for them. tests/lib/layer_violation.c is an upward include
# written out: lib/util's flags must refuse it.
. "$top_srcdir/tests/tap.sh"

layers=$top_builddir/tests/lib/layers.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-layers-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ ! -r "$layers" ]; then
    not_ok "the build lists the layers" "no $layers"
    done_testing
    exit $?
fi
cc=$(sed -n 's/^cc //p' "$layers")
# the flags name folders relative to the build directory
cd "$top_builddir" || exit 1

# "name flags...": the flags a folder's sources are compiled with
flags_of() { sed -n "s/^layer $1 //p" "$layers"; }
# one header of a folder: the first in name order (the folder's own list
# in lib/ when it has several)
header_of() {
    case $1 in
    cli|spank) echo ;;
    *) (cd "$top_srcdir/lib/$1" && ls ./*.h | head -1 | sed 's|^\./||') ;;
    esac
}
# may code of folder $1 include the headers of folder $2?
may_include() {
    sed -n "s/^allow $1 //p" "$layers" | tr ' ' '\n' | grep -qxF "$2"
}

names=$(sed -n 's/^layer \([a-z]*\) .*/\1/p' "$layers")
folders=$(printf '%s\n' $names | grep -vx 'cli\|spank')
refused=0 allowed=0 wrong=
for from in $names; do
    flags=$(flags_of "$from")
    for to in $folders; do
        h=$(header_of "$to")
        printf '#include "%s"\n' "$h" > "$tmp/probe.c"
        # shellcheck disable=SC2086 # flags are words
        if $cc $flags -fsyntax-only "$tmp/probe.c" > "$tmp/out" 2>&1; then
            compiled=1
        else
            compiled=0
        fi
        if may_include "$from" "$to"; then
            if [ $compiled = 1 ]; then
                allowed=$((allowed + 1))
            else
                wrong="$wrong
$from cannot include $to/$h: $(head -3 "$tmp/out")"
            fi
        elif [ $compiled = 0 ] && grep -q "$h" "$tmp/out"; then
            refused=$((refused + 1))
        else
            wrong="$wrong
$from includes $to/$h, a layer above it or beside it"
        fi
    done
done
if [ -z "$wrong" ] && [ $refused -gt 50 ] && [ $allowed -gt 50 ]; then
    ok "every upward include fails ($refused pairs) and every downward one compiles ($allowed)"
else
    not_ok "every upward include fails and every downward one compiles" \
        "refused $refused, allowed $allowed$wrong"
fi

# the deliberate violation: a util file reaching for the state of a run
# shellcheck disable=SC2046 # flags are words
if $cc $(flags_of util) -fsyntax-only "$top_srcdir/tests/lib/layer_violation.c" > "$tmp/out" 2>&1; then
    not_ok "tests/lib/layer_violation.c does not compile in lib/util" "it compiled"
elif grep -q 'scr_run.h' "$tmp/out"; then
    ok "tests/lib/layer_violation.c does not compile in lib/util: scr_run.h is not found"
else
    not_ok "tests/lib/layer_violation.c fails for the upward include" "$(cat "$tmp/out")"
fi
# shellcheck disable=SC2046
if $cc $(flags_of cache) -fsyntax-only "$top_srcdir/tests/lib/layer_violation.c" > "$tmp/out" 2>&1; then
    ok "tests/lib/layer_violation.c compiles where scr_run.h belongs (lib/cache)"
else
    not_ok "tests/lib/layer_violation.c compiles in lib/cache" "$(cat "$tmp/out")"
fi

# The layers are listed once, bottom up (SCR_LAYERS_SERIAL, libscr-slurm,
# SCR_LAYERS_MPI in lib/lib.am: the order of layers.txt's allow lines).
# Every folder of lib/ must be one of them, and lib/README.md must draw the
# same layers top down: in its first ``` block, the first word of a line
# that names a layer.
order=$(sed -n 's/^allow \([a-z]*\) .*/\1/p' "$layers" | grep -vx 'cli\|spank' | tr '\n' ' ')
unlisted=
for d in "$top_srcdir"/lib/*/; do
    d=$(basename "$d")
    case " $order" in *" $d "*) ;; *) unlisted="$unlisted $d" ;; esac
done
if [ -z "$unlisted" ]; then
    ok "every folder of lib/ is a layer of lib/lib.am ($order)"
else
    not_ok "every folder of lib/ is a layer of lib/lib.am" "not in SCR_LAYERS_SERIAL or SCR_LAYERS_MPI:$unlisted"
fi
drawn=$(awk -v names="$order" '
    BEGIN { n = split(names, w, " "); for (i = 1; i <= n; i++) layer[w[i]] = 1 }
    /^```/ { fence++; next }
    fence == 1 {
        for (i = 1; i <= NF; i++) { t = $i; sub(/:$/, "", t); if (t in layer) { print t; break } }
    }' "$top_srcdir/lib/README.md" | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) printf "%s ", l[i] }')
if [ "$drawn" = "$order" ]; then
    ok "lib/README.md draws the layers of lib/lib.am in their order"
else
    not_ok "lib/README.md draws the layers of lib/lib.am in their order" \
        "lib/lib.am, bottom up: $order; lib/README.md, bottom up: $drawn"
fi

done_testing
