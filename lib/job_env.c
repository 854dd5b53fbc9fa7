/* job_env.c — node name, job id, user and allocation end from the environment. */
#include "job_env.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copy value into buf; SCR_ERR_ARG (logged) when it does not fit. */
static int copy_out(const char *what, const char *value, char *buf, size_t len)
{
    size_t n = strlen(value);
    if (n == 0 || n >= len) {
        scr_err("%s '%s' is %s", what, value, n == 0 ? "empty" : "too long");
        return SCR_ERR_ARG;
    }
    memcpy(buf, value, n + 1);
    return SCR_SUCCESS;
}

static const char *nonempty_env(const char *name)
{
    const char *v = getenv(name);
    return (v != NULL && v[0] != '\0') ? v : NULL;
}

int scr_job_env_node_name(char *buf, size_t len)
{
    const char *v = nonempty_env("SCR_NODE_NAME");
    if (v == NULL) v = nonempty_env("SLURMD_NODENAME");
    if (v != NULL) return copy_out("node name", v, buf, len);
    char host[256];
    if (gethostname(host, sizeof(host)) != 0) {
        scr_err("cannot find this node's name: gethostname failed: %s", strerror(errno));
        return SCR_ERR_IO;
    }
    host[sizeof(host) - 1] = '\0';
    return copy_out("host name", host, buf, len);
}

int scr_job_env_job_id(char *buf, size_t len, int *out_defaulted)
{
    *out_defaulted = 0;
    const char *v = nonempty_env("SLURM_JOB_ID");
    if (v == NULL) v = nonempty_env("SCR_JOB_ID");
    if (v != NULL) return copy_out("job id", v, buf, len);
    *out_defaulted = 1;
    char def[64];
    snprintf(def, sizeof(def), "user-%lu", (unsigned long)getuid());
    return copy_out("job id", def, buf, len);
}

int scr_job_env_user_name(char *buf, size_t len)
{
    const char *v = nonempty_env("SCR_USER_NAME");
    if (v != NULL) return copy_out("user name", v, buf, len);
    struct passwd pw, *found = NULL;
    char scratch[4096];
    int rc = getpwuid_r(getuid(), &pw, scratch, sizeof(scratch), &found);
    if (rc != 0 || found == NULL) {
        scr_err("cannot find the name of user %lu: %s (set SCR_USER_NAME)",
                (unsigned long)getuid(), rc ? strerror(rc) : "not in the password database");
        return SCR_ERR_NOTFOUND;
    }
    return copy_out("user name", pw.pw_name, buf, len);
}

int scr_job_env_end_time(int64_t *out_end)
{
    const char *v = nonempty_env("SCR_END_TIME");
    if (v == NULL) return SCR_ERR_NOTFOUND;
    if (scr_parse_int64(v, out_end) != 0 || *out_end < 0) {
        scr_err("SCR_END_TIME='%s' is not a time in seconds since the epoch", v);
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

int scr_job_env_expand(const char *pattern, const char *node, const char *user,
                       const char *jobid, char **out_path)
{
    size_t cap = strlen(pattern) + 1;
    for (const char *p = pattern; *p; p++)
        if (*p == '%') cap += strlen(node) + strlen(user) + strlen(jobid);
    char *out = malloc(cap);
    if (out == NULL) {
        scr_err("out of memory expanding '%s'", pattern);
        return SCR_ERR_NOMEM;
    }
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        const char *with;
        switch (p[1]) {
        case 'N': with = node; break;
        case 'u': with = user; break;
        case 'j': with = jobid; break;
        case '%': with = "%"; break;
        default:
            scr_err("'%s': unknown pattern '%%%.1s' (use %%N node, %%u user, %%j job id, %%%% a '%%')",
                    pattern, p[1] ? p + 1 : "");
            free(out);
            return SCR_ERR_ARG;
        }
        size_t wl = strlen(with);
        memcpy(out + n, with, wl);
        n += wl;
        p++;
    }
    out[n] = '\0';
    *out_path = out;
    return SCR_SUCCESS;
}
