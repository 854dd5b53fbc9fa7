/* scr31_front.h — SCR 3.1's command names, for job scripts written for it.
 *
 * scr_index, scr_halt, scr_srun, scr_prerun, scr_postrun,
 * scr_list_down_nodes, scr_env, scr_list_dir and scr_inspect take the
 * options SCR 3.1 documents and do the work with our commands: most
 * translate their options and run the command of ours beside them
 * (scr31_wrap.c: scr-index, scr-halt, scr-run, scr-list-down-nodes), the
 * others answer from the environment and the configuration themselves
 * (scr31_info.c), or, scr_inspect, from what scr_inspect_cache reports of
 * each node's cache (scr31_inspect.c). An option
 * SCR 3.1 has that we cannot honour is refused, naming it, with exit
 * status 2; nothing is accepted and ignored. Each program is one of these
 * names (SCR31_NAME, fixed when it is built) and links no MPI. */
#ifndef SCR_SCR31_FRONT_H
#define SCR_SCR31_FRONT_H

/* Run front end name with argc/argv; returns the exit status. */
int scr31_main(const char *name, int argc, char **argv);

/* --- the front ends (scr31_wrap.c, scr31_info.c) ---------------------------- */
int scr31_index(int argc, char **argv);
int scr31_halt(int argc, char **argv);
int scr31_srun(int argc, char **argv);
int scr31_postrun(int argc, char **argv);
int scr31_list_down_nodes(int argc, char **argv);
int scr31_prerun(int argc, char **argv);
int scr31_env(int argc, char **argv);
int scr31_list_dir(int argc, char **argv);
int scr31_inspect(int argc, char **argv);
int scr31_inspect_cache(int argc, char **argv);

/* --- shared by the front ends (scr31_front.c) -------------------------------- */

/* Exit status when the front end itself failed (as our commands use it). */
#define SCR31_EXIT_FAILED 3

/* A command line being built: words are kept, not copied. */
struct scr31_argv {
    char **words; /* NULL-terminated */
    int count, room;
};

/* Start line with our command tool ("scr-index"), found beside this
 * program, else in PATH; SCR_ERR_NOMEM (said) when out of memory. */
int scr31_argv_start(struct scr31_argv *line, const char *tool);
/* Start line with another front end (name), found beside this program,
 * else in PATH; as scr31_argv_start. */
int scr31_argv_start_front_end(struct scr31_argv *line, const char *name);
/* Append word; SCR_ERR_NOMEM (said) when out of memory. */
int scr31_argv_add(struct scr31_argv *line, const char *word);
void scr31_argv_free(struct scr31_argv *line);

/* Replace this process with line; returns SCR31_EXIT_FAILED (said) only
 * when it cannot be started. */
int scr31_exec(struct scr31_argv *line);
/* Run line and wait; the exit status it ended with (128 + signal when
 * killed), or SCR31_EXIT_FAILED (said) when it cannot be started. */
int scr31_run(struct scr31_argv *line);

/* Refuse option, which SCR 3.1 has but this front end cannot honour, and
 * say why and what to do instead; returns the exit status 2. */
int scr31_refuse(const char *option, const char *why);

/* -v/--verbose of SCR 3.1: our commands say more with SCR_DEBUG=1. */
void scr31_verbose(void);

/* SCR_ENABLE=0 turns SCR off: the set-up and the scavenge then do nothing. */
int scr31_disabled(void);

/* A launcher SCR 3.1 names (-j/--joblauncher) that runs in a Slurm
 * allocation and that our commands can use: srun or mpirun. Anything else
 * is refused naming it (exit status 2, into *out_status); returns 1 when
 * accepted. */
int scr31_launcher_ok(const char *launcher, int *out_status);

#endif
