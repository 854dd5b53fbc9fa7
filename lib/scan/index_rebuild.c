/* index_rebuild.c — an index made again from the summaries of a prefix's datasets. */
#define _GNU_SOURCE /* open_memstream */
#include "index_rebuild.h"
#include "dataset_check.h"
#include "dataset_claim.h"
#include "dataset.h"
#include "index_file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "rank_filemap.h"
#include "record.h"
#include "scr_err.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DIR_PREFIX "scr.dataset."
#define LISTED_MAX 20 /* datasets or directories a message names before "and N more" */

/* A dataset a summary gives. */
struct found {
    int id;
    scr_dataset *desc; /* ID, NAME and COMPLETE set */
    int complete;
    char flushed[SCR_INDEX_TIMESTAMP_SIZE];
    struct scr_dataset_check check; /* its files that are not as the summary records */
};

/* What the dataset directories of a prefix hold. */
struct collected {
    struct found *found; /* ascending ids */
    int nfound;
    struct scr_index_rebuild_skip *skipped;
    int nskipped;
};

static void collected_free(struct collected *c)
{
    for (int i = 0; i < c->nfound; i++) {
        scr_dataset_delete(c->found[i].desc);
        scr_dataset_check_free(&c->found[i].check);
    }
    free(c->found);
    free(c->skipped);
    memset(c, 0, sizeof(*c));
}

static int compare_found(const void *a, const void *b)
{
    int x = ((const struct found *)a)->id, y = ((const struct found *)b)->id;
    return (x > y) - (x < y);
}

static int compare_skip(const void *a, const void *b)
{
    int x = ((const struct scr_index_rebuild_skip *)a)->id,
        y = ((const struct scr_index_rebuild_skip *)b)->id;
    return (x > y) - (x < y);
}

static int add_skip(struct collected *c, int id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int add_skip(struct collected *c, int id, const char *fmt, ...)
{
    struct scr_index_rebuild_skip *more =
        realloc(c->skipped, sizeof(*more) * (size_t)(c->nskipped + 1));
    if (more == NULL) {
        scr_err("index: out of memory listing dataset directories");
        return SCR_ERR_NOMEM;
    }
    c->skipped = more;
    struct scr_index_rebuild_skip *s = &more[c->nskipped++];
    s->id = id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof(s->why), fmt, ap);
    va_end(ap);
    return SCR_SUCCESS;
}

/* 1 when the directory dir holds records of a dataset: its summary or a
 * rank filemap (an unreadable directory counts). Without either it is
 * empty, or what is left of a copy in which no rank finished: nothing any
 * reader could use. */
static int holds_records(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) return 1;
    int any = 0, rank = 0;
    for (struct dirent *e; !any && (e = readdir(d)) != NULL;)
        any = strcmp(e->d_name, SCR_SUMMARY_FILE_NAME) == 0 ||
              scr_rank_filemap_is_name(e->d_name, &rank);
    closedir(d);
    return any;
}

/* f onto the end of c->found. */
static int append_found(struct collected *c, const struct found *f)
{
    struct found *more = realloc(c->found, sizeof(*more) * (size_t)(c->nfound + 1));
    if (more == NULL) {
        scr_err("index: out of memory listing datasets");
        return SCR_ERR_NOMEM;
    }
    c->found = more;
    c->found[c->nfound++] = *f;
    return SCR_SUCCESS;
}

/* Dataset id as the summary at path describes it, into c->found with at
 * least ID, NAME and COMPLETE, and the summary's time as flushed: complete
 * when the summary says so and every file it records is there at its
 * size (dir: the dataset directory). */
static int add_found(const char *dir, const char *path, int id, const scr_kvtree *summary,
                     struct collected *c)
{
    struct found f = {id, scr_dataset_new(), 1, "", {NULL, 0, NULL, 0}};
    const scr_dataset *desc = NULL;
    const char *name = NULL;
    struct stat st;
    if (f.desc == NULL) return SCR_ERR_NOMEM;
    scr_summary_get_dataset(summary, &desc); /* the caller made sure it has one */
    int rc = scr_dataset_check_files(dir, summary, &f.check);
    if (rc != SCR_SUCCESS) goto out;
    f.complete = scr_summary_is_complete(summary) && f.check.nbad == 0;
    rc = scr_dataset_copy(f.desc, desc);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_id(f.desc, id);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_dataset_get_name(f.desc, &name) != SCR_SUCCESS) {
        char text[64];
        snprintf(text, sizeof(text), DIR_PREFIX "%d", id);
        rc = scr_dataset_set_name(f.desc, text);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_dataset_set_complete(f.desc, f.complete);
    if (rc != SCR_SUCCESS) goto out;
    /* the summary is written as the copy to the prefix ends */
    time_t when = stat(path, &st) == 0 ? st.st_mtime : time(NULL);
    rc = scr_index_file_format_timestamp(when, f.flushed, sizeof(f.flushed));
    if (rc != SCR_SUCCESS) goto out;
    rc = append_found(c, &f);
out:
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(f.desc);
        scr_dataset_check_free(&f.check);
    }
    return rc;
}

/* The entry the summary in dir gives dataset id: into c->found, or why not into c->skipped. */
static int read_summary(const char *dir, int id, struct collected *c)
{
    char *path = NULL;
    scr_kvtree *summary = scr_kvtree_new();
    int rc = summary ? scr_path_join(dir, SCR_SUMMARY_FILE_NAME, &path) : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) goto out;
    int got = scr_summary_read(path, summary); /* a damaged one says why */
    const scr_dataset *desc = NULL;
    int sid = 0;
    if (got == SCR_ERR_NOMEM) {
        rc = got;
    } else if (got == SCR_ERR_NOTFOUND) {
        rc = add_skip(c, id, "no summary");
    } else if (got != SCR_SUCCESS) {
        rc = add_skip(c, id, "its summary cannot be read");
    } else if (scr_summary_get_dataset(summary, &desc) != SCR_SUCCESS) {
        rc = add_skip(c, id, "its summary has no dataset descriptor");
    } else if (scr_dataset_get_id(desc, &sid) == SCR_SUCCESS && sid != id) {
        rc = add_skip(c, id, "its summary is of dataset %d", sid);
    } else if (scr_summary_check_names(summary, dir, path) != SCR_SUCCESS) {
        rc = add_skip(c, id, "its summary names a file outside the prefix");
    } else {
        rc = add_found(dir, path, id, summary, c);
    }
out:
    free(path);
    scr_kvtree_delete(summary);
    return rc;
}

/* Drop c->found[i] (its desc, to NULL) when a newer dataset has its name. */
static int drop_if_superseded(struct collected *c, int i)
{
    const char *name = NULL, *other = NULL;
    scr_dataset_get_name(c->found[i].desc, &name);
    for (int j = i + 1; j < c->nfound; j++) {
        if (c->found[j].desc == NULL) continue;
        scr_dataset_get_name(c->found[j].desc, &other);
        if (strcmp(name, other) != 0) continue;
        int rc = add_skip(c, c->found[i].id, "dataset %d has its name, %s, and replaced its files",
                          c->found[j].id, name);
        /* dropped even when the reason could not be noted */
        scr_dataset_delete(c->found[i].desc);
        scr_dataset_check_free(&c->found[i].check);
        c->found[i].desc = NULL;
        return rc;
    }
    return SCR_SUCCESS;
}

/* Of two datasets of one name the older is dropped: the newer wrote its files. */
static int drop_superseded(struct collected *c)
{
    int rc = SCR_SUCCESS;
    for (int i = c->nfound - 1; i >= 0; i--) {
        rc = drop_if_superseded(c, i);
        if (rc != SCR_SUCCESS) break;
    }
    /* even after a failure: what was dropped leaves no hole in c->found */
    int k = 0;
    for (int i = 0; i < c->nfound; i++)
        if (c->found[i].desc != NULL) c->found[k++] = c->found[i];
    c->nfound = k;
    return rc;
}

/* One line for a dataset whose summary records files that are not there, or
 * not at their sizes: it is indexed incomplete, and these are why. */
static void say_files_not_as_recorded(const struct found *f)
{
    const char *name = NULL;
    char *text = NULL;
    size_t len = 0;
    if (f->check.nbad == 0) return;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL) {
        scr_err("index: out of memory naming the files of dataset %d that are not as recorded",
                f->id);
        return;
    }
    scr_dataset_get_name(f->desc, &name);
    for (int i = 0; i < f->check.nbad && i < LISTED_MAX; i++) {
        char one[PATH_MAX + 128];
        scr_dataset_check_describe(&f->check.bad[i], one, sizeof(one));
        fprintf(out, "%s%s", i ? "; " : "", one);
    }
    if (f->check.nbad > LISTED_MAX) fprintf(out, "; and %d more", f->check.nbad - LISTED_MAX);
    if (fclose(out) != 0 || text == NULL)
        scr_err("index: out of memory naming the files of dataset %d that are not as recorded",
                f->id);
    else
        scr_warn("%s (dataset %d) is indexed incomplete: its summary records files that are not on "
                 "the prefix "
                 "as recorded: %s",
                 name, f->id, text);
    free(text);
}

/* The summary of each scr.dataset.<id> directory d (scr_dir) lists that holds records. */
static int read_summaries(const char *scr_dir, DIR *d, struct collected *c)
{
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int id = 0;
        struct stat st;
        char *dir = NULL;
        if (scr_dataset_dir_name_id(e->d_name, &id) != SCR_SUCCESS) continue;
        int rc = scr_path_join(scr_dir, e->d_name, &dir);
        if (rc != SCR_SUCCESS) return rc;
        if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && holds_records(dir))
            rc = read_summary(dir, id, c);
        free(dir);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

/* Every scr.dataset.<id> directory of <prefix>/.scr. */
static int collect(const char *prefix, struct collected *c)
{
    char *scr_dir = NULL;
    int rc = scr_path_join(prefix, ".scr", &scr_dir);
    if (rc != SCR_SUCCESS) return rc;
    DIR *d = opendir(scr_dir);
    if (d != NULL) {
        rc = read_summaries(scr_dir, d, c);
        closedir(d);
    } else if (errno != ENOENT && errno != ENOTDIR) {
        scr_err("cannot read %s: %s", scr_dir, strerror(errno));
        rc = SCR_ERR_IO;
    }
    free(scr_dir);
    if (c->nfound > 1) qsort(c->found, (size_t)c->nfound, sizeof(*c->found), compare_found);
    if (rc != SCR_SUCCESS) goto out;
    rc = drop_superseded(c);
    for (int i = 0; i < c->nfound; i++) say_files_not_as_recorded(&c->found[i]);
out:
    /* even after a failure: the caller reports what was skipped */
    if (c->nskipped > 1) qsort(c->skipped, (size_t)c->nskipped, sizeof(*c->skipped), compare_skip);
    return rc;
}

/* --- the index ---------------------------------------------------------------- */

struct fill {
    const struct collected *c;
    int current; /* out: the id made CURRENT */
};

/* Add the datasets found that index lacks (by id and by name); CURRENT,
 * when unset, becomes the newest complete checkpoint. */
static int fill_index(scr_kvtree *index, void *ctx)
{
    struct fill *f = ctx;
    const char *name = NULL, *current = NULL;
    int rc = SCR_SUCCESS, other = 0, newest = 0;
    for (int i = 0; i < f->c->nfound; i++) {
        const struct found *d = &f->c->found[i];
        scr_dataset_get_name(d->desc, &name);
        if (scr_index_file_get_name(index, d->id, &current) == SCR_SUCCESS ||
            scr_index_file_lookup_id(index, name, &other) == SCR_SUCCESS)
            continue; /* listed meanwhile by someone else */
        rc = scr_index_file_set_dataset(index, d->desc, d->complete);
        if (rc != SCR_SUCCESS) return rc;
        rc = scr_index_file_mark_flushed(index, d->id, d->flushed);
        if (rc != SCR_SUCCESS) return rc;
        if (d->check.nranks > 0)
            rc = scr_index_file_set_missing(index, d->id, d->check.ranks, d->check.nranks);
        if (rc != SCR_SUCCESS) return rc;
        if (d->complete && scr_dataset_is_checkpoint(d->desc)) newest = d->id;
    }
    if (newest > 0 && scr_index_file_get_current(index, &current) != SCR_SUCCESS &&
        scr_index_file_get_name(index, newest, &name) == SCR_SUCCESS) {
        rc = scr_index_file_set_current(index, name);
        if (rc != SCR_SUCCESS) return rc;
        f->current = newest;
    }
    return SCR_SUCCESS;
}

/* Keep path as kept: a hard link, or where the file system has none, a copy
 * of its bytes. *made is 0 when kept is a name some file has already. */
static int keep_as(const char *path, const char *kept, const void *bytes, size_t len, int *made)
{
    *made = 0;
    if (link(path, kept) == 0) {
        *made = 1;
    } else if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS) {
        int rc = scr_write_new(kept, bytes, len, made);
        if (rc != SCR_SUCCESS) return rc;
    } else if (errno != EEXIST) {
        scr_err("cannot keep %s aside as %s: %s", path, kept, strerror(errno));
        return SCR_ERR_IO;
    }
    return *made ? scr_fsync_parent(kept) : SCR_SUCCESS;
}

/* Keep the damaged file beside itself under a name no file has. */
static int keep_aside(const char *path, const void *bytes, size_t len, char **out_kept)
{
    char stamp[32], *kept = NULL;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) == NULL || strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm) == 0)
        snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
    for (int n = 0; n < 100; n++) {
        char suffix[16] = "";
        if (n > 0) snprintf(suffix, sizeof(suffix), ".%d", n);
        free(kept);
        if (asprintf(&kept, "%s.damaged.%s%s", path, stamp, suffix) < 0) {
            scr_err("index: out of memory naming a copy of %s", path);
            return SCR_ERR_NOMEM;
        }
        int made = 0;
        int rc = keep_as(path, kept, bytes, len, &made);
        if (rc != SCR_SUCCESS) {
            free(kept);
            return rc;
        }
        if (made) {
            *out_kept = kept;
            return SCR_SUCCESS;
        }
    }
    scr_err("cannot keep %s aside: every name %s.damaged.%s[.N] is taken", path, path, stamp);
    free(kept);
    return SCR_ERR_IO;
}

static int is_cached(const struct scr_index_rebuild_options *o, int id)
{
    for (int i = 0; i < o->ncached; i++)
        if (o->cached[i] == id) return 1;
    return 0;
}

/* "scr.dataset.4 (no summary), ..." for messages, leaving out the datasets
 * o holds in cache (o may be NULL). */
static void print_skipped(FILE *out, const struct scr_index_rebuild_skip *skipped, int n,
                          const struct scr_index_rebuild_options *o)
{
    int listed = 0, more = 0;
    for (int i = 0; i < n; i++) {
        if (o != NULL && is_cached(o, skipped[i].id)) continue;
        if (listed == LISTED_MAX) {
            more++;
            continue;
        }
        fprintf(out, "%s" DIR_PREFIX "%d (%s)", listed++ ? ", " : "", skipped[i].id,
                skipped[i].why);
    }
    if (more > 0) fprintf(out, " and %d more", more);
}

/* The dataset directories that hold records and give no entry, as one text. */
static char *skipped_text(const struct collected *c, const struct scr_index_rebuild_options *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL) return NULL;
    print_skipped(out, c->skipped, c->nskipped, o);
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The report's copy of what went in; the checks of the files move into it. */
static int report_datasets(struct collected *c, struct scr_index_rebuild_report *out)
{
    out->datasets = c->nfound ? calloc((size_t)c->nfound, sizeof(*out->datasets)) : NULL;
    if (c->nfound && out->datasets == NULL) {
        scr_err("index: out of memory reporting a rebuild");
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < c->nfound; i++) {
        struct found *f = &c->found[i];
        const char *name = NULL;
        scr_dataset_get_name(f->desc, &name);
        struct scr_index_rebuild_dataset *d = &out->datasets[out->ndatasets];
        if ((d->name = strdup(name)) == NULL) {
            scr_err("index: out of memory reporting a rebuild");
            return SCR_ERR_NOMEM;
        }
        d->id = f->id;
        d->complete = f->complete;
        d->checkpoint = scr_dataset_is_checkpoint(f->desc);
        d->output = scr_dataset_is_output(f->desc);
        d->check = f->check;
        memset(&f->check, 0, sizeof(f->check));
        out->ndatasets++;
    }
    return SCR_SUCCESS;
}

/* The index is missing: create it from the summaries, when there are any. */
static int rebuild_missing(const char *prefix, const struct scr_index_rebuild_options *o,
                           struct collected *c, struct scr_index_rebuild_report *out)
{
    int rc = collect(prefix, c);
    if (rc != SCR_SUCCESS) return rc;
    if (c->nfound == 0) {
        int blocking = 0;
        for (int i = 0; i < c->nskipped; i++) blocking += !is_cached(o, c->skipped[i].id);
        if (blocking == 0 || !o->require)
            return SCR_SUCCESS; /* a fresh prefix, or the caller's choice */
        char *list = skipped_text(c, o);
        scr_err(
            "%s has no index, and none of its dataset directories holding records has a summary to "
            "rebuild one from: %s. Not starting afresh on top of them: scr-index --add DIR indexes "
            "what "
            "a directory holds; move them away to start afresh",
            prefix, list ? list : "(out of memory)");
        free(list);
        return SCR_ERR_NOTFOUND;
    }
    struct fill f = {c, 0};
    rc = scr_index_file_update(out->index_path, fill_index, &f);
    if (rc != SCR_SUCCESS) return rc;
    out->rebuilt = 1;
    out->current = f.current;
    return report_datasets(c, out);
}

/* The index is damaged and locked (fd): keep it aside and replace it. */
static int rebuild_damaged(const char *prefix, const struct scr_index_rebuild_options *o,
                           const void *bytes, size_t len, int *fd, struct collected *c,
                           struct scr_index_rebuild_report *out)
{
    const char *path = out->index_path;
    if (!o->damaged) {
        scr_err("%s was left as it is; scr-index --rebuild-index rebuilds it from the summaries of "
                "the datasets",
                path);
        return SCR_ERR_FORMAT;
    }
    int rc = collect(prefix, c);
    if (rc != SCR_SUCCESS) return rc;
    if (c->nfound == 0 && c->nskipped > 0) {
        char *list = skipped_text(c, NULL);
        scr_err("%s is damaged and cannot be rebuilt: none of the dataset directories holding "
                "records has a "
                "usable summary: %s. It was left as it is",
                path, list ? list : "(out of memory)");
        free(list);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *index = scr_kvtree_new();
    struct fill f = {c, 0};
    if (index == NULL) return SCR_ERR_NOMEM;
    rc = fill_index(index, &f);
    if (rc != SCR_SUCCESS) goto out;
    rc = keep_aside(path, bytes, len, &out->kept_as);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_index_file_write_unlock(path, fd, index);
    if (rc != SCR_SUCCESS) goto out;
    out->rebuilt = 1;
    out->current = f.current;
    rc = report_datasets(c, out);
out:
    scr_kvtree_delete(index);
    return rc;
}

/* Parse the index's bytes as a hash (saying what is wrong with them) and
 * take its VERSION, 0 when it has none. */
static int parse_version(const void *bytes, size_t len, const char *path, long long *out_version)
{
    int64_t version = 0;
    scr_kvtree *raw = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (raw == NULL) goto out;
    rc = scr_kvtree_parse_image(bytes, len, raw, path);
    if (rc != SCR_SUCCESS) goto out;
    scr_kvtree_util_get_int64(raw, SCR_RECORD_KEY_VERSION, &version); /* none: 0 */
out:
    scr_kvtree_delete(raw);
    *out_version = (long long)version;
    return rc;
}

/* Read the locked index's bytes: SCR_SUCCESS when it reads, SCR_ERR_FORMAT
 * (said) when it is damaged, anything else for what stops a rebuild. */
static int check_index(const char *path, const void *bytes, size_t len)
{
    long long version = 0;
    int rc = parse_version(bytes, len, path, &version);
    if (rc != SCR_SUCCESS) return rc;
    /* a newer version's index is not damaged: it is left to that version */
    if (version > SCR_INDEX_FILE_VERSION) {
        scr_err("%s: index version %lld is newer than this build reads (up to %d); left as it is",
                path, version, SCR_INDEX_FILE_VERSION);
        return SCR_ERR_STATE;
    }
    scr_kvtree *index = scr_kvtree_new();
    if (index == NULL) return SCR_ERR_NOMEM;
    rc = scr_index_file_parse(path, bytes, len, index);
    scr_kvtree_delete(index);
    return rc;
}

/* The index is there and locked (fd): readable, of a newer version, or
 * damaged and rebuilt. */
static int judge_index(const char *prefix, const struct scr_index_rebuild_options *o,
                       const void *bytes, size_t len, int *fd, struct collected *c,
                       struct scr_index_rebuild_report *out)
{
    int rc = check_index(out->index_path, bytes, len);
    if (rc == SCR_ERR_FORMAT) {
        out->found = SCR_INDEX_FOUND_DAMAGED;
        return rebuild_damaged(prefix, o, bytes, len, fd, c, out);
    }
    if (rc == SCR_ERR_STATE) {
        out->found = SCR_INDEX_FOUND_NEWER;
        return SCR_ERR_FORMAT;
    }
    if (rc == SCR_SUCCESS) out->found = SCR_INDEX_FOUND_READABLE;
    return rc;
}

int scr_index_rebuild(const char *prefix, const struct scr_index_rebuild_options *o,
                      struct scr_index_rebuild_report *out)
{
    static const struct scr_index_rebuild_options defaults = {1, 0, 0, NULL, 0};
    struct collected c = {0};
    void *bytes = NULL;
    size_t len = 0;
    int fd = -1;
    if (out == NULL) return SCR_ERR_ARG;
    memset(out, 0, sizeof(*out));
    if (o == NULL) o = &defaults;
    int rc = scr_index_file_path(prefix, &out->index_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_lock_open_image(out->index_path, &fd, &bytes, &len);
    if (rc == SCR_ERR_NOTFOUND) {
        out->found = SCR_INDEX_FOUND_MISSING;
        rc = rebuild_missing(prefix, o, &c, out);
    } else if (rc == SCR_SUCCESS) {
        rc = judge_index(prefix, o, bytes, len, &fd, &c, out);
    }
    if (fd >= 0) scr_kvtree_close_unlock(&fd);
    if (c.nskipped > 0 && rc != SCR_ERR_NOMEM) {
        out->skipped = c.skipped;
        out->nskipped = c.nskipped;
        c.skipped = NULL;
    }
    collected_free(&c);
    free(bytes);
    if (rc == SCR_SUCCESS && out->rebuilt && o->announce) {
        char *text = NULL;
        if (scr_index_rebuild_describe(out, &text) == SCR_SUCCESS) scr_warn("%s", text);
        free(text);
    }
    return rc;
}

int scr_index_rebuild_describe(const struct scr_index_rebuild_report *r, char **out_text)
{
    char *text = NULL;
    size_t len = 0;
    if (r == NULL || out_text == NULL) return SCR_ERR_ARG;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL) {
        scr_err("index: out of memory describing a rebuild");
        return SCR_ERR_NOMEM;
    }
    const char *current = NULL;
    if (!r->rebuilt) {
        fprintf(out, "%s was not rebuilt (%s)", r->index_path ? r->index_path : "the index",
                r->found == SCR_INDEX_FOUND_READABLE ? "it reads"
                : r->found == SCR_INDEX_FOUND_MISSING
                    ? "there is none, and no summary to make one from"
                : r->found == SCR_INDEX_FOUND_NEWER ? "a newer version of SCR wrote it"
                                                    : "it is damaged");
    } else {
        fprintf(out, "rebuilt %s from the summaries of its datasets (", r->index_path);
        if (r->kept_as)
            fprintf(out, "it was damaged; kept as %s", r->kept_as);
        else
            fprintf(out, "there was none");
        fprintf(out, "): ");
        if (r->ndatasets == 0) fprintf(out, "no datasets");
        for (int i = 0; i < r->ndatasets && i < LISTED_MAX; i++) {
            const struct scr_index_rebuild_dataset *d = &r->datasets[i];
            fprintf(out, "%s%s (dataset %d, %s%s", i ? ", " : "", d->name, d->id,
                    d->complete ? "complete" : "incomplete", d->checkpoint ? "" : ", output");
            if (d->check.nbad > 0)
                fprintf(out, ", %d file%s not as recorded", d->check.nbad,
                        d->check.nbad == 1 ? "" : "s");
            fprintf(out, ")");
            if (d->id == r->current) current = d->name;
        }
        for (int i = LISTED_MAX; i < r->ndatasets; i++)
            if (r->datasets[i].id == r->current) current = r->datasets[i].name;
        if (r->ndatasets > LISTED_MAX) fprintf(out, " and %d more", r->ndatasets - LISTED_MAX);
        fprintf(out, "; current: %s", current ? current : "none (no complete checkpoint)");
    }
    if (r->nskipped > 0) {
        fprintf(out, "; not indexed: ");
        print_skipped(out, r->skipped, r->nskipped, NULL);
    }
    if (fclose(out) != 0 || text == NULL) {
        free(text);
        scr_err("index: out of memory describing a rebuild");
        return SCR_ERR_NOMEM;
    }
    *out_text = text;
    return SCR_SUCCESS;
}

void scr_index_rebuild_report_free(struct scr_index_rebuild_report *r)
{
    if (r == NULL) return;
    for (int i = 0; i < r->ndatasets; i++) {
        free(r->datasets[i].name);
        scr_dataset_check_free(&r->datasets[i].check);
    }
    free(r->datasets);
    free(r->skipped);
    free(r->index_path);
    free(r->kept_as);
    memset(r, 0, sizeof(*r));
}
