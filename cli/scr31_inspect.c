/* scr31_inspect.c — scr_inspect: which cached datasets the nodes still up
 * can give back whole; scr_inspect_cache: what one node's cache holds.
 *
 * scr_inspect -j NODESET -f CNTLDIR [-u NODESET | -d NODESET] starts one
 * scr_inspect_cache per up node with srun, inside the job's allocation (the
 * pdsh of SCR 3.1). Each reports, one line per rank it holds whole
 * (cached_ranks.h) of each dataset, its own files only (PARTNER copies it
 * keeps for others say nothing of them):
 *   DSET=<id> RANK=<r> RANKS=<n> TYPE=<t> FAILURES=<f> HOP=<h> SET_SIZE=<s> MEMBERS=<r0>,<r1>,...
 * scr_inspect gathers the lines of every node and lists, as SCR 3.1 does,
 * on one line, ascending, the ids of the datasets whose every rank is held
 * or can be rebuilt: each set survives the ranks no node reported, and no
 * such rank is outside every set seen (a set all of whose members are gone).
 * A node that cannot be inspected counts as lost: a dataset is never listed
 * on a guess. */
#include "scr31_front.h"
#include "cached_ranks.h"
#include "cli_common.h"
#include "dataset.h"
#include "down_nodes.h"
#include "filemap.h"
#include "job_env.h"
#include "kvtree.h"
#include "kvtree_util.h"
#include "meta.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The longest set a report line may describe. */
#define INSPECT_MAX_RANKS (1 << 24)

/* --- scr_inspect_cache ------------------------------------------------------------ */

static void cache_usage(void)
{
    printf("Usage: scr_inspect_cache CNTLDIR[/filemap.scrinfo]\n"
           "What this node's cache holds: one line per rank held whole, for each\n"
           "dataset, with its redundancy set. scr_inspect runs it on every node. A %%N in\n"
           "CNTLDIR is this node's name (%%u the user, %%j the job id), as in SCR_CNTL_BASE.\n"
           "\n"
           "  -h, --help    show this help\n"
           "\n"
           "Exit status: 0 done (also for an empty cache); 1 a filemap cannot be read;\n"
           "2 usage error.\n");
}

/* The number of ranks that wrote dataset id, from the RANKS of any file's
 * meta of rank; 0 when none records it (a rank that wrote no file holds
 * none: scr_inspect takes the number from the other ranks' lines). */
static int ranks_of(const scr_filemap *map, int id, int rank)
{
    const char **files = NULL;
    int nfiles = 0, ranks = 0;
    if (scr_filemap_list_files(map, id, rank, &files, &nfiles) != SCR_SUCCESS) return 0;
    for (int f = 0; ranks == 0 && f < nfiles; f++) {
        const scr_meta *meta = NULL;
        if (scr_filemap_get_meta(map, id, rank, files[f], &meta) != SCR_SUCCESS ||
            scr_meta_get_ranks(meta, &ranks) != SCR_SUCCESS)
            ranks = 0;
    }
    free(files);
    return ranks;
}

/* Print the report line of rank's own files of dataset id, when it holds
 * them whole and its records say what protects them. */
static void report_rank(const scr_filemap *map, int id, int rank)
{
    const char *holder = NULL, *type = NULL;
    const scr_kvtree *red = NULL, *members = NULL;
    int failures = 0, hop = 1, size = 0, ranks = 0;
    if (scr_filemap_get_tag(map, id, rank, "HOLDER", &holder) == SCR_SUCCESS &&
        strcmp(holder, "PARTNER") == 0)
        return;
    if (!scr_cached_rank_is_intact(map, id, rank) ||
        scr_filemap_get_reddesc(map, id, rank, &red) != SCR_SUCCESS ||
        scr_kvtree_util_get_str(red, "TYPE", &type) != SCR_SUCCESS ||
        scr_kvtree_util_get_int(red, "SET_SIZE", &size) != SCR_SUCCESS || size < 1 ||
        size > INSPECT_MAX_RANKS || (members = scr_kvtree_get(red, "MEMBERS")) == NULL)
        return; /* not whole, or nothing tells how it could be rebuilt: counted lost */
    scr_kvtree_util_get_int(red, "FAILURES", &failures);
    scr_kvtree_util_get_int(red, "HOP", &hop);
    ranks = ranks_of(map, id, rank);
    printf("DSET=%d RANK=%d RANKS=%d TYPE=%s FAILURES=%d HOP=%d SET_SIZE=%d MEMBERS=", id, rank,
           ranks, type, failures, hop, size);
    for (int i = 0; i < size; i++) {
        char key[16];
        int member = -1;
        snprintf(key, sizeof(key), "%d", i);
        scr_kvtree_util_get_int(members, key, &member);
        printf("%s%d", i ? "," : "", member);
    }
    printf("\n");
}

/* The control directory the argument names, in a new string: SCR 3.1
 * passes <cntldir>/filemap.scrinfo; patterns expanded for this node. */
static int cache_dir_of(const char *arg, char **out_dir)
{
    char node[256], user[256], jobid[256];
    int defaulted = 0;
    int rc = scr_job_env_node_name(node, sizeof(node));
    if (rc == SCR_SUCCESS) rc = scr_job_env_user_name(user, sizeof(user));
    if (rc == SCR_SUCCESS) rc = scr_job_env_job_id(jobid, sizeof(jobid), &defaulted);
    if (rc == SCR_SUCCESS) rc = scr_job_env_expand(arg, node, user, jobid, out_dir);
    if (rc != SCR_SUCCESS) return rc;
    size_t len = strlen(*out_dir), tail = strlen("/filemap.scrinfo");
    if (len > tail && strcmp(*out_dir + len - tail, "/filemap.scrinfo") == 0)
        (*out_dir)[len - tail] = '\0';
    return SCR_SUCCESS;
}

int scr31_inspect_cache(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c, before = optind;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":h", options, NULL)) != -1; before = optind) {
        if (c == 'h') {
            cache_usage();
            return 0;
        }
        return scr_cli_refused_option(c, argv, before);
    }
    if (optind >= argc) return scr_cli_usage_error("no control directory given");
    if (optind + 1 < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (argv[optind][0] == '\0') return scr_cli_usage_error("the control directory is empty");
    char *dir = NULL;
    int *ids = NULL, nids = 0;
    scr_filemap *map = scr_filemap_new();
    if (map == NULL) {
        scr_err("out of memory");
        return 1;
    }
    int rc = cache_dir_of(argv[optind], &dir);
    if (rc == SCR_SUCCESS) rc = scr_cached_read_filemaps(dir, map);
    if (rc == SCR_SUCCESS) rc = scr_filemap_list_datasets(map, &ids, &nids);
    for (int i = 0; rc == SCR_SUCCESS && i < nids; i++) {
        int *ranks = NULL, nranks = 0;
        rc = scr_filemap_list_ranks_by_dataset(map, ids[i], &ranks, &nranks);
        for (int r = 0; rc == SCR_SUCCESS && r < nranks; r++) report_rank(map, ids[i], ranks[r]);
        free(ranks);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        scr_err("cannot write the report: %s", strerror(errno));
        rc = SCR_ERR_IO;
    }
    free(ids);
    free(dir);
    scr_filemap_delete(map);
    return rc == SCR_SUCCESS ? 0 : 1;
}

/* --- scr_inspect ------------------------------------------------------------------ */

static void inspect_usage(void)
{
    printf("Usage: scr_inspect -j NODESET -f CNTLDIR [-u NODESET | -d NODESET]\n"
           "The ids of the datasets in the nodes' caches that can be copied whole to the\n"
           "prefix (the files they lack rebuilt from their redundancy data), ascending, on\n"
           "one line, as SCR 3.1's scr_inspect prints them. Each up node's cache is read\n"
           "by scr_inspect_cache, started there with srun: run it inside the job's\n"
           "allocation.\n"
           "\n"
           "  -j, --jobset NODESET  the job's nodes (required)\n"
           "  -u, --up NODESET      the nodes that are up (default: the job's nodes)\n"
           "  -d, --down NODESET    the nodes that are down: the others are up\n"
           "  -f, --from CNTLDIR    the control directory on each node, as 'scr_list_dir\n"
           "                        control' prints it (required; %%N: the node's name)\n"
           "  -h, --help            show this help\n"
           "\n"
           "Exit status: 0 done (also when no dataset can be copied: the line is empty);\n"
           "1 the nodes could not be inspected; 2 usage error.\n");
}

/* The up nodes as one comma-separated list in a new string (*out_count of
 * them): nodeset less down, or up. */
static int up_nodes(const char *jobset, const char *up, const char *down, char **out,
                    int *out_count)
{
    struct scr_down_nodes list;
    struct scr_down_nodes_query q = {.nodelist = up ? up : jobset, .down = down};
    int rc = scr_down_nodes_find(&q, &list);
    if (rc != SCR_SUCCESS) return rc;
    size_t len = 1;
    for (int i = 0; i < list.count; i++) len += strlen(list.nodes[i].name) + 1;
    char *text = calloc(len, 1);
    if (text == NULL) {
        scr_down_nodes_free(&list);
        scr_err("out of memory");
        return SCR_ERR_NOMEM;
    }
    int n = 0;
    for (int i = 0; i < list.count; i++) {
        if (list.nodes[i].down) continue;
        if (n++) strcat(text, ",");
        strcat(text, list.nodes[i].name);
    }
    scr_down_nodes_free(&list);
    *out = text;
    *out_count = n;
    return SCR_SUCCESS;
}

/* One report line into seen: DSET <id> RANKS <n> and DSET <id> RANK <r>
 * holding the rank's redundancy record. SCR_ERR_FORMAT (said, with the
 * line) when it is not a report line or contradicts an earlier one. */
static int take_line(scr_kvtree *seen, const char *line)
{
    int id = 0, rank = -1, ranks = 0, failures = 0, hop = 0, size = 0, used = 0;
    char type[16];
    if (sscanf(line,
               "DSET=%d RANK=%d RANKS=%d TYPE=%15[A-Z] FAILURES=%d HOP=%d SET_SIZE=%d MEMBERS=%n",
               &id, &rank, &ranks, type, &failures, &hop, &size, &used) != 7 ||
        used == 0 || id < 1 || ranks < 0 || ranks > INSPECT_MAX_RANKS || rank < 0 ||
        rank >= INSPECT_MAX_RANKS || (ranks > 0 && rank >= ranks) || size < 1 ||
        size > INSPECT_MAX_RANKS || failures < 0 || hop < 1)
        goto bad;
    scr_kvtree *dset = scr_kvtree_getf(seen, "DSET %d", id);
    if (dset == NULL) dset = scr_kvtree_setf(seen, NULL, "DSET %d", id);
    int had = 0;
    if (dset == NULL) goto nomem;
    if (ranks > 0 && scr_kvtree_util_get_int(dset, "RANKS", &had) == SCR_SUCCESS && had != ranks) {
        scr_err("scr_inspect_cache reports dataset %d written by %d ranks, and earlier by %d: '%s'",
                id, ranks, had, line);
        return SCR_ERR_FORMAT;
    }
    scr_kvtree *red = scr_kvtree_new();
    scr_kvtree *members = red ? scr_kvtree_set(red, "MEMBERS", scr_kvtree_new()) : NULL;
    if (members == NULL ||
        (ranks > 0 && scr_kvtree_util_set_int(dset, "RANKS", ranks) != SCR_SUCCESS) ||
        scr_kvtree_util_set_str(red, "TYPE", type) != SCR_SUCCESS ||
        scr_kvtree_util_set_int(red, "FAILURES", failures) != SCR_SUCCESS ||
        scr_kvtree_util_set_int(red, "HOP", hop) != SCR_SUCCESS ||
        scr_kvtree_util_set_int(red, "SET_SIZE", size) != SCR_SUCCESS) {
        scr_kvtree_delete(red);
        goto nomem;
    }
    const char *p = line + used;
    for (int i = 0; i < size; i++) {
        char *end = NULL, key[16];
        errno = 0;
        long member = strtol(p, &end, 10);
        if (end == p || errno || member < 0 || member >= INSPECT_MAX_RANKS ||
            *end != (i + 1 < size ? ',' : '\0')) {
            scr_kvtree_delete(red);
            goto bad;
        }
        snprintf(key, sizeof(key), "%d", i);
        if (scr_kvtree_util_set_int(members, key, (int)member) != SCR_SUCCESS) {
            scr_kvtree_delete(red);
            goto nomem;
        }
        p = end + 1;
    }
    if (scr_kvtree_setf(dset, red, "RANK %d", rank) == NULL) goto nomem;
    return SCR_SUCCESS;
bad:
    scr_err("not a line of scr_inspect_cache: '%s'", line);
    return SCR_ERR_FORMAT;
nomem:
    scr_err("out of memory");
    return SCR_ERR_NOMEM;
}

/* Run line and take every line it prints into seen (*out_lines of them);
 * *out_status is its exit status (128 + signal when killed). */
static int gather(struct scr31_argv *line, scr_kvtree *seen, int *out_lines, int *out_status)
{
    int fds[2];
    if (pipe(fds) != 0) {
        scr_err("cannot make a pipe: %s", strerror(errno));
        return SCR_ERR_IO;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        scr_err("cannot start %s: %s", line->words[0], strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return SCR_ERR_IO;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0) _exit(SCR31_EXIT_FAILED);
        close(fds[1]);
        execvp(line->words[0], line->words);
        scr_err("cannot run %s: %s", line->words[0], strerror(errno));
        _exit(SCR31_EXIT_FAILED);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    int rc = SCR_SUCCESS;
    if (in == NULL) {
        scr_err("cannot read the output of %s: %s", line->words[0], strerror(errno));
        close(fds[0]);
        rc = SCR_ERR_IO;
    }
    char *text = NULL;
    size_t room = 0;
    for (ssize_t n; in != NULL && (n = getline(&text, &room, in)) >= 0;) {
        if (n > 0 && text[n - 1] == '\n') text[n - 1] = '\0';
        int step = take_line(seen, text);
        *out_lines += step == SCR_SUCCESS;
        if (rc == SCR_SUCCESS)
            rc = step; /* read on, so that the nodes are not stopped by a full pipe */
    }
    free(text);
    if (in != NULL) fclose(in);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            scr_err("waiting for %s: %s", line->words[0], strerror(errno));
            return SCR_ERR_IO;
        }
    }
    *out_status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return rc;
}

/* 1 when every rank and member the lines of dataset dset name is below
 * ranks. */
static int within(const scr_kvtree *reported, int ranks)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(reported); e; e = scr_kvtree_elem_next(e)) {
        if (atoi(scr_kvtree_elem_key(e)) >= ranks) return 0;
        const scr_kvtree *members = scr_kvtree_get(scr_kvtree_elem_hash(e), "MEMBERS");
        for (scr_kvtree_elem *m = scr_kvtree_elem_first(members); m; m = scr_kvtree_elem_next(m)) {
            int member = -1;
            if (scr_kvtree_util_get_int(members, scr_kvtree_elem_key(m), &member) != SCR_SUCCESS ||
                member >= ranks)
                return 0;
        }
    }
    return 1;
}

/* 1 when dataset dset (DSET <id> of the reports) can be copied whole: every
 * rank reported, or rebuilt within what its set survives. Not when no line
 * says how many ranks wrote it, or a line names a rank beyond them: what
 * cannot be judged is not counted on. */
static int recoverable(const scr_kvtree *dset)
{
    int ranks = 0;
    const scr_kvtree *reported = scr_kvtree_get(dset, "RANK");
    if (scr_kvtree_util_get_int(dset, "RANKS", &ranks) != SCR_SUCCESS || reported == NULL ||
        !within(reported, ranks))
        return 0;
    char *gone = malloc((size_t)ranks), *in_a_set = calloc((size_t)ranks, 1);
    if (gone == NULL || in_a_set == NULL) {
        free(gone);
        free(in_a_set);
        scr_err("out of memory");
        return 0;
    }
    memset(gone, 1, (size_t)ranks);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(reported); e; e = scr_kvtree_elem_next(e))
        gone[atoi(scr_kvtree_elem_key(e))] = 0;
    int ok = 1;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(reported); ok && e;
         e = scr_kvtree_elem_next(e)) {
        const scr_kvtree *red = scr_kvtree_elem_hash(e);
        ok = scr_cached_set_survives(red, gone, ranks, NULL, 0);
        const scr_kvtree *members = scr_kvtree_get(red, "MEMBERS");
        for (scr_kvtree_elem *m = scr_kvtree_elem_first(members); m; m = scr_kvtree_elem_next(m)) {
            int member = -1;
            if (scr_kvtree_util_get_int(members, scr_kvtree_elem_key(m), &member) == SCR_SUCCESS)
                in_a_set[member] = 1;
        }
    }
    /* a rank gone with every member of its set is in no set reported */
    for (int r = 0; ok && r < ranks; r++) ok = !gone[r] || in_a_set[r];
    free(gone);
    free(in_a_set);
    return ok;
}

/* scr_inspect_cache on each of the nnodes nodes (a comma-separated list),
 * with srun; what they report into seen. A node that did not report is
 * warned of; none reporting while srun failed is an error. */
static int inspect_nodes(const char *nodes, int nnodes, const char *from, scr_kvtree *seen)
{
    char count[32], tasks[32];
    snprintf(count, sizeof(count), "--nodes=%d", nnodes);
    snprintf(tasks, sizeof(tasks), "--ntasks=%d", nnodes);
    size_t len = strlen(nodes) + sizeof("--nodelist=");
    char *which = malloc(len);
    if (which == NULL) {
        scr_err("out of memory");
        return SCR_ERR_NOMEM;
    }
    snprintf(which, len, "--nodelist=%s", nodes);
    struct scr31_argv helper = {0}, run = {0};
    int rc = scr31_argv_start_front_end(&helper, "scr_inspect_cache");
    const char *words[] = {"srun", count,
                           tasks,  "--ntasks-per-node=1",
                           which,  rc == SCR_SUCCESS ? helper.words[0] : "",
                           from};
    for (size_t i = 0; rc == SCR_SUCCESS && i < sizeof(words) / sizeof(words[0]); i++)
        rc = scr31_argv_add(&run, words[i]);
    int lines = 0, status = 0;
    if (rc == SCR_SUCCESS) rc = gather(&run, seen, &lines, &status);
    if (rc == SCR_SUCCESS && status != 0 && lines == 0) {
        scr_err("srun of scr_inspect_cache on %s ended with exit status %d, and no node reported",
                nodes, status);
        rc = SCR_FAILURE;
    } else if (rc == SCR_SUCCESS && status != 0) {
        scr_warn("srun of scr_inspect_cache on %s ended with exit status %d: the ranks of a node "
                 "that did not "
                 "report count as lost",
                 nodes, status);
    }
    scr31_argv_free(&run);
    scr31_argv_free(&helper);
    free(which);
    return rc;
}

int scr31_inspect(int argc, char **argv)
{
    static const struct option options[] = {
        {"jobset", required_argument, NULL, 'j'}, {"up", required_argument, NULL, 'u'},
        {"down", required_argument, NULL, 'd'},   {"from", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *jobset = NULL, *up = NULL, *down = NULL, *from = NULL;
    int c, before = optind;
    opterr = 0;
    for (; (c = getopt_long(argc, argv, ":j:u:d:f:h", options, NULL)) != -1; before = optind) {
        switch (c) {
        case 'j': jobset = optarg; break;
        case 'u': up = optarg; break;
        case 'd': down = optarg; break;
        case 'f': from = optarg; break;
        case 'h': inspect_usage(); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (optind < argc) return scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (jobset == NULL || jobset[0] == '\0')
        return scr_cli_usage_error("-j/--jobset NODESET is required");
    if (from == NULL || from[0] == '\0')
        return scr_cli_usage_error("-f/--from CNTLDIR is required");
    if (up != NULL && down != NULL)
        return scr_cli_usage_error(
            "--up and --down cannot be combined: give the nodes up, or the nodes down");
    /* as in SCR 3.1, an empty --down names no node down (scr_list_down_nodes prints
     * nothing then), an empty --up no node up */
    if (down != NULL && down[0] == '\0') down = NULL;
    const char *job = getenv("SLURM_JOB_ID");
    if (job == NULL || job[0] == '\0') {
        scr_err("no Slurm allocation (SLURM_JOB_ID is not set): the nodes' caches are read with "
                "srun, from "
                "inside the job's allocation");
        return 1;
    }

    char *nodes = NULL;
    int nnodes = 0;
    if (up != NULL && up[0] == '\0')
        nodes = strdup("");
    else if (up_nodes(jobset, up, down, &nodes, &nnodes) != SCR_SUCCESS)
        return 2;
    if (nodes == NULL) {
        scr_err("out of memory");
        return 1;
    }
    scr_kvtree *seen = scr_kvtree_new();
    if (seen == NULL) {
        free(nodes);
        scr_err("out of memory");
        return 1;
    }
    int rc = nnodes > 0 ? inspect_nodes(nodes, nnodes, from, seen) : SCR_SUCCESS;
    free(nodes);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(seen);
        return 1;
    }
    /* the ids, ascending, on one line */
    scr_kvtree *dsets = scr_kvtree_get(seen, "DSET");
    if (dsets != NULL) scr_kvtree_sort_int(dsets, SCR_KVTREE_SORT_ASCENDING);
    int printed = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(dsets); e; e = scr_kvtree_elem_next(e))
        if (recoverable(scr_kvtree_elem_hash(e)))
            printf("%s%s", printed++ ? " " : "", scr_kvtree_elem_key(e));
    printf("\n");
    scr_kvtree_delete(seen);
    if (fflush(stdout) != 0) {
        scr_err("cannot write to standard output: %s", strerror(errno));
        return 1;
    }
    return 0;
}
