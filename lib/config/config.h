/* config.h — SCR parameters resolved from every place they can be set.
 *
 * A parameter's value is the first one found, in SCR's order:
 *   1. the environment;
 *   2. the user configuration file: SCR_CONF_FILE, else <prefix>/.scrconf
 *      where prefix is SCR_PREFIX or the current directory (these two from
 *      the environment, else from SCR_Config);
 *   3. values set with SCR_Config, as in SCR 3.1: those of this process
 *      over those an earlier run set, which SCR_Init keeps in
 *      <prefix>/.scr/app.conf (prefix as the other layers set it, else the
 *      current directory). A set in this process replaces app.conf's value
 *      and "KEY=" removes it, so a setting holds until changed or unset.
 *      What SCR_Config may not set is refused in app.conf too, and so are
 *      its SCR_PREFIX and SCR_CONF_FILE (they say where the files are,
 *      which is settled before app.conf is read);
 *   4. the system configuration file: <sysconfdir>/scr.conf, or the file
 *      $SCR_SYSTEM_CONF_FILE names when root owns it and no one else may
 *      write it (test harnesses and the Slurm plugin use this; a user
 *      cannot, so system-only parameters stay the site's);
 *   5. the built-in default (config_params.h).
 * A descriptor table (GROUPS, STORE, CKPT) comes whole from the first of
 * the user file, SCR_Config and the system file that defines it: tables are
 * not mixed across layers, so a user's CKPT list replaces the site's.
 *
 * Loading checks everything before anything is used, and names the place:
 *   - a malformed line or an unterminated "${" is an error
 *     ("<file>:<line>: ...", SCR_ERR_FORMAT) and the load fails;
 *   - a known parameter with a bad value is an error naming the parameter,
 *     the value, what was expected and where it was set (environment,
 *     file:line or SCR_Config);
 *   - an unknown key is a warning (a newer version may know it) and is kept;
 *     the environment comes first for it too when it is looked up;
 *   - an SCR parameter this version does not implement (config_refused.h)
 *     is a warning naming it and why, and is not kept (SCR_Config: SCR_ERR_ARG);
 *   - a system-only parameter (SCR_CNTL_BASE) set by the environment, the user
 *     file or SCR_Config is ignored with a warning.
 * Getters never log and never fail on a loaded configuration for a known
 * parameter of the type asked; SCR_ERR_NOTFOUND when no layer sets it and it
 * has no default. Strings returned point into the configuration and live
 * until it is deleted or changed. Not thread-safe. */
#ifndef SCR_CONFIG_H
#define SCR_CONFIG_H

#include "config_params.h"
#include "kvtree.h"

#include <stdint.h>
#include <stdio.h>

typedef struct scr_config scr_config;

enum scr_config_layer {
    SCR_CONFIG_LAYER_ENV = 0,
    SCR_CONFIG_LAYER_USER = 1,
    SCR_CONFIG_LAYER_APP = 2,
    SCR_CONFIG_LAYER_SYSTEM = 3,
    SCR_CONFIG_LAYER_DEFAULT = 4,
};

/* Where to look. NULL fields take the standard places described above. */
struct scr_config_sources {
    const char *system_file; /* default: as in 4. above */
    const char *user_file;   /* default: SCR_CONF_FILE, else <prefix>/.scrconf */
    /* 1: a damaged or unreadable app.conf is passed over with a warning
     * instead of failing the load (the commands that save a job's data) */
    int app_conf_may_be_damaged;
};

/* The system configuration file compiled in (configure --with-scr-config-file). */
const char *scr_config_system_file(void);

/* A configuration holding only the built-in defaults (free with
 * scr_config_delete); NULL if out of memory. */
scr_config *scr_config_new(void);
void scr_config_delete(scr_config *cfg);

/* Read the environment and the files, app.conf included. sources may be
 * NULL. What scr_config_apply changed stays, over app.conf (3. above; a
 * table changed before any load replaces app.conf's whole table). A
 * missing file is normal, also the one $SCR_CONF_FILE or user_file names
 * (as in SCR 3.1: a user file not written yet); something there that is
 * not a regular file (a directory, a FIFO) is an error naming it. app.conf
 * is opened as a record is (no symbolic link); a damaged or unreadable one
 * is an error naming it, as a damaged configuration file is. Values from
 * the environment have $VAR and ${VAR} expanded as a file's do
 * (config_parse.h). On failure the configuration is left as it was. */
int scr_config_load(scr_config *cfg, const struct scr_config_sources *sources);

/* Read only the environment; take the files' layers (user, SCR_Config with
 * app.conf, system) from a tree that scr_config_export_files made in another
 * process (so that one MPI rank reads the files for all). */
int scr_config_load_with_files(scr_config *cfg, const scr_kvtree *files);

/* The files' layers of a loaded configuration as a new tree (caller deletes). */
int scr_config_export_files(const scr_config *cfg, scr_kvtree **out_files);

/* --- single parameters --------------------------------------------------- */

int scr_config_get(const scr_config *cfg, const char *name, const char **out_value);
int scr_config_get_int(const scr_config *cfg, const char *name, long long *out_value);
int scr_config_get_bool(const scr_config *cfg, const char *name, int *out_value);
int scr_config_get_bytes(const scr_config *cfg, const char *name, uint64_t *out_value);
int scr_config_get_double(const scr_config *cfg, const char *name, double *out_value);

/* Where the value of name comes from: "environment", "<file>:<line>"
 * (app.conf's too), "SCR_Config", "built-in default"; NULL when unset. Static or owned by cfg. */
const char *scr_config_origin(const scr_config *cfg, const char *name);

/* The layer that provides name; SCR_ERR_NOTFOUND when none. */
int scr_config_layer_of(const scr_config *cfg, const char *name, enum scr_config_layer *out_layer);

/* --- descriptor tables -------------------------------------------------- */

/* The table (e.g. "CKPT") as a tree ENTRY -> ATTRIBUTE -> VALUE, from the
 * first layer that defines it; NULL when none does. Owned by cfg. */
const scr_kvtree *scr_config_table(const scr_config *cfg, const char *table);

/* Where the table comes from (as scr_config_origin: the file of its first
 * line), NULL when undefined. */
const char *scr_config_table_origin(const scr_config *cfg, const char *table);

/* --- SCR_Config --------------------------------------------------------- */

/* Apply one SCR_Config string to the application layer:
 *   "KEY=VALUE"            set (checked like a file line);
 *   "KEY="                 unset (app.conf's value too);
 *   "KEY"                  *out_value = the value a layer sets (new string,
 *                          the caller frees; NULL when no layer sets it: a
 *                          built-in default is not an answer, as in SCR);
 *   "TABLE"                *out_value = the name of the table's entry when
 *                          it has exactly one; with several there is no
 *                          single answer: SCR_ERR_ARG with a message naming
 *                          them (SCR 3.1 says so and returns NULL), and the
 *                          same for any key that holds several values;
 *   "TABLE="               unset the whole table SCR_Config defined
 *                          (in this process or in app.conf);
 *   "TABLE=ENTRY"          define an entry without attributes;
 *   "TABLE=ENTRY A=v B=w"  set attributes of a descriptor entry;
 *   "TABLE=ENTRY A="       unset attribute A;
 *   "TABLE=ENTRY A"        *out_value = attribute A of that entry.
 * Blanks may stand around '=' ("SCR_DEBUG = 1"), as SCR reads it; only the
 * first '=' of a word separates the key, so a value runs to the next blank
 * and may hold '=' ("KEY==v=x" sets "=v=x"); a word without '=' (a
 * question) must be the last. Values have $VAR and ${VAR} expanded as in a
 * file (config_parse.h), and so has the answer for a key only the
 * environment holds. out_value may be NULL for sets. A bad value, a
 * malformed string or a parameter SCR_Config may not set returns
 * SCR_ERR_ARG with a message. A successful change stands over what
 * app.conf holds for its key at every later load. */
int scr_config_apply(scr_config *cfg, const char *text, char **out_value);

/* Answer an SCR_Config question ("KEY", "TABLE=ENTRY A") as scr_config_apply
 * does, without changing cfg. A string that sets something returns
 * SCR_ERR_STATE without a message (the caller says why it may not). */
int scr_config_ask(const scr_config *cfg, const char *text, char **out_value);

/* The application layer as a tree; owned by cfg. */
const scr_kvtree *scr_config_app_tree(const scr_config *cfg);

/* Write the application layer (app.conf's values merged with this
 * process's changes, once loaded) to path in the configuration syntax, one
 * line per parameter or descriptor entry, as SCR writes .scr/app.conf (an
 * empty file when nothing is set); replaced atomically. A value no line can
 * carry so that it reads back the same (config_parse.h) is left out with a
 * warning. */
int scr_config_save_app(const scr_config *cfg, const char *path);

/* --- listing ------------------------------------------------------------ */

/* Every known parameter that has a value, then every set unknown key and
 * every table, one line each with its origin: "SCR_FLUSH=4  # /p/.scrconf:3". */
int scr_config_fprint(const scr_config *cfg, FILE *out);

#endif
