#!/bin/sh
# test_internal_names.sh — every function and variable the internal libraries
# export starts with scr_, so that grep finds where a name comes from and no
# name can collide with an application's or another library's. Checked on the
# archives of libscr-core and libscr-slurm, on those of the MPI layers that
# libscr.so carries (lib/mpi, lib/redundancy, lib/cache, lib/transfer), and
# on the API's own objects (there the SCR_* API is allowed as well).
. "$top_srcdir/tests/tap.sh"

libs=$top_builddir/lib/.libs

if ! command -v nm > /dev/null 2>&1; then
    skip "the internal libraries export scr_ names alone" "no nm"
    done_testing
    exit $?
fi

# the symbols an archive or object defines for others, one a line
exported() {
    nm -g --defined-only "$@" 2> /dev/null | awk 'NF == 3 { print $3 }' | sort -u
}

for name in libscr-core libscr-slurm mpi/libscr-mpi redundancy/libscr-redundancy \
        cache/libscr-cache transfer/libscr-transfer; do
    case $name in
    */*) archive=$top_builddir/lib/${name%/*}/.libs/${name#*/}.a ;;
    *) archive=$libs/$name.a ;;
    esac
    if [ ! -f "$archive" ]; then
        not_ok "$name is built" "no $archive"
        continue
    fi
    count=$(exported "$archive" | wc -l)
    bad=$(exported "$archive" | grep -v '^scr_')
    if [ "$count" -eq 0 ]; then
        not_ok "$name exports scr_ names alone" "nm found no symbol in $archive"
    elif [ -z "$bad" ]; then
        ok "$name exports scr_ names alone ($count symbols)"
    else
        not_ok "$name exports scr_ names alone" "without the prefix: $(echo $bad)"
    fi
done

# the API's objects, built into libscr itself
set -- "$top_builddir"/lib/api/.libs/libscr_la-*.o
if [ -f "$1" ]; then
    bad=$(exported "$@" | grep -v '^scr_' | grep -v '^SCR_')
    if [ -z "$bad" ]; then
        ok "libscr's objects define scr_ and SCR_ names alone"
    else
        not_ok "libscr's objects define scr_ and SCR_ names alone" "without the prefix: $(echo $bad)"
    fi
else
    skip "libscr's objects define scr_ and SCR_ names alone" "no objects in $libs"
fi

done_testing
