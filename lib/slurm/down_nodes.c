/* down_nodes.c — which nodes of an allocation a relaunch must avoid, and why. */
#include "down_nodes.h"
#include "health_file.h"
#include "node_probe.h"
#include "scr_err.h"
#include "util_log.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long a node's slurmd has to accept a connection. A live node's kernel
 * completes the handshake however busy slurmd is; a crashed one never does. */
#define SLURMD_PROBE_TIMEOUT_MS 3000
/* slurmd's port when slurm.conf names none */
#define SLURMD_DEFAULT_PORT 6818

static void set_reason(struct scr_node_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_reason(struct scr_node_verdict *v, const char *fmt, ...)
{
    if (v->down) return; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
    va_end(ap);
    v->down = 1;
}

/* Expand a host list into out->nodes; what names the list in messages. */
static int expand(const char *what, const char *text, struct scr_down_nodes *out)
{
    hostlist_t hl = text ? slurm_hostlist_create(text) : NULL;
    int n = hl ? slurm_hostlist_count(hl) : 0;
    if (hl == NULL || n <= 0) {
        scr_err("%s: '%s' is not a host list with at least one node (e.g. n[1-4,7])", what,
                text ? text : "");
        if (hl) slurm_hostlist_destroy(hl);
        return SCR_ERR_ARG;
    }
    slurm_hostlist_uniq(hl);
    n = slurm_hostlist_count(hl);
    out->nodes = calloc((size_t)n, sizeof(*out->nodes));
    if (out->nodes == NULL) {
        slurm_hostlist_destroy(hl);
        scr_err("out of memory for %d nodes", n);
        return SCR_ERR_NOMEM;
    }
    char *host;
    int bad = 0;
    while ((host = slurm_hostlist_shift(hl)) != NULL) {
        /* libslurm keeps an unbalanced range ("n[1-") as a literal name */
        if (strpbrk(host, "[]") != NULL || strlen(host) >= sizeof(out->nodes[0].name)) bad = 1;
        if (out->count < n)
            snprintf(out->nodes[out->count++].name, sizeof(out->nodes[0].name), "%s", host);
        free(host);
    }
    slurm_hostlist_destroy(hl);
    if (bad) {
        scr_err("%s: '%s' is not a host list with at least one node (e.g. n[1-4,7])", what, text);
        free(out->nodes);
        out->nodes = NULL;
        out->count = 0;
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

/* Every node of out that the host list text names is down for reason;
 * what names the list in messages. */
static int apply_list(const char *what, const char *text, const char *reason,
                      struct scr_down_nodes *out)
{
    if (text == NULL || text[0] == '\0') return SCR_SUCCESS;
    struct scr_down_nodes named;
    memset(&named, 0, sizeof(named));
    int rc = expand(what, text, &named);
    for (int i = 0; rc == SCR_SUCCESS && i < out->count; i++)
        for (int j = 0; j < named.count; j++)
            if (strcmp(out->nodes[i].name, named.nodes[j].name) == 0)
                set_reason(&out->nodes[i], "%s", reason);
    free(named.nodes);
    return rc;
}

/* Slurm's word for a state that makes a node unusable, or NULL. */
static const char *bad_state(uint32_t state)
{
    uint32_t base = state & NODE_STATE_BASE;
    if (base == NODE_STATE_DOWN) return "DOWN";
    if (state & NODE_STATE_DRAIN)
        return (base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED) ? "DRAINING" : "DRAINED";
    if (state & NODE_STATE_FAIL) return "FAILING";
    if (state & NODE_STATE_NO_RESPOND) return "NOT RESPONDING";
    if (base == NODE_STATE_FUTURE || base == NODE_STATE_UNKNOWN) return "not in service";
    return NULL;
}

/* A client configuration to read, or NULL: slurm_init() exits the process
 * when it finds none, which a command must not do. */
static const char *slurm_conf_file(void)
{
    const char *env = getenv("SLURM_CONF");
    if (env != NULL && env[0] != '\0') return access(env, R_OK) == 0 ? env : NULL;
    return access("/etc/slurm/slurm.conf", R_OK) == 0 ? "/etc/slurm/slurm.conf" : NULL;
}

/* Where a node's slurmd listens, from Slurm's record of it. */
static void slurmd_address(const node_info_t *ni, struct scr_probe_target *t)
{
    t->host = ni->node_addr != NULL && ni->node_addr[0] != '\0' ? ni->node_addr : ni->name;
    t->port = ni->port != 0 ? ni->port : SLURMD_DEFAULT_PORT;
}

/* Probe the slurmd of every node Slurm still counts as up (probe[i].host
 * set for node i); a node whose slurmd does not answer is down. Compacts
 * probe[] in place, keeping in node_of[] which node each target is. */
static int apply_probe(struct scr_probe_target *probe, int *node_of, int timeout_ms,
                       struct scr_down_nodes *out)
{
    int n = 0;
    for (int i = 0; i < out->count; i++) {
        if (probe[i].host == NULL) continue;
        probe[n] = probe[i];
        node_of[n++] = i;
    }
    int rc = scr_node_probe(probe, n, timeout_ms > 0 ? timeout_ms : SLURMD_PROBE_TIMEOUT_MS);
    int answered = 0;
    for (int k = 0; k < n; k++) answered += probe[k].answered;
    if (rc == SCR_SUCCESS && n > 0 && answered == 0) {
        /* then this host cannot reach slurmd (a login node behind a
         * firewall, say): that says nothing about the nodes */
        snprintf(out->probe_error, sizeof(out->probe_error),
                 "no node's slurmd answered a probe from this host (%s:%d: %s); judged without it",
                 probe[0].host, probe[0].port, probe[0].why);
        return SCR_SUCCESS;
    }
    for (int k = 0; rc == SCR_SUCCESS && k < n; k++)
        if (!probe[k].answered)
            set_reason(&out->nodes[node_of[k]], "its slurmd at %s:%d does not answer: %s",
                       probe[k].host, probe[k].port, probe[k].why);
    return rc;
}

static int apply_slurm(struct scr_down_nodes *out, int probe_slurmd, int probe_timeout_ms)
{
    const char *conf = slurm_conf_file();
    if (conf == NULL) {
        snprintf(out->slurm_error, sizeof(out->slurm_error), "no Slurm configuration here (%s)",
                 getenv("SLURM_CONF") ? "$SLURM_CONF is not readable" : "no /etc/slurm/slurm.conf");
        return SCR_SUCCESS;
    }
    static int initialised;
    if (!initialised) {
        slurm_init(conf);
        initialised = 1;
    }
    node_info_msg_t *msg = NULL;
    if (slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS || msg == NULL) {
        snprintf(out->slurm_error, sizeof(out->slurm_error), "slurmctld did not answer: %s",
                 slurm_strerror(slurm_get_errno()));
        return SCR_SUCCESS;
    }
    struct scr_probe_target *probe = calloc((size_t)out->count, sizeof(*probe));
    int *node_of = calloc((size_t)out->count, sizeof(*node_of));
    if (probe == NULL || node_of == NULL) {
        free(probe);
        free(node_of);
        slurm_free_node_info_msg(msg);
        scr_err("out of memory for %d nodes", out->count);
        return SCR_ERR_NOMEM;
    }
    out->slurm_asked = 1;
    for (int i = 0; i < out->count; i++) {
        struct scr_node_verdict *v = &out->nodes[i];
        int known = 0;
        for (uint32_t j = 0; j < msg->record_count; j++) {
            const node_info_t *ni = &msg->node_array[j];
            if (ni->name == NULL || strcmp(ni->name, v->name) != 0) continue;
            known = 1;
            const char *why = bad_state(ni->node_state);
            if (why != NULL)
                set_reason(v, "Slurm reports it %s%s%s", why, ni->reason ? ": " : "",
                           ni->reason ? ni->reason : "");
            else if (probe_slurmd && !v->down)
                slurmd_address(ni, &probe[i]);
            break;
        }
        if (!known) set_reason(v, "Slurm does not know this node");
    }
    int rc = apply_probe(probe, node_of, probe_timeout_ms, out);
    free(probe);
    free(node_of);
    slurm_free_node_info_msg(msg);
    return rc;
}

static int apply_health(const char *dir, time_t since, struct scr_down_nodes *out)
{
    if (dir == NULL) return SCR_SUCCESS;
    for (int i = 0; i < out->count; i++) {
        struct scr_node_verdict *v = &out->nodes[i];
        char *path = NULL;
        struct scr_health rec;
        int rc = scr_health_file_path(dir, v->name, &path);
        if (rc == SCR_ERR_NOMEM) return rc;
        if (rc != SCR_SUCCESS) continue;
        if (access(path, F_OK) != 0) { /* no check ran there */
            free(path);
            continue;
        }
        rc = scr_health_file_read(path, &rec);
        if (rc != SCR_SUCCESS)
            set_reason(v, "its health record %s is damaged", path);
        else if (!rec.healthy && rec.checked >= since)
            set_reason(v, "failed its health check: %s", rec.reason);
        free(path);
    }
    return SCR_SUCCESS;
}

int scr_down_nodes_find(const struct scr_down_nodes_query *q, struct scr_down_nodes *out)
{
    memset(out, 0, sizeof(*out));
    if (q == NULL) return SCR_ERR_ARG;
    int rc = expand("node list", q->nodelist, out);
    if (rc == SCR_SUCCESS)
        rc = apply_list("--down list", q->down, "named down (--down), not checked", out);
    if (rc == SCR_SUCCESS)
        rc = apply_list("exclude list", q->exclude, "excluded by SCR_EXCLUDE_NODES", out);
    if (rc == SCR_SUCCESS && q->ask_slurm)
        rc = apply_slurm(out, q->probe_slurmd, q->probe_timeout_ms);
    if (rc == SCR_SUCCESS) rc = apply_health(q->health_dir, q->health_since, out);
    if (rc != SCR_SUCCESS) {
        scr_down_nodes_free(out);
        return rc;
    }
    for (int i = 0; i < out->count; i++) out->down += out->nodes[i].down;
    return SCR_SUCCESS;
}

void scr_down_nodes_mark(struct scr_down_nodes *list, const char *node, const char *reason)
{
    for (int i = 0; i < list->count; i++) {
        struct scr_node_verdict *v = &list->nodes[i];
        if (strcmp(v->name, node) != 0 || v->down) continue;
        set_reason(v, "%s", reason);
        list->down++;
    }
}

void scr_down_nodes_free(struct scr_down_nodes *list)
{
    if (list == NULL) return;
    free(list->nodes);
    memset(list, 0, sizeof(*list));
}

int scr_down_nodes_hostlist(const struct scr_down_nodes *list, char **out)
{
    hostlist_t hl = slurm_hostlist_create("");
    if (hl == NULL) {
        scr_err("out of memory for a host list");
        return SCR_ERR_NOMEM;
    }
    for (int i = 0; i < list->count; i++)
        if (list->nodes[i].down) slurm_hostlist_push_host(hl, list->nodes[i].name);
    char *text = slurm_hostlist_ranged_string_malloc(hl);
    slurm_hostlist_destroy(hl);
    if (text == NULL) {
        scr_err("out of memory for a host list");
        return SCR_ERR_NOMEM;
    }
    *out = text;
    return SCR_SUCCESS;
}
