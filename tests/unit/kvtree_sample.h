/* kvtree_sample.h — the tree of tests/data/kvtree/sample.json, built in C.
 *
 * The golden files sample.scr / sample-nocrc.scr were written from that JSON
 * by tests/tools/kvtree_ref.py, an independent implementation of the format. */
#ifndef SCR_TESTS_KVTREE_SAMPLE_H
#define SCR_TESTS_KVTREE_SAMPLE_H

#include "kvtree.h"
#include "kvtree_util.h"

static scr_kvtree *sample_tree(void)
{
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree *r0 = scr_kvtree_set_kv(t, "RANK", "0");
    scr_kvtree_util_set_int(r0, "FILES", 2);
    scr_kvtree *f = scr_kvtree_set_kv(r0, "FILE", "foo_0.txt");
    scr_kvtree_util_set_int(f, "SIZE", 1024);
    scr_kvtree_util_set_int(f, "COMPLETE", 1);
    f = scr_kvtree_set_kv(r0, "FILE", "bar_0.txt");
    scr_kvtree_util_set_int(f, "SIZE", 2048);
    scr_kvtree_util_set_int(f, "COMPLETE", 1);
    scr_kvtree *r1 = scr_kvtree_set_kv(t, "RANK", "1");
    scr_kvtree_util_set_int(r1, "FILES", 1);
    f = scr_kvtree_set_kv(r1, "FILE", "foo_1.txt");
    scr_kvtree_util_set_int(f, "SIZE", 3072);
    scr_kvtree_util_set_int(f, "COMPLETE", 1);
    scr_kvtree_set(t, "EMPTY", NULL);
    scr_kvtree_set_kv(t, "UTF8", "caf\xc3\xa9 \xe2\x9c\x93");
    return t;
}

#endif
