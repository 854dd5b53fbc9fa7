/* test_rank_filemap.c — <rank>.scrfilemap: built from the cache filemap, golden
 * bytes, the scanner's view, older layout, damage. */
#include "tap.h"
#include "record_test.h"

#include "filemap.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "util_log.h"

#define DSETDIR "/p/lscratchb/user1/simulation123/.scr/scr.dataset.6"
#define APP_REL "../../ckpt.6/rank_2.ckpt"
#define XOR_REL "3_of_4_in_0.xor"

/* The cache filemap of tests/data/records/filemap.scr. */
static scr_filemap *cache_filemap(void)
{
    scr_filemap *map = scr_filemap_new();
    if (scr_filemap_read(tap_data("records/filemap.scr"), map) != SCR_SUCCESS) {
        scr_filemap_delete(map);
        return NULL;
    }
    return map;
}

static void test_rank_filemap_built_from_cache_entry_matches_golden(void)
{
    scr_filemap *map = cache_filemap(), *rmap = NULL;
    REQUIRE(map != NULL, "cache filemap golden");
    REQUIRE(scr_rank_filemap_build(map, 6, 2, DSETDIR, &rmap) == SCR_SUCCESS, "build");
    const char *path = tap_path("2.scrfilemap");
    CHECK(scr_rank_filemap_write(path, rmap) == SCR_SUCCESS, "write");
    check_same_bytes(path, tap_data("records/rank_filemap.scr"));
    const scr_kvtree *red = NULL;
    CHECK(scr_filemap_get_reddesc(rmap, 6, 2, &red) == SCR_ERR_NOTFOUND, "REDDESC copied");
    scr_filemap_delete(rmap);
    scr_filemap_delete(map);
}

static void test_scanner_lists_files_with_meta_from_golden(void)
{
    scr_filemap *rmap = scr_filemap_new();
    REQUIRE(scr_rank_filemap_read(tap_data("records/rank_filemap.scr"), rmap) == SCR_SUCCESS,
            "read golden");
    struct scr_rank_filemap_file *files = NULL;
    int count = -1, expected = -1;
    REQUIRE(scr_rank_filemap_list_files(rmap, 6, 2, &files, &count) == SCR_SUCCESS, "list");
    REQUIRE(count == 2, "%d files", count);
    CHECK(strcmp(files[0].name, APP_REL) == 0, "first %s", files[0].name);
    CHECK(strcmp(files[1].name, XOR_REL) == 0, "second %s", files[1].name);
    uint64_t size = 0;
    CHECK(files[0].meta && scr_meta_get_filesize(files[0].meta, &size) == 0 && size == 524296,
          "size of the application file");
    CHECK(scr_meta_check_filename(files[0].meta, APP_REL) == SCR_SUCCESS, "meta FILE");
    CHECK(scr_meta_check_crc32(files[1].meta, 0x2ef519a1u) == SCR_SUCCESS, "crc of XOR file");
    CHECK(scr_meta_check_filetype(files[1].meta, "XOR") == SCR_SUCCESS, "type of XOR file");
    free(files);
    CHECK(scr_filemap_get_expected_files(rmap, 6, 2, &expected) == 0 && expected == 2, "FILES %d",
          expected);
    const scr_dataset *desc = NULL;
    CHECK(scr_filemap_get_dataset(rmap, 6, 2, &desc) == 0 && scr_dataset_is_checkpoint(desc),
          "descriptor");
    char *where = NULL;
    CHECK(scr_rank_filemap_file_path(DSETDIR, APP_REL, "2.scrfilemap", &where) == SCR_SUCCESS &&
              strcmp(where, "/p/lscratchb/user1/simulation123/ckpt.6/rank_2.ckpt") == 0,
          "application file resolves to %s", where ? where : "(null)");
    free(where);
    CHECK(scr_rank_filemap_file_path(DSETDIR, XOR_REL, "2.scrfilemap", &where) == SCR_SUCCESS &&
              strcmp(where, DSETDIR "/" XOR_REL) == 0,
          "XOR file resolves to %s", where ? where : "(null)");
    free(where);
    scr_filemap_delete(rmap);
}

static void test_layout_of_older_writers_without_version_reads(void)
{
    scr_filemap *rmap = scr_filemap_new();
    REQUIRE(scr_rank_filemap_read(tap_data("records/rank_filemap-noversion.scr"), rmap) ==
                SCR_SUCCESS,
            "read");
    struct scr_rank_filemap_file *files = NULL;
    int count = -1;
    REQUIRE(scr_rank_filemap_list_files(rmap, 6, 2, &files, &count) == SCR_SUCCESS, "list");
    CHECK(count == 2 && strcmp(files[0].name, XOR_REL) == 0 &&
              strcmp(files[1].name, "rank_2.ckpt") == 0,
          "files");
    CHECK(count == 2 && scr_meta_check_filesize(files[1].meta, 524296) == SCR_SUCCESS, "size");
    free(files);
    const scr_dataset *desc = NULL;
    const char *jobid = NULL;
    CHECK(scr_filemap_get_dataset(rmap, 6, 2, &desc) == 0 &&
              scr_dataset_get_jobid(desc, &jobid) == 0 && strcmp(jobid, "112573") == 0,
          "JOBID");
    CHECK(scr_dataset_is_checkpoint(desc), "a descriptor without FLAGS but with CKPT");
    scr_filemap_delete(rmap);
}

static void test_missing_file_is_notfound_without_a_message(void)
{
    scr_filemap *rmap = scr_filemap_new();
    scr_clear_last_error();
    CHECK(scr_rank_filemap_read(tap_path("7.scrfilemap"), rmap) == SCR_ERR_NOTFOUND, "rc");
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
    scr_filemap_delete(rmap);
}

/* The golden rank filemap edited by edit: expect SCR_ERR_FORMAT and a
 * message with the file and want. */
static void expect_refused(const char *name, void (*edit)(scr_kvtree *), const char *want)
{
    const char *path = write_edited_golden("records/rank_filemap.scr", name, edit);
    if (path == NULL) return;
    scr_filemap *rmap = scr_filemap_new();
    int rc = quiet_read(scr_rank_filemap_read, path, rmap);
    check_refused(name, rc, path, want);
    CHECK(scr_kvtree_size(rmap) == 0, "%s: map changed", name);
    scr_filemap_delete(rmap);
}

static scr_kvtree *entry(scr_kvtree *raw)
{
    return scr_kvtree_getf(raw, "RANK 2 DSET 6");
}
static void edit_newer_version(scr_kvtree *raw)
{
    scr_kvtree_util_set_int(raw, "VERSION", 3);
}
static void edit_reddesc(scr_kvtree *raw)
{
    scr_kvtree_setf(entry(raw), NULL, "REDDESC TYPE XOR");
}
static void edit_tag(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(entry(raw), "PARTNER", "n1");
}
static void edit_absolute(scr_kvtree *raw)
{
    scr_kvtree_set_kv(entry(raw), "FILE", "/abs/f");
}
static void edit_meta_crc(scr_kvtree *raw)
{
    scr_kvtree_util_set_str(scr_kvtree_getf(entry(raw), "FILE %s META", XOR_REL), "CRC", "0x");
}

static void test_newer_version_is_refused(void)
{
    expect_refused("v3.scrfilemap", edit_newer_version, "rank filemap version 3");
}

static void test_cache_specific_or_damaged_content_is_refused(void)
{
    expect_refused("reddesc.scrfilemap", edit_reddesc, "key RANK 2 DSET 6 holds 'REDDESC'");
    expect_refused("tag.scrfilemap", edit_tag, "key RANK 2 DSET 6 holds 'PARTNER'");
    expect_refused("absolute.scrfilemap", edit_absolute,
                   "key RANK 2 DSET 6 FILE holds '/abs/f', expected paths relative");
    expect_refused("crc.scrfilemap", edit_meta_crc,
                   "key RANK 2 DSET 6 FILE " XOR_REL " META CRC holds '0x'");
}

static void test_build_places_files_where_the_copy_puts_them(void)
{
    scr_filemap *map = scr_filemap_new(), *rmap = NULL;
    scr_meta *app = scr_meta_new(), *red = scr_meta_new();
    scr_meta_set_origpath(app, "/p/run/out");
    scr_meta_set_origname(app, "a.dat");
    scr_meta_set_filename(app, "a.dat");
    scr_meta_set_filetype(red, SCR_META_TYPE_PARTNER);
    scr_filemap_set_meta(map, 3, 1, "/cache/ds3/a.dat", app);
    scr_filemap_set_meta(map, 3, 1, "/cache/ds3/partner/a.dat.partner", red);
    scr_filemap_add_file(map, 3, 1, "/cache/ds3/nometa");
    scr_filemap_set_tag(map, 3, 1, "PARTNER", "node2");
    REQUIRE(scr_rank_filemap_build(map, 3, 1, "/p/run", &rmap) == SCR_SUCCESS, "build");
    const char **names = NULL;
    int count = 0;
    REQUIRE(scr_filemap_list_files(rmap, 3, 1, &names, &count) == 0, "list");
    CHECK(count == 3 && strcmp(names[0], "a.dat.partner") == 0 && strcmp(names[1], "nometa") == 0 &&
              strcmp(names[2], "out/a.dat") == 0,
          "names %s %s %s", count > 0 ? names[0] : "", count > 1 ? names[1] : "",
          count > 2 ? names[2] : "");
    free(names);
    const scr_meta *m = NULL;
    CHECK(scr_filemap_get_meta(rmap, 3, 1, "out/a.dat", &m) == 0 &&
              scr_meta_check_filename(m, "out/a.dat") == SCR_SUCCESS,
          "FILE set to relative name");
    CHECK(scr_filemap_get_meta(rmap, 3, 1, "nometa", &m) == SCR_ERR_NOTFOUND, "meta invented");
    const char *tag;
    CHECK(scr_filemap_get_tag(rmap, 3, 1, "PARTNER", &tag) == SCR_ERR_NOTFOUND, "tag copied");
    CHECK(scr_rank_filemap_write(tap_path("1.scrfilemap"), rmap) == SCR_SUCCESS,
          "built rank filemap is not valid");
    scr_filemap_delete(rmap);

    /* an entry of cache-only data gives an empty rank filemap */
    scr_filemap_set_tag(map, 4, 1, "PARTNER", "node2");
    CHECK(scr_rank_filemap_build(map, 4, 1, "/p/run", &rmap) == SCR_SUCCESS &&
              scr_kvtree_size(rmap) == 0,
          "cache-only entry");
    scr_filemap_delete(rmap);
    scr_meta_delete(app);
    scr_meta_delete(red);
    scr_filemap_delete(map);
}

static void test_build_refuses_what_it_cannot_represent(void)
{
    scr_filemap *map = scr_filemap_new(), *rmap = NULL;
    scr_filemap_add_file(map, 3, 1, "/cache/a/x.xor");
    scr_filemap_add_file(map, 3, 1, "/cache/b/x.xor");
    CHECK(scr_rank_filemap_build(map, 3, 2, "/p/run", &rmap) == SCR_ERR_NOTFOUND, "absent rank");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_rank_filemap_build(map, 3, 1, "relative/dir", &rmap) == SCR_ERR_ARG, "relative");
    CHECK(strstr(scr_last_error(), "relative/dir") != NULL, "'%s'", scr_last_error());
    CHECK(scr_rank_filemap_build(map, 3, 1, "/p/run", &rmap) == SCR_ERR_ARG, "same name twice");
    CHECK(strstr(scr_last_error(), "/p/run/x.xor") != NULL, "'%s'", scr_last_error());
    CHECK(scr_rank_filemap_build(map, 3, 1, "/p/run", NULL) == SCR_ERR_ARG, "NULL result");
    CHECK(scr_rank_filemap_file_path("/p/run", "/etc/passwd", "0.scrfilemap", &(char *){NULL}) ==
              SCR_ERR_FORMAT,
          "absolute name");
    scr_log_set_quiet(0);
    scr_filemap_delete(map);
}

static void test_a_name_leading_outside_the_prefix_is_refused_naming_the_record(void)
{
    char *where = NULL;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_rank_filemap_file_path("/p/.scr/scr.dataset.6", "../../../etc/passwd",
                                     "/p/.scr/scr.dataset.6/3.scrfilemap",
                                     &where) == SCR_ERR_FORMAT &&
              where == NULL,
          "a name climbing above the prefix was taken: %s", where ? where : "(null)");
    CHECK(strstr(scr_last_error(), "/p/.scr/scr.dataset.6/3.scrfilemap") != NULL &&
              strstr(scr_last_error(), "/etc/passwd") != NULL,
          "the message names neither the record nor the path: '%s'", scr_last_error());
    CHECK(scr_rank_filemap_file_path("/p/.scr/scr.dataset.6", "../../a/../../q/x", "r", &where) ==
              SCR_ERR_FORMAT,
          "a name that leaves the prefix through .. was taken");
    CHECK(scr_rank_filemap_file_path("/p/.scr/scr.dataset.6", "../../ckpt/../q/x", "r", &where) ==
                  SCR_SUCCESS &&
              strcmp(where, "/p/q/x") == 0,
          "a name inside the prefix after .. resolves to %s", where ? where : "(null)");
    free(where);
    scr_log_set_quiet(0);
}

static void test_a_name_leading_into_other_records_is_refused_naming_the_record(void)
{
    const char *dir = "/p/.scr/scr.dataset.5", *record = "/p/.scr/scr.dataset.5/summary.scr";
    static const char *const refused[] = {"../index.scr", "../scr.dataset.7/x",
                                          "../scr.dataset.5x/y", ".."};
    char *where = NULL;
    scr_log_set_quiet(1);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        scr_clear_last_error();
        CHECK(scr_rank_filemap_file_path(dir, refused[i], record, &where) == SCR_ERR_FORMAT &&
                  where == NULL,
              "'%s' leads into the records of the prefix and was taken: %s", refused[i],
              where ? where : "(null)");
        free(where);
        where = NULL;
        CHECK(strstr(scr_last_error(), record) != NULL &&
                  strstr(scr_last_error(), "/p/.scr") != NULL,
              "the message names neither the record nor the path: '%s'", scr_last_error());
    }
    scr_log_set_quiet(0);
    /* the dataset's own redundancy files, however named, stay readable */
    CHECK(scr_rank_filemap_file_path(dir, "../scr.dataset.5/xor.1_2.scr", record, &where) ==
                  SCR_SUCCESS &&
              strcmp(where, "/p/.scr/scr.dataset.5/xor.1_2.scr") == 0,
          "the dataset's own file resolves to %s", where ? where : "(null)");
    free(where);
}

static void test_names_of_rank_filemaps(void)
{
    char *path = NULL;
    int rank = -1;
    CHECK(scr_rank_filemap_path("/p/.scr/scr.dataset.6", 12, &path) == 0 &&
              strcmp(path, "/p/.scr/scr.dataset.6/12.scrfilemap") == 0,
          "path %s", path ? path : "(null)");
    free(path);
    CHECK(scr_rank_filemap_is_name("12.scrfilemap", &rank) && rank == 12, "12");
    CHECK(scr_rank_filemap_is_name("0.scrfilemap", &rank) && rank == 0, "0");
    CHECK(!scr_rank_filemap_is_name("012.scrfilemap", &rank), "padded");
    CHECK(!scr_rank_filemap_is_name(".scrfilemap", &rank), "no rank");
    CHECK(!scr_rank_filemap_is_name("-1.scrfilemap", &rank), "negative");
    CHECK(!scr_rank_filemap_is_name("3.scrfilemap.tmp", &rank), "other suffix");
    CHECK(!scr_rank_filemap_is_name("summary.scr", &rank), "summary");
    CHECK(!scr_rank_filemap_is_name("99999999999.scrfilemap", &rank), "too large");
    scr_log_set_quiet(1);
    CHECK(scr_rank_filemap_path("/p", -1, &path) == SCR_ERR_ARG, "rank -1");
    scr_log_set_quiet(0);
}

static void test_write_refuses_absolute_paths(void)
{
    scr_filemap *rmap = scr_filemap_new();
    scr_filemap_add_file(rmap, 2, 0, "/cache/file");
    const char *path = tap_path("0.scrfilemap");
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_rank_filemap_write(path, rmap) == SCR_ERR_TYPE, "written");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "'/cache/file'") != NULL, "'%s'", scr_last_error());
    CHECK(access(path, F_OK) != 0, "file created");
    scr_filemap_delete(rmap);
}

int main(void)
{
    RUN(test_rank_filemap_built_from_cache_entry_matches_golden);
    RUN(test_scanner_lists_files_with_meta_from_golden);
    RUN(test_layout_of_older_writers_without_version_reads);
    RUN(test_missing_file_is_notfound_without_a_message);
    RUN(test_newer_version_is_refused);
    RUN(test_cache_specific_or_damaged_content_is_refused);
    RUN(test_build_places_files_where_the_copy_puts_them);
    RUN(test_build_refuses_what_it_cannot_represent);
    RUN(test_a_name_leading_outside_the_prefix_is_refused_naming_the_record);
    RUN(test_a_name_leading_into_other_records_is_refused_naming_the_record);
    RUN(test_names_of_rank_filemaps);
    RUN(test_write_refuses_absolute_paths);
    return tap_done();
}
