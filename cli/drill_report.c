/* drill_report.c — compare the restart with the expectation and say so. */
#include "drill_report.h"
#include "cli_json.h"
#include "scr_err.h"
#include "util_log.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

/* The name of checkpoint id as the first run's caches knew it, or "". */
static const char *cached_name(const struct drill_outcome *o, int id)
{
    for (int i = 0; i < o->ncached; i++)
        if (o->cached[i].id == id) return o->cached[i].name;
    return "";
}

static const char *cached_scheme(const struct drill_outcome *o, int id)
{
    for (int i = 0; i < o->ncached; i++)
        if (o->cached[i].id == id) return o->cached[i].scheme;
    return "";
}

/* "ckpt.2 from the cache", "ckpt.1 from the prefix", "a fresh start". */
static void describe(const char *source, const char *name, char *buf, size_t len)
{
    if (name[0] == '\0')
        snprintf(buf, len, "a fresh start");
    else if (source[0] == '\0')
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "%s from the %s", name, source);
}

void drill_report_judge(struct drill_outcome *o)
{
    const struct drill_events *ev = o->ev2;
    /* a fetch that worked is what was read; else the init event says */
    snprintf(o->got_source, sizeof(o->got_source), "none");
    o->got_name[0] = '\0';
    for (int i = ev->nfetches - 1; i >= 0; i--) {
        if (!ev->fetches[i].ok) continue;
        snprintf(o->got_source, sizeof(o->got_source), "prefix");
        snprintf(o->got_name, sizeof(o->got_name), "%s", ev->fetches[i].name);
        break;
    }
    if (o->got_name[0] == '\0' && ev->saw_init && strcmp(ev->restart_source, "cache") == 0 &&
        ev->init_id > 0) {
        snprintf(o->got_source, sizeof(o->got_source), "cache");
        snprintf(o->got_name, sizeof(o->got_name), "%s", cached_name(o, ev->init_id));
        if (o->got_name[0] == '\0')
            snprintf(o->got_name, sizeof(o->got_name), "dataset %d", ev->init_id);
    }

    char want[320], got[320];
    describe(o->expect_source, o->expect_name, want, sizeof(want));
    describe(o->got_source, o->got_name, got, sizeof(got));
    o->as_expected = 0;
    if (o->run2.timed_out) {
        snprintf(o->why, sizeof(o->why),
                 "the second run did not end within its time limit (see %s/run2.log)", o->log_dir);
    } else if (!ev->saw_init) {
        snprintf(o->why, sizeof(o->why),
                 "the second run ended (status %d) without SCR_Init recording an init "
                 "event (see %s/run2.log)",
                 o->run2.status, o->log_dir);
    } else if (strcmp(o->expect_name, o->got_name) != 0 ||
               (!o->expect_given && o->expect_name[0] &&
                strcmp(o->expect_source, o->got_source) != 0)) {
        snprintf(o->why, sizeof(o->why), "expected a restart from %s, but it was %s%s", want,
                 o->got_name[0] ? "from " : "", got);
    } else if (o->run2.status != 0) {
        snprintf(o->why, sizeof(o->why),
                 "the second run restarted from %s but ended with status %d (see "
                 "%s/run2.log)",
                 got, o->run2.status, o->log_dir);
    } else {
        o->as_expected = 1;
        o->why[0] = '\0';
    }
}

/* --- words ------------------------------------------------------------------------ */

static void print_lost(const struct drill_outcome *o)
{
    int any = 0;
    for (int k = 0; k < o->nodes; k++) {
        if (!o->lost[k]) continue;
        printf("%snode%d", any ? ", " : "lost: ", k);
        any = 1;
    }
    printf(any ? " (cache and control directories deleted)\n" : "lost: no node\n");
}

static void print_words(const struct drill_outcome *o)
{
    const struct drill_events *ev = o->ev2;
    printf("first run: %d ranks as %d simulated nodes (job %s), %d checkpoint%s completed%s%s\n",
           o->ranks, o->nodes, o->job, o->run1_checkpoints, o->run1_checkpoints == 1 ? "" : "s",
           o->run1_last[0] ? ", the last " : "", o->run1_last);
    if (o->run1_stopped)
        printf(
            "ended: every rank killed with SIGKILL by libscr right after checkpoint %d completed\n",
            o->stop_after);
    else if (o->run1.killed_rank >= 0)
        printf("ended: rank %d (node%d) killed with SIGKILL %.1f s after the start (seed %lu)\n",
               o->run1.killed_rank, drill_node_of_rank(o->ranks, o->nodes, o->run1.killed_rank),
               o->run1.kill_at, o->seed);
    else
        printf("ended: by itself, status %d, before the drill stopped it\n", o->run1.status);
    print_lost(o);
    char want[320];
    describe(o->expect_source, o->expect_name, want, sizeof(want));
    printf("expected: %s%s%s%s\n", want, o->expect_given ? " (--expect)" : "",
           o->expect_scheme[0] ? ", rebuilt by " : "", o->expect_scheme);
    char got[320];
    describe(o->got_source, o->got_name, got, sizeof(got));
    printf("restart: %s, second run status %d\n", got, o->run2.status);
    for (int i = 0; i < ev->nrebuilds; i++) {
        const struct drill_dataset_event *r = &ev->rebuilds[i];
        const char *scheme = cached_scheme(o, r->id);
        printf("rebuilt: %s%s%s %s", r->name, scheme[0] ? " by " : "", scheme,
               r->ok ? "ok" : "FAILED");
        if (r->ranks_rebuilt >= 0)
            printf(" (%d rank%s rebuilt)", r->ranks_rebuilt, r->ranks_rebuilt == 1 ? "" : "s");
        printf("\n");
    }
    for (int i = 0; i < ev->nfetches; i++)
        printf("fetched: %s from the prefix %s\n", ev->fetches[i].name,
               ev->fetches[i].ok ? "ok" : "FAILED");
    if (o->as_expected)
        printf("verdict: the restart was as expected\n");
    else
        printf("verdict: NOT as expected: %s\n", o->why);
    if (o->logs_kept) printf("logs: %s\n", o->log_dir);
}

/* --- JSON --------------------------------------------------------------------------- */

static json_object *str_or_null(const char *s)
{
    return s != NULL && s[0] ? json_object_new_string(s) : NULL;
}

static int put_str(json_object *obj, const char *key, const char *s)
{
    json_object *v = str_or_null(s);
    return scr_cli_json_put_or_null(obj, key, v != NULL, v);
}

static json_object *dataset_events(const struct drill_outcome *o,
                                   const struct drill_dataset_event *list, int n, int rebuilds,
                                   int *bad)
{
    json_object *arr = json_object_new_array();
    if (arr == NULL) {
        *bad = 1;
        return NULL;
    }
    for (int i = 0; i < n && !*bad; i++) {
        json_object *e = json_object_new_object();
        if (e == NULL || json_object_array_add(arr, e) != 0) {
            json_object_put(e);
            *bad = 1;
            break;
        }
        *bad = *bad || scr_cli_json_put(e, "dataset", json_object_new_string(list[i].name));
        *bad = *bad || scr_cli_json_put(e, "id", json_object_new_int(list[i].id));
        *bad = *bad || scr_cli_json_put(e, "ok", json_object_new_boolean(list[i].ok));
        if (rebuilds) {
            *bad = *bad || put_str(e, "scheme", cached_scheme(o, list[i].id));
            *bad = *bad || scr_cli_json_put_or_null(e, "ranks_rebuilt", list[i].ranks_rebuilt >= 0,
                                                    json_object_new_int(list[i].ranks_rebuilt));
        }
    }
    return arr;
}

static int print_json(const struct drill_outcome *o)
{
    int bad = 0;
    json_object *top = json_object_new_object(), *first = json_object_new_object();
    json_object *expect = json_object_new_object(), *restart = json_object_new_object();
    json_object *lost = json_object_new_array();
    if (top == NULL || first == NULL || expect == NULL || restart == NULL || lost == NULL) {
        json_object_put(first);
        json_object_put(expect);
        json_object_put(restart);
        json_object_put(lost);
        return scr_cli_json_print_built(top, 1, 0);
    }
    bad = bad || scr_cli_json_put(top, "as_expected", json_object_new_boolean(o->as_expected));
    bad = bad || put_str(top, "reason", o->why);
    bad = bad || scr_cli_json_put(top, "ranks", json_object_new_int(o->ranks));
    bad = bad || scr_cli_json_put(top, "nodes", json_object_new_int(o->nodes));
    bad = bad || scr_cli_json_put(top, "job", json_object_new_string(o->job));
    bad = bad || scr_cli_json_put(top, "prefix", json_object_new_string(o->prefix));
    bad = bad || put_str(top, "logs", o->logs_kept ? o->log_dir : "");

    const char *ended = o->run1_stopped            ? "stop_after"
                        : o->run1.killed_rank >= 0 ? "kill_random"
                                                   : "itself";
    bad = bad || scr_cli_json_put(first, "ended", json_object_new_string(ended));
    bad = bad || scr_cli_json_put(first, "status", json_object_new_int(o->run1.status));
    bad = bad || scr_cli_json_put(first, "checkpoints", json_object_new_int(o->run1_checkpoints));
    bad = bad || put_str(first, "last_checkpoint", o->run1_last);
    bad = bad || scr_cli_json_put_or_null(first, "stop_after", o->stop_after > 0,
                                          json_object_new_int(o->stop_after));
    bad = bad || scr_cli_json_put_or_null(first, "seed", o->kill_random,
                                          json_object_new_int64((int64_t)o->seed));
    bad = bad || scr_cli_json_put_or_null(first, "killed_rank", o->run1.killed_rank >= 0,
                                          json_object_new_int(o->run1.killed_rank));
    bad = bad || scr_cli_json_put_or_null(first, "kill_planned_seconds", o->kill_random,
                                          json_object_new_double(o->kill_delay));
    bad = bad || scr_cli_json_put_or_null(first, "kill_seconds", o->run1.kill_at >= 0,
                                          json_object_new_double(o->run1.kill_at));
    bad = bad || scr_cli_json_put(top, "first_run", first);

    for (int k = 0; k < o->nodes && !bad; k++) {
        if (!o->lost[k]) continue;
        char name[32];
        snprintf(name, sizeof(name), "node%d", k);
        json_object *s = json_object_new_string(name);
        if (s == NULL || json_object_array_add(lost, s) != 0) {
            json_object_put(s);
            bad = 1;
        }
    }
    bad = bad || scr_cli_json_put(top, "lost_nodes", lost);

    bad = bad || put_str(expect, "dataset", o->expect_name);
    bad = bad || put_str(expect, "source", o->expect_given ? "" : o->expect_source);
    bad = bad || put_str(expect, "rebuilt_by", o->expect_scheme);
    bad = bad || scr_cli_json_put(expect, "given", json_object_new_boolean(o->expect_given));
    bad = bad || scr_cli_json_put(top, "expected", expect);

    bad = bad || put_str(restart, "dataset", o->got_name);
    bad = bad || put_str(restart, "source", o->got_source);
    bad = bad || scr_cli_json_put(restart, "status", json_object_new_int(o->run2.status));
    bad = bad || scr_cli_json_put(top, "restart", restart);

    int bad_list = 0;
    json_object *rebuilt = dataset_events(o, o->ev2->rebuilds, o->ev2->nrebuilds, 1, &bad_list);
    json_object *fetched = dataset_events(o, o->ev2->fetches, o->ev2->nfetches, 0, &bad_list);
    bad = bad || bad_list;
    bad = bad || scr_cli_json_put(top, "rebuilt", rebuilt);
    bad = bad || scr_cli_json_put(top, "fetched", fetched);
    return scr_cli_json_print_built(top, bad, 0);
}

int drill_report_print(const struct drill_outcome *o, int json)
{
    if (json) return print_json(o);
    print_words(o);
    if (fflush(stdout) != 0) {
        scr_err("cannot write the report: standard output failed");
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}
