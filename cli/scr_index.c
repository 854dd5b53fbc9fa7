/* scr_index.c — scr-index: the datasets SCR keeps on a prefix.
 *
 * Reads <prefix>/.scr/index.scr under a shared lock and lists its datasets,
 * newest first, as a table or as JSON; index_list.h builds and renders the
 * rows. --add indexes a dataset directory a scavenge filled and --build
 * rebuilds the missing files of an indexed one (both through scan_index.h:
 * scan, rebuild, summary, index entry). The prefix is --prefix, else
 * $SCR_PREFIX, else the current directory. Exit status: 0 listed or indexed
 * complete, 1 no index, a damaged one or a dataset that could not be
 * indexed (said on stderr), 2 usage error, 3 indexed but incomplete (the
 * ranks that lack files are named). Links only libscr-core (no MPI). */
#include "build_config.h"
#include "index_file.h"
#include "index_list.h"
#include "kvtree.h"
#include "scan_index.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command was asked to do: each action has a value here, its
 * option and a case in main(). */
enum action { ACTION_NONE, ACTION_LIST, ACTION_ADD, ACTION_BUILD };

#define EXIT_INCOMPLETE 3

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-index [--list | --add DSET | --build ID] [--prefix DIR] [--json] [--crc]\n"
            "Show the datasets SCR keeps in DIR/.scr/index.scr, or add one.\n"
            "\n"
            "  -l, --list         list the datasets, newest first (the default)\n"
            "  -a, --add DSET     index the dataset directory DSET (a path, or a name in\n"
            "                     DIR/.scr such as scr.dataset.6): scan it, rebuild\n"
            "                     missing files from redundancy data, write its summary\n"
            "  -b, --build ID     rebuild the missing files of indexed dataset ID\n"
            "  -c, --crc          with --add or --build, also check every file's CRC32\n"
            "  -p, --prefix DIR   the prefix directory (default: $SCR_PREFIX, else the\n"
            "                     current directory)\n"
            "  -j, --json         print JSON instead of a table\n"
            "  -h, --help         show this help\n"
            "  -V, --version      show the version\n"
            "\n"
            "Exit status: 0 if the datasets were listed or the dataset indexed complete,\n"
            "1 if the index is missing or damaged or the dataset could not be indexed,\n"
            "2 for a usage error, 3 if the dataset was indexed incomplete (the ranks\n"
            "whose files are lost are named).\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Say what was wrong with the command line; returns the exit status 2. */
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("scr-index: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'scr-index --help' for more information.\n", stderr);
    return 2;
}

/* Explain why getopt_long refused an option (it returned c, having started
 * at argument before); returns the exit status 2. A long option is a whole
 * argument and moves optind on; a short one may sit inside a cluster such
 * as -jx, known only by optopt. */
static int refused_option(int c, char **argv, int before)
{
    const char *arg = argv[optind - 1];
    if (optind == before || strncmp(arg, "--", 2) != 0) {
        if (c == ':') return usage_error("option '-%c' wants an argument", optopt);
        return usage_error("unknown option '-%c'", optopt);
    }
    if (c == ':') return usage_error("option '%s' wants an argument", arg);
    if (optopt != 0) return usage_error("option '%s' takes no argument", arg);
    return usage_error("unknown option '%s'", arg);
}

/* --prefix, else $SCR_PREFIX, else the current directory, in a new string. */
static char *resolve_prefix(const char *option)
{
    const char *env = getenv("SCR_PREFIX");
    const char *given = option != NULL ? option : (env != NULL && env[0] != '\0') ? env : NULL;
    char *prefix = given != NULL ? strdup(given) : getcwd(NULL, 0);
    if (prefix == NULL) {
        if (given != NULL) scr_err("out of memory");
        else scr_err("cannot tell the current directory: %s", strerror(errno));
    }
    return prefix;
}

static int print_json(const scr_index_list *list, const char *prefix)
{
    struct json_object *obj = scr_index_list_to_json(list, prefix);
    if (obj == NULL) return SCR_ERR_NOMEM;
    const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
                                                              JSON_C_TO_STRING_SPACED |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);
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
    int missing = rc == SCR_ERR_NOTFOUND;
    if (rc == SCR_SUCCESS || missing) rc = scr_index_list_build(index, &list);
    if (rc == SCR_SUCCESS) {
        if (json) rc = print_json(list, prefix);
        else if (!missing) rc = scr_index_list_fprint_table(stdout, list);
    }
    if (missing) fprintf(stderr, "scr-index: no datasets in %s (no .scr/index.scr)\n", prefix);
    scr_index_list_delete(list);
    scr_kvtree_delete(index);
    free(path);
    return rc == SCR_SUCCESS && !missing ? 0 : 1;
}

/* Index the dataset directory dir; returns the exit status. */
static int index_directory(const char *prefix, const char *dir, int crc)
{
    struct scr_scan_index_options o = {prefix, dir, crc, 0};
    struct scr_scan_index_result res;
    if (scr_scan_index_dataset(&o, &res) != SCR_SUCCESS) {
        fprintf(stderr, "scr-index: %s was not indexed\n", dir);
        return 1;
    }
    if (res.complete) {
        printf("dataset %d indexed complete%s", res.id, res.rebuilt ? " after rebuilding " : "");
        if (res.rebuilt) printf("%d rank(s)", res.rebuilt);
        printf("\n");
    } else {
        printf("dataset %d indexed incomplete: the files of %d rank(s) are lost:", res.id, res.nmissing);
        for (int i = 0; i < res.nmissing; i++) printf(" %d", res.missing[i]);
        printf("\n");
    }
    free(res.missing);
    return res.complete ? 0 : EXIT_INCOMPLETE;
}

/* --add: dset is a path, or a name in <prefix>/.scr. */
static int add_dataset(const char *prefix, const char *dset, int crc)
{
    char *scr_dir = NULL, *dir = NULL, *cwd = NULL;
    int rc = SCR_SUCCESS;
    if (dset[0] == '/') {
        rc = scr_path_normalize(dset, &dir);
    } else if (strchr(dset, '/') != NULL) {
        cwd = getcwd(NULL, 0);
        rc = cwd ? scr_path_join(cwd, dset, &dir) : SCR_ERR_IO;
    } else {
        rc = scr_path_join(prefix, ".scr", &scr_dir);
        if (rc == SCR_SUCCESS) rc = scr_path_join(scr_dir, dset, &dir);
    }
    int status = rc == SCR_SUCCESS ? index_directory(prefix, dir, crc) : 1;
    free(scr_dir);
    free(dir);
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
    if (rc == SCR_ERR_NOTFOUND) fprintf(stderr, "scr-index: no datasets in %s (no .scr/index.scr)\n", prefix);
    else if (rc == SCR_SUCCESS && scr_index_file_get_name(index, id, &dname) != SCR_SUCCESS) {
        fprintf(stderr, "scr-index: dataset %d is not in the index of %s\n", id, prefix);
        rc = SCR_ERR_NOTFOUND;
    }
    int complete = 0;
    if (rc == SCR_SUCCESS && scr_index_file_get_complete(index, id, &complete) == SCR_SUCCESS && complete) {
        printf("dataset %d (%s) is complete; nothing to rebuild\n", id, dname);
        rc = SCR_ERR_STATE; /* done: no scan */
    }
    snprintf(name, sizeof(name), ".scr/scr.dataset.%d", id);
    if (rc == SCR_SUCCESS) rc = scr_path_join(prefix, name, &dir);
    int status = rc == SCR_SUCCESS ? index_directory(prefix, dir, crc) : rc == SCR_ERR_STATE ? 0 : 1;
    free(path);
    free(dir);
    scr_kvtree_delete(index);
    return status;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        { "list", no_argument, NULL, 'l' },
        { "add", required_argument, NULL, 'a' },
        { "build", required_argument, NULL, 'b' },
        { "crc", no_argument, NULL, 'c' },
        { "prefix", required_argument, NULL, 'p' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    enum action action = ACTION_NONE;
    const char *prefix_option = NULL, *add_dir = NULL;
    int json = 0, crc = 0, build_id = 0, before = optind, c;
    scr_log_set_prefix("scr-index");
    opterr = 0; /* say it ourselves, naming the command rather than argv[0] */
    for (; (c = getopt_long(argc, argv, ":la:b:cp:jhV", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'l':
        case 'a':
        case 'b':
            if (action != ACTION_NONE) return usage_error("give one of --list, --add and --build");
            action = c == 'l' ? ACTION_LIST : c == 'a' ? ACTION_ADD : ACTION_BUILD;
            if (c == 'a' && optarg[0] == '\0') return usage_error("--add wants a dataset directory");
            if (c == 'a') add_dir = optarg;
            if (c == 'b') {
                char *end = NULL;
                errno = 0;
                long v = strtol(optarg, &end, 10);
                if (end == optarg || *end || errno || v < 1 || v > INT_MAX)
                    return usage_error("--build wants a dataset id (an integer >= 1), not '%s'", optarg);
                build_id = (int)v;
            }
            break;
        case 'c':
            crc = 1;
            break;
        case 'p':
            if (optarg[0] == '\0') return usage_error("--prefix wants a directory");
            prefix_option = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("scr-index (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
            return 0;
        default: /* '?' or ':' */
            return refused_option(c, argv, before);
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);

    char *prefix = resolve_prefix(prefix_option);
    if (prefix == NULL) return 1;
    int status = 1;
    switch (action) {
    case ACTION_NONE: /* listing is the default */
    case ACTION_LIST:
        status = list_datasets(prefix, json);
        break;
    case ACTION_ADD:
        status = add_dataset(prefix, add_dir, crc);
        break;
    case ACTION_BUILD:
        status = build_dataset(prefix, build_id, crc);
        break;
    }
    free(prefix);
    if (fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        status = 1;
    }
    return status;
}
