/* cli_common.h — what every command does alike: name itself in messages,
 * explain a refused option, find the prefix.
 *
 * A command calls scr_cli_init("scr-name") first; usage errors then read
 * "scr-name: <what>" followed by a pointer to --help, and return the exit
 * status 2 every command uses for a usage error. Links only libscr-core. */
#ifndef SCR_CLI_COMMON_H
#define SCR_CLI_COMMON_H

#define SCR_CLI_EXIT_USAGE 2

/* Name the command in messages (also for libscr-core's log). */
void scr_cli_init(const char *name);

/* Say what was wrong with the command line; returns SCR_CLI_EXIT_USAGE. */
int scr_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Explain why getopt_long (with opterr = 0 and a ':'-led option string)
 * refused an option: it returned c, having started at argument before.
 * Returns SCR_CLI_EXIT_USAGE. */
int scr_cli_refused_option(int c, char **argv, int before);

/* option, else $SCR_PREFIX, else the current directory, in a new string
 * (NULL, logged, on failure). */
char *scr_cli_prefix(const char *option);

/* Flush standard output; 0, or 1 with a message when the write failed. */
int scr_cli_flush_stdout(void);

#endif
