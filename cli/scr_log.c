/* scr_log.c — scr-log: show the events recorded on a prefix.
 *
 * Reads <prefix>/.scr/events.jsonl (event_log.h, written when
 * SCR_LOG_ENABLE=1 by the library, the Slurm plugin and the commands)
 * under a shared lock, so that a line being appended is never read half,
 * and prints the events that pass every filter, oldest first: a table, or
 * with --json a JSON array of the events as they are in the file. A line
 * that is not a JSON object with an "event" and an "epoch" (a truncated
 * write, garbage) is named with its line number on stderr and skipped.
 * Exit status: 0 done (damaged lines included), 1 the log cannot be read
 * (missing: nothing was recorded), 2 usage error. Run by root, it reads
 * as the prefix's owner (act_as_owner.h). Links only libscr-core. */
#include "build_config.h"
#include "act_as_owner.h"
#include "cli_common.h"
#include "event_format.h"
#include "event_log.h"
#include "index_list.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_lines.h"
#include "util_log.h"
#include "util_path.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { OPT_JSON = 256 };

static void usage(FILE *out)
{
    fprintf(out, "Usage: scr-log [OPTION]...\n"
                 "Show the events SCR recorded on a prefix (DIR/.scr/events.jsonl, written\n"
                 "when SCR_LOG_ENABLE=1), oldest first.\n"
                 "\n"
                 "  -p, --prefix DIR      the prefix (default: $SCR_PREFIX, else the current\n"
                 "                        directory)\n"
                 "  -j, --job ID          only events of job ID\n"
                 "  -d, --dataset ID|NAME only events of that dataset (a number is an id)\n"
                 "  -e, --event NAME      only events called NAME; repeat it or give a comma\n"
                 "                        list (init, checkpoint_start, checkpoint_complete,\n"
                 "                        output_start, output_complete, encode, rebuild, flush,\n"
                 "                        fetch, evict, halt, finalize, relaunch, scavenge,\n"
                 "                        node_down)\n"
                 "  -s, --since TIME      only events at or after TIME\n"
                 "  -u, --until TIME      only events at or before TIME\n"
                 "      --json            a JSON array of the events, as in the file\n"
                 "  -h, --help            show this help\n"
                 "  -V, --version         show the version\n"
                 "\n"
                 "TIME is seconds since the epoch (1795600000) or ISO 8601 in UTC\n"
                 "(2026-11-25, 2026-11-25T10:30[:00][Z], or with an offset, +02:00).\n"
                 "A damaged line is named with its number on stderr and skipped.\n"
                 "\n"
                 "Exit status: 0 if done, 1 if the log cannot be read (or there is none),\n"
                 "2 for a usage error.\n");
}

struct filters {
    const char *prefix, *job, *dataset;
    char **events;
    int nevents;
    int64_t since, until;
    int json;
};

static int add_events(struct filters *f, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (copy == NULL) return scr_cli_usage_error("out of memory");
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char **grown = realloc(f->events, sizeof(*grown) * (size_t)(f->nevents + 1));
        if (grown == NULL || (grown[f->nevents] = strdup(w)) == NULL) {
            if (grown) f->events = grown;
            free(copy);
            return scr_cli_usage_error("out of memory");
        }
        f->events = grown;
        f->nevents++;
    }
    free(copy);
    return f->nevents > 0 ? 0 : scr_cli_usage_error("--event wants a name, not '%s'", list);
}

static const char *str_of(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static int int_of(struct json_object *o, const char *key, int64_t *out)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) return 0;
    *out = json_object_get_int64(v);
    return 1;
}

static int passes(const struct filters *f, struct json_object *o)
{
    int64_t epoch = 0, id = 0;
    int_of(o, "epoch", &epoch);
    if (epoch < f->since || epoch > f->until) return 0;
    if (f->job != NULL && (str_of(o, "job") == NULL || strcmp(str_of(o, "job"), f->job) != 0))
        return 0;
    if (f->dataset != NULL) {
        char *end = NULL;
        long want = strtol(f->dataset, &end, 10);
        if (*end == '\0' && end != f->dataset) {
            if (!int_of(o, "dataset_id", &id) || id != want) return 0;
        } else {
            const char *name = str_of(o, "dataset_name");
            if (name == NULL || strcmp(name, f->dataset) != 0) return 0;
        }
    }
    if (f->nevents > 0) {
        const char *ev = str_of(o, "event");
        int any = 0;
        for (int i = 0; i < f->nevents && !any; i++) any = strcmp(ev, f->events[i]) == 0;
        if (!any) return 0;
    }
    return 1;
}

/* The members every reader relies on; anything else is a damaged line. */
static struct json_object *parse_line(const char *line, size_t len, const char **why)
{
    struct json_tokener *tok = json_tokener_new();
    if (tok == NULL) {
        *why = "out of memory";
        return NULL;
    }
    struct json_object *o = json_tokener_parse_ex(tok, line, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t used = (size_t)json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int64_t epoch;
    *why = NULL;
    if (o == NULL || err != json_tokener_success)
        *why = "not JSON (a truncated or garbled write)";
    else if (used != len)
        *why = "text after the JSON object";
    else if (!json_object_is_type(o, json_type_object))
        *why = "not a JSON object";
    else if (str_of(o, "event") == NULL || !int_of(o, "epoch", &epoch))
        *why = "no \"event\" or \"epoch\"";
    if (*why != NULL) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* A byte count as scr-index shows sizes (index_list.h). */
static void human_bytes(int64_t b, char *buf, size_t len)
{
    if (b < 0)
        snprintf(buf, len, "-");
    else
        scr_index_list_format_size((uint64_t)b, buf, len);
}

/* The members the table has columns for; the rest go to DETAILS. */
static int is_column(const char *key)
{
    static const char *const columns[] = {
        "time",       "epoch",        "job",   "user",    "host",      "event", "status",
        "dataset_id", "dataset_name", "bytes", "seconds", "bandwidth", NULL};
    for (int i = 0; columns[i]; i++)
        if (strcmp(columns[i], key) == 0) return 1;
    return 0;
}

static void print_header(void)
{
    printf("%-20s  %-10s  %-10s  %-19s  %-6s  %-16s  %10s  %9s  %11s  %s\n", "TIME", "JOB", "HOST",
           "EVENT", "STATUS", "DATASET", "BYTES", "SECONDS", "BW/S", "DETAILS");
}

/* sep key eq value, with control characters shown as '?' so that a row stays one line */
static void print_clean(const char *sep, const char *key, const char *eq, const char *value)
{
    printf("%s", sep);
    for (const char *parts[] = {key, eq, value}, **p = parts; p < parts + 3; p++)
        for (const char *c = *p; *c; c++) putchar(iscntrl((unsigned char)*c) ? '?' : *c);
}

static void print_row(struct json_object *o)
{
    char when[32], dataset[64] = "-", bytes[32] = "-", secs[32] = "-", bw[32] = "-";
    int64_t epoch = 0, v = 0;
    int_of(o, "epoch", &epoch);
    scr_event_format_time(epoch, when, sizeof(when));
    const char *name = str_of(o, "dataset_name");
    if (int_of(o, "dataset_id", &v))
        snprintf(dataset, sizeof(dataset), "%lld%s%.40s", (long long)v, name ? " " : "",
                 name ? name : "");
    if (int_of(o, "bytes", &v)) human_bytes(v, bytes, sizeof(bytes));
    struct json_object *s = NULL;
    if (json_object_object_get_ex(o, "seconds", &s) && s != NULL)
        snprintf(secs, sizeof(secs), "%.3f", json_object_get_double(s));
    if (int_of(o, "bandwidth", &v)) human_bytes(v, bw, sizeof(bw));
    const char *status = str_of(o, "status");
    printf("%-20s  %-10s  %-10s  %-19s  %-6s  %-16s  %10s  %9s  %11s ", when,
           str_of(o, "job") ? str_of(o, "job") : "", str_of(o, "host") ? str_of(o, "host") : "",
           str_of(o, "event"), status ? status : "-", dataset, bytes, secs, bw);
    const char *reason = NULL;
    json_object_object_foreach(o, key, val)
    {
        if (is_column(key) || val == NULL) continue;
        if (strcmp(key, "reason") == 0)
            reason = json_object_get_string(val);
        else
            print_clean(" ", key, "=", json_object_get_string(val));
    }
    if (reason != NULL) print_clean(" ", "reason:", " ", reason);
    printf("\n");
}

/* The longest line shown: an event line is well under 4 KiB; a longer
 * one is damage, and memory stays bounded whatever the file holds. */
#define MAX_EVENT_LINE ((size_t)1 << 20)

/* The size of the log at a moment no writer is inside a line. A writer
 * holds an exclusive lock while it appends a line: the size is taken under
 * a shared lock, which is let go at once, so a reader that prints slowly
 * (a pager, a full pipe) never keeps a running job's writers waiting;
 * what was below that size is never written again. A lock held longer
 * than LOCK_WAIT_MS (a stopped writer) is not waited for: the size is
 * taken without it, and at worst the last line shows as cut short. */
#define LOCK_WAIT_MS 2000
static int settled_size(int fd, const char *path, uint64_t *out_size)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_RDLCK;
    fl.l_whence = SEEK_SET;
    struct timespec nap = {0, 10 * 1000 * 1000};
    int locked = 0;
    for (int waited = 0; !locked && waited < LOCK_WAIT_MS; waited += 10) {
        locked = fcntl(fd, F_SETLK, &fl) == 0;
        if (!locked && errno != EAGAIN && errno != EACCES && errno != EINTR)
            break; /* no locks here */
        if (!locked) nanosleep(&nap, NULL);
    }
    struct stat st;
    int ok = fstat(fd, &st) == 0;
    fl.l_type = F_UNLCK;
    if (locked) fcntl(fd, F_SETLK, &fl);
    if (!ok) {
        scr_err("cannot stat %s: %s", path, strerror(errno));
        return 1;
    }
    *out_size = (uint64_t)st.st_size;
    return 0;
}

/* One line of the log: shown when it passes the filters, reported on
 * stderr when it is damaged. */
static void show_line(const struct filters *f, const char *path, long lineno,
                      const struct scr_line *ln, long *shown)
{
    const char *why = NULL;
    if (ln->cut) {
        fprintf(stderr, "scr-log: %s:%ld: damaged line skipped: longer than %zu bytes\n", path,
                lineno, MAX_EVENT_LINE);
        return;
    }
    size_t len = ln->len;
    char *line = (char *)ln->text;
    while (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    if (len == 0 && ln->complete) return;
    struct json_object *o = parse_line(line, len, &why);
    if (o == NULL) {
        fprintf(stderr, "scr-log: %s:%ld: damaged line skipped: %s%s\n", path, lineno, why,
                ln->complete ? "" : " (no end of line)");
        return;
    }
    if (passes(f, o)) {
        if (f->json)
            printf("%s\n  %s", *shown ? "," : "",
                   json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        else
            print_row(o);
        (*shown)++;
    }
    json_object_put(o);
}

static int show(const struct filters *f, const char *path)
{
    int fd;
    int rc = scr_open_regular(path, O_RDONLY, 0, &fd);
    if (rc == SCR_ERR_NOTFOUND)
        scr_err("no events recorded on %s: %s does not exist (SCR_LOG_ENABLE=1 records them)",
                f->prefix, path);
    if (rc != SCR_SUCCESS) return 1;
    uint64_t size = 0;
    struct scr_lines lines;
    if (settled_size(fd, path, &size) != 0 ||
        scr_lines_init(&lines, fd, path, 0, size, MAX_EVENT_LINE) != SCR_SUCCESS) {
        close(fd);
        return 1;
    }
    long lineno = 0, shown = 0;
    if (f->json)
        printf("[");
    else
        print_header();
    struct scr_line ln;
    int more = 1;
    while (rc == SCR_SUCCESS && (rc = scr_lines_next(&lines, &ln, &more)) == SCR_SUCCESS && more) {
        lineno++;
        show_line(f, path, lineno, &ln, &shown);
    }
    if (f->json) printf("%s]\n", shown ? "\n" : "");
    if (lines.skipped > 0)
        fprintf(stderr, "scr-log: %s: %llu bytes of zeros (a hole, not events) skipped\n", path,
                (unsigned long long)lines.skipped);
    scr_lines_free(&lines);
    close(fd);
    return rc == SCR_SUCCESS ? 0 : 1;
}

static int parse_time(const char *opt, const char *text, int64_t *out)
{
    if (scr_event_parse_time(text, out) != SCR_SUCCESS)
        return scr_cli_usage_error(
            "%s wants seconds since the epoch or an ISO 8601 time (2026-11-25T10:30:00Z), "
            "not '%s'",
            opt, text);
    return 0;
}

int main(int argc, char **argv)
{
    scr_cli_init("scr-log");
    static const struct option options[] = {
        {"prefix", required_argument, NULL, 'p'},  {"job", required_argument, NULL, 'j'},
        {"dataset", required_argument, NULL, 'd'}, {"event", required_argument, NULL, 'e'},
        {"since", required_argument, NULL, 's'},   {"until", required_argument, NULL, 'u'},
        {"json", no_argument, NULL, OPT_JSON},     {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},       {NULL, 0, NULL, 0},
    };
    struct filters f = {NULL, NULL, NULL, NULL, 0, INT64_MIN, INT64_MAX, 0};
    int before = optind, c, status = 0;
    opterr = 0;
    for (; status == 0 && (c = getopt_long(argc, argv, ":p:j:d:e:s:u:hV", options, NULL)) != -1;
         before = optind) {
        switch (c) {
        case 'p': f.prefix = optarg; break;
        case 'j': f.job = optarg; break;
        case 'd': f.dataset = optarg; break;
        case 'e': status = add_events(&f, optarg); break;
        case 's': status = parse_time("--since", optarg, &f.since); break;
        case 'u': status = parse_time("--until", optarg, &f.until); break;
        case OPT_JSON: f.json = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("scr-log (%s) %s\n", PACKAGE_NAME, SCR_VERSION_TEXT); return 0;
        default: return scr_cli_refused_option(c, argv, before);
        }
    }
    if (status == 0 && optind < argc)
        status = scr_cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (status == 0 && f.prefix != NULL && f.prefix[0] == '\0')
        status = scr_cli_usage_error("--prefix is empty");
    char *prefix = NULL, *path = NULL;
    if (status == 0) {
        struct scr_acting as;
        prefix = scr_cli_resolve_prefix(f.prefix);
        status = prefix == NULL || scr_act_as_owner(prefix, SCR_OWNED_PREFIX, &as) != SCR_SUCCESS
                     ? 1
                     : 0;
    }
    if (status == 0) {
        f.prefix = prefix;
        status =
            scr_path_join(prefix, ".scr/" SCR_EVENT_LOG_JSON_NAME, &path) == SCR_SUCCESS ? 0 : 1;
    }
    if (status == 0) status = show(&f, path);
    for (int i = 0; i < f.nevents; i++) free(f.events[i]);
    free(f.events);
    free(path);
    free(prefix);
    return status;
}
