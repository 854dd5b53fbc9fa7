/* test_relaunch.c — whether a job runs again: each verdict, in its order,
 * and a damaged halt file stopping the decision. */
#include "tap.h"

#include "halt_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "relaunch.h"
#include "scr_err.h"
#include "util_log.h"

#include <string.h>
#include <unistd.h>

static const char *halt_path;

static void write_halt(const char *key, const char *value)
{
    scr_kvtree *h = scr_kvtree_new();
    if (key != NULL) scr_kvtree_util_set_str(h, key, value);
    REQUIRE(scr_kvtree_write_file(halt_path, h) == SCR_SUCCESS, "write the halt file");
    scr_kvtree_delete(h);
}

static struct scr_relaunch_input base(void)
{
    struct scr_relaunch_input in = {.halt_path = halt_path,
                                    .runs_done = 1,
                                    .max_runs = 3,
                                    .nodes_up = 4,
                                    .min_nodes = 3,
                                    .now = 1000,
                                    .end_time = 0,
                                    .halt_seconds = 0};
    return in;
}

static enum scr_relaunch_verdict verdict_of(const struct scr_relaunch_input *in, char *why,
                                            size_t len)
{
    enum scr_relaunch_verdict v = -1;
    CHECK(scr_relaunch_decide(in, &v, why, len) == SCR_SUCCESS, "decided");
    return v;
}

static void test_each_verdict(void)
{
    char why[256];
    unlink(halt_path);
    struct scr_relaunch_input in = base();
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_GO &&
              strcmp(why, "run 2 of 3 on 4 nodes") == 0,
          "no halt file: go ('%s')", why);
    in.max_runs = 0;
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_GO && strstr(why, "no limit") != NULL,
          "'%s'", why);

    in = base();
    in.runs_done = 3;
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_NO_RUNS_LEFT &&
              strstr(why, "3 of 3 runs") != NULL,
          "'%s'", why);
    in = base();
    in.nodes_up = 2;
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_TOO_FEW_NODES &&
              strstr(why, "2 usable nodes, fewer than SCR_MIN_NODES (3)") != NULL,
          "'%s'", why);
    in = base();
    in.end_time = 1050;
    in.halt_seconds = 60;
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_HALTED &&
              strstr(why, "allocation ends") != NULL,
          "'%s'", why);

    write_halt("ExitReason", "SCR_FINALIZE_CALLED");
    in = base();
    in.runs_done = 3; /* finished wins over no runs left */
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_FINISHED &&
              strstr(why, "SCR_Finalize") != NULL,
          "'%s'", why);
    in.runs_done = 0; /* a mark of an earlier job does not stop the first run */
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_GO,
          "first run despite an old mark: '%s'", why);

    write_halt("ExitReason", "JOB_HALTED");
    in = base();
    in.nodes_up = 1; /* a halt wins over too few nodes */
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_HALTED &&
              strstr(why, "JOB_HALTED") != NULL,
          "'%s'", why);
    write_halt("CheckpointsLeft", "0");
    in = base();
    CHECK(verdict_of(&in, why, sizeof(why)) == SCR_RELAUNCH_HALTED &&
              strstr(why, "no checkpoints left") != NULL,
          "'%s'", why);
}

static void test_damaged_halt_file_is_an_error(void)
{
    write_halt("CheckpointsLeft", "lots");
    struct scr_relaunch_input in = base();
    enum scr_relaunch_verdict v;
    char why[256];
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_relaunch_decide(&in, &v, why, sizeof(why)) == SCR_ERR_FORMAT,
          "damaged value accepted");
    CHECK(strstr(scr_last_error(), "cannot be used to decide") != NULL, "'%s'", scr_last_error());
    FILE *f = fopen(halt_path, "w");
    REQUIRE(f != NULL && fputs("not a hash file", f) >= 0 && fclose(f) == 0, "garbage");
    CHECK(scr_relaunch_decide(&in, &v, why, sizeof(why)) == SCR_ERR_FORMAT, "garbage accepted");
    scr_log_set_quiet(0);
}

int main(void)
{
    halt_path = tap_path("halt.scr");
    RUN(test_each_verdict);
    RUN(test_damaged_halt_file_is_an_error);
    return tap_done();
}
