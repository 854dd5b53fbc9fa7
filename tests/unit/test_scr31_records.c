/* test_scr31_records.c — the records SCR 3.1 leaves on a prefix, read by this
 * build: its flush, halt and nodes files, its summary (VERSION 6 with COMPLETE),
 * its index (NAME map, per-entry DSET), its rank2file tree, and the summary a
 * restart makes of them; damage to each is refused naming the file and fault.
 * The goldens in tests/data/scr31/ are dataset 4 and the .scr files of
 * tests/data/scr31-prefix-xor4.tar.gz, as SCR 3.1 wrote them. */
#include "tap.h"

#include "dataset.h"
#include "flush_file.h"
#include "halt_file.h"
#include "index_file.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "nodes_file.h"
#include "rank2file.h"
#include "scan_scr31.h"
#include "scr_err.h"
#include "summary.h"
#include "util_log.h"

#include <fcntl.h>
#include <sys/stat.h>

/* --- the control and prefix files ------------------------------------------------ */

static void test_scr31_flush_file_reads_as_this_builds_entry(void)
{
    scr_kvtree *f = scr_kvtree_new();
    REQUIRE(scr_flush_file_read(tap_data("scr31/flush.scr"), f) == SCR_SUCCESS, "read: %s",
            scr_last_error());
    int flag = -1, ckpt = -1;
    const char *name = NULL;
    CHECK(scr_flush_file_has_location(f, 4, SCR_FLUSH_LOCATION_PFS, &flag) == 0 && flag == 1,
          "PFS");
    CHECK(scr_flush_file_has_location(f, 4, SCR_FLUSH_LOCATION_CACHE, &flag) == 0 && flag == 1,
          "CACHE");
    CHECK(scr_flush_file_get_name(f, 4, &name) == 0 && strcmp(name, "ckpt.4") == 0, "name");
    /* SCR 3.1's CKPT 1 is a flag; the id comes from its descriptor */
    CHECK(scr_flush_file_get_checkpoint_id(f, 4, &ckpt) == 0 && ckpt == 4, "ckpt id %d", ckpt);
    CHECK(scr_flush_file_is_output(f, 4, &flag) == 0 && flag == 0, "not output");
    CHECK(scr_kvtree_get(f, "DATASET") == NULL, "SCR 3.1's key left in the tree");
    scr_kvtree_delete(f);
}

static void test_scr31_flush_file_with_a_bad_flag_is_refused(void)
{
    scr_kvtree *t = scr_kvtree_new();
    REQUIRE(scr_kvtree_read_file(tap_data("scr31/flush.scr"), t) == SCR_SUCCESS, "read raw");
    scr_kvtree_util_set_str(scr_kvtree_get_kv(t, "DATASET", "4"), "CKPT", "yes");
    const char *path = tap_path("flush-bad.scr");
    REQUIRE(scr_kvtree_write_file(path, t) == SCR_SUCCESS, "write");
    scr_kvtree *f = scr_kvtree_new();
    scr_log_set_quiet(1);
    CHECK(scr_flush_file_read(path, f) == SCR_ERR_FORMAT, "accepted");
    CHECK(strstr(scr_last_error(), "key DATASET 4 CKPT holds 'yes'") != NULL, "'%s'",
          scr_last_error());
    scr_log_set_quiet(0);
    scr_kvtree_delete(f);
    scr_kvtree_delete(t);
}

static void test_scr31_halt_and_nodes_files_read(void)
{
    scr_kvtree *h = scr_kvtree_new(), *n = scr_kvtree_new();
    const char *reason = NULL;
    int nodes = 0;
    CHECK(scr_halt_file_read(tap_data("scr31/halt.scr"), h) == SCR_SUCCESS, "halt: %s",
          scr_last_error());
    CHECK(scr_halt_file_get_exit_reason(h, &reason) == 0 &&
              strcmp(reason, "SCR_FINALIZE_CALLED") == 0,
          "reason");
    CHECK(scr_nodes_file_read(tap_data("scr31/nodes.scr"), n) == SCR_SUCCESS, "nodes: %s",
          scr_last_error());
    CHECK(scr_nodes_file_get_nodes(n, &nodes) == 0 && nodes == 4, "nodes %d", nodes);
    scr_kvtree_delete(h);
    scr_kvtree_delete(n);
}

static void test_scr31_summary_reads_and_lists_no_files(void)
{
    scr_kvtree *s = scr_kvtree_new();
    const scr_dataset *desc = NULL;
    REQUIRE(scr_summary_read(tap_data("scr31/summary.scr"), s) == SCR_SUCCESS, "read: %s",
            scr_last_error());
    CHECK(scr_summary_get_dataset(s, &desc) == 0 && scr_dataset_is_checkpoint(desc) &&
              !scr_dataset_is_output(desc),
          "a checkpoint by FLAG_CKPT");
    CHECK(scr_scan_scr31_is_bare_summary(s), "lists files");
    scr_kvtree_delete(s);
}

static void test_dataset_flags_come_from_scr31s_keys(void)
{
    scr_dataset *d = scr_dataset_new();
    int flags = -1;
    scr_kvtree_util_set_int(d, "FLAG_CKPT", 0);
    scr_kvtree_util_set_int(d, "FLAG_OUTPUT", 1);
    CHECK(scr_dataset_get_flags(d, &flags) == 0 && flags == SCR_DATASET_FLAG_OUTPUT, "flags %d",
          flags);
    CHECK(!scr_dataset_is_checkpoint(d) && scr_dataset_is_output(d), "output, not checkpoint");
    scr_kvtree_util_set_str(d, "FLAG_CKPT", "2");
    CHECK(scr_dataset_get_flags(d, &flags) == SCR_ERR_TYPE, "a bad flag is a type error");
    scr_log_set_quiet(1);
    CHECK(scr_dataset_validate(d, "f", "DSET") == SCR_ERR_FORMAT, "validated");
    CHECK(strstr(scr_last_error(), "key DSET FLAG_CKPT holds '2'") != NULL, "'%s'",
          scr_last_error());
    scr_log_set_quiet(0);
    scr_dataset_delete(d);
}

/* --- the index ------------------------------------------------------------------ */

static void test_scr31_index_reads_with_names_and_descriptors(void)
{
    scr_kvtree *idx = scr_kvtree_new();
    REQUIRE(scr_index_file_read(tap_data("scr31/index.scr"), idx) == SCR_SUCCESS, "read: %s",
            scr_last_error());
    int id = 0;
    const char *name = NULL;
    const scr_dataset *desc = NULL;
    CHECK(scr_index_file_lookup_id(idx, "ckpt.3", &id) == 0 && id == 3, "lookup %d", id);
    CHECK(scr_index_file_get_name(idx, 2, &name) == 0 && strcmp(name, "ckpt.2") == 0, "name");
    CHECK(scr_index_file_get_dataset(idx, 4, &desc) == 0 && scr_dataset_is_checkpoint(desc),
          "descriptor");
    CHECK(scr_index_file_restart_candidate(idx, &id) == 0 && id == 4, "candidate %d", id);
    scr_kvtree_delete(idx);
}

static void test_index_changes_keep_the_name_map_in_step(void)
{
    const char *path = tap_path("index.scr");
    scr_kvtree *raw = scr_kvtree_new(), *idx = scr_kvtree_new(), *back = scr_kvtree_new();
    REQUIRE(scr_kvtree_read_file(tap_data("scr31/index.scr"), raw) == SCR_SUCCESS, "raw");
    REQUIRE(scr_kvtree_write_file(path, raw) == SCR_SUCCESS, "copy");
    int fd = -1;
    REQUIRE(scr_index_file_lock_read(path, &fd, idx) == SCR_SUCCESS, "lock");
    scr_dataset *d = scr_dataset_new();
    scr_dataset_set_id(d, 5);
    scr_dataset_set_name(d, "ckpt.5");
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    scr_dataset_set_ckpt(d, 5);
    CHECK(scr_index_file_set_dataset(idx, d, 1) == SCR_SUCCESS, "add");
    scr_dataset_set_name(d, "ckpt.5b");
    CHECK(scr_index_file_set_dataset(idx, d, 1) == SCR_SUCCESS, "rename");
    CHECK(scr_index_file_remove(idx, 2) == SCR_SUCCESS, "remove");
    REQUIRE(scr_index_file_write_unlock(path, &fd, idx) == SCR_SUCCESS, "write: %s",
            scr_last_error());
    REQUIRE(scr_kvtree_read_file(path, back) == SCR_SUCCESS, "read back");
    const scr_kvtree *names = scr_kvtree_get(back, "NAME");
    CHECK(scr_kvtree_get_kv(scr_kvtree_get(names, "ckpt.5b"), "DSET", "5") != NULL,
          "new name mapped");
    CHECK(scr_kvtree_get(names, "ckpt.5") == NULL, "old name kept");
    CHECK(scr_kvtree_get(names, "ckpt.2") == NULL, "removed name kept");
    CHECK(scr_kvtree_get_kv(scr_kvtree_get(names, "ckpt.4"), "DSET", "4") != NULL,
          "SCR 3.1's name lost");
    const scr_kvtree *e5 = scr_kvtree_get_kv(back, "DSET", "5");
    CHECK(scr_kvtree_get_kv(scr_kvtree_get(e5, "DSET"), "FLAG_CKPT", "1") != NULL,
          "SCR 3.1's descriptor of 5");
    CHECK(scr_kvtree_get_kv(scr_kvtree_get(e5, "DSET"), "NAME", "ckpt.5b") != NULL,
          "descriptor renamed");
    scr_dataset_delete(d);
    scr_kvtree_delete(raw);
    scr_kvtree_delete(idx);
    scr_kvtree_delete(back);
}

static void test_an_index_without_the_map_gets_none(void)
{
    scr_kvtree *idx = scr_kvtree_new();
    scr_dataset *d = scr_dataset_new();
    scr_dataset_set_id(d, 1);
    scr_dataset_set_name(d, "ckpt.1");
    CHECK(scr_index_file_set_dataset(idx, d, 1) == SCR_SUCCESS, "add");
    CHECK(scr_kvtree_get(idx, "NAME") == NULL, "a name map appeared");
    CHECK(scr_kvtree_get(scr_kvtree_get_kv(idx, "DSET", "1"), "DSET") == NULL,
          "an SCR 3.1 descriptor appeared");
    scr_dataset_delete(d);
    scr_kvtree_delete(idx);
}

/* --- rank2file ------------------------------------------------------------------- */

/* dsdir: <tmp>/NAME/prefix/.scr/scr.dataset.4 with the golden rank2file pair,
 * and the four files of ckpt.4 of 4103 + r bytes in the prefix. */
static const char *make_dataset(const char *name)
{
    static char dsdir[4096];
    char cmd[65536];
    snprintf(dsdir, sizeof(dsdir), "%s/%s/prefix/.scr/scr.dataset.4", tap_tmpdir(), name);
    snprintf(cmd, sizeof(cmd),
             "mkdir -p '%s' '%s/../../ckpt.4' && cp '%s' '%s' '%s' '%s/' && "
             "for r in 0 1 2 3; do head -c $((4103 + r)) /dev/zero > "
             "'%s/../../ckpt.4/rank_'$r.ckpt; done",
             dsdir, dsdir, tap_data("scr31/rank2file"), tap_data("scr31/rank2file.0.0"),
             tap_data("scr31/summary.scr"), dsdir, dsdir);
    if (system(cmd) != 0) return NULL;
    return dsdir;
}

static void test_rank2file_lists_every_rank_relative_to_the_prefix(void)
{
    const char *dsdir = make_dataset("good");
    REQUIRE(dsdir != NULL, "set-up");
    scr_kvtree *files = NULL;
    int ranks = 0;
    REQUIRE(scr_rank2file_read(dsdir, &ranks, &files) == SCR_SUCCESS, "read: %s", scr_last_error());
    CHECK(ranks == 4, "ranks %d", ranks);
    for (int r = 0; r < 4; r++) {
        char want[64];
        snprintf(want, sizeof(want), "ckpt.4/rank_%d.ckpt", r);
        CHECK(scr_kvtree_get_kv(scr_kvtree_get_kv_int(files, "RANK", r), "FILE", want) != NULL,
              "rank %d", r);
    }
    scr_kvtree_delete(files);
}

/* Read the part of a fresh dataset after edit changed it; the error logged. */
static const char *part_refused(const char *name, void (*edit)(scr_kvtree *part), int *out_rc)
{
    const char *dsdir = make_dataset(name);
    char path[4200];
    snprintf(path, sizeof(path), "%s/rank2file.0.0", dsdir ? dsdir : "");
    scr_kvtree *part = scr_kvtree_new(), *files = NULL;
    int ranks;
    *out_rc = -1;
    if (dsdir == NULL || scr_kvtree_read_file(path, part) != SCR_SUCCESS) return "set-up failed";
    edit(part);
    if (scr_kvtree_write_file(path, part) != SCR_SUCCESS) return "write failed";
    scr_kvtree_delete(part);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    *out_rc = scr_rank2file_read(dsdir, &ranks, &files);
    scr_log_set_quiet(0);
    scr_kvtree_delete(files);
    return scr_last_error();
}

static void edit_escape(scr_kvtree *p)
{
    scr_kvtree_set_kv(scr_kvtree_set_kv(p, "RANK", "1"), "FILE", "ckpt.4/../../x");
}
static void edit_absolute(scr_kvtree *p)
{
    scr_kvtree_set_kv(scr_kvtree_set_kv(p, "RANK", "2"), "FILE", "/etc/passwd");
}
static void edit_drop_rank(scr_kvtree *p)
{
    scr_kvtree_unset(scr_kvtree_get(p, "RANK"), "3");
}
static void edit_rank_beyond(scr_kvtree *p)
{
    scr_kvtree_set_kv(scr_kvtree_set_kv(p, "RANK", "4"), "FILE", "a");
}
static void edit_ranks(scr_kvtree *p)
{
    scr_kvtree_util_set_int(p, "RANKS", 8);
}
static void edit_level(scr_kvtree *p)
{
    scr_kvtree_util_set_int(p, "LEVEL", 1);
}

static void test_damaged_rank2file_is_refused_naming_what(void)
{
    static const struct {
        const char *name;
        void (*edit)(scr_kvtree *);
        const char *says;
    } cases[] = {
        {"escape", edit_escape,
         "'ckpt.4/../../x', expected paths relative to the prefix that stay inside it"},
        {"absolute", edit_absolute, "'/etc/passwd'"},
        {"drop", edit_drop_rank, "rank 3 of 4 is not listed"},
        {"beyond", edit_rank_beyond, "key RANK holds '4', expected ranks 0 to 3"},
        {"ranks", edit_ranks, "rank2file.0.0: key RANKS holds '8', expected 4, as in rank2file"},
        {"level", edit_level, "key LEVEL holds '1', expected the level of this part"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc;
        const char *err = part_refused(cases[i].name, cases[i].edit, &rc);
        CHECK(rc == SCR_ERR_FORMAT && strstr(err, cases[i].says) != NULL, "%s: rc %d, '%s'",
              cases[i].name, rc, err);
    }
}

static void test_a_missing_part_is_refused_and_a_missing_map_is_notfound(void)
{
    const char *dsdir = make_dataset("nopart");
    REQUIRE(dsdir != NULL, "set-up");
    char path[4200];
    scr_kvtree *files = NULL;
    int ranks;
    snprintf(path, sizeof(path), "%s/rank2file.0.0", dsdir);
    unlink(path);
    scr_log_set_quiet(1);
    CHECK(scr_rank2file_read(dsdir, &ranks, &files) == SCR_ERR_FORMAT, "missing part accepted");
    CHECK(strstr(scr_last_error(), "rank2file.0.0: a part of the rank2file") != NULL, "'%s'",
          scr_last_error());
    snprintf(path, sizeof(path), "%s/rank2file", dsdir);
    unlink(path);
    scr_clear_last_error();
    CHECK(scr_rank2file_read(dsdir, &ranks, &files) == SCR_ERR_NOTFOUND, "missing map");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_log_set_quiet(0);
}

/* --- the summary a restart makes ----------------------------------------------------- */

static void test_summary_is_completed_with_sizes_from_the_prefix(void)
{
    const char *dsdir = make_dataset("complete");
    REQUIRE(dsdir != NULL, "set-up");
    char path[4200];
    snprintf(path, sizeof(path), "%s/summary.scr", dsdir);
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(path, s) == SCR_SUCCESS, "read");
    REQUIRE(scr_scan_scr31_complete_summary(dsdir, s) == SCR_SUCCESS, "complete: %s",
            scr_last_error());
    int ranks = 0;
    uint64_t size = 0;
    uint32_t crc;
    CHECK(scr_summary_get_ranks(s, &ranks) == 0 && ranks == 4, "ranks %d", ranks);
    CHECK(scr_summary_get_file_size(s, 3, "../../ckpt.4/rank_3.ckpt", &size) == 0 && size == 4106,
          "size %llu", (unsigned long long)size);
    CHECK(scr_summary_get_file_crc(s, 3, "../../ckpt.4/rank_3.ckpt", &crc) == SCR_ERR_NOTFOUND,
          "a CRC appeared");
    scr_kvtree_delete(s);
}

static void test_a_truncated_or_missing_file_fails_the_completion(void)
{
    const char *dsdir = make_dataset("short");
    REQUIRE(dsdir != NULL, "set-up");
    char path[4200], file[4200];
    snprintf(path, sizeof(path), "%s/summary.scr", dsdir);
    snprintf(file, sizeof(file), "%s/../../ckpt.4/rank_1.ckpt", dsdir);
    REQUIRE(truncate(file, 4000) == 0, "truncate");
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(path, s) == SCR_SUCCESS, "read");
    scr_log_set_quiet(1);
    CHECK(scr_scan_scr31_complete_summary(dsdir, s) == SCR_ERR_FORMAT, "truncation accepted");
    CHECK(strstr(scr_last_error(),
                 "hold 16314 bytes on the prefix, its summary's descriptor records SIZE 16418") !=
              NULL,
          "'%s'", scr_last_error());
    CHECK(scr_scan_scr31_is_bare_summary(s), "summary changed after a failure");
    REQUIRE(unlink(file) == 0, "unlink");
    CHECK(scr_scan_scr31_complete_summary(dsdir, s) == SCR_ERR_FORMAT, "missing file accepted");
    CHECK(strstr(scr_last_error(),
                 "rank_1.ckpt of rank 1, listed in its rank2file, cannot be read") != NULL,
          "'%s'", scr_last_error());
    scr_log_set_quiet(0);
    scr_kvtree_delete(s);
}

static void test_without_a_recorded_size_or_count_the_files_are_accepted_unverified(void)
{
    const char *dsdir = make_dataset("unverified");
    REQUIRE(dsdir != NULL, "set-up");
    char path[4200];
    snprintf(path, sizeof(path), "%s/summary.scr", dsdir);
    scr_kvtree *s = scr_kvtree_new();
    REQUIRE(scr_summary_read(path, s) == SCR_SUCCESS, "read");
    scr_kvtree *desc = scr_kvtree_get(s, "DSET");
    scr_kvtree_unset(desc, "SIZE");
    scr_kvtree_unset(desc, "FILES");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_scan_scr31_complete_summary(dsdir, s) == SCR_SUCCESS, "refused: %s",
          scr_last_error());
    scr_log_set_quiet(0);
    int ranks = 0;
    CHECK(scr_summary_get_ranks(s, &ranks) == 0 && ranks == 4, "ranks %d", ranks);
    scr_kvtree_delete(s);
}

int main(void)
{
    RUN(test_scr31_flush_file_reads_as_this_builds_entry);
    RUN(test_scr31_flush_file_with_a_bad_flag_is_refused);
    RUN(test_scr31_halt_and_nodes_files_read);
    RUN(test_scr31_summary_reads_and_lists_no_files);
    RUN(test_dataset_flags_come_from_scr31s_keys);
    RUN(test_scr31_index_reads_with_names_and_descriptors);
    RUN(test_index_changes_keep_the_name_map_in_step);
    RUN(test_an_index_without_the_map_gets_none);
    RUN(test_rank2file_lists_every_rank_relative_to_the_prefix);
    RUN(test_damaged_rank2file_is_refused_naming_what);
    RUN(test_a_missing_part_is_refused_and_a_missing_map_is_notfound);
    RUN(test_summary_is_completed_with_sizes_from_the_prefix);
    RUN(test_a_truncated_or_missing_file_fails_the_completion);
    RUN(test_without_a_recorded_size_or_count_the_files_are_accepted_unverified);
    return tap_done();
}
