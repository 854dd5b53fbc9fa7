/* config_params.c — the catalogue of parameters and descriptor tables, and value checks. */
#include "build_config.h"
#include "config_params.h"
#include "scr_err.h"
#include "util_parse.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Site defaults chosen at configure time (--with-scr-cntl-base, --with-scr-cache-base). */
#ifndef SCR_CNTL_BASE_DEFAULT
#define SCR_CNTL_BASE_DEFAULT "/dev/shm"
#endif
#ifndef SCR_CACHE_BASE_DEFAULT
#define SCR_CACHE_BASE_DEFAULT "/dev/shm"
#endif

static const char *const copy_types[] = {"SINGLE", "PARTNER", "XOR", "RS", NULL};
/* PTHREAD flushes in the background, as SCR_FLUSH_ASYNC=1 does where
 * SCR_FLUSH_ASYNC is not set (scr_init.c); SCR's burst-buffer transfers are
 * refused by name */
static const char *const flush_types[] = {"SYNC", "PTHREAD", NULL};

/* Values SCR knows that this version does not have: a check refuses them by name. */
static const struct {
    const char *param, *word, *what;
} unavailable_words[] = {
    {"SCR_FLUSH_TYPE", "BBAPI", "the IBM burst buffer transfer"},
    {"SCR_FLUSH_TYPE", "DATAWARP", "the Cray DataWarp transfer"},
    {"SCR_FLUSH_TYPE", "DW", "the Cray DataWarp transfer"},
    {"SCR_FLUSH_TYPE", "CPPR", "the Intel CPPR transfer"},
    {NULL, NULL, NULL},
};
/* SCR_COPY_TYPE=FILE: the CKPT descriptors of the configuration decide */
static const char *const default_copy_types[] = {"SINGLE", "PARTNER", "XOR", "RS", "FILE", NULL};
/* the words of event_log.c, SCR's names of syslog(3)'s constants */
static const char *const syslog_facilities[] = {
    "LOG_USER",   "LOG_DAEMON", "LOG_LOCAL0", "LOG_LOCAL1", "LOG_LOCAL2", "LOG_LOCAL3",
    "LOG_LOCAL4", "LOG_LOCAL5", "LOG_LOCAL6", "LOG_LOCAL7", NULL};
static const char *const syslog_levels[] = {"LOG_EMERG", "LOG_ALERT",   "LOG_CRIT",
                                            "LOG_ERR",   "LOG_WARNING", "LOG_NOTICE",
                                            "LOG_INFO",  "LOG_DEBUG",   NULL};

#define INT_P(name, def, lo, hi, flags, help)                \
    {                                                        \
        name, SCR_CONFIG_INT, def, flags, lo, hi, NULL, help \
    }
#define BOOL_P(name, def, flags, help)                      \
    {                                                       \
        name, SCR_CONFIG_BOOL, def, flags, 0, 1, NULL, help \
    }
#define BYTES_P(name, def, flags, help)                      \
    {                                                        \
        name, SCR_CONFIG_BYTES, def, flags, 0, 0, NULL, help \
    }
#define DOUBLE_P(name, def, flags, help)                      \
    {                                                         \
        name, SCR_CONFIG_DOUBLE, def, flags, 0, 0, NULL, help \
    }
#define STR_P(name, def, flags, help)                         \
    {                                                         \
        name, SCR_CONFIG_STRING, def, flags, 0, 0, NULL, help \
    }
#define PATH_P(name, def, flags, help)                      \
    {                                                       \
        name, SCR_CONFIG_PATH, def, flags, 0, 0, NULL, help \
    }
#define ENUM_P(name, def, words, flags, help)                \
    {                                                        \
        name, SCR_CONFIG_ENUM, def, flags, 0, 0, words, help \
    }

/* one entry a line, as tests/tools/check_params.sh reads the table */
/* clang-format off */
static const struct scr_config_param params[] = {
    BOOL_P("SCR_ENABLE", "1", 0, "0 turns SCR off: calls succeed, files go to their own paths"),
    INT_P("SCR_DEBUG", "0", 0, INT_MAX, 0, "verbosity of messages (0 quiet, 1-2 more)"),
    PATH_P("SCR_PREFIX", NULL, 0, "prefix directory on the parallel file system (default: current directory)"),
    INT_P("SCR_PREFIX_SIZE", "0", 0, INT_MAX, 0, "checkpoints kept in the prefix (0: all)"),
    BOOL_P("SCR_PREFIX_PURGE", "0", 0, "delete every dataset in the prefix at start"),
    PATH_P("SCR_CNTL_BASE", SCR_CNTL_BASE_DEFAULT, SCR_CONFIG_SYSTEM_ONLY | SCR_CONFIG_NOT_BY_APP,
           "base of the node-local control directory"),
    PATH_P("SCR_CACHE_BASE", SCR_CACHE_BASE_DEFAULT, 0, "base of the default cache store"),
    INT_P("SCR_CACHE_SIZE", "1", 0, INT_MAX, 0, "datasets kept in cache"),
    BOOL_P("SCR_CACHE_BYPASS", "0", 0, "write datasets straight to the prefix, not to cache"),
    BOOL_P("SCR_CACHE_PURGE", "0", 0, "delete the cache contents at start"),
    ENUM_P("SCR_COPY_TYPE", "XOR", default_copy_types, 0,
           "redundancy scheme: SINGLE, PARTNER, XOR or RS; FILE: the CKPT descriptors decide"),
    STR_P("SCR_GROUP", "NODE", 0, "failure group of the default redundancy descriptor"),
    INT_P("SCR_SET_SIZE", "8", 1, INT_MAX, 0, "ranks per XOR or RS set"),
    INT_P("SCR_SET_FAILURES", "2", 1, 255, 0, "lost members each RS set survives"),
    INT_P("SCR_HOP_DISTANCE", "1", 1, INT_MAX, 0, "distance between partners in the failure-group ring"),
    INT_P("SCR_FLUSH", "10", 0, INT_MAX, 0, "copy every Nth checkpoint to the prefix (0: never)"),
    BOOL_P("SCR_FLUSH_ASYNC", "0", 0, "flush in the background"),
    BYTES_P("SCR_FLUSH_ASYNC_BW", "200MB", 0, "bandwidth limit of a background flush, per second"),
    DOUBLE_P("SCR_FLUSH_ASYNC_PERCENT", "0", 0, "CPU share limit of a background flush, percent (0: none)"),
    INT_P("SCR_FLUSH_COMPRESS", "0", 0, 9, 0,
          "store flushed files as gzip at this zlib level, 1 (fast) to 9 (small); a file that does not "
          "shrink is stored as written (0: off)"),
    ENUM_P("SCR_FLUSH_TYPE", "SYNC", flush_types, 0, "how a flush moves files: SYNC, or PTHREAD (in the background, as SCR_FLUSH_ASYNC=1)"),
    BOOL_P("SCR_ENCODE_ASYNC", "1", 0,
           "apply PARTNER, XOR and RS in a library thread after SCR_Complete_checkpoint returns, when MPI "
           "gives MPI_THREAD_MULTIPLE (0: always before it returns)"),
    BOOL_P("SCR_ENCODE_ASYNC_BUSY", "0", 0,
           "1: encode in the background even after the application kept its cores busy since the last "
           "checkpoint (0: such an encode runs before SCR_Complete_checkpoint returns, where it costs less)"),
    INT_P("SCR_FLUSH_WIDTH", "256", 1, INT_MAX, 0, "ranks writing to the prefix at once"),
    BOOL_P("SCR_FLUSH_ON_RESTART", "0", 0, "flush the rebuilt dataset at start"),
    BOOL_P("SCR_FETCH", "1", 0, "fetch from the prefix when the cache has nothing"),
    BOOL_P("SCR_FETCH_BYPASS", "0", 0, "read restart files straight from the prefix"),
    INT_P("SCR_FETCH_WIDTH", "256", 1, INT_MAX, 0, "ranks reading from the prefix at once"),
    BOOL_P("SCR_DISTRIBUTE", "1", 0, "rebuild cached datasets at start"),
    BOOL_P("SCR_GLOBAL_RESTART", "0", 0, "flush at start, then restart from the prefix"),
    STR_P("SCR_CURRENT", NULL, 0, "name of the checkpoint to restart from"),
    BOOL_P("SCR_DROP_AFTER_CURRENT", "0", 0, "the restart named by SCR_Current or SCR_CURRENT drops newer datasets from the index"),
    INT_P("SCR_CHECKPOINT_INTERVAL", "0", 0, INT_MAX, 0, "Need_checkpoint says yes every N calls (0: off)"),
    INT_P("SCR_CHECKPOINT_SECONDS", "0", 0, INT_MAX, 0, "... or after N seconds since the last checkpoint"),
    DOUBLE_P("SCR_CHECKPOINT_OVERHEAD", "0", 0, "... or while checkpoint time stays under this percent"),
    INT_P("SCR_HALT_SECONDS", "0", 0, INT_MAX, 0, "stop this many seconds before the allocation ends"),
    BOOL_P("SCR_HALT_ENABLED", "1", 0, "act on halt conditions at all"),
    BOOL_P("SCR_HALT_EXIT", "0", 0, "exit() on a halt condition instead of telling Should_exit"),
    BOOL_P("SCR_CRC_ON_FLUSH", "1", 0, "compute CRC32 while flushing and fetching"),
    BOOL_P("SCR_CRC_ON_COPY", "0", 0, "CRC32 in a pass of its own at completion; read back copies and check them"),
    BOOL_P("SCR_CRC_ON_DELETE", "0", 0, "check CRC32 before deleting from cache"),
    /* a few pieces in flight each way stay in a core's cache: on one node,
     * 256KB encodes XOR and RS a quarter to a third faster than 1MB */
    BYTES_P("SCR_MPI_BUF_SIZE", "256KB", 0, "size of the pieces sent between ranks"),
    /* read, CRC and write of a piece while it is still in a core's cache
     * (1 MiB of L2 on the development VM): a synchronous flush with 1MB
     * took 0.84 of cp + fsync, with 4MB 1.8, with 512KB 1.04
     * (run-bench-flush-sync.sh); SCR 3.1's default is 32MB */
    BYTES_P("SCR_FILE_BUF_SIZE", "1MB", 0, "size of the file I/O buffer"),
    /* the library times its own copies to and from the prefix; writes to
     * the cache are the application's, so only the PFS limit has a use */
    INT_P("SCR_WATCHDOG_TIMEOUT", "0", 0, INT_MAX, 0, "not used: see SCR_WATCHDOG_TIMEOUT_PFS (0: off)"),
    INT_P("SCR_WATCHDOG_TIMEOUT_PFS", "0", 0, INT_MAX, 0,
          "seconds a file's copy to or from the prefix may take before it is abandoned (0: no limit)"),
    BOOL_P("SCR_LOG_ENABLE", "0", SCR_CONFIG_NOT_BY_APP, "record events in a log"),
    BOOL_P("SCR_LOG_TXT_ENABLE", "1", SCR_CONFIG_NOT_BY_APP, "... in a text file in the prefix"),
    BOOL_P("SCR_LOG_SYSLOG_ENABLE", "1", SCR_CONFIG_NOT_BY_APP, "... through syslog"),
    ENUM_P("SCR_LOG_SYSLOG_FACILITY", "LOG_LOCAL7", syslog_facilities, SCR_CONFIG_NOT_BY_APP,
           "syslog facility of events"),
    ENUM_P("SCR_LOG_SYSLOG_LEVEL", "LOG_INFO", syslog_levels, SCR_CONFIG_NOT_BY_APP, "syslog level of events"),
    STR_P("SCR_LOG_SYSLOG_PREFIX", "SCR", SCR_CONFIG_NOT_BY_APP, "syslog identity of events"),
    BOOL_P("SCR_LOG_JSON_ENABLE", "1", SCR_CONFIG_NOT_BY_APP, "... as JSON lines in the prefix (events.jsonl)"),
    STR_P("SCR_USER_NAME", NULL, 0, "user name (default: from the password database)"),
    STR_P("SCR_JOB_ID", NULL, 0, "job id (default: SLURM_JOB_ID)"),
    STR_P("SCR_JOB_NAME", NULL, 0, "job name (default: SLURM_JOB_NAME)"),
    STR_P("SCR_CLUSTER_NAME", NULL, 0, "cluster name (default: SLURM_CLUSTER_NAME)"),
    STR_P("SCR_NODE_NAME", NULL, 0, "this node's name (default: SLURMD_NODENAME, then the host name)"),
    PATH_P("SCR_CONF_FILE", NULL, 0, "user configuration file (default: PREFIX/.scrconf)"),
    INT_P("SCR_RUNS", "1", -1, INT_MAX, 0, "runs to attempt in one allocation (-1: no limit)"),
    INT_P("SCR_MIN_NODES", NULL, 1, INT_MAX, 0, "stop relaunching below this many nodes (default: the job's)"),
    STR_P("SCR_EXCLUDE_NODES", NULL, 0, "nodes never to use (a host list)"),
    INT_P("SCR_END_TIME", NULL, 0, LLONG_MAX, 0, "allocation end, seconds since the epoch"),
    {NULL, SCR_CONFIG_STRING, NULL, 0, 0, 0, NULL, NULL},
};
/* clang-format on */

/* one entry a line, as tests/tools/check_params.sh reads the table */
/* clang-format off */
static const struct scr_config_param ckpt_attributes[] = {
    INT_P("INTERVAL", "1", 1, INT_MAX, 0, "applies to datasets whose id this divides"),
    STR_P("GROUP", "NODE", 0, "failure group"),
    PATH_P("STORE", NULL, 0, "store the dataset is cached in"),
    ENUM_P("TYPE", "XOR", copy_types, 0, "redundancy scheme"),
    INT_P("SET_SIZE", "8", 1, INT_MAX, 0, "ranks per XOR or RS set"),
    INT_P("SET_FAILURES", "2", 1, 255, 0, "lost members each RS set survives"),
    INT_P("HOP_DISTANCE", "1", 1, INT_MAX, 0, "distance between partners"),
    BOOL_P("OUTPUT", "0", 0, "use this descriptor for output datasets"),
    BOOL_P("BYPASS", "0", 0, "write straight to the prefix"),
    BOOL_P("ENABLED", "1", 0, "0 disables this descriptor"),
    {NULL, SCR_CONFIG_STRING, NULL, 0, 0, 0, NULL, NULL},
};
/* clang-format on */

/* one entry a line, as tests/tools/check_params.sh reads the table */
/* clang-format off */
static const struct scr_config_param store_attributes[] = {
    STR_P("GROUP", "NODE", 0, "processes that share the store"),
    INT_P("COUNT", "1", 0, INT_MAX, 0, "datasets kept in the store"),
    BOOL_P("ENABLED", "1", 0, "0 disables this store"),
    BYTES_P("BYTES", NULL, 0, "capacity the node health check expects"),
    STR_P("FLUSH", "SYNC", 0, "how datasets of the store are flushed: SYNC, or PTHREAD (in the background)"),
    BOOL_P("MKDIR", "1", 0, "0: the store directory must exist; SCR does not create it"),
    {NULL, SCR_CONFIG_STRING, NULL, 0, 0, 0, NULL, NULL},
};
/* clang-format on */

/* one entry a line, as tests/tools/check_params.sh reads the table */
/* clang-format off */
static const struct scr_config_param no_attributes[] = {
    {NULL, SCR_CONFIG_STRING, NULL, 0, 0, 0, NULL, NULL},
};
/* clang-format on */

static const struct scr_config_table tables[] = {
    {"GROUPS", SCR_CONFIG_STRING, 0, 0, 1, no_attributes,
     "failure groups of a host: GROUPS=<host> <GROUP>=<value> ..."},
    {"STORE", SCR_CONFIG_PATH, 0, 0, 0, store_attributes,
     "a storage location: STORE=<path> GROUP=... COUNT=..."},
    {"CKPT", SCR_CONFIG_INT, 0, INT_MAX, 0, ckpt_attributes,
     "a redundancy descriptor: CKPT=<n> INTERVAL=... TYPE=... SET_SIZE=..."},
    {NULL, SCR_CONFIG_STRING, 0, 0, 0, NULL, NULL},
};

const struct scr_config_param *scr_config_params(void)
{
    return params;
}

static const struct scr_config_param *find_in(const struct scr_config_param *list, const char *name)
{
    if (name == NULL) return NULL;
    for (const struct scr_config_param *p = list; p->name != NULL; p++)
        if (strcmp(p->name, name) == 0) return p;
    return NULL;
}

const struct scr_config_param *scr_config_param_find(const char *name)
{
    return find_in(params, name);
}

const struct scr_config_table *scr_config_table_find(const char *name)
{
    if (name == NULL) return NULL;
    for (const struct scr_config_table *t = tables; t->name != NULL; t++)
        if (strcmp(t->name, name) == 0) return t;
    return NULL;
}

const struct scr_config_param *scr_config_table_attribute(const struct scr_config_table *table,
                                                          const char *attr)
{
    return table ? find_in(table->attributes, attr) : NULL;
}

int scr_config_param_check(const struct scr_config_param *param, const char *text, char *why,
                           size_t why_len)
{
    if (text == NULL || text[0] == '\0') {
        snprintf(why, why_len, "a value");
        return SCR_ERR_TYPE;
    }
    switch (param->type) {
    case SCR_CONFIG_STRING:
    case SCR_CONFIG_PATH: return SCR_SUCCESS;
    case SCR_CONFIG_INT: {
        int64_t v;
        if (scr_parse_int64(text, &v) == SCR_SUCCESS && v >= param->min && v <= param->max)
            return SCR_SUCCESS;
        if (param->max == INT_MAX || param->max == LLONG_MAX)
            snprintf(why, why_len, "a whole number of at least %lld", param->min);
        else
            snprintf(why, why_len, "a whole number from %lld to %lld", param->min, param->max);
        return SCR_ERR_TYPE;
    }
    case SCR_CONFIG_BOOL: {
        int b;
        if (scr_parse_bool(text, &b) == SCR_SUCCESS) return SCR_SUCCESS;
        snprintf(why, why_len, "0 or 1");
        return SCR_ERR_TYPE;
    }
    case SCR_CONFIG_BYTES: {
        uint64_t v;
        if (scr_parse_bytes(text, &v) == SCR_SUCCESS) return SCR_SUCCESS;
        snprintf(why, why_len, "a size such as 4096, 64KB or 1.5GB");
        return SCR_ERR_TYPE;
    }
    case SCR_CONFIG_DOUBLE: {
        double d;
        if (scr_parse_double(text, &d) == SCR_SUCCESS && isfinite(d) && d >= 0) return SCR_SUCCESS;
        snprintf(why, why_len, "a number of at least 0");
        return SCR_ERR_TYPE;
    }
    case SCR_CONFIG_ENUM: {
        size_t used = 0;
        for (const char *const *w = param->words; *w != NULL; w++)
            if (strcasecmp(*w, text) == 0) return SCR_SUCCESS;
        used += (size_t)snprintf(why, why_len, "one of");
        for (const char *const *w = param->words; *w != NULL && used < why_len; w++)
            used += (size_t)snprintf(why + used, why_len - used, "%s %s",
                                     w == param->words ? "" : ",", *w);
        for (int u = 0; unavailable_words[u].param != NULL && used < why_len; u++)
            if (strcmp(unavailable_words[u].param, param->name) == 0 &&
                strcasecmp(unavailable_words[u].word, text) == 0)
                snprintf(why + used, why_len - used, " (%s, %s, is not available in this version)",
                         unavailable_words[u].word, unavailable_words[u].what);
        return SCR_ERR_TYPE;
    }
    }
    snprintf(why, why_len, "a value of a known type");
    return SCR_ERR_TYPE;
}
