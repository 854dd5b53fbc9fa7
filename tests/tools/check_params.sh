#!/bin/sh
# check_params.sh — every parameter in the catalogue does something and is tested.
#
# For each parameter of lib/config/config_params.c (the table of SCR_* names; not
# the CKPT/STORE attributes) this fails when
#   - no source of lib/, spank/ or cli/ other than config_params.c names it
#     as a string ("SCR_X"): nothing reads it, so setting it does nothing; or
#   - no file under tests/ (this script aside) names it: nothing shows its effect.
# Each failure is one TAP line naming the parameter and why.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
catalogue=$src/lib/config/config_params.c

[ -r "$catalogue" ] || { echo "1..0 # SKIP $catalogue not found"; exit 0; }

# the parameter table runs from "params[] = {" to its closing "};"
names=$(sed -n '/^static const struct scr_config_param params\[\] = {/,/^};/p' "$catalogue" |
    grep -o '_P("SCR_[A-Z0-9_]*"' | sed 's/^_P("//; s/"$//')
[ -n "$names" ] || { echo "1..1"; echo "not ok 1 - no parameter found in $catalogue"; exit 1; }

sources=$(find "$src/lib" "$src/spank" "$src/cli" -name '*.[ch]' ! -name config_params.c 2> /dev/null)
self=$src/tests/tools/check_params.sh
n=0 failed=0
for p in $names; do
    n=$((n + 1))
    why=
    # shellcheck disable=SC2086 # one word per source file
    grep -qF "\"$p\"" $sources || why="no source of lib/, spank/ or cli/ reads it (\"$p\" appears only in lib/config/config_params.c)"
    if ! grep -rlw -- "$p" "$src/tests" 2> /dev/null | grep -qvxF "$self"; then
        why="${why:+$why; }no test under tests/ names it"
    fi
    if [ -z "$why" ]; then
        echo "ok $n - $p is read and tested"
    else
        echo "not ok $n - $p: $why"
        failed=$((failed + 1))
    fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
