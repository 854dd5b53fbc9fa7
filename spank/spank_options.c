/* spank_options.c — the --scr and --scr-* options of srun, sbatch and salloc. */
#include "spank_options.h"

#include "config_params.h"
#include "scavenge_job.h"
#include "scr_err.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One option: its name, the SCR parameter it sets and its help text. */
struct scr_option {
    const char *name;
    const char *param; /* NULL: --scr itself */
    const char *arginfo;
    const char *usage;
    int has_arg;         /* 0 none, 1 required, 2 optional */
    const char *implied; /* value when an optional argument is left out */
};

static const struct scr_option options[] = {
    {"scr", NULL, NULL,
     "Use SCR (checkpoint/restart) for this job or step; implied by any --scr-* option", 0, NULL},
    {"scr-prefix", "SCR_PREFIX", "dir",
     "SCR prefix directory on the shared file system (SCR_PREFIX)", 1, NULL},
    {"scr-conf", "SCR_CONF_FILE", "file", "SCR user configuration file (SCR_CONF_FILE)", 1, NULL},
    {"scr-copy-type", "SCR_COPY_TYPE", "type",
     "SCR redundancy: SINGLE, PARTNER, XOR or RS (SCR_COPY_TYPE)", 1, NULL},
    {"scr-set-size", "SCR_SET_SIZE", "n", "SCR ranks per XOR or RS set (SCR_SET_SIZE)", 1, NULL},
    {"scr-cache-base", "SCR_CACHE_BASE", "dir",
     "SCR cache directory base on each node (SCR_CACHE_BASE)", 1, NULL},
    {"scr-cache-size", "SCR_CACHE_SIZE", "n", "SCR checkpoints kept in cache (SCR_CACHE_SIZE)", 1,
     NULL},
    {"scr-flush", "SCR_FLUSH", "n",
     "SCR copies every n-th checkpoint to the prefix, 0 never (SCR_FLUSH)", 1, NULL},
    {"scr-runs", "SCR_RUNS", "n", "SCR runs to attempt in this allocation, -1 no limit (SCR_RUNS)",
     1, NULL},
    {"scr-min-nodes", "SCR_MIN_NODES", "n", "SCR stops relaunching below n nodes (SCR_MIN_NODES)",
     1, NULL},
    {"scr-halt-seconds", "SCR_HALT_SECONDS", "sec",
     "SCR halts this many seconds before the allocation ends (SCR_HALT_SECONDS)", 1, NULL},
    {"scr-debug", "SCR_DEBUG", "level",
     "SCR message verbosity, 1 when no level is given (SCR_DEBUG)", 2, "1"},
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static int enabled;
static char *values[NOPTIONS];
static const struct spank_scr_site *site;

void scr_spank_options_set_site(const struct spank_scr_site *s)
{
    site = s;
}

int scr_spank_options_enabled(void)
{
    return enabled;
}

/* The value as SCR wants it (copy types in upper case), in a new string. */
static char *canonical(const struct scr_option *o, const char *text)
{
    char *v = strdup(text);
    if (v != NULL && strcmp(o->param, "SCR_COPY_TYPE") == 0)
        for (char *p = v; *p; p++) *p = (char)toupper((unsigned char)*p);
    return v;
}

static int option_cb(int val, const char *optarg, int remote)
{
    if (val < 0 || (size_t)val >= NOPTIONS) return -1;
    const struct scr_option *o = &options[val];
    enabled = 1;
    if (o->param == NULL) return 0;
    /* an optional value left out arrives as NULL here, as "" in slurmstepd */
    const char *text =
        optarg != NULL && (optarg[0] != '\0' || o->implied == NULL) ? optarg : o->implied;
    if (text == NULL || text[0] == '\0') {
        slurm_error("--%s wants a value", o->name);
        return -1;
    }
    char *v = canonical(o, text);
    if (v == NULL) {
        slurm_error("--%s: out of memory", o->name);
        return -1;
    }
    const struct scr_config_param *p = scr_config_param_find(o->param);
    char why[200];
    if (p != NULL && scr_config_param_check(p, v, why, sizeof(why)) != SCR_SUCCESS) {
        slurm_error("invalid --%s=%s: expected %s", o->name, text, why);
        free(v);
        return -1;
    }
    if (strcmp(o->param, "SCR_CACHE_BASE") == 0 && site != NULL &&
        !scr_spank_site_allows_store(site, v)) {
        slurm_error("invalid --%s=%s: expected %s%s", o->name, text,
                    site->stores[0] ? "one of the site's stores: " : "an absolute path",
                    site->stores);
        free(v);
        return -1;
    }
    free(values[val]);
    values[val] = v;
    return 0;
}

int scr_spank_options_register(spank_t sp)
{
    for (size_t i = 0; i < NOPTIONS; i++) {
        struct spank_option opt = {
            .name = (char *)options[i].name,
            .arginfo = (char *)options[i].arginfo,
            .usage = (char *)options[i].usage,
            .has_arg = options[i].has_arg,
            .val = (int)i,
            .cb = option_cb,
        };
        spank_err_t err = spank_option_register(sp, &opt);
        if (err != ESPANK_SUCCESS) {
            slurm_error("scr: cannot register option --%s: %s", options[i].name,
                        spank_strerror(err));
            return -1;
        }
    }
    return 0;
}

/* The option that sets param (which must be in the table). */
static size_t index_of(const char *param)
{
    size_t i = 1;
    while (i < NOPTIONS - 1 && strcmp(options[i].param, param) != 0) i++;
    return i;
}

/* Set name=value where this context hands values on. */
static int put(spank_t sp, const char *name, const char *value)
{
    spank_err_t err = spank_context() == S_CTX_REMOTE
                          ? spank_setenv(sp, name, value, 1)
                          : spank_job_control_setenv(sp, name, value, 1);
    if (err != ESPANK_SUCCESS) {
        slurm_error("scr: cannot set %s=%s: %s", name, value, spank_strerror(err));
        return -1;
    }
    return 0;
}

int scr_spank_options_export(spank_t sp)
{
    if (!enabled) return 0;
    int rc = 0;
    int remote = spank_context() == S_CTX_REMOTE;
    if (!remote && put(sp, "SCR", "1") != 0) rc = -1;
    for (size_t i = 0; i < NOPTIONS; i++)
        if (values[i] != NULL && put(sp, options[i].param, values[i]) != 0) rc = -1;
    /* the epilog scavenges at the job's end: SCR_Init notes the nodes it waits for */
    if (remote && put(sp, SCR_EPILOG_SCAVENGE_VAR, "1") != 0) rc = -1;
    /* the tasks use the site's cache base, where the prolog made the directories */
    if (remote && values[index_of("SCR_CACHE_BASE")] == NULL && site != NULL &&
        site->cache_base_given && put(sp, "SCR_CACHE_BASE", site->cache_base) != 0)
        rc = -1;
    return rc;
}

const char *scr_spank_options_param(const char *param)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].param != NULL && strcmp(options[i].param, param) == 0 && values[i] != NULL)
            return values[i];
    const char *v = getenv(param);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

const char *scr_spank_options_job_value(const char *param)
{
    char name[128];
    snprintf(name, sizeof(name), "SPANK_%s", param);
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

int scr_spank_options_job_enabled(void)
{
    const char *v = getenv("SPANK_SCR");
    return v != NULL && strcmp(v, "1") == 0;
}
