/* test_dataset_view.c — a dataset's filemap entry read once: every field,
 * a snapshot that later changes of the map do not reach, absent entries. */
#include "tap.h"

#include "dataset_view.h"
#include "filemap.h"
#include "kvtree_util.h"
#include "scr_err.h"

#include <string.h>

#define CACHE "/dev/shm/user1/scr.112573/scr.dataset.6/"

/* An application file as the cache records it after a flush compressed it. */
static scr_meta *meta_app(void)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, "ckpt.6/rank_2.ckpt");
    scr_meta_set_filetype(m, SCR_META_TYPE_FULL);
    scr_meta_set_complete(m, 1);
    scr_meta_set_filesize(m, 524296);
    scr_meta_set_crc32(m, 0x738bb68fu);
    scr_meta_set_rank(m, 2);
    scr_meta_set_origname(m, "rank_2.ckpt");
    scr_meta_set_origpath(m, "/p/lscratchb/user1/simulation123/ckpt.6");
    scr_meta_set_compressed(m, 1234);
    return m;
}

/* Redundancy data not yet complete, without a CRC. */
static scr_meta *meta_xor(void)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, "3_of_4_in_0.xor");
    scr_meta_set_filetype(m, SCR_META_TYPE_XOR);
    scr_meta_set_complete(m, 0);
    scr_meta_set_filesize(m, 175693);
    return m;
}

/* Dataset 6: rank 2 holds an application file, XOR data, and a file
 * listed with no meta yet; rank 3 a file of its own; dataset 5 one file. */
static scr_filemap *sample(void)
{
    scr_filemap *map = scr_filemap_new();
    scr_meta *app = meta_app(), *xor = meta_xor();
    scr_dataset *d6 = scr_dataset_new();
    scr_kvtree *red = scr_kvtree_new();
    int rc = scr_dataset_set_id(d6, 6);
    rc |= scr_dataset_set_name(d6, "ckpt.6");
    rc |= scr_kvtree_util_set_str(red, "TYPE", "XOR");
    rc |= scr_filemap_set_dataset(map, 6, 2, d6);
    rc |= scr_filemap_set_reddesc(map, 6, 2, red);
    rc |= scr_filemap_set_expected_files(map, 6, 2, 3);
    rc |= scr_filemap_set_meta(map, 6, 2, CACHE "rank_2.ckpt", app);
    rc |= scr_filemap_set_meta(map, 6, 2, CACHE "3_of_4_in_0.xor", xor);
    rc |= scr_filemap_add_file(map, 6, 2, CACHE "new.dat");
    rc |= scr_filemap_add_file(map, 6, 3, CACHE "rank_3.ckpt");
    rc |= scr_filemap_add_file(map, 5, 2, "/dev/shm/viz_2.dat");
    scr_meta_delete(app);
    scr_meta_delete(xor);
    scr_dataset_delete(d6);
    scr_kvtree_delete(red);
    if (rc != SCR_SUCCESS) {
        scr_filemap_delete(map);
        return NULL;
    }
    return map;
}

static void test_view_has_every_field_of_the_entry(void)
{
    scr_filemap *map = sample();
    REQUIRE(map != NULL, "setters failed");
    struct scr_dataset_view *v = NULL;
    REQUIRE(scr_dataset_view_of(map, 6, 2, &v) == SCR_SUCCESS && v != NULL, "view of 6, rank 2");
    int id = 0;
    const char *name = NULL, *type = NULL;
    CHECK(v->id == 6 && v->rank == 2, "id %d rank %d", v->id, v->rank);
    CHECK(v->desc != NULL && scr_dataset_get_id(v->desc, &id) == SCR_SUCCESS && id == 6,
          "descriptor id %d", id);
    CHECK(scr_dataset_get_name(v->desc, &name) == SCR_SUCCESS && strcmp(name, "ckpt.6") == 0,
          "descriptor name %s", name ? name : "(none)");
    CHECK(v->reddesc != NULL && scr_kvtree_util_get_str(v->reddesc, "TYPE", &type) == 0 &&
              strcmp(type, "XOR") == 0,
          "redundancy descriptor");
    CHECK(v->expected_files == 3, "expected %d", v->expected_files);
    REQUIRE(v->nfiles == 3, "files %d", v->nfiles);

    /* byte order of the paths: 3_of_4..., new.dat, rank_2.ckpt */
    const struct scr_dataset_view_file *x = &v->files[0], *bare = &v->files[1], *a = &v->files[2];
    CHECK(strcmp(x->path, CACHE "3_of_4_in_0.xor") == 0, "file 0 %s", x->path);
    CHECK(strcmp(bare->path, CACHE "new.dat") == 0, "file 1 %s", bare->path);
    CHECK(strcmp(a->path, CACHE "rank_2.ckpt") == 0, "file 2 %s", a->path);

    CHECK(a->meta != NULL && scr_meta_check_rank(a->meta, 2) == SCR_SUCCESS, "app meta");
    CHECK(a->name && strcmp(a->name, "ckpt.6/rank_2.ckpt") == 0, "app name");
    CHECK(a->type && strcmp(a->type, SCR_META_TYPE_FULL) == 0, "app type");
    CHECK(a->is_app_file == 1 && a->complete == 1, "app flags %d %d", a->is_app_file, a->complete);
    CHECK(a->has_size && a->size == 524296, "app size %llu", (unsigned long long)a->size);
    CHECK(a->has_crc && a->crc == 0x738bb68fu, "app crc 0x%08x", a->crc);
    CHECK(a->compressed && a->stored_size == 1234, "app compressed %d %llu", a->compressed,
          (unsigned long long)a->stored_size);
    CHECK(a->orig_name && strcmp(a->orig_name, "rank_2.ckpt") == 0, "app orig name");
    CHECK(a->orig_path && strcmp(a->orig_path, "/p/lscratchb/user1/simulation123/ckpt.6") == 0,
          "app orig path");

    CHECK(x->name && strcmp(x->name, "3_of_4_in_0.xor") == 0, "xor name");
    CHECK(x->type && strcmp(x->type, SCR_META_TYPE_XOR) == 0, "xor type");
    CHECK(x->is_app_file == 0 && x->complete == 0, "xor flags %d %d", x->is_app_file, x->complete);
    CHECK(x->has_size && x->size == 175693, "xor size");
    CHECK(!x->has_crc && !x->compressed, "xor crc %d compressed %d", x->has_crc, x->compressed);
    CHECK(x->orig_name == NULL && x->orig_path == NULL, "xor has no original");

    /* listed before its meta is written: counts as the application's, as in cache */
    CHECK(bare->meta == NULL && bare->name == NULL && bare->type == NULL, "bare has no record");
    CHECK(bare->is_app_file == 1 && bare->complete == 0, "bare flags");
    CHECK(!bare->has_size && !bare->has_crc && !bare->compressed, "bare has no numbers");

    scr_dataset_view_free(v);

    /* an entry without descriptors or FILES */
    REQUIRE(scr_dataset_view_of(map, 6, 3, &v) == SCR_SUCCESS, "view of 6, rank 3");
    CHECK(v->desc == NULL && v->reddesc == NULL && v->expected_files == -1, "rank 3 bare entry");
    CHECK(v->nfiles == 1 && strcmp(v->files[0].path, CACHE "rank_3.ckpt") == 0, "rank 3 file");
    scr_dataset_view_free(v);
    scr_filemap_delete(map);
}

static void test_later_changes_of_the_map_do_not_reach_the_view(void)
{
    scr_filemap *map = sample();
    REQUIRE(map != NULL, "setters failed");
    struct scr_dataset_view *v = NULL;
    REQUIRE(scr_dataset_view_of(map, 6, 2, &v) == SCR_SUCCESS, "view");

    /* a copy sets a CRC, a rebuild marks a file incomplete, one goes, one comes */
    const scr_meta *stored = NULL;
    scr_meta *m = scr_meta_new();
    REQUIRE(scr_filemap_get_meta(map, 6, 2, CACHE "3_of_4_in_0.xor", &stored) == 0, "xor meta");
    scr_meta_copy(m, stored);
    scr_meta_set_crc32(m, 0xdeadbeefu);
    scr_meta_set_complete(m, 1);
    scr_meta_set_filename(m, "renamed.xor");
    CHECK(scr_filemap_set_meta(map, 6, 2, CACHE "3_of_4_in_0.xor", m) == 0, "set xor meta");
    REQUIRE(scr_filemap_get_meta(map, 6, 2, CACHE "rank_2.ckpt", &stored) == 0, "app meta");
    scr_meta_copy(m, stored);
    scr_meta_set_complete(m, 0);
    scr_meta_unset_compressed(m);
    CHECK(scr_filemap_set_meta(map, 6, 2, CACHE "rank_2.ckpt", m) == 0, "set app meta");
    scr_meta_delete(m);
    CHECK(scr_filemap_remove_file(map, 6, 2, CACHE "new.dat") == 0, "remove");
    CHECK(scr_filemap_add_file(map, 6, 2, CACHE "later.dat") == 0, "add");
    CHECK(scr_filemap_set_expected_files(map, 6, 2, 9) == 0, "expected");
    CHECK(scr_filemap_unset_dataset(map, 6, 2) == 0 && scr_filemap_unset_reddesc(map, 6, 2) == 0,
          "unset descriptors");

    CHECK(v->nfiles == 3 && v->expected_files == 3, "files %d expected %d", v->nfiles,
          v->expected_files);
    CHECK(v->desc != NULL && v->reddesc != NULL, "descriptors went with the map's");
    CHECK(!v->files[0].has_crc && v->files[0].complete == 0, "xor changed with the map");
    CHECK(strcmp(v->files[0].name, "3_of_4_in_0.xor") == 0, "xor name %s", v->files[0].name);
    CHECK(scr_meta_check_filename(v->files[0].meta, "3_of_4_in_0.xor") == SCR_SUCCESS,
          "xor record changed with the map");
    CHECK(strcmp(v->files[1].path, CACHE "new.dat") == 0, "removed file left the view");
    CHECK(v->files[2].complete == 1 && v->files[2].compressed, "app changed with the map");

    /* the map gone altogether */
    scr_filemap_delete(map);
    CHECK(strcmp(v->files[2].orig_name, "rank_2.ckpt") == 0, "view outlives the map");
    scr_dataset_view_free(v);
}

static void test_missing_dataset_or_rank_is_not_found(void)
{
    scr_filemap *map = sample();
    REQUIRE(map != NULL, "setters failed");
    struct scr_dataset_view *v = (struct scr_dataset_view *)map; /* anything but NULL */
    CHECK(scr_dataset_view_of(map, 7, 2, &v) == SCR_ERR_NOTFOUND && v == NULL, "no dataset 7");
    CHECK(scr_dataset_view_of(map, 5, 3, &v) == SCR_ERR_NOTFOUND && v == NULL, "no rank 3 in 5");
    CHECK(scr_dataset_view_of(map, 6, 0, &v) == SCR_ERR_NOTFOUND && v == NULL, "no rank 0 in 6");
    CHECK(scr_filemap_remove_rank_by_dataset(map, 6, 3) == 0, "remove rank 3");
    CHECK(scr_dataset_view_of(map, 6, 3, &v) == SCR_ERR_NOTFOUND, "rank 3 removed");
    CHECK(scr_dataset_view_of(NULL, 6, 2, &v) == SCR_ERR_ARG, "NULL map");
    scr_dataset_view_free(NULL);
    scr_filemap_delete(map);
}

int main(void)
{
    RUN(test_view_has_every_field_of_the_entry);
    RUN(test_later_changes_of_the_map_do_not_reach_the_view);
    RUN(test_missing_dataset_or_rank_is_not_found);
    return tap_done();
}
