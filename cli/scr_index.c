/* scr_index.c — scr-index: the datasets SCR keeps on a prefix.
 *
 * Lists the datasets of <prefix>/.scr/index.scr (read under a shared lock,
 * after indexing any dataset directory a scavenge left unindexed), newest first, as a table or as
 * JSON (index_list.h builds and renders the rows), or changes the index: which dataset a restart
 * loads first
 * (--current) and which entries it keeps (--drop, --drop-after), each one
 * locked update in index_edit.h; --add indexes a dataset directory a
 * scavenge filled and --build rebuilds the missing files of an indexed one
 * (both through scan_index.h: scan, rebuild, summary, index entry);
 * --rebuild-index makes a damaged or lost index again from the datasets'
 * summaries (index_rebuild.h). The
 * prefix is --prefix, else $SCR_PREFIX, else the current directory. Exit
 * status: 0 done, 1 no index, a damaged one, an unknown dataset, a refused
 * change or a dataset that could not be indexed (one line on stderr), 2
 * usage error, 3 indexed but incomplete (the ranks that lack files are
 * named). Run by root, it acts as the prefix's owner (act_as_owner.h).
 * Links only libscr-core (no MPI). */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "cli_json.h"
#include "index_edit.h"
#include "index_file.h"
#include "index_list.h"
#include "index_rebuild.h"
#include "kvtree.h"
#include "scan_index.h"
#include "scan_read.h"
#include "scavenge_job.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"
#include "util_progress.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command was asked to do: one action per run. Each adds a value
 * here, its option and a case in main(). */
enum action {
    ACTION_NONE,
    ACTION_LIST,
    ACTION_CURRENT,
    ACTION_DROP,
    ACTION_DROP_AFTER,
    ACTION_ADD,
    ACTION_BUILD,
    ACTION_REBUILD_INDEX
};

#define EXIT_INCOMPLETE 3

/* The long option of an action, for messages. */
static const char *action_option(enum action action)
{
    switch (action) {
    case ACTION_NONE: break;
    case ACTION_LIST: return "--list";
    case ACTION_CURRENT: return "--current";
    case ACTION_DROP: return "--drop";
    case ACTION_DROP_AFTER: return "--drop-after";
    case ACTION_ADD: return "--add";
    case ACTION_BUILD: return "--build";
    case ACTION_REBUILD_INDEX: return "--rebuild-index";
    }
    return "no action";
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-index [--list] [--prefix DIR] [--json]\n"
            "       scr-index --current=NAME | --drop=NAME | --drop-after=NAME [--prefix DIR]\n"
            "       scr-index --add=DSET [--no-crc] [--prefix DIR] [--json]\n"
            "       scr-index --build=ID [--no-crc] [--prefix DIR]\n"
            "       scr-index --rebuild-index [--prefix DIR] [--json]\n"
            "Show or change the datasets SCR keeps in DIR/.scr/index.scr.\n"
            "\n"
            "  -l, --list         list the datasets, newest first (the default)\n"
            "  -c, --current=NAME make NAME, a complete checkpoint, the dataset a restart\n"
            "                     from the prefix loads first\n"
            "  -d, --drop=NAME    remove NAME from the index (its files stay)\n"
            "      --drop-after=NAME  remove every dataset newer than NAME from the index\n"
            "  -a, --add=DSET     index the dataset directory DSET (a path, or a name in\n"
            "                     DIR/.scr such as scr.dataset.6): scan it, rebuild\n"
            "                     missing files from redundancy data, write its summary\n"
            "  -b, --build=ID     rebuild the missing files of indexed dataset ID\n"
            "      --no-crc       with --add or --build, trust each file of the right size\n"
            "                     instead of reading it to check its recorded CRC32\n"
            "      --crc          check every file's CRC32, even in a dataset whose summary\n"
            "                     calls it complete (the default)\n"
            "  -r, --rebuild-index  make a damaged or missing index again from the summaries\n"
            "                     of the datasets in DIR/.scr (a damaged file is kept as\n"
            "                     index.scr.damaged.<time>); a readable index is left alone\n"
            "  -p, --prefix DIR   the prefix directory (default: $SCR_PREFIX, else the\n"
            "                     current directory)\n"
            "  -j, --json         print JSON instead of a table or message (--list,\n"
            "                     --rebuild-index, --add)\n"
            "  -h, --help         show this help\n"
            "  -V, --version      show the version\n"
            "\n"
            "Exit status: 0 if the datasets were listed, the index changed, the dataset\n"
            "was indexed complete or the index was rebuilt (or reads); 1 if the index is\n"
            "missing or damaged, names no such dataset, the change is refused, the\n"
            "dataset could not be indexed or there was nothing to rebuild the index from;\n"
            "2 for a usage error; 3 if the dataset was indexed incomplete (the ranks whose\n"
            "files are lost are named). A damaged index is rebuilt by --rebuild-index.\n");
}

static int print_json(const scr_index_list *list, const char *prefix)
{
    struct json_object *obj = scr_index_list_to_json(list, prefix);
    if (obj == NULL) return SCR_ERR_NOMEM;
    const char *text = json_object_to_json_string_ext(
        obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text != NULL && printf("%s\n", text) >= 0 ? SCR_SUCCESS : SCR_ERR_IO;
    if (rc != SCR_SUCCESS) scr_err("writing JSON to standard output failed");
    json_object_put(obj);
    return rc;
}

/* The datasets of prefix as a table or JSON; returns the exit status. A
 * missing index is an empty one (JSON still prints, with no datasets) and a
 * one-line note, exit status 1. */
static int list_datasets(const char *prefix, int json)
{
    char *path = NULL;
    scr_index_list *list = NULL;
    scr_kvtree *index = scr_kvtree_new();
    int rc = index != NULL ? scr_index_file_path(prefix, &path) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_index_file_read(path, index); /* logs all but NOTFOUND */
    /* a dataset a job's epilogs copied but did not index is indexed first
     * (said on stderr); a damaged index is only reported */
    int pending = 0;
    if ((rc == SCR_SUCCESS || rc == SCR_ERR_NOTFOUND) &&
        scr_scavenge_job_index_pending(prefix, &pending) == SCR_SUCCESS && pending > 0) {
        scr_kvtree_unset_all(index);
        rc = scr_index_file_read(path, index);
    }
    int missing = rc == SCR_ERR_NOTFOUND;
    if (rc == SCR_SUCCESS || missing) rc = scr_index_list_build(index, &list);
    if (rc == SCR_SUCCESS) {
        if (json)
            rc = print_json(list, prefix);
        else if (!missing)
            rc = scr_index_list_fprint_table(stdout, list);
    }
    if (missing) fprintf(stderr, "scr-index: no datasets in %s (no .scr/index.scr)\n", prefix);
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
    free(path);
    return rc == SCR_SUCCESS && !missing ? 0 : 1;
}

/* --current: the dataset a restart loads first; returns the exit status. */
static int make_current(const char *prefix, const char *name)
{
    if (scr_index_edit_set_current(prefix, name) != SCR_SUCCESS) return 1; /* said why */
    printf("%s is now the current dataset of %s\n", name, prefix);
    return 0;
}

/* --drop: one entry out of the index; returns the exit status. */
static int drop_dataset(const char *prefix, const char *name)
{
    if (scr_index_edit_drop(prefix, name) != SCR_SUCCESS) return 1;
    printf("dropped %s from the index of %s (its files stay)\n", name, prefix);
    return 0;
}

/* --drop-after: the entries newer than one; returns the exit status. */
static int drop_after(const char *prefix, const char *name)
{
    int dropped = 0;
    if (scr_index_edit_drop_after(prefix, name, &dropped) != SCR_SUCCESS) return 1;
    printf("dropped %d dataset%s newer than %s from the index of %s (their files stay)\n", dropped,
           dropped == 1 ? "" : "s", name, prefix);
    return 0;
}

/* What --add --json prints (schema in scr-index(1)); res NULL when the
 * directory was not indexed. */
static int print_add_json(const char *dir, const struct scr_scan_index_result *res)
{
    struct json_object *obj = json_object_new_object(), *missing = NULL;
    int bad = scr_cli_json_put(obj, "directory", json_object_new_string(dir)) ||
              scr_cli_json_put(obj, "indexed", json_object_new_boolean(res != NULL));
    if (!bad && res == NULL) {
        const char *e = scr_last_error();
        bad = scr_cli_json_put(obj, "error", json_object_new_string(e ? e : ""));
    }
    if (!bad && res != NULL) {
        missing = json_object_new_array();
        bad = missing == NULL;
        for (int i = 0; !bad && i < res->nmissing; i++) {
            struct json_object *rank = json_object_new_int(res->missing[i]);
            bad = rank == NULL || json_object_array_add(missing, rank) != 0;
            if (bad) json_object_put(rank);
        }
        if (bad) json_object_put(missing);
        /* missing first: scr_cli_json_put takes it, added or not */
        bad = bad || scr_cli_json_put(obj, "missing_ranks", missing) ||
              scr_cli_json_put(obj, "dataset", json_object_new_int(res->id)) ||
              scr_cli_json_put(obj, "complete", json_object_new_boolean(res->complete)) ||
              scr_cli_json_put(obj, "rebuilt_ranks", json_object_new_int(res->rebuilt));
    }
    return scr_cli_json_print_built(obj, bad, 0);
}

static void show_progress(void *ctx, int done, int total)
{
    struct scr_progress *p = ctx;
    p->total = (uint64_t)total;
    scr_progress_update(p, (uint64_t)done);
}

/* Index the dataset directory dir, the ranks read shown on stderr
 * (util_progress.h); returns the exit status. */
static int index_directory(const char *prefix, const char *dir, int crc, int json)
{
    struct scr_scan_index_options o = {prefix, dir, crc, 0};
    struct scr_scan_index_result res;
    struct scr_progress p;
    scr_progress_begin(&p, stderr, "scr-index: reading rank filemaps", SCR_PROGRESS_RANKS, 0);
    scr_scan_set_progress(show_progress, &p);
    int rc = scr_scan_index_dataset(&o, &res);
    scr_scan_set_progress(NULL, NULL);
    scr_progress_end(&p);
    if (rc != SCR_SUCCESS) {
        fprintf(stderr, "scr-index: %s was not indexed\n", dir);
        if (json) print_add_json(dir, NULL);
        return 1;
    }
    int status = res.complete ? 0 : EXIT_INCOMPLETE;
    if (json) {
        if (print_add_json(dir, &res) != SCR_SUCCESS) status = 1;
    } else if (res.complete) {
        printf("dataset %d indexed complete%s", res.id, res.rebuilt ? " after rebuilding " : "");
        if (res.rebuilt) printf("%d rank(s)", res.rebuilt);
        printf("\n");
    } else {
        printf("dataset %d indexed incomplete: the files of %d rank(s) are lost:", res.id,
               res.nmissing);
        for (int i = 0; i < res.nmissing; i++) printf(" %d", res.missing[i]);
        printf("\n");
    }
    free(res.missing);
    return status;
}

/* --add: dset is a path, or a name in <prefix>/.scr; either way a
 * directory in <prefix>/.scr (scan_index.h refuses any other). */
static int add_dataset(const char *given_prefix, const char *dset, int crc, int json)
{
    char *scr_dir = NULL, *dir = NULL, *prefix = NULL, *cwd = getcwd(NULL, 0);
    int rc = SCR_SUCCESS;
    if (cwd == NULL) {
        scr_err("cannot tell the current directory: %s", strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_path_join(given_prefix[0] == '/' ? "" : cwd, given_prefix, &prefix);
    if (rc != SCR_SUCCESS) {
        /* said why */
    } else if (dset[0] == '/') {
        rc = scr_path_normalize(dset, &dir);
    } else if (strchr(dset, '/') != NULL) {
        rc = scr_path_join(cwd, dset, &dir);
    } else {
        rc = scr_path_join(prefix, ".scr", &scr_dir);
        if (rc == SCR_SUCCESS) rc = scr_path_join(scr_dir, dset, &dir);
    }
    int status = rc == SCR_SUCCESS ? index_directory(prefix, dir, crc, json) : 1;
    free(scr_dir);
    free(dir);
    free(prefix);
    free(cwd);
    return status;
}

/* --build: the directory of a dataset the index lists. */
static int build_dataset(const char *prefix, int id, int crc)
{
    char *path = NULL, name[64], *dir = NULL;
    scr_kvtree *index = scr_kvtree_new();
    const char *dname = NULL;
    int rc = index ? scr_index_file_path(prefix, &path) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_index_file_read(path, index);
    if (rc == SCR_ERR_NOTFOUND)
        fprintf(stderr, "scr-index: no datasets in %s (no .scr/index.scr)\n", prefix);
    else if (rc == SCR_SUCCESS && scr_index_file_get_name(index, id, &dname) != SCR_SUCCESS) {
        fprintf(stderr, "scr-index: dataset %d is not in the index of %s\n", id, prefix);
        rc = SCR_ERR_NOTFOUND;
    }
    int complete = 0;
    /* with --crc a complete entry is checked all the same */
    if (rc == SCR_SUCCESS && !crc &&
        scr_index_file_get_complete(index, id, &complete) == SCR_SUCCESS && complete) {
        printf("dataset %d (%s) is complete; nothing to rebuild\n", id, dname);
        rc = SCR_ERR_STATE; /* done: no scan */
    }
    snprintf(name, sizeof(name), ".scr/scr.dataset.%d", id);
    if (rc == SCR_SUCCESS) rc = scr_path_join(prefix, name, &dir);
    int status = rc == SCR_SUCCESS     ? index_directory(prefix, dir, crc, 0)
                 : rc == SCR_ERR_STATE ? 0
                                       : 1;
    free(path);
    free(dir);
    scr_kvtree_delete(index);
    return status;
}

/* A number, or null when n is negative (nothing there, nothing recorded). */
static struct json_object *json_count(long long n)
{
    return n < 0 ? NULL : json_object_new_int64(n);
}

/* One file (or SCR 3.1 total) of a dataset that is not as its summary records. */
static struct json_object *bad_file_json(const struct scr_index_rebuild_dataset *d,
                                         const struct scr_dataset_check_bad *b)
{
    static const char *const what[] = {"file", "bytes", "files"};
    struct json_object *o = json_object_new_object();
    if (o == NULL) return NULL;
    if (json_object_object_add(o, "id", json_object_new_int(d->id)) != 0 ||
        json_object_object_add(o, "name", json_object_new_string(d->name)) != 0 ||
        json_object_object_add(o, "what", json_object_new_string(what[b->what])) != 0 ||
        json_object_object_add(o, "path", json_object_new_string(b->path)) != 0 ||
        json_object_object_add(o, "rank", b->rank < 0 ? NULL : json_object_new_int(b->rank)) != 0 ||
        json_object_object_add(o, "size", json_count(b->size)) != 0 ||
        json_object_object_add(o, "recorded", json_count(b->recorded)) != 0) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Every file of the datasets rebuilt that is not as its summary records, as one array. */
static struct json_object *bad_files_json(const struct scr_index_rebuild_report *rep)
{
    struct json_object *all = json_object_new_array();
    for (int i = 0; all != NULL && i < rep->ndatasets; i++) {
        const struct scr_index_rebuild_dataset *d = &rep->datasets[i];
        for (int f = 0; all != NULL && f < d->check.nbad; f++) {
            struct json_object *o = bad_file_json(d, &d->check.bad[f]);
            if (o == NULL || json_object_array_add(all, o) != 0) {
                json_object_put(o);
                json_object_put(all);
                all = NULL;
            }
        }
    }
    return all;
}

/* The --rebuild-index document: the index as --list --json shows it, and
 * what the rebuild found and did. */
static struct json_object *rebuild_json(const struct scr_index_rebuild_report *rep,
                                        const scr_index_list *list, const char *prefix)
{
    static const char *const found[] = {"readable", "missing", "damaged", "newer"};
    struct json_object *obj = scr_index_list_to_json(list, prefix),
                       *skipped = json_object_new_array();
    struct json_object *bad_files = bad_files_json(rep);
    int bad = obj == NULL || skipped == NULL || bad_files == NULL;
    for (int i = 0; !bad && i < rep->nskipped; i++) {
        struct json_object *s = json_object_new_object();
        char dir[64];
        snprintf(dir, sizeof(dir), "scr.dataset.%d", rep->skipped[i].id);
        bad = s == NULL || json_object_array_add(skipped, s) != 0;
        if (bad) json_object_put(s);
        bad = bad ||
              json_object_object_add(s, "id", json_object_new_int(rep->skipped[i].id)) != 0 ||
              json_object_object_add(s, "directory", json_object_new_string(dir)) != 0 ||
              json_object_object_add(s, "why", json_object_new_string(rep->skipped[i].why)) != 0;
    }
    bad = bad ||
          json_object_object_add(obj, "index", json_object_new_string(rep->index_path)) != 0 ||
          json_object_object_add(obj, "found", json_object_new_string(found[rep->found])) != 0 ||
          json_object_object_add(obj, "rebuilt", json_object_new_boolean(rep->rebuilt)) != 0 ||
          json_object_object_add(obj, "kept_as",
                                 rep->kept_as ? json_object_new_string(rep->kept_as) : NULL) != 0;
    if (!bad) {
        bad = json_object_object_add(obj, "not_indexed", skipped) != 0;
        if (!bad) skipped = NULL;
    }
    if (!bad) {
        bad = json_object_object_add(obj, "bad_files", bad_files) != 0;
        if (!bad) bad_files = NULL;
    }
    json_object_put(skipped);
    json_object_put(bad_files);
    if (bad) {
        json_object_put(obj);
        scr_err("out of memory building the JSON document");
        return NULL;
    }
    return obj;
}

/* --rebuild-index: the index made again when damaged or missing; returns the exit status. */
static int rebuild_index(const char *prefix, int json)
{
    struct scr_index_rebuild_options ro = {.damaged = 1, .require = 1, .announce = 0};
    struct scr_index_rebuild_report rep;
    scr_index_list *list = NULL;
    char *text = NULL;
    scr_kvtree *index = scr_kvtree_new();
    if (index == NULL) {
        scr_err("out of memory rebuilding an index");
        return 1;
    }
    int rc = scr_index_rebuild(prefix, &ro, &rep); /* an error says why */
    int nothing = rc == SCR_SUCCESS && rep.found == SCR_INDEX_FOUND_MISSING && !rep.rebuilt;
    if (rc == SCR_SUCCESS && !nothing) rc = scr_index_file_read(rep.index_path, index);
    if (rc == SCR_SUCCESS) rc = scr_index_list_build(index, &list);
    if (rc == SCR_SUCCESS && json) {
        struct json_object *obj = rebuild_json(&rep, list, prefix);
        const char *out = obj ? json_object_to_json_string_ext(
                                    obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                             JSON_C_TO_STRING_NOSLASHESCAPE)
                              : NULL;
        rc = out != NULL && printf("%s\n", out) >= 0 ? SCR_SUCCESS : SCR_ERR_IO;
        json_object_put(obj);
    } else if (rc == SCR_SUCCESS && rep.rebuilt) {
        rc = scr_index_rebuild_describe(&rep, &text);
        if (rc == SCR_SUCCESS && printf("%s\n", text) < 0) rc = SCR_ERR_IO;
        if (rc == SCR_SUCCESS) rc = scr_index_list_fprint_table(stdout, list);
    } else if (rc == SCR_SUCCESS && !nothing) {
        if (printf("%s reads; nothing was rebuilt\n", rep.index_path) < 0) rc = SCR_ERR_IO;
    }
    if (nothing)
        fprintf(stderr,
                "scr-index: nothing to rebuild in %s: no .scr/index.scr and no dataset directory\n",
                prefix);
    free(text);
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
    scr_index_rebuild_report_free(&rep);
    return rc == SCR_SUCCESS && !nothing ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"list", no_argument, NULL, 'l'},       {"current", required_argument, NULL, 'c'},
        {"drop", required_argument, NULL, 'd'}, {"drop-after", required_argument, NULL, 'A'},
        {"add", required_argument, NULL, 'a'},  {"build", required_argument, NULL, 'b'},
        {"crc", no_argument, NULL, 'C'},        {"rebuild-index", no_argument, NULL, 'r'},
        {"no-crc", no_argument, NULL, 'N'},     {"prefix", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},       {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},    {NULL, 0, NULL, 0},
    };
    enum action action = ACTION_NONE;
    const char *prefix_option = NULL, *name = NULL;
    int json = 0, crc = 1, crc_option = 0, build_id = 0, before = optind, c;
    scr_cli_init("scr-index");
    opterr = 0; /* say it ourselves, naming the command rather than argv[0] */
    for (; (c = getopt_long(argc, argv, ":lc:d:a:b:rp:jhV", options, NULL)) != -1;
         before = optind) {
        enum action chosen = ACTION_NONE;
        switch (c) {
        case 'l': chosen = ACTION_LIST; break;
        case 'c': chosen = ACTION_CURRENT; break;
        case 'd': chosen = ACTION_DROP; break;
        case 'A': chosen = ACTION_DROP_AFTER; break;
        case 'a': chosen = ACTION_ADD; break;
        case 'b': {
            char *end = NULL;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 1 || v > INT_MAX)
                return scr_cli_usage_error("--build wants a dataset id (an integer >= 1), not '%s'",
                                           optarg);
            build_id = (int)v;
            chosen = ACTION_BUILD;
            break;
        }
        case 'C':
        case 'N':
            crc = c == 'C';
            crc_option = c;
            break;
        case 'r': chosen = ACTION_REBUILD_INDEX; break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            prefix_option = optarg;
            break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-index (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: /* '?' or ':' */ return scr_cli_refused_option(c, argv, before);
        }
        if (chosen != ACTION_NONE) {
            if (action != ACTION_NONE)
                return scr_cli_usage_error("%s and %s cannot be combined: one action at a time",
                                           action_option(action), action_option(chosen));
            if (chosen != ACTION_LIST && chosen != ACTION_REBUILD_INDEX && optarg[0] == '\0')
                return scr_cli_usage_error("%s wants %s", action_option(chosen),
                                           chosen == ACTION_ADD ? "a dataset directory"
                                                                : "a dataset name");
            action = chosen;
            name = optarg;
        }
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (json && action != ACTION_NONE && action != ACTION_LIST && action != ACTION_REBUILD_INDEX &&
        action != ACTION_ADD)
        return scr_cli_usage_error("--json goes with --list, --rebuild-index or --add only");
    if (crc_option && action != ACTION_ADD && action != ACTION_BUILD)
        return scr_cli_usage_error("%s goes with --add or --build only",
                                   crc_option == 'C' ? "--crc" : "--no-crc");

    char *prefix = scr_cli_resolve_prefix(prefix_option);
    if (prefix == NULL) return 1;
    struct scr_acting as;
    if (scr_act_as_owner(prefix, SCR_OWNED_PREFIX, &as) != SCR_SUCCESS) {
        free(prefix);
        return 1;
    }
    int status = 1;
    switch (action) {
    case ACTION_NONE: /* listing is the default */
    case ACTION_LIST: status = list_datasets(prefix, json); break;
    case ACTION_CURRENT: status = make_current(prefix, name); break;
    case ACTION_DROP: status = drop_dataset(prefix, name); break;
    case ACTION_DROP_AFTER: status = drop_after(prefix, name); break;
    case ACTION_ADD: status = add_dataset(prefix, name, crc, json); break;
    case ACTION_BUILD: status = build_dataset(prefix, build_id, crc); break;
    case ACTION_REBUILD_INDEX: status = rebuild_index(prefix, json); break;
    }
    free(prefix);
    if (fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        status = 1;
    }
    return status;
}
