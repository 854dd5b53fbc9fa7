/* scr_print.c — scr-print: show SCR hash files as an indented tree or JSON.
 *
 * Reads each FILE in turn. A file that is missing or damaged gets one line on
 * stderr naming the file and the fault; the others are still printed and the
 * exit status is 1. Links only libscr-core (no MPI). */
#include "build_config.h"
#include "config_parse.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "kvtree_json.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out, "Usage: scr-print [--json] [--indent N] FILE...\n"
                 "Print SCR hash files (index, summary, filemaps, halt file, ...).\n"
                 "\n"
                 "  -j, --json       print JSON instead of an indented tree\n"
                 "  -i, --indent N   spaces per tree level (default 2)\n"
                 "  -h, --help       show this help\n"
                 "  -V, --version    show the version\n"
                 "\n"
                 "Exit status: 0 if every file was printed, 1 if any file was missing or\n"
                 "damaged, 2 for a usage error.\n");
}

#define APP_CONF_NAME "app.conf"

/* One line of app.conf: every pair becomes KEY -> VALUE in the tree ctx. */
static int take_app_line(void *ctx, const char *source, int line,
                         const struct scr_config_pair *pairs, int npairs)
{
    (void)source;
    (void)line;
    for (int i = 0; i < npairs; i++)
        if (scr_kvtree_set_kv(ctx, pairs[i].key, pairs[i].value) == NULL) return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* 1 when path names an app.conf that is not a hash file: empty, or lines. */
static int is_app_conf_text(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, APP_CONF_NAME) != 0) return 0;
    unsigned char magic[4] = {0};
    int fd;
    scr_log_set_quiet(1); /* the hash reader says why it cannot be opened */
    int rc = scr_open_regular(path, O_RDONLY, 0, &fd);
    scr_log_set_quiet(0);
    if (rc != SCR_SUCCESS) return 0;
    size_t n = 0;
    rc = scr_read_full(fd, magic, sizeof(magic), &n, path);
    close(fd);
    if (rc != SCR_SUCCESS) return 0;
    uint32_t m =
        (uint32_t)magic[0] << 24 | (uint32_t)magic[1] << 16 | (uint32_t)magic[2] << 8 | magic[3];
    return n < sizeof(magic) || m != SCR_KVTREE_FILE_MAGIC;
}

/* Read path into a new tree; says what went wrong on one line if it fails. */
static scr_kvtree *load(const char *path)
{
    scr_kvtree *tree = scr_kvtree_new();
    if (tree == NULL) return NULL;
    int rc = is_app_conf_text(path) ? scr_config_parse_file(path, take_app_line, tree)
                                    : scr_kvtree_read_file(path, tree);
    if (rc == SCR_ERR_NOTFOUND) scr_err("%s: no such file", path);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(tree);
        return NULL;
    }
    return tree;
}

static int print_tree_files(char **paths, int count, int indent)
{
    int status = 0;
    for (int i = 0; i < count; i++) {
        scr_kvtree *tree = load(paths[i]);
        if (tree == NULL) {
            status = 1;
            continue;
        }
        if (count > 1) printf("%s==> %s <==\n", i ? "\n" : "", paths[i]);
        if (scr_kvtree_fprint(stdout, tree, indent) != SCR_SUCCESS) {
            scr_err("writing to standard output failed");
            status = 1;
        }
        scr_kvtree_delete(tree);
    }
    return status;
}

/* One file: its tree as a JSON object. Several: an object keyed by path. */
static int print_json_files(char **paths, int count)
{
    if (count == 1) {
        scr_kvtree *tree = load(paths[0]);
        if (tree == NULL) return 1;
        int rc = scr_kvtree_fprint_json(stdout, tree);
        scr_kvtree_delete(tree);
        return rc == SCR_SUCCESS ? 0 : 1;
    }
    int status = 0;
    struct json_object *all = json_object_new_object();
    if (all == NULL) {
        scr_err("out of memory");
        return 1;
    }
    for (int i = 0; i < count; i++) {
        scr_kvtree *tree = load(paths[i]);
        if (tree == NULL) {
            status = 1;
            continue;
        }
        struct json_object *obj = scr_kvtree_to_json(tree);
        scr_kvtree_delete(tree);
        if (obj == NULL || json_object_object_add(all, paths[i], obj) != 0) {
            json_object_put(obj);
            status = 1;
        }
    }
    const char *text = json_object_to_json_string_ext(
        all, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (text == NULL || printf("%s\n", text) < 0) status = 1;
    json_object_put(all);
    return status;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {"indent", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, indent = 2, c;
    scr_log_set_prefix("scr-print");
    while ((c = getopt_long(argc, argv, "ji:hV", options, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'i': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 0 || v > 16) {
                fprintf(stderr, "scr-print: --indent wants a number from 0 to 16, not '%s'\n",
                        optarg);
                return 2;
            }
            indent = (int)v;
            break;
        }
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-print (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "scr-print: no file given\n");
        usage(stderr);
        return 2;
    }
    int status = json ? print_json_files(argv + optind, argc - optind)
                      : print_tree_files(argv + optind, argc - optind, indent);
    if (fflush(stdout) != 0) status = 1;
    return status;
}
