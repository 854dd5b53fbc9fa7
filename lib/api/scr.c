/* scr.c — the public SCR API: state machine and the calls applications make.
 *
 * States: UNINIT -> (SCR_Init) -> IDLE; IDLE -> Start_output/checkpoint ->
 * OUTPUT -> Complete_* -> IDLE; IDLE -> Start_restart -> RESTART ->
 * Complete_restart -> IDLE; IDLE -> SCR_Finalize -> UNINIT. A call in the
 * wrong state returns SCR_ERR_STATE and says which call was expected; it
 * never aborts. With SCR_ENABLE=0 every call succeeds and does nothing, and
 * SCR_Route_file returns names unchanged. */
#define _GNU_SOURCE /* vasprintf */
#include "build_config.h"
#include "run_cache.h"
#include "run_crc_async.h"
#include "run_events.h"
#include "run_shared.h"
#include "scr.h"

#include "complete.h"
#include "flush_async.h"
#include "config.h"
#include "params.h"
#include "dataset_claim.h"
#include "index_file.h"
#include "index_rebuild.h"
#include "scavenge_job.h"
#include "kvtree_util.h"
#include "job_env.h"
#include "meta.h"
#include "mpi_comm.h"
#include "mpi_split.h"
#include "job_file.h"
#include "nodes_file.h"
#include "prefix_trim.h"
#include "scr_err.h"
#include "run_encode_async.h"
#include "api_state.h"
#include "scr_run.h"
#include "transfer.h"
#include "run_halt.h"
#include "scr_init.h"
#include "summary.h"
#include "util_io.h"
#include "util_log.h"
#include "util_path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
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

static struct scr_api *the_api;  /* between SCR_Init and SCR_Finalize (api_state.h) */
static int scr_disabled;         /* SCR_ENABLE=0 was found at SCR_Init */
static scr_config *early_config; /* SCR_Config calls before SCR_Init */
static int scr_finalized;        /* SCR_Finalize has run */

static const char *const state_names[] = {"before SCR_Init", "outside any phase",
                                          "inside a restart phase", "inside an output phase"};

/* The wrong call for the state: one line, naming what was expected. */
static int wrong_state(const struct scr_api *api, const char *call, const char *expected)
{
    enum scr_api_state st = api != NULL ? api->state : SCR_STATE_UNINIT;
    if (api == NULL && scr_finalized)
        scr_err("%s called after SCR_Finalize; SCR calls end with SCR_Finalize", call);
    else
        scr_err("%s called %s; expected %s first", call, state_names[st], expected);
    return SCR_ERR_STATE;
}

/* What a phase must be closed with, for messages. */
static const char *closing_call(const struct scr_api *api)
{
    if (api == NULL) return "SCR_Init";
    if (api->state == SCR_STATE_RESTART) return "SCR_Complete_restart";
    if (api->state == SCR_STATE_OUTPUT) return "SCR_Complete_output (or SCR_Complete_checkpoint)";
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

#define CONFIG_MSG_TEXT "TEXT"   /* rank 0's SCR_Config string */
#define CONFIG_MSG_FILES "FILES" /* the files' layers, when the string needs them */

/* Rank 0: the message every rank gets before it applies config: the string
 * and, for a question or a change of a table, the files as read now. */
static int config_message(const char *config, scr_kvtree **out_msg)
{
    scr_kvtree *msg = scr_kvtree_new(), *files = NULL;
    int rc = msg != NULL && scr_kvtree_util_set_str(msg, CONFIG_MSG_TEXT, config) == SCR_SUCCESS
                 ? SCR_SUCCESS
                 : SCR_ERR_NOMEM;
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory in SCR_Config");
    if (rc == SCR_SUCCESS && (is_question(config) || changes_a_table(config))) {
        rc = scr_config_load(early_config, NULL);
        if (rc == SCR_SUCCESS) rc = scr_config_export_files(early_config, &files);
        /* scr_kvtree_set takes files, and frees it when it cannot store it */
        if (rc == SCR_SUCCESS && scr_kvtree_set(msg, CONFIG_MSG_FILES, files) == NULL) {
            scr_err("out of memory in SCR_Config");
            rc = SCR_ERR_NOMEM;
        }
    }
    if (rc != SCR_SUCCESS)
        scr_kvtree_delete(msg);
    else
        *out_msg = msg;
    return rc;
}

/* What SCR_Config does before SCR_Init, on every rank of comm at once, as
 * in SCR 3.1: the ranks check that they all pass the same string, rank 0
 * reads the files when the string needs them (a question, a change of a
 * table) and broadcasts them, and every rank applies the string to its
 * copy. Every rank therefore holds the same settings and answers from the
 * same files: no rank reads a file that another is writing. The votes are
 * all-reductions, so no rank leaves before every rank has arrived (SCR
 * 3.1's barrier). Collective; all ranks agree on the outcome of each step
 * up to the string's own, which is the same on every rank unless their
 * environments (where $VAR is read) differ. */
static int config_collective(const char *config, MPI_Comm comm, int rank, char **out_value)
{
    scr_kvtree *msg = NULL;
    int rc = SCR_SUCCESS;
    if (rank == 0) rc = config_message(config, &msg);
    /* all ranks agree: */
    rc = scr_comm_agree(comm, rc, SCR_ERR_FORMAT);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_comm_bcast_kvtree(&msg, 0, comm);
    if (rc != SCR_SUCCESS) goto out;
    const char *text = NULL;
    scr_kvtree_util_get_str(msg, CONFIG_MSG_TEXT, &text);
    int same = text != NULL && strcmp(text, config) == 0;
    if (!same)
        scr_err("SCR_Config('%s'): rank 0 passed '%s'; SCR_Config is collective and takes the same "
                "string on every rank",
                config, text ? text : "");
    /* all ranks agree: */
    rc = scr_comm_agree(comm, same ? SCR_SUCCESS : SCR_ERR_ARG, SCR_ERR_ARG);
    if (rc != SCR_SUCCESS) {
        if (rank == 0 && same)
            scr_err("SCR_Config('%s'): another rank passed another string; nothing done", config);
        goto out;
    }
    rc = scr_init_take_rank0_files(early_config, scr_kvtree_get(msg, CONFIG_MSG_FILES), comm, rank,
                                   config);
    if (rc != SCR_SUCCESS) goto out; /* all ranks agree */
    /* the same string on the same files: what is wrong with it is reported by
     * rank 0, and by another rank only where rank 0 found nothing wrong
     * (its environment, which $VAR reads, differs) */
    if (rank != 0) scr_log_set_quiet(1);
    rc = scr_config_apply(early_config, config, out_value);
    scr_log_set_quiet(0);
    int rank0_rc = rc;
    int mrc = scr_mpi_check(MPI_Bcast(&rank0_rc, 1, MPI_INT, 0, comm),
                            "SCR_Config: broadcasting rank 0's outcome");
    if (rc != SCR_SUCCESS && rank != 0 && rank0_rc == SCR_SUCCESS)
        scr_err("SCR_Config('%s'): %s", config, scr_last_error());
    if (mrc != SCR_SUCCESS) rc = mrc;
out:
    scr_kvtree_delete(msg);
    return rc;
}

/* SCR_Config before SCR_Init: collective over MPI_COMM_WORLD once MPI is
 * up (on a duplicate, so that its messages meet no application's), the
 * calling process alone before MPI_Init and after MPI_Finalize. After
 * MPI_Finalize no SCR_Init can follow: a question is answered, a setting
 * refused with a message (it could never take effect). */
static const char *config_before_init(const char *config)
{
    if (early_config == NULL && (early_config = scr_config_new()) == NULL) return NULL;
    char *value = NULL;
    int initialized = 0, finalized = 0;
    if (scr_mpi_check(MPI_Initialized(&initialized), "MPI_Initialized") != SCR_SUCCESS) return NULL;
    if (initialized && scr_mpi_check(MPI_Finalized(&finalized), "MPI_Finalized") != SCR_SUCCESS)
        return NULL;
    if (finalized && !is_question(config)) {
        scr_err(
            "SCR_Config('%s') called after MPI_Finalize: no SCR_Init can follow, so nothing is set",
            config);
        return NULL;
    }
    if (!initialized || finalized) {
        int rc = SCR_SUCCESS;
        if (is_question(config) || changes_a_table(config))
            rc = scr_config_load(early_config, NULL);
        if (rc == SCR_SUCCESS) rc = scr_config_apply(early_config, config, &value);
        return rc == SCR_SUCCESS ? value : NULL;
    }
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int rc = scr_comm_dup(MPI_COMM_WORLD, &comm, "SCR_Config: duplicating MPI_COMM_WORLD");
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Comm_rank(comm, &rank), "SCR_Config: MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = config_collective(config, comm, rank, &value);
    if (comm != MPI_COMM_NULL &&
        scr_mpi_check(MPI_Comm_free(&comm), "SCR_Config: MPI_Comm_free") != SCR_SUCCESS)
        rc = SCR_FAILURE;
    if (rc != SCR_SUCCESS) {
        free(value);
        return NULL;
    }
    return value;
}

const char *SCR_Config(const char *config)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    /* as in SCR, no string (or a blank one) is no question and no setting */
    if (config == NULL || config[strspn(config, " \t")] == '\0') return NULL;
    if (scr_disabled) {
        /* as in SCR 3.1, SCR switched off answers nothing */
        if (!is_question(config))
            scr_err("SCR_Config('%s') called after SCR_Init; parameters are fixed by then", config);
        return NULL;
    }
    if (run == NULL) return config_before_init(config);
    /* after SCR_Init, this rank answers from the configuration the run uses */
    char *value = NULL;
    int rc = scr_config_ask(run->cfg, config, &value);
    if (rc == SCR_ERR_STATE)
        scr_err("SCR_Config('%s') called after SCR_Init: parameters are fixed by then (a question, "
                "\"KEY\", is still answered)",
                config);
    return rc == SCR_SUCCESS ? value : NULL;
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

char *SCR_Get_version(void)
{
    return (char *)SCR_VERSION;
}

/* --- SCR_Init ------------------------------------------------------------------ */

/* Forget api: its run, its flusher and what the API kept (NULL is fine). */
static void free_api(struct scr_api *api)
{
    if (api == NULL) return;
    scr_init_free_run(api->run);
    scr_flusher_free(api->flusher);
    scr_dataset_delete(api->dset);
    free(api->current_name);
    scr_kvtree_delete(api->restart.files);
    free(api);
}

/* A new api in *out (set even on failure, for free_api) and its run: the
 * run's world (a duplicate of MPI_COMM_WORLD), rank and size, and the
 * log's prefix. */
static int new_api(struct scr_api **out)
{
    struct scr_api *api = calloc(1, sizeof(*api));
    struct scr_run *r = calloc(1, sizeof(*r));
    *out = api;
    if (api == NULL || r == NULL) {
        free(r);
        scr_err("out of memory starting SCR");
        return SCR_ERR_NOMEM;
    }
    api->run = r;
    r->prefix_lock.fd = -1;
    r->world = r->node = MPI_COMM_NULL;
    char prefix[64];
    int rc = scr_comm_dup(MPI_COMM_WORLD, &r->world, "duplicating MPI_COMM_WORLD");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_rank(r->world, &r->rank), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_size(r->world, &r->ranks), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    snprintf(prefix, sizeof(prefix), "SCR rank %d", r->rank);
    scr_log_set_prefix(prefix);
    return SCR_SUCCESS;
}

/* The configuration of run r (what SCR_Config set before SCR_Init
 * included), and in *out_enabled whether SCR_ENABLE leaves SCR on.
 * Collective; all ranks agree on the outcome. */
static int configure(struct scr_run *r, int *out_enabled)
{
    r->cfg = early_config ? early_config : scr_config_new();
    early_config = NULL;
    int rc = scr_init_load_config(r); /* all ranks agree */
    if (rc != SCR_SUCCESS) {
        if (r->rank == 0) scr_err("SCR_Init failed: the configuration has errors (see above)");
        return rc;
    }
    *out_enabled = scr_params_enabled(r->cfg);
    return SCR_SUCCESS;
}

/* SCR_Init once SCR is on: the run and the flusher started, api made the
 * API's (the_api); SCR_Init began at t_init. A run that should halt before
 * it starts ends here. Collective; all ranks agree on the outcome. */
static int start_api(struct scr_api *api, double t_init)
{
    struct scr_run *r = api->run;
    int rc = scr_init_start_run(api); /* all ranks agree */
    if (rc != SCR_SUCCESS) {
        if (r->rank == 0) scr_err("SCR_Init failed");
        return rc;
    }
    /* all ranks agree: */
    rc = scr_comm_agree(r->world, scr_flusher_new(&api->flusher), SCR_ERR_NOMEM);
    if (rc != SCR_SUCCESS) return rc;
    api->time_start = api->time_last_ckpt_end = scr_run_now();
    api->state = SCR_STATE_IDLE;
    the_api = api;
    scr_init_log(api, api->time_start - t_init);
    if (scr_run_halt_clear_finalized(r) != SCR_SUCCESS)
        scr_warn(
            "could not clear SCR_FINALIZE_CALLED from %s: a relaunch may take this run as finished",
            r->halt_path);
    /* a run that should halt before it starts does not start when it may end the job */
    int halt = 0;
    if (scr_run_halt_check_at_start(api, &halt) == SCR_SUCCESS && halt && r->params->halt_exit) {
        SCR_Finalize();
        MPI_Finalize();
        exit(0);
    }
    return SCR_SUCCESS;
}

int SCR_Init(void)
{
    if (the_api != NULL)
        return wrong_state(the_api, "SCR_Init", "SCR_Finalize (SCR_Init was called already)");
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        scr_err("SCR_Init called before MPI_Init");
        return SCR_ERR_STATE;
    }
    double t_init = scr_run_now();
    struct scr_api *api = NULL;
    int enabled = 1;
    int rc = new_api(&api);
    if (rc != SCR_SUCCESS) goto out;
    rc = configure(api->run, &enabled); /* all ranks agree */
    if (rc != SCR_SUCCESS) goto out;
    if (!enabled) {
        scr_disabled = 1;
        goto out; /* SCR_SUCCESS, and nothing of the run is kept */
    }
    rc = start_api(api, t_init); /* all ranks agree */
    if (rc != SCR_SUCCESS) goto out;
    struct scr_run *r = api->run;
    if (r->rank == 0) scr_init_say_unavailable(r);
    if (r->rank == 0)
        scr_dbg(1, "SCR %s ready: %d ranks on %d nodes, prefix %s, cache %s, control %s",
                SCR_VERSION_TEXT, r->ranks, r->nodes, r->prefix, r->cache_dir, r->cntl_dir);
    scr_encoder_work_begins(r);
    return SCR_SUCCESS;
out:
    free_api(api);
    return rc;
}

/* --- work in the background ------------------------------------------------------ */

/* Conclude what the library's threads have finished (an encode, a flush),
 * without waiting for what still runs. Collective; all ranks agree. */
static int poll_background(struct scr_api *api)
{
    struct scr_run *run = api->run;
    /* CRCs of a SINGLE checkpoint: this rank's alone, said where they fail
     * (the file then has none, which a restart says: run_crc_async.c) */
    (void)scr_crc_async_poll(run);
    int rc = scr_encoder_poll(run);
    if (rc != SCR_SUCCESS) return rc;
    return scr_flusher_poll(run, api->flusher);
}

/* Wait for the library's threads and conclude their work. Collective. */
static int wait_background(struct scr_api *api)
{
    struct scr_run *run = api->run;
    (void)scr_crc_async_wait(run); /* as in poll_background */
    int rc = scr_encoder_wait(run);
    if (rc != SCR_SUCCESS) return rc;
    return scr_flusher_wait(run, api->flusher);
}

/* --- SCR_Finalize --------------------------------------------------------------- */

/* The newest checkpoint in cache, 0 if none. */
static int newest_cached_checkpoint(struct scr_api *api, int *out_id)
{
    struct scr_run *run = api->run;
    int *ids = NULL, n = 0, mine = 0;
    if (scr_filemap_list_datasets(run->map, &ids, &n) == SCR_SUCCESS) {
        for (int i = 0; i < n; i++) {
            const scr_dataset *d = NULL;
            if (ids[i] > mine &&
                scr_filemap_get_dataset(run->map, ids[i], run->rank, &d) == SCR_SUCCESS &&
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
static int flush_at_finalize(struct scr_api *api)
{
    struct scr_run *run = api->run;
    int newest = 0, flushed = 1;
    int rc = newest_cached_checkpoint(api, &newest); /* all ranks agree */
    if (rc != SCR_SUCCESS || newest == 0) return rc;
    rc = scr_flush_is_flushed(run, newest, &flushed); /* all ranks agree */
    if (rc != SCR_SUCCESS || flushed) return rc;
    api->dset_in_cache = 1;
    rc = scr_flush_dataset(run, newest, api->dset_in_cache); /* all ranks agree */
    /* abandoned by the watchdog: it stays in cache for the next run or the scavenge */
    if (rc == SCR_ERR_TIMEOUT) return SCR_SUCCESS;
    return rc;
}

int SCR_Finalize(void)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) {
        scr_disabled = 0;
        return SCR_SUCCESS;
    }
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Finalize", closing_call(api));
    /* work in the background is finished first: it may be the newest checkpoint's */
    int rc = wait_background(api); /* all ranks agree */
    if (rc == SCR_SUCCESS && run->params->flush_every > 0) rc = flush_at_finalize(api);
    scr_run_event(run, SCR_EVENT_FINALIZE, rc == SCR_SUCCESS ? SCR_EVENT_OK : SCR_EVENT_FAILED, 0,
                  NULL, -1, scr_run_now() - api->time_start,
                  rc == SCR_SUCCESS ? NULL : "the final flush failed", NULL, 0);
    int hrc = scr_run_halt_mark_finalized(run);
    if (hrc != SCR_SUCCESS) scr_warn("could not record SCR_FINALIZE_CALLED in %s", run->halt_path);
    int brc = scr_mpi_check(MPI_Barrier(run->world), "MPI_Barrier in SCR_Finalize");
    if (rc == SCR_SUCCESS) rc = brc;
    free_api(api);
    the_api = NULL;
    scr_finalized = 1;
    return rc;
}

/* --- policy ------------------------------------------------------------------- */

int SCR_Need_checkpoint(int *flag)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (flag == NULL) {
        scr_err("SCR_Need_checkpoint called without a flag to set");
        return SCR_ERR_ARG;
    }
    *flag = 0;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Need_checkpoint", closing_call(api));
    int rc = poll_background(api); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    return scr_run_halt_need_checkpoint(api, flag);
}

int SCR_Should_exit(int *flag)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (flag == NULL) {
        scr_err("SCR_Should_exit called without a flag to set");
        return SCR_ERR_ARG;
    }
    *flag = 0;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL) return wrong_state(api, "SCR_Should_exit", "SCR_Init");
    int rc = poll_background(api); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    return scr_run_halt_check(api, flag);
}

/* --- output and checkpoints --------------------------------------------------- */

/* Rank 0: is name used by another dataset of the index? */
static int name_in_index(struct scr_api *api, const char *name)
{
    struct scr_run *run = api->run;
    scr_kvtree *index = scr_kvtree_new();
    int id = 0, used = 0;
    if (index != NULL && scr_index_file_read(run->index_path, index) == SCR_SUCCESS &&
        scr_index_file_lookup_id(index, name, &id) == SCR_SUCCESS)
        used = id;
    scr_kvtree_delete(index);
    return used;
}

/* A new dataset descriptor for the next id. */
static int new_dataset(struct scr_api *api, const char *name, int flags, scr_dataset **out)
{
    struct scr_run *run = api->run;
    scr_dataset *d = scr_dataset_new();
    if (d == NULL) return SCR_ERR_NOMEM;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    /* SCR_JOB_NAME and SCR_CLUSTER_NAME from any layer (a config file, too),
     * else what Slurm says */
    const char *jobname = run->params->job_name, *cluster = run->params->cluster_name;
    if (jobname == NULL) jobname = getenv("SLURM_JOB_NAME");
    if (cluster == NULL) cluster = getenv("SLURM_CLUSTER_NAME");
    int rc = scr_dataset_set_id(d, api->dataset_id);
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
        rc = scr_dataset_set_ckpt(d, api->checkpoint_id);
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

/* A new checkpoint in red's store may push the oldest out. Work in the
 * background that has landed is concluded first; the cache never drops a
 * dataset that a flush or an encode still reads, and waits for an encode
 * when the datasets it would drop are all the protected ones there are.
 * Collective; all ranks agree. */
static int make_room_for(struct scr_api *api, const struct scr_reddesc *red, int is_ckpt)
{
    struct scr_run *run = api->run;
    int rc = poll_background(api); /* all ranks agree */
    /* the CRCs of the last checkpoint are recorded before this one's decisions
     * and before any eviction (the thread is done unless the application
     * checkpoints back to back) */
    (void)scr_crc_async_wait(run); /* as in poll_background */
    if (rc != SCR_SUCCESS || !api->dset_in_cache || !is_ckpt) return rc;
    int encoding = scr_encoder_id(run), flushing = scr_flusher_id(api->flusher);
    struct scr_eviction ev;
    if (encoding > 0) {
        rc = scr_cache_would_evict(run, red->store, encoding, &ev); /* all ranks agree */
        if (rc != SCR_SUCCESS) return rc;
        if (ev.evicts_id || (ev.older_now && ev.no_older_left)) {
            scr_dbg(1,
                    "dataset %d is still being encoded and the next checkpoint would leave no "
                    "protected "
                    "dataset in cache: waiting for its encode",
                    encoding);
            rc = scr_encoder_wait(run); /* all ranks agree */
            if (rc != SCR_SUCCESS) return rc;
        }
    }
    if (flushing > 0) {
        rc = scr_cache_would_evict(run, red->store, flushing, &ev); /* all ranks agree */
        if (rc == SCR_SUCCESS && ev.evicts_id) {
            scr_dbg(1,
                    "dataset %d is still being flushed and must leave the cache for the next: "
                    "waiting for "
                    "its flush",
                    flushing);
            rc = scr_flusher_wait(run, api->flusher); /* all ranks agree */
        }
        if (rc != SCR_SUCCESS) return rc;
    }
    return scr_cache_make_room(run, red->store);
}

/* This rank's filemap learns dataset id (its descriptor d, and when it is
 * in cache the record of red, which names the store, so the dataset's
 * directory is known from here on, also after a crash) and is saved; the
 * directory in cache is made. */
static int record_new_dataset(struct scr_api *api, int id, scr_dataset *d,
                              const struct scr_reddesc *red)
{
    struct scr_run *run = api->run;
    scr_kvtree *record = NULL;
    char *dsdir = NULL;
    int rc = scr_filemap_set_dataset(run->map, id, run->rank, d);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_expected_files(run->map, id, run->rank, 0);
    if (rc != SCR_SUCCESS) return rc;
    if (api->dset_in_cache) {
        rc = scr_reddesc_to_record(red, &record);
        if (rc == SCR_SUCCESS) rc = scr_filemap_set_reddesc(run->map, id, run->rank, record);
        scr_kvtree_delete(record);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_cache_save_filemap(run);
    if (rc != SCR_SUCCESS || !api->dset_in_cache) return rc;
    rc = scr_cache_prepare_dataset_dir(run, id, &dsdir);
    free(dsdir);
    return rc;
}

/* SCR_SUCCESS when flags and name (NULL: a name from the id) may start an
 * output phase; otherwise SCR_ERR_ARG, with what is wrong said. */
static int check_output_args(const char *name, int flags)
{
    int bad = (flags & ~(SCR_FLAG_CHECKPOINT | SCR_FLAG_OUTPUT)) != 0 || flags == SCR_FLAG_NONE;
    if (!bad && (name == NULL || (name[0] != '\0' && strlen(name) < SCR_MAX_FILENAME)))
        return SCR_SUCCESS;
    if (bad)
        scr_err("SCR_Start_output: flags %d must be SCR_FLAG_CHECKPOINT, SCR_FLAG_OUTPUT or both",
                flags);
    else
        scr_err("SCR_Start_output: a dataset name must have 1 to %d characters",
                SCR_MAX_FILENAME - 1);
    return SCR_ERR_ARG;
}

/* After this rank's preparations ended with lrc: the dataset
 * api->dataset_id, called name, described by rank 0 for every rank and
 * recorded in each rank's filemap (red protects it), becomes the open
 * output phase's (api->dset). Collective; all ranks agree. */
static int open_dataset(struct scr_api *api, const char *name, int flags,
                        const struct scr_reddesc *red, int lrc)
{
    struct scr_run *run = api->run;
    scr_dataset *d = NULL;
    int rc = lrc;
    /* rank 0 describes the dataset, so every copy of the descriptor is the same */
    if (rc == SCR_SUCCESS && run->rank == 0) rc = new_dataset(api, name, flags, &d);
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, rc, SCR_FAILURE);
    if (rc == SCR_SUCCESS) rc = scr_comm_bcast_kvtree(&d, 0, run->world);
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(d);
        return rc;
    }
    int id = api->dataset_id;
    rc = record_new_dataset(api, id, d, red);
    /* all ranks agree: */
    rc = scr_comm_agree(run->world, rc, SCR_FAILURE);
    if (rc != SCR_SUCCESS) {
        scr_dataset_delete(d);
        scr_cache_delete_dataset(run, id);
        return rc;
    }
    scr_dataset_delete(api->dset);
    api->dset = d;
    return SCR_SUCCESS;
}

int SCR_Start_output(const char *name, int flags)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Start_output", closing_call(api));
    scr_encoder_work_ends(run);
    int rc = check_output_args(name, flags);
    if (rc != SCR_SUCCESS) return rc;
    /* a restart is only offered before the first new dataset */
    api->restart.decided = 1;
    api->restart.id = 0;
    api->dataset_id++;
    if (flags & SCR_FLAG_CHECKPOINT) api->checkpoint_id++;
    char defname[64];
    if (name == NULL) {
        snprintf(defname, sizeof(defname), "scr.dataset.%d", api->dataset_id);
        name = defname;
    }
    /* a name the index already has is taken over when this dataset is
     * flushed: it is written to the same paths, so the older entry would no
     * longer describe the files there (run_flush.c) */
    api->dset_in_cache = !run->params->cache_bypass;
    api->time_ckpt_start = scr_run_now();
    /* SCR_CACHE_SIZE counts checkpoints: an output-only dataset leaves the
     * cache once flushed and must not push out the checkpoint kept there */
    int is_ckpt = (flags & SCR_FLAG_CHECKPOINT) != 0;
    const struct scr_reddesc *red =
        scr_reddesc_for(run->reddescs, run->nreddescs, api->dataset_id, !is_ckpt);
    rc = make_room_for(api, red, is_ckpt); /* all ranks agree */
    /* notes of routes a crashed run left under this id go before any rank
     * routes (the agreement in open_dataset waits for the node's first rank) */
    if (rc == SCR_SUCCESS && api->dset_in_cache) rc = scr_shared_route_clear(run, api->dataset_id);
    rc = open_dataset(api, name, flags, red, rc); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    api->state = SCR_STATE_OUTPUT;
    scr_run_event(run, is_ckpt ? SCR_EVENT_CHECKPOINT_START : SCR_EVENT_OUTPUT_START, NULL,
                  api->dataset_id, name, -1, -1, NULL, NULL, 0);
    return SCR_SUCCESS;
}

int SCR_Start_checkpoint(void)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Start_checkpoint", closing_call(api));
    return SCR_Start_output(NULL, SCR_FLAG_CHECKPOINT);
}

int SCR_Complete_output(int valid)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_OUTPUT)
        return wrong_state(api, "SCR_Complete_output", "SCR_Start_output");
    api->state = SCR_STATE_IDLE;
    /* work in the background that has landed is concluded (all ranks agree) */
    int rc = poll_background(api), halt = 0;
    if (rc == SCR_SUCCESS) rc = scr_complete_output(api, valid, &halt);
    if (halt) {
        SCR_Finalize();
        MPI_Finalize();
        exit(0);
    }
    scr_encoder_work_begins(run);
    return rc;
}

int SCR_Complete_checkpoint(int valid)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_OUTPUT)
        return wrong_state(api, "SCR_Complete_checkpoint", "SCR_Start_checkpoint");
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
static int new_file_meta(struct scr_api *api, const char *name, const char *abs, const char *rel,
                         scr_meta **out_meta)
{
    struct scr_run *run = api->run;
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
    if (scr_dataset_get_ckpt(api->dset, &ckpt) == SCR_SUCCESS) {
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
static int list_new_file(struct scr_api *api, int id, const char *dest, const scr_meta *meta)
{
    struct scr_run *run = api->run;
    int rc = scr_filemap_add_file(run->map, id, run->rank, dest);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_filemap_set_meta(run->map, id, run->rank, dest, meta);
    if (rc != SCR_SUCCESS) return rc;
    return scr_cache_save_filemap(run);
}

static int route_output(struct scr_api *api, const char *name, char **out_path)
{
    struct scr_run *run = api->run;
    int id = api->dataset_id, inside = 0;
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
    if (api->dset_in_cache) {
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
    rc = scr_mkdir_p(dir, api->dset_in_cache ? 0700 : 0777);
    if (rc != SCR_SUCCESS) goto out;
    if (!scr_filemap_have_file(run->map, id, run->rank, dest)) {
        rc = new_file_meta(api, name, abs, rel, &meta);
        if (rc != SCR_SUCCESS) goto out;
        rc = list_new_file(api, id, dest, meta);
        if (rc != SCR_SUCCESS) goto out;
        /* a file ranks of several nodes share may be opened without O_CREAT here */
        if (api->dset_in_cache) rc = scr_shared_route_note(run, id, rel, dest);
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
static int route_restart(struct scr_api *api, const char *name, char **out_path)
{
    struct scr_run *run = api->run;
    char *abs = NULL;
    int rc = absolute_path(name, &abs);
    if (rc != SCR_SUCCESS) return rc;
    if (api->restart.source == SCR_RESTART_WHOLE) {
        rc = scr_fetch_whole_route(run, &api->restart, name, abs, out_path);
        free(abs);
        return rc;
    }
    int bare = strchr(name, '/') == NULL;
    const char *found = NULL;
    char *hit = NULL;
    if (api->restart.source == SCR_RESTART_PREFIX || api->restart.source == SCR_RESTART_IN_PLACE) {
        scr_kvtree_util_get_str(scr_kvtree_get_kv(api->restart.files, "ORIG", abs), "PATH", &found);
        if (found == NULL && bare)
            scr_kvtree_util_get_str(scr_kvtree_get_kv(api->restart.files, "NAME", name), "PATH",
                                    &found);
    } else {
        const char **files = NULL;
        int n = 0;
        scr_filemap_list_files(run->map, api->restart.id, run->rank, &files, &n);
        for (int f = 0; f < n && found == NULL; f++) {
            const scr_meta *meta = NULL;
            const char *odir = NULL, *oname = NULL;
            char *orig = NULL;
            if (scr_filemap_get_meta(run->map, api->restart.id, run->rank, files[f], &meta) !=
                    SCR_SUCCESS ||
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
                api->restart.name);
        rc = SCR_ERR_NOTFOUND;
    }
    if (rc == SCR_SUCCESS && (*out_path = strdup(found)) == NULL) rc = SCR_ERR_NOMEM;
    free(hit);
    free(abs);
    return rc;
}

int SCR_Route_file(const char *name, char *file)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (name == NULL || file == NULL) {
        scr_err("SCR_Route_file called without a name or a buffer for the result");
        return SCR_ERR_ARG;
    }
    if (name[0] == '\0' || strlen(name) >= SCR_MAX_FILENAME) {
        scr_err("SCR_Route_file: a file name must have 1 to %d characters", SCR_MAX_FILENAME - 1);
        return SCR_ERR_ARG;
    }
    if (scr_disabled || run == NULL || api->state == SCR_STATE_IDLE) {
        if (!scr_disabled && run == NULL) return wrong_state(api, "SCR_Route_file", "SCR_Init");
        return copy_result(name, file);
    }
    char *path = NULL;
    int rc = api->state == SCR_STATE_OUTPUT ? route_output(api, name, &path)
                                            : route_restart(api, name, &path);
    if (rc == SCR_SUCCESS) rc = copy_result(path, file);
    free(path);
    return rc;
}

/* --- restart ---------------------------------------------------------------------- */

int SCR_Have_restart(int *flag, char *name)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (flag == NULL) {
        scr_err("SCR_Have_restart called without a flag to set");
        return SCR_ERR_ARG;
    }
    *flag = 0;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Have_restart", closing_call(api));
    int rc = scr_fetch_decide_restart(run, &api->restart, api->current_name);
    if (rc != SCR_SUCCESS) return rc;
    *flag = api->restart.id > 0;
    if (*flag && name != NULL) snprintf(name, SCR_MAX_FILENAME, "%s", api->restart.name);
    return SCR_SUCCESS;
}

int SCR_Start_restart(char *name)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Start_restart", closing_call(api));
    int rc = scr_fetch_decide_restart(run, &api->restart, api->current_name);
    if (rc != SCR_SUCCESS) return rc;
    if (api->restart.id <= 0) {
        scr_err("SCR_Start_restart called with no checkpoint to restart from; "
                "expected SCR_Have_restart to say there is one first");
        return SCR_ERR_STATE;
    }
    if (name != NULL) snprintf(name, SCR_MAX_FILENAME, "%s", api->restart.name);
    api->state = SCR_STATE_RESTART;
    /* the files this rank restarts from are checked while the application
     * reads them; a job that cannot start is done at SCR_Complete_restart */
    if (api->restart.source == SCR_RESTART_CACHE && !api->restart.fetched)
        (void)scr_crc_async_start_check(run, api->restart.id);
    return SCR_SUCCESS;
}

/* Rank 0: the event of a restart whose files read in place on the prefix
 * did not match what was flushed: it counts as a failed fetch. */
static void log_damaged_in_place(struct scr_api *api, int id)
{
    struct scr_run *run = api->run;
    struct scr_event_field fields[] = {SCR_EVENT_STR("into", "prefix"),
                                       SCR_EVENT_STR("marked", "FAILED")};
    scr_run_event(run, SCR_EVENT_FETCH, SCR_EVENT_FAILED, id, api->restart.name, -1, -1,
                  "a file read in place on the prefix differs from what was flushed; an older "
                  "dataset is tried",
                  fields, 2);
}

/* The bytes of a valid restart, checked before any rank hears that it
 * succeeded: files read in place on the prefix had only their sizes
 * checked, files in cache are checked by the thread started at
 * SCR_Start_restart; *out_damaged counts what differs (each file said). */
static void check_restart_bytes(struct scr_api *api, int id, int valid, int *out_damaged)
{
    struct scr_run *run = api->run;
    *out_damaged = 0;
    if (api->restart.source != SCR_RESTART_CACHE) {
        if (valid) scr_fetch_check_in_place(run, &api->restart, out_damaged);
        return;
    }
    if (api->restart.fetched) return; /* checked as the fetch copied it */
    if (!valid) { /* the restart fails anyway: the check's result is not needed */
        (void)scr_crc_async_wait(run);
        return;
    }
    /* a check that could not be done counts as a damaged file: nothing unchecked passes as checked
     */
    if (scr_crc_async_check_done(run, id, api->restart.name, out_damaged) != SCR_SUCCESS &&
        *out_damaged == 0)
        *out_damaged = 1;
}

static int complete_restart(struct scr_api *api, int valid)
{
    struct scr_run *run = api->run;
    api->state = SCR_STATE_IDLE;
    int id = api->restart.id;
    int damaged = 0;
    check_restart_bytes(api, id, valid, &damaged);
    int mine[2] = {!valid, damaged > 0}, any[2] = {0, 0};
    /* all ranks agree: */
    int rc = scr_mpi_check(MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, run->world),
                           "agreeing on the outcome of the restart");
    if (rc != SCR_SUCCESS) return rc;
    api->restart.id = 0; /* a restart is read once */
    if (!any[0] && !any[1]) return SCR_SUCCESS;
    if (run->rank == 0) {
        if (any[1] && api->restart.source == SCR_RESTART_CACHE)
            scr_err("checkpoint %s: a file the restart read from cache differs from what was "
                    "written (see "
                    "above); it is dropped, and SCR_Have_restart offers an older checkpoint if "
                    "there is one",
                    api->restart.name);
        else if (any[1])
            scr_err("checkpoint %s: a file read in place on the prefix differs from what was "
                    "flushed (see "
                    "above); it is marked failed, and SCR_Have_restart offers an older checkpoint "
                    "if there is one",
                    api->restart.name);
        else
            scr_err(
                "a rank could not read checkpoint %s; it is marked failed, and SCR_Have_restart "
                "offers an older checkpoint if there is one",
                api->restart.name);
        /* a dataset only in cache is not in the index; a copy the prefix holds of
         * one damaged in cache is not the damaged one, and stays as it is */
        if (any[0] || api->restart.source != SCR_RESTART_CACHE) scr_fetch_record(run, id, 0);
        if (any[1] && api->restart.source != SCR_RESTART_CACHE) log_damaged_in_place(api, id);
    }
    if (api->restart.source == SCR_RESTART_CACHE) {
        scr_cache_delete_dataset(run, id);
        scr_cache_note_location(run, id, 0, 0, 0);
    }
    /* written in place: the records forget it, its files stay on the prefix */
    if (api->restart.source == SCR_RESTART_IN_PLACE) scr_cache_delete_dataset(run, id);
    /* as in SCR, the application may loop: the next SCR_Have_restart
     * decides again, among the checkpoints older than this one */
    api->restart.below = id;
    api->restart.decided = 0;
    return SCR_FAILURE;
}

int SCR_Complete_restart(int valid)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_RESTART)
        return wrong_state(api, "SCR_Complete_restart", "SCR_Start_restart");
    int rc = complete_restart(api, valid);
    /* reading the restart is not the application's work between checkpoints */
    scr_encoder_work_begins(run);
    return rc;
}

/* --- managing datasets -------------------------------------------------------------- */

int SCR_Current(const char *name)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE || api->restart.decided ||
        api->restart.below > 0)
        return wrong_state(api, "SCR_Current",
                           run && api->state == SCR_STATE_IDLE
                               ? "SCR_Init (SCR_Current must come before SCR_Have_restart)"
                               : closing_call(api));
    if (name == NULL || name[0] == '\0') {
        scr_err("SCR_Current called without a dataset name");
        return SCR_ERR_ARG;
    }
    /* the dataset must exist, in cache or in the index */
    int known = run->rank == 0 ? name_in_index(api, name) : 0;
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
        if (run->rank == 0)
            scr_err("SCR_Current: no dataset named '%s' in cache or on %s", name, run->prefix);
        return SCR_ERR_NOTFOUND;
    }
    free(api->current_name);
    api->current_name = strdup(name);
    /* all ranks agree: drop_after_current is collective */
    int ok = 0;
    rc = scr_comm_all_true(api->current_name != NULL, run->world, &ok);
    if (rc != SCR_SUCCESS) return rc;
    if (!ok) {
        if (api->current_name == NULL) scr_err("SCR_Current: out of memory");
        return SCR_ERR_NOMEM;
    }
    return scr_init_drop_after_current(run, api->current_name);
}

struct drop {
    const char *name;
    int id;
    int absent; /* the index holds no dataset of that name */
};

static int drop_named(scr_kvtree *index, void *ctx)
{
    struct drop *d = ctx;
    if (scr_index_file_lookup_id(index, d->name, &d->id) != SCR_SUCCESS) {
        d->absent = 1;
        return SCR_ERR_NOTFOUND; /* nothing to write */
    }
    return scr_index_file_remove(index, d->id);
}

/* Rank 0: remove the dataset called name from the index; *out_id its id,
 * SCR_ERR_NOTFOUND with *out_absent (may be NULL) 1 when the index has no
 * such name. */
static int drop_from_index(struct scr_api *api, const char *name, int *out_id, int *out_absent)
{
    struct scr_run *run = api->run;
    struct drop d = {name, 0, 0};
    int rc = scr_index_file_update(run->index_path, drop_named, &d);
    *out_id = d.id;
    if (out_absent != NULL) *out_absent = d.absent;
    return rc;
}

int SCR_Drop(const char *name)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Drop", closing_call(api));
    if (name == NULL) {
        scr_err("SCR_Drop called without a dataset name");
        return SCR_ERR_ARG;
    }
    /* the dataset may be the one a background flush is about to index */
    int wrc = wait_background(api); /* all ranks agree */
    if (wrc != SCR_SUCCESS) return wrc;
    int id = 0, absent = 0, rc = SCR_SUCCESS;
    if (run->rank == 0) {
        rc = drop_from_index(api, name, &id, &absent);
        /* as in SCR 3.1, dropping what the index does not hold is no error */
        if (absent) {
            scr_dbg(1, "SCR_Drop: no dataset named '%s' in %s; nothing to drop", name,
                    run->index_path);
            rc = SCR_SUCCESS;
        }
    }
    int code = rc;
    int mrc = scr_mpi_check(MPI_Bcast(&code, 1, MPI_INT, 0, run->world),
                            "sharing the outcome of SCR_Drop");
    return mrc != SCR_SUCCESS ? mrc : code;
}

/* The id of the dataset called name in *out_id, the same on every rank
 * (0: none; from the index, *out_in_index 1, else from the cache).
 * Collective. */
static int find_dataset_named(struct scr_api *api, const char *name, int *out_id, int *out_in_index)
{
    struct scr_run *run = api->run;
    int id = run->rank == 0 ? name_in_index(api, name) : 0;
    int rc = scr_mpi_check(MPI_Bcast(&id, 1, MPI_INT, 0, run->world), "looking up a dataset");
    if (rc != SCR_SUCCESS) return rc;
    *out_in_index = id > 0;
    if (!*out_in_index) {
        int mine = scr_cache_id_of_name(run, name, 0);
        rc = scr_mpi_check(MPI_Allreduce(&mine, &id, 1, MPI_INT, MPI_MAX, run->world),
                           "looking up a dataset");
        if (rc != SCR_SUCCESS) return rc;
    }
    *out_id = id;
    return SCR_SUCCESS;
}

/* Rank 0 removes the dataset called name from the index; every rank gets
 * its outcome in *out_drop_rc (said by rank 0 when it failed). Returns
 * how the outcome was shared. Collective. */
static int unindex_for_delete(struct scr_api *api, const char *name, int *out_drop_rc)
{
    struct scr_run *run = api->run;
    int dropped = 0, drop_rc = SCR_SUCCESS;
    if (run->rank == 0) drop_rc = drop_from_index(api, name, &dropped, NULL);
    int rc = scr_mpi_check(MPI_Bcast(&drop_rc, 1, MPI_INT, 0, run->world),
                           "sharing the outcome of SCR_Delete");
    if (rc == SCR_SUCCESS && drop_rc != SCR_SUCCESS) {
        if (run->rank == 0)
            scr_err("SCR_Delete: cannot remove '%s' from %s; nothing was deleted", name,
                    run->index_path);
        *out_drop_rc = drop_rc;
    }
    return rc;
}

int SCR_Delete(const char *name)
{
    struct scr_api *api = the_api;
    struct scr_run *run = api != NULL ? api->run : NULL;
    if (scr_disabled) return SCR_SUCCESS;
    if (run == NULL || api->state != SCR_STATE_IDLE)
        return wrong_state(api, "SCR_Delete", closing_call(api));
    if (name == NULL) {
        scr_err("SCR_Delete called without a dataset name");
        return SCR_ERR_ARG;
    }
    /* the dataset may be the one a background flush or encode reads */
    int wrc = wait_background(api); /* all ranks agree */
    if (wrc != SCR_SUCCESS) return wrc;
    /* which dataset: from the index, else from the cache */
    int id = 0, in_index = 0;
    int rc = find_dataset_named(api, name, &id, &in_index); /* all ranks agree */
    if (rc != SCR_SUCCESS) return rc;
    if (id == 0) {
        if (run->rank == 0)
            scr_err("SCR_Delete: no dataset named '%s' in cache or on %s", name, run->prefix);
        return SCR_ERR_NOTFOUND;
    }
    /* the index entry goes first: a crash then leaves files nobody lists,
     * never an entry naming files that are gone */
    int drop_rc = SCR_SUCCESS;
    if (in_index) rc = unindex_for_delete(api, name, &drop_rc); /* all ranks agree */
    if (drop_rc != SCR_SUCCESS) return drop_rc;
    int drc = scr_cache_delete_dataset(run, id);
    int nrc = scr_cache_note_location(run, id, 0, 0, 0);
    if (drc == SCR_SUCCESS) drc = nrc;
    /* the restart SCR_Init found in cache was this dataset: the next newest
     * checkpoint in cache (all of them are intact after SCR_Init) takes its place */
    if (!api->restart.decided && api->restart.id == id) {
        rc = newest_cached_checkpoint(api, &api->restart.id);
        if (rc != SCR_SUCCESS) return rc;
    }
    /* rank 0 deletes its files and records on the prefix, in the order
     * prefix_trim.h gives so that no summary calls it whole while they go */
    int prc = SCR_SUCCESS; /* a file that stays is reported, and not a failure */
    if (rc == SCR_SUCCESS && in_index && run->rank == 0)
        prc = scr_prefix_delete_dataset(run->prefix, id);
    int ok = 0;
    /* all ranks agree: */
    int mrc = scr_comm_all_true(drc == SCR_SUCCESS && rc == SCR_SUCCESS && prc == SCR_SUCCESS,
                                run->world, &ok);
    if (mrc != SCR_SUCCESS) return mrc;
    return ok ? SCR_SUCCESS : SCR_FAILURE;
}
