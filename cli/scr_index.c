/* scr_index.c — scr-index: the datasets SCR keeps on a prefix.
 *
 * Reads <prefix>/.scr/index.scr under a shared lock and lists its datasets,
 * newest first, as a table or as JSON; index_list.h builds and renders the
 * rows. The prefix is --prefix, else $SCR_PREFIX, else the current
 * directory. Exit status: 0 listed, 1 no index or a damaged one (one line on
 * stderr), 2 usage error. Links only libscr-core (no MPI). */
#include "build_config.h"
#include "index_file.h"
#include "index_list.h"
#include "kvtree.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command was asked to do. Listing is the only action so far; each
 * further one adds a value here, its option and a case in main(). */
enum action { ACTION_NONE, ACTION_LIST };

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-index [--list] [--prefix DIR] [--json]\n"
            "Show the datasets SCR keeps in DIR/.scr/index.scr.\n"
            "\n"
            "  -l, --list         list the datasets, newest first (the default)\n"
            "  -p, --prefix DIR   the prefix directory (default: $SCR_PREFIX, else the\n"
            "                     current directory)\n"
            "  -j, --json         print JSON instead of a table\n"
            "  -h, --help         show this help\n"
            "  -V, --version      show the version\n"
            "\n"
            "Exit status: 0 if the datasets were listed, 1 if the index is missing or\n"
            "damaged, 2 for a usage error.\n");
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

int main(int argc, char **argv)
{
    static const struct option options[] = {
        { "list", no_argument, NULL, 'l' },
        { "prefix", required_argument, NULL, 'p' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    enum action action = ACTION_NONE;
    const char *prefix_option = NULL;
    int json = 0, before = optind, c;
    scr_log_set_prefix("scr-index");
    opterr = 0; /* say it ourselves, naming the command rather than argv[0] */
    for (; (c = getopt_long(argc, argv, ":lp:jhV", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'l':
            action = ACTION_LIST;
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
    }
    free(prefix);
    if (fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        status = 1;
    }
    return status;
}
