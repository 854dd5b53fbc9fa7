/* fuzz_kvtree_one.h — what the kvtree fuzzer checks for one input.
 *
 * The input is tried both as a whole hash file and as a bare packed hash.
 * Whatever it holds, parsing must return (never crash, leak or read out of
 * bounds), and anything that parses must survive a write/read round trip
 * unchanged. Shared by the libFuzzer harness and the regression test that
 * replays tests/data/fuzz/ in `make check`. Returns 0, or -1 if a round trip
 * changed the tree (a bug). */
#ifndef SCR_FUZZ_KVTREE_ONE_H
#define SCR_FUZZ_KVTREE_ONE_H

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_pack.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdint.h>
#include <stdlib.h>

static int round_trips(const scr_kvtree *tree)
{
    void *image;
    size_t len;
    if (scr_kvtree_file_image(tree, &image, &len) != SCR_SUCCESS) return 0;
    scr_kvtree *again = scr_kvtree_new();
    int ok = again && scr_kvtree_parse_image(image, len, again, "round trip") == SCR_SUCCESS &&
             scr_kvtree_equal(tree, again);
    scr_kvtree_delete(again);
    free(image);
    return ok;
}

static int fuzz_kvtree_one(const uint8_t *data, size_t size)
{
    int status = 0;
    scr_log_set_quiet(1);

    scr_kvtree *file_tree = scr_kvtree_new();
    if (file_tree && scr_kvtree_parse_image(data, size, file_tree, "input") == SCR_SUCCESS &&
        !round_trips(file_tree))
        status = -1;
    scr_kvtree_delete(file_tree);

    scr_kvtree *packed_tree = scr_kvtree_new();
    size_t used = 0;
    if (packed_tree && scr_kvtree_unpack(data, size, packed_tree, &used, "input") == SCR_SUCCESS &&
        (used > size || !round_trips(packed_tree)))
        status = -1;
    scr_kvtree_delete(packed_tree);
    return status;
}

#endif
