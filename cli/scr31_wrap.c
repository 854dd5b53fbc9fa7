/* scr31_wrap.c — the SCR 3.1 names that are our commands under other
 * options: scr_index (scr-index), scr_halt (scr-halt), scr_srun (scr-run
 * srun), scr_postrun (scr-run --scavenge-only) and scr_list_down_nodes
 * (scr-list-down-nodes). Each parses SCR 3.1's options itself, so that
 * what it cannot honour is refused before anything runs, and then runs our
 * command with the same request. */
#include "scr31_front.h"
#include "scr31_end_time.h"
#include "cli_common.h"
#include "scr_err.h"
#include "util_log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What getopt_long said after the options: 0 go on, else an exit status
 * (-1: --help printed, exit 0). */
#define HELP_SHOWN (-1)

static int finish(int status)
{
    return status == HELP_SHOWN ? 0 : status;
}

/* A dataset id of SCR 3.1's scr_index --add/--build: a whole number >= 1. */
static int is_dataset_id(const char *text)
{
    if (text[0] == '\0' || strlen(text) > 9) return 0;
    for (const char *c = text; *c; c++)
        if (*c < '0' || *c > '9') return 0;
    return atoi(text) >= 1;
}

/* --- scr_index ------------------------------------------------------------------ */

static void index_usage(void)
{
    printf("Usage: scr_index [options]\n"
           "The datasets on a prefix, as SCR 3.1's scr_index takes them; scr-index(1)\n"
           "does the work.\n"
           "\n"
           "  -l, --list            list the datasets, newest first (the default)\n"
           "  -a, --add=ID          index dataset directory .scr/scr.dataset.ID, rebuilding\n"
           "                        missing files from the redundancy data\n"
           "  -b, --build=ID        rebuild the missing files of indexed dataset ID\n"
           "  -r, --remove=NAME     remove NAME from the index (its files stay)\n"
           "  -c, --current=NAME    make NAME the checkpoint a restart loads first\n"
           "  -p, --prefix=DIR      the prefix (default: the current directory)\n"
           "  -h, --help            show this help\n"
           "\n"
           "Exit status: 0 done; 1 failed (said on stderr); 2 usage error; 3 --add\n"
           "indexed the dataset incomplete.\n");
}

int scr31_index(int argc, char **argv)
{
    static const struct option options[] = {
        {"list", no_argument, NULL, 'l'},          {"add", required_argument, NULL, 'a'},
        {"build", required_argument, NULL, 'b'},   {"remove", required_argument, NULL, 'r'},
        {"current", required_argument, NULL, 'c'}, {"prefix", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    /* given: the action as SCR 3.1 names it, for a message */
    const char *action = "--list", *value = NULL, *prefix = NULL, *given = NULL;
    char dataset[32];
    int c, before = optind;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":la:b:r:c:p:h", options, NULL)) != -1; before = optind) {
        const char *ours = NULL;
        switch (c) {
        case 'l': ours = "--list"; break;
        case 'a':
        case 'b':
            if (!is_dataset_id(optarg))
                return scr_cli_usage_error(
                    "--%s wants a dataset id (a whole number >= 1), not '%s'",
                    c == 'a' ? "add" : "build", optarg);
            ours = c == 'a' ? "--add" : "--build";
            /* ours takes the directory's name; SCR 3.1's the id */
            if (c == 'a') snprintf(dataset, sizeof(dataset), "scr.dataset.%s", optarg);
            value = c == 'a' ? dataset : optarg;
            break;
        case 'r': ours = "--drop", value = optarg; break;
        case 'c': ours = "--current", value = optarg; break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            prefix = optarg;
            break;
        case 'h': index_usage(); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
        if (ours == NULL) continue;
        const char *as_given = strcmp(ours, "--drop") == 0 ? "--remove" : ours;
        if (given != NULL && strcmp(given, as_given) != 0)
            return scr_cli_usage_error("one action at a time: %s and %s were given", given,
                                       as_given);
        action = ours;
        given = as_given;
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    char *cwd = NULL;
    if (prefix == NULL && (prefix = cwd = getcwd(NULL, 0)) == NULL) {
        scr_err("cannot tell the current directory");
        return SCR31_EXIT_FAILED;
    }
    struct scr31_argv line;
    int rc = scr31_argv_start(&line, "scr-index");
    if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, "--prefix");
    if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, prefix);
    if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, action);
    if (rc == SCR_SUCCESS && value != NULL) rc = scr31_argv_add(&line, value);
    int status = rc == SCR_SUCCESS ? scr31_exec(&line) : SCR31_EXIT_FAILED;
    scr31_argv_free(&line);
    free(cwd);
    return status;
}

/* --- scr_halt ------------------------------------------------------------------- */

enum { UNSET_CHECKPOINTS = 256, UNSET_BEFORE, UNSET_AFTER, UNSET_SECONDS, UNSET_REASON };

static void halt_usage(void)
{
    printf("Usage: scr_halt [options] [DIR...]\n"
           "Set the halt conditions of the SCR jobs writing to the prefixes DIR (default:\n"
           "the current directory), as SCR 3.1's scr_halt takes them; scr-halt(1) does\n"
           "the work, once per DIR.\n"
           "\n"
           "  -c, --checkpoints N   halt after N more checkpoints\n"
           "  -b, --before TIME     halt before TIME (with SCR_HALT_SECONDS or --seconds)\n"
           "  -a, --after TIME      halt once TIME has passed\n"
           "  -s, --seconds N       the margin in seconds before --before's TIME\n"
           "  -l, --list            list the halt conditions\n"
           "      --unset-checkpoints, --unset-before, --unset-after, --unset-seconds,\n"
           "      --unset-reason    remove that condition\n"
           "  -r, --remove          remove the halt file: no condition at all\n"
           "  -v, --verbose         say more (SCR_DEBUG=1)\n"
           "  -h, --help            show this help\n"
           "\n"
           "-i, --immediate is refused: use scr_halt, then scancel JOBID.STEP.\n"
           "With no condition, the job halts after its next checkpoint.\n"
           "Exit status: 0 done; 1 a halt file could not be changed; 2 usage error.\n");
}

int scr31_halt(int argc, char **argv)
{
    static const struct option options[] = {
        {"checkpoints", required_argument, NULL, 'c'},
        {"before", required_argument, NULL, 'b'},
        {"after", required_argument, NULL, 'a'},
        {"immediate", no_argument, NULL, 'i'},
        {"seconds", required_argument, NULL, 's'},
        {"list", no_argument, NULL, 'l'},
        {"unset-checkpoints", no_argument, NULL, UNSET_CHECKPOINTS},
        {"unset-before", no_argument, NULL, UNSET_BEFORE},
        {"unset-after", no_argument, NULL, UNSET_AFTER},
        {"unset-seconds", no_argument, NULL, UNSET_SECONDS},
        {"unset-reason", no_argument, NULL, UNSET_REASON},
        {"remove", no_argument, NULL, 'r'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct scr31_argv line;
    if (scr31_argv_start(&line, "scr-halt") != SCR_SUCCESS) return SCR31_EXIT_FAILED;
    int c, before = optind, status = 0;
    opterr = 0;
    for (; status == 0 && (c = getopt_long(argc, argv, ":c:b:a:is:lrvh", options, NULL)) != -1;
         before = optind) {
        int rc = SCR_SUCCESS;
        switch (c) {
        case 'c': rc = scr31_argv_add(&line, "--checkpoints"); break;
        case 'b': rc = scr31_argv_add(&line, "--before"); break;
        case 'a': rc = scr31_argv_add(&line, "--after"); break;
        case 's': rc = scr31_argv_add(&line, "--seconds"); break;
        case 'l': rc = scr31_argv_add(&line, "--list"); break;
        case 'r': rc = scr31_argv_add(&line, "--remove"); break;
        case UNSET_CHECKPOINTS: rc = scr31_argv_add(&line, "--unset-checkpoints"); break;
        case UNSET_BEFORE: rc = scr31_argv_add(&line, "--unset-before"); break;
        case UNSET_AFTER: rc = scr31_argv_add(&line, "--unset-after"); break;
        case UNSET_SECONDS: rc = scr31_argv_add(&line, "--unset-seconds"); break;
        case UNSET_REASON: rc = scr31_argv_add(&line, "--unset-reason"); break;
        case 'i':
            status =
                scr31_refuse("--immediate", "a halt is read by the job at its next checkpoint, and "
                                            "this command kills no run; run scr_halt, then scancel "
                                            "JOBID.STEP (the step, not the job)");
            break;
        case 'v': scr31_verbose(); break;
        case 'h':
            halt_usage();
            status = HELP_SHOWN;
            break;
        default: status = scr_cli_refused_option(c, argv, before); break;
        }
        /* the options with a value pass it on as given: scr-halt checks it */
        if (rc == SCR_SUCCESS && (c == 'c' || c == 'b' || c == 'a' || c == 's'))
            rc = scr31_argv_add(&line, optarg);
        if (rc != SCR_SUCCESS) status = SCR31_EXIT_FAILED;
    }
    char *cwd = NULL;
    if (status == 0 && optind == argc && (cwd = getcwd(NULL, 0)) == NULL) {
        scr_err("cannot tell the current directory");
        status = SCR31_EXIT_FAILED;
    }
    /* one scr-halt per prefix: the line ends with the directory, after
     * "--" so that a directory named like an option is read as one */
    if (status == 0 && scr31_argv_add(&line, "--") != SCR_SUCCESS) status = SCR31_EXIT_FAILED;
    char **dirs = optind < argc ? argv + optind : &cwd;
    int ndirs = status == 0 ? (optind < argc ? argc - optind : 1) : 0, dir_at = line.count;
    /* every prefix is tried; the first failure is the exit status */
    for (int i = 0; i < ndirs; i++) {
        line.count = dir_at;
        int st =
            scr31_argv_add(&line, dirs[i]) == SCR_SUCCESS ? scr31_run(&line) : SCR31_EXIT_FAILED;
        if (status == 0) status = st;
    }
    scr31_argv_free(&line);
    free(cwd);
    return finish(status);
}

/* --- scr_srun ------------------------------------------------------------------- */

static void srun_usage(void)
{
    printf("Usage: scr_srun [SRUN_OPTIONS] PROG [PROG_ARGS...]\n"
           "Run an SCR job with srun inside this allocation, again after a failure (up to\n"
           "SCR_RUNS runs, avoiding the nodes that are down), and copy the newest\n"
           "checkpoint left in cache to the prefix at the end, as SCR 3.1's scr_srun does;\n"
           "scr-run(1) does the work. The prefix is SCR_PREFIX, else the current\n"
           "directory; SCR_MIN_NODES and SCR_HALT_SECONDS hold as in scr-run (the\n"
           "allocation's end is asked of slurmctld when SCR_END_TIME is unset). With\n"
           "SCR_ENABLE=0, srun runs once, alone.\n"
           "--run-cmd and --restart-cmd are refused.\n"
           "Exit status: that of the last run; 3 when scr-run could not do its own work.\n");
}

/* SCR 3.1 reads these anywhere on the line, as it does --help. */
static int is_restart_option(const char *arg)
{
    return strncmp(arg, "-rc", 3) == 0 || strncmp(arg, "--run-cmd", 9) == 0 ||
           strncmp(arg, "-rs", 3) == 0 || strncmp(arg, "--restart-cmd", 13) == 0;
}

int scr31_srun(int argc, char **argv)
{
    if (argc < 2)
        return scr_cli_usage_error("no program to run: give srun's options and the program");
    /* SCR 3.1 shows its help for -h or --help anywhere on the line */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            srun_usage();
            return 0;
        }
    }
    for (int i = 1; i < argc; i++)
        if (is_restart_option(argv[i]))
            return scr31_refuse(argv[i],
                                "a restart runs the same command line as the first run; to "
                                "restart with another, run scr-run(1) once per command");
    /* with SCR off there is nothing to run again nor to copy: srun alone, as SCR 3.1 does */
    struct scr31_argv line;
    int rc;
    if (scr31_disabled()) {
        memset(&line, 0, sizeof(line));
        rc = scr31_argv_add(&line, "srun");
    } else {
        /* what the plugin would give: SCR_HALT_SECONDS counts from it, in scr-run and in the tasks
         */
        rc = scr31_export_end_time();
        if (rc == SCR_SUCCESS) rc = scr31_argv_start(&line, "scr-run");
        if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, "srun");
    }
    for (int i = 1; rc == SCR_SUCCESS && i < argc; i++) rc = scr31_argv_add(&line, argv[i]);
    int status = rc == SCR_SUCCESS ? scr31_exec(&line) : SCR31_EXIT_FAILED;
    scr31_argv_free(&line);
    return status;
}

/* --- scr_postrun ---------------------------------------------------------------- */

static void postrun_usage(void)
{
    printf("Usage: scr_postrun -j LAUNCHER [-p DIR] [-v]\n"
           "At the end of a job script: copy the newest dataset the job left in the nodes'\n"
           "cache to the prefix, if it is not there yet, rebuild what the down nodes held\n"
           "and index it, as SCR 3.1's scr_postrun does; scr-run --scavenge-only\n"
           "(scr-run(1)) does the work. Nothing is done when SCR_ENABLE=0.\n"
           "\n"
           "  -j, --joblauncher L   the launcher that reaches the nodes: srun or mpirun\n"
           "  -p, --prefix DIR      the prefix (default: SCR_PREFIX, else the current\n"
           "                        directory)\n"
           "  -v, --verbose         say more (SCR_DEBUG=1)\n"
           "  -h, --help            show this help\n"
           "\n"
           "Exit status: 0 done (also when there was nothing to copy); 2 usage error;\n"
           "3 the copy could not be made.\n");
}

int scr31_postrun(int argc, char **argv)
{
    static const struct option options[] = {
        {"joblauncher", required_argument, NULL, 'j'},
        {"prefix", required_argument, NULL, 'p'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *launcher = NULL, *prefix = NULL;
    int c, before = optind, status = 0;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":j:p:vh", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'j':
            if (!scr31_launcher_ok(optarg, &status)) return status;
            launcher = optarg;
            break;
        case 'p':
            if (optarg[0] == '\0') return scr_cli_usage_error("--prefix wants a directory");
            prefix = optarg;
            break;
        case 'v': scr31_verbose(); break;
        case 'h': postrun_usage(); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (launcher == NULL)
        return scr_cli_usage_error("-j/--joblauncher is required (srun or mpirun)");
    if (scr31_disabled()) return 0;
    struct scr31_argv line;
    int rc = scr31_argv_start(&line, "scr-run");
    if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, "--scavenge-only");
    if (rc == SCR_SUCCESS && prefix != NULL) rc = scr31_argv_add(&line, "--prefix");
    if (rc == SCR_SUCCESS && prefix != NULL) rc = scr31_argv_add(&line, prefix);
    if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, launcher);
    status = rc == SCR_SUCCESS ? scr31_exec(&line) : SCR31_EXIT_FAILED;
    scr31_argv_free(&line);
    return status;
}

/* --- scr_list_down_nodes --------------------------------------------------------- */

static void down_usage(void)
{
    printf("Usage: scr_list_down_nodes -j LAUNCHER [options] [NODESET]\n"
           "The nodes of NODESET (default: the allocation's) that a run should avoid, as\n"
           "SCR 3.1's scr_list_down_nodes takes them; scr-list-down-nodes(1) does the\n"
           "work.\n"
           "\n"
           "  -j, --joblauncher L   the job's launcher: srun or mpirun\n"
           "  -r, --reason          one line per down node: NODE: why\n"
           "  -f, --free            check this node's cache against the space free\n"
           "  -d, --down NODESET    nodes known to be down: counted down, not checked\n"
           "  -l, --log             record each down node in the prefix's event log\n"
           "  -s, --secs N          with --log: the job ran N seconds\n"
           "  -h, --help            show this help\n");
}

int scr31_list_down_nodes(int argc, char **argv)
{
    static const struct option options[] = {
        {"joblauncher", required_argument, NULL, 'j'},
        {"reason", no_argument, NULL, 'r'},
        {"free", no_argument, NULL, 'f'},
        {"down", required_argument, NULL, 'd'},
        {"log", no_argument, NULL, 'l'},
        {"secs", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct scr31_argv line;
    if (scr31_argv_start(&line, "scr-list-down-nodes") != SCR_SUCCESS) return SCR31_EXIT_FAILED;
    const char *launcher = NULL;
    int c, before = optind, status = 0;
    opterr = 0;
    for (; status == 0 && (c = getopt_long(argc, argv, ":j:rfd:ls:h", options, NULL)) != -1;
         before = optind) {
        int rc = SCR_SUCCESS;
        switch (c) {
        case 'j':
            if (scr31_launcher_ok(optarg, &status)) launcher = optarg;
            break;
        case 'r': rc = scr31_argv_add(&line, "--reason"); break;
        case 'f': rc = scr31_argv_add(&line, "--free"); break;
        case 'l': rc = scr31_argv_add(&line, "--log"); break;
        case 'd':
            rc = scr31_argv_add(&line, "--down");
            if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, optarg);
            break;
        case 's':
            rc = scr31_argv_add(&line, "--secs");
            if (rc == SCR_SUCCESS) rc = scr31_argv_add(&line, optarg);
            break;
        case 'h':
            down_usage();
            status = HELP_SHOWN;
            break;
        default: status = scr_cli_refused_option(c, argv, before); break;
        }
        if (rc != SCR_SUCCESS) status = SCR31_EXIT_FAILED;
    }
    if (status == 0 && launcher == NULL)
        status = scr_cli_usage_error("-j/--joblauncher is required (srun or mpirun)");
    for (int i = optind; status == 0 && i < argc; i++)
        if (scr31_argv_add(&line, argv[i]) != SCR_SUCCESS) status = SCR31_EXIT_FAILED;
    if (status == 0) status = scr31_exec(&line);
    scr31_argv_free(&line);
    return finish(status);
}
