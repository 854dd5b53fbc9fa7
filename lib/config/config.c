/* config.c — layered parameter resolution, descriptor tables and SCR_Config strings. */
#include "build_config.h"
#include "config.h"
#include "config_parse.h"
#include "config_refused.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_io.h"
#include "util_log.h"
#include "util_parse.h"
#include "util_path.h"
#include "util_strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SCR_CONFIG_FILE
#define SCR_CONFIG_FILE "/etc/scr.conf"
#endif

#define APP_CONF_MAX (1u << 20) /* as a configuration file (config_parse.h) */
#define NLAYERS 4               /* env, user, app, system; defaults come from the catalogue */

/* One source of values. values: KEY -> VALUE for parameters and
 * TABLE -> ENTRY -> ATTR -> VALUE for tables; origins: KEY -> "where". */
struct layer {
    scr_kvtree *values;
    scr_kvtree *origins;
};

struct scr_config {
    struct layer layers[NLAYERS];
    /* the keys SCR_Config set or unset in this process: their value in the
     * application layer, or their absence from it, stands over app.conf's */
    scr_kvtree *changed;
};

static const char *const layer_names[] = {"the environment", "the user configuration", "SCR_Config",
                                          "the system configuration"};

const char *scr_config_system_file(void)
{
    return SCR_CONFIG_FILE;
}

static void layer_clear(struct layer *l)
{
    scr_kvtree_delete(l->values);
    scr_kvtree_delete(l->origins);
    l->values = l->origins = NULL;
}

static int layer_init(struct layer *l)
{
    l->values = scr_kvtree_new();
    l->origins = scr_kvtree_new();
    if (l->values == NULL || l->origins == NULL) {
        layer_clear(l);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

scr_config *scr_config_new(void)
{
    scr_config *cfg = calloc(1, sizeof(*cfg));
    if (cfg == NULL) {
        scr_err("out of memory creating a configuration");
        return NULL;
    }
    int rc = (cfg->changed = scr_kvtree_new()) != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (int i = 0; i < NLAYERS && rc == SCR_SUCCESS; i++) rc = layer_init(&cfg->layers[i]);
    if (rc != SCR_SUCCESS) {
        scr_err("out of memory creating a configuration");
        scr_config_delete(cfg);
        return NULL;
    }
    return cfg;
}

void scr_config_delete(scr_config *cfg)
{
    if (cfg == NULL) return;
    for (int i = 0; i < NLAYERS; i++) layer_clear(&cfg->layers[i]);
    scr_kvtree_delete(cfg->changed);
    free(cfg);
}

/* --- putting values into a layer ------------------------------------------ */

/* What is being read into which layer, for checks and messages. */
struct reader {
    struct layer *layer;
    enum scr_config_layer kind;
    char *where; /* scratch: "<source>:<line>" of the current line */
    size_t where_len;
};

static int set_origin(struct layer *l, const char *key, const char *where)
{
    return scr_kvtree_util_set_str(l->origins, key, where);
}

/* Check value against param (when known); enum values are stored in upper case. */
static int check_value(const struct scr_config_param *param, const char *name, const char *value,
                       const char *where, char *canon, size_t canon_len)
{
    snprintf(canon, canon_len, "%s", value);
    if (param == NULL) return SCR_SUCCESS;
    char why[160];
    if (scr_config_param_check(param, value, why, sizeof(why)) != SCR_SUCCESS) {
        scr_err("%s: %s=%s: expected %s", where, name, value, why);
        return SCR_ERR_FORMAT;
    }
    if (param->type == SCR_CONFIG_ENUM)
        for (char *c = canon; *c; c++) *c = (char)toupper((unsigned char)*c);
    return SCR_SUCCESS;
}

/* A parameter from rd's source; system-only ones are dropped outside the system file. */
static int put_param(struct reader *rd, const char *name, const char *value, const char *where)
{
    const struct scr_config_param *param = scr_config_param_find(name);
    const struct scr_config_refused *refused = scr_config_refused_find(name);
    if (refused != NULL) {
        /* SCR's, but not taken here: never kept, so nothing can read it */
        scr_warn("%s: %s is refused: %s", where, name, refused->why);
        return SCR_SUCCESS;
    } else if (param == NULL) {
        scr_warn("%s: unknown parameter %s (kept; a newer version may use it)", where, name);
    } else if ((param->flags & SCR_CONFIG_SYSTEM_ONLY) && rd->kind != SCR_CONFIG_LAYER_SYSTEM) {
        scr_warn("%s: %s may only be set by the system configuration; ignored", where, name);
        return SCR_SUCCESS;
    } else if ((param->flags & SCR_CONFIG_NOT_BY_APP) && rd->kind == SCR_CONFIG_LAYER_APP) {
        scr_warn("%s: %s cannot be set through SCR_Config; ignored", where, name);
        return SCR_SUCCESS;
    }
    char canon[4096];
    if (strlen(value) >= sizeof(canon)) {
        scr_err("%s: the value of %s is longer than %zu bytes", where, name, sizeof(canon) - 1);
        return SCR_ERR_FORMAT;
    }
    int rc = check_value(param, name, value, where, canon, sizeof(canon));
    if (rc != SCR_SUCCESS) return rc;
    if (scr_kvtree_util_set_str(rd->layer->values, name, canon) != SCR_SUCCESS ||
        set_origin(rd->layer, name, where) != SCR_SUCCESS) {
        scr_err("out of memory storing %s", name);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* The subtree for TABLE=ENTRY in rd's layer, created if needed (checked first). */
static int put_entry(struct reader *rd, const char *table_name, const char *entry,
                     const char *where, scr_kvtree **out_entry)
{
    const struct scr_config_table *table = scr_config_table_find(table_name);
    if (table == NULL) {
        scr_warn("%s: unknown descriptor %s (kept; a newer version may use it)", where, table_name);
    } else {
        struct scr_config_param as_param = {table->name,      table->entry_type, NULL, 0,
                                            table->entry_min, table->entry_max,  NULL, NULL};
        char why[160];
        if (scr_config_param_check(&as_param, entry, why, sizeof(why)) != SCR_SUCCESS) {
            scr_err("%s: %s=%s: expected %s", where, table_name, entry, why);
            return SCR_ERR_FORMAT;
        }
    }
    scr_kvtree *t = scr_kvtree_get(rd->layer->values, table_name);
    if (t == NULL) {
        t = scr_kvtree_set(rd->layer->values, table_name, scr_kvtree_new());
        if (t == NULL || set_origin(rd->layer, table_name, where) != SCR_SUCCESS) {
            scr_err("out of memory storing %s", table_name);
            return SCR_ERR_NOMEM;
        }
    }
    scr_kvtree *e = scr_kvtree_get(t, entry);
    if (e == NULL) e = scr_kvtree_set(t, entry, scr_kvtree_new());
    if (e == NULL) {
        scr_err("out of memory storing %s=%s", table_name, entry);
        return SCR_ERR_NOMEM;
    }
    *out_entry = e;
    return SCR_SUCCESS;
}

static int put_attribute(scr_kvtree *entry, const char *table_name, const char *attr,
                         const char *value, const char *where)
{
    const struct scr_config_table *table = scr_config_table_find(table_name);
    const struct scr_config_param *param = scr_config_table_attribute(table, attr);
    if (table != NULL && param == NULL && !table->any_attributes)
        scr_warn("%s: %s descriptors have no attribute %s (kept; a newer version may use it)",
                 where, table_name, attr);
    char canon[4096];
    if (strlen(value) >= sizeof(canon)) {
        scr_err("%s: the value of %s is longer than %zu bytes", where, attr, sizeof(canon) - 1);
        return SCR_ERR_FORMAT;
    }
    int rc = check_value(param, attr, value, where, canon, sizeof(canon));
    if (rc != SCR_SUCCESS) return rc;
    if (scr_kvtree_util_set_str(entry, attr, canon) != SCR_SUCCESS) {
        scr_err("out of memory storing %s", attr);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* The line callback: a single pair is a parameter unless it names a table. */
static int put_line(void *ctx, const char *source, int line, const struct scr_config_pair *pairs,
                    int npairs)
{
    struct reader *rd = ctx;
    if (line > 0)
        snprintf(rd->where, rd->where_len, "%s:%d", source, line);
    else
        snprintf(rd->where, rd->where_len, "%s", source);
    if (npairs == 1 && scr_config_table_find(pairs[0].key) == NULL)
        return put_param(rd, pairs[0].key, pairs[0].value, rd->where);
    scr_kvtree *entry;
    int rc = put_entry(rd, pairs[0].key, pairs[0].value, rd->where, &entry);
    for (int i = 1; rc == SCR_SUCCESS && i < npairs; i++)
        rc = put_attribute(entry, pairs[0].key, pairs[i].key, pairs[i].value, rd->where);
    return rc;
}

/* --- loading ----------------------------------------------------------------- */

static int load_env(struct reader *rd)
{
    for (const struct scr_config_param *p = scr_config_params(); p->name != NULL; p++) {
        const char *v = getenv(p->name);
        if (v == NULL) continue;
        if (v[0] == '\0') {
            scr_dbg(1, "environment: %s is empty; treated as unset", p->name);
            continue;
        }
        /* $VAR and ${VAR} in the environment's values too, as in a file's */
        char where[128], *expanded = NULL;
        snprintf(where, sizeof(where), "environment: %s", p->name);
        int rc = scr_config_expand(v, where, 0, &expanded);
        if (rc == SCR_SUCCESS && expanded[0] == '\0')
            scr_dbg(1, "environment: %s=%s is empty once expanded; treated as unset", p->name, v);
        else if (rc == SCR_SUCCESS)
            rc = put_param(rd, p->name, expanded, "environment");
        free(expanded);
        if (rc != SCR_SUCCESS) return rc;
    }
    /* SCR parameters this version refuses are reported, not silently passed over */
    for (const struct scr_config_refused *r = scr_config_refused_list(); r->name != NULL; r++) {
        const char *v = getenv(r->name);
        if (v != NULL && v[0] != '\0') put_param(rd, r->name, v, "environment");
    }
    return SCR_SUCCESS;
}

/* Parse a configuration file into rd. A missing file is fine, also one
 * that SCR_CONF_FILE names (why_named): as in SCR 3.1, it is a user file
 * not written yet. Anything at path but a regular file (or a link to one)
 * is an error naming it (the reader refuses it). */
static int load_file(struct reader *rd, const char *path, const char *why_named)
{
    int rc = scr_config_parse_file(path, put_line, rd);
    if (rc == SCR_ERR_NOTFOUND) {
        if (why_named != NULL)
            scr_dbg(1, "%s names %s, which does not exist (yet): nothing read from it", why_named,
                    path);
        else
            scr_dbg(2, "%s file %s does not exist", layer_names[rd->kind], path);
        return SCR_SUCCESS;
    }
    return rc;
}

/* A load that read every layer (rc SCR_SUCCESS) replaces cfg's layers with
 * fresh; a failed one drops fresh and leaves cfg as it was. */
static int adopt_layers(scr_config *cfg, struct layer fresh[NLAYERS], int rc)
{
    if (rc != SCR_SUCCESS) {
        if (rc == SCR_ERR_NOMEM) scr_err("out of memory loading the configuration");
        for (int i = 0; i < NLAYERS; i++) layer_clear(&fresh[i]);
        return rc;
    }
    for (int i = 0; i < NLAYERS; i++) {
        layer_clear(&cfg->layers[i]);
        cfg->layers[i] = fresh[i];
    }
    return SCR_SUCCESS;
}

/* The system file: the loader's choice, else $SCR_SYSTEM_CONF_FILE when it
 * names a file that only root can change (so that it cannot be used to set
 * system-only parameters), else the file compiled in. */
static const char *system_file(const struct scr_config_sources *sources)
{
    if (sources->system_file != NULL) return sources->system_file;
    const char *env = getenv("SCR_SYSTEM_CONF_FILE");
    if (env == NULL || env[0] == '\0') return SCR_CONFIG_FILE;
    struct stat st;
    if (stat(env, &st) != 0) {
        scr_warn("SCR_SYSTEM_CONF_FILE=%s: %s; using %s", env, strerror(errno), SCR_CONFIG_FILE);
        return SCR_CONFIG_FILE;
    }
    if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        scr_warn("SCR_SYSTEM_CONF_FILE=%s is ignored: a system file must be owned by root and "
                 "writable by no one else; using %s",
                 env, SCR_CONFIG_FILE);
        return SCR_CONFIG_FILE;
    }
    return env;
}

/* What decides where the user file is (SCR_CONF_FILE, SCR_PREFIX), before
 * it is read: the environment (env: that layer's values, $VAR already
 * expanded), else SCR_Config (app); NULL when neither sets it. */
static const char *early_value(const scr_kvtree *env, const scr_kvtree *app, const char *name)
{
    const char *v = NULL;
    if (scr_kvtree_util_get_str(env, name, &v) == SCR_SUCCESS && v != NULL && v[0] != '\0')
        return v;
    v = NULL;
    scr_kvtree_util_get_str(app, name, &v);
    return v;
}

/* <prefix>/<name> where prefix is SCR_PREFIX as early_value finds it, or
 * the current directory. */
static int prefix_path(const scr_kvtree *env, const scr_kvtree *app, const char *name,
                       char **out_path)
{
    const char *prefix = early_value(env, app, "SCR_PREFIX");
    char cwd[4096];
    if (prefix == NULL || prefix[0] == '\0') {
        if (getcwd(cwd, sizeof(cwd)) == NULL) {
            scr_err("cannot find the current directory (the default prefix): %s", strerror(errno));
            return SCR_ERR_IO;
        }
        prefix = cwd;
    }
    return scr_path_join(prefix, name, out_path);
}

/* The user file: the loader's choice, else SCR_CONF_FILE, else
 * <prefix>/.scrconf. *out_path is the file read or looked for (new string). */
static int load_user_file(struct reader *rd, const struct scr_config_sources *sources,
                          const scr_kvtree *env, const scr_kvtree *app, char **out_path)
{
    const char *named = sources->user_file, *why = "the user configuration setting";
    if (named == NULL) {
        named = early_value(env, app, "SCR_CONF_FILE");
        why = "SCR_CONF_FILE";
    }
    int rc = named != NULL ? ((*out_path = strdup(named)) != NULL ? SCR_SUCCESS : SCR_ERR_NOMEM)
                           : prefix_path(env, app, ".scrconf", out_path);
    if (rc != SCR_SUCCESS) return rc;
    return load_file(rd, *out_path, named != NULL ? why : NULL);
}

/* Reading app.conf: where this run found its files, for the lines that
 * would name other places. */
struct app_reader {
    struct reader rd; /* first: put_line reads it */
    const char *prefix, *user_file;
};

/* Whether a and b name the same file or directory (as written, or once
 * resolved; a path that does not exist is only equal as written). */
static int same_place(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    int same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* A line of app.conf: read as a line of the application layer (put_line:
 * what SCR_Config may not set is refused as it is there), except
 * SCR_PREFIX and SCR_CONF_FILE. Those say where the files are, which is
 * settled before app.conf is read (it is found through the prefix), so
 * they are never taken from it: the same place is what SCR_Config left
 * there, another one is reported. */
static int put_app_line(void *ctx, const char *source, int line,
                        const struct scr_config_pair *pairs, int npairs)
{
    struct app_reader *ar = ctx;
    const char *key = pairs[0].key;
    int is_prefix = strcmp(key, "SCR_PREFIX") == 0;
    if (npairs > 1 || (!is_prefix && strcmp(key, "SCR_CONF_FILE") != 0))
        return put_line(&ar->rd, source, line, pairs, npairs);
    const char *used = is_prefix ? ar->prefix : ar->user_file;
    if (same_place(pairs[0].value, used))
        scr_dbg(2, "%s:%d: %s=%s: this run uses that already", source, line, key, pairs[0].value);
    else
        scr_warn("%s:%d: %s=%s is not taken from app.conf: this run found its configuration files "
                 "through %s before reading it; set %s in the environment or with SCR_Config",
                 source, line, key, pairs[0].value, used, key);
    return SCR_SUCCESS;
}

/* The prefix whose .scr/app.conf an earlier run wrote: SCR_PREFIX from
 * the environment, the user file, this process's SCR_Config or the system
 * file, else the current directory, as SCR_Init finds the prefix it writes
 * app.conf in (app.conf cannot move it: put_app_line). New string. */
static int app_conf_prefix(const struct layer fresh[NLAYERS], const scr_kvtree *app,
                           char **out_prefix)
{
    const scr_kvtree *order[] = {fresh[SCR_CONFIG_LAYER_ENV].values,
                                 fresh[SCR_CONFIG_LAYER_USER].values, app,
                                 fresh[SCR_CONFIG_LAYER_SYSTEM].values};
    const char *prefix = NULL;
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && prefix == NULL; i++)
        if (scr_kvtree_util_get_str(order[i], "SCR_PREFIX", &prefix) != SCR_SUCCESS ||
            prefix[0] == '\0')
            prefix = NULL;
    char cwd[4096];
    if (prefix == NULL) {
        if (getcwd(cwd, sizeof(cwd)) == NULL) {
            scr_err("cannot find the current directory (the default prefix): %s", strerror(errno));
            return SCR_ERR_IO;
        }
        prefix = cwd;
    }
    *out_prefix = strdup(prefix);
    if (*out_prefix == NULL) return SCR_ERR_NOMEM;
    return SCR_SUCCESS;
}

/* Read <prefix>/.scr/app.conf into ar's layer. SCR 3.1 writes it as
 * configuration lines ("KEY=VALUE", a descriptor's pairs on one line), as
 * we do; no SCR writes a hash file there, so one is named as such.
 *
 * A damaged or unreadable app.conf stops the load (SCR_Init fails), as a
 * damaged user or system file does, rather than being passed over with a
 * warning: its settings decide how this run protects its checkpoints (the
 * copy type, the descriptors, the flush), so a run without them is not the
 * run the application asked for, and SCR_Init would then replace the file
 * with this run's settings alone, losing the earlier ones for good. The
 * message names the file and line; fixing or removing the file lets the
 * next run start. A missing app.conf is normal: nothing set yet. */
static int read_app_conf(struct app_reader *ar, const char *path)
{
    void *buf = NULL;
    size_t len = 0;
    int rc = scr_read_file(path, APP_CONF_MAX, &buf, &len); /* no link, no FIFO, never blocks */
    if (rc == SCR_ERR_NOTFOUND) {
        scr_dbg(2, "%s does not exist: no SCR_Config setting of an earlier run", path);
        return SCR_SUCCESS;
    }
    if (rc != SCR_SUCCESS) return rc;
    const unsigned char *b = buf;
    if (len >= 4 && ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]) ==
                        SCR_KVTREE_FILE_MAGIC) {
        scr_err(
            "%s is a hash file, not configuration lines: SCR keeps what SCR_Config set there as "
            "KEY=VALUE lines (fix or remove the file)",
            path);
        rc = SCR_ERR_FORMAT;
    } else {
        rc = scr_config_parse_text(buf, len, path, put_app_line, ar);
    }
    free(buf);
    return rc;
}

/* What SCR_Config changed in this process (cfg->changed) stands over what
 * app.conf holds: the key's value in cfg's application layer replaces
 * app.conf's, and a key an unset took away there is removed. */
static int overlay_changes(const scr_config *cfg, struct layer *app)
{
    const struct layer *now = &cfg->layers[SCR_CONFIG_LAYER_APP];
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(cfg->changed); e; e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        scr_kvtree_unset(app->values, key);
        scr_kvtree_unset(app->origins, key);
        const scr_kvtree *v = scr_kvtree_get(now->values, key);
        if (v == NULL) continue;
        const char *where = NULL;
        scr_kvtree_util_get_str(now->origins, key, &where);
        if (scr_kvtree_set(app->values, key, scr_kvtree_dup(v)) == NULL ||
            set_origin(app, key, where != NULL ? where : "SCR_Config") != SCR_SUCCESS)
            return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

/* The application layer, as in SCR 3.1: what an earlier run set with
 * SCR_Config (<prefix>/.scr/app.conf, which SCR_Init rewrites with the
 * merge), under what SCR_Config changed in this process. */
static int load_app_layer(const scr_config *cfg, struct layer fresh[NLAYERS], const char *user_file,
                          char *where, size_t where_len)
{
    char *prefix = NULL, *path = NULL;
    int rc = app_conf_prefix(fresh, cfg->layers[SCR_CONFIG_LAYER_APP].values, &prefix);
    if (rc == SCR_SUCCESS) rc = scr_path_join(prefix, ".scr/app.conf", &path);
    if (rc == SCR_SUCCESS) {
        struct app_reader ar = {
            {&fresh[SCR_CONFIG_LAYER_APP], SCR_CONFIG_LAYER_APP, where, where_len},
            prefix,
            user_file};
        rc = read_app_conf(&ar, path);
    }
    if (rc == SCR_SUCCESS) rc = overlay_changes(cfg, &fresh[SCR_CONFIG_LAYER_APP]);
    free(prefix);
    free(path);
    return rc;
}

int scr_config_load(scr_config *cfg, const struct scr_config_sources *sources)
{
    if (cfg == NULL) {
        scr_err("configuration load called without a configuration");
        return SCR_ERR_ARG;
    }
    struct scr_config_sources none = {0};
    if (sources == NULL) sources = &none;

    struct layer fresh[NLAYERS] = {{0}};
    char where[4200], *user_file = NULL;
    int rc = SCR_SUCCESS;
    for (int i = 0; i < NLAYERS && rc == SCR_SUCCESS; i++) rc = layer_init(&fresh[i]);
    struct reader rd = {NULL, 0, where, sizeof(where)};

    if (rc == SCR_SUCCESS) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_ENV];
        rd.kind = SCR_CONFIG_LAYER_ENV;
        rc = load_env(&rd);
    }
    if (rc == SCR_SUCCESS) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_USER];
        rd.kind = SCR_CONFIG_LAYER_USER;
        /* SCR_CONF_FILE and SCR_PREFIX set through SCR_Config count here
         * too; the application layer holds them only from SCR_Config in
         * this process (put_app_line) */
        rc = load_user_file(&rd, sources, fresh[SCR_CONFIG_LAYER_ENV].values,
                            cfg->layers[SCR_CONFIG_LAYER_APP].values, &user_file);
    }
    if (rc == SCR_SUCCESS) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_SYSTEM];
        rd.kind = SCR_CONFIG_LAYER_SYSTEM;
        rc = load_file(&rd, system_file(sources), NULL);
    }
    /* last: the prefix that holds app.conf may come from any layer above */
    if (rc == SCR_SUCCESS) {
        rc = load_app_layer(cfg, fresh, user_file, where, sizeof(where));
        /* a command that copies a job's checkpoints out must not stop on
         * the settings an application left for its next run: said above
         * (the error names the file), then passed over */
        if (rc != SCR_SUCCESS && rc != SCR_ERR_NOMEM && sources->app_conf_may_be_damaged) {
            scr_warn(
                "going on without the SCR_Config settings of earlier runs (app.conf, see above)");
            layer_clear(&fresh[SCR_CONFIG_LAYER_APP]);
            rc = layer_init(&fresh[SCR_CONFIG_LAYER_APP]);
            if (rc == SCR_SUCCESS) rc = overlay_changes(cfg, &fresh[SCR_CONFIG_LAYER_APP]);
        }
    }
    free(user_file);
    return adopt_layers(cfg, fresh, rc);
}

#define EXPORT_VALUES "VALUES"
#define EXPORT_ORIGINS "ORIGINS"

int scr_config_export_files(const scr_config *cfg, scr_kvtree **out_files)
{
    scr_kvtree *t = scr_kvtree_new();
    int rc = t ? SCR_SUCCESS : SCR_ERR_NOMEM;
    for (int i = SCR_CONFIG_LAYER_USER; rc == SCR_SUCCESS && i < NLAYERS; i++) {
        scr_kvtree *layer = scr_kvtree_set_kv_int(t, "LAYER", i);
        if (layer == NULL ||
            scr_kvtree_set(layer, EXPORT_VALUES, scr_kvtree_dup(cfg->layers[i].values)) == NULL ||
            scr_kvtree_set(layer, EXPORT_ORIGINS, scr_kvtree_dup(cfg->layers[i].origins)) == NULL)
            rc = SCR_ERR_NOMEM;
    }
    if (rc != SCR_SUCCESS) {
        scr_err("out of memory exporting the configuration");
        scr_kvtree_delete(t);
        return rc;
    }
    *out_files = t;
    return SCR_SUCCESS;
}

int scr_config_load_with_files(scr_config *cfg, const scr_kvtree *files)
{
    if (cfg == NULL || files == NULL) {
        scr_err("configuration load called without a configuration or files");
        return SCR_ERR_ARG;
    }
    struct layer fresh[NLAYERS] = {{0}};
    int rc = SCR_SUCCESS;
    for (int i = 0; i < NLAYERS && rc == SCR_SUCCESS; i++) {
        if (i == SCR_CONFIG_LAYER_ENV) {
            rc = layer_init(&fresh[i]);
            continue;
        }
        scr_kvtree *layer = scr_kvtree_get_kv_int(files, "LAYER", i);
        fresh[i].values = scr_kvtree_dup(scr_kvtree_get(layer, EXPORT_VALUES));
        fresh[i].origins = scr_kvtree_dup(scr_kvtree_get(layer, EXPORT_ORIGINS));
        if (fresh[i].values == NULL || fresh[i].origins == NULL) rc = SCR_ERR_NOMEM;
    }
    char where[64];
    struct reader rd = {&fresh[SCR_CONFIG_LAYER_ENV], SCR_CONFIG_LAYER_ENV, where, sizeof(where)};
    if (rc == SCR_SUCCESS) rc = load_env(&rd);
    return adopt_layers(cfg, fresh, rc);
}

/* --- lookups ------------------------------------------------------------------- */

/* The first layer holding name as a parameter (a single value) and that
 * value; SCR_ERR_NOTFOUND when no layer holds it (or name is a table). */
static int find_layer(const scr_config *cfg, const char *name, int *out_layer,
                      const char **out_value)
{
    if (scr_config_table_find(name) != NULL) return SCR_ERR_NOTFOUND;
    /* the environment comes first for any key, as in SCR, also for one the
     * catalogue does not know (load_env reads only the known ones); an SCR
     * parameter this version refuses stays refused there too */
    int unknown = scr_config_param_find(name) == NULL && scr_config_refused_find(name) == NULL;
    const char *env = unknown ? getenv(name) : NULL;
    if (env != NULL && env[0] != '\0') {
        *out_layer = SCR_CONFIG_LAYER_ENV;
        *out_value = env;
        return SCR_SUCCESS;
    }
    for (int i = 0; i < NLAYERS; i++) {
        scr_kvtree *v = scr_kvtree_get(cfg->layers[i].values, name);
        if (v != NULL) {
            *out_layer = i;
            *out_value = scr_kvtree_first_key(v);
            return SCR_SUCCESS;
        }
    }
    return SCR_ERR_NOTFOUND;
}

int scr_config_layer_of(const scr_config *cfg, const char *name, enum scr_config_layer *out_layer)
{
    if (cfg == NULL || name == NULL || out_layer == NULL) return SCR_ERR_ARG;
    const char *v;
    int i;
    if (find_layer(cfg, name, &i, &v) == SCR_SUCCESS) {
        *out_layer = (enum scr_config_layer)i;
        return SCR_SUCCESS;
    }
    const struct scr_config_param *p = scr_config_param_find(name);
    if (p != NULL && p->default_value != NULL) {
        *out_layer = SCR_CONFIG_LAYER_DEFAULT;
        return SCR_SUCCESS;
    }
    return SCR_ERR_NOTFOUND;
}

int scr_config_get(const scr_config *cfg, const char *name, const char **out_value)
{
    if (cfg == NULL || name == NULL || out_value == NULL) return SCR_ERR_ARG;
    int layer;
    if (find_layer(cfg, name, &layer, out_value) == SCR_SUCCESS) return SCR_SUCCESS;
    const struct scr_config_param *p = scr_config_param_find(name);
    if (p != NULL && p->default_value != NULL) {
        *out_value = p->default_value;
        return SCR_SUCCESS;
    }
    return SCR_ERR_NOTFOUND;
}

/* The value of name when it is a known parameter of the given type. */
static int get_typed(const scr_config *cfg, const char *name, enum scr_config_type type,
                     const char **out_text)
{
    const struct scr_config_param *p = scr_config_param_find(name);
    if (p != NULL && p->type != type) {
        scr_err("configuration: %s is not read as this type (a bug in the caller)", name);
        return SCR_ERR_ARG;
    }
    return scr_config_get(cfg, name, out_text);
}

int scr_config_get_int(const scr_config *cfg, const char *name, long long *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_INT, &text);
    if (rc != SCR_SUCCESS) return rc;
    int64_t v;
    if (scr_parse_int64(text, &v) != SCR_SUCCESS) return SCR_ERR_TYPE;
    *out_value = v;
    return SCR_SUCCESS;
}

int scr_config_get_bool(const scr_config *cfg, const char *name, int *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_BOOL, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_bool(text, out_value);
}

int scr_config_get_bytes(const scr_config *cfg, const char *name, uint64_t *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_BYTES, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_bytes(text, out_value);
}

int scr_config_get_double(const scr_config *cfg, const char *name, double *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_DOUBLE, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_double(text, out_value);
}

const char *scr_config_origin(const scr_config *cfg, const char *name)
{
    if (cfg == NULL || name == NULL) return NULL;
    const char *v;
    int i;
    if (find_layer(cfg, name, &i, &v) == SCR_SUCCESS) {
        const char *where = NULL;
        scr_kvtree_util_get_str(cfg->layers[i].origins, name, &where);
        return where != NULL ? where : "environment";
    }
    const struct scr_config_param *p = scr_config_param_find(name);
    return (p != NULL && p->default_value != NULL) ? "built-in default" : NULL;
}

/* The first layer (user, app, system) defining table; SCR_ERR_NOTFOUND
 * when none does. */
static int table_layer(const scr_config *cfg, const char *table, int *out_layer)
{
    for (int i = SCR_CONFIG_LAYER_USER; i < NLAYERS; i++) {
        if (scr_kvtree_get(cfg->layers[i].values, table) != NULL) {
            *out_layer = i;
            return SCR_SUCCESS;
        }
    }
    return SCR_ERR_NOTFOUND;
}

const scr_kvtree *scr_config_table(const scr_config *cfg, const char *table)
{
    if (cfg == NULL || table == NULL) return NULL;
    int i;
    if (table_layer(cfg, table, &i) != SCR_SUCCESS) return NULL;
    return scr_kvtree_get(cfg->layers[i].values, table);
}

const char *scr_config_table_origin(const scr_config *cfg, const char *table)
{
    if (cfg == NULL || table == NULL) return NULL;
    int i;
    const char *where = NULL;
    if (table_layer(cfg, table, &i) == SCR_SUCCESS)
        scr_kvtree_util_get_str(cfg->layers[i].origins, table, &where);
    return where;
}

/* --- SCR_Config --------------------------------------------------------------- */

/* One blank-separated word of an SCR_Config string: KEY, KEY= or KEY=VALUE. */
struct word {
    char *key;
    char *value; /* NULL for KEY; "" for KEY= (and for a value expanding to nothing) */
    int unset;   /* KEY=, as written: takes back what SCR_Config set */
};

static void free_words(struct word *w, int n)
{
    for (int i = 0; i < n; i++) {
        free(w[i].key);
        free(w[i].value);
    }
    free(w);
}

/* Split text into words as SCR 3.1 reads an SCR_Config string: blanks may
 * stand around '=' ("SCR_DEBUG = 1", "STORE= /ssd COUNT"), only the first
 * '=' of a word separates its key, so a value runs to the next blank and
 * may hold '=' ("KEY==v=x" sets "=v=x"), and a word without '=' only asks
 * (and must come last). Keys are folded to upper case; values are taken
 * as written (scr_config_apply expands them). */
static int split_words(const char *text, struct word **out_words, int *out_n)
{
    int cap = 4, n = 0, rc = SCR_SUCCESS;
    struct word *w = malloc((size_t)cap * sizeof(*w));
    if (w == NULL) return SCR_ERR_NOMEM;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\0') break;
        const char *key = p;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '=') p++;
        size_t klen = (size_t)(p - key);
        while (*p == ' ' || *p == '\t') p++;
        const char *val = NULL;
        size_t vlen = 0;
        if (*p == '=') {
            p++;
            while (*p == ' ' || *p == '\t') p++;
            val = p;
            while (*p != '\0' && *p != ' ' && *p != '\t') p++;
            vlen = (size_t)(p - val);
        }
        if (klen == 0 || (val == NULL && *p != '\0')) {
            if (klen == 0)
                scr_err("SCR_Config: '%s': '=' without a key before it", text);
            else
                scr_err("SCR_Config: '%s': '%.*s' has no '=' and is not the last word (ask for one "
                        "value at a time)",
                        text, (int)klen, key);
            rc = SCR_ERR_ARG;
            break;
        }
        if (n == cap) {
            struct word *nw = realloc(w, (size_t)(cap *= 2) * sizeof(*w));
            if (nw == NULL) {
                rc = SCR_ERR_NOMEM;
                break;
            }
            w = nw;
        }
        w[n].key = strndup(key, klen);
        w[n].value = val != NULL ? strndup(val, vlen) : NULL;
        w[n].unset = val != NULL && vlen == 0;
        if (w[n].key == NULL || (val != NULL && w[n].value == NULL)) {
            free(w[n].key);
            free(w[n].value);
            rc = SCR_ERR_NOMEM;
            break;
        }
        for (char *c = w[n].key; *c; c++) *c = (char)toupper((unsigned char)*c);
        n++;
    }
    if (rc != SCR_SUCCESS) {
        free_words(w, n);
        return rc;
    }
    *out_words = w;
    *out_n = n;
    return SCR_SUCCESS;
}

/* $VAR and ${VAR} in every value, as in a configuration file's. */
static int expand_words(struct word *w, int n)
{
    for (int i = 0; i < n; i++) {
        if (w[i].value == NULL || strchr(w[i].value, '$') == NULL) continue;
        char *expanded = NULL;
        int rc = scr_config_expand(w[i].value, "SCR_Config", 0, &expanded);
        if (rc != SCR_SUCCESS) return rc == SCR_ERR_FORMAT ? SCR_ERR_ARG : rc;
        free(w[i].value);
        w[i].value = expanded;
    }
    return SCR_SUCCESS;
}

/* Whether the words ask rather than set: "KEY", or "TABLE=ENTRY ATTRIBUTE". */
static int words_ask(const struct word *w, int n)
{
    return (n == 1 && w[0].value == NULL) || (n == 2 && w[1].value == NULL);
}

static int dup_out(const char *value, char **out_value)
{
    if (out_value == NULL) return SCR_SUCCESS;
    *out_value = NULL;
    if (value == NULL) return SCR_SUCCESS;
    *out_value = strdup(value);
    return *out_value ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

/* The one value a key holds: a tree of several (a table with several
 * entries, as "STORE" after two STORE lines) has no single answer, as in
 * SCR 3.1, whose query of such a key says so and returns NULL. */
static int single_value(const char *text, const char *key, const scr_kvtree *values,
                        const char **out_value)
{
    *out_value = NULL;
    int count = scr_kvtree_size(values);
    if (count <= 1) {
        *out_value = scr_kvtree_first_key(values);
        return SCR_SUCCESS;
    }
    scr_kvtree_elem *e = scr_kvtree_elem_first(values);
    const char *first = scr_kvtree_elem_key(e);
    const char *second = scr_kvtree_elem_key(scr_kvtree_elem_next(e));
    scr_err(
        "SCR_Config: '%s': %s has %d values (%s, %s%s), so it has no single answer; ask for one "
        "attribute of one entry (\"%s=%s COUNT\")",
        text, key, count, first, second, count > 2 ? ", ..." : "", key, first);
    return SCR_ERR_ARG;
}

/* The answer to a question (words_ask): what some layer set, never a
 * built-in default (as in SCR 3.1: NULL means nobody set it). */
static int answer(const scr_config *cfg, const char *text, const struct word *w, int n,
                  char **out_value)
{
    const char *key = w[0].key, *v = NULL;
    if (n == 2) {
        /* one attribute of an entry, as resolved */
        if (w[0].value == NULL || w[0].value[0] == '\0') {
            scr_err("SCR_Config: '%s': a descriptor question starts with %s=<name>", text, key);
            return SCR_ERR_ARG;
        }
        const scr_kvtree *t = scr_config_table(cfg, key);
        scr_kvtree_util_get_str(scr_kvtree_get(t, w[0].value), w[1].key, &v);
        return dup_out(v, out_value);
    }
    int rc = SCR_SUCCESS, layer;
    if (scr_config_table_find(key) != NULL) {
        rc = single_value(text, key, scr_config_table(cfg, key), &v);
    } else if (find_layer(cfg, key, &layer, &v) != SCR_SUCCESS) {
        v = NULL; /* nobody set it */
    } else if (layer == SCR_CONFIG_LAYER_ENV && scr_config_param_find(key) == NULL) {
        /* a key only the environment holds, read as it stands: $VAR too */
        char where[128], *expanded = NULL;
        snprintf(where, sizeof(where), "environment: %s", key);
        rc = scr_config_expand(v, where, 0, &expanded);
        if (rc == SCR_SUCCESS && out_value != NULL)
            *out_value = expanded;
        else
            free(expanded);
        return rc == SCR_ERR_FORMAT ? SCR_ERR_ARG : rc;
    } else if (layer != SCR_CONFIG_LAYER_ENV) {
        /* an unknown key written with attributes holds several values too */
        rc = single_value(text, key, scr_kvtree_get(cfg->layers[layer].values, key), &v);
    }
    if (rc != SCR_SUCCESS) return rc;
    return dup_out(v, out_value);
}

static void unset_origin_if_gone(struct layer *l, const char *key)
{
    if (scr_kvtree_get(l->values, key) == NULL) scr_kvtree_unset(l->origins, key);
}

/* SCR_Config changes a table as SCR does: the first change starts the
 * application layer's table from the table as resolved then (the user's
 * or the site's entries, when the files were read), so that changing one
 * entry keeps the others. */
static int seed_app_table(scr_config *cfg, const char *table)
{
    struct layer *app = &cfg->layers[SCR_CONFIG_LAYER_APP];
    const scr_kvtree *resolved = scr_config_table(cfg, table);
    if (scr_kvtree_get(app->values, table) != NULL || resolved == NULL) return SCR_SUCCESS;
    scr_kvtree *copy = scr_kvtree_dup(resolved);
    if (copy == NULL) return SCR_ERR_NOMEM;
    if (scr_kvtree_set(app->values, table, copy) == NULL) return SCR_ERR_NOMEM;
    return set_origin(app, table, "SCR_Config");
}

/* "TABLE=ENTRY A=v B=w" (a set, words_ask is false). */
static int apply_descriptor(scr_config *cfg, struct reader *rd, const char *text, struct word *w,
                            int n)
{
    const char *table = w[0].key, *entry_name = w[0].value;
    if (entry_name == NULL || entry_name[0] == '\0') {
        scr_err("SCR_Config: '%s': a descriptor starts with %s=<name> (not empty)", text, table);
        return SCR_ERR_ARG;
    }
    for (int i = 1; i < n; i++) {
        if (w[i].value == NULL) {
            scr_err("SCR_Config: '%s': ask for one attribute at a time, without setting others",
                    text);
            return SCR_ERR_ARG;
        }
    }
    scr_kvtree *entry;
    int rc = seed_app_table(cfg, table);
    if (rc == SCR_SUCCESS) rc = put_entry(rd, table, entry_name, "SCR_Config", &entry);
    for (int i = 1; rc == SCR_SUCCESS && i < n; i++) {
        if (w[i].unset)
            scr_kvtree_unset(entry, w[i].key);
        else
            rc = put_attribute(entry, table, w[i].key, w[i].value, "SCR_Config");
    }
    if (rc == SCR_ERR_FORMAT) rc = SCR_ERR_ARG;
    return rc;
}

/* The words of text, split and expanded; SCR_ERR_ARG (said) when malformed. */
static int read_words(const char *text, struct word **out_words, int *out_n)
{
    if (text == NULL) {
        scr_err("SCR_Config called without a configuration string");
        return SCR_ERR_ARG;
    }
    int rc = split_words(text, out_words, out_n);
    if (rc == SCR_SUCCESS && *out_n == 0) {
        free_words(*out_words, 0);
        scr_err("SCR_Config: empty configuration string");
        return SCR_ERR_ARG;
    }
    if (rc == SCR_SUCCESS) {
        rc = expand_words(*out_words, *out_n);
        if (rc != SCR_SUCCESS) free_words(*out_words, *out_n);
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory in SCR_Config");
    return rc;
}

int scr_config_ask(const scr_config *cfg, const char *text, char **out_value)
{
    if (out_value != NULL) *out_value = NULL;
    if (cfg == NULL) {
        scr_err("SCR_Config called without a configuration");
        return SCR_ERR_ARG;
    }
    struct word *w = NULL;
    int n = 0;
    int rc = read_words(text, &w, &n);
    if (rc != SCR_SUCCESS) return rc;
    rc = words_ask(w, n) ? answer(cfg, text, w, n, out_value) : SCR_ERR_STATE;
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory in SCR_Config");
    free_words(w, n);
    return rc;
}

int scr_config_apply(scr_config *cfg, const char *text, char **out_value)
{
    if (out_value != NULL) *out_value = NULL;
    if (cfg == NULL) {
        scr_err("SCR_Config called without a configuration");
        return SCR_ERR_ARG;
    }
    struct word *w = NULL;
    int n = 0;
    int rc = read_words(text, &w, &n);
    if (rc != SCR_SUCCESS) return rc;
    char where[64];
    struct layer *app = &cfg->layers[SCR_CONFIG_LAYER_APP];
    struct reader rd = {app, SCR_CONFIG_LAYER_APP, where, sizeof(where)};
    const char *key = w[0].key, *value = w[0].value;
    int is_table = scr_config_table_find(key) != NULL;
    if (words_ask(w, n)) {
        rc = answer(cfg, text, w, n, out_value);
    } else if (n > 1) {
        rc = apply_descriptor(cfg, &rd, text, w, n);
    } else if (w[0].unset) {
        /* "KEY=" takes back what SCR_Config set: a parameter or a whole table */
        scr_kvtree_unset(app->values, key);
        unset_origin_if_gone(app, key);
    } else if (is_table) {
        /* "STORE=/ssd": an entry without attributes */
        scr_kvtree *entry;
        rc = seed_app_table(cfg, key);
        if (rc == SCR_SUCCESS) rc = put_entry(&rd, key, value, "SCR_Config", &entry);
        if (rc == SCR_ERR_FORMAT) rc = SCR_ERR_ARG;
    } else {
        rc = put_param(&rd, key, value, "SCR_Config");
        if (rc == SCR_ERR_FORMAT) rc = SCR_ERR_ARG;
        const struct scr_config_param *p = scr_config_param_find(key);
        if (rc == SCR_SUCCESS && p != NULL && scr_kvtree_get(app->values, key) == NULL)
            rc = SCR_ERR_ARG; /* refused (and warned): not settable by SCR_Config */
        if (rc == SCR_SUCCESS && scr_config_refused_find(key) != NULL)
            rc = SCR_ERR_ARG; /* refused (and warned): not implemented */
    }
    /* a change stands over what app.conf holds for key, at every load */
    if (rc == SCR_SUCCESS && !words_ask(w, n) && scr_kvtree_set(cfg->changed, key, NULL) == NULL)
        rc = SCR_ERR_NOMEM;
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory in SCR_Config");
    free_words(w, n);
    return rc;
}

const scr_kvtree *scr_config_app_tree(const scr_config *cfg)
{
    return cfg ? cfg->layers[SCR_CONFIG_LAYER_APP].values : NULL;
}

/* Whether the entry en of table reads back from its line as it is. */
static int entry_is_writable(const char *table, const scr_kvtree_elem *en)
{
    if (!scr_config_pair_is_writable(table, scr_kvtree_elem_key(en))) return 0;
    for (scr_kvtree_elem *a = scr_kvtree_elem_first(scr_kvtree_elem_hash(en)); a;
         a = scr_kvtree_elem_next(a))
        if (!scr_config_pair_is_writable(scr_kvtree_elem_key(a),
                                         scr_kvtree_first_key(scr_kvtree_elem_hash(a))))
            return 0;
    return 1;
}

/* A setting a line cannot carry (an empty value, a '$' the reader would
 * expand, a key of other characters) is left out, said: the next run
 * reads app.conf back, and must get what was set or nothing. */
static void say_not_written(const char *path, const char *key, const char *value)
{
    scr_warn(
        "%s: %s=%s is not kept for later runs: a configuration line cannot hold it as it is "
        "(empty, a blank, a leading '#', a '$' that would expand, or a key of other characters "
        "than letters, digits, '_', '.', '-')",
        path, key, value);
}

/* One line of app.conf for the application layer's element e. */
static int append_app_line(scr_strbuf *b, const scr_kvtree_elem *e, const char *path)
{
    const char *key = scr_kvtree_elem_key(e);
    const scr_kvtree *val = scr_kvtree_elem_hash(e);
    /* a parameter holds one value with nothing below it; anything else is a
     * table, also one the catalogue does not know */
    if (scr_config_table_find(key) == NULL && scr_kvtree_size(val) == 1 &&
        scr_kvtree_size(scr_kvtree_elem_hash(scr_kvtree_elem_first(val))) == 0) {
        const char *v = scr_kvtree_first_key(val);
        if (scr_config_pair_is_writable(key, v)) return scr_strbuf_appendf(b, "%s=%s\n", key, v);
        say_not_written(path, key, v);
        return SCR_SUCCESS;
    }
    for (scr_kvtree_elem *en = scr_kvtree_elem_first(val); en; en = scr_kvtree_elem_next(en)) {
        if (!entry_is_writable(key, en)) {
            say_not_written(path, key, scr_kvtree_elem_key(en));
            continue;
        }
        int rc = scr_strbuf_appendf(b, "%s=%s", key, scr_kvtree_elem_key(en));
        for (scr_kvtree_elem *a = scr_kvtree_elem_first(scr_kvtree_elem_hash(en));
             rc == SCR_SUCCESS && a; a = scr_kvtree_elem_next(a))
            rc = scr_strbuf_appendf(b, " %s=%s", scr_kvtree_elem_key(a),
                                    scr_kvtree_first_key(scr_kvtree_elem_hash(a)));
        if (rc == SCR_SUCCESS) rc = scr_strbuf_appendf(b, "\n");
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_config_save_app(const scr_config *cfg, const char *path)
{
    if (cfg == NULL || path == NULL) {
        scr_err("saving SCR_Config values needs a configuration and a path");
        return SCR_ERR_ARG;
    }
    scr_strbuf b = SCR_STRBUF_INIT;
    int rc = SCR_SUCCESS;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(cfg->layers[SCR_CONFIG_LAYER_APP].values);
         rc == SCR_SUCCESS && e; e = scr_kvtree_elem_next(e))
        rc = append_app_line(&b, e, path);
    if (rc == SCR_SUCCESS) rc = scr_write_atomic(path, b.buf ? b.buf : "", b.len);
    scr_strbuf_free(&b);
    return rc;
}

/* --- listing ------------------------------------------------------------------- */

static int print_table(FILE *out, const char *name, const scr_kvtree *t, const char *where)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(t); e; e = scr_kvtree_elem_next(e)) {
        if (fprintf(out, "%s=%s", name, scr_kvtree_elem_key(e)) < 0) return SCR_ERR_IO;
        for (scr_kvtree_elem *a = scr_kvtree_elem_first(scr_kvtree_elem_hash(e)); a;
             a = scr_kvtree_elem_next(a)) {
            const char *v = scr_kvtree_first_key(scr_kvtree_elem_hash(a));
            if (fprintf(out, " %s=%s", scr_kvtree_elem_key(a), v ? v : "") < 0) return SCR_ERR_IO;
        }
        if (fprintf(out, "  # %s\n", where ? where : "?") < 0) return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}

int scr_config_fprint(const scr_config *cfg, FILE *out)
{
    if (cfg == NULL || out == NULL) return SCR_ERR_ARG;
    for (const struct scr_config_param *p = scr_config_params(); p->name != NULL; p++) {
        const char *v;
        if (scr_config_get(cfg, p->name, &v) != SCR_SUCCESS) continue;
        if (fprintf(out, "%s=%s  # %s\n", p->name, v, scr_config_origin(cfg, p->name)) < 0)
            return SCR_ERR_IO;
    }
    /* keys no catalogue entry knows, from whichever layer sets them first */
    for (int i = 0; i < NLAYERS; i++) {
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(cfg->layers[i].values); e;
             e = scr_kvtree_elem_next(e)) {
            const char *key = scr_kvtree_elem_key(e);
            const char *v = NULL;
            if (scr_config_param_find(key) != NULL) continue;
            /* shown once, from the first layer holding it, with the value that wins */
            int at, first = 1, in_table;
            int held = find_layer(cfg, key, &at, &v) == SCR_SUCCESS;
            for (int j = 0; j < i; j++)
                first = first && scr_kvtree_get(cfg->layers[j].values, key) == NULL;
            if (held && (at == i || (at == SCR_CONFIG_LAYER_ENV && first)) &&
                scr_kvtree_size(scr_kvtree_elem_hash(e)) == 1 &&
                scr_kvtree_size(
                    scr_kvtree_elem_hash(scr_kvtree_elem_first(scr_kvtree_elem_hash(e)))) == 0) {
                if (fprintf(out, "%s=%s  # %s\n", key, v, scr_config_origin(cfg, key)) < 0)
                    return SCR_ERR_IO;
            } else if (table_layer(cfg, key, &in_table) == SCR_SUCCESS && in_table == i) {
                int rc = print_table(out, key, scr_kvtree_elem_hash(e),
                                     scr_config_table_origin(cfg, key));
                if (rc != SCR_SUCCESS) return rc;
            }
        }
    }
    return SCR_SUCCESS;
}
