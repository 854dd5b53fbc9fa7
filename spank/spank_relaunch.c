/* spank_relaunch.c — srun starts a failed SCR step again inside its allocation. */
#include "spank_relaunch.h"

#include "event_log.h"
#include "job_dir.h"
#include "job_env.h"
#include "job_file.h"
#include "relaunch_plan.h"
#include "scr_err.h"
#include "spank_end_time.h"
#include "spank_options.h"
#include "spank_step_leave.h"
#include "util_log.h"
#include "util_path.h"
#include "util_strbuf.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RUN_NUMBER_VAR "SCR_RUN_NUMBER"
/* how many words an earlier relaunch put at the front of srun's arguments */
#define OUR_WORDS_VAR "SCR_RELAUNCH_WORDS"
#define MAX_OUR_WORDS 2
/* no bound of our own: the kernel already bounded the command line */
#define CMDLINE_MAX SIZE_MAX
#define RELAUNCH_SETTLE_SECONDS 3

static int in_allocation; /* srun started inside sbatch or salloc */
static uint32_t job_id;
static uint32_t step_id = NO_VAL;
static uint32_t step_nodes;        /* the step's node count, 0 unknown */
static const char *site_cntl_base; /* the site's base of control directories */

void scr_spank_relaunch_init(const char *cntl_base)
{
    site_cntl_base = cntl_base;
    const char *id = getenv("SLURM_JOB_ID");
    in_allocation = id != NULL && id[0] != '\0';
}

/* A count parameter: the --scr option's value, else the environment's, else dflt. */
static long param_count(const char *param, long dflt)
{
    const char *v = scr_spank_options_param(param);
    if (v == NULL) return dflt;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    return errno == 0 && end != v && *end == '\0' ? n : dflt;
}

void scr_spank_relaunch_note_step(spank_t sp)
{
    if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) job_id = 0;
    if (spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS) step_id = NO_VAL;
    if (spank_get_item(sp, S_JOB_NNODES, &step_nodes) != ESPANK_SUCCESS) step_nodes = 0;
    long runs = param_count("SCR_RUNS", 1);
    if (!in_allocation && runs != 1)
        slurm_info("scr: this srun made its own allocation, which ends with it: no run is repeated "
                   "(run it inside sbatch or salloc for SCR_RUNS=%ld)",
                   runs);
}

/* The job's nodes, whether it still runs and when it started, from
 * slurmctld; -1 (why set) when it cannot tell. *out_nodes is a new string. */
static int job_state(char **out_nodes, int *out_running, time_t *out_start, char *why,
                     size_t why_len)
{
    job_info_msg_t *msg = NULL;
    if (scr_spank_load_job(job_id, &msg, why, why_len) != 0) return -1;
    const slurm_job_info_t *job = &msg->job_array[0];
    *out_running =
        (job->job_state & JOB_STATE_BASE) == JOB_RUNNING && !(job->job_state & JOB_COMPLETING);
    *out_start = job->start_time;
    *out_nodes = strdup(job->nodes != NULL ? job->nodes : "");
    slurm_free_job_info_msg(msg);
    if (*out_nodes != NULL) return 0;
    snprintf(why, why_len, "out of memory");
    return -1;
}

/* A moment for the nodes after the last step has left: a step started
 * while the last one's killed tasks are still being cleaned up can fail
 * to wire up its own (seen with Open MPI's shared-memory setup). */
static void settle(void)
{
    sleep(RELAUNCH_SETTLE_SECONDS);
}

/* The job's nodes as they are now (a node that failed under --no-kill has
 * left the job): the tasks of the next run, and Slurm's own MPI wire-up in
 * them, must not count on the nodes the job started with. */
static int export_job_nodes(const char *nodes)
{
    hostlist_t hl = slurm_hostlist_create(nodes);
    if (hl == NULL) {
        slurm_error("scr: slurmctld gave a node list that does not parse: %s", nodes);
        return -1;
    }
    char text[16];
    snprintf(text, sizeof(text), "%d", slurm_hostlist_count(hl));
    slurm_hostlist_destroy(hl);
    if (setenv("SLURM_JOB_NODELIST", nodes, 1) != 0 || setenv("SLURM_NODELIST", nodes, 1) != 0 ||
        setenv("SLURM_JOB_NUM_NODES", text, 1) != 0 || setenv("SLURM_NNODES", text, 1) != 0) {
        slurm_error("scr: cannot update the job's node list for the next run: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The prefix SCR_Init recorded in this node's control directory of the
 * job (job_file.h), whichever way the job set it; NULL when no run on this
 * node recorded one (not an error: the fallbacks follow). A new string. */
static char *recorded_prefix(void)
{
    char node[256], user[256], jobid[32], *dir = NULL, *prefix = NULL;
    int defaulted = 0;
    const char *base = scr_spank_options_param("SCR_CNTL_BASE");
    if (base == NULL) base = site_cntl_base;
    if (base == NULL || scr_job_env_node_name(node, sizeof(node)) != SCR_SUCCESS ||
        scr_job_env_user_name(user, sizeof(user)) != SCR_SUCCESS ||
        scr_job_env_job_id(jobid, sizeof(jobid), &defaulted) != SCR_SUCCESS ||
        scr_job_dir_path("SCR_CNTL_BASE", base, node, user, jobid, &dir) != SCR_SUCCESS)
        return NULL;
    int rc = scr_job_file_prefix_of(dir, &prefix);
    if (rc != SCR_SUCCESS && rc != SCR_ERR_NOTFOUND)
        slurm_info("scr: the prefix recorded in %s is not used: %s", dir, scr_last_error());
    free(dir);
    return rc == SCR_SUCCESS ? prefix : NULL;
}

/* The prefix the runs use: the one SCR_Init recorded, else --scr-prefix or
 * SCR_PREFIX, relative to the working directory, which is also the
 * default. A new string. */
static char *resolve_prefix(void)
{
    char cwd[4096];
    char *recorded = recorded_prefix();
    if (recorded != NULL) return recorded;
    if (getcwd(cwd, sizeof(cwd)) == NULL) return NULL;
    const char *p = scr_spank_options_param("SCR_PREFIX");
    char *out = NULL;
    if (p == NULL) return strdup(cwd);
    if (p[0] == '/') return strdup(p);
    return scr_path_join(cwd, p, &out) == SCR_SUCCESS ? out : NULL;
}

/* This process's command line as an argv with room for MAX_OUR_WORDS more
 * words after argv[0] (the words live in *out_buf). NULL when it cannot be
 * read. */
static char **own_argv(char **out_buf)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    scr_strbuf cmdline = SCR_STRBUF_INIT;
    char *buf = NULL;
    size_t len = 0;
    int rc = scr_strbuf_read_fd(&cmdline, fd, CMDLINE_MAX);
    close(fd);
    if (rc == SCR_SUCCESS) rc = scr_strbuf_detach(&cmdline, &buf, &len);
    if (rc != SCR_SUCCESS) {
        scr_strbuf_free(&cmdline);
        return NULL;
    }
    size_t words = 0;
    for (size_t i = 0; i < len; i++) words += buf[i] == '\0';
    char **argv = words > 0 ? calloc(words + MAX_OUR_WORDS + 1, sizeof(char *)) : NULL;
    if (argv == NULL) {
        free(buf);
        return NULL;
    }
    size_t w = 0;
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1) argv[w++] = buf + i;
    *out_buf = buf;
    return argv;
}

/* Nothing of this srun but its standard streams reaches the next one. */
static void prepare_exec(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int fd = atoi(e->d_name);
        if (fd > 2 && fd != dirfd(d)) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    closedir(d);
}

/* Why each avoided node is down, a line each: a node Slurm still counts
 * up is told apart from one it has marked. The first few only. */
static void report_down(const struct scr_down_nodes *down)
{
    enum { SHOWN = 8 };
    int shown = 0;
    for (int i = 0; i < down->count; i++) {
        if (!down->nodes[i].down) continue;
        if (shown++ < SHOWN)
            slurm_info("scr: %s is down: %s", down->nodes[i].name, down->nodes[i].reason);
    }
    if (shown > SHOWN)
        slurm_info("scr: and %d more nodes are down (scr-list-down-nodes --reason lists them)",
                   shown - SHOWN);
}

/* The relaunch event, in the prefix's event log (event_log.h). */
static void log_relaunch(const char *prefix, int run_number, int nodes, const char *avoid)
{
    char job[32];
    snprintf(job, sizeof(job), "%lu", (unsigned long)job_id);
    scr_event_log_relaunch(prefix, job, run_number, nodes, avoid);
}

/* Replace this srun with the next run: its own command line with
 * --exclude=avoid (when set) and --overlap (when overlap) first, in place
 * of the words the last relaunch put there; returns only on failure (-1). */
static int run_again(int run_number, const char *avoid, int overlap)
{
    char *buf = NULL, option[4096], number[16], words[16];
    char **argv = own_argv(&buf);
    if (argv == NULL) {
        slurm_error("scr: cannot read srun's command line to run again: %s", strerror(errno));
        return -1;
    }
    const char *ours = getenv(OUR_WORDS_VAR);
    int drop = ours != NULL ? atoi(ours) : 0;
    int first_user_word = 1;
    while (drop-- > 0 && first_user_word <= MAX_OUR_WORDS && argv[first_user_word] != NULL)
        first_user_word++;
    int users = 0;
    while (argv[first_user_word + users] != NULL) users++;
    int added = 0;
    char *front[MAX_OUR_WORDS];
    if (avoid != NULL) {
        snprintf(option, sizeof(option), "--exclude=%s", avoid);
        front[added++] = option;
    }
    if (overlap) front[added++] = "--overlap";
    /* the array has room for MAX_OUR_WORDS more words than it holds */
    memmove(argv + 1 + added, argv + first_user_word, (size_t)(users + 1) * sizeof(char *));
    memcpy(argv + 1, front, (size_t)added * sizeof(char *));
    snprintf(number, sizeof(number), "%d", run_number);
    snprintf(words, sizeof(words), "%d", added);
    if (setenv(RUN_NUMBER_VAR, number, 1) != 0 || setenv(OUR_WORDS_VAR, words, 1) != 0) {
        slurm_error("scr: cannot set %s to run again: %s", RUN_NUMBER_VAR, strerror(errno));
        free(argv);
        free(buf);
        return -1;
    }
    prepare_exec();
    fflush(NULL);
    execv("/proc/self/exe", argv);
    slurm_error("scr: cannot run %s again: %s", argv[0], strerror(errno));
    free(argv);
    free(buf);
    return -1;
}

/* What decides whether the run after `run` is made, and where. */
struct relaunch_case {
    const char *prefix;
    const char *judged; /* the nodes the run started with */
    int run;
    long max_runs;
    time_t job_start; /* health records from before it are an earlier job's */
};

/* Judge the job's nodes now (Slurm's states, a probe of each node's
 * slurmd, SCR_EXCLUDE_NODES, this job's health records) and decide. */
static int make_plan(const struct relaunch_case *c, struct scr_relaunch_plan *plan)
{
    const char *end = getenv("SCR_END_TIME");
    struct scr_relaunch_plan_input in = {
        .prefix = c->prefix,
        .nodelist = c->judged,
        .exclude = getenv("SCR_EXCLUDE_NODES"),
        .runs_done = c->run,
        .max_runs = (int)c->max_runs,
        .min_nodes = (int)param_count("SCR_MIN_NODES", (long)step_nodes),
        .end_time = end != NULL ? strtoll(end, NULL, 10) : 0,
        .halt_seconds = param_count("SCR_HALT_SECONDS", 0),
        .health_since = (int64_t)c->job_start,
    };
    int rc = scr_relaunch_plan_make(&in, plan);
    if (rc != SCR_SUCCESS)
        slurm_error("scr: not running again: %s", scr_last_error());
    else if (plan->verdict != SCR_RELAUNCH_GO)
        slurm_info("scr: not running again after run %d: %s", c->run, plan->why);
    return rc == SCR_SUCCESS && plan->verdict == SCR_RELAUNCH_GO ? 0 : -1;
}

/* The run that just ended is to be made again: once its step has left its
 * CPUs (or is known to keep them) and the nodes have settled, judge the
 * nodes again, since the first judgment came as the step ended: a node
 * that was dying then may still have answered the probe (a killed slurmd
 * whose socket the kernel had not yet closed), and one may have failed
 * since. Then start the next run with the job's nodes as slurmctld has
 * them now, which may lack a failed node removed meanwhile. Returns only
 * when no run is started (0) or on failure (-1). */
static int start_next_run(const struct relaunch_case *c)
{
    int overlap = 0, running = 0;
    time_t start = 0;
    char why[512], *nodes = NULL;
    if (scr_spank_step_leave(job_id, step_id, &overlap) != 0) return -1;
    settle();
    struct scr_relaunch_plan plan;
    if (make_plan(c, &plan) != 0) {
        scr_relaunch_plan_free(&plan);
        return 0;
    }
    int rc = -1;
    if (job_state(&nodes, &running, &start, why, sizeof(why)) != 0) {
        slurm_error("scr: not running again: %s", why);
    } else if (!running) {
        slurm_info("scr: not running again: job %lu is ending", (unsigned long)job_id);
        rc = 0;
    } else {
        if (plan.note[0] != '\0') slurm_info("scr: %s", plan.note);
        slurm_info("scr: run %d ended before SCR_Finalize; starting run %d on %d nodes%s%s", c->run,
                   c->run + 1, plan.nodes_up, plan.avoid ? ", avoiding " : "",
                   plan.avoid ? plan.avoid : "");
        report_down(&plan.down);
        log_relaunch(c->prefix, c->run + 1, plan.nodes_up, plan.avoid);
        if (export_job_nodes(nodes) == 0) rc = run_again(c->run + 1, plan.avoid, overlap);
    }
    scr_relaunch_plan_free(&plan);
    free(nodes);
    return rc;
}

int scr_spank_relaunch(void)
{
    long max_runs = param_count("SCR_RUNS", 1);
    const char *number = getenv(RUN_NUMBER_VAR);
    int run = number != NULL && atoi(number) > 0 ? atoi(number) : 1;
    if (!in_allocation || job_id == 0 || max_runs == 1) return 0;
    char why[512], *nodes = NULL;
    int running = 0;
    time_t start = 0;
    if (job_state(&nodes, &running, &start, why, sizeof(why)) != 0) {
        slurm_error("scr: not running again: %s", why);
        return 0;
    }
    if (!running) {
        slurm_info("scr: not running again: job %lu is ending", (unsigned long)job_id);
        free(nodes);
        return 0;
    }
    /* the nodes this run started with: a node that failed has left the job
     * by now, yet it is named in --exclude and in the message */
    const char *judged = getenv("SLURM_JOB_NODELIST");
    if (judged == NULL || judged[0] == '\0') judged = nodes;
    char *prefix = resolve_prefix();
    struct relaunch_case c = {
        .prefix = prefix, .judged = judged, .run = run, .max_runs = max_runs, .job_start = start};
    int rc = 0;
    if (prefix == NULL) {
        slurm_error("scr: not running again: cannot resolve the prefix");
    } else {
        /* decided once now, so that a run that is not made waits for nothing */
        struct scr_relaunch_plan plan;
        int go = make_plan(&c, &plan) == 0;
        scr_relaunch_plan_free(&plan);
        if (go) rc = start_next_run(&c);
    }
    free(prefix);
    free(nodes);
    return rc;
}
