#!/bin/sh
# run-all.sh — the whole test suite, from a source checkout.
#
# 1. build in the source tree, warnings as errors (--enable-werror), and run
#    `make check`;
# 2. `make distcheck`: the release tarball builds, installs and passes its
#    unit, command and API tests; then what `make install` puts
#    where: under DESTDIR, and as a plain user under a prefix of its own
#    (tests/install/test_install.sh);
# 3. the same tests built with AddressSanitizer and UBSan by clang (from that
#    tarball), warnings as errors too, but for the longest MPI tests and the
#    Slurm tests other than the plugin's own;
# 4. a build without ISA-L (the portable kernels), unpacked with 0775
#    directories, with the unit tests, the redundancy tests and the plugin's
#    Slurm tests;
# 5. the kvtree fuzzer for FUZZ_SECONDS (default 60).
# Ends with one line "N passed, N failed" over everything it ran and exits
# non-zero if anything failed. Logs: _build/*.log.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src" || exit 1
logs="$src/_build"
mkdir -p "$logs"
passed=0
failed=0

# Add the results of the TAP log $1 of a script that exited with status $2.
count_tap() {
    p=$(grep -c '^ok ' "$1" | tr -d ' ')
    s=$(grep -c '^ok .* # SKIP' "$1" | tr -d ' ')
    f=$(grep -c '^not ok ' "$1" | tr -d ' ')
    grep -A5 '^not ok ' "$1"
    passed=$((passed + p - s))
    failed=$((failed + f))
    if [ "$2" -ne 0 ] && [ "$f" -eq 0 ] || ! grep -q '^1\.\.[0-9]' "$1"; then
        echo "$1: the script stopped before its end"
        tail -10 "$1"
        failed=$((failed + 1))
    fi
}

# Add the counts of an Automake test-suite summary found in log $1.
count_suite() {
    p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$1" | tail -1)
    f=$(sed -n 's/^# FAIL: *\([0-9]*\)$/\1/p' "$1" | tail -1)
    e=$(sed -n 's/^# ERROR: *\([0-9]*\)$/\1/p' "$1" | tail -1)
    x=$(sed -n 's/^# XPASS: *\([0-9]*\)$/\1/p' "$1" | tail -1)
    if [ -z "$p" ]; then
        echo "no test summary in $1"
        failed=$((failed + 1))
        return
    fi
    passed=$((passed + p))
    failed=$((failed + ${f:-0} + ${e:-0} + ${x:-0}))
}

# Print what each failed test of the Automake log $1 said of its failure:
# its "not ok" lines with their diagnostics, or the end of a log that
# stopped early. The build tree's logs are not kept where CI runs, so this
# is all that is left of a failure that does not come back.
show_failures() {
    sed -n 's/^\(FAIL\|ERROR\|XPASS\): \([^ ]*\).*/\2/p' "$1" | sort -u |
        while read -r test; do
            log=$test.log
            [ -f "$log" ] || continue
            echo "--- $log"
            if grep -q '^not ok ' "$log"; then
                awk '/^not ok / { show = 1; lines = 0 }
                     /^(ok |PASS:)/ { show = 0 }
                     show && lines < 150 { print; lines++ }' "$log"
            else
                tail -40 "$log"
            fi
        done
}

# step NAME LOG CMD...: run a build step; a failure counts as one failed test.
step() {
    name=$1 log=$2
    shift 2
    echo "== $name"
    if "$@" >> "$log" 2>&1; then
        return 0
    fi
    echo "FAILED: $name (see $log)"
    tail -30 "$log"
    failed=$((failed + 1))
    return 1
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

: > "$logs/build.log"
if [ ! -x configure ]; then
    step "autogen" "$logs/build.log" ./autogen.sh || finish
fi
# the main build treats every warning as an error; a tree configured
# earlier without it is configured again with its own options and it
if [ ! -f Makefile ]; then
    step "configure" "$logs/build.log" ./configure --enable-werror || finish
elif ! grep -q '^WARN_CFLAGS = .*-Werror' Makefile; then
    eval "set -- $(./config.status --config)"
    step "configure" "$logs/build.log" ./configure "$@" --enable-werror || finish
fi
step "make" "$logs/build.log" make -j2 || finish

# three at once on two cores: the MPI and Slurm tests wait on one another's
# processes and on files as much as they compute
echo "== make check"
make -j3 check > "$logs/check.log" 2>&1
grep -E '^(FAIL|ERROR|XPASS):' "$logs/check.log"
show_failures "$logs/check.log"
count_suite "$logs/check.log"

: > "$logs/distcheck.log"
# the tarball's own check: every unit and command test and one MPI file (the
# full MPI suite ran above, and most of it runs again under the sanitizers;
# the plugin's Slurm test runs from the tarball in step 4)
serial="$(ls tests/unit/test_*.c | sed 's/\.c$//' | tr '\n' ' ')$(ls tests/cli/test_*.sh tests/lib/test_*.sh | tr '\n' ' ')"
quick="$serial tests/mpi/test_api.sh"
if step "make distcheck" "$logs/distcheck.log" make -j2 distcheck TESTS="$quick"; then
    passed=$((passed + 1))
fi

tarball=$(ls -t scr-*.tar.gz 2>/dev/null | head -1)

echo "== make install: under DESTDIR, and as a plain user under its own prefix"
sh tests/install/test_install.sh "$src" ${tarball:+"$src/$tarball"} > "$logs/install.log" 2>&1
count_tap "$logs/install.log" $?

# Under the sanitizers: every unit, command and library test and every MPI
# test but the longest, which repeat paths the others take (random kills,
# every scheme at every loss pattern); of the Slurm tests, the plugin's own.
# Step 1 ran them all without the sanitizers.
asan_tests=$serial
for t in tests/mpi/test_*.sh; do
    case $t in
    */test_background_kill.sh | */test_redundancy_xor.sh | */test_redundancy_partner.sh | */test_redundancy_rs.sh) ;;
    *) asan_tests="$asan_tests $t" ;;
    esac
done
asan_tests="$asan_tests tests/slurm/test_spank.sh"

echo "== ASan/UBSan build and tests"
rm -rf "$logs/asan"
mkdir -p "$logs/asan"
: > "$logs/asan.log"
if [ -n "$tarball" ] && tar -xzf "$tarball" -C "$logs/asan" --strip-components=1 &&
   step "asan configure" "$logs/asan.log" sh -c "cd '$logs/asan' && ./configure --enable-werror \
        CC=clang CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined' \
        LDFLAGS='-fsanitize=address,undefined'" &&
   step "asan make" "$logs/asan.log" make -C "$logs/asan" -j2; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        LSAN_OPTIONS=suppressions="$src/tests/lsan.supp" \
        make -C "$logs/asan" -j2 check TESTS="$asan_tests" > "$logs/asan-check.log" 2>&1
    grep -E '^(FAIL|ERROR|XPASS):' "$logs/asan-check.log"
    count_suite "$logs/asan-check.log"
elif [ -z "$tarball" ]; then
    echo "no release tarball to build the sanitizer tests from"
    failed=$((failed + 1))
fi

# The same tree also stands for one unpacked where directories come out
# 0775 (an archive made so, a umask of 002): the Slurm tests must not care.
echo "== build without ISA-L, directories 0775: unit, redundancy and plugin tests"
rm -rf "$logs/noisal"
mkdir -p "$logs/noisal"
: > "$logs/noisal.log"
if [ -n "$tarball" ] && (umask 002 && tar -xzf "$tarball" -C "$logs/noisal" --strip-components=1) &&
   chmod 775 "$logs" && find "$logs/noisal" -type d -exec chmod 775 {} + &&
   step "configure --without-isal" "$logs/noisal.log" sh -c "cd '$logs/noisal' && ./configure --without-isal" &&
   step "make (without ISA-L)" "$logs/noisal.log" sh -c "umask 002 && make -C '$logs/noisal' -j2"; then
    unit=$(cd "$logs/noisal" && ls tests/unit/test_*.c | sed 's/\.c$//' | tr '\n' ' ')
    (umask 002 && make -C "$logs/noisal" -j2 check TESTS="$unit tests/mpi/test_redundancy.sh tests/slurm/test_spank.sh") \
        > "$logs/noisal-check.log" 2>&1
    grep -E '^(FAIL|ERROR|XPASS):' "$logs/noisal-check.log"
    count_suite "$logs/noisal-check.log"
fi

echo "== fuzz (${FUZZ_SECONDS:-60} s)"
if sh tests/fuzz/run-fuzz.sh "$src" "${FUZZ_SECONDS:-60}" > "$logs/fuzz.log" 2>&1; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi
cat "$logs/fuzz.log" | head -20

finish
