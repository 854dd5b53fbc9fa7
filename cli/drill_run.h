/* drill_run.h — one run of the user's MPI program on simulated nodes.
 *
 * The program is started as
 *   <mpirun> [mpirun options...] -np R /bin/sh -c <rank wrapper> scr-drill-rank R M <program>
 * [args...] and the wrapper, in each rank, reads the rank the launcher gives it
 * (OMPI_COMM_WORLD_RANK, else PMIX_RANK, else PMI_RANK), exports
 * SCR_SIM_NODE=node<k> (k = rank * M / R, drill_nodes.h) and execs the
 * program, so that every rank keeps its own process and its own pid. The
 * drill never links MPI: mpirun is a child process. Its standard input is
 * /dev/null and its output and errors go to a log file.
 *
 * With stop_after K, the ranks get SCR_DRILL_STOP_AFTER=K, and libscr
 * kills them itself right after their K-th checkpoint (run_halt.h): a
 * point no watcher outside could hit as surely.
 *
 * Each rank carries SCR_DRILL_TAG=<tag> in its environment; that is how
 * the drill finds the ranks to kill (in /proc/<pid>/environ, which a user
 * may read for its own processes): a rank is a process with the tag and a
 * rank variable. SIGKILL is what a node failure looks like to the rest of
 * the job.
 *
 * While the run goes on, a watcher is called about every 50 ms and says
 * whether to go on, to kill every rank, or to kill one; after a kill, the
 * run is waited for without asking again. A run that is still going after
 * its time limit is ended (SIGTERM to mpirun, SIGKILL to the ranks, then
 * to mpirun after 10 s) and reported as timed out. Linux only (/proc). */
#ifndef SCR_DRILL_RUN_H
#define SCR_DRILL_RUN_H

#include <sys/types.h>

struct drill_run_spec {
    const char *mpirun;
    char *const *mpirun_args; /* extra options, nmpirun_args of them */
    int nmpirun_args;
    int ranks, nodes;
    char *const *program; /* the program and its arguments, NULL-terminated */
    const char *tag;      /* SCR_DRILL_TAG of the ranks */
    const char *log_path; /* the run's output and errors, appended */
    int stop_after;       /* SCR_DRILL_STOP_AFTER of the ranks (run_halt.h); 0: none */
    int time_limit;       /* seconds */
};

/* What a watcher answers. */
enum drill_watch {
    DRILL_GO_ON = 0,
    DRILL_KILL_ALL, /* every rank: the job dies at once */
    DRILL_KILL_RANK /* one rank (*out_rank): a node fails under the others */
};

/* The watcher: elapsed seconds since the start; SCR_* error codes stop
 * nothing, the watcher reports its own failures. */
typedef enum drill_watch (*drill_watcher)(void *ctx, double elapsed, int *out_rank);

struct drill_run_result {
    int status;      /* the exit status of mpirun, or 128 + signal */
    int killed;      /* the drill killed ranks (how many) */
    int killed_rank; /* the rank a DRILL_KILL_RANK named, -1 otherwise */
    double kill_at;  /* seconds after the start, -1 when nothing was killed */
    int timed_out;
};

/* Run spec, asking watch (may be NULL) as described above, and wait for the
 * run to end. SCR_SUCCESS once the run has ended, whatever its status;
 * SCR_ERR_IO (logged) when it could not be started or waited for. */
int drill_run(const struct drill_run_spec *spec, drill_watcher watch, void *ctx,
              struct drill_run_result *out);

/* SIGKILL the ranks that carry tag (rank: only that rank, -1: all). The
 * number killed. */
int drill_run_kill_ranks(const char *tag, int rank);

#endif
