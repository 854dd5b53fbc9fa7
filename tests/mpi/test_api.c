/* test_api.c — the SCR API's state machine and argument checks, under mpirun.
 *
 * A call made in the wrong state or with a bad argument must return an error
 * (not SCR_SUCCESS), never abort, and leave the library usable: the right
 * call that follows still works. Three runs on one prefix share the work,
 * named by the first argument:
 *
 *   first    SCR_Config before and after SCR_Init, the Need_checkpoint
 *            policy, wrong calls in every state, then the datasets the next
 *            runs look at: "dup" (output), "good" (checkpoint and output,
 *            flushed), "bad" (a checkpoint rank 1 calls invalid)
 *   restart  is offered "good" (not "bad"); Route_file of a missing file;
 *            rank 1 calls the restart invalid, so "good" is marked failed
 *   after    "good" is not offered again, and nothing else is
 *
 * Run as: SCR_CACHE_SIZE=2 mpirun -np 2 test_api first|restart|after, in the
 * prefix directory (tests/mpi/test_api.sh). Rank 0 prints TAP; a check that
 * fails on any rank fails the test, with a line naming the rank. */
#include "scr.h"
#include "tap.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, ranks;

/* Run one test on every rank; it fails if it failed on any rank. */
#define MPI_RUN(test)                                                                   \
    do {                                                                                \
        tap_current_failed = 0;                                                         \
        test();                                                                         \
        int any_ = 0;                                                                   \
        MPI_Allreduce(&tap_current_failed, &any_, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); \
        tap_number++;                                                                   \
        if (any_) tap_failures++;                                                       \
        if (rank == 0) {                                                                \
            printf("%s %d - %s\n", any_ ? "not ok" : "ok", tap_number, #test);          \
            fflush(stdout);                                                             \
        }                                                                               \
    } while (0)

#define FAILS(call) ((call) != SCR_SUCCESS)

/* Write "<text> from rank R" through SCR_Route_file; 1 on success. */
static int write_routed(const char *name, const char *text)
{
    char path[SCR_MAX_FILENAME];
    if (SCR_Route_file(name, path) != SCR_SUCCESS) return 0;
    FILE *fp = fopen(path, "w");
    if (fp == NULL) return 0;
    int ok = fprintf(fp, "%s from rank %d\n", text, rank) > 0;
    return fclose(fp) == 0 && ok;
}

static void rank_file(char *buf, size_t len, const char *dir, const char *ext)
{
    snprintf(buf, len, "%s/rank%d.%s", dir, rank, ext);
}

/* Start dataset dset and write dset/rank<R>.dat ("<dset> from rank R") in
 * it; 1 on success. */
static int start_and_write(const char *dset, int flags)
{
    char name[64];
    rank_file(name, sizeof(name), dset, "dat");
    return SCR_Start_output(dset, flags) == SCR_SUCCESS && write_routed(name, dset);
}

/* --- first run: before SCR_Init ------------------------------------------- */

static void test_get_version_is_not_empty(void)
{
    const char *v = SCR_Get_version();
    CHECK(v != NULL && v[0] != '\0', "SCR_Get_version gave '%s'", v ? v : "(null)");
}

static void test_config_set_then_get_before_init(void)
{
    CHECK(SCR_Config("SCR_FLUSH=3") == NULL, "a set returns NULL");
    CHECK(SCR_Config("SCR_CHECKPOINT_INTERVAL=2") == NULL, "a set returns NULL");
    char *v = (char *)SCR_Config("SCR_FLUSH");
    CHECK(v != NULL && strcmp(v, "3") == 0, "SCR_FLUSH reads back as '%s'", v ? v : "(null)");
    free(v);
}

static void test_config_get_of_an_unset_parameter_is_null(void)
{
    CHECK(SCR_Config("SCR_CURRENT") == NULL, "SCR_CURRENT has no value");
}

static void test_init_succeeds(void)
{
    REQUIRE(SCR_Init() == SCR_SUCCESS, "SCR_Init");
}

/* --- first run: outside any phase ------------------------------------------ */

static void test_config_after_init_answers_but_sets_nothing(void)
{
    CHECK(SCR_Config("SCR_FLUSH=5") == NULL, "a set after SCR_Init");
    char *v = (char *)SCR_Config("SCR_FLUSH");
    CHECK(v != NULL && strcmp(v, "3") == 0, "SCR_FLUSH after SCR_Init is '%s'", v ? v : "(null)");
    free(v);
}

static void test_need_checkpoint_every_second_call(void)
{
    int want[4] = {0, 1, 0, 1}, got[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 4; i++)
        CHECK(SCR_Need_checkpoint(&got[i]) == SCR_SUCCESS, "call %d", i + 1);
    CHECK(memcmp(want, got, sizeof(want)) == 0, "rank %d: flags %d,%d,%d,%d", rank, got[0], got[1],
          got[2], got[3]);
}

static void test_route_file_outside_a_phase_returns_the_name(void)
{
    char path[SCR_MAX_FILENAME] = "";
    CHECK(SCR_Route_file("some/dir/file.dat", path) == SCR_SUCCESS, "Route_file");
    CHECK(strcmp(path, "some/dir/file.dat") == 0, "got '%s'", path);
}

static void test_route_file_without_a_name_fails(void)
{
    char path[SCR_MAX_FILENAME];
    CHECK(FAILS(SCR_Route_file("", path)), "empty name");
    CHECK(FAILS(SCR_Route_file(NULL, path)), "NULL name");
}

static void test_current_of_an_unknown_name_fails(void)
{
    CHECK(FAILS(SCR_Current("no-such-dataset")), "SCR_Current");
}

static void test_no_restart_on_a_fresh_prefix(void)
{
    int flag = -1;
    CHECK(SCR_Have_restart(&flag, NULL) == SCR_SUCCESS, "Have_restart");
    CHECK(flag == 0, "flag %d", flag);
}

static void test_start_restart_without_a_restart_fails(void)
{
    char name[SCR_MAX_FILENAME];
    CHECK(FAILS(SCR_Start_restart(name)), "Start_restart");
}

static void test_complete_calls_without_a_start_fail(void)
{
    CHECK(FAILS(SCR_Complete_checkpoint(1)), "Complete_checkpoint");
    CHECK(FAILS(SCR_Complete_output(1)), "Complete_output");
    CHECK(FAILS(SCR_Complete_restart(1)), "Complete_restart");
}

static void test_start_output_with_bad_flags_fails(void)
{
    CHECK(FAILS(SCR_Start_output("flags0", 0)), "flags 0");
    CHECK(FAILS(SCR_Start_output("flags8", 8)), "flags 8");
    CHECK(FAILS(SCR_Start_output("flags9", SCR_FLAG_CHECKPOINT | 8)), "flags 9");
}

static void test_start_output_with_an_empty_name_fails(void)
{
    CHECK(FAILS(SCR_Start_output("", SCR_FLAG_OUTPUT)), "empty name");
}

/* --- first run: inside a checkpoint phase ------------------------------------ */

static void test_start_checkpoint_twice_fails(void)
{
    REQUIRE(SCR_Start_checkpoint() == SCR_SUCCESS, "the first Start_checkpoint");
    CHECK(FAILS(SCR_Start_checkpoint()), "the second Start_checkpoint");
    CHECK(FAILS(SCR_Start_output("inner", SCR_FLAG_OUTPUT)), "Start_output inside");
}

static void test_need_checkpoint_inside_a_phase_fails(void)
{
    int flag = 0;
    CHECK(FAILS(SCR_Need_checkpoint(&flag)), "Need_checkpoint");
}

static void test_have_restart_inside_a_phase_fails(void)
{
    int flag = 0;
    CHECK(FAILS(SCR_Have_restart(&flag, NULL)), "Have_restart");
}

static void test_route_file_outside_the_prefix_fails(void)
{
    char path[SCR_MAX_FILENAME];
    CHECK(FAILS(SCR_Route_file("../outside.dat", path)), "a relative path above the prefix");
    CHECK(FAILS(SCR_Route_file("/no-such-dir/file.dat", path)), "an absolute path elsewhere");
}

static void test_finalize_inside_a_phase_fails(void)
{
    CHECK(FAILS(SCR_Finalize()), "SCR_Finalize");
}

static void test_the_open_checkpoint_still_completes(void)
{
    char name[64];
    rank_file(name, sizeof(name), "first", "dat");
    CHECK(write_routed(name, "first"), "writing %s", name);
    CHECK(SCR_Complete_checkpoint(1) == SCR_SUCCESS, "Complete_checkpoint");
}

/* --- first run: datasets the next runs look at --------------------------------- */

static void test_a_reused_dataset_name_replaces_the_older_dataset(void)
{
    REQUIRE(start_and_write("dup", SCR_FLAG_OUTPUT), "the first 'dup'");
    REQUIRE(SCR_Complete_output(1) == SCR_SUCCESS, "completing the first 'dup'");
    REQUIRE(start_and_write("dup", SCR_FLAG_OUTPUT), "the second 'dup'");
    CHECK(SCR_Complete_output(1) == SCR_SUCCESS, "completing the second 'dup'");
}

static void test_checkpoint_and_output_dataset_completes(void)
{
    REQUIRE(start_and_write("good", SCR_FLAG_CHECKPOINT | SCR_FLAG_OUTPUT), "writing 'good'");
    CHECK(SCR_Complete_output(1) == SCR_SUCCESS, "Complete_output");
}

static void test_complete_output_invalid_on_one_rank_fails_everywhere(void)
{
    REQUIRE(start_and_write("bad", SCR_FLAG_CHECKPOINT), "writing 'bad'");
    CHECK(FAILS(SCR_Complete_output(rank == 1 ? 0 : 1)), "rank %d: Complete_output", rank);
    int flag = -1;
    CHECK(SCR_Need_checkpoint(&flag) == SCR_SUCCESS, "still usable");
}

static void test_finalize_succeeds(void)
{
    CHECK(SCR_Finalize() == SCR_SUCCESS, "SCR_Finalize");
}

static void test_calls_after_finalize_fail(void)
{
    int flag = 0;
    char path[SCR_MAX_FILENAME];
    CHECK(FAILS(SCR_Start_checkpoint()), "Start_checkpoint");
    CHECK(FAILS(SCR_Need_checkpoint(&flag)), "Need_checkpoint");
    CHECK(FAILS(SCR_Route_file("x.dat", path)), "Route_file");
    CHECK(FAILS(SCR_Finalize()), "a second Finalize");
}

/* --- restart run ------------------------------------------------------------------ */

static void test_the_valid_checkpoint_is_offered(void)
{
    int flag = 0;
    char name[SCR_MAX_FILENAME] = "";
    CHECK(SCR_Have_restart(&flag, name) == SCR_SUCCESS, "Have_restart");
    CHECK(flag == 1 && strcmp(name, "good") == 0, "flag %d, name '%s'", flag, name);
}

static void test_current_after_have_restart_fails(void)
{
    CHECK(FAILS(SCR_Current("good")), "SCR_Current");
}

static void test_start_restart_names_the_checkpoint(void)
{
    char name[SCR_MAX_FILENAME] = "";
    REQUIRE(SCR_Start_restart(name) == SCR_SUCCESS, "Start_restart");
    CHECK(strcmp(name, "good") == 0, "name '%s'", name);
}

static void test_route_file_of_a_missing_file_fails(void)
{
    char path[SCR_MAX_FILENAME];
    CHECK(FAILS(SCR_Route_file("missing.dat", path)), "missing.dat");
    CHECK(FAILS(SCR_Route_file("bad/rank0.dat", path)), "a file of another dataset");
}

static void test_route_file_of_a_restart_file_reads_it(void)
{
    char name[64], path[SCR_MAX_FILENAME], want[64], got[64] = "";
    rank_file(name, sizeof(name), "good", "dat");
    snprintf(want, sizeof(want), "good from rank %d\n", rank);
    REQUIRE(SCR_Route_file(name, path) == SCR_SUCCESS, "Route_file %s", name);
    FILE *fp = fopen(path, "r");
    REQUIRE(fp != NULL, "cannot open %s", path);
    if (fgets(got, sizeof(got), fp) == NULL) got[0] = '\0';
    fclose(fp);
    CHECK(strcmp(got, want) == 0, "rank %d: %s holds '%s'", rank, path, got);
}

static void test_start_checkpoint_inside_a_restart_fails(void)
{
    CHECK(FAILS(SCR_Start_checkpoint()), "Start_checkpoint");
    CHECK(FAILS(SCR_Finalize()), "Finalize");
}

static void test_complete_restart_invalid_on_one_rank_fails_everywhere(void)
{
    CHECK(FAILS(SCR_Complete_restart(rank == 1 ? 0 : 1)), "rank %d: Complete_restart", rank);
}

static void test_with_no_older_checkpoint_none_is_offered_after_a_failure(void)
{
    int flag = -1;
    CHECK(SCR_Have_restart(&flag, NULL) == SCR_SUCCESS, "Have_restart");
    CHECK(flag == 0, "flag %d", flag);
}

/* --- after run ----------------------------------------------------------------------- */

static void test_the_failed_checkpoint_is_not_offered_again(void)
{
    int flag = -1;
    char name[SCR_MAX_FILENAME] = "";
    CHECK(SCR_Have_restart(&flag, name) == SCR_SUCCESS, "Have_restart");
    CHECK(flag == 0, "offered '%s'", name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const char *run = argc > 1 ? argv[1] : "";
    if (ranks < 2) {
        if (rank == 0) printf("1..0 # SKIP needs at least 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    if (strcmp(run, "first") == 0) {
        MPI_RUN(test_get_version_is_not_empty);
        MPI_RUN(test_config_set_then_get_before_init);
        MPI_RUN(test_config_get_of_an_unset_parameter_is_null);
        MPI_RUN(test_init_succeeds);
        MPI_RUN(test_config_after_init_answers_but_sets_nothing);
        MPI_RUN(test_need_checkpoint_every_second_call);
        MPI_RUN(test_route_file_outside_a_phase_returns_the_name);
        MPI_RUN(test_route_file_without_a_name_fails);
        MPI_RUN(test_current_of_an_unknown_name_fails);
        MPI_RUN(test_no_restart_on_a_fresh_prefix);
        MPI_RUN(test_start_restart_without_a_restart_fails);
        MPI_RUN(test_complete_calls_without_a_start_fail);
        MPI_RUN(test_start_output_with_bad_flags_fails);
        MPI_RUN(test_start_output_with_an_empty_name_fails);
        MPI_RUN(test_start_checkpoint_twice_fails);
        MPI_RUN(test_need_checkpoint_inside_a_phase_fails);
        MPI_RUN(test_have_restart_inside_a_phase_fails);
        MPI_RUN(test_route_file_outside_the_prefix_fails);
        MPI_RUN(test_finalize_inside_a_phase_fails);
        MPI_RUN(test_the_open_checkpoint_still_completes);
        MPI_RUN(test_a_reused_dataset_name_replaces_the_older_dataset);
        MPI_RUN(test_checkpoint_and_output_dataset_completes);
        MPI_RUN(test_complete_output_invalid_on_one_rank_fails_everywhere);
        MPI_RUN(test_finalize_succeeds);
        MPI_RUN(test_calls_after_finalize_fail);
    } else if (strcmp(run, "restart") == 0) {
        MPI_RUN(test_init_succeeds);
        MPI_RUN(test_the_valid_checkpoint_is_offered);
        MPI_RUN(test_current_after_have_restart_fails);
        MPI_RUN(test_start_restart_names_the_checkpoint);
        MPI_RUN(test_route_file_of_a_missing_file_fails);
        MPI_RUN(test_route_file_of_a_restart_file_reads_it);
        MPI_RUN(test_start_checkpoint_inside_a_restart_fails);
        MPI_RUN(test_complete_restart_invalid_on_one_rank_fails_everywhere);
        MPI_RUN(test_with_no_older_checkpoint_none_is_offered_after_a_failure);
        MPI_RUN(test_finalize_succeeds);
    } else if (strcmp(run, "after") == 0) {
        MPI_RUN(test_init_succeeds);
        MPI_RUN(test_the_failed_checkpoint_is_not_offered_again);
        MPI_RUN(test_finalize_succeeds);
    } else {
        if (rank == 0) fprintf(stderr, "usage: test_api first|restart|after\n");
        MPI_Finalize();
        return 2;
    }
    int status = rank == 0 ? tap_done() : (tap_failures ? 1 : 0);
    MPI_Finalize();
    return status;
}
