/* config_params.h — every parameter SCR knows: its type, default and who may set it.
 *
 * The catalogue is SCR's list of parameters (names and defaults as SCR
 * users know them) plus the descriptor tables GROUPS, STORE and CKPT with
 * the attributes each entry may carry. Each value has a type, and
 * scr_config_param_check() says in words why a text is not a valid value of
 * it, so that every layer of the configuration reports bad input the same way.
 *
 * Types and the texts they accept:
 *   STRING   any non-empty text          PATH   any non-empty text
 *   INT      a decimal integer within the parameter's range
 *   BOOL     0 or 1
 *   BYTES    a size: digits with an optional fraction and unit, e.g. 512,
 *            64KB, 1.5GB; units K M G T P (optionally followed by B or iB)
 *            are powers of 1024, as in SCR
 *   DOUBLE   a non-negative decimal number
 *   ENUM     one of a fixed list of words (upper case)
 * The catalogue is constant; nothing here allocates or logs. */
#ifndef SCR_CONFIG_PARAMS_H
#define SCR_CONFIG_PARAMS_H

#include <stddef.h>
#include <stdint.h>

enum scr_config_type {
    SCR_CONFIG_STRING,
    SCR_CONFIG_PATH,
    SCR_CONFIG_INT,
    SCR_CONFIG_BOOL,
    SCR_CONFIG_BYTES,
    SCR_CONFIG_DOUBLE,
    SCR_CONFIG_ENUM,
};

/* Who may set a parameter. */
enum {
    SCR_CONFIG_SYSTEM_ONLY =
        1 << 0, /* only the system file; env, user file and SCR_Config are ignored */
    SCR_CONFIG_NOT_BY_APP = 1 << 1, /* SCR_Config may not set it */
};

struct scr_config_param {
    const char *name;
    enum scr_config_type type;
    const char *default_value; /* NULL: none (detected at run time or unset) */
    int flags;
    long long min, max;       /* INT only */
    const char *const *words; /* ENUM only: NULL-terminated */
    const char *help;         /* one line, for listings */
};

/* A descriptor table (GROUPS, STORE, CKPT): what names an entry and which
 * attributes it may carry. any_attributes: GROUPS accepts any group name. */
struct scr_config_table {
    const char *name;
    enum scr_config_type entry_type; /* type of the entry's name, e.g. CKPT=<int> */
    long long entry_min, entry_max;
    int any_attributes;
    const struct scr_config_param *attributes; /* terminated by a NULL name */
    const char *help;
};

/* The parameter called name (upper case), NULL when unknown. */
const struct scr_config_param *scr_config_param_find(const char *name);

/* The descriptor table called name, NULL when name is not a table. */
const struct scr_config_table *scr_config_table_find(const char *name);

/* Attribute attr of table entries, NULL when the table does not know it. */
const struct scr_config_param *scr_config_table_attribute(const struct scr_config_table *table,
                                                          const char *attr);

/* All parameters, terminated by an entry whose name is NULL. */
const struct scr_config_param *scr_config_params(void);

/* SCR_SUCCESS when text is a valid value of param; otherwise SCR_ERR_TYPE,
 * with why set to a phrase that completes "expected ..." (e.g. "a whole
 * number from 0 to 100"). Does not log: the caller names where text came from. */
int scr_config_param_check(const struct scr_config_param *param, const char *text, char *why,
                           size_t why_len);

#endif
