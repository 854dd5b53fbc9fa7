#!/bin/sh
# check_params.sh — every parameter in the catalogue does something, is tested
# and is documented.
#
# For each parameter of lib/config/config_params.c (the table of SCR_* names; not
# the CKPT/STORE attributes) this fails when
#   - no source of lib/, spank/ or cli/ other than config_params.c names it
#     as a string ("SCR_X"): nothing reads it, so setting it does nothing; or
#   - no file under tests/ (this script aside) names it: nothing shows its effect; or
#   - the PARAMETERS section of doc/scr.conf.5 has no entry for it.
# It also fails when that section has an entry the catalogue does not know,
# and when the REFUSED PARAMETERS section and lib/config/config_refused.c
# do not list the same names. Each failure is one TAP line naming the
# parameter and why.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
catalogue=$src/lib/config/config_params.c
refusals=$src/lib/config/config_refused.c
manpage=$src/doc/scr.conf.5

[ -r "$catalogue" ] || { echo "1..0 # SKIP $catalogue not found"; exit 0; }

# the parameter table runs from "params[] = {" to its closing "};"
names=$(sed -n '/^static const struct scr_config_param params\[\] = {/,/^};/p' "$catalogue" |
    grep -o '_P("SCR_[A-Z0-9_]*"' | sed 's/^_P("//; s/"$//')
[ -n "$names" ] || { echo "1..1"; echo "not ok 1 - no parameter found in $catalogue"; exit 1; }

# the names a section of the man page gives an entry (".TP" then ".B SCR_X")
man_entries() { # SECTION
    awk -v want="$1" '
        /^\.SH / { sh = $0; sub(/^\.SH +"?/, "", sh); sub(/"$/, "", sh); insec = (sh == want); next }
        insec && /^\.TP/ { tp = 1; next }
        insec && tp && /^\.B SCR_[A-Z0-9_]+$/ { print $2 }
        { tp = 0 }' "$manpage" | sort -u
}
[ -r "$manpage" ] || { echo "1..1"; echo "not ok 1 - $manpage not found"; exit 1; }
documented=$(man_entries PARAMETERS)
refused_doc=$(man_entries "REFUSED PARAMETERS")
refused_code=$(grep -o '^ *{"SCR_[A-Z0-9_]*"' "$refusals" | sed 's/^ *{"//; s/"$//' | sort -u)

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
    printf '%s\n' "$documented" | grep -qxF "$p" ||
        why="${why:+$why; }doc/scr.conf.5 has no entry for it under PARAMETERS"
    if [ -z "$why" ]; then
        echo "ok $n - $p is read and tested"
    else
        echo "not ok $n - $p: $why"
        failed=$((failed + 1))
    fi
done
# what the man page lists that the catalogue does not know
for p in $documented; do
    n=$((n + 1))
    if printf '%s\n' $names | grep -qxF "$p"; then
        echo "ok $n - doc/scr.conf.5's $p is in the catalogue"
    else
        echo "not ok $n - doc/scr.conf.5 lists $p under PARAMETERS, which lib/config/config_params.c does not know"
        failed=$((failed + 1))
    fi
done
# the refused parameters: the same names in the code and on the page
n=$((n + 1))
if [ -n "$refused_code" ] && [ "$refused_code" = "$refused_doc" ]; then
    echo "ok $n - doc/scr.conf.5 lists the $(printf '%s\n' $refused_code | wc -l) refused parameters of lib/config/config_refused.c"
else
    echo "not ok $n - REFUSED PARAMETERS of doc/scr.conf.5 and lib/config/config_refused.c differ:" \
        "only in the code: $(printf '%s\n' $refused_code | grep -vxF "$(printf '%s\n' $refused_doc)" | tr '\n' ' ')" \
        "only on the page: $(printf '%s\n' $refused_doc | grep -vxF "$(printf '%s\n' $refused_code)" | tr '\n' ' ')"
    failed=$((failed + 1))
fi
echo "1..$n"
[ "$failed" -eq 0 ]
