/* scr_drill.c — scr-drill: rehearse a failure and the restart of an MPI job on one host.
 *
 * Runs the user's MPI program on R ranks as M simulated nodes (drill_run.h),
 * ends the first run right after its K-th checkpoint (--stop-after K: the
 * ranks get SCR_DRILL_STOP_AFTER=K, and libscr kills every one of them with
 * SIGKILL once that checkpoint is complete, run_halt.h) or at a random moment (--kill-random: one
 * random rank is killed after a random delay, both drawn from --seed), deletes the cache and
 * control directories of the nodes --lose names (drill_nodes.h), runs the
 * program again, and reports whether it restarted from the dataset it
 * should have and what SCR rebuilt or fetched to do so (drill_report.h).
 *
 * The drill gives both runs one job id of its own (SCR_JOB_ID, unless a
 * resource manager's SLURM_JOB_ID is set), SCR_PREFIX, and SCR_LOG_ENABLE=1
 * with the JSON event log on, since the events are how it watches and
 * judges; everything else comes from the user's environment and
 * configuration files. Before the second run it reads what the caches hold
 * and expects the newest checkpoint that is complete on every rank and
 * survives the loss under its redundancy scheme, else the one the prefix's
 * index offers, else a fresh start; --expect NAME overrides that.
 *
 * Exit status: 0 the restart was as expected, 1 it was not or the drill
 * could not run it (one line on stderr says why), 2 usage error. Run by
 * root, it runs as the prefix's owner (act_as_owner.h). Links only
 * libscr-core (no MPI). */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "drill_events.h"
#include "drill_nodes.h"
#include "drill_report.h"
#include "drill_run.h"
#include "index_file.h"
#include "kvtree.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_NOT_AS_EXPECTED 1
#define EXIT_USAGE 2

/* parse's answer when the drill is to go on; exit statuses are 0 or more. */
#define PARSE_GO_ON (-1)

enum { OPT_MPIRUN = 256, OPT_MPIRUN_ARG, OPT_KILL_WINDOW, OPT_LOG_DIR, OPT_TIME_LIMIT };

struct options {
    int ranks, nodes;
    const char *mpirun;
    char **mpirun_args;
    int nmpirun_args;
    int stop_after;
    int kill_random, have_seed;
    unsigned long seed;
    double kill_window;
    int lost[DRILL_MAX_NODES];
    const char *lose_text;
    const char *expect;
    const char *prefix;
    const char *log_dir;
    int time_limit;
    int json, keep;
    char **program;
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: scr-drill --ranks N --nodes M (--stop-after K | --kill-random) [OPTION]...\n"
            "                 [--] PROGRAM [ARGS]...\n"
            "Run an MPI program that uses SCR on N ranks as M simulated nodes of this host,\n"
            "end the run after a checkpoint or at a random moment, lose the caches of some\n"
            "nodes, run it again, and say whether it restarted from the dataset it should\n"
            "have and what SCR rebuilt or fetched.\n"
            "\n"
            "  -n, --ranks N          ranks to run\n"
            "  -N, --nodes M          simulated nodes (1 <= M <= N; default N)\n"
            "  -k, --stop-after K     kill every rank right after checkpoint K completes\n"
            "  -r, --kill-random      kill one random rank at a random moment instead\n"
            "  -s, --seed S           the seed of --kill-random's choices (default: the\n"
            "                         time; the report says which, to repeat it)\n"
            "      --kill-window SEC  --kill-random kills within SEC seconds (default 10)\n"
            "  -l, --lose LIST        lose these nodes between the runs (e.g. 1,3)\n"
            "  -e, --expect NAME      the dataset the restart must use (default: the one\n"
            "                         the drill works out)\n"
            "  -p, --prefix DIR       the prefix (default: $SCR_PREFIX, else the current\n"
            "                         directory)\n"
            "      --mpirun PATH      the mpirun to use (default: mpirun from PATH)\n"
            "      --mpirun-arg OPT   give OPT to mpirun (repeat it for several)\n"
            "      --log-dir DIR      keep the runs' output in DIR (default: a new\n"
            "                         directory in $TMPDIR, removed when all went well)\n"
            "      --time-limit SEC   end a run that takes longer (default 600)\n"
            "      --keep             keep the simulated nodes' directories afterwards\n"
            "  -j, --json             print the report as one JSON object\n"
            "  -h, --help             show this help\n"
            "  -V, --version          show the version\n"
            "\n"
            "Exit status: 0 the restart was as expected, 1 it was not or the drill could\n"
            "not be run, 2 usage error.\n");
}

/* A whole number from min to max, of option opt. */
static int parse_count(const char *opt, const char *text, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (text[0] == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
        return scr_cli_usage_error("%s wants a whole number from %ld to %ld, not '%s'", opt, min,
                                   max, text);
    *out = v;
    return PARSE_GO_ON;
}

/* --lose's list of node numbers, checked against the number of nodes. */
static int parse_lost(struct options *o)
{
    const char *p = o->lose_text;
    if (p[0] == '\0') return scr_cli_usage_error("--lose wants node numbers, e.g. 1,3");
    while (*p) {
        char *end = NULL;
        errno = 0;
        long k = strtol(p, &end, 10);
        if (end == p || errno != 0 || k < 0 || (*end != ',' && *end != '\0'))
            return scr_cli_usage_error(
                "--lose wants node numbers separated by commas (e.g. 1,3), not '%s'", o->lose_text);
        if (k >= o->nodes)
            return scr_cli_usage_error("--lose %s: there is no node %ld: the nodes are 0 to %d",
                                       o->lose_text, k, o->nodes - 1);
        o->lost[k] = 1;
        p = *end == ',' ? end + 1 : end;
    }
    return PARSE_GO_ON;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longs[] = {{"ranks", required_argument, NULL, 'n'},
                                          {"nodes", required_argument, NULL, 'N'},
                                          {"stop-after", required_argument, NULL, 'k'},
                                          {"kill-random", no_argument, NULL, 'r'},
                                          {"seed", required_argument, NULL, 's'},
                                          {"kill-window", required_argument, NULL, OPT_KILL_WINDOW},
                                          {"lose", required_argument, NULL, 'l'},
                                          {"expect", required_argument, NULL, 'e'},
                                          {"prefix", required_argument, NULL, 'p'},
                                          {"mpirun", required_argument, NULL, OPT_MPIRUN},
                                          {"mpirun-arg", required_argument, NULL, OPT_MPIRUN_ARG},
                                          {"log-dir", required_argument, NULL, OPT_LOG_DIR},
                                          {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
                                          {"keep", no_argument, NULL, 'K'},
                                          {"json", no_argument, NULL, 'j'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};
    long v = 0;
    int status = PARSE_GO_ON;
    o->mpirun = "mpirun";
    o->kill_window = 10;
    o->time_limit = 600;
    opterr = 0;
    /* '+': the program's own options are not ours */
    for (int c, before = optind;
         status == PARSE_GO_ON &&
         (c = getopt_long(argc, argv, "+:n:N:k:rs:l:e:p:jhV", longs, NULL)) != -1;
         before = optind) {
        switch (c) {
        case 'n':
            status = parse_count("--ranks", optarg, 1, 1 << 20, &v);
            o->ranks = (int)v;
            break;
        case 'N':
            status = parse_count("--nodes", optarg, 1, DRILL_MAX_NODES, &v);
            o->nodes = (int)v;
            break;
        case 'k':
            status = parse_count("--stop-after", optarg, 1, INT_MAX, &v);
            o->stop_after = (int)v;
            break;
        case 'r': o->kill_random = 1; break;
        case 's':
            status = parse_count("--seed", optarg, 0, LONG_MAX, &v);
            o->seed = (unsigned long)v;
            o->have_seed = 1;
            break;
        case OPT_KILL_WINDOW:
            status = parse_count("--kill-window", optarg, 1, 86400, &v);
            o->kill_window = (double)v;
            break;
        case OPT_TIME_LIMIT:
            status = parse_count("--time-limit", optarg, 1, 7 * 86400, &v);
            o->time_limit = (int)v;
            break;
        case 'l': o->lose_text = optarg; break;
        case 'e':
            if (optarg[0] == '\0') status = scr_cli_usage_error("--expect wants a dataset name");
            o->expect = optarg;
            break;
        case 'p': o->prefix = optarg; break;
        case OPT_LOG_DIR:
            if (optarg[0] == '\0') status = scr_cli_usage_error("--log-dir wants a directory");
            o->log_dir = optarg;
            break;
        case OPT_MPIRUN:
            if (optarg[0] == '\0') status = scr_cli_usage_error("--mpirun wants a program");
            o->mpirun = optarg;
            break;
        case OPT_MPIRUN_ARG: {
            char **grown = realloc(o->mpirun_args, (size_t)(o->nmpirun_args + 1) * sizeof(*grown));
            if (grown == NULL) return scr_cli_usage_error("out of memory");
            o->mpirun_args = grown;
            o->mpirun_args[o->nmpirun_args++] = optarg;
            break;
        }
        case 'K': o->keep = 1; break;
        case 'j': o->json = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-drill (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (status != PARSE_GO_ON) return status;
    if (optind >= argc) return scr_cli_usage_error("no program to run: give it after the options");
    o->program = argv + optind;
    if (o->ranks == 0)
        return scr_cli_usage_error("--ranks is missing: how many ranks should the program run on?");
    if (o->nodes == 0) o->nodes = o->ranks < DRILL_MAX_NODES ? o->ranks : DRILL_MAX_NODES;
    if (o->nodes > o->ranks)
        return scr_cli_usage_error(
            "--nodes %d is more than --ranks %d: every simulated node needs a rank", o->nodes,
            o->ranks);
    if ((o->stop_after > 0) == o->kill_random)
        return scr_cli_usage_error(
            o->kill_random ? "give --stop-after or --kill-random, not both"
                           : "give --stop-after K or --kill-random: how should the run fail?");
    if (o->have_seed && !o->kill_random)
        return scr_cli_usage_error("--seed goes with --kill-random");
    if (o->lose_text != NULL) status = parse_lost(o);
    return status;
}

/* --- the random kill of the first run ------------------------------------------------- */

struct random_watch {
    double at;
    int rank;
};

static enum drill_watch kill_random(void *ctx, double elapsed, int *out_rank)
{
    struct random_watch *w = ctx;
    if (elapsed < w->at) return DRILL_GO_ON;
    *out_rank = w->rank;
    return DRILL_KILL_RANK;
}

/* A small generator of its own, so a seed means the same on every system. */
static unsigned long next_random(unsigned long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned long)(*state >> 33);
}

/* --- the drill -------------------------------------------------------------------------- */

/* The environment both runs share. */
static int set_run_environment(const char *prefix, const char *job)
{
    if (setenv("SCR_PREFIX", prefix, 1) != 0 || setenv("SCR_JOB_ID", job, 1) != 0 ||
        setenv("SCR_LOG_ENABLE", "1", 1) != 0 || setenv("SCR_LOG_JSON_ENABLE", "1", 1) != 0 ||
        unsetenv("SCR_SIM_NODE") != 0) {
        scr_err("cannot set the runs' environment: %s", strerror(errno));
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* What the restart should do: the newest cached checkpoint that survives,
 * else the prefix's candidate, else a fresh start. */
static int work_out_expectation(struct drill_outcome *out, const char *prefix)
{
    for (int i = 0; i < out->ncached; i++) {
        const struct drill_cached *c = &out->cached[i];
        if (!c->survives) continue;
        snprintf(out->expect_source, sizeof(out->expect_source), "cache");
        snprintf(out->expect_name, sizeof(out->expect_name), "%s", c->name);
        if (c->rebuild) snprintf(out->expect_scheme, sizeof(out->expect_scheme), "%s", c->scheme);
        return SCR_SUCCESS;
    }
    snprintf(out->expect_source, sizeof(out->expect_source), "none");
    char *path = NULL;
    scr_kvtree *index = scr_kvtree_new();
    int rc = index != NULL ? scr_index_file_path(prefix, &path) : SCR_ERR_NOMEM;
    struct stat st;
    if (rc == SCR_SUCCESS && stat(path, &st) == 0) {
        int id = 0;
        const char *name = NULL;
        rc = scr_index_file_read(path, index);
        if (rc == SCR_SUCCESS && scr_index_file_restart_candidate(index, &id) == SCR_SUCCESS &&
            scr_index_file_get_name(index, id, &name) == SCR_SUCCESS) {
            snprintf(out->expect_source, sizeof(out->expect_source), "prefix");
            snprintf(out->expect_name, sizeof(out->expect_name), "%s", name);
        }
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory");
    free(path);
    scr_kvtree_delete(index);
    return rc;
}

/* Whether program can be started: a path that is executable, or a name
 * found so in $PATH. */
static int can_run(const char *program)
{
    if (strchr(program, '/') != NULL) return access(program, X_OK) == 0;
    const char *path = getenv("PATH");
    if (path == NULL) return 0;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ":");
        char candidate[4096];
        int n = snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)(len ? len : 1),
                         len ? p : ".", program);
        if (n > 0 && (size_t)n < sizeof(candidate) && access(candidate, X_OK) == 0) return 1;
        p += len;
        if (*p == ':') p++;
    }
    return 0;
}

/* A directory for the runs' output: the one given, else a new one. */
static int make_log_dir(const char *given, char *buf, size_t len, int *out_made)
{
    *out_made = 0;
    if (given != NULL) {
        if (mkdir(given, 0700) != 0 && errno != EEXIST) {
            scr_err("cannot create the log directory %s: %s", given, strerror(errno));
            return SCR_ERR_IO;
        }
        snprintf(buf, len, "%s", given);
        return SCR_SUCCESS;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, len, "%s/scr-drill.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(buf) == NULL) {
        scr_err("cannot create a log directory in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
                strerror(errno));
        return SCR_ERR_IO;
    }
    *out_made = 1;
    return SCR_SUCCESS;
}

/* The first run, ended as the options say; the events it left in ev. */
static int first_run(const struct options *o, struct drill_run_spec *spec, struct drill_events *ev,
                     struct drill_outcome *out)
{
    struct random_watch rw = {0, 0};
    if (o->kill_random) {
        unsigned long state = out->seed;
        /* a moment in [0.5 s, window): a kill at 0 would only test mpirun */
        rw.at = 0.5 + (o->kill_window - 0.5) * (double)(next_random(&state) % 1000000) / 1e6;
        rw.rank = (int)(next_random(&state) % (unsigned long)o->ranks);
        out->kill_delay = rw.at;
    }
    /* --stop-after: libscr stops the run itself (SCR_DRILL_STOP_AFTER in spec) */
    int rc = drill_run(spec, o->kill_random ? kill_random : NULL, &rw, &out->run1);
    if (rc != SCR_SUCCESS) return rc;
    rc = drill_events_poll(ev);
    if (rc != SCR_SUCCESS) return rc;
    out->run1_checkpoints = ev->completed;
    out->run1_stopped = ev->saw_drill_stop;
    snprintf(out->run1_last, sizeof(out->run1_last), "%s", ev->last_completed_name);
    if (out->run1.timed_out) {
        scr_err("the first run did not end within %d s (see %s); give --time-limit", o->time_limit,
                spec->log_path);
        return SCR_FAILURE;
    }
    /* (a random kill may come before SCR_Init: the restart is then a fresh start) */
    if (!ev->saw_init && out->run1.kill_at < 0) {
        scr_err("the first run ended (status %d) before SCR_Init recorded anything on the prefix "
                "%s: does the "
                "program start under %s and call SCR_Init (see %s)?",
                out->run1.status, out->prefix, o->mpirun, spec->log_path);
        return SCR_FAILURE;
    }
    if (o->stop_after > 0 && !ev->saw_drill_stop) {
        if (ev->init_id > 0)
            scr_err("the first run ended (status %d) after %d checkpoint%s, before checkpoint %d: "
                    "it restarted "
                    "from dataset %d that SCR_Init found on the prefix %s; drill on a prefix the "
                    "program starts "
                    "afresh from (see %s)",
                    out->run1.status, ev->completed, ev->completed == 1 ? "" : "s", o->stop_after,
                    ev->init_id, out->prefix, spec->log_path);
        else
            scr_err("the first run ended (status %d) after %d checkpoint%s, before checkpoint %d: "
                    "does the "
                    "program write that many (see %s)?",
                    out->run1.status, ev->completed, ev->completed == 1 ? "" : "s", o->stop_after,
                    spec->log_path);
        return SCR_FAILURE;
    }
    if (o->stop_after > 0 && out->run1.status == 0) {
        scr_err("the first run ended with status 0 after its checkpoint %d: the library did not "
                "stop it (see %s)",
                o->stop_after, spec->log_path);
        return SCR_FAILURE;
    }
    if (o->kill_random && out->run1.kill_at < 0) {
        scr_err(
            "the first run ended (status %d) before the random kill %.1f s after its start: give a "
            "shorter --kill-window (see %s)",
            out->run1.status, rw.at, spec->log_path);
        return SCR_FAILURE;
    }
    if (o->kill_random && out->run1.killed == 0 && out->run1.status == 0) {
        scr_err("rank %d could not be found to kill %.1f s after the start (see %s)", rw.rank,
                rw.at, spec->log_path);
        return SCR_FAILURE;
    }
    return SCR_SUCCESS;
}

/* Inside an allocation every drill has the allocation's job id, so two at
 * once would share the simulated nodes' directories: the second is
 * refused while the first holds a lock named after the user and the job
 * (*out_fd: the lock, kept open until the drill ends; -1 outside one). */
static int one_drill_per_job(const char *slurm_job, int *out_fd)
{
    *out_fd = -1;
    if (slurm_job == NULL || slurm_job[0] == '\0') return SCR_SUCCESS;
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/scr-drill.%ld.%s.lock",
             tmp != NULL && tmp[0] == '/' ? tmp : "/tmp", (long)getuid(), slurm_job);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        scr_err("cannot open the drill's lock %s: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        scr_err(
            "another scr-drill runs in job %s (it holds %s); drills of one job run one at a time, "
            "since they share its simulated nodes",
            slurm_job, path);
        close(fd);
        return SCR_FAILURE;
    }
    *out_fd = fd;
    return SCR_SUCCESS;
}

static int drill(const struct options *o)
{
    struct drill_outcome out;
    memset(&out, 0, sizeof(out));
    struct drill_nodes dn = {0};
    struct drill_events ev1 = {0}, ev2 = {0};
    struct drill_cached cached[DRILL_MAX_CACHED];
    scr_config *cfg = NULL;
    char job[128], tag[128], log_dir[4096] = "", log1[4200], log2[4200];
    int lock_fd = -1;
    int made_log_dir = 0, status = EXIT_NOT_AS_EXPECTED;

    struct scr_acting as;
    char *given = scr_cli_resolve_prefix(o->prefix), *prefix = NULL;
    if (given != NULL && scr_act_as_owner(given, SCR_OWNED_PREFIX, &as) == SCR_SUCCESS) {
        prefix = realpath(given, NULL);
        if (prefix == NULL) scr_err("the prefix %s: %s", given, strerror(errno));
    }
    free(given);
    if (prefix == NULL) return EXIT_NOT_AS_EXPECTED;
    struct stat st;
    if (stat(prefix, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scr_err("the prefix %s is not a directory", prefix);
        goto out;
    }

    if (!can_run(o->mpirun)) {
        scr_err("cannot run %s: %s (give --mpirun PATH)", o->mpirun,
                strchr(o->mpirun, '/') ? "it is not an executable file"
                                       : "it is not found in PATH");
        goto out;
    }
    /* the tag that finds this drill's ranks to kill is its own, whatever the job id */
    snprintf(tag, sizeof(tag), "drill-%ld-%ld", (long)getpid(), (long)time(NULL));
    snprintf(job, sizeof(job), "%s", tag);
    const char *slurm = getenv("SLURM_JOB_ID");
    if (one_drill_per_job(slurm, &lock_fd) != SCR_SUCCESS) goto out;
    if (slurm != NULL && slurm[0] != '\0')
        snprintf(job, sizeof(job), "%s", slurm); /* libscr takes it first */
    if (set_run_environment(prefix, job) != SCR_SUCCESS) goto out;
    cfg = scr_config_new();
    if (cfg == NULL || scr_config_load(cfg, &scr_cli_config_sources) != SCR_SUCCESS) goto out;
    if (drill_nodes_setup(&dn, cfg, o->ranks, o->nodes) != SCR_SUCCESS) goto out;
    if (make_log_dir(o->log_dir, log_dir, sizeof(log_dir), &made_log_dir) != SCR_SUCCESS) goto out;
    snprintf(log1, sizeof(log1), "%s/run1.log", log_dir);
    snprintf(log2, sizeof(log2), "%s/run2.log", log_dir);

    out.ranks = o->ranks;
    out.nodes = o->nodes;
    out.job = job;
    out.prefix = prefix;
    out.log_dir = log_dir;
    out.stop_after = o->stop_after;
    out.kill_random = o->kill_random;
    out.seed = o->have_seed ? o->seed : (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
    out.lost = o->lost;

    struct drill_run_spec spec = {
        o->mpirun, o->mpirun_args, o->nmpirun_args, o->ranks,     o->nodes, o->program,
        tag,       log1,           o->stop_after,   o->time_limit};
    if (drill_events_start(&ev1, prefix, job) != SCR_SUCCESS) goto out;
    if (first_run(o, &spec, &ev1, &out) != SCR_SUCCESS) goto out;

    /* what the caches hold decides what the restart should use */
    if (drill_nodes_read_caches(&dn, o->lost, cached, DRILL_MAX_CACHED, &out.ncached) !=
        SCR_SUCCESS)
        goto out;
    out.cached = cached;
    if (o->expect != NULL) {
        out.expect_given = 1;
        snprintf(out.expect_name, sizeof(out.expect_name), "%s", o->expect);
    } else if (work_out_expectation(&out, prefix) != SCR_SUCCESS) {
        goto out;
    }
    for (int k = 0; k < o->nodes; k++)
        if (o->lost[k] && drill_nodes_lose(&dn, k) != SCR_SUCCESS) goto out;

    /* the restart */
    if (drill_events_start(&ev2, prefix, job) != SCR_SUCCESS) goto out;
    spec.log_path = log2;
    spec.stop_after = 0;
    if (drill_run(&spec, NULL, NULL, &out.run2) != SCR_SUCCESS) goto out;
    if (drill_events_poll(&ev2) != SCR_SUCCESS) goto out;
    out.ev2 = &ev2;
    drill_report_judge(&out);
    out.logs_kept = !made_log_dir || o->keep || !out.as_expected;
    if (drill_report_print(&out, o->json) != SCR_SUCCESS) goto out;
    if (!out.as_expected) scr_err("the restart was not as expected: %s", out.why);
    status = out.as_expected ? 0 : EXIT_NOT_AS_EXPECTED;

out:
    if (dn.ndirs > 0 && !o->keep) drill_nodes_remove_all(&dn);
    /* the logs go when all went well and nobody asked for them */
    if (made_log_dir && status == 0 && !o->keep) {
        unlink(log1);
        unlink(log2);
        rmdir(log_dir);
    } else if (status != 0 && log_dir[0] != '\0') {
        fprintf(stderr, "scr-drill: the runs' output is in %s\n", log_dir);
    }
    drill_events_end(&ev1);
    drill_events_end(&ev2);
    drill_nodes_free(&dn);
    scr_config_delete(cfg);
    free(prefix);
    if (lock_fd >= 0) close(lock_fd);
    return status;
}

int main(int argc, char **argv)
{
    scr_cli_init("scr-drill");
    struct options o;
    memset(&o, 0, sizeof(o));
    int status = parse(argc, argv, &o);
    if (status == PARSE_GO_ON) status = drill(&o);
    free(o.mpirun_args);
    return status;
}
