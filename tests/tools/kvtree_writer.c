/* kvtree_writer.c — writes the sample tree with libscr-core (for interop tests). */
#include "kvtree_file.h"
#include "scr_err.h"
#include "unit/kvtree_sample.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: kvtree_writer OUT.scr\n");
        return 2;
    }
    scr_kvtree *t = sample_tree();
    int rc = scr_kvtree_write_file(argv[1], t);
    scr_kvtree_delete(t);
    return rc == SCR_SUCCESS ? 0 : 1;
}
