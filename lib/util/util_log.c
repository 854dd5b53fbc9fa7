/* util_log.c — formatted error, warning and debug lines on stderr. */
#include "util_log.h"
#include "scr_err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char log_prefix[128] = "SCR";
static int log_level = -1; /* -1: not yet read from SCR_DEBUG */
static int log_quiet = 0;
static __thread char last_error[1024];

void scr_log_set_prefix(const char *prefix)
{
    snprintf(log_prefix, sizeof(log_prefix), "%s", prefix ? prefix : "SCR");
}

void scr_log_set_level(int level)
{
    log_level = level < 0 ? 0 : level;
}

int scr_log_level(void)
{
    if (log_level < 0) {
        const char *env = getenv("SCR_DEBUG");
        char *end = NULL;
        long v = env ? strtol(env, &end, 10) : 0;
        log_level = (env && *env && *end == '\0' && v > 0 && v < 100) ? (int)v : 0;
    }
    return log_level;
}
void scr_log_set_quiet(int quiet)
{
    log_quiet = quiet;
}

const char *scr_last_error(void)
{
    return last_error;
}
void scr_clear_last_error(void)
{
    last_error[0] = '\0';
}

/* One write(2) per line so that lines of concurrent processes do not mix. */
static void emit(const char *kind, const char *msg)
{
    char line[1400];
    int n = snprintf(line, sizeof(line), "%s: %s%s\n", log_prefix, kind, msg);
    if (n < 0) return;
    if ((size_t)n >= sizeof(line)) n = (int)sizeof(line) - 1;
    int saved = errno;
    ssize_t rc = write(STDERR_FILENO, line, (size_t)n);
    (void)rc; /* nowhere left to report a failure to write to stderr */
    errno = saved;
}

void scr_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    if (!log_quiet) emit("error: ", last_error);
}

void scr_warn(const char *fmt, ...)
{
    if (log_quiet) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    emit("warning: ", msg);
}

void scr_dbg(int level, const char *fmt, ...)
{
    if (log_quiet || level > scr_log_level()) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    emit("", msg);
}

const char *scr_strstatus(int status)
{
    switch (status) {
    case SCR_SUCCESS: return "success";
    case SCR_FAILURE: return "failure";
    case SCR_ERR_IO: return "I/O error";
    case SCR_ERR_FORMAT: return "damaged or unrecognised data";
    case SCR_ERR_NOMEM: return "out of memory";
    case SCR_ERR_ARG: return "invalid argument";
    case SCR_ERR_NOTFOUND: return "not found";
    case SCR_ERR_TYPE: return "value has the wrong type";
    case SCR_ERR_STATE: return "call not allowed in this state";
    case SCR_ERR_TIMEOUT: return "abandoned after its time limit";
    default: return "unknown status";
    }
}
