/* test_fuzz_regressions.c — replays every input in tests/data/fuzz/ through
 * the checks the kvtree fuzzer makes (seeds and inputs that once failed). */
#include "tap.h"

#include "../fuzz/fuzz_kvtree_one.h"
#include "util_io.h"

#include <dirent.h>

static void test_every_saved_fuzz_input_parses_or_fails_cleanly(void)
{
    const char *dir = tap_data("fuzz");
    DIR *d = opendir(dir);
    REQUIRE(d != NULL, "open %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        void *buf;
        size_t len;
        if (scr_read_file(path, 1 << 20, &buf, &len) != SCR_SUCCESS) {
            CHECK(0, "cannot read %s", path);
            continue;
        }
        CHECK(fuzz_kvtree_one(buf, len) == 0, "%s: a round trip changed the tree", e->d_name);
        free(buf);
        count++;
    }
    closedir(d);
    CHECK(count >= 5, "only %d inputs found in %s", count, dir);
}

int main(void)
{
    RUN(test_every_saved_fuzz_input_parses_or_fails_cleanly);
    return tap_done();
}
