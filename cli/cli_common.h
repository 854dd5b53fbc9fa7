/* cli_common.h — what every command says and finds alike.
 *
 * A command calls scr_cli_init with its name first: errors of libscr-core then
 * read "<command>: error: ...", and a usage error reads "<command>: <what>"
 * followed by a pointer to --help, with exit status 2. Option parsing is
 * getopt_long with opterr = 0 and ':' leading the short options, so that the
 * command names a refused option itself (scr_cli_refused_option). */
#ifndef SCR_CLI_COMMON_H
#define SCR_CLI_COMMON_H

struct scr_config;
struct scr_config_sources;

/* Where a command reads the configuration: the standard places, with a
 * damaged app.conf passed over with a warning, since a command that copies
 * a job's checkpoints out must not stop on what an application left for
 * its next run. */
extern const struct scr_config_sources scr_cli_config_sources;

/* The command's name for messages (kept, not copied); sets the log prefix. */
void scr_cli_init(const char *command);

/* Say what was wrong with the command line; returns the exit status 2. */
int scr_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Explain why getopt_long refused an option (it returned c, having started
 * at argument before); returns the exit status 2. */
int scr_cli_refused_option(int c, char **argv, int before);

/* given (an option or argument, may be NULL), else $SCR_PREFIX when set and
 * not empty, else the current directory, in a new string; NULL (said) when
 * out of memory or the current directory cannot be told. */
char *scr_cli_resolve_prefix(const char *given);

/* This node's control directory for the job the environment names, as
 * libscr finds it: SCR_CNTL_BASE of cfg (a loaded configuration), the
 * node's name (node when not NULL), the user and the job id; in a new
 * string. Errors are logged by libscr-core. */
int scr_cli_job_cntl_dir(const struct scr_config *cfg, const char *node, char **out_cntl);

/* The same under the base that parameter base_param of cfg names
 * ("SCR_CNTL_BASE", "SCR_CACHE_BASE"). */
int scr_cli_job_dir(const struct scr_config *cfg, const char *base_param, const char *node,
                    char **out_dir);

#endif
