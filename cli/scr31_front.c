/* scr31_front.c — which front end runs, and what they share: finding our
 * commands beside them and starting them. */
#include "scr31_front.h"
#include "cli_common.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} front_ends[] = {
    {"scr_index", scr31_index},     {"scr_halt", scr31_halt},
    {"scr_srun", scr31_srun},       {"scr_prerun", scr31_prerun},
    {"scr_postrun", scr31_postrun}, {"scr_list_down_nodes", scr31_list_down_nodes},
    {"scr_env", scr31_env},         {"scr_list_dir", scr31_list_dir},
    {"scr_inspect", scr31_inspect}, {"scr_inspect_cache", scr31_inspect_cache},
};

int scr31_main(const char *name, int argc, char **argv)
{
    scr_cli_init(name);
    for (size_t i = 0; i < sizeof(front_ends) / sizeof(front_ends[0]); i++)
        if (strcmp(front_ends[i].name, name) == 0) return front_ends[i].run(argc, argv);
    fprintf(stderr, "%s: not one of SCR 3.1's commands this program knows\n", name);
    return SCR31_EXIT_FAILED;
}

/* The directory our commands are in (front_end 0), or the other front ends
 * (front_end 1): this program's own when installed. Uninstalled, the front
 * ends are built in cli/scr31 (libtool may run them from its .libs) and our
 * commands in cli. "" when it cannot be told. */
static void commands_dir(char *buf, size_t len, int front_end)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    buf[0] = '\0';
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL) return;
    *slash = '\0';
    size_t l = strlen(exe);
    if (l >= 6 && strcmp(exe + l - 6, "/.libs") == 0) exe[l -= 6] = '\0';
    if (!front_end && l >= 10 && strcmp(exe + l - 10, "/cli/scr31") == 0) exe[l - 6] = '\0';
    snprintf(buf, len, "%s", exe);
}

static int grow(struct scr31_argv *line)
{
    if (line->count + 2 <= line->room) return SCR_SUCCESS;
    int room = line->room ? line->room * 2 : 16;
    char **words = realloc(line->words, (size_t)room * sizeof(char *));
    if (words == NULL) {
        scr_err("out of memory");
        return SCR_ERR_NOMEM;
    }
    line->words = words;
    line->room = room;
    return SCR_SUCCESS;
}

int scr31_argv_add(struct scr31_argv *line, const char *word)
{
    int rc = grow(line);
    if (rc != SCR_SUCCESS) return rc;
    line->words[line->count++] = (char *)word;
    line->words[line->count] = NULL;
    return SCR_SUCCESS;
}

static int argv_start(struct scr31_argv *line, const char *tool, int front_end)
{
    static char path[PATH_MAX];
    char dir[PATH_MAX];
    memset(line, 0, sizeof(*line));
    commands_dir(dir, sizeof(dir), front_end);
    int n = snprintf(path, sizeof(path), "%s/%s", dir, tool);
    if (dir[0] == '\0' || n < 0 || (size_t)n >= sizeof(path) || access(path, X_OK) != 0)
        snprintf(path, sizeof(path), "%s", tool);
    return scr31_argv_add(line, path);
}

int scr31_argv_start(struct scr31_argv *line, const char *tool)
{
    return argv_start(line, tool, 0);
}

int scr31_argv_start_front_end(struct scr31_argv *line, const char *name)
{
    return argv_start(line, name, 1);
}

void scr31_argv_free(struct scr31_argv *line)
{
    free(line->words);
    memset(line, 0, sizeof(*line));
}

int scr31_exec(struct scr31_argv *line)
{
    fflush(NULL);
    execvp(line->words[0], line->words);
    scr_err("cannot run %s: %s", line->words[0], strerror(errno));
    return SCR31_EXIT_FAILED;
}

int scr31_run(struct scr31_argv *line)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        scr_err("cannot start %s: %s", line->words[0], strerror(errno));
        return SCR31_EXIT_FAILED;
    }
    if (pid == 0) {
        execvp(line->words[0], line->words);
        scr_err("cannot run %s: %s", line->words[0], strerror(errno));
        _exit(SCR31_EXIT_FAILED);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            scr_err("waiting for %s: %s", line->words[0], strerror(errno));
            return SCR31_EXIT_FAILED;
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

int scr31_refuse(const char *option, const char *why)
{
    return scr_cli_usage_error("%s is not supported: %s", option, why);
}

void scr31_verbose(void)
{
    if (setenv("SCR_DEBUG", "1", 1) != 0) scr_warn("cannot set SCR_DEBUG=1: %s", strerror(errno));
}

int scr31_disabled(void)
{
    const char *v = getenv("SCR_ENABLE");
    return v != NULL && strcmp(v, "0") == 0;
}

int scr31_launcher_ok(const char *launcher, int *out_status)
{
    if (strcmp(launcher, "srun") == 0 || strcmp(launcher, "mpirun") == 0) return 1;
    *out_status = scr_cli_usage_error(
        "job launcher '%s' is not supported: this SCR runs in Slurm allocations, "
        "with srun or mpirun",
        launcher);
    return 0;
}
