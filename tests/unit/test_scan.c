/* test_scan.c — scan and rebuild of hand-made dataset directories, and the
 * errors of bad input (damaged rank filemaps, missing directories and
 * prefixes, unknown datasets); the end-of-job index: once, by the last node
 * to report, or later by whoever finds a dataset no one indexed. */
#include "tap.h"

#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_json.h"
#include "kvtree_util.h"
#include "meta.h"
#include "rank_filemap.h"
#include "rebuild.h"
#include "scan.h"
#include "scan_index.h"
#include "index_file.h"
#include "scavenge.h"
#include "scavenge_job.h"
#include "scr_err.h"
#include "util_crc.h"
#include "util_io.h"
#include "util_log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID 6

static void write_bytes(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(99);
    }
}

static unsigned char byte_of(int rank, size_t off)
{
    return (unsigned char)(rank * 31 + off * 7 + 1);
}

/* The meta of an application file name (size bytes) of rank, in dir. */
static scr_meta *app_meta(const char *dir, const char *name, int rank, int ranks, uint64_t size,
                          uint32_t crc)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, name);
    scr_meta_set_filetype(m, SCR_META_TYPE_FULL);
    scr_meta_set_filesize(m, size);
    scr_meta_set_complete(m, 1);
    scr_meta_set_rank(m, rank);
    scr_meta_set_ranks(m, ranks);
    scr_meta_set_origname(m, name);
    scr_meta_set_origpath(m, dir);
    scr_meta_set_crc32(m, crc);
    return m;
}

/* A rank filemap of rank listing count files (the metas given). */
static void write_rank_filemap(const char *dir, int id, int rank, int expected, scr_meta **metas,
                               int count)
{
    scr_filemap *rmap = scr_filemap_new();
    scr_dataset *d = scr_dataset_new();
    char name[64];
    snprintf(name, sizeof(name), "ckpt.%d", id);
    scr_dataset_set_id(d, id);
    scr_dataset_set_name(d, name);
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    scr_dataset_set_ckpt(d, id);
    scr_filemap_set_dataset(rmap, id, rank, d);
    scr_filemap_set_expected_files(rmap, id, rank, expected);
    for (int i = 0; i < count; i++) {
        const char *f = NULL;
        scr_meta_get_filename(metas[i], &f);
        scr_filemap_set_meta(rmap, id, rank, f, metas[i]);
    }
    char *path = NULL;
    scr_rank_filemap_path(dir, rank, &path);
    if (scr_rank_filemap_write(path, rmap) != SCR_SUCCESS) exit(99);
    free(path);
    scr_filemap_delete(rmap);
    scr_dataset_delete(d);
}

/* rank's one application file "rank<r>.dat" of size bytes, listed. */
static void make_rank(const char *dir, int rank, int ranks, size_t size)
{
    char name[64], path[4096];
    unsigned char *buf = malloc(size + 1);
    for (size_t i = 0; i < size; i++) buf[i] = byte_of(rank, i);
    snprintf(name, sizeof(name), "rank%d.dat", rank);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    write_bytes(path, buf, size);
    scr_meta *m = app_meta(dir, name, rank, ranks, size, scr_crc32(0, buf, size));
    write_rank_filemap(dir, ID, rank, 1, &m, 1);
    scr_meta_delete(m);
    free(buf);
}

static const char *fresh_dir(const char *name)
{
    const char *dir = tap_path(name);
    mkdir(dir, 0700);
    return dir;
}

static void test_complete_dataset_has_no_missing_ranks(void)
{
    const char *dir = fresh_dir("complete");
    for (int r = 0; r < 4; r++) make_rank(dir, r, 4, 100 + (size_t)r);
    struct scr_scan *scan = NULL;
    REQUIRE(scr_scan_dataset(dir, 1, &scan) == SCR_SUCCESS, "scan failed: %s", scr_last_error());
    CHECK(scan->id == ID, "id %d", scan->id);
    CHECK(scan->ranks == 4, "ranks %d", scan->ranks);
    CHECK(scan->nmissing == 0, "%d missing", scan->nmissing);
    CHECK(scr_scan_is_complete(scan), "not complete");
    for (int r = 0; r < 4; r++)
        CHECK(scan->rank[r].good == 1, "rank %d good %d", r, scan->rank[r].good);
    scr_scan_free(scan);
}

static void test_rank_without_rank_filemap_is_missing(void)
{
    const char *dir = fresh_dir("norankmap");
    for (int r = 0; r < 4; r++)
        if (r != 2) make_rank(dir, r, 4, 50);
    struct scr_scan *scan = NULL;
    REQUIRE(scr_scan_dataset(dir, 0, &scan) == SCR_SUCCESS, "scan failed");
    CHECK(scan->ranks == 4, "ranks %d (from the metas' RANKS)", scan->ranks);
    CHECK(scan->nmissing == 1 && scan->missing[0] == 2, "missing %d ranks", scan->nmissing);
    int rebuilt = -1;
    scr_log_set_quiet(1);
    CHECK(scr_rebuild_dataset(scan, 4096, &rebuilt) == SCR_FAILURE, "no redundancy, yet rebuilt");
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(), "cannot be rebuilt: 2") != NULL, "message: %s",
          scr_last_error());
    scr_scan_free(scan);
}

static void test_short_file_makes_its_rank_missing(void)
{
    const char *dir = fresh_dir("short");
    for (int r = 0; r < 3; r++) make_rank(dir, r, 3, 64);
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank1.dat", dir);
    REQUIRE(truncate(path, 10) == 0, "truncate");
    struct scr_scan *scan = NULL;
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(dir, 0, &scan);
    scr_log_set_quiet(0);
    REQUIRE(rc == SCR_SUCCESS, "scan failed");
    CHECK(scan->nmissing == 1 && scan->missing[0] == 1, "missing %d ranks", scan->nmissing);
    scr_scan_free(scan);
}

static void test_crc_check_on_request_finds_a_damaged_file(void)
{
    const char *dir = fresh_dir("crc");
    for (int r = 0; r < 2; r++) make_rank(dir, r, 2, 64);
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank0.dat", dir);
    int fd = open(path, O_WRONLY);
    REQUIRE(fd >= 0 && pwrite(fd, "X", 1, 5) == 1, "damage");
    close(fd);
    struct scr_scan *scan = NULL;
    REQUIRE(scr_scan_dataset(dir, 0, &scan) == SCR_SUCCESS, "scan");
    CHECK(scan->nmissing == 0, "without CRC checks the size is all that counts");
    scr_scan_free(scan);
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(dir, 1, &scan);
    scr_log_set_quiet(0);
    REQUIRE(rc == SCR_SUCCESS, "scan with CRC");
    CHECK(scan->nmissing == 1 && scan->missing[0] == 0, "missing %d", scan->nmissing);
    CHECK(strstr(scr_last_error(), "rank0.dat is damaged") != NULL, "message: %s",
          scr_last_error());
    scr_scan_free(scan);
}

/* Replace dir/<rank>.scrfilemap by its first len bytes, or by text. */
static void damage_rank_filemap(const char *dir, int rank, size_t len, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%d.scrfilemap", dir, rank);
    if (text)
        write_bytes(path, text, strlen(text));
    else if (truncate(path, (off_t)len) != 0)
        exit(99);
}

static void test_truncated_rank_filemap_is_named_and_its_rank_missing(void)
{
    const char *dir = fresh_dir("truncated");
    for (int r = 0; r < 3; r++) make_rank(dir, r, 3, 32);
    damage_rank_filemap(dir, 1, 30, NULL);
    struct scr_scan *scan = NULL;
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(dir, 0, &scan);
    scr_log_set_quiet(0);
    REQUIRE(rc == SCR_SUCCESS, "scan failed");
    CHECK(strstr(scr_last_error(), "1.scrfilemap cannot be used: rank 1 counts as missing") != NULL,
          "message: %s", scr_last_error());
    CHECK(scan->nmissing == 1 && scan->missing[0] == 1, "missing %d", scan->nmissing);
    scr_scan_free(scan);
}

static void test_garbage_rank_filemaps_only_is_a_format_error(void)
{
    const char *dir = fresh_dir("garbage");
    damage_rank_filemap(dir, 0, 0, "not a hash file at all\n");
    struct scr_scan *scan = NULL;
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(dir, 0, &scan);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "no readable rank filemap") != NULL, "message: %s",
          scr_last_error());
}

static void test_missing_or_empty_directory_is_not_found(void)
{
    struct scr_scan *scan = NULL;
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(tap_path("no-such-dir"), 0, &scan);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_NOTFOUND, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "cannot read the dataset directory") != NULL, "message: %s",
          scr_last_error());
    scr_log_set_quiet(1);
    rc = scr_scan_dataset(fresh_dir("empty"), 0, &scan);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_NOTFOUND, "rc %d", rc);
}

static void test_two_dataset_ids_make_the_scan_invalid(void)
{
    const char *dir = fresh_dir("twoids");
    make_rank(dir, 0, 2, 16);
    scr_meta *m = app_meta(dir, "other.dat", 1, 2, 0, 0);
    write_bytes(tap_path("twoids/other.dat"), "", 0);
    write_rank_filemap(dir, ID + 1, 1, 1, &m, 1);
    scr_meta_delete(m);
    struct scr_scan *scan = NULL;
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(dir, 0, &scan);
    scr_log_set_quiet(0);
    REQUIRE(rc == SCR_SUCCESS, "scan");
    CHECK(scan->invalid, "not invalid");
    CHECK(strstr(scr_last_error(), "dataset 7") != NULL, "message: %s", scr_last_error());
    int rebuilt = 0;
    scr_log_set_quiet(1);
    CHECK(scr_rebuild_dataset(scan, 4096, &rebuilt) == SCR_ERR_STATE, "rebuild of an invalid scan");
    scr_log_set_quiet(0);
    scr_scan_free(scan);
}

/* --- a hand-made XOR set of 3 ranks, as the library lays it out ---------------- */

static scr_kvtree *current_of(const char *dir, int rank, size_t size)
{
    char name[64];
    unsigned char *buf = malloc(size + 1);
    for (size_t i = 0; i < size; i++) buf[i] = byte_of(rank, i);
    snprintf(name, sizeof(name), "rank%d.dat", rank);
    scr_kvtree *c = scr_kvtree_new();
    scr_kvtree_util_set_int(c, "RANK", rank);
    scr_kvtree_util_set_int(c, "FILES", 1);
    scr_meta *m = app_meta(dir, name, rank, 3, size, scr_crc32(0, buf, size));
    scr_kvtree_copy(scr_kvtree_set_kv_int(c, "FILE", 0), m);
    scr_meta_delete(m);
    free(buf);
    return c;
}

static void test_xor_set_rebuilds_a_member_and_its_rank_filemap(void)
{
    const char *dir = fresh_dir("xor");
    size_t sizes[3] = {100, 37, 64};
    const int N = 3;
    size_t chunk = (100 + N - 2) / (N - 1);
    unsigned char data[3][128] = {{0}}, x[3][64] = {{0}};
    for (int r = 0; r < N; r++) {
        make_rank(dir, r, N, sizes[r]);
        for (size_t i = 0; i < sizes[r]; i++) data[r][i] = byte_of(r, i);
    }
    /* X_i = XOR of slot i of every other member; slot s of member j is its chunk (s < j ? s : s-1)
     */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (j != i)
                for (size_t b = 0; b < chunk; b++)
                    x[i][b] ^= data[j][(size_t)(i < j ? i : i - 1) * chunk + b];
    for (int i = 0; i < N; i++) {
        scr_kvtree *h = scr_kvtree_new(), *g;
        scr_dataset *d = scr_kvtree_set(h, "DSET", scr_kvtree_new());
        scr_dataset_set_id(d, ID);
        scr_kvtree_util_set_int(h, "RANKS", N);
        scr_kvtree_util_set_uint64(h, "CHUNK", chunk);
        g = scr_kvtree_set(h, "GROUP", scr_kvtree_new());
        scr_kvtree_util_set_int(g, "RANKS", N);
        scr_kvtree *ranks = scr_kvtree_set(g, "RANK", scr_kvtree_new());
        for (int k = 0; k < N; k++) {
            char key[8];
            snprintf(key, sizeof(key), "%d", k);
            scr_kvtree_util_set_int(ranks, key, k);
        }
        scr_kvtree_set(h, "CURRENT", current_of(dir, i, sizes[i]));
        scr_kvtree_set(h, "PARTNER", current_of(dir, (i + N - 1) % N, sizes[(i + N - 1) % N]));
        void *image = NULL;
        size_t len = 0;
        REQUIRE(scr_kvtree_file_image(h, &image, &len) == SCR_SUCCESS, "image");
        unsigned char *file = malloc(len + chunk);
        memcpy(file, image, len);
        memcpy(file + len, x[i], chunk);
        char name[64], path[4096];
        snprintf(name, sizeof(name), "%d_of_%d_in_0.xor", i + 1, N);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        write_bytes(path, file, len + chunk);
        /* the rank filemap lists both files */
        scr_meta *metas[2];
        metas[0] = scr_meta_new();
        scr_meta_copy(metas[0], scr_kvtree_get_kv_int(scr_kvtree_get(h, "CURRENT"), "FILE", 0));
        metas[1] = scr_meta_new();
        scr_meta_set_filename(metas[1], name);
        scr_meta_set_filetype(metas[1], SCR_META_TYPE_XOR);
        scr_meta_set_filesize(metas[1], len + chunk);
        scr_meta_set_complete(metas[1], 1);
        scr_meta_set_ranks(metas[1], N);
        scr_meta_set_crc32(metas[1], scr_crc32(0, file, len + chunk));
        write_rank_filemap(dir, ID, i, 2, metas, 2);
        scr_meta_delete(metas[0]);
        scr_meta_delete(metas[1]);
        free(file);
        free(image);
        scr_kvtree_delete(h);
    }
    /* rank 1 loses everything: its file, its XOR file and its rank filemap */
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank1.dat", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/2_of_3_in_0.xor", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/1.scrfilemap", dir);
    unlink(path);
    struct scr_scan *scan = NULL;
    REQUIRE(scr_scan_dataset(dir, 1, &scan) == SCR_SUCCESS, "scan");
    CHECK(scan->nmissing == 1 && scan->missing[0] == 1, "missing %d", scan->nmissing);
    CHECK(scan->nsets == 1 && scan->sets[0].member_rank[1] == -1, "sets %d", scan->nsets);
    int rebuilt = 0;
    CHECK(scr_rebuild_dataset(scan, 16, &rebuilt) == SCR_SUCCESS, "rebuild: %s", scr_last_error());
    CHECK(rebuilt == 1, "rebuilt %d", rebuilt);
    scr_scan_free(scan);
    REQUIRE(scr_scan_dataset(dir, 1, &scan) == SCR_SUCCESS, "rescan");
    CHECK(scr_scan_is_complete(scan), "incomplete after the rebuild: %d missing", scan->nmissing);
    scr_scan_free(scan);
    snprintf(path, sizeof(path), "%s/rank1.dat", dir);
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL, "rank1.dat not rebuilt");
    unsigned char back[64];
    size_t got = fread(back, 1, sizeof(back), f);
    fclose(f);
    CHECK(got == sizes[1], "rebuilt %zu bytes", got);
    for (size_t i = 0; i < got; i++)
        if (back[i] != byte_of(1, i)) {
            CHECK(0, "rank1.dat differs at byte %zu", i);
            break;
        }
}

/* --- scavenge: bad inputs -------------------------------------------------------- */

static void test_scavenge_refuses_null_options_and_report(void)
{
    struct scr_scavenge_options o = {0};
    struct scr_scavenge_report rep;
    o.cntl_dir = fresh_dir("cntl-null");
    o.prefix = fresh_dir("prefix-null");
    scr_log_set_quiet(1);
    int rc = scr_scavenge_node(NULL, &rep);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_ARG, "no options: rc %d", rc);
    CHECK(strstr(scr_last_error(), "scavenge: no options given") != NULL, "message: %s",
          scr_last_error());
    scr_log_set_quiet(1);
    rc = scr_scavenge_node(&o, NULL);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_ARG, "no report: rc %d", rc);
    CHECK(strstr(scr_last_error(), "scavenge: no report to fill in given") != NULL, "message: %s",
          scr_last_error());
}

static void test_scavenge_refuses_a_missing_prefix(void)
{
    struct scr_scavenge_options o = {0};
    struct scr_scavenge_report rep;
    o.cntl_dir = fresh_dir("cntl");
    o.prefix = tap_path("no-prefix");
    scr_log_set_quiet(1);
    int rc = scr_scavenge_node(&o, &rep);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_NOTFOUND, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "no-prefix is not a directory") != NULL, "message: %s",
          scr_last_error());
}

static void test_scavenge_of_an_empty_control_directory_finds_nothing(void)
{
    struct scr_scavenge_options o = {0};
    struct scr_scavenge_report rep;
    o.cntl_dir = fresh_dir("cntl-empty");
    o.prefix = fresh_dir("prefix");
    scr_log_set_quiet(1);
    int rc = scr_scavenge_node(&o, &rep);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_NOTFOUND, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "no dataset in the cache") != NULL, "message: %s",
          scr_last_error());
    o.id = 42;
    scr_log_set_quiet(1);
    rc = scr_scavenge_node(&o, &rep);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_NOTFOUND, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "dataset 42 is not in the cache") != NULL, "message: %s",
          scr_last_error());
}

/* --- the rank filemap a scavenge writes, pinned by a golden file ----------------- */

/* text with every occurrence of from replaced by to, in a new string. */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = strstr(text, from); p; p = strstr(p + lf, from)) n++;
    char *out = malloc(strlen(text) + n * lt + 1), *q = out;
    for (const char *p = text;;) {
        const char *hit = strstr(p, from);
        size_t len = hit ? (size_t)(hit - p) : strlen(p);
        memcpy(q, p, len);
        q += len;
        if (hit == NULL) break;
        memcpy(q, to, lt);
        q += lt;
        p = hit + lf;
    }
    *q = '\0';
    return out;
}

/* dir/name into out (a function of its own, so that the compiler does not
 * guess at truncation of paths it cannot see). */
static void join(char *out, size_t len, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len) exit(99);
}

static void test_scavenge_writes_the_golden_rank_filemap(void)
{
    const char *top = tap_path("scavenge");
    char cache[9000], cntl[9000], prefix[9000], app[9000], xor[9000], path[9000], ckdir[9000];
    join(cache, sizeof(cache), top, "cache/scr.dataset.6");
    join(cntl, sizeof(cntl), top, "cntl");
    join(prefix, sizeof(prefix), top, "prefix");
    join(ckdir, sizeof(ckdir), prefix, "ckpt.6");
    join(app, sizeof(app), cache, "ckpt.6/rank_0.ckpt");
    join(xor, sizeof(xor), cache, "1_of_2_in_0.xor");
    mkdir(top, 0700);
    mkdir(tap_path("scavenge/cache"), 0700);
    mkdir(cache, 0700);
    join(path, sizeof(path), cache, "ckpt.6");
    mkdir(path, 0700);
    mkdir(cntl, 0700);
    mkdir(prefix, 0700);
    write_bytes(app, "checkpoint of rank 0\n", 21);
    write_bytes(xor, "redundancy data\n", 16);

    /* the cache filemap as the library leaves it */
    scr_filemap *map = scr_filemap_new();
    scr_dataset *d = scr_dataset_new();
    scr_dataset_set_id(d, 6);
    scr_dataset_set_name(d, "ckpt.6");
    scr_dataset_set_flags(d, SCR_DATASET_FLAG_CHECKPOINT);
    scr_dataset_set_ckpt(d, 6);
    scr_dataset_set_created(d, 1312850690668536LL);
    scr_filemap_set_dataset(map, 6, 0, d);
    scr_filemap_set_expected_files(map, 6, 0, 2);
    scr_meta *a =
        app_meta(ckdir, "rank_0.ckpt", 0, 2, 21, scr_crc32(0, "checkpoint of rank 0\n", 21));
    scr_meta_set_filename(a, "ckpt.6/rank_0.ckpt");
    scr_meta_set_orig(a, "ckpt.6/rank_0.ckpt");
    scr_meta_set_checkpoint(a, 6);
    scr_meta *x = scr_meta_new();
    scr_meta_set_filename(x, "1_of_2_in_0.xor");
    scr_meta_set_filetype(x, SCR_META_TYPE_XOR);
    scr_meta_set_filesize(x, 16);
    scr_meta_set_complete(x, 1);
    scr_meta_set_rank(x, 0);
    scr_meta_set_ranks(x, 2);
    scr_filemap_set_meta(map, 6, 0, app, a);
    scr_filemap_set_meta(map, 6, 0, xor, x);
    scr_filemap_set_tag(map, 6, 0, "HOLDER", "SELF");
    join(path, sizeof(path), cntl, "filemap_0.scrinfo");
    REQUIRE(scr_filemap_write(path, map) == SCR_SUCCESS, "cache filemap: %s", scr_last_error());
    scr_filemap_delete(map);
    scr_dataset_delete(d);
    scr_meta_delete(a);
    scr_meta_delete(x);

    struct scr_scavenge_options o = {0};
    struct scr_scavenge_report rep;
    o.cntl_dir = cntl;
    o.prefix = prefix;
    REQUIRE(scr_scavenge_node(&o, &rep) == SCR_SUCCESS, "scavenge: %s", scr_last_error());
    CHECK(rep.id == 6 && rep.ranks == 1 && rep.files_copied == 2 && rep.files_failed == 0,
          "report: id %d ranks %d copied %d failed %d", rep.id, rep.ranks, rep.files_copied,
          rep.files_failed);

    scr_kvtree *t = scr_kvtree_new();
    join(path, sizeof(path), prefix, ".scr/scr.dataset.6/0.scrfilemap");
    REQUIRE(scr_kvtree_read_file(path, t) == SCR_SUCCESS, "read %s", path);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    REQUIRE(mem && scr_kvtree_fprint_json(mem, t) == SCR_SUCCESS && fclose(mem) == 0, "json");
    char *got = replace_all(text, top, "@TMP@");
    void *want = NULL;
    size_t want_len = 0;
    FILE *g = fopen(tap_data("scavenge/rank_filemap.json"), "rb");
    REQUIRE(g != NULL, "no golden file %s", tap_data("scavenge/rank_filemap.json"));
    want = malloc(1 << 16);
    want_len = fread(want, 1, (1 << 16) - 1, g);
    fclose(g);
    ((char *)want)[want_len] = '\0';
    CHECK(strcmp(got, want) == 0, "0.scrfilemap differs from the golden file; it is now:\n%s", got);
    join(path, sizeof(path), prefix, "ckpt.6/rank_0.ckpt");
    CHECK(access(path, F_OK) == 0, "%s was not copied", path);
    free(want);
    free(got);
    free(text);
    scr_kvtree_delete(t);
}

/* --- the end-of-job index ------------------------------------------------------- */

/* COMPLETE of dataset id in prefix's index, -1 when it is not there. */
static int indexed_complete(const char *prefix, int id)
{
    char *path = NULL;
    scr_kvtree *index = scr_kvtree_new();
    int complete = -1;
    if (scr_index_file_path(prefix, &path) == SCR_SUCCESS &&
        scr_index_file_read(path, index) == SCR_SUCCESS &&
        scr_index_file_get_complete(index, id, &complete) != SCR_SUCCESS)
        complete = -1;
    free(path);
    scr_kvtree_delete(index);
    return complete;
}

static void make_prefix_dataset(const char *prefix)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/.scr", prefix);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/.scr/scr.dataset.%d", prefix, ID);
    mkdir(dir, 0700);
    for (int r = 0; r < 2; r++) make_rank(dir, r, 2, 50);
}

/* <prefix>/.scr/job.<jobid>.nodes saying node x copied dataset ID. */
static void write_nodes_file(const char *prefix, const char *jobid)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/.scr/job.%s.nodes", prefix, jobid);
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree *x = scr_kvtree_setf(t, NULL, "NODE x");
    REQUIRE(x && scr_kvtree_util_set_int(x, "DSET", ID) == SCR_SUCCESS &&
                scr_kvtree_util_set_int(x, "COPIED", 1) == SCR_SUCCESS &&
                scr_kvtree_write_file(path, t) == SCR_SUCCESS,
            "set-up");
    scr_kvtree_delete(t);
}

static void test_a_dataset_a_job_did_not_index_is_indexed_once(void)
{
    const char *prefix = fresh_dir("pending");
    make_prefix_dataset(prefix);
    write_nodes_file(prefix, "76");
    int n = -1;
    scr_log_set_quiet(1);
    CHECK(scr_scavenge_job_index_pending(prefix, &n) == SCR_SUCCESS && n == 1, "indexed %d: %s", n,
          scr_last_error());
    scr_log_set_quiet(0);
    CHECK(indexed_complete(prefix, ID) == 1, "dataset %d is not indexed complete", ID);
    CHECK(scr_scavenge_job_index_pending(prefix, &n) == SCR_SUCCESS && n == 0, "indexed again: %d",
          n);
    CHECK(scr_scavenge_job_index_pending(tap_path("pending-none"), &n) == SCR_SUCCESS && n == 0,
          "a prefix without .scr has nothing pending");
}

static void test_the_last_node_to_report_indexes_for_the_job(void)
{
    const char *prefix = fresh_dir("jobend");
    make_prefix_dataset(prefix);
    /* node x copied dataset ID before; a and b have nothing in cache */
    write_nodes_file(prefix, "77");
    char path[4096];
    const char *nodes[] = {"x", "a", "b"};
    struct scr_scavenge_job job = {.jobid = "77",
                                   .node = "a",
                                   .cntl_dir = fresh_dir("jobend-cntl"),
                                   .prefix = prefix,
                                   .nodes = nodes,
                                   .nnodes = 3};
    struct scr_scavenge_job_outcome out;
    CHECK(scr_scavenge_job_node(&job, &out) == SCR_SUCCESS, "node a: %s", out.error);
    CHECK(strcmp(out.index_text, "waiting(b)") == 0 && out.indexed == 0, "node a: index=%s",
          out.index_text);
    CHECK(indexed_complete(prefix, ID) == -1, "indexed before the last node reported");
    job.node = "b";
    CHECK(scr_scavenge_job_node(&job, &out) == SCR_SUCCESS, "node b: %s", out.error);
    CHECK(strcmp(out.index_text, "complete(6)") == 0 && out.indexed == 1, "node b: index=%s",
          out.index_text);
    CHECK(indexed_complete(prefix, ID) == 1, "not indexed complete");
    job.node = "a"; /* a node that reports again finds the work done */
    CHECK(scr_scavenge_job_node(&job, &out) == SCR_SUCCESS &&
              strcmp(out.index_text, "done by b") == 0,
          "again: index=%s", out.index_text);
    char *log = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/.scr/job.77.log", prefix);
    REQUIRE(scr_read_file(path, 1 << 20, (void **)&log, &len) == SCR_SUCCESS, "no job record");
    log = realloc(log, len + 1);
    log[len] = '\0';
    CHECK(
        strstr(log,
               " node=a dataset=0 files=0 bytes=0 failed=0 partner_ranks=0 index=waiting(b)\n") !=
                NULL &&
            strstr(
                log,
                " node=b dataset=0 files=0 bytes=0 failed=0 partner_ranks=0 index=complete(6)\n") !=
                NULL,
        "record:\n%s", log);
    free(log);
}

/* Node b of the job never ran a rank (a spare): once the runs noted the
 * nodes they used, the job's end does not wait for b, which has no record
 * of the prefix to report to. */
static void test_a_job_end_waits_only_for_nodes_a_run_used(void)
{
    const char *prefix = fresh_dir("jobend-ran");
    make_prefix_dataset(prefix);
    write_nodes_file(prefix, "79");
    const char *ran[] = {"x", "a"};
    CHECK(scr_scavenge_job_note_nodes(prefix, "79", ran, 2) == SCR_SUCCESS, "note: %s",
          scr_last_error());
    /* noting again (a relaunched run) keeps what is there */
    CHECK(scr_scavenge_job_note_nodes(prefix, "79", ran + 1, 1) == SCR_SUCCESS, "note again: %s",
          scr_last_error());
    const char *nodes[] = {"x", "a", "b"};
    struct scr_scavenge_job job = {.jobid = "79",
                                   .node = "a",
                                   .cntl_dir = fresh_dir("jobend-ran-cntl"),
                                   .prefix = prefix,
                                   .nodes = nodes,
                                   .nnodes = 3};
    struct scr_scavenge_job_outcome out;
    CHECK(scr_scavenge_job_node(&job, &out) == SCR_SUCCESS, "node a: %s", out.error);
    CHECK(strcmp(out.index_text, "complete(6)") == 0 && out.indexed == 1, "node a: index=%s",
          out.index_text);
    CHECK(indexed_complete(prefix, ID) == 1, "not indexed complete");
}

static void test_a_job_end_refuses_a_prefix_that_is_not_a_directory(void)
{
    const char *nodes[] = {"a"};
    struct scr_scavenge_job job = {.jobid = "78",
                                   .node = "a",
                                   .cntl_dir = fresh_dir("jobend-cntl2"),
                                   .prefix = tap_path("jobend-none"),
                                   .nodes = nodes,
                                   .nnodes = 1};
    struct scr_scavenge_job_outcome out;
    CHECK(scr_scavenge_job_node(&job, &out) == SCR_ERR_NOTFOUND, "accepted");
    CHECK(strstr(out.error, "jobend-none cannot be used: No such file or directory") != NULL,
          "error: %s", out.error);
    CHECK(access(tap_path("jobend-none"), F_OK) != 0, "the prefix was created");
}

/* What the scan keeps of each rank: names, sizes, CRCs and the verdict per
 * file, including a file listed outside the dataset directory, in the
 * prefix ("../../", out of <prefix>/.scr/<dataset>), which is looked up by
 * its whole path; the rank filemap itself is read again on demand. */
static void test_scan_keeps_each_file_and_reads_rank_filemaps_again(void)
{
    const char *top = fresh_dir("kept");
    char records[4000], dir[4096], outside[4096];
    snprintf(records, sizeof(records), "%s/.scr", top);
    snprintf(dir, sizeof(dir), "%s/ds", records);
    snprintf(outside, sizeof(outside), "%s/shared.dat", top);
    mkdir(records, 0700);
    mkdir(dir, 0700);
    make_rank(dir, 0, 3, 10);
    make_rank(dir, 1, 3, 11);
    write_bytes(outside, "0123456789abcdef", 16);
    scr_meta *m[2] = {app_meta(dir, "rank2.dat", 2, 3, 12, 0x1234u),
                      app_meta(dir, "../../shared.dat", 2, 3, 16, 7)};
    scr_meta_set_filetype(m[0], SCR_META_TYPE_XOR);
    write_rank_filemap(dir, ID, 2, 2, m, 2);
    scr_meta_delete(m[0]);
    scr_meta_delete(m[1]);
    struct scr_scan *scan = NULL;
    REQUIRE(scr_scan_dataset(dir, 0, &scan) == SCR_SUCCESS, "scan failed: %s", scr_last_error());
    const struct scr_scan_rank *r1 = &scan->rank[1], *r2 = &scan->rank[2];
    CHECK(r1->listed && r1->nfiles == 1 && strcmp(r1->files[0].name, "rank1.dat") == 0 &&
              r1->files[0].size == 11 && r1->files[0].good && r1->files[0].has_crc &&
              !r1->files[0].redundancy,
          "rank 1 as kept");
    /* sorted by name: ../../shared.dat (present) before rank2.dat (never written) */
    CHECK(r2->nfiles == 2 && strcmp(r2->files[0].name, "../../shared.dat") == 0 &&
              r2->files[0].good && r2->files[0].size == 16 && r2->files[0].crc == 7,
          "a file outside the directory is found by its path");
    CHECK(strcmp(r2->files[1].name, "rank2.dat") == 0 && !r2->files[1].good &&
              r2->files[1].redundancy && r2->files[1].crc == 0x1234u && r2->files[1].ranks == 3,
          "an absent redundancy file as kept");
    CHECK(r2->good == 1 && r2->missing && scan->nmissing == 1 && scan->missing[0] == 2,
          "rank 2 misses a file");
    scr_filemap *rmap = NULL;
    CHECK(scr_scan_read_rank_filemap(scan, 2, &rmap) == SCR_SUCCESS && rmap != NULL &&
              scr_filemap_num_files(rmap, ID, 2) == 2,
          "rank 2's filemap read again");
    scr_filemap_delete(rmap);
    rmap = (scr_filemap *)1;
    CHECK(scr_scan_read_rank_filemap(scan, 5, &rmap) == SCR_SUCCESS && rmap == NULL,
          "no rank 5: no filemap");
    scr_scan_free(scan);
}

/* Enough ranks that several threads read the rank filemaps: the result is
 * what one thread finds, damage and all, whichever thread met it. */
static void test_a_large_dataset_read_by_several_threads_is_scanned_whole(void)
{
    const int ranks = 1500;
    const char *dir = fresh_dir("large");
    for (int r = 0; r < ranks; r++) make_rank(dir, r, ranks, 8 + (size_t)(r % 5));
    damage_rank_filemap(dir, 17, 30, NULL);
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank%d.dat", dir, 1234);
    unlink(path);
    snprintf(path, sizeof(path), "%s/rank%d.dat", dir, 1499);
    write_bytes(path, "short", 5);
    struct scr_scan *scan = NULL;
    scr_log_set_quiet(1);
    int rc = scr_scan_dataset(dir, 1, &scan);
    scr_log_set_quiet(0);
    REQUIRE(rc == SCR_SUCCESS, "scan failed");
    CHECK(scan->ranks == ranks && scan->id == ID && !scan->invalid, "%d ranks of dataset %d",
          scan->ranks, scan->id);
    CHECK(scan->desc != NULL, "the descriptor was kept");
    CHECK(scan->nmissing == 3 && scan->missing[0] == 17 && scan->missing[1] == 1234 &&
              scan->missing[2] == 1499,
          "missing %d: %d %d %d", scan->nmissing, scan->nmissing > 0 ? scan->missing[0] : -1,
          scan->nmissing > 1 ? scan->missing[1] : -1, scan->nmissing > 2 ? scan->missing[2] : -1);
    int good = 0, sizes_right = 1;
    for (int r = 0; r < ranks; r++) {
        good += scan->rank[r].good;
        if (scan->rank[r].listed && scan->rank[r].files[0].size != 8 + (uint64_t)(r % 5))
            sizes_right = 0;
    }
    CHECK(good == ranks - 3 && sizes_right, "%d good files", good);
    CHECK(!scan->rank[17].listed && scan->rank[1234].listed,
          "the damaged rank filemap is not listed");
    scr_scan_free(scan);
}

int main(void)
{
    RUN(test_complete_dataset_has_no_missing_ranks);
    RUN(test_scan_keeps_each_file_and_reads_rank_filemaps_again);
    RUN(test_rank_without_rank_filemap_is_missing);
    RUN(test_short_file_makes_its_rank_missing);
    RUN(test_crc_check_on_request_finds_a_damaged_file);
    RUN(test_truncated_rank_filemap_is_named_and_its_rank_missing);
    RUN(test_a_large_dataset_read_by_several_threads_is_scanned_whole);
    RUN(test_garbage_rank_filemaps_only_is_a_format_error);
    RUN(test_missing_or_empty_directory_is_not_found);
    RUN(test_two_dataset_ids_make_the_scan_invalid);
    RUN(test_xor_set_rebuilds_a_member_and_its_rank_filemap);
    RUN(test_scavenge_refuses_null_options_and_report);
    RUN(test_scavenge_refuses_a_missing_prefix);
    RUN(test_scavenge_of_an_empty_control_directory_finds_nothing);
    RUN(test_scavenge_writes_the_golden_rank_filemap);
    RUN(test_a_dataset_a_job_did_not_index_is_indexed_once);
    RUN(test_the_last_node_to_report_indexes_for_the_job);
    RUN(test_a_job_end_waits_only_for_nodes_a_run_used);
    RUN(test_a_job_end_refuses_a_prefix_that_is_not_a_directory);
    return tap_done();
}
