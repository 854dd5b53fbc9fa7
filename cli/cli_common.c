/* cli_common.c — what every command does alike. */
#include "cli_common.h"
#include "util_log.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    return SCR_CLI_EXIT_USAGE;
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

char *scr_cli_prefix(const char *option)
{
    const char *env = getenv("SCR_PREFIX");
    const char *given = option != NULL ? option : (env != NULL && env[0] != '\0') ? env : NULL;
    char *prefix = given != NULL ? strdup(given) : getcwd(NULL, 0);
    if (prefix == NULL) {
        if (given != NULL) scr_err("out of memory");
        else scr_err("cannot tell the current directory: %s", strerror(errno));
    }
    return prefix;
}

int scr_cli_flush_stdout(void)
{
    if (fflush(stdout) == 0) return 0;
    scr_err("writing to standard output failed: %s", strerror(errno));
    return 1;
}
