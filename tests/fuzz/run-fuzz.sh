#!/bin/sh
# run-fuzz.sh — build the kvtree fuzzer with clang and run it for a bounded time.
#
#   tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS]
#
# BUILD_DIR is a configured build tree (for build_config.h). The seed corpus is
# tests/data/fuzz/ plus the golden hash files. A crash leaves its input in
# BUILD_DIR/fuzz-artifacts/; copy it into tests/data/fuzz/ so that `make check`
# replays it from then on. Prints one TAP line and exits non-zero on a crash.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS]}" && pwd)
seconds=${2:-60}
cc=${CLANG:-clang}
work="$build/fuzz-work"
mkdir -p "$work/corpus" "$build/fuzz-artifacts"
cp "$src"/tests/data/fuzz/* "$src"/tests/data/kvtree/*.scr "$work/corpus/" 2>/dev/null

flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
libs="-lz $(pkg-config --libs json-c)"
grep -q '^#define HAVE_ISAL 1' "$build/build_config.h" && libs="$libs -lisal"
if ! $cc $flags -I"$build" -I"$src/lib/util" -I"$src/lib/kvtree" $(pkg-config --cflags json-c) \
        -o "$work/fuzz_kvtree" "$src/tests/fuzz/fuzz_kvtree.c" \
        "$src"/lib/kvtree/kvtree.c "$src"/lib/kvtree/kvtree_pack.c "$src"/lib/kvtree/kvtree_file.c \
        "$src"/lib/kvtree/kvtree_util.c "$src"/lib/util/util_io.c "$src"/lib/util/util_crc.c \
        "$src"/lib/util/util_log.c "$src"/lib/util/util_parse.c "$src"/lib/util/util_strbuf.c $libs > "$work/build.log" 2>&1; then
    echo "not ok 1 - fuzz_kvtree_builds"
    sed 's/^/# /' "$work/build.log"
    exit 1
fi
if "$work/fuzz_kvtree" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -artifact_prefix="$build/fuzz-artifacts/" "$work/corpus" > "$work/run.log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$work/run.log" | tail -1)
    echo "ok 1 - fuzz_kvtree_${seconds}s_without_a_crash # $runs"
    exit 0
fi
echo "not ok 1 - fuzz_kvtree_${seconds}s_without_a_crash"
tail -40 "$work/run.log" | sed 's/^/# /'
ls "$build/fuzz-artifacts" | sed 's/^/# artifact: /'
exit 1
