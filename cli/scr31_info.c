/* scr31_info.c — the SCR 3.1 names that answer themselves: scr_prerun
 * (the prefix made ready and the configuration checked before the first
 * run), scr_env (the job's user, id, end, nodes, down nodes and the node
 * count of the last run) and scr_list_dir (the job's control or cache
 * directories, or their bases). */
#include "scr31_front.h"
#include "scr31_end_time.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "config.h"
#include "down_nodes.h"
#include "job_dir.h"
#include "job_env.h"
#include "kvtree.h"
#include "nodes_file.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Load the configuration as libscr would for a job writing to prefix (NULL:
 * as the environment says): the user file may be <prefix>/.scrconf. */
static int load_config(const char *prefix, scr_config **out_cfg)
{
    *out_cfg = NULL;
    if (prefix != NULL && setenv("SCR_PREFIX", prefix, 1) != 0) {
        scr_err("cannot set SCR_PREFIX: %s", strerror(errno));
        return SCR_ERR_NOMEM;
    }
    scr_config *cfg = scr_config_new();
    if (cfg == NULL) {
        scr_err("out of memory");
        return SCR_ERR_NOMEM;
    }
    int rc = scr_config_load(cfg, NULL);
    if (rc != SCR_SUCCESS) {
        scr_config_delete(cfg);
        return rc;
    }
    *out_cfg = cfg;
    return SCR_SUCCESS;
}

/* The allocation's nodes as SCR 3.1 finds them: SCR_NODELIST, else Slurm's. */
static const char *job_nodes(void)
{
    const char *names[] = {"SCR_NODELIST", "SLURM_NODELIST", "SLURM_JOB_NODELIST"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0') return v;
    }
    return NULL;
}

/* --- scr_prerun ----------------------------------------------------------------- */

static void prerun_usage(void)
{
    printf("Usage: scr_prerun [-p DIR] [-v]\n"
           "Before the first run of a job script: check the SCR configuration the job\n"
           "will read (a bad or unsupported parameter is named now) and make the\n"
           "prefix and its .scr directory, as SCR 3.1's scr_prerun does. Nothing is done\n"
           "when SCR_ENABLE=0.\n"
           "\n"
           "  -p, --prefix DIR      the prefix (default: SCR_PREFIX, else the current\n"
           "                        directory)\n"
           "  -v, --verbose         say what was done\n"
           "  -h, --help            show this help\n"
           "\n"
           "Exit status: 0 ready; 1 the configuration or the prefix is not usable (said\n"
           "on stderr); 2 usage error.\n");
}

int scr31_prerun(int argc, char **argv)
{
    static const struct option options[] = {
        {"prefix", required_argument, NULL, 'p'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *given = NULL;
    int c, before = optind, verbose = 0;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":p:vh", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            given = optarg;
            break;
        case 'v': verbose = 1; break;
        case 'h': prerun_usage(); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (scr31_disabled()) {
        if (verbose) printf("scr_prerun: SCR_ENABLE=0: nothing to do\n");
        return 0;
    }
    char *prefix = scr_cli_resolve_prefix(given), *scr_dir = NULL;
    if (prefix == NULL) return SCR31_EXIT_FAILED;
    scr_config *cfg = NULL;
    struct scr_acting as;
    int rc = scr_act_as_owner(prefix, SCR_OWNED_PREFIX, &as);
    if (rc == SCR_SUCCESS) rc = load_config(prefix, &cfg);
    if (rc == SCR_SUCCESS) rc = scr_path_join(prefix, ".scr", &scr_dir);
    /* the prefix as the user's umask makes it; .scr private, as libscr makes it */
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(prefix, 0777);
    if (rc == SCR_SUCCESS) rc = scr_mkdir_p(scr_dir, 0700);
    struct stat st;
    if (rc == SCR_SUCCESS && stat(scr_dir, &st) != 0) {
        scr_err("cannot stat %s: %s", scr_dir, strerror(errno));
        rc = SCR_ERR_IO;
    } else if (rc == SCR_SUCCESS && !S_ISDIR(st.st_mode)) {
        scr_err("%s is not a directory", scr_dir);
        rc = SCR_ERR_IO;
    } else if (rc == SCR_SUCCESS && access(scr_dir, W_OK | X_OK) != 0) {
        scr_err("%s cannot be written to: %s", scr_dir, strerror(errno));
        rc = SCR_ERR_IO;
    }
    if (rc == SCR_SUCCESS && verbose) printf("scr_prerun: prefix %s ready\n", prefix);
    scr_config_delete(cfg);
    free(scr_dir);
    free(prefix);
    return rc == SCR_SUCCESS ? 0 : 1;
}

/* --- scr_env -------------------------------------------------------------------- */

static void env_usage(void)
{
    printf("Usage: scr_env [options]\n"
           "What SCR knows of the current job, as SCR 3.1's scr_env prints it: each value\n"
           "asked for on a line of its own, in the order below; all of them, named, when\n"
           "none is asked for.\n"
           "\n"
           "  -u, --user            the user name\n"
           "  -j, --jobid           the job id\n"
           "  -e, --endtime         the end of the allocation, in seconds since the epoch\n"
           "                        (SCR_END_TIME, else slurmctld's end of the job)\n"
           "  -n, --nodes           the job's nodes (SCR_NODELIST, else Slurm's)\n"
           "  -d, --down            those of them that are down (scr-list-down-nodes(1))\n"
           "  -r, --runnodes        the node count of the last run (0 when none ran)\n"
           "  -p, --prefix DIR      the prefix, for --down's health records and the\n"
           "                        configuration (default: SCR_PREFIX, else the\n"
           "                        current directory)\n"
           "  -h, --help            show this help\n"
           "\n"
           "Exit status: 0 done; 1 a value asked for is not known (said on stderr); 2\n"
           "usage error.\n");
}

enum env_item { ENV_USER, ENV_JOBID, ENV_END, ENV_NODES, ENV_DOWN, ENV_RUNNODES, ENV_ITEMS };
static const char *const env_names[ENV_ITEMS] = {"user",  "jobid", "endtime",
                                                 "nodes", "down",  "runnodes"};

/* The down nodes of the job's nodes as a host list ("" when none). */
static int down_nodes(const char *prefix, char **out)
{
    *out = NULL;
    const char *nodes = job_nodes();
    if (nodes == NULL) {
        scr_err("the job's nodes are not known: SCR_NODELIST and SLURM_NODELIST are unset");
        return SCR_ERR_NOTFOUND;
    }
    char *health = NULL;
    int rc = scr_path_join(prefix, ".scr/health", &health);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_down_nodes_query q = {
        .nodelist = nodes,
        .exclude = getenv("SCR_EXCLUDE_NODES"),
        .health_dir = health,
        .ask_slurm = 1,
        .probe_slurmd = 1,
    };
    struct scr_down_nodes down;
    memset(&down, 0, sizeof(down));
    rc = scr_down_nodes_find(&q, &down);
    free(health);
    if (rc == SCR_SUCCESS && down.down > 0) rc = scr_down_nodes_hostlist(&down, out);
    if (rc == SCR_SUCCESS && *out == NULL && (*out = strdup("")) == NULL) rc = SCR_ERR_NOMEM;
    scr_down_nodes_free(&down);
    return rc;
}

/* The node count the last run recorded in this node's control directory; 0 if none. */
static int run_nodes(const scr_config *cfg, int *out_count)
{
    char *cntl = NULL, *path = NULL;
    *out_count = 0;
    scr_kvtree *rec = scr_kvtree_new();
    int rc = rec != NULL ? scr_cli_job_cntl_dir(cfg, NULL, &cntl) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_path_join(cntl, SCR_NODES_FILE_NAME, &path);
    if (rc == SCR_SUCCESS && access(path, F_OK) == 0) {
        rc = scr_nodes_file_read(path, rec);
        if (rc == SCR_SUCCESS) rc = scr_nodes_file_get_nodes(rec, out_count);
    }
    free(cntl);
    free(path);
    scr_kvtree_delete(rec);
    return rc;
}

/* The value of item, in a new string; errors said. */
static int env_value(enum env_item item, const char *prefix, const scr_config *cfg, char **out)
{
    char buf[512];
    int defaulted = 0, count = 0, rc = SCR_SUCCESS;
    int64_t end = 0;
    *out = NULL;
    switch (item) {
    case ENV_USER: rc = scr_job_env_user_name(buf, sizeof(buf)); break;
    case ENV_JOBID:
        rc = scr_job_env_job_id(buf, sizeof(buf), &defaulted);
        if (rc == SCR_SUCCESS && defaulted) {
            scr_err(
                "no job id: not inside a Slurm allocation (SLURM_JOB_ID and SCR_JOB_ID are unset)");
            rc = SCR_ERR_NOTFOUND;
        }
        break;
    case ENV_END:
        /* SCR_END_TIME when set (the plugin's, or scr_srun's), else slurmctld's answer */
        rc = scr_job_env_end_time(&end);
        if (rc == SCR_ERR_NOTFOUND) {
            char why[300];
            rc = scr31_end_time(&end, why, sizeof(why));
            if (rc != SCR_SUCCESS)
                scr_err("the allocation's end is not known: SCR_END_TIME is unset and %s", why);
        }
        if (rc == SCR_SUCCESS) snprintf(buf, sizeof(buf), "%" PRId64, end);
        break;
    case ENV_NODES:
        if (job_nodes() == NULL) {
            scr_err("the job's nodes are not known: SCR_NODELIST and SLURM_NODELIST are unset");
            rc = SCR_ERR_NOTFOUND;
        } else {
            snprintf(buf, sizeof(buf), "%s", job_nodes());
        }
        break;
    case ENV_DOWN: return down_nodes(prefix, out);
    case ENV_RUNNODES:
        rc = run_nodes(cfg, &count);
        snprintf(buf, sizeof(buf), "%d", count);
        break;
    case ENV_ITEMS: break;
    }
    if (rc == SCR_SUCCESS && (*out = strdup(buf)) == NULL) {
        scr_err("out of memory");
        rc = SCR_ERR_NOMEM;
    }
    return rc;
}

int scr31_env(int argc, char **argv)
{
    static const struct option options[] = {
        {"user", no_argument, NULL, 'u'},
        {"jobid", no_argument, NULL, 'j'},
        {"endtime", no_argument, NULL, 'e'},
        {"nodes", no_argument, NULL, 'n'},
        {"down", no_argument, NULL, 'd'},
        {"runnodes", no_argument, NULL, 'r'},
        {"prefix", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int want[ENV_ITEMS] = {0}, any = 0, c, before = optind;
    const char *given = NULL;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":ujendrp:h", options, NULL)) != -1; before = optind) {
        enum env_item item = ENV_ITEMS;
        switch (c) {
        case 'u': item = ENV_USER; break;
        case 'j': item = ENV_JOBID; break;
        case 'e': item = ENV_END; break;
        case 'n': item = ENV_NODES; break;
        case 'd': item = ENV_DOWN; break;
        case 'r': item = ENV_RUNNODES; break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            given = optarg;
            break;
        case 'h': env_usage(); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
        if (item != ENV_ITEMS) want[item] = any = 1;
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    char *prefix = scr_cli_resolve_prefix(given);
    if (prefix == NULL) return SCR31_EXIT_FAILED;
    scr_config *cfg = NULL;
    int failed = load_config(prefix, &cfg) != SCR_SUCCESS;
    for (int i = 0; !failed && i < ENV_ITEMS; i++) {
        if (any && !want[i]) continue;
        char *value = NULL;
        if (env_value((enum env_item)i, prefix, cfg, &value) != SCR_SUCCESS) {
            /* all of them listed: an unknown one is shown as such */
            if (any)
                failed = 1;
            else
                printf("%s: (unknown)\n", env_names[i]);
            continue;
        }
        if (any)
            printf("%s\n", value);
        else
            printf("%s: %s\n", env_names[i], value);
        free(value);
    }
    scr_config_delete(cfg);
    free(prefix);
    return failed ? 1 : 0;
}

/* --- scr_list_dir ----------------------------------------------------------------- */

static void list_dir_usage(void)
{
    printf("Usage: scr_list_dir [options] control|cache\n"
           "The job's control directory, or its cache directories (the cache base and\n"
           "every store), on this node, separated by spaces, as SCR 3.1's scr_list_dir\n"
           "prints them: BASE/USER/scr.JOBID.\n"
           "\n"
           "  -u, --user USER       the user (default: this one)\n"
           "  -j, --jobid ID        the job id (default: the current job's)\n"
           "  -b, --base            the bases alone\n"
           "  -p, --prefix DIR      the prefix, for its configuration file (default:\n"
           "                        SCR_PREFIX, else the current directory)\n"
           "  -h, --help            show this help\n"
           "\n"
           "Exit status: 0 done; 1 the user, the job or a base is not known or not\n"
           "usable (said on stderr); 2 usage error.\n");
}

/* Append base (patterns expanded), or the job's directory under it, to
 * *line unless it is there already. */
static int add_dir(char **line, const char *what, const char *base, int bases_only,
                   const char *node, const char *user, const char *jobid)
{
    char *dir = NULL;
    int rc = bases_only ? scr_job_env_expand(base, node, user, jobid, &dir)
                        : scr_job_dir_path(what, base, node, user, jobid, &dir);
    if (rc != SCR_SUCCESS) return rc;
    size_t have = *line ? strlen(*line) : 0, len = strlen(dir);
    int seen = 0;
    for (char *p = *line; p && (p = strstr(p, dir)) != NULL; p += len)
        if ((p == *line || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) seen = 1;
    if (!seen) {
        char *grown = realloc(*line, have + len + 2);
        if (grown == NULL) {
            free(dir);
            scr_err("out of memory");
            return SCR_ERR_NOMEM;
        }
        snprintf(grown + have, len + 2, "%s%s", have ? " " : "", dir);
        *line = grown;
    }
    free(dir);
    return SCR_SUCCESS;
}

int scr31_list_dir(int argc, char **argv)
{
    static const struct option options[] = {
        {"user", required_argument, NULL, 'u'}, {"jobid", required_argument, NULL, 'j'},
        {"base", no_argument, NULL, 'b'},       {"prefix", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    const char *user_opt = NULL, *job_opt = NULL, *given = NULL;
    int bases_only = 0, c, before = optind;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":u:j:bp:h", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'u': user_opt = optarg; break;
        case 'j': job_opt = optarg; break;
        case 'b': bases_only = 1; break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            given = optarg;
            break;
        case 'h': list_dir_usage(); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (optind >= argc) return scr_cli_usage_error("say which: control or cache");
    const char *which = argv[optind];
    if (strcmp(which, "control") != 0 && strcmp(which, "cache") != 0)
        return scr_cli_usage_error("'%s' is neither control nor cache", which);
    if (optind + 1 < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (user_opt != NULL && scr_job_env_check_name("--user", user_opt) != SCR_SUCCESS) return 2;
    if (job_opt != NULL && scr_job_env_check_name("--jobid", job_opt) != SCR_SUCCESS) return 2;

    char node[256], user[256], jobid[256];
    int defaulted = 0;
    char *prefix = scr_cli_resolve_prefix(given), *line = NULL;
    if (prefix == NULL) return SCR31_EXIT_FAILED;
    scr_config *cfg = NULL;
    int rc = load_config(prefix, &cfg);
    if (rc == SCR_SUCCESS) rc = scr_job_env_node_name(node, sizeof(node));
    if (rc == SCR_SUCCESS && user_opt != NULL)
        snprintf(user, sizeof(user), "%s", user_opt);
    else if (rc == SCR_SUCCESS)
        rc = scr_job_env_user_name(user, sizeof(user));
    if (rc == SCR_SUCCESS && job_opt != NULL)
        snprintf(jobid, sizeof(jobid), "%s", job_opt);
    else if (rc == SCR_SUCCESS)
        rc = scr_job_env_job_id(jobid, sizeof(jobid), &defaulted);
    if (rc == SCR_SUCCESS && defaulted && !bases_only) {
        scr_err("no job id: give --jobid, or run inside a Slurm allocation");
        rc = SCR_ERR_NOTFOUND;
    }
    const char *what = strcmp(which, "control") == 0 ? "SCR_CNTL_BASE" : "SCR_CACHE_BASE",
               *base = NULL;
    if (rc == SCR_SUCCESS) rc = scr_config_get(cfg, what, &base);
    if (rc == SCR_SUCCESS) rc = add_dir(&line, what, base, bases_only, node, user, jobid);
    /* the cache is the cache base and every store a CKPT entry may name */
    if (strcmp(which, "cache") == 0)
        for (scr_kvtree_elem *e =
                 scr_kvtree_elem_first(cfg ? scr_config_table(cfg, "STORE") : NULL);
             rc == SCR_SUCCESS && e; e = scr_kvtree_elem_next(e))
            rc = add_dir(&line, "STORE", scr_kvtree_elem_key(e), bases_only, node, user, jobid);
    if (rc == SCR_SUCCESS) printf("%s\n", line);
    free(line);
    scr_config_delete(cfg);
    free(prefix);
    return rc == SCR_SUCCESS ? 0 : 1;
}
