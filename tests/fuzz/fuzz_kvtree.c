/* fuzz_kvtree.c — libFuzzer entry point for the hash file and packed-hash readers.
 * Built and run by tests/fuzz/run-fuzz.sh (clang -fsanitize=fuzzer,address,undefined). */
#include "fuzz_kvtree_one.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_kvtree_one(data, size) != 0) abort(); /* a round trip changed a tree */
    return 0;
}
