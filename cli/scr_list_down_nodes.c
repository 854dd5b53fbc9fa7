/* scr_list_down_nodes.c — scr-list-down-nodes: the nodes of an allocation a
 * relaunch must avoid.
 *
 * A thin front over down_nodes.h: the node list is the argument, else
 * $SLURM_NODELIST (then $SLURM_JOB_NODELIST); the exclude list --exclude,
 * else $SCR_EXCLUDE_NODES; --down names nodes to count down unchecked;
 * health records come from --health-dir, else <prefix>/.scr/health; --free
 * runs the node health check on this node now (its job's directories and
 * their free space); --probe-timeout bounds the slurmd probe; --log records
 * each down node as an event, with --secs as the job's run time (SCR's
 * meaning). Prints the down nodes
 * as one host list (srun --exclude takes it as is), or per node with
 * --reason, or JSON. Exit status: 0 no node is down, 1 some are, 2 usage
 * error (a bad node list included), 3 another failure. Run by root, it
 * reads and writes the prefix (or --health-dir) as its owner
 * (act_as_owner.h). Links libslurm and libscr-core, never MPI. */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "config.h"
#include "config_params.h"
#include "down_nodes.h"
#include "event_log.h"
#include "job_env.h"
#include "kvtree_util.h"
#include "node_health.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_parse.h"
#include "util_path.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2
#define EXIT_NONE_DOWN 0
#define EXIT_SOME_DOWN 1
#define EXIT_FAILURE_OTHER 3

enum output { OUTPUT_HOSTLIST, OUTPUT_REASONS, OUTPUT_JSON };

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-list-down-nodes [OPTION]... [NODELIST]\n"
            "Print the nodes of NODELIST (a Slurm host list such as n[1-4,7]; default\n"
            "$SLURM_NODELIST) that a relaunch must avoid: nodes in the exclude list,\n"
            "nodes Slurm reports down, draining, failing or not responding, nodes\n"
            "whose slurmd does not accept a connection, and nodes whose health record\n"
            "says they failed their check.\n"
            "\n"
            "  -r, --reason           one line per down node: NODE: why\n"
            "  -j, --json             JSON with every node's verdict\n"
            "  -x, --exclude LIST     nodes never to use (default: $SCR_EXCLUDE_NODES)\n"
            "  -d, --down LIST        nodes known to be down: counted down, not checked\n"
            "  -f, --free             also check this node now: its job's control and cache\n"
            "                         directories exist, take a file and have the free\n"
            "                         space their STORE's BYTES asks for (else any)\n"
            "  -t, --probe-timeout N  wait at most N seconds for a node's slurmd to answer\n"
            "                         (default 3)\n"
            "  -H, --health-dir DIR   health records (default: PREFIX/.scr/health)\n"
            "  -p, --prefix DIR       the prefix (default: $SCR_PREFIX, else the current\n"
            "                         directory)\n"
            "  -n, --no-slurm         do not ask Slurm for node states nor probe slurmd\n"
            "  -l, --log              record each down node and why in the prefix's event\n"
            "                         log (when SCR_LOG_ENABLE=1; see scr-log)\n"
            "  -s, --secs N           with --log: the job ran N seconds (the events' seconds)\n"
            "  -h, --help             show this help\n"
            "  -V, --version          show the version\n"
            "\n"
            "Without --reason or --json the down nodes are printed as one host list\n"
            "(nothing when none is down). Exit status: 0 if no node is down, 1 if some\n"
            "are, 2 for a usage error or a bad node list, 3 for another failure.\n");
}

static int print_json(const struct scr_down_nodes *list)
{
    struct json_object *obj = json_object_new_object(), *nodes = json_object_new_array();
    struct json_object *slurm = json_object_new_object();
    int rc = obj && nodes && slurm ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (int i = 0; rc == SCR_SUCCESS && i < list->count; i++) {
        const struct scr_node_verdict *v = &list->nodes[i];
        struct json_object *n = json_object_new_object();
        if (n == NULL || json_object_array_add(nodes, n) != 0) {
            json_object_put(n);
            rc = SCR_ERR_NOMEM;
            break;
        }
        json_object_object_add(n, "node", json_object_new_string(v->name));
        json_object_object_add(n, "down", json_object_new_boolean(v->down));
        if (v->down) json_object_object_add(n, "reason", json_object_new_string(v->reason));
    }
    if (rc == SCR_SUCCESS) {
        json_object_object_add(slurm, "asked", json_object_new_boolean(list->slurm_asked));
        if (list->slurm_error[0] != '\0')
            json_object_object_add(slurm, "error", json_object_new_string(list->slurm_error));
        if (list->probe_error[0] != '\0')
            json_object_object_add(slurm, "probe_error", json_object_new_string(list->probe_error));
        json_object_object_add(obj, "down", json_object_new_int(list->down));
        json_object_object_add(obj, "nodes", nodes);
        json_object_object_add(obj, "slurm", slurm);
        nodes = slurm = NULL;
        const char *text =
            json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
        if (text == NULL || printf("%s\n", text) < 0) rc = SCR_ERR_IO;
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory building JSON");
    json_object_put(nodes);
    json_object_put(slurm);
    json_object_put(obj);
    return rc;
}

static int print_list(const struct scr_down_nodes *list, enum output output)
{
    if (output == OUTPUT_JSON) return print_json(list);
    if (output == OUTPUT_REASONS) {
        for (int i = 0; i < list->count; i++)
            if (list->nodes[i].down) printf("%s: %s\n", list->nodes[i].name, list->nodes[i].reason);
        return SCR_SUCCESS;
    }
    char *hosts = NULL;
    int rc = scr_down_nodes_hostlist(list, &hosts);
    if (rc == SCR_SUCCESS && hosts[0] != '\0') printf("%s\n", hosts);
    free(hosts);
    return rc;
}

/* --log: a node_down event for each down node, in the prefix's event log;
 * run_seconds (--secs, how long the job ran) is each event's seconds, or
 * unknown when negative. */
static void log_down_nodes(const struct scr_down_nodes *list, const char *prefix,
                           double run_seconds)
{
    struct scr_event_log log;
    if (scr_event_log_setup_outside(&log, prefix, NULL) != SCR_SUCCESS) return;
    if (!scr_event_log_enabled(&log))
        fprintf(stderr,
                "scr-list-down-nodes: --log: nothing recorded, SCR_LOG_ENABLE is not 1 for %s\n",
                prefix);
    for (int i = 0; i < list->count; i++) {
        if (!list->nodes[i].down) continue;
        struct scr_event_field node[] = {SCR_EVENT_STR("node", list->nodes[i].name)};
        struct scr_event ev = SCR_EVENT_INITIALIZER(SCR_EVENT_NODE_DOWN);
        ev.reason = list->nodes[i].reason;
        if (run_seconds >= 0) ev.seconds = run_seconds;
        ev.fields = node;
        ev.nfields = 1;
        scr_event_log_write(&log, &ev);
    }
    scr_event_log_close(&log);
}

/* BYTES of the STORE line of base, else 1 (some space left); SCR_ERR_FORMAT
 * (logged) when BYTES is not a size. */
static int store_bytes(const scr_config *cfg, const char *base, uint64_t *out)
{
    const char *text = NULL;
    const scr_kvtree *attrs = scr_kvtree_get(scr_config_table(cfg, "STORE"), base);
    *out = 1;
    if (attrs == NULL || scr_kvtree_util_get_str(attrs, "BYTES", &text) != SCR_SUCCESS)
        return SCR_SUCCESS;
    if (scr_parse_bytes(text, out) != SCR_SUCCESS) {
        scr_err("STORE=%s: BYTES=%s is not a size such as 512MB", base, text);
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

/* The health check of node's job directory under base_param (one of the
 * bases); a node that fails it is marked down in list. */
static int check_base(const scr_config *cfg, const char *base_param, const char *node,
                      struct scr_down_nodes *list)
{
    const char *base = NULL;
    char *dir = NULL;
    uint64_t need = 0;
    struct scr_health h;
    int rc = scr_config_get(cfg, base_param, &base);
    if (rc != SCR_SUCCESS) return rc;
    rc = store_bytes(cfg, base, &need);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_cli_job_dir(cfg, base_param, node, &dir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_node_health_check(node, (const char *const *)&dir, 1, need, &h);
    if (rc != SCR_SUCCESS) goto out;
    if (!h.healthy) {
        char reason[600];
        snprintf(reason, sizeof(reason), "failed the --free check of %s: %s", base_param, h.reason);
        scr_down_nodes_mark(list, node, reason);
    }
out:
    free(dir);
    return rc;
}

/* --free: the node health check (node_health.h), now, of this node's job
 * directories, each against its store's BYTES; a node of list that fails
 * it is down. SCR_SUCCESS when the check ran, whatever it found. */
static int check_this_node(struct scr_down_nodes *list)
{
    static const char *const bases[2] = {"SCR_CNTL_BASE", "SCR_CACHE_BASE"};
    char node[256];
    int listed = 0;
    scr_config *cfg = scr_config_new();
    if (cfg == NULL) return SCR_ERR_NOMEM;
    int rc = scr_config_load(cfg, &scr_cli_config_sources);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_job_env_node_name(node, sizeof(node));
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < list->count; i++) listed |= strcmp(list->nodes[i].name, node) == 0;
    if (!listed) {
        fprintf(stderr,
                "scr-list-down-nodes: --free checks this node, %s, which is not in the node list\n",
                node);
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        rc = check_base(cfg, bases[i], node, list);
        if (rc != SCR_SUCCESS) goto out;
    }
out:
    scr_config_delete(cfg);
    return rc;
}

/* The first of these that is set and not empty, else NULL. */
static const char *first_set(const char *a, const char *b, const char *c)
{
    if (a != NULL && a[0] != '\0') return a;
    if (b != NULL && b[0] != '\0') return b;
    if (c != NULL && c[0] != '\0') return c;
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"reason", no_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},
        {"exclude", required_argument, NULL, 'x'},
        {"down", required_argument, NULL, 'd'},
        {"free", no_argument, NULL, 'f'},
        {"secs", required_argument, NULL, 's'},
        {"probe-timeout", required_argument, NULL, 't'},
        {"health-dir", required_argument, NULL, 'H'},
        {"prefix", required_argument, NULL, 'p'},
        {"no-slurm", no_argument, NULL, 'n'},
        {"log", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    enum output output = OUTPUT_HOSTLIST;
    const char *exclude = NULL, *health_dir = NULL, *prefix_option = NULL, *down_option = NULL;
    int ask_slurm = 1, check_free = 0, probe_ms = 0, before = optind, c, log = 0;
    double run_seconds = -1;
    scr_cli_init("scr-list-down-nodes");
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":rjx:d:fs:t:H:p:nlhV", options, NULL)) != -1;
         before = optind) {
        switch (c) {
        case 'r': output = OUTPUT_REASONS; break;
        case 'j': output = OUTPUT_JSON; break;
        case 'x': exclude = optarg; break;
        case 'd': down_option = optarg; break;
        case 'f': check_free = 1; break;
        case 't': {
            char *end = NULL;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || v < 1 || v > INT_MAX / 1000)
                return scr_cli_usage_error(
                    "--probe-timeout wants a whole number of seconds (1 or more), not '%s'",
                    optarg);
            probe_ms = (int)v * 1000;
            break;
        }
        case 's': {
            char *end = NULL;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || v < 0)
                return scr_cli_usage_error(
                    "--secs wants the job's run time in whole seconds (0 or more), not '%s'",
                    optarg);
            run_seconds = (double)v;
            break;
        }
        case 'H':
            if (optarg[0] == '\0') return scr_cli_usage_error("--health-dir wants a directory");
            health_dir = optarg;
            break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            prefix_option = optarg;
            break;
        case 'n': ask_slurm = 0; break;
        case 'l': log = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-list-down-nodes (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (argc - optind > 1) return scr_cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    const char *nodelist = first_set(optind < argc ? argv[optind] : NULL, getenv("SLURM_NODELIST"),
                                     getenv("SLURM_JOB_NODELIST"));
    if (nodelist == NULL)
        return scr_cli_usage_error("no node list: give one, or run inside a Slurm allocation");
    if (exclude == NULL) exclude = getenv("SCR_EXCLUDE_NODES");

    /* the prefix is read (health records) or written (--log) as its owner */
    char *default_health = NULL, *prefix = NULL;
    struct scr_acting as;
    int rc = SCR_SUCCESS;
    if (health_dir == NULL || log) {
        prefix = scr_cli_resolve_prefix(prefix_option);
        rc = prefix != NULL ? scr_act_as_owner(prefix, SCR_OWNED_PREFIX, &as)
                            : SCR_FAILURE; /* said why */
    } else {
        rc = scr_act_as_owner(health_dir, SCR_OWNED_DIR, &as);
    }
    if (rc == SCR_SUCCESS && health_dir == NULL) {
        rc = scr_path_join(prefix, ".scr/health", &default_health);
        health_dir = default_health;
    }
    if (rc != SCR_SUCCESS) {
        free(prefix);
        return EXIT_FAILURE_OTHER;
    }
    struct scr_down_nodes_query q = {
        .nodelist = nodelist,
        .exclude = exclude,
        .health_dir = health_dir,
        .ask_slurm = ask_slurm,
        .probe_slurmd = ask_slurm,
        .down = down_option,
        .probe_timeout_ms = probe_ms,
    };
    struct scr_down_nodes list;
    rc = scr_down_nodes_find(&q, &list);
    free(default_health);
    if (rc != SCR_SUCCESS) free(prefix);
    if (rc == SCR_ERR_ARG) return EXIT_USAGE;
    if (rc != SCR_SUCCESS) return EXIT_FAILURE_OTHER;
    if (check_free && check_this_node(&list) != SCR_SUCCESS) {
        scr_down_nodes_free(&list);
        free(prefix);
        return EXIT_FAILURE_OTHER;
    }
    if (ask_slurm && !list.slurm_asked)
        fprintf(stderr, "scr-list-down-nodes: node states not checked with Slurm: %s\n",
                list.slurm_error);
    if (list.probe_error[0] != '\0') fprintf(stderr, "scr-list-down-nodes: %s\n", list.probe_error);
    if (log)
        log_down_nodes(&list, prefix, run_seconds);
    else if (run_seconds >= 0)
        fprintf(stderr, "scr-list-down-nodes: --secs has no effect without --log\n");
    free(prefix);
    rc = print_list(&list, output);
    int down = list.down;
    scr_down_nodes_free(&list);
    if (rc == SCR_SUCCESS && fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc != SCR_SUCCESS) return EXIT_FAILURE_OTHER;
    return down > 0 ? EXIT_SOME_DOWN : EXIT_NONE_DOWN;
}
