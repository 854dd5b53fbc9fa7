/* scr_halt.c — scr-halt: tell a running or future job on a prefix to stop.
 *
 * Sets, removes or lists the conditions of <prefix>/.scr/halt.scr, which the
 * library reads at SCR_Init, in SCR_Need_checkpoint, after each checkpoint
 * and in SCR_Should_exit. Each change is one locked update (halt_edit.h); a
 * request without any condition records the reason JOB_HALTED, as SCR does,
 * so the job stops at its next check. A change or removal first prints
 * SCR's own line, "Updating halt file in <prefix>", which scripts match;
 * --json prints one JSON object instead. The prefix is the argument, else
 * $SCR_PREFIX, else the current directory. Exit status: 0 done, 1 the
 * prefix is missing, the halt file is damaged or cannot be written (one
 * line on stderr), 2 usage error (a bad TIME or count included). Run by
 * root, it acts as the prefix's owner (act_as_owner.h). Links only
 * libscr-core (no MPI). */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "cli_json.h"
#include "halt_edit.h"
#include "halt_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* parse's answer when the command is to go on; exit statuses are 0 or more. */
#define PARSE_GO_ON (-1)

/* Long options without a short form. */
enum {
    OPT_UNSET_CHECKPOINTS = 256,
    OPT_UNSET_BEFORE,
    OPT_UNSET_AFTER,
    OPT_UNSET_SECONDS,
    OPT_UNSET_REASON,
    OPT_JSON,
};

static void usage(FILE *out)
{
    fprintf(out, "Usage: scr-halt [OPTION]... [DIR]\n"
                 "Tell a running or future SCR job on the prefix DIR to stop, through\n"
                 "DIR/.scr/halt.scr (default DIR: $SCR_PREFIX, else the current directory).\n"
                 "Without any option, the job stops at its next check (reason JOB_HALTED).\n"
                 "\n"
                 "  -c, --checkpoints N  stop after N more checkpoints\n"
                 "  -b, --before TIME    stop before TIME, HaltSeconds (or SCR_HALT_SECONDS)\n"
                 "                       ahead of it\n"
                 "  -a, --after TIME     stop once TIME has passed\n"
                 "  -s, --seconds N      HaltSeconds: the margin in seconds before --before's\n"
                 "                       TIME and the end of the allocation\n"
                 "  -i, --immediate      stop at the next check, whatever else is set\n"
                 "                       (reason JOB_HALTED)\n"
                 "  -l, --list           print the conditions (also printed after a change)\n"
                 "      --unset-checkpoints, --unset-before, --unset-after, --unset-seconds,\n"
                 "      --unset-reason   remove that condition\n"
                 "  -r, --remove         remove the halt file: no condition at all\n"
                 "      --json           print the conditions (and what changed) as one JSON\n"
                 "                       object\n"
                 "  -h, --help           show this help\n"
                 "  -V, --version        show the version\n"
                 "\n"
                 "TIME is local time '2026-11-22 17:30[:00]', ISO '2026-11-22T17:30[:00]',\n"
                 "'17:30[:00]' (today), '@1790000000' (seconds since the epoch), or from now:\n"
                 "'+90s', '+30m', '+2h', '+1d'.\n"
                 "\n"
                 "Exit status: 0 if done, 1 if DIR is missing or the halt file is damaged or\n"
                 "cannot be written, 2 for a usage error.\n");
}

/* What the command line asks for. */
struct request {
    struct scr_halt_edit edit;
    int list, remove, json;
    const char *dir;
};

/* text as a whole number from 0 to max; 0 when it is not one. */
static int whole_number(const char *text, int64_t max, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || errno != 0 || *end != '\0' || v > max) return 0;
    *out = v;
    return 1;
}

/* Record that option sets key; a key set twice, or set and removed, is a
 * usage error (returned as 2; 0 when all is well). */
static int mark(struct request *req, int key, int unset, const char *option)
{
    if ((req->edit.set | req->edit.unset) & key)
        return scr_cli_usage_error("%s conflicts with an earlier option on the same condition",
                                   option);
    if (unset)
        req->edit.unset |= key;
    else
        req->edit.set |= key;
    return 0;
}

static int set_time(struct request *req, int key, const char *option, const char *text,
                    int64_t *out)
{
    if (scr_halt_edit_parse_time(text, (int64_t)time(NULL), out) != SCR_SUCCESS)
        return scr_cli_usage_error("%s: cannot read '%s' as a time; use '2026-11-22 17:30', "
                                   "'17:30', '@1790000000' or '+30m' (see --help)",
                                   option, text);
    return mark(req, key, 0, option);
}

/* Fill req from the command line; returns PARSE_GO_ON, else the exit status. */
static int parse(int argc, char **argv, struct request *req)
{
    static const struct option options[] = {
        {"checkpoints", required_argument, NULL, 'c'},
        {"before", required_argument, NULL, 'b'},
        {"after", required_argument, NULL, 'a'},
        {"seconds", required_argument, NULL, 's'},
        {"immediate", no_argument, NULL, 'i'},
        {"list", no_argument, NULL, 'l'},
        {"unset-checkpoints", no_argument, NULL, OPT_UNSET_CHECKPOINTS},
        {"unset-before", no_argument, NULL, OPT_UNSET_BEFORE},
        {"unset-after", no_argument, NULL, OPT_UNSET_AFTER},
        {"unset-seconds", no_argument, NULL, OPT_UNSET_SECONDS},
        {"unset-reason", no_argument, NULL, OPT_UNSET_REASON},
        {"remove", no_argument, NULL, 'r'},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int before = optind, c, status = 0;
    int64_t v;
    opterr = 0; /* say it ourselves, naming the command rather than argv[0] */
    for (; status == 0 && (c = getopt_long(argc, argv, ":c:b:a:s:ilrhV", options, NULL)) != -1;
         before = optind) {
        switch (c) {
        case 'c':
            if (!whole_number(optarg, INT_MAX, &v))
                return scr_cli_usage_error("--checkpoints wants a count of checkpoints (0 or "
                                           "more), not '%s'",
                                           optarg);
            req->edit.checkpoints = (int)v;
            status = mark(req, SCR_HALT_EDIT_CHECKPOINTS, 0, "--checkpoints");
            break;
        case 'b':
            status = set_time(req, SCR_HALT_EDIT_EXIT_BEFORE, "--before", optarg,
                              &req->edit.exit_before);
            break;
        case 'a':
            status =
                set_time(req, SCR_HALT_EDIT_EXIT_AFTER, "--after", optarg, &req->edit.exit_after);
            break;
        case 's':
            if (!whole_number(optarg, INT64_MAX, &v))
                return scr_cli_usage_error("--seconds wants a number of seconds (0 or more), "
                                           "not '%s'",
                                           optarg);
            req->edit.halt_seconds = v;
            status = mark(req, SCR_HALT_EDIT_HALT_SECONDS, 0, "--seconds");
            break;
        case 'i':
            req->edit.reason = SCR_HALT_REASON_JOB_HALTED;
            status = mark(req, SCR_HALT_EDIT_EXIT_REASON, 0, "--immediate");
            break;
        case 'l': req->list = 1; break;
        case OPT_UNSET_CHECKPOINTS:
            status = mark(req, SCR_HALT_EDIT_CHECKPOINTS, 1, "--unset-checkpoints");
            break;
        case OPT_UNSET_BEFORE:
            status = mark(req, SCR_HALT_EDIT_EXIT_BEFORE, 1, "--unset-before");
            break;
        case OPT_UNSET_AFTER:
            status = mark(req, SCR_HALT_EDIT_EXIT_AFTER, 1, "--unset-after");
            break;
        case OPT_UNSET_SECONDS:
            status = mark(req, SCR_HALT_EDIT_HALT_SECONDS, 1, "--unset-seconds");
            break;
        case OPT_UNSET_REASON:
            status = mark(req, SCR_HALT_EDIT_EXIT_REASON, 1, "--unset-reason");
            break;
        case 'r': req->remove = 1; break;
        case OPT_JSON: req->json = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-halt (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: /* '?' or ':' */ return scr_cli_refused_option(c, argv, before);
        }
    }
    if (status != 0) return status;
    if (optind < argc) req->dir = argv[optind++];
    if (optind < argc)
        return scr_cli_usage_error("unexpected argument '%s' (one DIR only)", argv[optind]);
    if (req->dir != NULL && req->dir[0] == '\0') return scr_cli_usage_error("DIR is empty");
    int changes = req->edit.set | req->edit.unset;
    if (req->remove && (changes || req->list))
        return scr_cli_usage_error("--remove cannot be combined with other options");
    /* SCR's default: no condition at all means stop at the next check */
    if (!changes && !req->list && !req->remove) {
        req->edit.reason = SCR_HALT_REASON_JOB_HALTED;
        req->edit.set = SCR_HALT_EDIT_EXIT_REASON;
    }
    return PARSE_GO_ON;
}

/* The halt file's conditions and what a job would do now, as --json prints
 * them (schema in scr-halt(1)); action is "list", "updated" or "removed". */
static int print_json(const char *prefix, const char *path, const char *action, int removed,
                      const scr_kvtree *halt)
{
    struct json_object *obj = json_object_new_object(), *cond = json_object_new_object();
    int64_t now = (int64_t)time(NULL), v = 0;
    int count = 0, bad = obj == NULL || cond == NULL;
    const char *reason = NULL;
    enum scr_halt_file_cause cause = SCR_HALT_NONE;
    bad = bad || scr_cli_json_put(obj, "prefix", json_object_new_string(prefix)) ||
          scr_cli_json_put(obj, "halt_file", json_object_new_string(path)) ||
          scr_cli_json_put(obj, "action", json_object_new_string(action));
    if (!bad && strcmp(action, "removed") == 0)
        bad = scr_cli_json_put(obj, "removed", json_object_new_boolean(removed));
    /* each value is read before it is added: argument order is unspecified */
    int has = !bad && scr_halt_file_get_checkpoints_left(halt, &count) == SCR_SUCCESS;
    bad =
        bad || scr_cli_json_put_or_null(cond, "checkpoints_left", has, json_object_new_int(count));
    if (!bad) {
        has = scr_halt_file_get_exit_after(halt, &v) == SCR_SUCCESS;
        bad = scr_cli_json_put_or_null(cond, "exit_after", has, json_object_new_int64(v));
    }
    if (!bad) {
        has = scr_halt_file_get_exit_before(halt, &v) == SCR_SUCCESS;
        bad = scr_cli_json_put_or_null(cond, "exit_before", has, json_object_new_int64(v));
    }
    if (!bad) {
        has = scr_halt_file_get_halt_seconds(halt, &v) == SCR_SUCCESS;
        bad = scr_cli_json_put_or_null(cond, "halt_seconds", has, json_object_new_int64(v));
    }
    if (!bad) {
        has = scr_halt_file_get_exit_reason(halt, &reason) == SCR_SUCCESS;
        bad = scr_cli_json_put_or_null(cond, "exit_reason", has,
                                       has ? json_object_new_string(reason) : NULL);
    }
    if (!bad) {
        bad = scr_cli_json_put(obj, "conditions", cond);
        cond = NULL;
    }
    if (!bad && scr_halt_file_should_halt(halt, now, &cause) != SCR_SUCCESS) cause = SCR_HALT_NONE;
    if (!bad)
        bad = scr_cli_json_put(obj, "halts_now", json_object_new_boolean(cause != SCR_HALT_NONE)) ||
              scr_cli_json_put_or_null(obj, "why", cause != SCR_HALT_NONE,
                                       cause != SCR_HALT_NONE
                                           ? json_object_new_string(scr_halt_file_cause_text(cause))
                                           : NULL);
    json_object_put(cond);
    return scr_cli_json_print_built(obj, bad, 0);
}

/* --list alone: the conditions as they are; returns the exit status. */
static int list_conditions(const char *prefix, const char *path, int json)
{
    scr_kvtree *halt = scr_kvtree_new();
    int rc = halt != NULL ? scr_halt_file_read(path, halt) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && json)
        rc = print_json(prefix, path, "list", 0, halt);
    else if (rc == SCR_SUCCESS)
        rc = scr_halt_edit_fprint(stdout, halt, (int64_t)time(NULL));
    scr_kvtree_delete(halt);
    return rc == SCR_SUCCESS ? 0 : 1;
}

/* --remove; returns the exit status. The first line is SCR's own, which
 * scripts match. */
static int remove_conditions(const char *prefix, const char *path, int json)
{
    int removed = 0;
    if (scr_halt_edit_remove(path, &removed) != SCR_SUCCESS) return 1;
    if (json) {
        scr_kvtree *none = scr_kvtree_new();
        int rc = none != NULL ? print_json(prefix, path, "removed", removed, none) : SCR_ERR_NOMEM;
        scr_kvtree_delete(none);
        return rc == SCR_SUCCESS ? 0 : 1;
    }
    printf("Updating halt file in %s\n", prefix);
    printf(removed ? "removed %s\n" : "no halt file to remove (%s)\n", path);
    return 0;
}

/* Set and unset conditions, then show them; returns the exit status. */
static int change_conditions(const char *prefix, const char *path, const struct scr_halt_edit *edit,
                             int json)
{
    scr_kvtree *halt = scr_kvtree_new();
    int rc = halt != NULL ? scr_halt_edit_apply(path, edit, halt) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS && json) {
        rc = print_json(prefix, path, "updated", 0, halt);
    } else if (rc == SCR_SUCCESS) {
        printf("Updating halt file in %s\n", prefix);
        printf("updated %s:\n", path);
        rc = scr_halt_edit_fprint(stdout, halt, (int64_t)time(NULL));
    }
    scr_kvtree_delete(halt);
    return rc == SCR_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct request req;
    memset(&req, 0, sizeof(req));
    scr_cli_init("scr-halt");
    int status = parse(argc, argv, &req);
    if (status != PARSE_GO_ON) return status;

    char *prefix = scr_cli_resolve_prefix(req.dir), *path = NULL;
    struct stat st;
    struct scr_acting as;
    status = 1;
    if (prefix == NULL || scr_act_as_owner(prefix, SCR_OWNED_PREFIX, &as) != SCR_SUCCESS) {
        /* said why */
    } else if (stat(prefix, &st) != 0) {
        scr_err("the prefix %s is not a directory: %s", prefix, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        scr_err("the prefix %s is not a directory", prefix);
    } else if (scr_halt_file_path(prefix, &path) == SCR_SUCCESS) {
        if (req.remove)
            status = remove_conditions(prefix, path, req.json);
        else if (req.edit.set | req.edit.unset)
            status = change_conditions(prefix, path, &req.edit, req.json);
        else
            status = list_conditions(prefix, path, req.json);
    }
    free(path);
    free(prefix);
    if (fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        status = 1;
    }
    return status;
}
