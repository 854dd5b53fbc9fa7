/* scr_run.c — scr-run: run an MPI job again and again inside one allocation
 * until it finishes, for launchers other than the Slurm plugin.
 *
 * scr-run [OPTION]... LAUNCHER [ARGS]... runs LAUNCHER ARGS (srun, mpirun,
 * or any command that starts the job) up to SCR_RUNS times. Before each run
 * it asks relaunch.h whether to go on (the job finished through
 * SCR_Finalize, a halt condition, no runs left, too few nodes) and which
 * nodes to avoid, which srun is told with --exclude (relaunch_plan.h).
 * After the last run, unless the job finished, every usable node copies its
 * newest cached dataset to the prefix (scr-scavenge, started once per node
 * through the launcher) and each dataset copied that way is indexed
 * (scr-index --add), so the newest checkpoint is not lost with the
 * allocation. With --scavenge-only it makes that copy alone, LAUNCHER being
 * the launcher that reaches the nodes (the end of a job script that ran its
 * job itself). With --json each decision is one JSON object on its own line
 * of stdout, and what the runs print goes to stderr. Exit status: that of
 * the last run; 2 for a usage error; 3 when scr-run itself failed. Run by
 * root, it runs everything as the prefix's owner (act_as_owner.h). Never
 * links MPI. */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "cli_json.h"
#include "config.h"
#include "down_nodes.h"
#include "event_log.h"
#include "job_dir.h"
#include "job_env.h"
#include "nodes_file.h"
#include "relaunch.h"
#include "relaunch_plan.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_SELF_FAILED 3

/* parse's answer after --help or --version: nothing to run, exit 0. */
#define PARSE_DONE (-1)

static void usage(FILE *out)
{
    fprintf(out, "Usage: scr-run [OPTION]... LAUNCHER [ARGS]...\n"
                 "Run an SCR job (LAUNCHER ARGS, e.g. srun ./app or mpirun -np 8 ./app) until it\n"
                 "finishes, up to SCR_RUNS times inside this allocation, avoiding nodes that\n"
                 "are down; then copy the newest checkpoint left in cache to the prefix.\n"
                 "\n"
                 "  -r, --runs N               runs at most (default: SCR_RUNS, else 1; 0 or -1:\n"
                 "                             no limit)\n"
                 "  -m, --min-nodes N          stop when fewer nodes are usable (default:\n"
                 "                             SCR_MIN_NODES, else the first run's node count)\n"
                 "  -d, --delay SECONDS        wait between runs, so failed nodes are noticed\n"
                 "                             (default 5)\n"
                 "  -p, --prefix DIR           the prefix (default: SCR_PREFIX, else the current\n"
                 "                             directory)\n"
                 "  -s, --scavenge-launcher CMD  how to start one process per node for the\n"
                 "                             final copy (default for srun: srun --nodes=N\n"
                 "                             --ntasks-per-node=1; for mpirun: mpirun --map-by\n"
                 "                             ppr:1:node)\n"
                 "  -n, --no-scavenge          do not copy anything at the end\n"
                 "  -S, --scavenge-only        run nothing: only the copy to the prefix, with\n"
                 "                             LAUNCHER (srun or mpirun) reaching the nodes\n"
                 "  -j, --json                 print each decision as one JSON object per line\n"
                 "                             (the job's own output goes to stderr then)\n"
                 "  -h, --help                 show this help\n"
                 "  -V, --version              show the version\n"
                 "\n"
                 "Exit status: that of the last run (0 when no run was started); 2 for a\n"
                 "usage error; 3 when scr-run could not do its own work.\n");
}

struct settings {
    int max_runs, min_nodes, delay, scavenge, scavenge_only, json;
    const char *prefix_option, *scavenge_launcher;
    char **launch; /* LAUNCHER ARGS..., NULL-terminated (argv's) */
    char *prefix;
    char self_dir[PATH_MAX];
};

/* --- parsing ------------------------------------------------------------------- */

static int parse_count(const char *text, const char *what, int min, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > INT_MAX)
        return scr_cli_usage_error("%s: '%s' is not a whole number of at least %d", what, text,
                                   min);
    *out = (int)v;
    return 0;
}

/* The value of environment variable name as a count, or dflt. */
static int env_count(const char *name, int min, int dflt, int *out)
{
    const char *v = getenv(name);
    if (v == NULL || v[0] == '\0') {
        *out = dflt;
        return 0;
    }
    return parse_count(v, name, min, out);
}

/* --- the nodes ------------------------------------------------------------------ */

static const char *allocation_nodes(void)
{
    const char *v = getenv("SLURM_NODELIST");
    if (v == NULL || v[0] == '\0') v = getenv("SLURM_JOB_NODELIST");
    return v != NULL && v[0] != '\0' ? v : NULL;
}

/* The node count the last run recorded in this node's control directory, 0 if none. */
static int recorded_nodes(void)
{
    int count = 0;
    char *cntl = NULL, *path = NULL;
    scr_config *cfg = scr_config_new();
    scr_kvtree *rec = scr_kvtree_new();
    int rc = cfg && rec ? scr_config_load(cfg, &scr_cli_config_sources) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_cli_job_cntl_dir(cfg, NULL, &cntl);
    if (rc == SCR_SUCCESS) rc = scr_path_join(cntl, SCR_NODES_FILE_NAME, &path);
    if (rc == SCR_SUCCESS && scr_nodes_file_read(path, rec) == SCR_SUCCESS)
        scr_nodes_file_get_nodes(rec, &count);
    free(cntl);
    free(path);
    scr_kvtree_delete(rec);
    scr_config_delete(cfg);
    return count;
}

/* --- running ----------------------------------------------------------------------- */

static int is_launcher(const char *path, const char *name)
{
    const char *base = strrchr(path, '/');
    return strcmp(base ? base + 1 : path, name) == 0;
}

/* argv with --exclude=hosts after the launcher when it is srun. */
static char **with_exclude(char **argv, const char *hosts, char **out_option)
{
    *out_option = NULL;
    int n = 0;
    while (argv[n] != NULL) n++;
    char **out = calloc((size_t)n + 2, sizeof(char *));
    if (out == NULL) return NULL;
    int k = 0;
    out[k++] = argv[0];
    if (hosts != NULL && hosts[0] != '\0' && is_launcher(argv[0], "srun")) {
        size_t len = strlen(hosts) + 12;
        *out_option = malloc(len);
        if (*out_option == NULL) {
            free(out);
            return NULL;
        }
        snprintf(*out_option, len, "--exclude=%s", hosts);
        out[k++] = *out_option;
    }
    for (int i = 1; i < n; i++) out[k++] = argv[i];
    out[k] = NULL;
    return out;
}

/* With --json, stdout holds the decisions alone: what the runs print goes to stderr. */
static int children_to_stderr;

/* Run argv and wait; *out_status: its exit status (128+signal when killed). */
static int run_command(char **argv, int *out_status)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        scr_err("cannot start %s: %s", argv[0], strerror(errno));
        return SCR_ERR_IO;
    }
    if (pid == 0) {
        if (children_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "scr-run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            scr_err("waiting for %s: %s", argv[0], strerror(errno));
            return SCR_ERR_IO;
        }
    }
    *out_status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return SCR_SUCCESS;
}

/* The plan for run runs_done+1 (relaunch_plan.h). */
static int make_plan(const struct settings *s, int runs_done, struct scr_relaunch_plan *out)
{
    int64_t end = 0, halt_seconds = 0;
    scr_job_env_end_time(&end);
    const char *hs = getenv("SCR_HALT_SECONDS");
    if (hs != NULL) halt_seconds = strtoll(hs, NULL, 10);
    struct scr_relaunch_plan_input in = {
        .prefix = s->prefix,
        .nodelist = allocation_nodes(),
        .exclude = getenv("SCR_EXCLUDE_NODES"),
        .runs_done = runs_done,
        .max_runs = s->max_runs,
        .min_nodes = s->min_nodes,
        .end_time = end,
        .halt_seconds = halt_seconds,
    };
    int rc = scr_relaunch_plan_make(&in, out);
    if (out->note[0] != '\0') fprintf(stderr, "scr-run: %s\n", out->note);
    return rc;
}

/* --- decisions as JSON ------------------------------------------------------------- */

static const char *verdict_name(enum scr_relaunch_verdict v)
{
    switch (v) {
    case SCR_RELAUNCH_GO: return "go";
    case SCR_RELAUNCH_FINISHED: return "finished";
    case SCR_RELAUNCH_HALTED: return "halted";
    case SCR_RELAUNCH_NO_RUNS_LEFT: return "no_runs_left";
    case SCR_RELAUNCH_TOO_FEW_NODES: return "too_few_nodes";
    }
    return "unknown";
}

/* One decision: run (1-based) the run it is about; status the exit status
 * of that run when it was made (ran), else null. Schema in scr-run(1). */
static int print_decision(int run, const struct scr_relaunch_plan *plan, int ran, int status)
{
    struct json_object *obj = json_object_new_object(), *down = json_object_new_array();
    int bad = obj == NULL || down == NULL;
    for (int i = 0; !bad && i < plan->down.count; i++) {
        const struct scr_node_verdict *v = &plan->down.nodes[i];
        if (!v->down) continue;
        struct json_object *n = json_object_new_object();
        bad = n == NULL || json_object_array_add(down, n) != 0;
        if (bad) json_object_put(n);
        bad = bad || scr_cli_json_put(n, "node", json_object_new_string(v->name)) ||
              scr_cli_json_put(n, "reason", json_object_new_string(v->reason));
    }
    const char *event = plan->verdict == SCR_RELAUNCH_GO ? "run" : "stop";
    bad = bad || scr_cli_json_put(obj, "event", json_object_new_string(event)) ||
          scr_cli_json_put(obj, "run", json_object_new_int(run)) ||
          scr_cli_json_put(obj, "verdict", json_object_new_string(verdict_name(plan->verdict))) ||
          scr_cli_json_put(obj, "why", json_object_new_string(plan->why)) ||
          scr_cli_json_put_or_null(obj, "nodes_up", plan->nodes_up >= 0,
                                   json_object_new_int(plan->nodes_up)) ||
          scr_cli_json_put_or_null(obj, "avoid", plan->avoid != NULL,
                                   plan->avoid ? json_object_new_string(plan->avoid) : NULL);
    if (!bad) {
        bad = scr_cli_json_put(obj, "down", down);
        down = NULL;
    }
    bad = bad || scr_cli_json_put_or_null(obj, "exit_status", ran, json_object_new_int(status));
    json_object_put(down);
    return scr_cli_json_print_built(obj, bad, 1);
}

/* The copy at the end: the copy's exit status and what was indexed. */
static int print_scavenge(int status, int indexed, int index_failed)
{
    struct json_object *obj = json_object_new_object();
    int bad = obj == NULL || scr_cli_json_put(obj, "event", json_object_new_string("scavenge")) ||
              scr_cli_json_put(obj, "exit_status", json_object_new_int(status)) ||
              scr_cli_json_put(obj, "indexed", json_object_new_int(indexed)) ||
              scr_cli_json_put(obj, "index_failed", json_object_new_int(index_failed));
    return scr_cli_json_print_built(obj, bad, 1);
}

/* The relaunch loop; *out_status: the last run's exit status, *out_verdict
 * why it ended, *out_down the last verdict on the nodes. */
static int run_loop(struct settings *s, int *out_status, enum scr_relaunch_verdict *out_verdict,
                    struct scr_down_nodes *out_down)
{
    *out_status = 0;
    for (int runs_done = 0;; runs_done++) {
        if (runs_done > 0 && s->delay > 0) sleep((unsigned)s->delay);
        if (runs_done == 1 && s->min_nodes < 0) {
            int recorded = recorded_nodes();
            s->min_nodes = recorded > 0 ? recorded : 0;
        }
        struct scr_relaunch_plan plan;
        int rc = make_plan(s, runs_done, &plan);
        /* the scavenge at the end uses the last verdict on the nodes */
        scr_down_nodes_free(out_down);
        *out_down = plan.down;
        memset(&plan.down, 0, sizeof(plan.down));
        if (rc != SCR_SUCCESS) {
            scr_relaunch_plan_free(&plan);
            return rc;
        }
        *out_verdict = plan.verdict;
        if (plan.verdict != SCR_RELAUNCH_GO) {
            fprintf(stderr, "scr-run: not running again: %s\n", plan.why);
            rc = s->json ? print_decision(runs_done + 1, &plan, 0, 0) : SCR_SUCCESS;
            scr_relaunch_plan_free(&plan);
            return rc;
        }
        const char *hosts = plan.avoid;
        if (hosts != NULL && !is_launcher(s->launch[0], "srun"))
            fprintf(stderr, "scr-run: nodes %s are down, but %s cannot be told to avoid them\n",
                    hosts, s->launch[0]);
        char *option = NULL;
        char **argv = with_exclude(s->launch, hosts, &option);
        if (argv == NULL) {
            scr_relaunch_plan_free(&plan);
            scr_err("out of memory");
            return SCR_ERR_NOMEM;
        }
        fprintf(stderr, "scr-run: %s%s%s\n", plan.why, hosts ? ", avoiding " : "",
                hosts ? hosts : "");
        if (runs_done > 0)
            scr_event_log_relaunch(s->prefix, NULL, runs_done + 1, plan.nodes_up, hosts);
        rc = run_command(argv, out_status);
        free(argv);
        free(option);
        if (rc == SCR_SUCCESS && s->json) rc = print_decision(runs_done + 1, &plan, 1, *out_status);
        scr_relaunch_plan_free(&plan);
        if (rc != SCR_SUCCESS) return rc;
        fprintf(stderr, "scr-run: run %d ended with exit status %d\n", runs_done + 1, *out_status);
    }
}

/* --- the copy at the end ------------------------------------------------------------- */

/* For --scavenge-only: the allocation's nodes judged as a relaunch judges
 * them, so that the copy leaves out the down ones and takes their PARTNER
 * copies from the others (count 0 outside an allocation). */
static int judge_nodes(const struct settings *s, struct scr_down_nodes *out)
{
    memset(out, 0, sizeof(*out));
    const char *nodelist = allocation_nodes();
    if (nodelist == NULL) return SCR_SUCCESS;
    char *health = NULL;
    int rc = scr_path_join(s->prefix, ".scr/health", &health);
    if (rc != SCR_SUCCESS) return rc;
    struct scr_down_nodes_query q = {
        .nodelist = nodelist,
        .exclude = getenv("SCR_EXCLUDE_NODES"),
        .health_dir = health,
        .ask_slurm = 1,
        .probe_slurmd = 1,
    };
    rc = scr_down_nodes_find(&q, out);
    free(health);
    if (rc == SCR_SUCCESS && out->slurm_error[0] != '\0')
        fprintf(stderr, "scr-run: Slurm's node states not used: %s\n", out->slurm_error);
    for (int i = 0; rc == SCR_SUCCESS && i < out->count; i++)
        if (out->nodes[i].down)
            fprintf(stderr, "scr-run: %s is down: %s\n", out->nodes[i].name, out->nodes[i].reason);
    return rc;
}

/* A sibling command of this one (cli/scr-scavenge next to cli/scr-run), else
 * the name alone for the PATH. */
static void sibling(const struct settings *s, const char *name, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/%s", s->self_dir, name);
    if (s->self_dir[0] == '\0' || n < 0 || (size_t)n >= len || access(buf, X_OK) != 0)
        snprintf(buf, len, "%s", name);
}

/* Split text at spaces and tabs into the words of argv (from *n on). */
static void split_words(char *text, char **argv, int *n)
{
    for (char *save = NULL, *w = strtok_r(text, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        argv[(*n)++] = w;
}

/* The command line that starts one scr-scavenge per usable node: the
 * launcher's words (*out_text holds them), then the tool and its options. */
static int scavenge_command(const struct settings *s, const struct scr_down_nodes *down,
                            char ***out_argv, char **out_text, char **out_failed)
{
    char *hosts = NULL;
    if (down->down > 0 && scr_down_nodes_hostlist(down, &hosts) != SCR_SUCCESS)
        return SCR_ERR_NOMEM;
    char dflt[1024] = "";
    const char *launcher = s->scavenge_launcher;
    if (launcher == NULL && is_launcher(s->launch[0], "srun")) {
        snprintf(dflt, sizeof(dflt), "%s --nodes=%d --ntasks-per-node=1%s%s", s->launch[0],
                 down->count > 0 ? down->count - down->down : 1, hosts ? " --exclude=" : "",
                 hosts ? hosts : "");
        launcher = dflt;
    } else if (launcher == NULL && is_launcher(s->launch[0], "mpirun")) {
        /* keep the switches the user gave the job's mpirun to allow it to start at all */
        snprintf(dflt, sizeof(dflt), "%s --map-by ppr:1:node", s->launch[0]);
        for (int i = 1; s->launch[i] != NULL; i++)
            if (strcmp(s->launch[i], "--allow-run-as-root") == 0 ||
                strcmp(s->launch[i], "--oversubscribe") == 0) {
                strncat(dflt, " ", sizeof(dflt) - strlen(dflt) - 1);
                strncat(dflt, s->launch[i], sizeof(dflt) - strlen(dflt) - 1);
            }
        launcher = dflt;
    }
    free(hosts);
    if (launcher == NULL) {
        fprintf(stderr,
                "scr-run: no way to start one process per node with %s: give --scavenge-launcher\n",
                s->launch[0]);
        return SCR_FAILURE;
    }
    /* the PARTNER copies held for the down nodes come along */
    size_t flen = 1;
    for (int i = 0; i < down->count; i++) flen += strlen(down->nodes[i].name) + 1;
    char *failed = calloc(flen, 1), *text = strdup(launcher);
    char **argv = calloc(strlen(launcher) / 2 + 8, sizeof(char *));
    if (failed == NULL || text == NULL || argv == NULL) {
        free(failed);
        free(text);
        free(argv);
        scr_err("out of memory");
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < down->count; i++) {
        if (!down->nodes[i].down) continue;
        if (failed[0] != '\0') strcat(failed, ",");
        strcat(failed, down->nodes[i].name);
    }
    static char tool[PATH_MAX];
    sibling(s, "scr-scavenge", tool, sizeof(tool));
    int n = 0;
    split_words(text, argv, &n);
    argv[n++] = tool;
    argv[n++] = "--prefix";
    argv[n++] = s->prefix;
    if (failed[0] != '\0') {
        argv[n++] = "--failed-nodes";
        argv[n++] = failed;
    }
    argv[n] = NULL;
    *out_argv = argv;
    *out_text = text;
    *out_failed = failed;
    return SCR_SUCCESS;
}

/* scr-index --add every dataset directory of the prefix that holds rank
 * filemaps but no summary yet: what the scavenge just copied. */
static int index_scavenged(const struct settings *s, int *out_indexed, int *out_failed)
{
    char *scr_dir = NULL, tool[PATH_MAX];
    int rc = scr_path_join(s->prefix, ".scr", &scr_dir);
    if (rc != SCR_SUCCESS) return rc;
    DIR *d = opendir(scr_dir);
    if (d == NULL) {
        free(scr_dir);
        return SCR_SUCCESS; /* nothing was ever written there */
    }
    sibling(s, "scr-index", tool, sizeof(tool));
    struct dirent *e;
    while (rc == SCR_SUCCESS && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "scr.dataset.", 12) != 0) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s/summary.scr", scr_dir, e->d_name);
        if (access(path, F_OK) == 0) continue;
        DIR *ds = NULL;
        snprintf(path, sizeof(path), "%s/%s", scr_dir, e->d_name);
        int has_maps = 0;
        if ((ds = opendir(path)) != NULL) {
            struct dirent *f;
            while (!has_maps && (f = readdir(ds)) != NULL) {
                size_t l = strlen(f->d_name);
                has_maps = l > 11 && strcmp(f->d_name + l - 11, ".scrfilemap") == 0;
            }
            closedir(ds);
        }
        if (!has_maps) continue;
        char *argv[] = {tool, "--prefix", s->prefix, "--add", e->d_name, NULL};
        int status = 0;
        fprintf(stderr, "scr-run: indexing %s\n", e->d_name);
        rc = run_command(argv, &status);
        if (rc == SCR_SUCCESS && status != 0)
            fprintf(stderr, "scr-run: scr-index --add %s ended with exit status %d\n", e->d_name,
                    status);
        if (rc == SCR_SUCCESS) *(status == 0 ? out_indexed : out_failed) += 1;
    }
    closedir(d);
    free(scr_dir);
    return rc;
}

static int scavenge(const struct settings *s, const struct scr_down_nodes *down)
{
    char **argv = NULL, *copy = NULL, *failed = NULL;
    int rc = scavenge_command(s, down, &argv, &copy, &failed);
    if (rc != SCR_SUCCESS) return rc;
    int status = 0;
    fprintf(stderr, "scr-run: copying the newest dataset in cache to %s\n", s->prefix);
    rc = run_command(argv, &status);
    free(argv);
    free(copy);
    free(failed);
    /* exit 3 on a node: nothing of its own to copy; still index what others copied */
    if (rc == SCR_SUCCESS && status != 0 && status != 3)
        fprintf(stderr, "scr-run: the copy ended with exit status %d; indexing what arrived\n",
                status);
    int indexed = 0, index_failed = 0;
    if (rc == SCR_SUCCESS) rc = index_scavenged(s, &indexed, &index_failed);
    if (rc == SCR_SUCCESS && s->json) rc = print_scavenge(status, indexed, index_failed);
    return rc;
}

/* --- main ------------------------------------------------------------------------------ */

static void find_self_dir(struct settings *s)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    s->self_dir[0] = '\0';
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL) return;
    *slash = '\0';
    /* uninstalled, libtool runs the real program from .libs; its siblings'
     * wrappers are one level up */
    size_t len = strlen(exe);
    if (len >= 6 && strcmp(exe + len - 6, "/.libs") == 0) exe[len - 6] = '\0';
    snprintf(s->self_dir, sizeof(s->self_dir), "%s", exe);
}

/* Fill s from the command line and the environment; returns 0 to run,
 * PARSE_DONE, or an exit status. */
static int parse(int argc, char **argv, struct settings *s)
{
    static const struct option options[] = {
        {"runs", required_argument, NULL, 'r'},
        {"min-nodes", required_argument, NULL, 'm'},
        {"delay", required_argument, NULL, 'd'},
        {"prefix", required_argument, NULL, 'p'},
        {"scavenge-launcher", required_argument, NULL, 's'},
        {"no-scavenge", no_argument, NULL, 'n'},
        {"scavenge-only", no_argument, NULL, 'S'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int given_runs = 0, given_min = 0, before = optind, c, st;
    opterr = 0;
    /* '+': the first word that is not an option is the launcher; its options are its own */
    for (; (c = getopt_long(argc, argv, "+:r:m:d:p:s:nSjhV", options, NULL)) != -1;
         before = optind) {
        switch (c) {
        case 'r':
            if ((st = parse_count(optarg, "--runs", -1, &s->max_runs)) != 0) return st;
            given_runs = 1;
            break;
        case 'm':
            if ((st = parse_count(optarg, "--min-nodes", 0, &s->min_nodes)) != 0) return st;
            given_min = 1;
            break;
        case 'd':
            if ((st = parse_count(optarg, "--delay", 0, &s->delay)) != 0) return st;
            break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            s->prefix_option = optarg;
            break;
        case 's':
            if (optarg[0] == '\0')
                return scr_cli_usage_error("--scavenge-launcher wants a command");
            s->scavenge_launcher = optarg;
            break;
        case 'n': s->scavenge = 0; break;
        case 'S': s->scavenge_only = 1; break;
        case 'j': s->json = 1; break;
        case 'h': usage(stdout); return PARSE_DONE;
        case 'V': printf("scr-run (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return PARSE_DONE;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (s->scavenge_only && !s->scavenge)
        return scr_cli_usage_error("--scavenge-only and --no-scavenge cannot be combined");
    if (optind >= argc && s->scavenge_only)
        return scr_cli_usage_error(
            "no launcher: --scavenge-only wants the launcher that reaches the nodes");
    if (optind >= argc)
        return scr_cli_usage_error("no launcher: give the command that starts the job");
    if (s->scavenge_only && optind + 1 < argc)
        return scr_cli_usage_error("--scavenge-only runs nothing: unexpected argument '%s'",
                                   argv[optind + 1]);
    s->launch = argv + optind;
    if (!given_runs && (st = env_count("SCR_RUNS", -1, 1, &s->max_runs)) != 0) return st;
    if (!given_min && (st = env_count("SCR_MIN_NODES", 0, -1, &s->min_nodes)) != 0) return st;
    return 0;
}

int main(int argc, char **argv)
{
    struct settings s = {.max_runs = 1, .min_nodes = -1, .delay = 5, .scavenge = 1};
    scr_cli_init("scr-run");
    int st = parse(argc, argv, &s);
    if (st == PARSE_DONE) return 0;
    if (st != 0) return st;
    find_self_dir(&s);
    children_to_stderr = s.json;
    s.prefix = scr_cli_resolve_prefix(s.prefix_option);
    if (s.prefix == NULL) return EXIT_SELF_FAILED;
    struct scr_acting as;
    if (scr_act_as_owner(s.prefix, SCR_OWNED_PREFIX, &as) != SCR_SUCCESS) {
        free(s.prefix);
        return EXIT_SELF_FAILED;
    }
    int status = 0;
    enum scr_relaunch_verdict verdict = SCR_RELAUNCH_GO;
    struct scr_down_nodes down;
    memset(&down, 0, sizeof(down));
    int rc = s.scavenge_only ? judge_nodes(&s, &down) : run_loop(&s, &status, &verdict, &down);
    if (rc == SCR_SUCCESS && s.scavenge && verdict != SCR_RELAUNCH_FINISHED)
        rc = scavenge(&s, &down);
    scr_down_nodes_free(&down);
    free(s.prefix);
    if (rc != SCR_SUCCESS) return EXIT_SELF_FAILED;
    return status;
}
