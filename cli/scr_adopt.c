/* scr_adopt.c — scr-adopt: make a directory of checkpoint files written
 * without SCR a checkpoint of the prefix, which a restart through the SCR
 * API then loads.
 *
 * The command parses its options and calls scr_adopt_dataset (adopt.h),
 * which checks everything before writing the dataset's records and index
 * entry; the files stay where they are. --json prints the outcome as one
 * JSON document (schema in scr-adopt(1)). The prefix is --prefix, else
 * $SCR_PREFIX, else the current directory. Exit status: 0 adopted, 1
 * refused or failed (the reason on stderr, no record of it left on the prefix),
 * 2 usage error. Run by root, it acts as the prefix's owner
 * (act_as_owner.h). Links only libscr-core (no MPI). */
#include "build_config.h"
#include "act_as_owner.h"
#include "adopt.h"
#include "cli_common.h"
#include "cli_json.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-adopt --name NAME (--owner RULE [--ranks N] | --global) [--no-current]\n"
            "                 [--prefix DIR] [--json] DSETDIR\n"
            "Record the files under DSETDIR, written without SCR, as checkpoint NAME of the\n"
            "prefix DIR, so that an SCR application restarts from them. The files stay where\n"
            "they are; DSETDIR is relative to DIR, or absolute, and must be inside it.\n"
            "\n"
            "  -n, --name NAME    the dataset's name (SCR_Have_restart offers it)\n"
            "  -o, --owner RULE   which rank reads which file: a pattern of the path relative\n"
            "                     to DSETDIR, with one %%d for the rank (e.g. 'rank_%%d.ckpt'),\n"
            "                     * for any characters but '/', %%%% for a '%%'\n"
            "  -r, --ranks N      the dataset has N ranks (default: the highest rank + 1, and\n"
            "                     every rank below it must own a file)\n"
            "  -g, --global       every file to rank 0 of a dataset of 1 rank\n"
            "      --no-current   leave the index's current dataset as it is\n"
            "  -j, --json         print the outcome as one JSON document\n"
            "  -p, --prefix DIR   the prefix directory (default: $SCR_PREFIX, else the\n"
            "                     current directory)\n"
            "  -h, --help         show this help\n"
            "  -V, --version      show the version\n"
            "\n"
            "Exit status: 0 if the directory was adopted; 1 if it was refused or could not\n"
            "be recorded (the reason is printed; no record of it is left); 2 for a usage\n"
            "error.\n");
}

/* What --json prints (schema in scr-adopt(1)); res NULL when the
 * directory was not adopted. */
static int print_json(const struct scr_adopt_options *o, const char *prefix,
                      const struct scr_adopt_result *res)
{
    struct json_object *obj = json_object_new_object();
    int bad = scr_cli_json_put(obj, "prefix", json_object_new_string(prefix)) ||
              scr_cli_json_put(obj, "directory", json_object_new_string(o->dir)) ||
              scr_cli_json_put(obj, "name", json_object_new_string(o->name)) ||
              scr_cli_json_put(obj, "adopted", json_object_new_boolean(res != NULL));
    if (!bad && res == NULL) {
        const char *e = scr_last_error();
        bad = scr_cli_json_put(obj, "error", json_object_new_string(e ? e : ""));
    }
    if (!bad && res != NULL)
        bad = scr_cli_json_put(obj, "dataset", json_object_new_int(res->id)) ||
              scr_cli_json_put(obj, "ranks", json_object_new_int(res->ranks)) ||
              scr_cli_json_put(obj, "files", json_object_new_int(res->files)) ||
              scr_cli_json_put(obj, "size", json_object_new_int64((int64_t)res->bytes)) ||
              scr_cli_json_put(obj, "current", json_object_new_boolean(o->make_current));
    return scr_cli_json_print_built(obj, bad, 0);
}

/* A positive rank count, or 0 (said) when text is none. */
static int parse_ranks(const char *text)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || v < 1 || v > INT_MAX) return 0;
    return (int)v;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"name", required_argument, NULL, 'n'},   {"owner", required_argument, NULL, 'o'},
        {"ranks", required_argument, NULL, 'r'},  {"global", no_argument, NULL, 'g'},
        {"no-current", no_argument, NULL, 'C'},   {"json", no_argument, NULL, 'j'},
        {"prefix", required_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
    };
    struct scr_adopt_options o = {NULL, NULL, NULL, NULL, 0, 0, 1};
    const char *prefix_option = NULL;
    int before = optind, c, json = 0;
    scr_cli_init("scr-adopt");
    opterr = 0; /* say it ourselves, naming the command rather than argv[0] */
    for (; (c = getopt_long(argc, argv, ":n:o:r:gp:jhV", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'n':
            if (optarg[0] == '\0') return scr_cli_usage_error("--name wants a dataset name");
            o.name = optarg;
            break;
        case 'o':
            if (optarg[0] == '\0')
                return scr_cli_usage_error("--owner wants a rule, such as 'rank_%%d.ckpt'");
            o.owner = optarg;
            break;
        case 'r':
            if ((o.ranks = parse_ranks(optarg)) == 0)
                return scr_cli_usage_error(
                    "--ranks wants a number of ranks (an integer >= 1), not '%s'", optarg);
            break;
        case 'g': o.global = 1; break;
        case 'C': o.make_current = 0; break;
        case 'j': json = 1; break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            prefix_option = optarg;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-adopt (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: /* '?' or ':' */ return scr_cli_refused_option(c, argv, before);
        }
    }
    if (optind == argc) return scr_cli_usage_error("no directory to adopt given");
    if (optind + 1 < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    o.dir = argv[optind];
    if (o.dir[0] == '\0') return scr_cli_usage_error("the directory to adopt is an empty string");
    if (o.name == NULL) return scr_cli_usage_error("--name is required: the dataset's name");
    if (o.global && o.owner != NULL)
        return scr_cli_usage_error("--owner and --global cannot be combined");
    if (o.global && o.ranks > 0)
        return scr_cli_usage_error("--ranks goes with --owner, not --global (1 rank)");
    if (!o.global && o.owner == NULL)
        return scr_cli_usage_error("say which rank reads which file: --owner RULE, or --global");

    char *prefix = scr_cli_resolve_prefix(prefix_option);
    if (prefix == NULL) return 1;
    struct scr_acting as;
    if (scr_act_as_owner(prefix, SCR_OWNED_PREFIX, &as) != SCR_SUCCESS) {
        free(prefix);
        return 1;
    }
    o.prefix = prefix;
    struct scr_adopt_result res;
    int status = 0;
    int rc = scr_adopt_dataset(&o, &res);
    if (rc != SCR_SUCCESS) {
        fprintf(stderr, "scr-adopt: %s was not adopted; the prefix holds no record of it\n", o.dir);
        status = 1;
    }
    if (json) {
        if (print_json(&o, prefix, rc == SCR_SUCCESS ? &res : NULL) != SCR_SUCCESS) status = 1;
    } else if (rc == SCR_SUCCESS) {
        printf("adopted %s as dataset %d (%s) of %s: %d file%s, %llu bytes, %d rank%s%s\n", o.dir,
               res.id, o.name, prefix, res.files, res.files == 1 ? "" : "s",
               (unsigned long long)res.bytes, res.ranks, res.ranks == 1 ? "" : "s",
               o.make_current ? "; it is the current checkpoint" : "");
    }
    free(prefix);
    if (fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        status = 1;
    }
    return status;
}
