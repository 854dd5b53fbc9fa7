/* scr_scavenge.c — scr-scavenge: copy this node's part of the newest dataset
 * in cache to the prefix, without MPI.
 *
 * A thin front of scavenge.h. The control directory is --cntl-dir, else
 * derived as libscr derives it: SCR_CNTL_BASE of the SCR configuration with
 * its patterns expanded for this node (--node, else $SCR_NODE_NAME, ...),
 * then <user>/scr.<job id>. The prefix is --prefix, else the one SCR_Init
 * recorded in the control directory (job_file.h), else SCR_PREFIX of the
 * configuration, else the current directory. Progress goes to stderr
 * (util_progress.h); --json prints the outcome as one JSON object on stdout.
 * Exit status: 0 done (or nothing needed),
 * 1 some file could not be copied or records could not be used, 2 usage
 * error, 3 no dataset in this node's cache (or, with --status, none that
 * needs a copy). Run by root, it acts as the control directory's owner, who
 * must own the prefix too (act_as_owner.h). Links only libscr-core. */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "cli_json.h"
#include "config.h"
#include "event_log.h"
#include "job_dir.h"
#include "job_env.h"
#include "job_file.h"
#include "scavenge.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"
#include "util_progress.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define EXIT_NOTHING 3

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-scavenge [OPTION]...\n"
            "Copy this node's files of the newest dataset in cache (or of --id) to the\n"
            "prefix directory, with a <rank>.scrfilemap per rank; then run\n"
            "'scr-index --add' once for the whole dataset.\n"
            "\n"
            "  -c, --cntl-dir DIR      this node's control directory (default: derived\n"
            "                          from SCR_CNTL_BASE, the node name, user and job id)\n"
            "  -n, --node NAME         node name for SCR_CNTL_BASE's %%N (default as libscr)\n"
            "  -p, --prefix DIR        the prefix directory (default: the one the job's runs\n"
            "                          recorded, else SCR_PREFIX, else the current directory)\n"
            "  -i, --id ID             the dataset to copy (default: the newest in cache)\n"
            "  -r, --failed-ranks LIST also copy the PARTNER copies held here for these\n"
            "                          ranks (e.g. 3,8-11)\n"
            "  -N, --failed-nodes LIST also copy the PARTNER copies held here for the\n"
            "                          ranks of these nodes (comma-separated names)\n"
            "  -f, --force             copy even if the dataset is already on the prefix\n"
            "  -s, --status            only say which dataset is newest in cache and\n"
            "                          whether it still needs a copy to the prefix\n"
            "  -j, --json              print the outcome (of --status, or of the copy)\n"
            "                          as one JSON object\n"
            "  -h, --help              show this help\n"
            "  -V, --version           show the version\n"
            "\n"
            "Exit status: 0 done (with --status: the newest dataset needs a copy), 1 a\n"
            "file could not be copied or a record could not be used, 2 usage error, 3 no\n"
            "dataset in this node's cache (with --status: none that needs a copy).\n");
}

/* "3,8-11" into a new array of ranks; SCR_ERR_ARG when text is not such a list. */
static int parse_ranks(const char *text, int **out, int *out_n)
{
    int *ranks = NULL, n = 0, cap = 0;
    const char *p = text;
    while (*p) {
        char *end = NULL;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || errno || a < 0 || a > INT_MAX) goto bad;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || errno || b < a || b > INT_MAX || b - a > 1 << 24) goto bad;
        }
        for (long r = a; r <= b; r++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                int *grown = realloc(ranks, sizeof(int) * (size_t)cap);
                if (grown == NULL) goto bad;
                ranks = grown;
            }
            ranks[n++] = (int)r;
        }
        if (*end == ',')
            end++;
        else if (*end != '\0')
            goto bad;
        p = end;
    }
    if (n == 0) goto bad;
    *out = ranks;
    *out_n = n;
    return SCR_SUCCESS;
bad:
    free(ranks);
    return SCR_ERR_ARG;
}

/* "a,b,c" split in place into a new array of names; SCR_ERR_ARG when text
 * names none. */
static int parse_names(char *text, char ***out, int *out_n)
{
    int n = 1;
    for (char *p = text; *p; p++) n += *p == ',';
    char **names = calloc((size_t)n, sizeof(char *));
    if (names == NULL) return SCR_ERR_NOMEM;
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        names[k++] = tok;
    if (k == 0) {
        free(names);
        return SCR_ERR_ARG;
    }
    *out = names;
    *out_n = k;
    return SCR_SUCCESS;
}

/* dir made absolute against the current directory (the master filemap
 * names its filemaps by absolute paths), in *out. */
static int absolute_dir(const char *dir, char **out)
{
    if (dir[0] == '/') return scr_path_normalize(dir, out);
    char *cwd = getcwd(NULL, 0);
    if (cwd == NULL) {
        scr_err("cannot tell the current directory to place %s: %s", dir, strerror(errno));
        return SCR_ERR_IO;
    }
    int rc = scr_path_join(cwd, dir, out);
    free(cwd);
    return rc;
}

/* The control directory: --cntl-dir, else as libscr would find it; absolute. */
static int derive_cntl_dir(const char *node_option, const char *cntl_option, char **out_cntl)
{
    if (cntl_option != NULL) return absolute_dir(cntl_option, out_cntl);
    char *found = NULL;
    scr_config *cfg = scr_config_new();
    int rc = cfg ? scr_config_load(cfg, &scr_cli_config_sources) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_cli_job_cntl_dir(cfg, node_option, &found);
    if (rc == SCR_SUCCESS) rc = absolute_dir(found, out_cntl);
    free(found);
    scr_config_delete(cfg);
    return rc;
}

/* The prefix: --prefix, else the one the job's runs recorded in the
 * control directory cntl, else as libscr would find it; absolute. */
static int derive_prefix(const char *cntl, const char *prefix_option, char **out_prefix)
{
    const char *prefix = NULL;
    scr_config *cfg = scr_config_new();
    int rc = cfg ? scr_config_load(cfg, &scr_cli_config_sources) : SCR_ERR_NOMEM;
    /* the prefix the job's runs used, as SCR_Init recorded it on this node */
    if (rc == SCR_SUCCESS && prefix_option == NULL) {
        int jrc = scr_job_file_prefix_of(cntl, out_prefix);
        if (jrc == SCR_SUCCESS || jrc == SCR_ERR_NOMEM) {
            scr_config_delete(cfg);
            return jrc;
        }
        if (jrc != SCR_ERR_NOTFOUND)
            scr_warn("not using the recorded prefix: %s", scr_last_error());
    }
    if (rc == SCR_SUCCESS && prefix_option == NULL &&
        scr_config_get(cfg, "SCR_PREFIX", &prefix) == SCR_SUCCESS && prefix != NULL &&
        prefix[0] == '\0')
        prefix = NULL;
    if (prefix_option) prefix = prefix_option;
    char *cwd = getcwd(NULL, 0);
    if (rc == SCR_SUCCESS && cwd == NULL) {
        scr_err("cannot tell the current directory: %s", strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS)
        rc = prefix == NULL     ? scr_path_normalize(cwd, out_prefix)
             : prefix[0] == '/' ? scr_path_normalize(prefix, out_prefix)
                                : scr_path_join(cwd, prefix, out_prefix);
    free(cwd);
    scr_config_delete(cfg);
    return rc;
}

/* --- actions --------------------------------------------------------------------- */

static int print_status(const char *cntl, int json)
{
    int id = 0, flushed = 0;
    char *name = NULL;
    int rc = scr_scavenge_newest(cntl, &id, &flushed, &name);
    if (rc != SCR_SUCCESS && rc != SCR_ERR_NOTFOUND) return 1;
    int status = rc == SCR_ERR_NOTFOUND || flushed ? EXIT_NOTHING : 0;
    if (json) {
        struct json_object *obj = json_object_new_object();
        int bad =
            scr_cli_json_put(obj, "cntl_dir", json_object_new_string(cntl)) ||
            scr_cli_json_put_or_null(obj, "dataset", rc == SCR_SUCCESS, json_object_new_int(id));
        if (!bad && rc == SCR_SUCCESS)
            bad = scr_cli_json_put_or_null(obj, "name", name != NULL,
                                           name ? json_object_new_string(name) : NULL) ||
                  scr_cli_json_put(obj, "on_prefix", json_object_new_boolean(flushed));
        if (!bad) bad = scr_cli_json_put(obj, "needs_copy", json_object_new_boolean(status == 0));
        free(name);
        return scr_cli_json_print_built(obj, bad, 0) == SCR_SUCCESS ? status : 1;
    }
    if (rc == SCR_ERR_NOTFOUND)
        printf("no dataset in the cache of %s\n", cntl);
    else
        printf("dataset %d%s%s%s: %s\n", id, name ? " (" : "", name ? name : "", name ? ")" : "",
               flushed ? "on the prefix already" : "needs a copy to the prefix");
    free(name);
    return status;
}

/* The scavenge event of this node's part, in the prefix's event log. */
static void log_scavenge(const struct scr_scavenge_options *o, const char *node,
                         const struct scr_scavenge_report *rep, int rc, double seconds)
{
    struct scr_event_log log;
    if (scr_event_log_setup_outside(&log, o->prefix, NULL) != SCR_SUCCESS) return;
    struct scr_event_field fields[] = {SCR_EVENT_STR("node", node ? node : log.host),
                                       SCR_EVENT_INT("files", rep->files_copied),
                                       SCR_EVENT_INT("files_failed", rep->files_failed)};
    struct scr_event ev = SCR_EVENT_INITIALIZER(SCR_EVENT_SCAVENGE);
    ev.status = rc == SCR_SUCCESS ? SCR_EVENT_OK : SCR_EVENT_FAILED;
    ev.dataset_id = rep->id;
    ev.bytes = (long long)rep->bytes_copied;
    ev.seconds = seconds;
    ev.reason = rc == SCR_SUCCESS ? NULL : "some files could not be copied";
    ev.fields = fields;
    ev.nfields = 3;
    scr_event_log_write(&log, &ev);
    scr_event_log_close(&log);
}

static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct scr_progress *p = ctx;
    p->total = total;
    scr_progress_update(p, done);
}

/* The report of a scavenge run as JSON (see the man page). */
static struct json_object *report_json(const struct scr_scavenge_options *o, int rc,
                                       const struct scr_scavenge_report *rep)
{
    struct json_object *obj = json_object_new_object();
    const char *outcome = rc == SCR_ERR_NOTFOUND                      ? "nothing"
                          : rc == SCR_SUCCESS && rep->already_flushed ? "on_prefix"
                          : rc == SCR_SUCCESS                         ? "copied"
                          : rc == SCR_FAILURE                         ? "incomplete"
                                                                      : "failed";
    int known = rc == SCR_SUCCESS || rc == SCR_FAILURE;
    int bad = scr_cli_json_put(obj, "outcome", json_object_new_string(outcome)) ||
              scr_cli_json_put(obj, "prefix", json_object_new_string(o->prefix)) ||
              scr_cli_json_put(obj, "cntl_dir", json_object_new_string(o->cntl_dir)) ||
              scr_cli_json_put_or_null(obj, "dataset", known, json_object_new_int(rep->id));
    if (!bad && known)
        bad = scr_cli_json_put(obj, "ranks", json_object_new_int(rep->ranks)) ||
              scr_cli_json_put(obj, "partner_ranks", json_object_new_int(rep->partner_ranks)) ||
              scr_cli_json_put(obj, "files_copied", json_object_new_int(rep->files_copied)) ||
              scr_cli_json_put(obj, "bytes_copied",
                               json_object_new_int64((int64_t)rep->bytes_copied)) ||
              scr_cli_json_put(obj, "files_failed", json_object_new_int(rep->files_failed));
    if (!bad && rc != SCR_SUCCESS && rc != SCR_ERR_NOTFOUND) {
        const char *e = scr_last_error();
        bad = scr_cli_json_put(obj, "error", json_object_new_string(e ? e : ""));
    }
    if (bad) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

static int scavenge(struct scr_scavenge_options *o, const char *node, int json)
{
    struct scr_scavenge_report rep;
    struct scr_progress p;
    struct timespec start, end;
    memset(&rep, 0, sizeof(rep));
    clock_gettime(CLOCK_MONOTONIC, &start);
    scr_progress_begin(&p, stderr, "scr-scavenge", SCR_PROGRESS_BYTES, 0);
    o->progress = show_progress;
    o->progress_ctx = &p;
    int rc = scr_scavenge_node(o, &rep);
    scr_progress_end(&p);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if ((rc == SCR_SUCCESS && !rep.already_flushed) || rc == SCR_FAILURE)
        log_scavenge(o, node, &rep, rc,
                     (double)(end.tv_sec - start.tv_sec) +
                         (double)(end.tv_nsec - start.tv_nsec) / 1e9);
    int status = rc == SCR_ERR_NOTFOUND ? EXIT_NOTHING : rc == SCR_SUCCESS ? 0 : 1;
    if (json) return scr_cli_json_print(report_json(o, rc, &rep), 0) == SCR_SUCCESS ? status : 1;
    if (rc == SCR_SUCCESS && rep.already_flushed) {
        printf("dataset %d is on the prefix already (use --force to copy it again)\n", rep.id);
        return 0;
    }
    if (rc == SCR_SUCCESS || rc == SCR_FAILURE)
        printf("dataset %d: %d file(s), %llu bytes copied for %d rank(s) and %d partner copy(ies); "
               "%d file(s) not copied\n",
               rep.id, rep.files_copied, (unsigned long long)rep.bytes_copied, rep.ranks,
               rep.partner_ranks, rep.files_failed);
    return status;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"cntl-dir", required_argument, NULL, 'c'},
        {"node", required_argument, NULL, 'n'},
        {"prefix", required_argument, NULL, 'p'},
        {"id", required_argument, NULL, 'i'},
        {"failed-ranks", required_argument, NULL, 'r'},
        {"failed-nodes", required_argument, NULL, 'N'},
        {"force", no_argument, NULL, 'f'},
        {"status", no_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    struct scr_scavenge_options o;
    const char *cntl_option = NULL, *node_option = NULL, *prefix_option = NULL;
    int *ranks = NULL, nranks = 0, nnodes = 0, status_only = 0, json = 0, c;
    char **nodes = NULL;
    memset(&o, 0, sizeof(o));
    scr_cli_init("scr-scavenge");
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:n:p:i:r:N:fsjhV", options, NULL)) != -1) {
        char *end = NULL;
        long v;
        switch (c) {
        case 'c': cntl_option = optarg; break;
        case 'n': node_option = optarg; break;
        case 'p': prefix_option = optarg; break;
        case 'i':
            errno = 0;
            v = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 1 || v > INT_MAX)
                return scr_cli_usage_error("--id wants a dataset id (an integer >= 1), not '%s'",
                                           optarg);
            o.id = (int)v;
            break;
        case 'r':
            free(ranks);
            if (parse_ranks(optarg, &ranks, &nranks) != SCR_SUCCESS)
                return scr_cli_usage_error("--failed-ranks wants ranks such as 3,8-11, not '%s'",
                                           optarg);
            break;
        case 'N':
            free(nodes);
            if (parse_names(optarg, &nodes, &nnodes) != SCR_SUCCESS)
                return scr_cli_usage_error(
                    "--failed-nodes wants node names separated by commas, not '%s'", optarg);
            break;
        case 'f': o.force = 1; break;
        case 's': status_only = 1; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-scavenge (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        case ':': return scr_cli_usage_error("option '%s' wants an argument", argv[optind - 1]);
        default: return scr_cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    const char *bad_node = node_option ? scr_job_env_name_problem(node_option) : NULL;
    if (bad_node != NULL)
        return scr_cli_usage_error("--node '%s' cannot name a directory: %s", node_option,
                                   bad_node);

    /* run by root, everything is done as the owner of the control directory,
     * who must own the prefix too */
    char *cntl = NULL, *prefix = NULL;
    struct scr_acting as;
    int status = 1;
    if (derive_cntl_dir(node_option, cntl_option, &cntl) != SCR_SUCCESS ||
        scr_act_as_owner(cntl, SCR_OWNED_CNTL_DIR, &as) != SCR_SUCCESS) {
        /* said why */
    } else if (status_only) {
        status = print_status(cntl, json);
    } else if (derive_prefix(cntl, prefix_option, &prefix) == SCR_SUCCESS &&
               scr_act_as_check_owner(&as, prefix, SCR_OWNED_PREFIX) == SCR_SUCCESS) {
        o.cntl_dir = cntl;
        o.prefix = prefix;
        o.failed_ranks = ranks;
        o.nfailed_ranks = nranks;
        o.failed_nodes = (const char *const *)nodes;
        o.nfailed_nodes = nnodes;
        status = scavenge(&o, node_option, json);
    }
    free(cntl);
    free(prefix);
    free(ranks);
    free(nodes);
    if (fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        status = 1;
    }
    return status;
}
