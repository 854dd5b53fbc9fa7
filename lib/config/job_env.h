/* job_env.h — who and where a process is: node name, job id, user, allocation end.
 *
 * Every answer comes from the environment first so that the same code serves
 * a real cluster and simulated nodes on one host:
 *   node name  $SCR_NODE_NAME, else $SLURMD_NODENAME, else the name the
 *              caller detected (libscr: MPI_Get_processor_name, which under
 *              SimGrid's SMPI names each rank's simulated host), else
 *              gethostname()
 *   job id     $SLURM_JOB_ID, else $SCR_JOB_ID, else a per-user default
 *              ("user-<uid>") that stays the same across runs, so a restart
 *              outside any resource manager still finds its cache
 *   user       $SCR_USER_NAME, else the password database
 *   end time   $SCR_END_TIME (seconds since the epoch; set by the Slurm plugin)
 * Paths may name these with patterns: %N node name, %u user, %j job id,
 * %% a percent sign; so "/dev/shm/%N" keeps simulated nodes apart.
 *
 * The three names become directory levels (<base>/<user>/scr.<jobid>, and
 * %N in a base), so each must stay one level: a variable that is set is
 * used, and refused (SCR_ERR_ARG, logged naming the variable and the value)
 * when it is empty, made of dots alone ("." or ".."), or holds a '/' or a
 * control character. A refused value is never replaced by the next source:
 * a mistake in SCR_NODE_NAME must not silently share another node's cache.
 *
 * A simulated node ($SCR_SIM_NODE, set by scr-drill for each rank) is a
 * name for a node that exists only on this host. It never chooses a base:
 * libscr keeps its directories one level *inside* the job's own
 * directories (job_dir.h, <base>/<user>/scr.<jobid>/sim.<name>), so an
 * ordinary job can give every simulated node a control directory of its
 * own without any say over SCR_CNTL_BASE, which only the system file sets.
 * The name follows the rules above and is at most SCR_SIM_NODE_MAX
 * characters. */
#ifndef SCR_JOB_ENV_H
#define SCR_JOB_ENV_H

#include <stddef.h>
#include <stdint.h>

/* Why value cannot be one directory level ("it contains '/'", ...), or
 * NULL when it can. Logs nothing: for callers that report on their own. */
const char *scr_job_env_name_problem(const char *value);

/* SCR_SUCCESS when value may be one directory level, else SCR_ERR_ARG,
 * logged as "<what>='<value>' cannot name a directory: <why>" with control
 * characters shown escaped. what names where the value came from
 * ("SCR_NODE_NAME", "--node"). */
int scr_job_env_check_name(const char *what, const char *value);

/* Node name into buf (len bytes); SCR_ERR_ARG when it does not fit or is
 * refused as above. */
int scr_job_env_node_name(char *buf, size_t len);

/* The same, with detected (when not NULL) in place of gethostname():
 * a node name found by a layer above this one, which may not be asked
 * here (libscr's MPI_Get_processor_name). detected_what names its source
 * in a refusal ("the node MPI_Get_processor_name names"). */
int scr_job_env_node_name_or(const char *detected, const char *detected_what, char *buf,
                             size_t len);

/* The longest name $SCR_SIM_NODE may hold. */
#define SCR_SIM_NODE_MAX 64

/* The simulated node $SCR_SIM_NODE names, into buf (len bytes):
 * *out_set is 0 (and buf "") when the variable is unset, 1 when it names
 * one. SCR_ERR_ARG (logged, naming the variable and the value) when it is
 * set but refused as above or longer than SCR_SIM_NODE_MAX. */
int scr_job_env_sim_node(char *buf, size_t len, int *out_set);

/* The checkpoint after which scr-drill wants the run to die:
 * $SCR_DRILL_STOP_AFTER, a whole number >= 1, into *out_k; 0 when unset.
 * SCR_ERR_ARG (logged, naming the variable and the value) for anything
 * else. Only scr-drill sets it (run_halt.h says what libscr does with it). */
int scr_job_env_drill_stop_after(int *out_k);

/* Job id into buf. *out_defaulted is 1 when no resource manager or
 * SCR_JOB_ID gave one (the caller warns once). */
int scr_job_env_job_id(char *buf, size_t len, int *out_defaulted);

/* User name into buf. */
int scr_job_env_user_name(char *buf, size_t len);

/* The allocation's end (seconds since the epoch) from $SCR_END_TIME;
 * SCR_ERR_NOTFOUND when unknown, SCR_ERR_FORMAT (logged) when not a number. */
int scr_job_env_end_time(int64_t *out_end);

/* pattern with %N, %u, %j and %% replaced, in a new string the caller frees.
 * An unknown %x is an error naming the pattern (SCR_ERR_ARG). */
int scr_job_env_expand(const char *pattern, const char *node, const char *user, const char *jobid,
                       char **out_path);

#endif
