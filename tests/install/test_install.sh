#!/bin/sh
# test_install.sh BUILDDIR [TARBALL] — what `make install` puts where.
#
# 1. In the configured and built tree BUILDDIR, `make install DESTDIR=<tmp>`
#    puts the library, its headers and scr.pc, the SPANK plugin (in
#    <libdir>/slurm), the commands, their man pages and the example scr.conf
#    under DESTDIR+prefix (and the Python module scr.py in <pythondir> when
#    configure found a Python 3), SCR 3.1's command names (scr_index,
#    scr_srun, ... and their page, which run the commands installed beside
#    them), and nothing outside it nor anything internal
#    (libscr-core, the plugin's .la). Programs written for SCR 3.1 build
#    against that staged tree as they did: a CMake project with
#    find_package(scr 3.1) and target_link_libraries(app scr::scr) (when
#    cmake is installed), and a Fortran program linked with -lscrf alone,
#    which then runs on 2 ranks (when mpif90 is installed).
#    `make uninstall` removes it all again.
# 2. A plain user (scrinst, created when missing; needs root) unpacks the
#    release tarball TARBALL (default: made by `make dist` in BUILDDIR) into
#    a directory of its own, configures it with --prefix there, builds and
#    installs it; then the installed scr.pc (pkg-config --cflags --libs scr)
#    links a small SCR program with mpicc, and the program finds the
#    installed libscr.so, as the installed Python module scr does.
# Speaks TAP (tests/tap.sh); tests/run-all.sh runs it after `make distcheck`.
# Takes well under a minute on 2 cores.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/tests/tap.sh"

build=$(cd "${1:?usage: test_install.sh BUILDDIR [TARBALL]}" && pwd)
tarball=${2:-}
user=scrinst
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-install-test.XXXXXX") || exit 1
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# the installation directories as the Makefile of BUILDDIR has them
printf 'print-scr-dirs:\n\t@echo "prefix=$(prefix)"; echo "cmakedir=$(cmakedir)"; echo "bindir=$(bindir)"; echo "libdir=$(libdir)"; echo "includedir=$(includedir)"; echo "man1dir=$(man1dir)"; echo "docdir=$(docdir)"; echo "pkgconfigdir=$(pkgconfigdir)"; echo "spankplugindir=$(spankplugindir)"; echo "pythondir=$(pythondir)"; echo "PYTHON=$(PYTHON)"\n' \
    > "$tmp/dirs.mk"
if ! make -s --no-print-directory -C "$build" -f Makefile -f "$tmp/dirs.mk" print-scr-dirs > "$tmp/dirs"; then
    not_ok "the installation directories are known" "make print-scr-dirs failed in $build"
    done_testing
    exit $?
fi
. "$tmp/dirs"

commands="scr-print scr-index scr-adopt scr-halt scr-list-down-nodes scr-scavenge scr-run scr-log scr-drill"
# SCR 3.1's names, for job scripts written for it (scr31-commands(1))
scr31_commands="scr_index scr_halt scr_srun scr_prerun scr_postrun scr_list_down_nodes scr_env scr_list_dir
scr_inspect scr_inspect_cache"
commands="$commands $scr31_commands"

# --- 1. make install DESTDIR=... ------------------------------------------------
dest=$tmp/dest
if make -C "$build" install DESTDIR="$dest" > "$tmp/install.log" 2>&1; then
    ok "make install DESTDIR=... succeeds"
else
    not_ok "make install DESTDIR=... succeeds" "$(tail -20 "$tmp/install.log")"
fi

expected="$libdir/libscr.so $libdir/libscr.so.0 $includedir/scr.h $includedir/scrf.h
$pkgconfigdir/scr.pc $spankplugindir/spank_scr.so $docdir/scr.conf
$libdir/libscrf.so $cmakedir/scrConfig.cmake $cmakedir/scrConfigVersion.cmake"
for c in $commands; do
    expected="$expected $bindir/$c $man1dir/$c.1"
done
expected="$expected $man1dir/scr31-commands.1"
[ -n "$pythondir" ] && expected="$expected $pythondir/scr.py"
missing=
for f in $expected; do
    [ -e "$dest$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
    ok "the library, headers, scr.pc, plugin, commands and man pages are installed"
else
    not_ok "the library, headers, scr.pc, plugin, commands and man pages are installed" "missing under $dest:$missing"
fi

if [ "$spankplugindir" = "$libdir/slurm" ]; then
    if [ -f "$dest$libdir/slurm/spank_scr.so" ]; then
        ok "the plugin is installed as $libdir/slurm/spank_scr.so"
    else
        not_ok "the plugin is installed as $libdir/slurm/spank_scr.so"
    fi
else
    skip "the plugin is installed in <libdir>/slurm" "configured with --with-spank-plugin-dir=$spankplugindir"
fi

outside=$(cd "$dest" && find . ! -type d | sed 's|^\.||' | while IFS= read -r f; do
    case $f in "$prefix"/*) ;; *) echo "$f" ;; esac
done)
case $spankplugindir in
    "$prefix"/*) ;;
    *) outside=$(printf '%s\n' "$outside" | grep -v "^$spankplugindir/") ;;  # a site's own plugin directory
esac
if [ -z "$outside" ]; then
    ok "nothing is installed outside DESTDIR+prefix ($prefix)"
else
    not_ok "nothing is installed outside DESTDIR+prefix ($prefix)" "$outside"
fi

internal=$(cd "$dest" && find . -name 'libscr-core*' -o -name 'libscr-slurm*' -o -name 'spank_scr.la')
if [ -z "$internal" ]; then
    ok "no internal library and no .la of the plugin is installed"
else
    not_ok "no internal library and no .la of the plugin is installed" "$internal"
fi

# --- 1b. programs written for SCR 3.1 build against the staged tree -----------
staged_lib=$dest$libdir
# SCR 3.1's names run the commands installed beside them, not some in PATH
mkdir -p "$tmp/empty-prefix"
if out=$(env PATH=/usr/bin:/bin LD_LIBRARY_PATH="$staged_lib" "$dest$bindir/scr_index" --list \
         --prefix="$tmp/empty-prefix" 2>&1); then
    not_ok "the installed scr_index runs the installed scr-index" "an empty prefix listed: $out"
elif printf '%s\n' "$out" | grep -q "^scr-index: no datasets in $tmp/empty-prefix"; then
    ok "the installed scr_index runs the installed scr-index"
else
    not_ok "the installed scr_index runs the installed scr-index" "$out"
fi
mkdir -p "$tmp/cmake-app"
cat > "$tmp/cmake-app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(scrapp C)
find_package(scr 3.1 REQUIRED)
add_executable(app app.c)
target_link_libraries(app scr::scr)
EOF
cat > "$tmp/cmake-app/app.c" <<'EOF'
/* app.c — SCR_Get_version agrees with the header's SCR_VERSION. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <scr.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("%s %s\n", SCR_VERSION, SCR_Get_version());
    int differ = strcmp(SCR_VERSION, SCR_Get_version()) != 0;
    MPI_Finalize();
    return differ;
}
EOF
if ! command -v cmake > /dev/null 2>&1; then
    skip "cmake: find_package(scr 3.1) and scr::scr build an SCR program" "cmake not found"
elif (cd "$tmp/cmake-app" && cmake -S . -B build -DCMAKE_PREFIX_PATH="$dest$prefix" &&
      cmake --build build) > "$tmp/cmake.log" 2>&1 &&
     LD_LIBRARY_PATH=$staged_lib "$tmp/cmake-app/build/app" > "$tmp/cmake-app.out" 2>&1; then
    ok "cmake: find_package(scr 3.1) and scr::scr build an SCR program; SCR_Get_version is SCR_VERSION"
else
    not_ok "cmake: find_package(scr 3.1) and scr::scr build an SCR program; SCR_Get_version is SCR_VERSION" \
        "$(tail -20 "$tmp/cmake.log"; cat "$tmp/cmake-app.out" 2>/dev/null)"
fi

mpif90=$(command -v mpifort || command -v mpif90)
if [ -z "$mpif90" ]; then
    skip "a Fortran program linked with -lscrf alone runs on 2 ranks" "mpif90 not found"
elif ! "$mpif90" -I"$dest$includedir" -o "$tmp/fapp" "$here/tests/mpi/test_fortran.f90" \
        -L"$staged_lib" -lscrf > "$tmp/fapp.log" 2>&1; then
    not_ok "a Fortran program linked with -lscrf alone runs on 2 ranks" "$(cat "$tmp/fapp.log")"
else
    # the control base comes only from a system configuration that root owns
    mkdir -p "$tmp/f/prefix" "$tmp/f/cntl" "$tmp/f/cache"
    (umask 077 && echo "SCR_CNTL_BASE=$tmp/f/cntl" > "$tmp/f/system.conf")
    root_flag=
    [ "$(id -u)" -ne 0 ] || root_flag=--allow-run-as-root
    # shellcheck disable=SC2086 # root_flag is empty or one word
    if (cd "$tmp/f/prefix" &&
        env LD_LIBRARY_PATH="$staged_lib" SCR_SYSTEM_CONF_FILE="$tmp/f/system.conf" SCR_PREFIX="$tmp/f/prefix" \
            SCR_CACHE_BASE="$tmp/f/cache" SCR_JOB_ID="install-$$" SCR_FLUSH=1 \
            timeout 120 "${MPIRUN:-mpirun}" $root_flag --oversubscribe -np 2 "$tmp/fapp" 1) \
            > "$tmp/fapp.out" 2>&1 && ! grep -q '^not ok' "$tmp/fapp.out" &&
       [ "$(grep -c '^ok - scr_finalize' "$tmp/fapp.out")" -eq 2 ]; then
        ok "a Fortran program linked with -lscrf alone runs on 2 ranks"
    else
        not_ok "a Fortran program linked with -lscrf alone runs on 2 ranks" "$(tail -20 "$tmp/fapp.out")"
    fi
fi

if make -C "$build" uninstall DESTDIR="$dest" > "$tmp/uninstall.log" 2>&1 &&
   [ -z "$(find "$dest" ! -type d)" ]; then
    ok "make uninstall DESTDIR=... removes every file"
else
    not_ok "make uninstall DESTDIR=... removes every file" "$(tail -5 "$tmp/uninstall.log"; find "$dest" ! -type d)"
fi

# --- 2. a plain user installs under its own prefix ----------------------------------
as_user() {
    runuser -u "$user" -- env -i PATH="$PATH" HOME="$home" LANG=C "$@"
}
if [ "$(id -u)" -ne 0 ] || ! command -v runuser > /dev/null 2>&1; then
    skip "a plain user installs under its own prefix" "needs root and runuser to act as a plain user"
    done_testing
    exit $?
fi
if ! id -u "$user" > /dev/null 2>&1 &&
   ! useradd -M -d /nonexistent -s /bin/sh "$user" > "$tmp/useradd.log" 2>&1; then
    not_ok "a plain user $user exists" "$(cat "$tmp/useradd.log")"
    done_testing
    exit $?
fi
if [ -z "$tarball" ]; then
    if make -C "$build" dist > "$tmp/dist.log" 2>&1; then
        tarball=$(ls -t "$build"/scr-*.tar.gz | head -1)
    else
        not_ok "make dist makes a release tarball" "$(tail -20 "$tmp/dist.log")"
        done_testing
        exit $?
    fi
fi

home=$tmp/home
mkdir -p "$home/src"
cp "$tarball" "$home/scr.tar.gz"
chown -R "$user" "$home"
prefix_u=$home/scr
if as_user tar -xzf "$home/scr.tar.gz" -C "$home/src" --strip-components=1 &&
   as_user sh -c "cd '$home/src' && ./configure --prefix='$prefix_u' && make -j2 && make install" \
        > "$tmp/user-build.log" 2>&1; then
    ok "user $user: configure --prefix=$prefix_u, make and make install succeed"
else
    not_ok "user $user: configure --prefix=$prefix_u, make and make install succeed" "$(tail -30 "$tmp/user-build.log")"
fi
libdir_u=$prefix_u/lib
if [ -f "$libdir_u/slurm/spank_scr.so" ] && [ -f "$libdir_u/libscr.so" ] && [ -x "$prefix_u/bin/scr-index" ]; then
    ok "user $user: the plugin is at $libdir_u/slurm/spank_scr.so, with the library and commands"
else
    not_ok "user $user: the plugin is at $libdir_u/slurm/spank_scr.so, with the library and commands" \
        "$(cd "$prefix_u" 2>/dev/null && find . ! -type d)"
fi

cat > "$home/app.c" <<'EOF'
/* app.c — the smallest SCR program: initialise, checkpoint nothing, finish. */
#include <mpi.h>
#include <stdio.h>
#include <scr.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rc = SCR_Init();
    if (rc == SCR_SUCCESS) printf("SCR %s\n", SCR_Get_version());
    if (rc == SCR_SUCCESS) rc = SCR_Finalize();
    MPI_Finalize();
    return rc == SCR_SUCCESS ? 0 : 1;
}
EOF
chown "$user" "$home/app.c"
if as_user env PKG_CONFIG_PATH="$libdir_u/pkgconfig" sh -c \
        "cd '$home' && mpicc -o app app.c \$(pkg-config --cflags --libs scr)" > "$tmp/app.log" 2>&1; then
    ok "user $user: mpicc links an SCR program with the installed pkg-config --cflags --libs scr"
else
    not_ok "user $user: mpicc links an SCR program with the installed pkg-config --cflags --libs scr" \
        "$(cat "$tmp/app.log")"
fi
found=$(LD_LIBRARY_PATH=$libdir_u ldd "$home/app" 2>&1 | grep 'libscr\.so')
case $found in
    *"=> $libdir_u/libscr.so"*)
        ok "the program loads the installed libscr.so" ;;
    *)
        not_ok "the program loads the installed libscr.so" "ldd: ${found:-no libscr.so}" ;;
esac

# the module finds the libscr.so installed with it, with nothing set
py_u=$(find "$prefix_u/lib" -path '*-packages/scr.py' 2> /dev/null | head -1)
if [ -z "$PYTHON" ] || [ "$PYTHON" = : ]; then
    skip "user $user: the installed Python module loads the installed libscr.so" "configure found no Python 3"
elif [ -n "$py_u" ] &&
     loaded=$(as_user env PYTHONPATH="$(dirname "$py_u")" "$PYTHON" -c 'import scr; print(scr._lib._name)' 2>&1) &&
     [ "$loaded" = "$libdir_u/libscr.so" ]; then
    ok "user $user: the installed Python module loads the installed libscr.so"
else
    not_ok "user $user: the installed Python module loads the installed libscr.so" \
        "module: ${py_u:-not installed}; loaded: ${loaded:-}"
fi

done_testing
