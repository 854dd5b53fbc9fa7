/* drill_run.c — start mpirun on simulated nodes, watch it, kill its ranks. */
#include "drill_run.h"
#include "scr_err.h"
#include "util_log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What each rank runs through /bin/sh -c: $1 ranks, $2 nodes, then the
 * program. The rank variables are those of Open MPI, PMIx and MPICH. */
static const char rank_wrapper[] =
    "r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-}}}\n"
    "case $r in ''|*[!0-9]*) echo \"scr-drill: the MPI launcher gave this process no rank "
    "(OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK)\" >&2; exit 127 ;; esac\n"
    "SCR_SIM_NODE=node$((r * $2 / $1))\n"
    "export SCR_SIM_NODE\n"
    "shift 2\n"
    "exec \"$@\"\n";

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The value of variable name in the NUL-separated environment env (len
 * bytes), or NULL. */
static const char *env_value(const char *env, size_t len, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < len;) {
        const char *entry = env + i;
        size_t el = strnlen(entry, len - i);
        if (el > nl && strncmp(entry, name, nl) == 0 && entry[nl] == '=') return entry + nl + 1;
        i += el + 1;
    }
    return NULL;
}

/* The rank of process pid when it is one of tag's ranks, else -1. */
static int rank_of_process(const char *pid, const char *tag)
{
    char path[64], env[65536];
    snprintf(path, sizeof(path), "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1; /* gone, or someone else's */
    ssize_t got = read(fd, env, sizeof(env) - 1);
    close(fd);
    if (got <= 0) return -1;
    env[got] = '\0';
    const char *t = env_value(env, (size_t)got, "SCR_DRILL_TAG");
    if (t == NULL || strcmp(t, tag) != 0) return -1;
    static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (int i = 0; i < 3; i++) {
        const char *v = env_value(env, (size_t)got, rank_vars[i]);
        if (v != NULL && v[0] >= '0' && v[0] <= '9') return atoi(v);
    }
    return -1; /* mpirun or a daemon: it has the tag but no rank */
}

int drill_run_kill_ranks(const char *tag, int rank)
{
    DIR *d = opendir("/proc");
    if (d == NULL) {
        scr_err("cannot read /proc to find the ranks: %s", strerror(errno));
        return 0;
    }
    int killed = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        int r = rank_of_process(e->d_name, tag);
        if (r < 0 || (rank >= 0 && r != rank)) continue;
        if (kill((pid_t)atol(e->d_name), SIGKILL) == 0) killed++;
    }
    closedir(d);
    return killed;
}

/* The child: input from /dev/null, output to the log, then mpirun. */
static void exec_mpirun(const struct drill_run_spec *spec)
{
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open(spec->log_path,
                   O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
        fprintf(stderr, "scr-drill: cannot set up the run's input and log %s: %s\n", spec->log_path,
                strerror(errno));
        _exit(126);
    }
    char stop[16];
    snprintf(stop, sizeof(stop), "%d", spec->stop_after);
    if (setenv("SCR_DRILL_TAG", spec->tag, 1) != 0 ||
        (spec->stop_after > 0 ? setenv("SCR_DRILL_STOP_AFTER", stop, 1)
                              : unsetenv("SCR_DRILL_STOP_AFTER")) != 0) {
        fprintf(stderr, "scr-drill: cannot set the ranks' environment: %s\n", strerror(errno));
        _exit(126);
    }
    int nprog = 0;
    while (spec->program[nprog] != NULL) nprog++;
    char ranks[16], nodes[16];
    snprintf(ranks, sizeof(ranks), "%d", spec->ranks);
    snprintf(nodes, sizeof(nodes), "%d", spec->nodes);
    size_t n = 0, cap = (size_t)spec->nmpirun_args + (size_t)nprog + 12;
    char **argv = calloc(cap, sizeof(*argv));
    if (argv == NULL) {
        fprintf(stderr, "scr-drill: out of memory starting %s\n", spec->mpirun);
        _exit(126);
    }
    argv[n++] = (char *)spec->mpirun;
    for (int i = 0; i < spec->nmpirun_args; i++) argv[n++] = spec->mpirun_args[i];
    argv[n++] = "-np";
    argv[n++] = ranks;
    argv[n++] = "/bin/sh";
    argv[n++] = "-c";
    argv[n++] = (char *)rank_wrapper;
    argv[n++] = "scr-drill-rank";
    argv[n++] = ranks;
    argv[n++] = nodes;
    for (int i = 0; i < nprog; i++) argv[n++] = spec->program[i];
    argv[n] = NULL;
    execvp(spec->mpirun, argv);
    fprintf(stderr, "scr-drill: cannot run %s: %s\n", spec->mpirun, strerror(errno));
    _exit(127);
}

/* Seconds the launcher gets to end the job after one of its ranks was killed. */
#define DRILL_JOB_DOWN_SECONDS 30

/* End a run that outlived its limit: SIGTERM to mpirun, SIGKILL to the
 * ranks, and SIGKILL to mpirun when it has not gone 10 s later. */
static int end_overdue(pid_t pid, const char *tag, int *out_wstatus)
{
    kill(pid, SIGTERM);
    drill_run_kill_ranks(tag, -1);
    for (int i = 0; i < 200; i++) {
        pid_t w = waitpid(pid, out_wstatus, WNOHANG);
        if (w == pid) return SCR_SUCCESS;
        if (w < 0 && errno != EINTR) break;
        usleep(50000);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, out_wstatus, 0) < 0) {
        if (errno != EINTR) {
            scr_err("cannot wait for %s: %s", "mpirun", strerror(errno));
            return SCR_ERR_IO;
        }
    }
    return SCR_SUCCESS;
}

int drill_run(const struct drill_run_spec *spec, drill_watcher watch, void *ctx,
              struct drill_run_result *out)
{
    memset(out, 0, sizeof(*out));
    out->killed_rank = -1;
    out->kill_at = -1;
    fflush(NULL); /* nothing buffered is written twice by the child */
    pid_t pid = fork();
    if (pid < 0) {
        scr_err("cannot start %s: fork failed: %s", spec->mpirun, strerror(errno));
        return SCR_ERR_IO;
    }
    if (pid == 0) exec_mpirun(spec);

    double start = now_seconds();
    int wstatus = 0, asking = watch != NULL, job_taken_down = 0;
    for (;;) {
        pid_t w = waitpid(pid, &wstatus, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            scr_err("cannot wait for %s: %s", spec->mpirun, strerror(errno));
            return SCR_ERR_IO;
        }
        double elapsed = now_seconds() - start;
        if (elapsed > spec->time_limit) {
            out->timed_out = 1;
            int rc = end_overdue(pid, spec->tag, &wstatus);
            if (rc != SCR_SUCCESS) return rc;
            break;
        }
        /* a node that fails takes its job down: when the launcher has not
         * ended the job a while after one rank was killed (a failure
         * detector slowed by a busy machine), the rest go too */
        if (!asking && !job_taken_down && out->killed_rank >= 0 &&
            elapsed > out->kill_at + DRILL_JOB_DOWN_SECONDS) {
            drill_run_kill_ranks(spec->tag, -1);
            job_taken_down = 1;
        }
        if (asking) {
            int rank = -1;
            enum drill_watch what = watch(ctx, elapsed, &rank);
            if (what != DRILL_GO_ON) {
                asking = 0;
                out->kill_at = elapsed;
                out->killed_rank = what == DRILL_KILL_RANK ? rank : -1;
                out->killed = drill_run_kill_ranks(spec->tag, out->killed_rank);
            }
        }
        usleep(50000);
    }
    out->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    /* a rank mpirun left behind must not run on into the next run */
    drill_run_kill_ranks(spec->tag, -1);
    return SCR_SUCCESS;
}
