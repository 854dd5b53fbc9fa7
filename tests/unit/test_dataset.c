/* test_dataset.c — the dataset descriptor: golden bytes, typed fields, kinds. */
#include "tap.h"
#include "record_test.h"

#include "dataset.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"

/* The descriptor of tests/data/records/dataset.json, built through the setters. */
static scr_dataset *sample_dataset(void)
{
    scr_dataset *d = scr_dataset_new();
    int rc = scr_dataset_set_id(d, 6);
    rc |= scr_dataset_set_name(d, "scr.dataset.6");
    rc |= scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    rc |= scr_dataset_set_created(d, 1312850690668536LL);
    rc |= scr_dataset_set_username(d, "user1");
    rc |= scr_dataset_set_jobname(d, "simulation123");
    rc |= scr_dataset_set_jobid(d, "112573");
    rc |= scr_dataset_set_ckpt(d, 6);
    rc |= scr_dataset_set_size(d, 2097182);
    rc |= scr_dataset_set_files(d, 4);
    rc |= scr_dataset_set_complete(d, 1);
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(d);
        return NULL;
    }
    return d;
}

static void test_descriptor_built_by_setters_matches_independent_golden(void)
{
    scr_dataset *d = sample_dataset();
    REQUIRE(d != NULL, "setters failed");
    const char *path = tap_path("dataset.scr");
    CHECK(scr_kvtree_write_file(path, d) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("records/dataset.scr"));
    scr_dataset_delete(d);
}

static void test_golden_descriptor_reads_back_through_getters(void)
{
    scr_dataset *d = scr_dataset_new();
    REQUIRE(scr_kvtree_read_file(tap_data("records/dataset.scr"), d) == SCR_SUCCESS, "golden");
    CHECK(scr_dataset_validate(d, "dataset.scr", NULL) == SCR_SUCCESS, "golden refused");
    const char *s = NULL;
    int i = -1;
    int64_t t = 0;
    uint64_t u = 0;
    CHECK(scr_dataset_get_id(d, &i) == 0 && i == 6, "ID %d", i);
    CHECK(scr_dataset_get_name(d, &s) == 0 && strcmp(s, "scr.dataset.6") == 0, "NAME");
    CHECK(scr_dataset_get_flags(d, &i) == 0 && i == SCR_DATASET_FLAG_CHECKPOINT, "FLAGS %d", i);
    CHECK(scr_dataset_get_created(d, &t) == 0 && t == 1312850690668536LL, "CREATED %lld",
          (long long)t);
    CHECK(scr_dataset_get_username(d, &s) == 0 && strcmp(s, "user1") == 0, "USER");
    CHECK(scr_dataset_get_jobname(d, &s) == 0 && strcmp(s, "simulation123") == 0, "JOBNAME");
    CHECK(scr_dataset_get_jobid(d, &s) == 0 && strcmp(s, "112573") == 0, "JOBID");
    CHECK(scr_dataset_get_ckpt(d, &i) == 0 && i == 6, "CKPT %d", i);
    CHECK(scr_dataset_get_size(d, &u) == 0 && u == 2097182, "SIZE %llu", (unsigned long long)u);
    CHECK(scr_dataset_get_files(d, &i) == 0 && i == 4, "FILES %d", i);
    CHECK(scr_dataset_get_complete(d, &i) == 0 && i == 1, "COMPLETE %d", i);
    CHECK(scr_dataset_is_checkpoint(d) && !scr_dataset_is_output(d), "kind");
    scr_dataset *want = sample_dataset();
    CHECK(scr_kvtree_equal(d, want), "golden differs from the descriptor the setters build");
    scr_dataset_delete(want);
    scr_dataset_delete(d);
}

static void test_flags_say_checkpoint_output_or_both(void)
{
    scr_dataset *d = scr_dataset_new();
    CHECK(!scr_dataset_is_checkpoint(d) && !scr_dataset_is_output(d), "empty is neither");
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_OUTPUT);
    CHECK(!scr_dataset_is_checkpoint(d) && scr_dataset_is_output(d), "output");
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_OUTPUT | SCR_DATASET_FLAG_CHECKPOINT);
    CHECK(scr_dataset_is_checkpoint(d) && scr_dataset_is_output(d), "both");
    scr_dataset_set_ckpt(d, 3);
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_OUTPUT);
    CHECK(!scr_dataset_is_checkpoint(d), "FLAGS decides over CKPT");
    scr_kvtree_unset(d, "FLAGS");
    CHECK(scr_dataset_is_checkpoint(d) && !scr_dataset_is_output(d),
          "without FLAGS a CKPT id makes a checkpoint");
    scr_kvtree_util_set_str(d, "FLAGS", "lots");
    CHECK(!scr_dataset_is_checkpoint(d) && !scr_dataset_is_output(d), "damaged FLAGS");
    scr_dataset_delete(d);
}

static void test_getters_tell_missing_from_wrong_type_without_logging(void)
{
    scr_dataset *d = scr_dataset_new();
    const char *s;
    int i;
    int64_t t;
    uint64_t u;
    CHECK(scr_dataset_get_id(d, &i) == SCR_ERR_NOTFOUND, "ID absent");
    CHECK(scr_dataset_get_name(d, &s) == SCR_ERR_NOTFOUND, "NAME absent");
    CHECK(scr_dataset_get_created(d, &t) == SCR_ERR_NOTFOUND, "CREATED absent");
    CHECK(scr_dataset_get_size(d, &u) == SCR_ERR_NOTFOUND, "SIZE absent");
    scr_kvtree_util_set_int(d, "ID", 0);
    scr_kvtree_util_set_str(d, "NAME", "");
    scr_kvtree_util_set_int(d, "FLAGS", 4);
    scr_kvtree_util_set_int(d, "CREATED", -1);
    scr_kvtree_set_kv(d, "USER", "a");
    scr_kvtree_set_kv(d, "USER", "b");
    scr_kvtree_util_set_str(d, "CKPT", "six");
    scr_kvtree_util_set_str(d, "SIZE", "1.5");
    scr_kvtree_util_set_int(d, "FILES", -2);
    scr_kvtree_util_set_int(d, "COMPLETE", 3);
    scr_clear_last_error();
    CHECK(scr_dataset_get_id(d, &i) == SCR_ERR_TYPE, "ID 0");
    CHECK(scr_dataset_get_name(d, &s) == SCR_ERR_TYPE, "empty NAME");
    CHECK(scr_dataset_get_flags(d, &i) == SCR_ERR_TYPE, "FLAGS 4");
    CHECK(scr_dataset_get_created(d, &t) == SCR_ERR_TYPE, "CREATED -1");
    CHECK(scr_dataset_get_username(d, &s) == SCR_ERR_TYPE, "two users");
    CHECK(scr_dataset_get_ckpt(d, &i) == SCR_ERR_TYPE, "CKPT six");
    CHECK(scr_dataset_get_size(d, &u) == SCR_ERR_TYPE, "SIZE 1.5");
    CHECK(scr_dataset_get_files(d, &i) == SCR_ERR_TYPE, "FILES -2");
    CHECK(scr_dataset_get_complete(d, &i) == SCR_ERR_TYPE, "COMPLETE 3");
    CHECK(scr_last_error()[0] == '\0', "a getter logged '%s'", scr_last_error());
    CHECK(scr_dataset_get_jobid(d, NULL) == SCR_ERR_ARG, "NULL result");
    scr_dataset_delete(d);
}

static void test_setters_refuse_what_a_reader_would_refuse(void)
{
    scr_dataset *d = scr_dataset_new();
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_dataset_set_id(d, 0) == SCR_ERR_ARG, "ID 0");
    CHECK(strstr(scr_last_error(), "ID 0") != NULL, "'%s'", scr_last_error());
    CHECK(scr_dataset_set_name(d, "") == SCR_ERR_ARG, "empty NAME");
    CHECK(scr_dataset_set_flags(d, 8) == SCR_ERR_ARG, "FLAGS 8");
    CHECK(scr_dataset_set_created(d, -5) == SCR_ERR_ARG, "CREATED -5");
    CHECK(scr_dataset_set_username(d, NULL) == SCR_ERR_ARG, "NULL USER");
    CHECK(scr_dataset_set_jobname(d, "") == SCR_ERR_ARG, "empty JOBNAME");
    CHECK(scr_dataset_set_jobid(d, "") == SCR_ERR_ARG, "empty JOBID");
    CHECK(scr_dataset_set_ckpt(d, -1) == SCR_ERR_ARG, "CKPT -1");
    CHECK(scr_dataset_set_files(d, -1) == SCR_ERR_ARG, "FILES -1");
    CHECK(scr_dataset_set_complete(d, 2) == SCR_ERR_ARG, "COMPLETE 2");
    CHECK(scr_dataset_set_size(NULL, 1) == SCR_ERR_ARG, "NULL descriptor");
    scr_log_set_quiet(0);
    CHECK(scr_kvtree_size(d) == 0, "a refused setter changed the descriptor");
    scr_dataset_delete(d);
}

static void test_validate_names_file_key_and_text(void)
{
    scr_dataset *d = sample_dataset();
    REQUIRE(d != NULL, "setters failed");
    scr_kvtree_util_set_int(d, "FLAGS", 12);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_dataset_validate(d, "summary.scr", "DSET") == SCR_ERR_FORMAT, "FLAGS 12 accepted");
    scr_log_set_quiet(0);
    CHECK(strcmp(scr_last_error(), "summary.scr: key DSET FLAGS holds '12', expected flags 0 "
                                   "to 3 (1 checkpoint, 2 output)") == 0,
          "message '%s'", scr_last_error());
    scr_dataset_set_flags(d, 3);
    scr_kvtree_util_set_str(d, "CREATED", "yesterday");
    scr_log_set_quiet(1);
    CHECK(scr_dataset_validate(d, "f.scr", NULL) == SCR_ERR_FORMAT, "CREATED text accepted");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "f.scr: key CREATED holds 'yesterday'") != NULL, "'%s'",
          scr_last_error());
    scr_dataset_set_created(d, 0);
    scr_kvtree_util_set_str(d, "FUTURE", "kept");
    CHECK(scr_dataset_validate(d, "f.scr", NULL) == SCR_SUCCESS, "unknown keys are kept");
    scr_dataset_delete(d);
}

/* CLUSTER (SCR_CLUSTER_NAME) is one more optional text key: set, read back,
 * refused empty, and a descriptor without it still valid. */
static void test_cluster_is_an_optional_text_key(void)
{
    scr_dataset *d = sample_dataset();
    REQUIRE(d != NULL, "setters failed");
    const char *s = NULL;
    CHECK(scr_dataset_get_cluster(d, &s) == SCR_ERR_NOTFOUND, "a cluster without setting one");
    CHECK(scr_dataset_validate(d, "f.scr", NULL) == SCR_SUCCESS, "valid without CLUSTER");
    CHECK(scr_dataset_set_cluster(d, "quartz") == SCR_SUCCESS, "set CLUSTER");
    CHECK(scr_dataset_get_cluster(d, &s) == SCR_SUCCESS && strcmp(s, "quartz") == 0,
          "CLUSTER read back");
    CHECK(scr_kvtree_get_kv(d, "CLUSTER", "quartz") != NULL, "stored under the key CLUSTER");
    scr_log_set_quiet(1);
    CHECK(scr_dataset_set_cluster(d, "") == SCR_ERR_ARG, "empty CLUSTER accepted");
    scr_kvtree_util_set_int(d, "CLUSTER", 5);
    scr_kvtree_util_set_str(d, "CLUSTER", "");
    CHECK(scr_dataset_validate(d, "f.scr", NULL) == SCR_ERR_FORMAT, "an empty CLUSTER validated");
    scr_log_set_quiet(0);
    scr_dataset_delete(d);
}

static void test_copy_is_exact_and_independent(void)
{
    scr_dataset *src = sample_dataset();
    scr_dataset *dst = scr_dataset_new();
    REQUIRE(src != NULL && dst != NULL, "setup");
    scr_dataset_set_jobid(dst, "stale");
    CHECK(scr_dataset_copy(dst, src) == SCR_SUCCESS && scr_kvtree_equal(dst, src), "copy");
    scr_dataset_set_id(dst, 7);
    int id = 0;
    CHECK(scr_dataset_get_id(src, &id) == 0 && id == 6, "source changed");
    CHECK(scr_dataset_copy(NULL, src) == SCR_ERR_ARG, "NULL destination");
    scr_dataset_delete(src);
    scr_dataset_delete(dst);
}

int main(void)
{
    RUN(test_descriptor_built_by_setters_matches_independent_golden);
    RUN(test_golden_descriptor_reads_back_through_getters);
    RUN(test_flags_say_checkpoint_output_or_both);
    RUN(test_getters_tell_missing_from_wrong_type_without_logging);
    RUN(test_setters_refuse_what_a_reader_would_refuse);
    RUN(test_validate_names_file_key_and_text);
    RUN(test_copy_is_exact_and_independent);
    RUN(test_cluster_is_an_optional_text_key);
    return tap_done();
}
