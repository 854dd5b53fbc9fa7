/* job_env.c — node name, job id, user and allocation end from the environment. */
#include "job_env.h"
#include "util_parse.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *scr_job_env_name_problem(const char *value)
{
    if (value[0] == '\0') return "it is empty";
    if (strspn(value, ".") == strlen(value)) return "it is made of dots alone, as '.' and '..' are";
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p == '/') return "it contains '/'";
        if (*p < 0x20 || *p == 0x7f) return "it contains a control character";
    }
    return NULL;
}

/* value with control characters shown as \n, \t or \xNN, cut after about
 * 200 characters, into buf (len >= 8). */
static void shown(const char *value, char *buf, size_t len)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        char one[8];
        if (*p == '\n')
            snprintf(one, sizeof(one), "\\n");
        else if (*p == '\t')
            snprintf(one, sizeof(one), "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(one, sizeof(one), "\\x%02x", *p);
        else
            snprintf(one, sizeof(one), "%c", *p);
        size_t ol = strlen(one);
        if (n + ol + 4 > len || n > 200) {
            memcpy(buf + n, "...", 4);
            return;
        }
        memcpy(buf + n, one, ol + 1);
        n += ol;
    }
    buf[n] = '\0';
}

/* The check of scr_job_env_check_name; a variable (what holds no blank) is
 * shown as VAR='value', any other source as "what 'value'", and hint, when
 * given, ends the message. */
static int check_name(const char *what, const char *value, const char *hint)
{
    const char *why = scr_job_env_name_problem(value);
    if (why == NULL) return SCR_SUCCESS;
    char text[256];
    shown(value, text, sizeof(text));
    scr_err("%s%s'%s' cannot name a directory: %s%s%s", what, strchr(what, ' ') ? " " : "=", text,
            why, hint ? "; " : "", hint ? hint : "");
    return SCR_ERR_ARG;
}

int scr_job_env_check_name(const char *what, const char *value)
{
    return check_name(what, value, NULL);
}

/* Copy value, read from what, into buf once it is checked; SCR_ERR_ARG
 * (logged) when it is refused or does not fit. */
static int copy_out(const char *what, const char *value, const char *hint, char *buf, size_t len)
{
    int rc = check_name(what, value, hint);
    if (rc != SCR_SUCCESS) return rc;
    size_t n = strlen(value);
    if (n >= len) {
        scr_err("%s '%.64s...' is too long (at most %zu characters)", what, value, len - 1);
        return SCR_ERR_ARG;
    }
    memcpy(buf, value, n + 1);
    return SCR_SUCCESS;
}

/* The first of the variables names[0..n) that is set (empty or not);
 * *out_name says which. NULL when none is. */
static const char *first_set(const char *const *names, int n, const char **out_name)
{
    for (int i = 0; i < n; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL) {
            *out_name = names[i];
            return v;
        }
    }
    return NULL;
}

int scr_job_env_node_name_or(const char *detected, const char *detected_what, char *buf, size_t len)
{
    static const char *const vars[] = {"SCR_NODE_NAME", "SLURMD_NODENAME"};
    const char *var = NULL, *v = first_set(vars, 2, &var);
    if (v != NULL) return copy_out(var, v, NULL, buf, len);
    if (detected != NULL) return copy_out(detected_what, detected, "set SCR_NODE_NAME", buf, len);
    char host[256];
    if (gethostname(host, sizeof(host)) != 0) {
        scr_err("cannot find this node's name: gethostname failed: %s", strerror(errno));
        return SCR_ERR_IO;
    }
    host[sizeof(host) - 1] = '\0';
    return copy_out("the host name", host, "set SCR_NODE_NAME", buf, len);
}

int scr_job_env_node_name(char *buf, size_t len)
{
    return scr_job_env_node_name_or(NULL, NULL, buf, len);
}

int scr_job_env_sim_node(char *buf, size_t len, int *out_set)
{
    *out_set = 0;
    if (len > 0) buf[0] = '\0';
    const char *v = getenv("SCR_SIM_NODE");
    if (v == NULL) return SCR_SUCCESS;
    /* the limit keeps <job dir>/sim.<name> well inside a path's length */
    if (strlen(v) > SCR_SIM_NODE_MAX) {
        scr_err("SCR_SIM_NODE='%.32s...' is too long for a simulated node's name (at most %d "
                "characters)",
                v, SCR_SIM_NODE_MAX);
        return SCR_ERR_ARG;
    }
    int rc = copy_out("SCR_SIM_NODE", v, NULL, buf, len);
    if (rc == SCR_SUCCESS) *out_set = 1;
    return rc;
}

int scr_job_env_drill_stop_after(int *out_k)
{
    *out_k = 0;
    const char *v = getenv("SCR_DRILL_STOP_AFTER");
    if (v == NULL) return SCR_SUCCESS;
    int64_t k = 0;
    if (scr_parse_int64(v, &k) != SCR_SUCCESS || k < 1 || k > INT32_MAX) {
        scr_err("SCR_DRILL_STOP_AFTER='%.32s' is not a number of checkpoints (1 or more)", v);
        return SCR_ERR_ARG;
    }
    *out_k = (int)k;
    return SCR_SUCCESS;
}

int scr_job_env_job_id(char *buf, size_t len, int *out_defaulted)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "SCR_JOB_ID"};
    *out_defaulted = 0;
    const char *var = NULL, *v = first_set(vars, 2, &var);
    if (v != NULL) return copy_out(var, v, NULL, buf, len);
    *out_defaulted = 1;
    char def[64];
    snprintf(def, sizeof(def), "user-%lu", (unsigned long)getuid());
    return copy_out("the default job id", def, NULL, buf, len);
}

int scr_job_env_user_name(char *buf, size_t len)
{
    const char *v = getenv("SCR_USER_NAME");
    if (v != NULL) return copy_out("SCR_USER_NAME", v, NULL, buf, len);
    struct passwd pw, *found = NULL;
    char scratch[4096];
    int rc = getpwuid_r(getuid(), &pw, scratch, sizeof(scratch), &found);
    if (rc != 0 || found == NULL) {
        scr_err("cannot find the name of user %lu: %s (set SCR_USER_NAME)", (unsigned long)getuid(),
                rc ? strerror(rc) : "not in the password database");
        return SCR_ERR_NOTFOUND;
    }
    return copy_out("the user name", pw.pw_name, "set SCR_USER_NAME", buf, len);
}

int scr_job_env_end_time(int64_t *out_end)
{
    const char *v = getenv("SCR_END_TIME");
    if (v == NULL || v[0] == '\0') return SCR_ERR_NOTFOUND;
    if (scr_parse_int64(v, out_end) != SCR_SUCCESS || *out_end < 0) {
        scr_err("SCR_END_TIME='%s' is not a time in seconds since the epoch", v);
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

int scr_job_env_expand(const char *pattern, const char *node, const char *user, const char *jobid,
                       char **out_path)
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
            scr_err(
                "'%s': unknown pattern '%%%.1s' (use %%N node, %%u user, %%j job id, %%%% a '%%')",
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
