/* scr.c — the public SCR API: state machine and the calls applications make.
 *
 * States: UNINIT -> (SCR_Init) -> IDLE; IDLE -> Start_output/checkpoint ->
 * OUTPUT -> Complete_* -> IDLE; IDLE -> Start_restart -> RESTART ->
 * Complete_restart -> IDLE; IDLE -> SCR_Finalize -> UNINIT. A call in the
 * wrong state returns SCR_ERR_STATE and says which call was expected; it
 * never aborts. With SCR_ENABLE=0 every call succeeds and does nothing, and
 * SCR_Route_file returns names unchanged. */
#define _GNU_SOURCE /* nftw, vasprintf */
#include "build_config.h"
#include "scr.h"

#include "config.h"
#include "dataset_claim.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "scavenge_job.h"
#include "kvtree_util.h"
#include "job_env.h"
#include "meta.h"
#include "mpi_comm.h"
#include "job_file.h"
#include "nodes_file.h"
#include "prefix_trim.h"
#include "rank_filemap.h"
#include "scr_err.h"
#include "scr_run.h"
#include "transfer.h"
#include "run_halt.h"
#include "summary.h"
#include "util_copy.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct scr_run *run;        /* between SCR_Init and SCR_Finalize */
static int scr_disabled;           /* SCR_ENABLE=0 was found at SCR_Init */
static scr_config *early_config;   /* SCR_Config calls before SCR_Init */
static int scr_finalized;          /* SCR_Finalize has run */

static const char *const state_names[] = {"before SCR_Init", "outside any phase",
                                          "inside a restart phase", "inside an output phase"};

/* The wrong call for the state: one line, naming what was expected. */
static int wrong_state(const char *call, const char *expected)
{
    enum scr_api_state st = run ? run->state : SCR_STATE_UNINIT;
    if (run == NULL && scr_finalized)
        scr_err("%s called after SCR_Finalize; SCR calls end with SCR_Finalize", call);
    else
        scr_err("%s called %s; expected %s first", call, state_names[st], expected);
    return SCR_ERR_STATE;
}

/* What a phase must be closed with, for messages. */
static const char *closing_call(void)
{
    if (run == NULL) return "SCR_Init";
    if (run->state == SCR_STATE_RESTART) return "SCR_Complete_restart";
    if (run->state == SCR_STATE_OUTPUT) return "SCR_Complete_output (or SCR_Complete_checkpoint)";
    return "SCR_Init";
}

/* --- SCR_Config ------------------------------------------------------------- */

/* Whether an SCR_Config string asks ("KEY", "CKPT=0 TYPE", "STORE= /ssd
 * COUNT"): its last word has no '=' and is no value after a "KEY =". */
static int is_question(const char *config)
{
    size_t end = strlen(config);
    while (end > 0 && (config[end - 1] == ' ' || config[end - 1] == '\t')) end--;
    size_t start = end;
    while (start > 0 && config[start - 1] != ' ' && config[start - 1] != '\t') start--;
    if (end == start || memchr(config + start, '=', end - start) != NULL) return 0;
    size_t before = start;
    while (before > 0 && (config[before - 1] == ' ' || config[before - 1] == '\t')) before--;
    return before == 0 || config[before - 1] != '=';
}

/* Whether an SCR_Config string changes a descriptor table ("CKPT=1 TYPE=RS"). */
static int changes_a_table(const char *config)
{
    char key[32];
    size_t i = 0;
    config += strspn(config, " \t");
    for (; i + 1 < sizeof(key) && config[i] != '\0' && strchr(" \t=", config[i]) == NULL; i++)
        key[i] = (char)toupper((unsigned char)config[i]);
    key[i] = '\0';
    return scr_config_table_find(key) != NULL;
}

const char *SCR_Config(const char *config)
{
    if (run != NULL || scr_disabled) {
        scr_err("SCR_Config('%s') called after SCR_Init; parameters are fixed by then",
                config ? config : "");
        return NULL;
    }
    /* as in SCR, no string (or a blank one) is no question and no setting */
    if (config == NULL || config[strspn(config, " \t")] == '\0') return NULL;
    if (early_config == NULL && (early_config = scr_config_new()) == NULL) return NULL;
    /* a question ("KEY", "CKPT=0 TYPE") answers from every layer, and a
     * change of a table starts from the table the files define: read them first */
    if (is_question(config) || changes_a_table(config)) {
        /* every rank asks; what the files and environment hold is said by
         * rank 0 alone, as at SCR_Init (an error is said by every rank) */
        int initialized = 0, rank = 0;
        if (MPI_Initialized(&initialized) == MPI_SUCCESS && initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank != 0) scr_log_set_quiet(1);
        int rc = scr_config_load(early_config, NULL);
        scr_log_set_quiet(0);
        if (rc != SCR_SUCCESS) {
            if (rank != 0) scr_err("SCR_Config('%s'): the configuration cannot be read (%s)", config,
                                   scr_strstatus(rc));
            return NULL;
        }
    }
    char *value = NULL;
    if (scr_config_apply(early_config, config, &value) != SCR_SUCCESS) return NULL;
    return value;
}

const char *SCR_Configf(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *text = NULL;
    int n = vasprintf(&text, format, ap);
    va_end(ap);
    if (n < 0) {
        scr_err("SCR_Configf: cannot format '%s'", format);
        return NULL;
    }
    const char *value = SCR_Config(text);
    free(text);
    return value;
}

char *SCR_Get_version(void) { return (char *)SCR_VERSION; }

/* --- SCR_Init ------------------------------------------------------------------ */

static void free_run(struct scr_run *r)
{
    if (r == NULL) return;
    scr_prefix_lock_drop(&r->prefix_lock, &r->prefix_holder);
    if (r->node != MPI_COMM_NULL) MPI_Comm_free(&r->node);
    if (r->world != MPI_COMM_NULL) MPI_Comm_free(&r->world);
    scr_config_delete(r->cfg);
    free(r->prefix); free(r->prefix_scr); free(r->cntl_dir); free(r->cache_dir);
    free(r->filemap_path); free(r->master_filemap_path); free(r->flush_path);
    free(r->halt_path); free(r->index_path); free(r->current_name);
    scr_filemap_delete(r->map);
    scr_reddescs_free(r->reddescs, r->nreddescs);
    scr_dataset_delete(r->dset);
    scr_kvtree_delete(r->restart_files);
    scr_event_log_close(&r->events);
    free(r);
}

static int get_int(const scr_config *cfg, const char *name, int *out)
{
    long long v = 0;
    int rc = scr_config_get_int(cfg, name, &v);
    if (rc == SCR_SUCCESS) *out = v > INT_MAX ? INT_MAX : (int)v;
    return rc;
}

/* Resolve the parameters libscr uses into run. */
static int read_parameters(struct scr_run *r)
{
    const scr_config *c = r->cfg;
    long long debug = 0;
    uint64_t bufsize = 0;
    const char *current = NULL;
    uint64_t piece = 0;
    int rc = scr_config_get_int(c, "SCR_DEBUG", &debug);
    if (rc != SCR_SUCCESS) goto out;
    scr_log_set_level(debug > INT_MAX ? INT_MAX : (int)debug);
    struct { const char *name; int *out; int is_bool; } ints[] = {
        {"SCR_CACHE_SIZE", &r->cache_size, 0},   {"SCR_FLUSH", &r->flush_every, 0},
        {"SCR_FLUSH_WIDTH", &r->flush_width, 0}, {"SCR_FETCH_WIDTH", &r->fetch_width, 0},
        {"SCR_CRC_ON_FLUSH", &r->crc_on_flush, 1}, {"SCR_CRC_ON_COPY", &r->crc_on_copy, 1},
        {"SCR_FETCH", &r->fetch, 1},             {"SCR_FETCH_BYPASS", &r->fetch_bypass, 1},
        {"SCR_CACHE_BYPASS", &r->cache_bypass, 1}, {"SCR_HALT_ENABLED", &r->halt_enabled, 1},
        {"SCR_HALT_EXIT", &r->halt_exit, 1},     {"SCR_HALT_SECONDS", &r->halt_seconds, 0},
        {"SCR_CHECKPOINT_INTERVAL", &r->ckpt_interval, 0},
        {"SCR_CHECKPOINT_SECONDS", &r->ckpt_seconds, 0},
        {"SCR_WATCHDOG_TIMEOUT_PFS", &r->watchdog_pfs, 0},
        {"SCR_CRC_ON_DELETE", &r->crc_on_delete, 1}, {"SCR_PREFIX_SIZE", &r->prefix_size, 0},
    };
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        rc = ints[i].is_bool ? scr_config_get_bool(c, ints[i].name, ints[i].out)
                             : get_int(c, ints[i].name, ints[i].out);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_config_get_double(c, "SCR_CHECKPOINT_OVERHEAD", &r->ckpt_overhead);
    if (rc != SCR_SUCCESS) goto out;
    /* not a parameter: tests/bench/run-bench-scr.sh measures what the CRCs
     * of files in cache cost against a run that records none */
    const char *no_crc = getenv("SCRBENCH_NO_CACHE_CRC");
    r->crc_in_cache = no_crc == NULL || strcmp(no_crc, "1") != 0;
    /* SCR_CURRENT names the checkpoint to restart from, as SCR_Current does */
    if (scr_config_get(c, "SCR_CURRENT", &current) == SCR_SUCCESS && current != NULL && current[0] != '\0') {
        r->current_name = strdup(current);
        if (r->current_name == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
    }
    rc = scr_config_get_bytes(c, "SCR_FILE_BUF_SIZE", &bufsize);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_config_get_bytes(c, "SCR_MPI_BUF_SIZE", &piece);
    if (rc != SCR_SUCCESS) goto out;
    if (bufsize < 4096) bufsize = 4096;
    if (bufsize > ((uint64_t)1 << 30)) bufsize = (uint64_t)1 << 30;
    r->file_buf_size = (size_t)bufsize;
    /* pieces between ranks are small enough to stay in cache, at most a file buffer */
    if (piece < 4096) piece = 4096;
    r->mpi_buf_size = piece < bufsize ? (size_t)piece : (size_t)bufsize;
    if (r->cache_size < 1) r->cache_size = 1;
out:
    if (rc != SCR_SUCCESS) scr_err("cannot read SCR's parameters (%s)", scr_strstatus(rc));
    return rc;
}

/* Rank 0, once at SCR_Init: settings SCR knows whose effect this version
 * does not have, and what happens instead; said, never taken silently. A
 * background flush (SCR_FLUSH_ASYNC=1 or SCR_FLUSH_TYPE=PTHREAD) is one
 * line however it was asked for. */
static void say_what_is_not_available(const struct scr_run *r)
{
    static const char *const limits[] = {"SCR_FLUSH_ASYNC_BW", "SCR_FLUSH_ASYNC_PERCENT"};
    char asked[512] = "";
    const char *type = NULL;
    int async = 0;
    if (scr_config_get_bool(r->cfg, "SCR_FLUSH_ASYNC", &async) == SCR_SUCCESS && async)
        snprintf(asked, sizeof(asked), "SCR_FLUSH_ASYNC=1 (from %s)", scr_config_origin(r->cfg, "SCR_FLUSH_ASYNC"));
    if (scr_config_get(r->cfg, "SCR_FLUSH_TYPE", &type) == SCR_SUCCESS && type != NULL &&
        strcasecmp(type, "PTHREAD") == 0) {
        size_t n = strlen(asked);
        snprintf(asked + n, sizeof(asked) - n, "%sSCR_FLUSH_TYPE=PTHREAD (from %s)", n ? " and " : "",
                 scr_config_origin(r->cfg, "SCR_FLUSH_TYPE"));
    }
    if (asked[0] != '\0')
        scr_warn("%s is not taken: background flush is not available in this version, so every flush runs "
                 "synchronously", asked);
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        enum scr_config_layer layer;
        const char *v = NULL;
        if (scr_config_layer_of(r->cfg, limits[i], &layer) == SCR_SUCCESS && layer != SCR_CONFIG_LAYER_DEFAULT &&
            scr_config_get(r->cfg, limits[i], &v) == SCR_SUCCESS)
            scr_warn("%s=%s (from %s) has no effect: it limits a background flush, which is not available "
                     "in this version", limits[i], v, scr_config_origin(r->cfg, limits[i]));
    }
    long long cache_timeout = 0;
    if (scr_config_get_int(r->cfg, "SCR_WATCHDOG_TIMEOUT", &cache_timeout) == SCR_SUCCESS && cache_timeout > 0)
        scr_warn("SCR_WATCHDOG_TIMEOUT=%lld is not used: the application writes to the cache itself; only the "
                 "copies to and from the prefix are timed, by SCR_WATCHDOG_TIMEOUT_PFS (now %d, 0: no limit)",
                 cache_timeout, r->watchdog_pfs);
}

/* SCR_PREFIX as an absolute, normalised path to an existing directory. */
static int resolve_prefix(struct scr_run *r)
{
    const char *p = NULL;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        scr_err("cannot find the current directory: %s", strerror(errno));
        return SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    if (scr_config_get(r->cfg, "SCR_PREFIX", &p) != SCR_SUCCESS) p = cwd;
    if (p[0] == '/') rc = scr_path_normalize(p, &r->prefix);
    else rc = scr_path_join(cwd, p, &r->prefix);
    if (rc != SCR_SUCCESS) return rc;
    struct stat st;
    if (stat(r->prefix, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scr_err("SCR_PREFIX %s (from %s) %s", r->prefix, scr_config_origin(r->cfg, "SCR_PREFIX") ?
                scr_config_origin(r->cfg, "SCR_PREFIX") : "the current directory",
                stat(r->prefix, &st) != 0 ? "does not exist" : "is not a directory");
        return SCR_ERR_NOTFOUND;
    }
    return scr_path_join(r->prefix, ".scr", &r->prefix_scr);
}

/* <base>/<user>/scr.<jobid> with the base's patterns expanded. */
static int job_dir(const struct scr_run *r, const char *param, char **out_dir)
{
    const char *base = NULL;
    int rc = scr_config_get(r->cfg, param, &base);
    if (rc != SCR_SUCCESS) return rc;
    return scr_run_job_dir(r, param, base, out_dir);
}

static void write_nodes_file(const struct scr_run *r)
{
    char *path = NULL;
    scr_kvtree *nodes = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (nodes == NULL) goto out;
    rc = scr_path_join(r->cntl_dir, SCR_NODES_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_nodes_file_set_nodes(nodes, r->nodes);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_nodes_file_write(path, nodes);
out:
    if (rc != SCR_SUCCESS) scr_warn("could not record the run's node count in %s", path ? path : r->cntl_dir);
    free(path);
    scr_kvtree_delete(nodes);
}

/* The prefix this run resolved, for the work done when the job ends (the
 * plugin's epilog, scr-scavenge) and for a relaunch: without it they only
 * know --scr-prefix or the job's working directory. With it, the cache
 * directories of this node that this run and the job's earlier runs used,
 * so that the epilog removes a cache the site's base does not name. */
static void write_job_file(const struct scr_run *r)
{
    char *path = NULL;
    scr_kvtree *job = scr_kvtree_new();
    int rc = SCR_ERR_NOMEM;
    if (job == NULL) goto out;
    rc = scr_path_join(r->cntl_dir, SCR_JOB_FILE_NAME, &path);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_job_file_read(path, job) != SCR_SUCCESS) scr_kvtree_unset_all(job);
    rc = scr_job_file_set_prefix(job, r->prefix);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_job_file_add_cache_dir(job, r->cache_dir);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < r->nreddescs; i++) {
        char *dir = NULL;
        rc = scr_cache_store_dir(r, r->reddescs[i].store, &dir);
        if (rc == SCR_SUCCESS) rc = scr_job_file_add_cache_dir(job, dir);
        free(dir);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_job_file_write(path, job);
out:
    if (rc != SCR_SUCCESS)
        scr_warn("could not record the prefix and the cache in %s: a scavenge at the end of the job may not "
                 "find them", path ? path : r->cntl_dir);
    free(path);
    scr_kvtree_delete(job);
}

/* Under the Slurm plugin, which scavenges at the job's end, rank 0 notes
 * in the prefix which nodes this run uses: the job's end then waits for
 * their reports only, not for a spare node that knows no prefix. Only a
 * help to the job's end, so failing stops nothing; collective. */
static void note_run_nodes(const struct scr_run *r)
{
    const char *v = getenv(SCR_EPILOG_SCAVENGE_VAR);
    int ok = 0;
    if (scr_comm_all_true(v != NULL && strcmp(v, "1") == 0, r->world, &ok) != SCR_SUCCESS || !ok) return;
    scr_kvtree *mine = scr_kvtree_new(), **all = NULL;
    int rc = mine ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && r->node_rank == 0) rc = scr_kvtree_util_set_str(mine, "NODE", r->node_name);
    /* every rank takes part even after a failure of its own: the gather is collective */
    int grc = scr_comm_gather_kvtree(mine, 0, r->world, &all);
    if (r->rank == 0 && grc == SCR_SUCCESS) {
        const char **names = calloc((size_t)r->ranks, sizeof(char *));
        int n = 0;
        for (int i = 0; names != NULL && i < r->ranks; i++)
            if (scr_kvtree_util_get_str(all[i], "NODE", &names[n]) == SCR_SUCCESS) n++;
        rc = names != NULL ? scr_scavenge_job_note_nodes(r->prefix, r->jobid, names, n) : SCR_ERR_NOMEM;
        if (rc != SCR_SUCCESS)
            scr_warn("could not note this run's nodes in %s/.scr: the job's end may wait for spare nodes",
                     r->prefix);
        free(names);
    }
    if (all != NULL) scr_comm_free_trees(all, r->rank == 0 ? r->ranks : 0);
    scr_kvtree_delete(mine);
}

static int join_into(const char *dir, const char *name, char **out)
{
    return scr_path_join(dir, name, out);
}

static int set_paths(struct scr_run *r)
{
    char name[64];
    snprintf(name, sizeof(name), "filemap_%d.scrinfo", r->node_rank);
    int rc = job_dir(r, "SCR_CNTL_BASE", &r->cntl_dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = job_dir(r, "SCR_CACHE_BASE", &r->cache_dir);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->cntl_dir, name, &r->filemap_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->cntl_dir, "filemap.scrinfo", &r->master_filemap_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->cntl_dir, "flush.scr", &r->flush_path);
    if (rc != SCR_SUCCESS) return rc;
    rc = join_into(r->prefix_scr, "halt.scr", &r->halt_path);
    if (rc != SCR_SUCCESS) return rc;
    return join_into(r->prefix_scr, "index.scr", &r->index_path);
}

/* The value of param when a configuration file or SCR_Config sets it
 * (*out_set = 1), checked as one directory level and copied into buf; the
 * environment's value is job_env.h's to read, in its own order. */
static int name_from_files(const scr_config *cfg, const char *param, char *buf, size_t len, int *out_set)
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
        scr_err("%s='%s' (from %s) is longer than %zu bytes", param, v, scr_config_origin(cfg, param), len - 1);
        return SCR_ERR_ARG;
    }
    snprintf(buf, len, "%s", v);
    *out_set = 1;
    return SCR_SUCCESS;
}

/* Node, user and job id: the environment as job_env.h reads it, but a value
 * a file or SCR_Config gives takes the place of the detected one (the job
 * id of a resource manager, SLURM_JOB_ID, still comes first). */
static int identify(struct scr_run *r, int *out_defaulted)
{
    int set = 0;
    *out_defaulted = 0;
    const char *slurm = getenv("SLURM_JOB_ID");
    int rc = name_from_files(r->cfg, "SCR_NODE_NAME", r->node_name, sizeof(r->node_name), &set);
    if (rc != SCR_SUCCESS) return rc;
    if (!set) {
        rc = scr_job_env_node_name(r->node_name, sizeof(r->node_name));
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = name_from_files(r->cfg, "SCR_USER_NAME", r->user, sizeof(r->user), &set);
    if (rc != SCR_SUCCESS) return rc;
    if (!set) {
        rc = scr_job_env_user_name(r->user, sizeof(r->user));
        if (rc != SCR_SUCCESS) return rc;
    }
    set = 0;
    if (slurm == NULL || slurm[0] == '\0') {
        rc = name_from_files(r->cfg, "SCR_JOB_ID", r->jobid, sizeof(r->jobid), &set);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (set) return SCR_SUCCESS;
    return scr_job_env_job_id(r->jobid, sizeof(r->jobid), out_defaulted);
}

/* Everything of SCR_Init that each rank does on its own; the caller has
 * all ranks agree on the outcome. */
static int init_local(struct scr_run *r)
{
    int defaulted = 0;
    int rc = identify(r, &defaulted);
    r->jobid_defaulted = defaulted;
    if (rc != SCR_SUCCESS) return rc;
    if (defaulted && r->rank == 0)
        scr_warn("no job id (neither SLURM_JOB_ID nor SCR_JOB_ID is set): using '%s' so that "
                 "later runs find this cache", r->jobid);
    rc = read_parameters(r);
    if (rc != SCR_SUCCESS) return rc;
    /* every rank checks the prefix; rank 0 says what is wrong with it */
    if (r->rank != 0) scr_log_set_quiet(1);
    rc = resolve_prefix(r);
    scr_log_set_quiet(0);
    if (rc != SCR_SUCCESS) return rc;
    r->map = scr_filemap_new();
    r->restart_files = scr_kvtree_new();
    if (r->map == NULL || r->restart_files == NULL) return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* All ranks agree on the outcome of a step each did (rc, this rank's):
 * SCR_SUCCESS when it succeeded everywhere, failed_code when it failed
 * somewhere, or the MPI failure of the vote itself. Collective. */
static int all_agree(const struct scr_run *r, int rc, int failed_code)
{
    int ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, r->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : failed_code;
}

/* Newest dataset and checkpoint ids of the index (rank 0) and the cache;
 * an index rank 0 cannot read fails every rank, since new datasets would
 * take the ids, names and files of the ones it lists. */
static int find_last_ids(struct scr_run *r)
{
    int ids[3] = {0, 0, 0}, all[3] = {0, 0, 0}; /* dataset, checkpoint, unreadable index */
    int *list = NULL, n = 0;
    if (scr_filemap_list_datasets(r->map, &list, &n) == SCR_SUCCESS) {
        for (int i = 0; i < n; i++) {
            const scr_dataset *d = NULL;
            int ck = 0;
            if (list[i] > ids[0]) ids[0] = list[i];
            if (scr_filemap_get_dataset(r->map, list[i], r->rank, &d) == SCR_SUCCESS &&
                scr_dataset_get_ckpt(d, &ck) == SCR_SUCCESS && ck > ids[1])
                ids[1] = ck;
        }
    }
    free(list);
    if (r->rank == 0) {
        scr_kvtree *index = scr_kvtree_new();
        list = NULL;
        n = 0;
        int irc = index ? scr_index_file_read(r->index_path, index) : SCR_ERR_NOMEM; /* says why */
        if (irc != SCR_SUCCESS && irc != SCR_ERR_NOTFOUND) ids[2] = 1;
        if (irc == SCR_SUCCESS && scr_index_file_list_ids(index, &list, &n) == SCR_SUCCESS) {
            for (int i = 0; i < n; i++) {
                const scr_dataset *d = NULL;
                int ck = 0;
                if (list[i] > ids[0]) ids[0] = list[i];
                if (scr_index_file_get_dataset(index, list[i], &d) == SCR_SUCCESS &&
                    scr_dataset_get_ckpt(d, &ck) == SCR_SUCCESS && ck > ids[1])
                    ids[1] = ck;
            }
        }
        free(list);
        scr_kvtree_delete(index);
        /* a dataset that left the index keeps its directory, and its id */
        int on_disk = 0;
        if (scr_dataset_claim_highest_id(r->prefix, &on_disk) == SCR_SUCCESS && on_disk > ids[0]) ids[0] = on_disk;
    }
    /* all ranks agree: */
    int rc = scr_mpi_check(MPI_Allreduce(ids, all, 3, MPI_INT, MPI_MAX, r->world),
                           "finding the newest dataset id");
    if (rc != SCR_SUCCESS) return rc;
    if (all[2]) return SCR_ERR_FORMAT;
    r->dataset_id = all[0];
    r->checkpoint_id = all[1];
    return SCR_SUCCESS;
}

/* Output datasets a dead run left in cache unflushed are flushed now. */
static int flush_leftover_output(struct scr_run *r)
{
    int below = INT_MAX;
    for (;;) {
        int id = 0;
        int rc = scr_cache_next_dataset(r, below, &id);
        if (rc != SCR_SUCCESS || id == 0) return rc;
        below = id;
        const scr_dataset *d = NULL;
        int is_output = 0, flushed = 0;
        if (scr_filemap_get_dataset(r->map, id, r->rank, &d) == SCR_SUCCESS)
            is_output = scr_dataset_is_output(d);
        int all_output = 0;
        /* all ranks agree: */
        rc = scr_comm_all_true(is_output, r->world, &all_output);
        if (rc != SCR_SUCCESS) return rc;
        if (!all_output) continue;
        rc = scr_flush_is_flushed(r, id, &flushed); /* all ranks agree */
        if (rc != SCR_SUCCESS) return rc;
        if (flushed) continue;
        if (r->rank == 0) scr_warn("output dataset %d was not copied to the prefix before the "
                                   "last run ended; copying it now", id);
        r->dset_in_cache = 1;
        rc = scr_flush_dataset(r, id);
        if (rc != SCR_SUCCESS) {
            /* it stays in cache, and the next SCR_Init tries again */
            if (r->rank == 0) scr_warn("output dataset %d is still only in cache", id);
            continue;
        }
        if (!scr_dataset_is_checkpoint(d)) {
            rc = scr_cache_delete_dataset(r, id);
            int nrc = scr_cache_note_location(r, id, 0, 1, 0);
            if (rc == SCR_SUCCESS) rc = nrc;
            if (rc != SCR_SUCCESS) return rc;
        }
    }
}

static int purge_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    if (remove(path) != 0) scr_warn("cannot remove %s: %s", path, strerror(errno));
    return 0;
}

/* SCR_PREFIX_PURGE: rank 0 forgets every dataset of the prefix (the index and
 * SCR's dataset directories, listed or not, since a later rebuild of the
 * index would bring back any that stayed; application files at their own
 * paths stay). */
static void purge_prefix(struct scr_run *r)
{
    DIR *d = opendir(r->prefix_scr);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char *dir = NULL;
        int id = 0;
        /* and what a crash left of a deletion by SCR_PREFIX_SIZE */
        if (scr_dataset_dir_name_id(e->d_name, &id) != SCR_SUCCESS &&
            strncmp(e->d_name, SCR_PREFIX_TRIM_DIR_PREFIX, strlen(SCR_PREFIX_TRIM_DIR_PREFIX)) != 0)
            continue;
        if (scr_path_join(r->prefix_scr, e->d_name, &dir) == SCR_SUCCESS)
            nftw(dir, purge_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(dir);
    }
    if (d == NULL && errno != ENOENT) scr_warn("cannot read %s: %s", r->prefix_scr, strerror(errno));
    if (d != NULL) closedir(d);
    if (unlink(r->index_path) != 0 && errno != ENOENT)
        scr_warn("cannot remove %s: %s", r->index_path, strerror(errno));
    scr_warn("SCR_PREFIX_PURGE: removed every dataset from %s", r->prefix);
}

/* Rank 0, before anything reads the index: a damaged one, or one lost while
 * dataset directories remain, is rebuilt from the datasets' summaries (and
 * said so); a dataset a scavenge copied but no one indexed (a job's epilog
 * cut short) is indexed. The ids of dataset directories that still give no
 * index (no summary) are left in *out_ids (a new array, NULL when none) for
 * check_unindexed. */
static int prepare_index(struct scr_run *r, int **out_ids, int *out_n)
{
    struct scr_index_rebuild_options ro = {.damaged = 1, .require = 0, .announce = 1};
    struct scr_index_rebuild_report rep;
    int rc = scr_index_rebuild(r->prefix, &ro, &rep);
    int unindexed = rep.found == SCR_INDEX_FOUND_MISSING && !rep.rebuilt && rep.nskipped > 0;
    scr_index_rebuild_report_free(&rep);
    if (rc != SCR_SUCCESS) return rc;
    int pending = 0;
    scr_scavenge_job_index_pending(r->prefix, &pending); /* failing stops nothing; it said why */
    if (!unindexed) return SCR_SUCCESS;
    rc = scr_index_rebuild(r->prefix, &ro, &rep); /* what the scavenged datasets left */
    if (rc != SCR_SUCCESS) goto out;
    if (rep.found != SCR_INDEX_FOUND_MISSING || rep.rebuilt || rep.nskipped <= 0) goto out;
    *out_ids = malloc(sizeof(int) * (size_t)rep.nskipped);
    if (*out_ids == NULL) {
        scr_err("out of memory listing the dataset directories of %s", r->prefix);
        rc = SCR_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < rep.nskipped; i++) (*out_ids)[i] = rep.skipped[i].id;
    *out_n = rep.nskipped;
out:
    scr_index_rebuild_report_free(&rep);
    return rc;
}

/* The dataset directories of the prefix that give no index (ids, known to
 * rank 0) may stay only when they are copies this job will make again: of
 * datasets some rank still holds in cache (a flush that failed, or a run
 * that died flushing). Otherwise SCR_Init stops rather than start over on
 * top of them. Collective; all ranks agree on the outcome. */
static int check_unindexed(struct scr_run *r, int *ids, int n)
{
    int count = r->rank == 0 ? n : 0;
    /* rank 0 says how many, everyone gets the answer */
    int rc = scr_mpi_check(MPI_Bcast(&count, 1, MPI_INT, 0, r->world), "sharing the unindexed datasets");
    if (rc != SCR_SUCCESS || count == 0) return rc;
    int *list = r->rank == 0 ? ids : calloc((size_t)count, sizeof(int));
    int *held = calloc((size_t)count, sizeof(int)), *any = calloc((size_t)count, sizeof(int));
    int *cached = NULL, ncached = 0;
    int lrc = list && held && any ? SCR_SUCCESS : SCR_ERR_NOMEM;
    if (lrc != SCR_SUCCESS) scr_err("out of memory checking %d dataset directories", count);
    /* all ranks agree: */
    rc = all_agree(r, lrc, SCR_ERR_NOMEM);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_mpi_check(MPI_Bcast(list, count, MPI_INT, 0, r->world), "sharing the unindexed datasets");
    if (rc != SCR_SUCCESS) goto out;
    if (scr_filemap_list_datasets(r->map, &cached, &ncached) == SCR_SUCCESS)
        for (int i = 0; i < count; i++)
            for (int j = 0; j < ncached; j++) held[i] |= list[i] == cached[j];
    rc = scr_mpi_check(MPI_Allreduce(held, any, count, MPI_INT, MPI_MAX, r->world), "finding cached datasets");
    if (rc != SCR_SUCCESS) goto out;
    int crc = SCR_SUCCESS;
    if (r->rank == 0) {
        /* rank 0 asks again, with what the cache holds left out */
        int k = 0;
        for (int i = 0; i < count; i++)
            if (any[i]) held[k++] = list[i];
        struct scr_index_rebuild_options ro = {.damaged = 1, .require = 1, .announce = 1, .cached = held, .ncached = k};
        struct scr_index_rebuild_report rep;
        crc = scr_index_rebuild(r->prefix, &ro, &rep);
        scr_index_rebuild_report_free(&rep);
    }
    /* all ranks agree: */
    rc = all_agree(r, crc, SCR_ERR_NOTFOUND);
out:
    free(cached);
    if (r->rank != 0) free(list);
    free(held);
    free(any);
    return rc;
}

/* SCR_CACHE_PURGE or SCR_DISTRIBUTE=0: empty this node's cache. */
static int purge_cache(struct scr_run *r)
{
    int *ids = NULL, n = 0, rc = SCR_SUCCESS;
    if (scr_filemap_list_datasets(r->map, &ids, &n) == SCR_SUCCESS) {
        for (int i = 0; i < n; i++) {
            rc = scr_cache_delete_dataset(r, ids[i]);
            if (rc != SCR_SUCCESS) break;
        }
    }
    free(ids);
    return rc;
}

/* Rank 0: the prefix is this run's until SCR_Finalize, or the process dies.
 * A relaunched run of the same job waits a moment for its predecessor's
 * lock before it takes the prefix anyway. */
#define SAME_JOB_LOCK_WAIT_SECONDS 30
static int take_prefix(struct scr_run *r)
{
    struct scr_prefix_holder *me = &r->prefix_holder;
    char note[1024];
    snprintf(me->jobid, sizeof(me->jobid), "%s", r->jobid);
    snprintf(me->user, sizeof(me->user), "%s", r->user);
    snprintf(me->host, sizeof(me->host), "%s", r->node_name);
    me->pid = (long)getpid();
    me->since = (int64_t)time(NULL);
    me->released = 0;
    int rc = scr_prefix_lock_take(r->prefix, me, r->jobid_defaulted ? -1 : SAME_JOB_LOCK_WAIT_SECONDS,
                                  &r->prefix_lock, note, sizeof(note));
    if (rc == SCR_SUCCESS && note[0] != '\0') scr_warn("%s", note);
    return rc;
}

/* SCR_Init once the prefix is ready: the cache, what the prefix's
 * unindexed dataset directories (rank 0: unindexed) allow, leftover output,
 * the newest ids. */
static int init_cache(struct scr_run *r, int *unindexed, int nunindexed)
{
    int purge = 0, distribute = 1;
    int rc = scr_cache_create_dirs(r);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_cache_load_filemaps(r);
    if (rc != SCR_SUCCESS) return rc;
    /* how many nodes this run uses, for a relaunch's SCR_MIN_NODES default
     * (scr-run reads it on this node, where the batch script runs); only a
     * hint, so failing to write it stops nothing */
    if (r->rank == 0) write_nodes_file(r);
    note_run_nodes(r);

    scr_config_get_bool(r->cfg, "SCR_CACHE_PURGE", &purge);
    scr_config_get_bool(r->cfg, "SCR_DISTRIBUTE", &distribute);
    if (purge || !distribute) {
        rc = purge_cache(r);
        /* all ranks agree: */
        rc = all_agree(r, rc, SCR_ERR_IO);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_reddescs_create(r->cfg, r->world, r->node_name, &r->reddescs, &r->nreddescs);
    if (rc != SCR_SUCCESS) return rc;
    if (r->node_rank == 0) write_job_file(r);
    rc = scr_cache_rebuild(r, &r->restart_id);
    if (rc != SCR_SUCCESS) return rc;
    rc = check_unindexed(r, unindexed, nunindexed); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    rc = flush_leftover_output(r);
    if (rc != SCR_SUCCESS) return rc;
    return find_last_ids(r); /* all ranks agree */
}

/* What SCR_Config set, for the record, as SCR writes it (empty when
 * nothing); a later run does not read it back, as in SCR 3.1. */
static int save_app_config(const struct scr_run *r)
{
    char *app = NULL;
    int rc = scr_path_join(r->prefix_scr, "app.conf", &app);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_config_save_app(r->cfg, app);
    free(app);
    return rc;
}

/* Rank 0: the prefix's .scr directory and lock, the record of SCR_Config,
 * SCR_PREFIX_PURGE, then the index (prepare_index; *out_ids as there). */
static int prepare_prefix(struct scr_run *r, int **out_ids, int *out_n)
{
    int purge = 0;
    int rc = scr_mkdir_p(r->prefix_scr, 0700);
    if (rc != SCR_SUCCESS) return rc;
    rc = take_prefix(r);
    if (rc != SCR_SUCCESS) return rc;
    rc = save_app_config(r);
    if (rc != SCR_SUCCESS) return rc;
    if (scr_config_get_bool(r->cfg, "SCR_PREFIX_PURGE", &purge) == SCR_SUCCESS && purge) {
        purge_prefix(r);
        return SCR_SUCCESS;
    }
    return prepare_index(r, out_ids, out_n);
}

/* SCR_Init after the identity is known: the prefix and its index, then
 * init_cache. Collective; all ranks agree on the outcome. */
static int init_collective(struct scr_run *r)
{
    int rc = SCR_SUCCESS;
    int *unindexed = NULL, nunindexed = 0; /* rank 0: dataset directories the index misses */
    if (r->rank == 0) rc = prepare_prefix(r, &unindexed, &nunindexed);
    /* all ranks agree: */
    rc = all_agree(r, rc, SCR_ERR_IO);
    if (rc == SCR_SUCCESS) rc = init_cache(r, unindexed, nunindexed);
    free(unindexed);
    return rc;
}

/* SCR_FLUSH_ON_RESTART and SCR_GLOBAL_RESTART: the checkpoint SCR_Init found
 * in cache is copied to the prefix unless it is there already; with
 * SCR_GLOBAL_RESTART the cache is then emptied, so that the restart reads
 * the prefix (SCR_Have_restart fetches). Collective; all ranks agree. */
static int restart_at_init(struct scr_run *r)
{
    int on_restart = 0, global = 0, flushed = 1, rc = SCR_SUCCESS;
    scr_config_get_bool(r->cfg, "SCR_FLUSH_ON_RESTART", &on_restart);
    scr_config_get_bool(r->cfg, "SCR_GLOBAL_RESTART", &global);
    if (!on_restart && !global) return SCR_SUCCESS;
    if (r->restart_id > 0) {
        rc = scr_flush_is_flushed(r, r->restart_id, &flushed); /* all ranks agree */
        if (rc != SCR_SUCCESS) return rc;
    }
    if (!flushed) {
        if (r->rank == 0)
            scr_dbg(1, "%s: flushing dataset %d from cache before the restart",
                    global ? "SCR_GLOBAL_RESTART" : "SCR_FLUSH_ON_RESTART", r->restart_id);
        r->dset_in_cache = 1;
        rc = scr_flush_dataset(r, r->restart_id); /* all ranks agree */
        if (rc != SCR_SUCCESS) {
            /* a full or hung prefix (the watchdog) must not cost the restart
             * its only copy: it is read from cache, as without the setting */
            if (r->rank == 0)
                scr_warn("%s: dataset %d could not be flushed (%s); the restart reads it from cache",
                         global ? "SCR_GLOBAL_RESTART" : "SCR_FLUSH_ON_RESTART", r->restart_id, scr_strstatus(rc));
            return SCR_SUCCESS;
        }
    }
    if (!global) return SCR_SUCCESS;
    rc = purge_cache(r);
    /* all ranks agree: */
    rc = all_agree(r, rc, SCR_ERR_IO);
    if (rc != SCR_SUCCESS) return rc;
    if (r->rank == 0 && r->restart_id > 0)
        scr_dbg(1, "SCR_GLOBAL_RESTART: the restart reads from %s, not from cache", r->prefix);
    r->restart_id = 0;
    return SCR_SUCCESS;
}

struct drop_after {
    const char *name;
    int dropped;
};

/* Every dataset newer than the one called ctx->name leaves the index. */
static int drop_newer(scr_kvtree *index, void *ctx)
{
    struct drop_after *d = ctx;
    int id = 0, *ids = NULL, n = 0;
    if (scr_index_file_lookup_id(index, d->name, &id) != SCR_SUCCESS) return SCR_SUCCESS;
    int rc = scr_index_file_list_ids(index, &ids, &n);
    if (rc != SCR_SUCCESS) goto out;
    for (int i = 0; i < n; i++) {
        if (ids[i] <= id) continue;
        rc = scr_index_file_remove(index, ids[i]);
        if (rc != SCR_SUCCESS) goto out;
        d->dropped++;
    }
out:
    free(ids);
    return rc;
}

/* SCR_DROP_AFTER_CURRENT: once SCR_Current or SCR_CURRENT chose name, the
 * datasets the index lists after it are dropped (their files stay), so that
 * no later restart is offered them. Collective: rank 0 edits, all agree. */
static int drop_after_current(struct scr_run *r, const char *name)
{
    int drop = 0;
    scr_config_get_bool(r->cfg, "SCR_DROP_AFTER_CURRENT", &drop);
    if (!drop || name == NULL) return SCR_SUCCESS;
    int rc = SCR_SUCCESS;
    if (r->rank == 0) {
        struct drop_after d = {name, 0};
        rc = scr_index_file_update(r->index_path, drop_newer, &d);
        if (rc == SCR_ERR_NOTFOUND) rc = SCR_SUCCESS; /* no index: nothing to drop */
        if (rc == SCR_SUCCESS && d.dropped > 0)
            scr_warn("SCR_DROP_AFTER_CURRENT: dropped %d dataset%s newer than %s from %s", d.dropped,
                     d.dropped == 1 ? "" : "s", name, r->index_path);
    }
    /* all ranks agree: */
    return all_agree(r, rc, SCR_ERR_IO);
}

/* The init event: where a restart would come from as things stand (the
 * cache's newest intact checkpoint, else the prefix's newest usable one;
 * SCR_Current may still change it, and the fetch event says what was read). */
static void log_init(struct scr_run *r, double seconds)
{
    if (r->rank != 0 || !scr_event_log_enabled(&r->events)) return;
    int id = r->restart_id;
    const char *source = "cache", *dname = NULL;
    char name[SCR_MAX_FILENAME];
    if (id == 0) {
        source = "none";
        if (r->fetch && scr_fetch_peek(r, &id, name, sizeof(name)) == SCR_SUCCESS && id > 0) {
            source = "prefix";
            dname = name;
        }
    }
    struct scr_event_field fields[] = {SCR_EVENT_STR("restart_source", source), SCR_EVENT_INT("ranks", r->ranks),
                                       SCR_EVENT_INT("nodes", r->nodes)};
    scr_run_event(r, SCR_EVENT_INIT, SCR_EVENT_OK, id, dname, -1, seconds, NULL, fields, 3);
}

/* Rank 0: the configuration files, read into cfg and exported (*out_files,
 * a new tree) for the other ranks. */
static int read_config_files(scr_config *cfg, scr_kvtree **out_files)
{
    int rc = scr_config_load(cfg, NULL);
    if (rc != SCR_SUCCESS) return rc;
    return scr_config_export_files(cfg, out_files);
}

/* The configuration: rank 0 reads the files for everyone; each rank reads
 * its own environment (node names differ, for one). Collective; all ranks
 * agree on the outcome (SCR_ERR_FORMAT when some rank's is wrong). */
static int load_config(struct scr_run *r)
{
    scr_kvtree *files = NULL;
    int rc = SCR_SUCCESS;
    if (r->cfg == NULL) rc = SCR_ERR_NOMEM;
    else if (r->rank == 0) rc = read_config_files(r->cfg, &files);
    /* all ranks agree: */
    rc = all_agree(r, rc, SCR_ERR_FORMAT);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_comm_bcast_kvtree(&files, 0, r->world);
    if (rc != SCR_SUCCESS) goto out;
    if (r->rank != 0) {
        /* a bad value in the environment every rank shares is said once, by rank 0 */
        scr_log_set_quiet(1);
        rc = scr_config_load_with_files(r->cfg, files);
        scr_log_set_quiet(0);
        if (rc != SCR_SUCCESS) scr_err("%s", scr_last_error());
    }
    /* all ranks agree: */
    rc = all_agree(r, rc, SCR_ERR_FORMAT);
out:
    scr_kvtree_delete(files);
    return rc;
}

/* SCR_Init once the configuration is read and SCR is on: each rank's own
 * part (init_local), the node communicator and the paths, then the prefix
 * and the cache (init_collective), the restart and SCR_DROP_AFTER_CURRENT.
 * Collective; all ranks agree on the outcome (SCR_FAILURE when some rank's
 * own part failed). */
static int start_run(struct scr_run *r)
{
    int rc = init_local(r);
    /* all ranks agree: */
    rc = all_agree(r, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_comm_split_by_name(r->world, r->node_name, &r->node, &r->nodes);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_rank(r->node, &r->node_rank), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_size(r->node, &r->node_ranks), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    rc = set_paths(r);
    if (rc == SCR_SUCCESS && r->rank == 0)
        rc = scr_event_log_setup(&r->events, r->cfg, r->prefix_scr, r->jobid, r->user, r->node_name);
    /* all ranks agree: */
    rc = all_agree(r, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) return rc;
    rc = init_collective(r); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    rc = restart_at_init(r); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    return drop_after_current(r, r->current_name); /* all ranks agree */
}

int SCR_Init(void)
{
    if (run != NULL) return wrong_state("SCR_Init", "SCR_Finalize (SCR_Init was called already)");
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        scr_err("SCR_Init called before MPI_Init");
        return SCR_ERR_STATE;
    }
    double t_init = scr_run_now();
    struct scr_run *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        scr_err("out of memory starting SCR");
        return SCR_ERR_NOMEM;
    }
    r->prefix_lock.fd = -1;
    r->world = r->node = MPI_COMM_NULL;
    int enabled = 1;
    char prefix[64];
    int rc = scr_mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &r->world), "duplicating MPI_COMM_WORLD");
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_mpi_check(MPI_Comm_rank(r->world, &r->rank), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_mpi_check(MPI_Comm_size(r->world, &r->ranks), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) goto out;
    snprintf(prefix, sizeof(prefix), "SCR rank %d", r->rank);
    scr_log_set_prefix(prefix);

    r->cfg = early_config ? early_config : scr_config_new();
    early_config = NULL;
    rc = load_config(r); /* all ranks agree */
    if (rc != SCR_SUCCESS) {
        if (r->rank == 0) scr_err("SCR_Init failed: the configuration has errors (see above)");
        goto out;
    }
    scr_config_get_bool(r->cfg, "SCR_ENABLE", &enabled);
    if (!enabled) {
        scr_disabled = 1;
        goto out; /* SCR_SUCCESS, and nothing of the run is kept */
    }
    rc = start_run(r); /* all ranks agree */
    if (rc != SCR_SUCCESS) {
        if (r->rank == 0) scr_err("SCR_Init failed");
        goto out;
    }
    r->time_start = r->time_last_ckpt_end = scr_run_now();
    r->state = SCR_STATE_IDLE;
    run = r;
    log_init(r, r->time_start - t_init);
    if (scr_run_halt_clear_finalized(r) != SCR_SUCCESS)
        scr_warn("could not clear SCR_FINALIZE_CALLED from %s: a relaunch may take this run as finished",
                 r->halt_path);
    /* a run that should halt before it starts does not start when it may end the job */
    int halt = 0;
    if (scr_run_halt_check_at_start(r, &halt) == SCR_SUCCESS && halt && r->halt_exit) {
        SCR_Finalize();
        MPI_Finalize();
        exit(0);
    }
    if (r->rank == 0) say_what_is_not_available(r);
    if (r->rank == 0)
        scr_dbg(1, "SCR %s ready: %d ranks on %d nodes, prefix %s, cache %s, control %s",
                PACKAGE_VERSION, r->ranks, r->nodes, r->prefix, r->cache_dir, r->cntl_dir);
    return SCR_SUCCESS;
out:
    free_run(r);
    return rc;
}

/* --- SCR_Finalize --------------------------------------------------------------- */

/* The newest checkpoint in cache, 0 if none. */
static int newest_cached_checkpoint(int *out_id)
{
    int *ids = NULL, n = 0, mine = 0;
    if (scr_filemap_list_datasets(run->map, &ids, &n) == SCR_SUCCESS) {
        for (int i = 0; i < n; i++) {
            const scr_dataset *d = NULL;
            if (ids[i] > mine && scr_filemap_get_dataset(run->map, ids[i], run->rank, &d) == SCR_SUCCESS &&
                scr_dataset_is_checkpoint(d))
                mine = ids[i];
        }
    }
    free(ids);
    return scr_mpi_check(MPI_Allreduce(&mine, out_id, 1, MPI_INT, MPI_MAX, run->world),
                         "finding the newest checkpoint");
}

/* SCR_FLUSH set: the newest checkpoint in cache goes to the prefix unless it
 * is there already. Collective; all ranks agree on the outcome. */
static int flush_at_finalize(void)
{
    int newest = 0, flushed = 1;
    int rc = newest_cached_checkpoint(&newest); /* all ranks agree */
    if (rc != SCR_SUCCESS || newest == 0) return rc;
    rc = scr_flush_is_flushed(run, newest, &flushed); /* all ranks agree */
    if (rc != SCR_SUCCESS || flushed) return rc;
    run->dset_in_cache = 1;
    rc = scr_flush_dataset(run, newest); /* all ranks agree */
    /* abandoned by the watchdog: it stays in cache for the next run or the scavenge */
    if (rc == SCR_ERR_TIMEOUT) return SCR_SUCCESS;
    return rc;
}

int SCR_Finalize(void)
{
    if (scr_disabled) {
        scr_disabled = 0;
        return SCR_SUCCESS;
    }
    if (run == NULL || run->state != SCR_STATE_IDLE) return wrong_state("SCR_Finalize", closing_call());
    int rc = run->flush_every > 0 ? flush_at_finalize() : SCR_SUCCESS;
    scr_run_event(run, SCR_EVENT_FINALIZE, rc == SCR_SUCCESS ? SCR_EVENT_OK : SCR_EVENT_FAILED, 0, NULL, -1,
                  scr_run_now() - run->time_start, rc == SCR_SUCCESS ? NULL : "the final flush failed", NULL, 0);
    int hrc = scr_run_halt_mark_finalized(run);
    if (hrc != SCR_SUCCESS) scr_warn("could not record SCR_FINALIZE_CALLED in %s", run->halt_path);
    int brc = scr_mpi_check(MPI_Barrier(run->world), "MPI_Barrier in SCR_Finalize");
    if (rc == SCR_SUCCESS) rc = brc;
    free_run(run);
    run = NULL;
    scr_finalized = 1;
    return rc;
}

/* --- policy ------------------------------------------------------------------- */

int SCR_Need_checkpoint(int *flag)
{
    if (flag == NULL) {
        scr_err("SCR_Need_checkpoint called without a flag to set");
        return SCR_ERR_ARG;
    }
    *flag = 0;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE)
        return wrong_state("SCR_Need_checkpoint", closing_call());
    return scr_run_halt_need_checkpoint(run, flag);
}

int SCR_Should_exit(int *flag)
{
    if (flag == NULL) {
        scr_err("SCR_Should_exit called without a flag to set");
        return SCR_ERR_ARG;
    }
    *flag = 0;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL) return wrong_state("SCR_Should_exit", "SCR_Init");
    return scr_run_halt_check(run, flag);
}

/* --- output and checkpoints --------------------------------------------------- */

/* Rank 0: is name used by another dataset of the index? */
static int name_in_index(const char *name)
{
    scr_kvtree *index = scr_kvtree_new();
    int id = 0, used = 0;
    if (index != NULL && scr_index_file_read(run->index_path, index) == SCR_SUCCESS &&
        scr_index_file_lookup_id(index, name, &id) == SCR_SUCCESS)
        used = id;
    scr_kvtree_delete(index);
    return used;
}

/* A new dataset descriptor for the next id. */
static int new_dataset(const char *name, int flags, scr_dataset **out)
{
    scr_dataset *d = scr_dataset_new();
    if (d == NULL) return SCR_ERR_NOMEM;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    /* SCR_JOB_NAME and SCR_CLUSTER_NAME from any layer (a config file, too),
     * else what Slurm says */
    const char *jobname = NULL, *cluster = NULL;
    if (scr_config_get(run->cfg, "SCR_JOB_NAME", &jobname) != SCR_SUCCESS) jobname = getenv("SLURM_JOB_NAME");
    if (scr_config_get(run->cfg, "SCR_CLUSTER_NAME", &cluster) != SCR_SUCCESS)
        cluster = getenv("SLURM_CLUSTER_NAME");
    int rc = scr_dataset_set_id(d, run->dataset_id);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_name(d, name);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_flags(d, flags);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_created(d, (int64_t)tv.tv_sec * 1000000 + tv.tv_usec);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_dataset_set_username(d, run->user);
    if (rc != SCR_SUCCESS) goto out;
    if (jobname != NULL && jobname[0] != '\0') {
        rc = scr_dataset_set_jobname(d, jobname);
        if (rc != SCR_SUCCESS) goto out;
    }
    if (cluster != NULL && cluster[0] != '\0') {
        rc = scr_dataset_set_cluster(d, cluster);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_dataset_set_jobid(d, run->jobid);
    if (rc != SCR_SUCCESS) goto out;
    if (flags & SCR_FLAG_CHECKPOINT) {
        rc = scr_dataset_set_ckpt(d, run->checkpoint_id);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_dataset_set_complete(d, 0);
    if (rc != SCR_SUCCESS) goto out;
    *out = d;
    return SCR_SUCCESS;
out:
    scr_dataset_delete(d);
    return rc;
}

/* This rank's filemap learns dataset id (its descriptor d, and when it is
 * in cache the record of red, which names the store, so the dataset's
 * directory is known from here on, also after a crash) and is saved; the
 * directory in cache is made. */
static int record_new_dataset(int id, scr_dataset *d, const struct scr_reddesc *red)
{
    scr_kvtree *record = NULL;
    char *dsdir = NULL;
    int rc = scr_filemap_set_dataset(run->map, id, run->rank, d);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_expected_files(run->map, id, run->rank, 0);
    if (rc != SCR_SUCCESS) return rc;
    if (run->dset_in_cache) {
        rc = scr_reddesc_to_record(red, &record);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(run->map, id, run->rank, record);
        scr_kvtree_delete(record);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_cache_save_filemap(run);
    if (rc != SCR_SUCCESS || !run->dset_in_cache) return rc;
    rc = scr_cache_prepare_dataset_dir(run, id, &dsdir);
    free(dsdir);
    return rc;
}

int SCR_Start_output(const char *name, int flags)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE)
        return wrong_state("SCR_Start_output", closing_call());
    int bad = (flags & ~(SCR_FLAG_CHECKPOINT | SCR_FLAG_OUTPUT)) != 0 || flags == SCR_FLAG_NONE;
    if (bad || (name != NULL && (name[0] == '\0' || strlen(name) >= SCR_MAX_FILENAME))) {
        if (bad) scr_err("SCR_Start_output: flags %d must be SCR_FLAG_CHECKPOINT, SCR_FLAG_OUTPUT or both", flags);
        else scr_err("SCR_Start_output: a dataset name must have 1 to %d characters", SCR_MAX_FILENAME - 1);
        return SCR_ERR_ARG;
    }
    /* a restart is only offered before the first new dataset */
    run->restart_decided = 1;
    run->restart_id = 0;
    run->dataset_id++;
    if (flags & SCR_FLAG_CHECKPOINT) run->checkpoint_id++;
    char defname[64];
    if (name == NULL) {
        snprintf(defname, sizeof(defname), "scr.dataset.%d", run->dataset_id);
        name = defname;
    }
    /* a name the index already has is taken over when this dataset is
     * flushed: it is written to the same paths, so the older entry would no
     * longer describe the files there (run_flush.c) */
    run->dset_in_cache = !run->cache_bypass;
    run->time_ckpt_start = scr_run_now();
    /* SCR_CACHE_SIZE counts checkpoints: an output-only dataset leaves the
     * cache once flushed and must not push out the checkpoint kept there */
    int is_ckpt = (flags & SCR_FLAG_CHECKPOINT) != 0;
    const struct scr_reddesc *red = scr_reddesc_for(run->reddescs, run->nreddescs, run->dataset_id,
                                                    !is_ckpt);
    int rc = SCR_SUCCESS;
    if (run->dset_in_cache && is_ckpt) rc = scr_cache_make_room(run, red->store);
    /* rank 0 describes the dataset, so every copy of the descriptor is the same */
    scr_dataset *d = NULL;
    if (rc == SCR_SUCCESS && run->rank == 0) rc = new_dataset(name, flags, &d);
    /* all ranks agree: */
    rc = all_agree(run, rc, SCR_FAILURE);
    if (rc == SCR_SUCCESS) rc = scr_comm_bcast_kvtree(&d, 0, run->world);
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(d);
        return rc;
    }
    int id = run->dataset_id;
    rc = record_new_dataset(id, d, red);
    /* all ranks agree: */
    rc = all_agree(run, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(d);
        scr_cache_delete_dataset(run, id);
        return rc;
    }
    scr_dataset_delete(run->dset);
    run->dset = d;
    run->state = SCR_STATE_OUTPUT;
    scr_run_event(run, is_ckpt ? SCR_EVENT_CHECKPOINT_START : SCR_EVENT_OUTPUT_START, NULL, id, name, -1, -1,
                  NULL, NULL, 0);
    return SCR_SUCCESS;
}

int SCR_Start_checkpoint(void)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE)
        return wrong_state("SCR_Start_checkpoint", closing_call());
    return SCR_Start_output(NULL, SCR_FLAG_CHECKPOINT);
}

/* One file of this rank's part of dataset id: its size, its CRC (with
 * SCR_CRC_ON_COPY, through buf) and whether it is complete, in its meta; a
 * file routed but never written makes *valid 0. *out_bytes grows by its size. */
static int seal_file(int id, const char *file, void *buf, int *valid, uint64_t *out_bytes)
{
    const scr_meta *stored = NULL;
    struct stat st;
    int exists = 0;
    scr_meta *meta = scr_meta_new();
    if (meta == NULL) return SCR_ERR_NOMEM;
    int rc = scr_filemap_get_meta(run->map, id, run->rank, file, &stored);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_copy(meta, stored);
    if (rc != SCR_SUCCESS) goto out;
    exists = stat(file, &st) == 0;
    if (!exists) {
        const char *orig = file;
        scr_meta_get_orig(meta, &orig);
        scr_err("file %s was routed (as %s) but never written", orig, file);
        *valid = 0;
    } else {
        rc = scr_meta_set_filesize(meta, (uint64_t)st.st_size);
        *out_bytes += (uint64_t)st.st_size;
        if (rc != SCR_SUCCESS) goto out;
        if (run->crc_on_copy) {
            struct scr_copy_result got;
            rc = scr_crc_file(file, buf, run->file_buf_size, &got);
            if (rc != SCR_SUCCESS) goto out;
            rc = scr_meta_set_crc32(meta, got.crc);
            if (rc != SCR_SUCCESS) goto out;
        }
    }
    rc = scr_meta_set_complete(meta, *valid && exists);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_filemap_set_meta(run->map, id, run->rank, file, meta);
out:
    scr_meta_delete(meta);
    return rc;
}

/* Record size, completeness and (SCR_CRC_ON_COPY, in a pass of its own as
 * SCR does) CRC of this rank's files. Without SCR_CRC_ON_COPY the CRCs come
 * later: from the redundancy encoding, which reads every byte anyway, else
 * from the flush or scr_crc_fill (SCR_Complete_output). */
static int seal_my_files(int id, int *valid, uint64_t *out_bytes, int *out_files)
{
    const char **files = NULL;
    void *buf = NULL;
    int nfiles = 0;
    *out_bytes = 0;
    int rc = scr_filemap_list_files(run->map, id, run->rank, &files, &nfiles);
    if (rc != SCR_SUCCESS) goto out;
    if (run->crc_on_copy && nfiles > 0) {
        buf = malloc(run->file_buf_size);
        if (buf == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
    }
    for (int f = 0; f < nfiles; f++) {
        rc = seal_file(id, files[f], buf, valid, out_bytes);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_filemap_set_expected_files(run->map, id, run->rank, nfiles);
out:
    free(buf);
    free(files);
    *out_files = nfiles;
    return rc;
}

/* scr_crc_fill on every rank, which agree on the outcome. */
static int fill_crcs(int id)
{
    int rc = scr_crc_fill(run, id), ok = 0;
    int mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    if (!ok && run->rank == 0) scr_err("dataset %d: the CRCs of its files could not be recorded on every rank", id);
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}

/* The dataset's size, file count and completeness, in its descriptor and
 * this rank's filemap, which is saved. */
static int record_totals(int id, uint64_t bytes, int files, int complete)
{
    int rc = scr_dataset_set_size(run->dset, bytes);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_dataset_set_files(run->dset, files);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_dataset_set_complete(run->dset, complete);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_dataset(run->map, id, run->rank, run->dset);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

int SCR_Complete_output(int valid)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_OUTPUT)
        return wrong_state("SCR_Complete_output", "SCR_Start_output");
    run->state = SCR_STATE_IDLE;
    int id = run->dataset_id, nfiles = 0;
    uint64_t bytes = 0;
    int mine_valid = valid ? 1 : 0;
    const char *name = "?";
    scr_dataset_get_name(run->dset, &name);
    /* a file several ranks write (one shared file) has its size only once
     * every rank is done with it */
    int rc = scr_mpi_check(MPI_Barrier(run->world), "waiting for every rank's files");
    if (rc != SCR_SUCCESS) return rc;
    /* a file routed on several nodes is in pieces, one per node's cache */
    int shared = 0;
    if (run->dset_in_cache) {
        rc = scr_shared_file_check(run, id, name, &shared);
        if (rc != SCR_SUCCESS) return rc;
        if (shared) mine_valid = 0;
    }
    rc = seal_my_files(id, &mine_valid, &bytes, &nfiles);
    if (rc != SCR_SUCCESS) mine_valid = 0;

    /* every rank learns the totals and whether every rank succeeded */
    unsigned long long sums[2] = {bytes, (unsigned long long)nfiles}, totals[2] = {0, 0};
    int all_valid = 0;
    int mrc = scr_comm_all_true(mine_valid, run->world, &all_valid);
    if (mrc == SCR_SUCCESS)
        mrc = scr_mpi_check(MPI_Allreduce(sums, totals, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, run->world),
                            "adding up the dataset's size");
    if (mrc != SCR_SUCCESS) return mrc;
    int is_ckpt = scr_dataset_is_checkpoint(run->dset), is_output = scr_dataset_is_output(run->dset);
    rc = record_totals(id, totals[0], totals[1] > INT_MAX ? INT_MAX : (int)totals[1], all_valid);
    int ok = 0;
    /* all ranks agree: */
    mrc = scr_comm_all_true(rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;

    const char *done_event = is_ckpt ? SCR_EVENT_CHECKPOINT_COMPLETE : SCR_EVENT_OUTPUT_COMPLETE;
    double seconds = scr_run_now() - run->time_ckpt_start;
    if (!all_valid || !ok) {
        scr_run_event(run, done_event, SCR_EVENT_FAILED, id, name, (long long)totals[0], seconds,
                      !all_valid ? "not valid on every rank" : "its record could not be written", NULL, 0);
        if (run->rank == 0)
            scr_err("dataset %d (%s) is not valid on every rank; it is deleted and will not be "
                    "used to restart", id, name);
        scr_cache_delete_dataset(run, id);
        scr_cache_note_location(run, id, 0, 0, 0);
        return SCR_FAILURE;
    }
    struct scr_event_field files_field[] = {SCR_EVENT_INT("files", (long long)totals[1])};
    scr_run_event(run, done_event, SCR_EVENT_OK, id, name, (long long)totals[0], seconds, NULL, files_field, 1);
    if (is_ckpt) {
        double now = scr_run_now();
        run->time_in_ckpt += now - run->time_ckpt_start;
        run->time_last_ckpt_end = now;
        scr_run_halt_count_checkpoint(run);
    }
    /* output always goes to the prefix; checkpoints every SCR_FLUSH of them */
    int ckpt_id = 0;
    scr_dataset_get_ckpt(run->dset, &ckpt_id);
    int flush = !run->dset_in_cache || is_output ||
                (is_ckpt && run->flush_every > 0 && ckpt_id % run->flush_every == 0);

    /* protect the dataset in cache before anything else can go wrong; the
     * encoding records every file's CRC on the way */
    rc = SCR_SUCCESS;
    if (run->dset_in_cache) {
        const struct scr_reddesc *d = scr_reddesc_for(run->reddescs, run->nreddescs, id, is_output && !is_ckpt);
        rc = scr_run_apply_redundancy(run, d, id);
    }
    /* SINGLE reads nothing: the files are read once more for their CRCs,
     * unless the flush that follows computes them as it copies */
    int crc_by_flush = flush && run->crc_on_flush;
    if (rc == SCR_SUCCESS && run->dset_in_cache && !crc_by_flush) rc = fill_crcs(id);
    int nrc = scr_cache_note_location(run, id, run->dset_in_cache, 0, 0);
    if (rc == SCR_SUCCESS) rc = nrc;

    if (flush) {
        int frc = scr_flush_dataset(run, id);
        /* it stays in cache unflushed, and still gets its CRCs */
        if (frc != SCR_SUCCESS && run->dset_in_cache && crc_by_flush) fill_crcs(id);
        /* the watchdog gave up on a prefix that stopped answering: the
         * dataset is safe in cache, and the application goes on with it */
        int abandoned = frc == SCR_ERR_TIMEOUT && run->dset_in_cache;
        if (frc != SCR_SUCCESS && !abandoned) return frc;
        if (!abandoned && is_output && !is_ckpt && run->dset_in_cache) {
            scr_cache_delete_dataset(run, id);
            scr_cache_note_location(run, id, 0, 1, 0);
        }
    }
    if (is_ckpt && run->halt_exit) {
        int halt = 0;
        if (scr_run_halt_check(run, &halt) == SCR_SUCCESS && halt) {
            if (run->rank == 0) scr_warn("halt condition holds and SCR_HALT_EXIT=1: exiting");
            SCR_Finalize();
            MPI_Finalize();
            exit(0);
        }
    }
    return rc;
}

int SCR_Complete_checkpoint(int valid)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_OUTPUT)
        return wrong_state("SCR_Complete_checkpoint", "SCR_Start_checkpoint");
    return SCR_Complete_output(valid);
}

/* --- Route_file ------------------------------------------------------------------ */

static int copy_result(const char *path, char *file)
{
    size_t n = strlen(path);
    if (n >= SCR_MAX_FILENAME) {
        scr_err("SCR_Route_file: the path %s is longer than SCR_MAX_FILENAME (%d)", path,
                SCR_MAX_FILENAME);
        return SCR_ERR_ARG;
    }
    memcpy(file, path, n + 1);
    return SCR_SUCCESS;
}

/* name as an absolute, normalised path (relative: against the current directory). */
static int absolute_path(const char *name, char **out)
{
    if (name[0] == '/') return scr_path_normalize(name, out);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        scr_err("cannot find the current directory: %s", strerror(errno));
        return SCR_ERR_IO;
    }
    return scr_path_join(cwd, name, out);
}

/* Register name in the open dataset and give the path to write it at. */
/* The meta of a file SCR_Route_file hands out for the dataset being
 * written (*out_meta, new): name as the application gave it, abs its
 * absolute path, rel its path under the prefix. */
static int new_file_meta(const char *name, const char *abs, const char *rel, scr_meta **out_meta)
{
    char *odir = NULL, *base = NULL;
    int ckpt = 0;
    scr_meta *meta = scr_meta_new();
    if (meta == NULL) return SCR_ERR_NOMEM;
    int rc = scr_path_dirname(abs, &odir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_basename(abs, &base);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_filename(meta, rel);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_filetype(meta, SCR_META_TYPE_FULL);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_complete(meta, 0);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_rank(meta, run->rank);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_ranks(meta, run->ranks);
    if (rc != SCR_SUCCESS) goto out;
    if (scr_dataset_get_ckpt(run->dset, &ckpt) == SCR_SUCCESS) {
        rc = scr_meta_set_checkpoint(meta, ckpt);
        if (rc != SCR_SUCCESS) goto out;
    }
    rc = scr_meta_set_origpath(meta, odir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_origname(meta, base);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_meta_set_orig(meta, name);
    if (rc != SCR_SUCCESS) goto out;
    *out_meta = meta;
    meta = NULL;
out:
    scr_meta_delete(meta);
    free(odir);
    free(base);
    return rc;
}

/* dest joins this rank's filemap for dataset id, with meta, and the
 * filemap is saved: the file is listed before the caller can create it. */
static int list_new_file(int id, const char *dest, const scr_meta *meta)
{
    int rc = scr_filemap_add_file(run->map, id, run->rank, dest);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_meta(run->map, id, run->rank, dest, meta);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

static int route_output(const char *name, char **out_path)
{
    int id = run->dataset_id, inside = 0;
    char *abs = NULL, *rel = NULL, *dest = NULL, *dsdir = NULL, *dir = NULL;
    scr_meta *meta = NULL;
    int rc = absolute_path(name, &abs);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_path_is_inside(run->prefix, abs, &inside);
    if (rc != SCR_SUCCESS) goto out;
    if (!inside || strcmp(abs, run->prefix) == 0) {
        scr_err("SCR_Route_file: %s is not a file inside the prefix %s", abs, run->prefix);
        rc = SCR_ERR_ARG;
        goto out;
    }
    rc = scr_path_relative(run->prefix, abs, &rel);
    if (rc != SCR_SUCCESS) goto out;
    if (run->dset_in_cache) {
        rc = scr_cache_dataset_dir(run, id, &dsdir);
        if (rc != SCR_SUCCESS) goto out;
        rc = scr_path_join(dsdir, rel, &dest);
        if (rc != SCR_SUCCESS) goto out;
    } else {
        dest = strdup(abs);
        if (dest == NULL) {
            rc = SCR_ERR_NOMEM;
            goto out;
        }
    }
    rc = scr_path_dirname(dest, &dir);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_mkdir_p(dir, run->dset_in_cache ? 0700 : 0777);
    if (rc != SCR_SUCCESS) goto out;
    if (!scr_filemap_have_file(run->map, id, run->rank, dest)) {
        rc = new_file_meta(name, abs, rel, &meta);
        if (rc != SCR_SUCCESS) goto out;
        rc = list_new_file(id, dest, meta);
        if (rc != SCR_SUCCESS) goto out;
    }
    *out_path = dest;
    dest = NULL;
out:
    scr_meta_delete(meta);
    free(abs);
    free(rel);
    free(dsdir);
    free(dir);
    free(dest);
    return rc;
}

/* The restart file called name: a bare name, or its original path. */
static int route_restart(const char *name, char **out_path)
{
    char *abs = NULL;
    int rc = absolute_path(name, &abs);
    if (rc != SCR_SUCCESS) return rc;
    int bare = strchr(name, '/') == NULL;
    const char *found = NULL;
    char *hit = NULL;
    if (run->restart_source == SCR_RESTART_PREFIX) {
        scr_kvtree_util_get_str(scr_kvtree_get_kv(run->restart_files, "ORIG", abs), "PATH", &found);
        if (found == NULL && bare)
            scr_kvtree_util_get_str(scr_kvtree_get_kv(run->restart_files, "NAME", name), "PATH", &found);
    } else {
        const char **files = NULL;
        int n = 0;
        scr_filemap_list_files(run->map, run->restart_id, run->rank, &files, &n);
        for (int f = 0; f < n && found == NULL; f++) {
            const scr_meta *meta = NULL;
            const char *odir = NULL, *oname = NULL;
            char *orig = NULL;
            if (scr_filemap_get_meta(run->map, run->restart_id, run->rank, files[f], &meta) != SCR_SUCCESS ||
                scr_meta_get_origpath(meta, &odir) != SCR_SUCCESS ||
                scr_meta_get_origname(meta, &oname) != SCR_SUCCESS)
                continue;
            if (scr_path_join(odir, oname, &orig) == SCR_SUCCESS &&
                (strcmp(orig, abs) == 0 || (bare && strcmp(oname, name) == 0)))
                found = files[f];
            free(orig);
        }
        if (found != NULL && (hit = strdup(found)) == NULL) rc = SCR_ERR_NOMEM;
        found = hit;
        free(files);
    }
    if (rc == SCR_SUCCESS && (found == NULL || access(found, R_OK) != 0)) {
        scr_err("SCR_Route_file: rank %d has no file %s in checkpoint %s", run->rank, name,
                run->restart_name);
        rc = SCR_ERR_NOTFOUND;
    }
    if (rc == SCR_SUCCESS && (*out_path = strdup(found)) == NULL) rc = SCR_ERR_NOMEM;
    free(hit);
    free(abs);
    return rc;
}

int SCR_Route_file(const char *name, char *file)
{
    if (name == NULL || file == NULL) {
        scr_err("SCR_Route_file called without a name or a buffer for the result");
        return SCR_ERR_ARG;
    }
    if (name[0] == '\0' || strlen(name) >= SCR_MAX_FILENAME) {
        scr_err("SCR_Route_file: a file name must have 1 to %d characters", SCR_MAX_FILENAME - 1);
        return SCR_ERR_ARG;
    }
    if (scr_disabled || run == NULL || run->state == SCR_STATE_IDLE) {
        if (!scr_disabled && run == NULL) return wrong_state("SCR_Route_file", "SCR_Init");
        return copy_result(name, file);
    }
    char *path = NULL;
    int rc = run->state == SCR_STATE_OUTPUT ? route_output(name, &path) : route_restart(name, &path);
    if (rc == SCR_SUCCESS) rc = copy_result(path, file);
    free(path);
    return rc;
}

/* --- restart ---------------------------------------------------------------------- */

int SCR_Have_restart(int *flag, char *name)
{
    if (flag == NULL) {
        scr_err("SCR_Have_restart called without a flag to set");
        return SCR_ERR_ARG;
    }
    *flag = 0;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE) return wrong_state("SCR_Have_restart", closing_call());
    int rc = scr_fetch_decide_restart(run);
    if (rc != SCR_SUCCESS) return rc;
    *flag = run->restart_id > 0;
    if (*flag && name != NULL) snprintf(name, SCR_MAX_FILENAME, "%s", run->restart_name);
    return SCR_SUCCESS;
}

int SCR_Start_restart(char *name)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE) return wrong_state("SCR_Start_restart", closing_call());
    int rc = scr_fetch_decide_restart(run);
    if (rc != SCR_SUCCESS) return rc;
    if (run->restart_id <= 0) {
        scr_err("SCR_Start_restart called with no checkpoint to restart from; "
                "expected SCR_Have_restart to say there is one first");
        return SCR_ERR_STATE;
    }
    if (name != NULL) snprintf(name, SCR_MAX_FILENAME, "%s", run->restart_name);
    run->state = SCR_STATE_RESTART;
    return SCR_SUCCESS;
}

int SCR_Complete_restart(int valid)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_RESTART)
        return wrong_state("SCR_Complete_restart", "SCR_Start_restart");
    run->state = SCR_STATE_IDLE;
    int all = 0, id = run->restart_id;
    int rc = scr_comm_all_true(valid, run->world, &all);
    if (rc != SCR_SUCCESS) return rc;
    run->restart_id = 0; /* a restart is read once */
    if (all) return SCR_SUCCESS;
    if (run->rank == 0) {
        scr_err("a rank could not read checkpoint %s; it is marked failed, and SCR_Have_restart "
                "offers an older checkpoint if there is one", run->restart_name);
        scr_fetch_record(run, id, 0); /* a dataset only in cache is not in the index */
    }
    if (run->restart_source == SCR_RESTART_CACHE) {
        scr_cache_delete_dataset(run, id);
        scr_cache_note_location(run, id, 0, 0, 0);
    }
    /* as in SCR, the application may loop: the next SCR_Have_restart
     * decides again, among the checkpoints older than this one */
    run->restart_below = id;
    run->restart_decided = 0;
    return SCR_FAILURE;
}

/* --- managing datasets -------------------------------------------------------------- */

int SCR_Current(const char *name)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE || run->restart_decided || run->restart_below > 0)
        return wrong_state("SCR_Current", run && run->state == SCR_STATE_IDLE
                                              ? "SCR_Init (SCR_Current must come before SCR_Have_restart)"
                                              : closing_call());
    if (name == NULL || name[0] == '\0') {
        scr_err("SCR_Current called without a dataset name");
        return SCR_ERR_ARG;
    }
    /* the dataset must exist, in cache or in the index */
    int known = run->rank == 0 ? name_in_index(name) : 0;
    int rc = scr_mpi_check(MPI_Bcast(&known, 1, MPI_INT, 0, run->world), "looking up a dataset");
    if (rc != SCR_SUCCESS) return rc;
    if (!known) {
        known = scr_cache_id_of_name(run, name, 0);
        int any = 0;
        rc = scr_mpi_check(MPI_Allreduce(&known, &any, 1, MPI_INT, MPI_MAX, run->world),
                           "looking up a dataset in cache");
        if (rc != SCR_SUCCESS) return rc;
        known = any;
    }
    if (!known) {
        if (run->rank == 0) scr_err("SCR_Current: no dataset named '%s' in cache or on %s", name, run->prefix);
        return SCR_ERR_NOTFOUND;
    }
    free(run->current_name);
    run->current_name = strdup(name);
    /* all ranks agree: drop_after_current is collective */
    int ok = 0;
    rc = scr_comm_all_true(run->current_name != NULL, run->world, &ok);
    if (rc != SCR_SUCCESS) return rc;
    if (!ok) {
        if (run->current_name == NULL) scr_err("SCR_Current: out of memory");
        return SCR_ERR_NOMEM;
    }
    return drop_after_current(run, run->current_name);
}

struct drop {
    const char *name;
    int id;
};

static int drop_named(scr_kvtree *index, void *ctx)
{
    struct drop *d = ctx;
    if (scr_index_file_lookup_id(index, d->name, &d->id) != SCR_SUCCESS) return SCR_ERR_NOTFOUND;
    return scr_index_file_remove(index, d->id);
}

/* Rank 0: remove the dataset called name from the index; *out_id its id. */
static int drop_from_index(const char *name, int *out_id)
{
    struct drop d = {name, 0};
    int rc = scr_index_file_update(run->index_path, drop_named, &d);
    *out_id = d.id;
    return rc;
}

int SCR_Drop(const char *name)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE) return wrong_state("SCR_Drop", closing_call());
    if (name == NULL) {
        scr_err("SCR_Drop called without a dataset name");
        return SCR_ERR_ARG;
    }
    int id = 0, rc = SCR_SUCCESS;
    if (run->rank == 0) {
        rc = drop_from_index(name, &id);
        if (rc == SCR_ERR_NOTFOUND) scr_err("SCR_Drop: no dataset named '%s' in %s", name, run->index_path);
    }
    int code = rc;
    int mrc = scr_mpi_check(MPI_Bcast(&code, 1, MPI_INT, 0, run->world), "sharing the outcome of SCR_Drop");
    return mrc != SCR_SUCCESS ? mrc : code;
}

/* This rank's files of dataset id on the prefix, as its rank filemap lists them. */
static void delete_my_prefix_files(int id)
{
    char dname[64], *dsdir = NULL, *path = NULL;
    snprintf(dname, sizeof(dname), "scr.dataset.%d", id);
    scr_filemap *rmap = scr_filemap_new();
    if (rmap != NULL && scr_path_join(run->prefix_scr, dname, &dsdir) == SCR_SUCCESS &&
        scr_rank_filemap_path(dsdir, run->rank, &path) == SCR_SUCCESS &&
        scr_rank_filemap_read(path, rmap) == SCR_SUCCESS) {
        struct scr_rank_filemap_file *files = NULL;
        int n = 0;
        scr_rank_filemap_list_files(rmap, id, run->rank, &files, &n);
        for (int f = 0; f < n; f++) {
            char *file = NULL;
            if (scr_rank_filemap_file_path(dsdir, files[f].name, &file) == SCR_SUCCESS &&
                unlink(file) != 0 && errno != ENOENT)
                scr_warn("cannot delete %s: %s", file, strerror(errno));
            free(file);
        }
        free(files);
        if (unlink(path) != 0 && errno != ENOENT) scr_warn("cannot delete %s: %s", path, strerror(errno));
    }
    free(path);
    free(dsdir);
    scr_filemap_delete(rmap);
}

int SCR_Delete(const char *name)
{
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || run->state != SCR_STATE_IDLE) return wrong_state("SCR_Delete", closing_call());
    if (name == NULL) {
        scr_err("SCR_Delete called without a dataset name");
        return SCR_ERR_ARG;
    }
    /* which dataset: from the index, else from the cache */
    int id = run->rank == 0 ? name_in_index(name) : 0;
    int rc = scr_mpi_check(MPI_Bcast(&id, 1, MPI_INT, 0, run->world), "looking up a dataset");
    if (rc != SCR_SUCCESS) return rc;
    int in_index = id > 0;
    if (!in_index) {
        int mine = 0;
        mine = scr_cache_id_of_name(run, name, 0);
        rc = scr_mpi_check(MPI_Allreduce(&mine, &id, 1, MPI_INT, MPI_MAX, run->world), "looking up a dataset");
        if (rc != SCR_SUCCESS) return rc;
    }
    if (id == 0) {
        if (run->rank == 0) scr_err("SCR_Delete: no dataset named '%s' in cache or on %s", name, run->prefix);
        return SCR_ERR_NOTFOUND;
    }
    /* the index entry goes first: a crash then leaves files nobody lists,
     * never an entry naming files that are gone */
    if (in_index) {
        int dropped = 0, drop_rc = SCR_SUCCESS;
        if (run->rank == 0) drop_rc = drop_from_index(name, &dropped);
        rc = scr_mpi_check(MPI_Bcast(&drop_rc, 1, MPI_INT, 0, run->world), "sharing the outcome of SCR_Delete");
        if (rc == SCR_SUCCESS && drop_rc != SCR_SUCCESS) {
            if (run->rank == 0) scr_err("SCR_Delete: cannot remove '%s' from %s; nothing was deleted", name,
                                        run->index_path);
            return drop_rc;
        }
    }
    int drc = scr_cache_delete_dataset(run, id);
    int nrc = scr_cache_note_location(run, id, 0, 0, 0);
    if (drc == SCR_SUCCESS) drc = nrc;
    /* the restart SCR_Init found in cache was this dataset: the next newest
     * checkpoint in cache (all of them are intact after SCR_Init) takes its place */
    if (!run->restart_decided && run->restart_id == id) {
        rc = newest_cached_checkpoint(&run->restart_id);
        if (rc != SCR_SUCCESS) return rc;
    }
    if (rc == SCR_SUCCESS && in_index) {
        delete_my_prefix_files(id);
        rc = scr_mpi_check(MPI_Barrier(run->world), "MPI_Barrier in SCR_Delete");
        if (rc == SCR_SUCCESS && run->rank == 0) {
            char dname[64], *dsdir = NULL;
            snprintf(dname, sizeof(dname), "scr.dataset.%d", id);
            if (scr_path_join(run->prefix_scr, dname, &dsdir) == SCR_SUCCESS &&
                nftw(dsdir, purge_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
                scr_warn("SCR_Delete: could not remove all of %s", dsdir);
            free(dsdir);
        }
    }
    int ok = 0;
    int mrc = scr_comm_all_true(drc == SCR_SUCCESS && rc == SCR_SUCCESS, run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}
