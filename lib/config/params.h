/* params.h — the scalar parameters libscr runs with, resolved once.
 *
 * scr_params_resolve reads every scalar parameter of the catalogue
 * (config_params.c) that the library uses from a loaded configuration,
 * applies the rules that tie some of them together (SCR_FLUSH_TYPE=PTHREAD,
 * the bounds of the buffer sizes, SCR_CACHE_SIZE of at least 1), and gives
 * a struct nobody changes afterwards: the run keeps it behind a const
 * pointer. This module and the rest of the config layer are the only places
 * that read parameters by name; the descriptor tables (CKPT, STORE, GROUPS)
 * are read from the configuration itself (config.h), being tables. Strings
 * are copies owned by the struct. Errors are logged once, here. */
#ifndef SCR_PARAMS_H
#define SCR_PARAMS_H

#include "config.h"

#include <stddef.h>

/* The event log's switches (SCR_LOG_*), for event_log.h. */
struct scr_log_params {
    int enable;             /* SCR_LOG_ENABLE */
    int text, json, syslog; /* SCR_LOG_TXT_ENABLE, SCR_LOG_JSON_ENABLE, SCR_LOG_SYSLOG_ENABLE */
    const char *syslog_facility; /* SCR_LOG_SYSLOG_FACILITY, NULL when none */
    const char *syslog_level;    /* SCR_LOG_SYSLOG_LEVEL, NULL when none */
    const char *syslog_prefix;   /* SCR_LOG_SYSLOG_PREFIX, NULL when none */
};

struct scr_params {
    int debug; /* SCR_DEBUG */
    /* where things live; NULL when not set and without a default */
    char *prefix;       /* SCR_PREFIX as given (scr_init.c makes it absolute) */
    char *cntl_base;    /* SCR_CNTL_BASE */
    char *cache_base;   /* SCR_CACHE_BASE */
    char *current;      /* SCR_CURRENT, NULL when unset or empty */
    char *job_name;     /* SCR_JOB_NAME */
    char *cluster_name; /* SCR_CLUSTER_NAME */
    /* the cache */
    int cache_size;    /* SCR_CACHE_SIZE, at least 1 */
    int cache_bypass;  /* SCR_CACHE_BYPASS */
    int cache_purge;   /* SCR_CACHE_PURGE */
    int distribute;    /* SCR_DISTRIBUTE */
    int crc_in_cache;  /* files in cache get CRCs (run_crc.c); 0 only for benchmarks */
    int crc_on_delete; /* check files against their CRCs before deleting them from cache */
    int crc_on_copy;   /* SCR_CRC_ON_COPY */
    /* the default redundancy descriptor (reddesc.c) */
    char *copy_type; /* SCR_COPY_TYPE */
    char *group;     /* SCR_GROUP */
    int set_size, set_failures, hop_distance;
    int encode_async;     /* SCR_ENCODE_ASYNC: wanted; run_encode_async.c decides */
    int encode_when_busy; /* SCR_ENCODE_ASYNC_BUSY: in the background whatever the cores did */
    /* the prefix */
    int prefix_size;                           /* checkpoints kept on the prefix (0: all) */
    int prefix_purge;                          /* SCR_PREFIX_PURGE */
    int flush_every, flush_width, fetch_width; /* SCR_FLUSH, SCR_FLUSH_WIDTH, SCR_FETCH_WIDTH */
    int crc_on_flush, fetch, fetch_bypass;     /* SCR_CRC_ON_FLUSH, SCR_FETCH, SCR_FETCH_BYPASS */
    int flush_async;            /* SCR_FLUSH_ASYNC (or SCR_FLUSH_TYPE=PTHREAD where it is unset) */
    double flush_async_bw;      /* SCR_FLUSH_ASYNC_BW: a node's flush, bytes per second (0: none) */
    double flush_async_percent; /* SCR_FLUSH_ASYNC_PERCENT: of a core (0: no limit) */
    int flush_compress; /* SCR_FLUSH_COMPRESS: zlib level of flushed files (0: stored as written) */
    int watchdog_pfs;   /* SCR_WATCHDOG_TIMEOUT_PFS: seconds a copy to or from the prefix may
                         * take, 0: no limit */
    long long watchdog_cache; /* SCR_WATCHDOG_TIMEOUT: not used, said so */
    int flush_on_restart, global_restart, drop_after_current;
    /* halt and the checkpoint policy */
    int halt_enabled, halt_exit, halt_seconds;
    int ckpt_interval, ckpt_seconds;
    double ckpt_overhead;
    /* buffers */
    size_t file_buf_size; /* file I/O buffer (SCR_FILE_BUF_SIZE), 4 KiB to 1 GiB */
    size_t mpi_buf_size;  /* pieces that travel between ranks (SCR_MPI_BUF_SIZE), at most the
                           * file buffer */
    struct scr_log_params log;
};

/* SCR_ENABLE: 0 turns SCR off (1 when it cannot be read, as its default). */
int scr_params_enabled(const scr_config *cfg);

/* Every parameter above from cfg into *out, a new struct (free with
 * scr_params_free). simulated: under SimGrid's SMPI no library thread
 * runs, so SCR_FLUSH_ASYNC and SCR_WATCHDOG_TIMEOUT_PFS are taken as 0.
 * A value out of range is reported, naming where it came from. */
int scr_params_resolve(const scr_config *cfg, int simulated, struct scr_params **out);
void scr_params_free(const struct scr_params *params);

/* The event log's switches alone (what the commands and the plugin need). */
int scr_params_resolve_log(const scr_config *cfg, struct scr_log_params *out);

/* The value of param (SCR_NODE_NAME, SCR_USER_NAME, SCR_JOB_ID) when a
 * configuration file or SCR_Config sets it (*out_set = 1), checked as one
 * directory level and copied into buf; the environment's value is
 * job_env.h's to read, in its own order. */
int scr_params_name_from_files(const scr_config *cfg, const char *param, char *buf, size_t len,
                               int *out_set);

/* Rank 0, once at SCR_Init: settings given whose effect this run does not
 * have (limits of a background flush without one, SCR_ENCODE_ASYNC_BUSY
 * without a background encode, SCR_WATCHDOG_TIMEOUT), said as warnings. */
void scr_params_say_ineffective(const scr_config *cfg, const struct scr_params *params,
                                int encode_async);

#endif
