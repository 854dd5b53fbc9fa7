/* cli_common.c — messages and the prefix, shared by the commands. */
#include "cli_common.h"
#include "config.h"
#include "job_dir.h"
#include "job_env.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct scr_config_sources scr_cli_config_sources = {.app_conf_may_be_damaged = 1};

static const char *command = "scr";

void scr_cli_init(const char *name)
{
    command = name;
    scr_log_set_prefix(name);
}

int scr_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", command);
    return 2;
}

/* A long option is a whole argument and moves optind on; a short one may sit
 * inside a cluster such as -jx, known only by optopt. */
int scr_cli_refused_option(int c, char **argv, int before)
{
    const char *arg = argv[optind - 1];
    if (optind == before || strncmp(arg, "--", 2) != 0) {
        if (c == ':') return scr_cli_usage_error("option '-%c' wants an argument", optopt);
        return scr_cli_usage_error("unknown option '-%c'", optopt);
    }
    if (c == ':') return scr_cli_usage_error("option '%s' wants an argument", arg);
    if (optopt != 0) return scr_cli_usage_error("option '%s' takes no argument", arg);
    return scr_cli_usage_error("unknown option '%s'", arg);
}

char *scr_cli_resolve_prefix(const char *given)
{
    const char *env = getenv("SCR_PREFIX");
    if (given == NULL && env != NULL && env[0] != '\0') given = env;
    char *prefix = given != NULL ? strdup(given) : getcwd(NULL, 0);
    if (prefix == NULL) {
        if (given != NULL)
            scr_err("out of memory");
        else
            scr_err("cannot tell the current directory: %s", strerror(errno));
    }
    return prefix;
}

int scr_cli_job_dir(const struct scr_config *cfg, const char *base_param, const char *node,
                    char **out_dir)
{
    char own_node[256], user[256], jobid[256];
    int defaulted = 0, rc;
    const char *base = NULL;
    if (node == NULL) {
        rc = scr_job_env_node_name(own_node, sizeof(own_node));
        if (rc != SCR_SUCCESS) return rc;
        node = own_node;
    }
    rc = scr_job_env_user_name(user, sizeof(user));
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_job_env_job_id(jobid, sizeof(jobid), &defaulted);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_config_get(cfg, base_param, &base);
    if (rc != SCR_SUCCESS) return rc;
    return scr_job_dir_path(base_param, base, node, user, jobid, out_dir);
}

int scr_cli_job_cntl_dir(const struct scr_config *cfg, const char *node, char **out_cntl)
{
    return scr_cli_job_dir(cfg, "SCR_CNTL_BASE", node, out_cntl);
}
