/* params.c — the scalar parameters libscr runs with, resolved once (params.h). */
#include "build_config.h"
#include "params.h"

#include "job_env.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_testpoint.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int scr_params_enabled(const scr_config *cfg)
{
    int enabled = 1;
    scr_config_get_bool(cfg, "SCR_ENABLE", &enabled);
    return enabled;
}

static int get_int(const scr_config *cfg, const char *name, int *out)
{
    long long v = 0;
    int rc = scr_config_get_int(cfg, name, &v);
    if (rc == SCR_SUCCESS) *out = v > INT_MAX ? INT_MAX : (int)v;
    return rc;
}

/* A copy of name's value in *out (NULL when it has none); fallback when
 * it has none and fallback is not NULL. */
static int get_str(const scr_config *cfg, const char *name, const char *fallback, char **out)
{
    const char *v = NULL;
    if (scr_config_get(cfg, name, &v) != SCR_SUCCESS || v == NULL) v = fallback;
    *out = NULL;
    if (v == NULL) return SCR_SUCCESS;
    *out = strdup(v);
    if (*out != NULL) return SCR_SUCCESS;
    scr_err("out of memory reading %s", name);
    return SCR_ERR_NOMEM;
}

static int get_flag(const scr_config *cfg, const char *name)
{
    int v = 0;
    return scr_config_get_bool(cfg, name, &v) == SCR_SUCCESS && v;
}

int scr_params_resolve_log(const scr_config *cfg, struct scr_log_params *out)
{
    memset(out, 0, sizeof(*out));
    out->enable = get_flag(cfg, "SCR_LOG_ENABLE");
    out->text = get_flag(cfg, "SCR_LOG_TXT_ENABLE");
    out->json = get_flag(cfg, "SCR_LOG_JSON_ENABLE");
    out->syslog = get_flag(cfg, "SCR_LOG_SYSLOG_ENABLE");
    /* the catalogue checked the words when the configuration was loaded;
     * the values live as long as cfg */
    if (scr_config_get(cfg, "SCR_LOG_SYSLOG_FACILITY", &out->syslog_facility) != SCR_SUCCESS)
        out->syslog_facility = NULL;
    if (scr_config_get(cfg, "SCR_LOG_SYSLOG_LEVEL", &out->syslog_level) != SCR_SUCCESS)
        out->syslog_level = NULL;
    if (scr_config_get(cfg, "SCR_LOG_SYSLOG_PREFIX", &out->syslog_prefix) != SCR_SUCCESS)
        out->syslog_prefix = NULL;
    return SCR_SUCCESS;
}

/* SCR_FLUSH_ASYNC=1, or SCR 3's SCR_FLUSH_TYPE=PTHREAD where SCR_FLUSH_ASYNC
 * is not set, flushes in the background (flush_async.c), within SCR_FLUSH_ASYNC_BW bytes per second
 * and SCR_FLUSH_ASYNC_PERCENT of a core per node (0: no limit). */
static int read_flush_async(const scr_config *cfg, struct scr_params *p)
{
    const char *type = NULL;
    uint64_t bw = 0;
    enum scr_config_layer layer = SCR_CONFIG_LAYER_DEFAULT;
    int rc = scr_config_get_bool(cfg, "SCR_FLUSH_ASYNC", &p->flush_async);
    if (rc != SCR_SUCCESS) return rc;
    /* PTHREAD asks for the background unless SCR_FLUSH_ASYNC=0 is set
     * somewhere: as in SCR, that switch has the last word */
    if (scr_config_get(cfg, "SCR_FLUSH_TYPE", &type) == SCR_SUCCESS && type != NULL &&
        strcasecmp(type, "PTHREAD") == 0 &&
        scr_config_layer_of(cfg, "SCR_FLUSH_ASYNC", &layer) == SCR_SUCCESS &&
        layer == SCR_CONFIG_LAYER_DEFAULT)
        p->flush_async = 1;
    rc = scr_config_get_bytes(cfg, "SCR_FLUSH_ASYNC_BW", &bw);
    if (rc != SCR_SUCCESS) return rc;
    p->flush_async_bw = (double)bw;
    rc = scr_config_get_double(cfg, "SCR_FLUSH_ASYNC_PERCENT", &p->flush_async_percent);
    if (rc != SCR_SUCCESS) return rc;
    if (p->flush_async_percent < 0 || p->flush_async_percent > 100) {
        scr_err("SCR_FLUSH_ASYNC_PERCENT=%g (from %s): expected a share of a core from 0 to 100 "
                "(0: no limit)",
                p->flush_async_percent, scr_config_origin(cfg, "SCR_FLUSH_ASYNC_PERCENT"));
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* The integer and boolean parameters, each into its field of p. */
static int read_ints(const scr_config *cfg, struct scr_params *p)
{
    struct {
        const char *name;
        int *out;
        int is_bool;
    } ints[] = {
        {"SCR_CACHE_SIZE", &p->cache_size, 0},
        {"SCR_FLUSH", &p->flush_every, 0},
        {"SCR_FLUSH_WIDTH", &p->flush_width, 0},
        {"SCR_FETCH_WIDTH", &p->fetch_width, 0},
        {"SCR_CRC_ON_FLUSH", &p->crc_on_flush, 1},
        {"SCR_CRC_ON_COPY", &p->crc_on_copy, 1},
        {"SCR_FETCH", &p->fetch, 1},
        {"SCR_FETCH_BYPASS", &p->fetch_bypass, 1},
        {"SCR_CACHE_BYPASS", &p->cache_bypass, 1},
        {"SCR_HALT_ENABLED", &p->halt_enabled, 1},
        {"SCR_HALT_EXIT", &p->halt_exit, 1},
        {"SCR_HALT_SECONDS", &p->halt_seconds, 0},
        {"SCR_CHECKPOINT_INTERVAL", &p->ckpt_interval, 0},
        {"SCR_CHECKPOINT_SECONDS", &p->ckpt_seconds, 0},
        {"SCR_WATCHDOG_TIMEOUT_PFS", &p->watchdog_pfs, 0},
        {"SCR_CRC_ON_DELETE", &p->crc_on_delete, 1},
        {"SCR_PREFIX_SIZE", &p->prefix_size, 0},
        {"SCR_FLUSH_COMPRESS", &p->flush_compress, 0},
    };
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        int rc = ints[i].is_bool ? scr_config_get_bool(cfg, ints[i].name, ints[i].out)
                                 : get_int(cfg, ints[i].name, ints[i].out);
        if (rc != SCR_SUCCESS) return rc;
    }
    return scr_config_get_double(cfg, "SCR_CHECKPOINT_OVERHEAD", &p->ckpt_overhead);
}

/* SCR_FILE_BUF_SIZE within 4 KiB and 1 GiB; SCR_MPI_BUF_SIZE at least
 * 4 KiB and at most the file buffer, small enough to stay in cache. */
static int read_buffers(const scr_config *cfg, struct scr_params *p)
{
    uint64_t bufsize = 0, piece = 0;
    int rc = scr_config_get_bytes(cfg, "SCR_FILE_BUF_SIZE", &bufsize);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_config_get_bytes(cfg, "SCR_MPI_BUF_SIZE", &piece);
    if (rc != SCR_SUCCESS) return rc;
    if (bufsize < 4096) bufsize = 4096;
    if (bufsize > ((uint64_t)1 << 30)) bufsize = (uint64_t)1 << 30;
    p->file_buf_size = (size_t)bufsize;
    if (piece < 4096) piece = 4096;
    p->mpi_buf_size = piece < bufsize ? (size_t)piece : (size_t)bufsize;
    return SCR_SUCCESS;
}

/* The strings, copied; the defaults of the default descriptor are those
 * reddesc.c had when a value could not be read. */
static int read_strings(const scr_config *cfg, struct scr_params *p)
{
    struct {
        const char *name, *fallback;
        char **out;
    } strs[] = {
        {"SCR_PREFIX", NULL, &p->prefix},         {"SCR_CNTL_BASE", NULL, &p->cntl_base},
        {"SCR_CACHE_BASE", NULL, &p->cache_base}, {"SCR_CURRENT", NULL, &p->current},
        {"SCR_JOB_NAME", NULL, &p->job_name},     {"SCR_CLUSTER_NAME", NULL, &p->cluster_name},
        {"SCR_COPY_TYPE", "XOR", &p->copy_type},  {"SCR_GROUP", "NODE", &p->group},
    };
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        int rc = get_str(cfg, strs[i].name, strs[i].fallback, strs[i].out);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (p->current != NULL && p->current[0] == '\0') {
        free(p->current);
        p->current = NULL;
    }
    return SCR_SUCCESS;
}

/* The parameters read where they are used, with the fallback each use had. */
static void read_switches(const scr_config *cfg, struct scr_params *p)
{
    long long size = 8, failures = 2, hop = 1;
    scr_config_get_int(cfg, "SCR_SET_SIZE", &size);
    scr_config_get_int(cfg, "SCR_SET_FAILURES", &failures);
    scr_config_get_int(cfg, "SCR_HOP_DISTANCE", &hop);
    p->set_size = (int)size;
    p->set_failures = (int)failures;
    p->hop_distance = hop > INT_MAX ? INT_MAX : (int)hop;
    p->distribute = 1;
    scr_config_get_bool(cfg, "SCR_CACHE_PURGE", &p->cache_purge);
    scr_config_get_bool(cfg, "SCR_DISTRIBUTE", &p->distribute);
    scr_config_get_bool(cfg, "SCR_PREFIX_PURGE", &p->prefix_purge);
    scr_config_get_bool(cfg, "SCR_FLUSH_ON_RESTART", &p->flush_on_restart);
    scr_config_get_bool(cfg, "SCR_GLOBAL_RESTART", &p->global_restart);
    scr_config_get_bool(cfg, "SCR_DROP_AFTER_CURRENT", &p->drop_after_current);
    long long cache_timeout = 0;
    if (scr_config_get_int(cfg, "SCR_WATCHDOG_TIMEOUT", &cache_timeout) == SCR_SUCCESS)
        p->watchdog_cache = cache_timeout;
}

/* SCR_ENCODE_ASYNC and SCR_ENCODE_ASYNC_BUSY. */
static int read_encode(const scr_config *cfg, struct scr_params *p)
{
    int rc = scr_config_get_bool(cfg, "SCR_ENCODE_ASYNC", &p->encode_async);
    if (rc == SCR_SUCCESS)
        rc = scr_config_get_bool(cfg, "SCR_ENCODE_ASYNC_BUSY", &p->encode_when_busy);
    return rc;
}

int scr_params_resolve(const scr_config *cfg, int simulated, struct scr_params **out)
{
    long long debug = 0;
    struct scr_params *p = calloc(1, sizeof(*p));
    int rc = SCR_ERR_NOMEM;
    if (p == NULL) goto out;
    rc = scr_config_get_int(cfg, "SCR_DEBUG", &debug);
    if (rc != SCR_SUCCESS) goto out;
    p->debug = debug > INT_MAX ? INT_MAX : (int)debug;
    rc = read_ints(cfg, p);
    if (rc != SCR_SUCCESS) goto out;
    rc = read_flush_async(cfg, p);
    if (rc != SCR_SUCCESS) goto out;
    rc = read_strings(cfg, p);
    if (rc != SCR_SUCCESS) goto out;
    rc = read_buffers(cfg, p);
    if (rc != SCR_SUCCESS) goto out;
    rc = read_encode(cfg, p);
    if (rc != SCR_SUCCESS) goto out;
    scr_params_resolve_log(cfg, &p->log);
    read_switches(cfg, p);
    /* Under SimGrid's SMPI every rank is an actor of one simulation in one
     * process: a thread of ours would run outside the simulated clock (and
     * one that calls MPI would break the simulation), so the flush and the
     * copies are done in the ranks' own calls; the encode stays there too
     * (run_encode_async.c). scr_init_say_unavailable says so. */
    if (simulated) {
        p->flush_async = 0;
        p->watchdog_pfs = 0;
    }
    p->crc_in_cache = !scr_testpoint_on(SCR_TP_NO_CACHE_CRC);
    if (p->cache_size < 1) p->cache_size = 1;
    *out = p;
    return SCR_SUCCESS;
out:
    scr_err("cannot read SCR's parameters (%s)", scr_strstatus(rc));
    scr_params_free(p);
    return rc;
}

void scr_params_free(const struct scr_params *params)
{
    if (params == NULL) return;
    /* the one owner of the struct frees it; everyone else sees it const */
    struct scr_params *p = (struct scr_params *)params;
    free(p->prefix);
    free(p->cntl_base);
    free(p->cache_base);
    free(p->current);
    free(p->job_name);
    free(p->cluster_name);
    free(p->copy_type);
    free(p->group);
    free(p);
}

int scr_params_name_from_files(const scr_config *cfg, const char *param, char *buf, size_t len,
                               int *out_set)
{
    enum scr_config_layer layer;
    const char *v = NULL;
    *out_set = 0;
    if (scr_config_layer_of(cfg, param, &layer) != SCR_SUCCESS || layer == SCR_CONFIG_LAYER_ENV ||
        layer == SCR_CONFIG_LAYER_DEFAULT || scr_config_get(cfg, param, &v) != SCR_SUCCESS)
        return SCR_SUCCESS;
    int rc = scr_job_env_check_name(param, v);
    if (rc != SCR_SUCCESS) return rc;
    if (strlen(v) >= len) {
        scr_err("%s='%s' (from %s) is longer than %zu bytes", param, v,
                scr_config_origin(cfg, param), len - 1);
        return SCR_ERR_ARG;
    }
    snprintf(buf, len, "%s", v);
    *out_set = 1;
    return SCR_SUCCESS;
}

void scr_params_say_ineffective(const scr_config *cfg, const struct scr_params *p, int encode_async)
{
    static const char *const limits[] = {"SCR_FLUSH_ASYNC_BW", "SCR_FLUSH_ASYNC_PERCENT"};
    for (size_t i = 0; !p->flush_async && i < sizeof(limits) / sizeof(limits[0]); i++) {
        enum scr_config_layer layer;
        const char *v = NULL;
        if (scr_config_layer_of(cfg, limits[i], &layer) == SCR_SUCCESS &&
            layer != SCR_CONFIG_LAYER_DEFAULT && scr_config_get(cfg, limits[i], &v) == SCR_SUCCESS)
            scr_warn("%s=%s (from %s) has no effect: it limits a background flush, and "
                     "SCR_FLUSH_ASYNC is 0",
                     limits[i], v, scr_config_origin(cfg, limits[i]));
    }
    enum scr_config_layer busy_layer;
    if (!encode_async && p->encode_when_busy &&
        scr_config_layer_of(cfg, "SCR_ENCODE_ASYNC_BUSY", &busy_layer) == SCR_SUCCESS &&
        busy_layer != SCR_CONFIG_LAYER_DEFAULT)
        scr_warn(
            "SCR_ENCODE_ASYNC_BUSY=1 (from %s) has no effect: no encode runs in the background in "
            "this run "
            "(SCR_ENCODE_ASYNC=0, MPI below MPI_THREAD_MULTIPLE, or no scheme that moves data)",
            scr_config_origin(cfg, "SCR_ENCODE_ASYNC_BUSY"));
    if (p->flush_async && p->watchdog_pfs > 0)
        scr_warn("SCR_WATCHDOG_TIMEOUT_PFS=%d times the flushes that run in the foreground (at "
                 "SCR_Finalize "
                 "and at a restart) and the fetches; a background flush (SCR_FLUSH_ASYNC=1) is not "
                 "timed",
                 p->watchdog_pfs);
    if (p->watchdog_cache > 0)
        scr_warn("SCR_WATCHDOG_TIMEOUT=%lld is not used: the application writes to the cache "
                 "itself; only the "
                 "copies to and from the prefix are timed, by SCR_WATCHDOG_TIMEOUT_PFS (now %d, 0: "
                 "no limit)",
                 p->watchdog_cache, p->watchdog_pfs);
}
