/* config.c — layered parameter resolution, descriptor tables and SCR_Config strings. */
#include "build_config.h"
#include "config.h"
#include "config_parse.h"
#include "config_refused.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SCR_CONFIG_FILE
#define SCR_CONFIG_FILE "/etc/scr.conf"
#endif

#define NLAYERS 4 /* env, user, app, system; defaults come from the catalogue */

/* One source of values. values: KEY -> VALUE for parameters and
 * TABLE -> ENTRY -> ATTR -> VALUE for tables; origins: KEY -> "where". */
struct layer {
    scr_kvtree *values;
    scr_kvtree *origins;
};

struct scr_config {
    struct layer layers[NLAYERS];
};

static const char *const layer_names[] = {"the environment", "the user configuration",
                                          "SCR_Config", "the system configuration"};

const char *scr_config_system_file(void) { return SCR_CONFIG_FILE; }

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
    for (int i = 0; i < NLAYERS; i++) {
        if (layer_init(&cfg->layers[i]) != SCR_SUCCESS) {
            scr_err("out of memory creating a configuration");
            scr_config_delete(cfg);
            return NULL;
        }
    }
    return cfg;
}

void scr_config_delete(scr_config *cfg)
{
    if (cfg == NULL) return;
    for (int i = 0; i < NLAYERS; i++) layer_clear(&cfg->layers[i]);
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
    if (scr_config_param_check(param, value, why, sizeof(why)) != 0) {
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
        struct scr_config_param as_param = {table->name, table->entry_type, NULL, 0,
                                            table->entry_min, table->entry_max, NULL, NULL};
        char why[160];
        if (scr_config_param_check(&as_param, entry, why, sizeof(why)) != 0) {
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
        int rc = put_param(rd, p->name, v, "environment");
        if (rc != SCR_SUCCESS) return rc;
    }
    /* SCR parameters this version refuses are said, not silently passed over */
    for (const struct scr_config_refused *r = scr_config_refused_list(); r->name != NULL; r++) {
        const char *v = getenv(r->name);
        if (v != NULL && v[0] != '\0') put_param(rd, r->name, v, "environment");
    }
    return SCR_SUCCESS;
}

/* Parse a configuration file into rd; a missing file is fine unless required. */
static int load_file(struct reader *rd, const char *path, int required, const char *why_required)
{
    int rc = scr_config_parse_file(path, put_line, rd);
    if (rc == SCR_ERR_NOTFOUND) {
        if (!required) {
            scr_dbg(2, "no %s file %s", layer_names[rd->kind], path);
            return SCR_SUCCESS;
        }
        scr_err("%s names %s, which does not exist", why_required, path);
    }
    return rc;
}

/* Values saved by SCR_Config in an earlier run: a hash file of the same shape. */
static int load_app_file(struct reader *rd, const char *path)
{
    scr_kvtree *saved = scr_kvtree_new();
    if (saved == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_read_file(path, saved);
    if (rc == SCR_ERR_NOTFOUND) {
        scr_kvtree_delete(saved);
        return SCR_SUCCESS;
    }
    const char *where = path;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(saved); rc == SCR_SUCCESS && e;
         e = scr_kvtree_elem_next(e)) {
        const char *key = scr_kvtree_elem_key(e);
        scr_kvtree *val = scr_kvtree_elem_hash(e);
        if (scr_kvtree_get(rd->layer->values, key) != NULL) continue; /* set since: keep */
        if (scr_config_table_find(key) == NULL && scr_kvtree_size(val) == 1 &&
            scr_kvtree_size(scr_kvtree_elem_hash(scr_kvtree_elem_first(val))) == 0) {
            rc = put_param(rd, key, scr_kvtree_first_key(val), where);
            continue;
        }
        for (scr_kvtree_elem *en = scr_kvtree_elem_first(val); rc == SCR_SUCCESS && en;
             en = scr_kvtree_elem_next(en)) {
            scr_kvtree *entry;
            rc = put_entry(rd, key, scr_kvtree_elem_key(en), where, &entry);
            for (scr_kvtree_elem *a = scr_kvtree_elem_first(scr_kvtree_elem_hash(en));
                 rc == SCR_SUCCESS && a; a = scr_kvtree_elem_next(a)) {
                const char *v = scr_kvtree_first_key(scr_kvtree_elem_hash(a));
                if (v == NULL || scr_kvtree_size(scr_kvtree_elem_hash(a)) != 1) {
                    scr_err("%s: %s=%s %s does not hold one value", where, key,
                            scr_kvtree_elem_key(en), scr_kvtree_elem_key(a));
                    rc = SCR_ERR_FORMAT;
                    break;
                }
                rc = put_attribute(entry, key, scr_kvtree_elem_key(a), v, where);
            }
        }
    }
    scr_kvtree_delete(saved);
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
                 "writable by no one else; using %s", env, SCR_CONFIG_FILE);
        return SCR_CONFIG_FILE;
    }
    return env;
}

/* <prefix>/<name> where prefix is $SCR_PREFIX or the current directory. */
static int prefix_path(const char *name, char **out_path)
{
    const char *prefix = getenv("SCR_PREFIX");
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

int scr_config_load(scr_config *cfg, const struct scr_config_sources *sources)
{
    if (cfg == NULL) {
        scr_err("configuration load called without a configuration");
        return SCR_ERR_ARG;
    }
    struct scr_config_sources none = {0};
    if (sources == NULL) sources = &none;

    struct layer fresh[NLAYERS] = {{0}};
    char where[4200];
    int rc = SCR_SUCCESS;
    for (int i = 0; i < NLAYERS && rc == SCR_SUCCESS; i++) rc = layer_init(&fresh[i]);
    /* SCR_Config values set before loading stay; the saved file fills in the rest */
    if (rc == SCR_SUCCESS) {
        layer_clear(&fresh[SCR_CONFIG_LAYER_APP]);
        fresh[SCR_CONFIG_LAYER_APP].values = scr_kvtree_dup(cfg->layers[SCR_CONFIG_LAYER_APP].values);
        fresh[SCR_CONFIG_LAYER_APP].origins = scr_kvtree_dup(cfg->layers[SCR_CONFIG_LAYER_APP].origins);
        if (fresh[SCR_CONFIG_LAYER_APP].values == NULL || fresh[SCR_CONFIG_LAYER_APP].origins == NULL)
            rc = SCR_ERR_NOMEM;
    }
    struct reader rd = {NULL, 0, where, sizeof(where)};

    if (rc == SCR_SUCCESS) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_ENV];
        rd.kind = SCR_CONFIG_LAYER_ENV;
        rc = load_env(&rd);
    }
    if (rc == SCR_SUCCESS) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_USER];
        rd.kind = SCR_CONFIG_LAYER_USER;
        const char *env_file = getenv("SCR_CONF_FILE");
        if (sources->user_file != NULL) {
            rc = load_file(&rd, sources->user_file, 1, "the user configuration setting");
        } else if (env_file != NULL && env_file[0] != '\0') {
            rc = load_file(&rd, env_file, 1, "SCR_CONF_FILE");
        } else {
            char *path = NULL;
            rc = prefix_path(".scrconf", &path);
            if (rc == SCR_SUCCESS) rc = load_file(&rd, path, 0, NULL);
            free(path);
        }
    }
    if (rc == SCR_SUCCESS && !sources->skip_app_file) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_APP];
        rd.kind = SCR_CONFIG_LAYER_APP;
        char *path = NULL;
        if (sources->app_file != NULL) path = strdup(sources->app_file);
        else rc = prefix_path(".scr/app.conf", &path);
        if (rc == SCR_SUCCESS && path == NULL) rc = SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS) rc = load_app_file(&rd, path);
        free(path);
    }
    if (rc == SCR_SUCCESS) {
        rd.layer = &fresh[SCR_CONFIG_LAYER_SYSTEM];
        rd.kind = SCR_CONFIG_LAYER_SYSTEM;
        rc = load_file(&rd, system_file(sources), 0, NULL);
    }

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

/* The first layer holding name as a parameter (a single value), or -1. */
static int find_layer(const scr_config *cfg, const char *name, const char **out_value)
{
    for (int i = 0; i < NLAYERS; i++) {
        scr_kvtree *v = scr_kvtree_get(cfg->layers[i].values, name);
        if (v != NULL && scr_config_table_find(name) == NULL) {
            *out_value = scr_kvtree_first_key(v);
            return i;
        }
    }
    return -1;
}

int scr_config_layer_of(const scr_config *cfg, const char *name, enum scr_config_layer *out_layer)
{
    if (cfg == NULL || name == NULL || out_layer == NULL) return SCR_ERR_ARG;
    const char *v;
    int i = find_layer(cfg, name, &v);
    if (i >= 0) {
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
    if (find_layer(cfg, name, out_value) >= 0) return SCR_SUCCESS;
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
    if (scr_parse_int64(text, &v) != 0) return SCR_ERR_TYPE;
    *out_value = v;
    return SCR_SUCCESS;
}

int scr_config_get_bool(const scr_config *cfg, const char *name, int *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_BOOL, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_config_parse_bool(text, out_value) == 0 ? SCR_SUCCESS : SCR_ERR_TYPE;
}

int scr_config_get_bytes(const scr_config *cfg, const char *name, uint64_t *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_BYTES, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_config_parse_bytes(text, out_value) == 0 ? SCR_SUCCESS : SCR_ERR_TYPE;
}

int scr_config_get_double(const scr_config *cfg, const char *name, double *out_value)
{
    const char *text;
    int rc = get_typed(cfg, name, SCR_CONFIG_DOUBLE, &text);
    if (rc != SCR_SUCCESS) return rc;
    return scr_parse_double(text, out_value) == 0 ? SCR_SUCCESS : SCR_ERR_TYPE;
}

const char *scr_config_origin(const scr_config *cfg, const char *name)
{
    if (cfg == NULL || name == NULL) return NULL;
    const char *v;
    int i = find_layer(cfg, name, &v);
    if (i >= 0) {
        const char *where = NULL;
        scr_kvtree_util_get_str(cfg->layers[i].origins, name, &where);
        return where;
    }
    const struct scr_config_param *p = scr_config_param_find(name);
    return (p != NULL && p->default_value != NULL) ? "built-in default" : NULL;
}

/* The first layer (user, app, system) defining table, or -1. */
static int table_layer(const scr_config *cfg, const char *table)
{
    for (int i = SCR_CONFIG_LAYER_USER; i < NLAYERS; i++)
        if (scr_kvtree_get(cfg->layers[i].values, table) != NULL) return i;
    return -1;
}

const scr_kvtree *scr_config_table(const scr_config *cfg, const char *table)
{
    if (cfg == NULL || table == NULL) return NULL;
    int i = table_layer(cfg, table);
    return i < 0 ? NULL : scr_kvtree_get(cfg->layers[i].values, table);
}

const char *scr_config_table_origin(const scr_config *cfg, const char *table)
{
    if (cfg == NULL || table == NULL) return NULL;
    int i = table_layer(cfg, table);
    const char *where = NULL;
    if (i >= 0) scr_kvtree_util_get_str(cfg->layers[i].origins, table, &where);
    return where;
}

/* --- SCR_Config --------------------------------------------------------------- */

/* One blank-separated word of an SCR_Config string: KEY, KEY= or KEY=VALUE. */
struct word {
    char *key;
    char *value;   /* NULL for KEY; "" for KEY= */
};

static void free_words(struct word *w, int n)
{
    for (int i = 0; i < n; i++) free(w[i].key);
    free(w);
}

/* Split text into words; keys are folded to upper case. */
static int split_words(const char *text, struct word **out_words, int *out_n)
{
    int cap = 4, n = 0;
    struct word *w = malloc((size_t)cap * sizeof(*w));
    if (w == NULL) return SCR_ERR_NOMEM;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\0') break;
        const char *start = p;
        while (*p != '\0' && *p != ' ' && *p != '\t') p++;
        if (n == cap) {
            struct word *nw = realloc(w, (size_t)(cap *= 2) * sizeof(*w));
            if (nw == NULL) {
                free_words(w, n);
                return SCR_ERR_NOMEM;
            }
            w = nw;
        }
        char *s = strndup(start, (size_t)(p - start));
        if (s == NULL) {
            free_words(w, n);
            return SCR_ERR_NOMEM;
        }
        char *eq = strchr(s, '=');
        if (eq != NULL) *eq = '\0';
        for (char *c = s; *c; c++) *c = (char)toupper((unsigned char)*c);
        w[n].key = s;
        w[n].value = eq ? eq + 1 : NULL;
        n++;
        if (s[0] == '\0') {
            scr_err("SCR_Config: '%s': '=' without a key before it", text);
            free_words(w, n);
            return SCR_ERR_ARG;
        }
    }
    *out_words = w;
    *out_n = n;
    return SCR_SUCCESS;
}

static int dup_out(const char *value, char **out_value)
{
    if (out_value == NULL) return SCR_SUCCESS;
    *out_value = NULL;
    if (value == NULL) return SCR_SUCCESS;
    *out_value = strdup(value);
    return *out_value ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

static void unset_origin_if_gone(struct layer *l, const char *key)
{
    if (scr_kvtree_get(l->values, key) == NULL) scr_kvtree_unset(l->origins, key);
}

/* "TABLE=ENTRY ..." with attribute words after the first. */
static int apply_descriptor(scr_config *cfg, struct reader *rd, const char *text,
                            struct word *w, int n, char **out_value)
{
    const char *table = w[0].key, *entry_name = w[0].value;
    if (entry_name == NULL || entry_name[0] == '\0') {
        scr_err("SCR_Config: '%s': a descriptor starts with %s=<name>", text, table);
        return SCR_ERR_ARG;
    }
    for (int i = 1; i < n; i++) {
        if (w[i].value == NULL && n != 2) {
            scr_err("SCR_Config: '%s': ask for one attribute at a time, without setting others", text);
            return SCR_ERR_ARG;
        }
    }
    if (n == 2 && w[1].value == NULL) {
        /* get one attribute of the entry as resolved */
        const scr_kvtree *t = scr_config_table(cfg, table);
        const char *v = NULL;
        scr_kvtree_util_get_str(scr_kvtree_get(t, entry_name), w[1].key, &v);
        return dup_out(v, out_value);
    }
    scr_kvtree *entry;
    int rc = put_entry(rd, table, entry_name, "SCR_Config", &entry);
    for (int i = 1; rc == SCR_SUCCESS && i < n; i++) {
        if (w[i].value[0] == '\0')
            scr_kvtree_unset(entry, w[i].key);
        else
            rc = put_attribute(entry, table, w[i].key, w[i].value, "SCR_Config");
    }
    if (rc == SCR_ERR_FORMAT) rc = SCR_ERR_ARG;
    return rc;
}

int scr_config_apply(scr_config *cfg, const char *text, char **out_value)
{
    if (out_value != NULL) *out_value = NULL;
    if (cfg == NULL || text == NULL) {
        scr_err("SCR_Config called without a configuration string");
        return SCR_ERR_ARG;
    }
    struct word *w = NULL;
    int n = 0;
    int rc = split_words(text, &w, &n);
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory in SCR_Config");
    if (rc != SCR_SUCCESS) return rc;
    if (n == 0) {
        free_words(w, n);
        scr_err("SCR_Config: empty configuration string");
        return SCR_ERR_ARG;
    }
    char where[64];
    struct layer *app = &cfg->layers[SCR_CONFIG_LAYER_APP];
    struct reader rd = {app, SCR_CONFIG_LAYER_APP, where, sizeof(where)};
    if (n > 1 || scr_config_table_find(w[0].key) != NULL) {
        rc = apply_descriptor(cfg, &rd, text, w, n, out_value);
    } else if (w[0].value == NULL) {
        const char *v = NULL;
        scr_config_get(cfg, w[0].key, &v);
        rc = dup_out(v, out_value);
    } else if (w[0].value[0] == '\0') {
        scr_kvtree_unset(app->values, w[0].key);
        unset_origin_if_gone(app, w[0].key);
    } else {
        rc = put_param(&rd, w[0].key, w[0].value, "SCR_Config");
        if (rc == SCR_ERR_FORMAT) rc = SCR_ERR_ARG;
        const struct scr_config_param *p = scr_config_param_find(w[0].key);
        if (rc == SCR_SUCCESS && p != NULL && scr_kvtree_get(app->values, w[0].key) == NULL)
            rc = SCR_ERR_ARG; /* refused (and warned): not settable by SCR_Config */
        if (rc == SCR_SUCCESS && scr_config_refused_find(w[0].key) != NULL)
            rc = SCR_ERR_ARG; /* refused (and warned): not implemented */
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory in SCR_Config");
    free_words(w, n);
    return rc;
}

const scr_kvtree *scr_config_app_tree(const scr_config *cfg)
{
    return cfg ? cfg->layers[SCR_CONFIG_LAYER_APP].values : NULL;
}

int scr_config_save_app(const scr_config *cfg, const char *path)
{
    if (cfg == NULL || path == NULL) {
        scr_err("saving SCR_Config values needs a configuration and a path");
        return SCR_ERR_ARG;
    }
    return scr_kvtree_write_file(path, cfg->layers[SCR_CONFIG_LAYER_APP].values);
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
            if (find_layer(cfg, key, &v) == i && scr_kvtree_size(scr_kvtree_elem_hash(e)) == 1 &&
                scr_kvtree_size(scr_kvtree_elem_hash(scr_kvtree_elem_first(scr_kvtree_elem_hash(e)))) == 0) {
                if (fprintf(out, "%s=%s  # %s\n", key, v, scr_config_origin(cfg, key)) < 0)
                    return SCR_ERR_IO;
            } else if (table_layer(cfg, key) == i) {
                int rc = print_table(out, key, scr_kvtree_elem_hash(e),
                                     scr_config_table_origin(cfg, key));
                if (rc != SCR_SUCCESS) return rc;
            }
        }
    }
    return SCR_SUCCESS;
}
