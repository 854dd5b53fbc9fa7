/* adopt.c — check a directory written without SCR, number it and have its records written. */
#include "adopt.h"
#include "adopt_files.h"
#include "adopt_records.h"
#include "adopt_rule.h"
#include "dataset.h"
#include "dataset_claim.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "job_env.h"
#include "prefix_lock.h"
#include "scan.h"
#include "scr_err.h"
#include "summary.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CRC_BUF_SIZE ((size_t)1 << 20)
/* files and ranks named in one message, at most */
#define NAMED_AT_MOST 10

/* One adoption, from its paths to its records. */
struct adopt {
    const struct scr_adopt_options *o;
    char *prefix;      /* absolute, normalised, as the user names it */
    char *prefix_real; /* symbolic links resolved */
    char *dir_real;    /* the adopted directory, resolved: where the files are read */
    char *dir_rel;     /* the adopted directory relative to the prefix */
    char *dir_lex;     /* prefix/dir_rel: where a restart finds the files */
    struct scr_adopt_list list;
    int ranks;
    int id, ckpt; /* given once the prefix is ours */
};

static void adopt_free(struct adopt *a)
{
    free(a->prefix);
    free(a->prefix_real);
    free(a->dir_real);
    free(a->dir_rel);
    free(a->dir_lex);
    scr_adopt_list_free(&a->list);
}

/* realpath into a new string; logs what names path as what. */
static int real_path(const char *path, const char *what, char **out)
{
    char buf[PATH_MAX];
    if (realpath(path, buf) == NULL) {
        int err = errno;
        scr_err("%s %s: %s", what, path, strerror(err));
        return err == ENOENT || err == ENOTDIR ? SCR_ERR_ARG : SCR_ERR_IO;
    }
    if ((*out = strdup(buf)) == NULL) {
        scr_err("out of memory");
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* The prefix made absolute in a->prefix (relative to the current
 * directory), and with symbolic links resolved in a->prefix_real. */
static int resolve_prefix(struct adopt *a)
{
    const char *prefix = a->o->prefix;
    char *cwd = NULL;
    int rc;
    if (prefix[0] == '/') {
        rc = scr_path_normalize(prefix, &a->prefix);
    } else if ((cwd = getcwd(NULL, 0)) == NULL) {
        scr_err("cannot tell the current directory: %s", strerror(errno));
        rc = SCR_ERR_IO;
    } else {
        rc = scr_path_join(cwd, prefix, &a->prefix);
    }
    free(cwd);
    if (rc != SCR_SUCCESS) return rc;
    return real_path(a->prefix, "the prefix", &a->prefix_real);
}

/* SCR_ERR_ARG, saying why, unless a->dir_real (dir_abs as the user named
 * it) is below the prefix and outside its .scr. */
static int check_adoptable(const struct adopt *a, const char *dir_abs)
{
    char *scr_real = NULL;
    int inside = 0, in_scr = 0;
    int rc = scr_path_join(a->prefix_real, ".scr", &scr_real);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_path_is_inside(a->prefix_real, a->dir_real, &inside);
    if (rc == SCR_SUCCESS) rc = scr_path_is_inside(scr_real, a->dir_real, &in_scr);
    free(scr_real);
    if (rc != SCR_SUCCESS) return rc;
    if (!inside || in_scr || strcmp(a->dir_real, a->prefix_real) == 0) {
        scr_err("cannot adopt %s%s%s: %s", dir_abs,
                strcmp(dir_abs, a->dir_real) ? ", which is " : "",
                strcmp(dir_abs, a->dir_real) ? a->dir_real : "",
                !inside  ? "it is outside the prefix, where a restart reads its files"
                : in_scr ? "it is in the prefix's .scr directory, where SCR keeps its own records"
                         : "it is the prefix itself; adopt a directory below it");
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* a->dir_rel and a->dir_lex: the directory dir_abs relative to the prefix
 * and below it. The files are named as the user names the directory when
 * that is inside the prefix as written, else by where they really are. */
static int name_dir(struct adopt *a, const char *dir_abs)
{
    int inside = 0;
    int rc = scr_path_is_inside(a->prefix, dir_abs, &inside);
    if (rc != SCR_SUCCESS) return rc;
    if (inside && strcmp(dir_abs, a->prefix) != 0)
        rc = scr_path_relative(a->prefix, dir_abs, &a->dir_rel);
    else
        rc = scr_path_relative(a->prefix_real, a->dir_real, &a->dir_rel);
    if (rc != SCR_SUCCESS) return rc;
    return scr_path_join(a->prefix, a->dir_rel, &a->dir_lex);
}

/* The prefix (absolute) and the directory: it must exist below the prefix
 * and outside its .scr, symbolic links resolved. */
static int resolve_paths(struct adopt *a)
{
    const struct scr_adopt_options *o = a->o;
    char *dir_abs = NULL;
    struct stat st;
    int rc = resolve_prefix(a);
    if (rc != SCR_SUCCESS) return rc;
    rc = o->dir[0] == '/' ? scr_path_normalize(o->dir, &dir_abs)
                          : scr_path_join(a->prefix, o->dir, &dir_abs);
    if (rc != SCR_SUCCESS) return rc;
    if (stat(dir_abs, &st) != 0) {
        scr_err("cannot adopt %s: %s", dir_abs, strerror(errno));
        rc = SCR_ERR_ARG;
        goto out;
    }
    if (!S_ISDIR(st.st_mode)) {
        scr_err("cannot adopt %s: not a directory", dir_abs);
        rc = SCR_ERR_ARG;
        goto out;
    }
    rc = real_path(dir_abs, "cannot adopt", &a->dir_real);
    if (rc != SCR_SUCCESS) goto out;
    rc = check_adoptable(a, dir_abs);
    if (rc != SCR_SUCCESS) goto out;
    rc = name_dir(a, dir_abs);
out:
    free(dir_abs);
    return rc;
}

static int by_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Without --ranks, every rank below the highest must own a file: the
 * ranks that own none are named. */
static int check_no_rank_missing(const struct adopt *a)
{
    int n = a->list.n, nmissing = 0, missing[NAMED_AT_MOST];
    int *owners = malloc(sizeof(int) * (size_t)n);
    if (owners == NULL) {
        scr_err("out of memory checking the ranks of %s", a->dir_lex);
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) owners[i] = a->list.files[i].rank;
    qsort(owners, (size_t)n, sizeof(int), by_int);
    long long total = 0, next = 0; /* the next rank expected to own a file */
    for (int i = 0; i < n; i++) {
        if (owners[i] < next) continue; /* another file of the same rank */
        for (long long r = next; r < owners[i] && nmissing < NAMED_AT_MOST; r++)
            missing[nmissing++] = (int)r;
        total += owners[i] - next; /* counted, not walked: a rank can be far above the others */
        next = (long long)owners[i] + 1;
    }
    free(owners);
    if (total == 0) return SCR_SUCCESS;
    char text[256];
    scr_scan_format_ranks(missing, nmissing, NAMED_AT_MOST, text, sizeof(text));
    scr_err("%lld rank%s below the highest rank %d own%s no file of %s: %s%s (give --ranks %d if a "
            "rank "
            "really has no file)",
            total, total == 1 ? "" : "s", a->ranks - 1, total == 1 ? "s" : "", a->dir_lex, text,
            total > nmissing ? ", ..." : "", a->ranks);
    return SCR_ERR_ARG;
}

/* Every file's rank by rule, the highest in *out_highest; SCR_ERR_ARG,
 * naming them, when the rule gives no file or some files no rank. */
static int match_owners(struct adopt *a, const struct scr_adopt_rule *rule, int *out_highest)
{
    const struct scr_adopt_options *o = a->o;
    int unowned = 0, highest = -1;
    const char *named[NAMED_AT_MOST];
    for (int i = 0; i < a->list.n; i++) {
        struct scr_adopt_file *f = &a->list.files[i];
        if (!scr_adopt_rule_match(rule, f->rel, &f->rank)) {
            f->rank = -1;
            if (unowned < NAMED_AT_MOST) named[unowned] = f->rel;
            unowned++;
        } else if (f->rank > highest) {
            highest = f->rank;
        }
    }
    if (highest < 0) {
        scr_err(
            "the rule '%s' matches no file of %s (it is matched against each path relative to that "
            "directory, such as %s)",
            o->owner, a->dir_lex, a->list.files[0].rel);
        return SCR_ERR_ARG;
    }
    if (unowned > 0) {
        char text[1024] = "";
        size_t len = 0;
        for (int i = 0; i < unowned && i < NAMED_AT_MOST && len < sizeof(text); i++)
            len +=
                (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", i ? ", " : "", named[i]);
        scr_err("%d file%s of %s match%s no rank by the rule '%s': %s%s (move %s out, or give a "
                "rule that "
                "covers %s)",
                unowned, unowned == 1 ? "" : "s", a->dir_lex, unowned == 1 ? "es" : "", o->owner,
                text, unowned > NAMED_AT_MOST ? ", ..." : "", unowned == 1 ? "it" : "them",
                unowned == 1 ? "it" : "them");
        return SCR_ERR_ARG;
    }
    *out_highest = highest;
    return SCR_SUCCESS;
}

/* The dataset's number of ranks in a->ranks: --ranks, which every file's
 * rank must be below, or one more than the highest rank, which leaves no
 * rank below it without a file. */
static int settle_rank_count(struct adopt *a, int highest)
{
    const struct scr_adopt_options *o = a->o;
    if (o->ranks > 0) {
        a->ranks = o->ranks;
        for (int i = 0; i < a->list.n; i++) {
            if (a->list.files[i].rank < o->ranks) continue;
            scr_err("%s/%s belongs to rank %d by the rule '%s', but --ranks says the dataset has "
                    "%d rank%s",
                    a->dir_lex, a->list.files[i].rel, a->list.files[i].rank, o->owner, o->ranks,
                    o->ranks == 1 ? "" : "s");
            return SCR_ERR_ARG;
        }
        return SCR_SUCCESS;
    }
    if (highest == INT_MAX) {
        scr_err("rank %d of the rule '%s' is too high for a dataset", highest, o->owner);
        return SCR_ERR_ARG;
    }
    a->ranks = highest + 1;
    return check_no_rank_missing(a);
}

/* Give every file its rank by the rule (or rank 0 of 1 with --global),
 * and the dataset its number of ranks. */
static int assign_owners(struct adopt *a)
{
    const struct scr_adopt_options *o = a->o;
    struct scr_adopt_rule rule;
    if (o->global) {
        for (int i = 0; i < a->list.n; i++) a->list.files[i].rank = 0;
        a->ranks = 1;
        return SCR_SUCCESS;
    }
    int rc = scr_adopt_rule_parse(o->owner, &rule);
    if (rc != SCR_SUCCESS) return rc;
    int highest = -1;
    rc = match_owners(a, &rule, &highest);
    if (rc != SCR_SUCCESS) return rc;
    return settle_rank_count(a, highest);
}

/* The path of file f, where it is read. */
static int file_path(const struct adopt *a, const struct scr_adopt_file *f, char **out)
{
    return scr_path_join(a->dir_real, f->rel, out);
}

/* Size and CRC32 of every file. */
static int checksum_files(struct adopt *a)
{
    void *buf = malloc(CRC_BUF_SIZE);
    if (buf == NULL) {
        scr_err("out of memory for a buffer of %zu bytes", CRC_BUF_SIZE);
        return SCR_ERR_NOMEM;
    }
    int rc = SCR_SUCCESS;
    for (int i = 0; i < a->list.n && rc == SCR_SUCCESS; i++) {
        struct scr_adopt_file *f = &a->list.files[i];
        struct scr_copy_result got = {0};
        char *path = NULL;
        rc = file_path(a, f, &path);
        if (rc == SCR_SUCCESS)
            rc = scr_crc_file(path, buf, CRC_BUF_SIZE, &got); /* says which file */
        f->size = got.bytes;
        f->crc = got.crc;
        free(path);
    }
    free(buf);
    return rc;
}

/* Whether a file the summary of dataset id lists lies in the adopted
 * directory: then it is a dataset already (said). */
static int holds_files_of(const struct adopt *a, int id, const char *name)
{
    char sub[64], *dsdir = NULL, *spath = NULL;
    int *ranks = NULL, nranks = 0, found = 0;
    scr_kvtree *summary = scr_kvtree_new();
    snprintf(sub, sizeof(sub), ".scr/scr.dataset.%d", id);
    if (summary == NULL || scr_path_join(a->prefix, sub, &dsdir) != SCR_SUCCESS ||
        scr_path_join(dsdir, SCR_SUMMARY_FILE_NAME, &spath) != SCR_SUCCESS)
        goto out;
    /* a summary that cannot be read names no file; the fetch will say why */
    if (scr_summary_read(spath, summary) != SCR_SUCCESS ||
        scr_summary_list_ranks(summary, &ranks, &nranks) != SCR_SUCCESS)
        goto out;
    for (int r = 0; r < nranks && !found; r++) {
        const char **files = NULL;
        int n = 0;
        if (scr_summary_list_files(summary, ranks[r], &files, &n) != SCR_SUCCESS) continue;
        for (int f = 0; f < n && !found; f++) {
            char *path = NULL;
            int inside = 0;
            if (scr_path_join(dsdir, files[f], &path) == SCR_SUCCESS &&
                scr_path_is_inside(a->dir_lex, path, &inside) == SCR_SUCCESS && inside) {
                scr_err("cannot adopt %s: it holds %s, a file of dataset %d (%s) already",
                        a->dir_lex, path, id, name);
                found = 1;
            }
            free(path);
        }
        free(files);
    }
out:
    free(ranks);
    free(dsdir);
    free(spath);
    scr_kvtree_delete(summary);
    return found;
}

/* The index must not know the name nor any file of the directory; the
 * highest dataset and checkpoint ids go to *out_id and *out_ckpt. A
 * missing index holds nothing. */
static int check_index(const struct adopt *a, int *out_id, int *out_ckpt)
{
    char *path = NULL;
    int *ids = NULL, n = 0, other = 0;
    scr_kvtree *index = scr_kvtree_new();
    *out_id = 0;
    *out_ckpt = 0;
    int rc = index != NULL ? scr_index_file_path(a->prefix, &path) : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_index_file_read(path, index); /* says why it cannot */
    if (rc == SCR_ERR_NOTFOUND) {
        rc = SCR_SUCCESS;
        goto out;
    }
    if (rc != SCR_SUCCESS) goto out;
    if (scr_index_file_lookup_id(index, a->o->name, &other) == SCR_SUCCESS) {
        scr_err(
            "the name %s belongs to dataset %d of %s already; give the adopted dataset another one",
            a->o->name, other, a->prefix);
        rc = SCR_ERR_ARG;
        goto out;
    }
    rc = scr_index_file_list_ids(index, &ids, &n);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < n; i++) {
        const scr_dataset *d = NULL;
        const char *name = "?";
        int ckpt = 0;
        if (ids[i] > *out_id) *out_id = ids[i];
        if (scr_index_file_get_dataset(index, ids[i], &d) == SCR_SUCCESS &&
            scr_dataset_get_ckpt(d, &ckpt) == SCR_SUCCESS && ckpt > *out_ckpt)
            *out_ckpt = ckpt;
        scr_index_file_get_name(index, ids[i], &name);
        if (holds_files_of(a, ids[i], name)) {
            rc = SCR_ERR_ARG;
            goto out;
        }
    }
out:
    free(ids);
    free(path);
    scr_kvtree_delete(index);
    return rc;
}

/* Number the dataset, read its files and write its records (which takes
 * back what it wrote when a step fails). The prefix is ours. */
static int record_dataset(struct adopt *a)
{
    int highest_dir = 0;
    /* a missing index is made from the summaries there are first, so that
     * no dataset drops out of the one this entry creates */
    struct scr_index_rebuild_options ro = {.damaged = 0, .require = 0, .announce = 1};
    struct scr_index_rebuild_report rep;
    int rc = scr_index_rebuild(a->prefix, &ro, &rep);
    scr_index_rebuild_report_free(&rep);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_index(a, &a->id, &a->ckpt);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_dataset_claim_highest_id(a->prefix, &highest_dir);
    if (rc != SCR_SUCCESS) return rc;
    if (highest_dir > a->id) a->id = highest_dir;
    if (a->id == INT_MAX || a->ckpt == INT_MAX) {
        scr_err("%s: no dataset id is left above %d", a->prefix, a->id);
        return SCR_ERR_STATE;
    }
    a->id++;
    a->ckpt++;
    rc = checksum_files(a);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_adopt_records r = {a->prefix, a->dir_rel, a->o->name,        a->id,
                                  a->ckpt,   a->ranks,   a->o->make_current};
    return scr_adopt_records_write(&r, &a->list);
}

/* Take the prefix as a job's SCR_Init does, so that no job starts on it
 * (and numbers a dataset) while this one is being recorded. */
static int take_prefix(const struct adopt *a, struct scr_prefix_holder *me,
                       struct scr_prefix_lock *lock)
{
    char *scr_dir = NULL, note[1024];
    memset(me, 0, sizeof(*me));
    snprintf(me->jobid, sizeof(me->jobid), "%s", SCR_ADOPT_JOBID);
    if (scr_job_env_user_name(me->user, sizeof(me->user)) != SCR_SUCCESS)
        snprintf(me->user, sizeof(me->user), "?");
    if (gethostname(me->host, sizeof(me->host) - 1) != 0) snprintf(me->host, sizeof(me->host), "?");
    me->pid = (long)getpid();
    me->since = (int64_t)time(NULL);
    int rc = scr_path_join(a->prefix, ".scr", &scr_dir);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(scr_dir, 0700);
    free(scr_dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_prefix_lock_take(a->prefix, me, -1, lock, note, sizeof(note)); /* says who has it */
    if (rc == SCR_SUCCESS && note[0] != '\0') scr_warn("%s", note);
    return rc;
}

int scr_adopt_dataset(const struct scr_adopt_options *o, struct scr_adopt_result *out)
{
    struct adopt a;
    memset(&a, 0, sizeof(a));
    a.o = o;
    memset(out, 0, sizeof(*out));
    if (o->name == NULL || o->name[0] == '\0') {
        scr_err("the adopted dataset needs a name");
        return SCR_ERR_ARG;
    }
    int rc = resolve_paths(&a);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_adopt_files_list(a.dir_real, a.prefix_real, &a.list);
    if (rc != SCR_SUCCESS) goto out;
    if (a.list.n == 0) {
        scr_err("cannot adopt %s: it holds no file", a.dir_lex);
        rc = SCR_ERR_ARG;
        goto out;
    }
    rc = assign_owners(&a);
    if (rc != SCR_SUCCESS) goto out;
    /* what the index refuses is reported before the prefix is taken */
    int last_id = 0, last_ckpt = 0;
    rc = check_index(&a, &last_id, &last_ckpt);
    if (rc != SCR_SUCCESS) goto out;

    struct scr_prefix_holder me;
    struct scr_prefix_lock lock;
    rc = take_prefix(&a, &me, &lock);
    if (rc != SCR_SUCCESS) goto out;
    rc = record_dataset(&a);
    scr_prefix_lock_drop(&lock, &me);
    if (rc != SCR_SUCCESS) goto out;
    out->id = a.id;
    out->ranks = a.ranks;
    out->files = a.list.n;
    for (int i = 0; i < a.list.n; i++) out->bytes += a.list.files[i].size;
out:
    adopt_free(&a);
    return rc;
}
