/* config_refused.c — the SCR parameters this version refuses, and why. */
#include "config_refused.h"

#include <string.h>

#define NOT_HERE "it is an SCR 3.1 parameter this version does not implement; it has no effect"
#define USE_LOGS                                                                    \
    "SCR's MySQL event log is not part of this version; events go to the text log " \
    "(SCR_LOG_TXT_ENABLE) and to .scr/events.jsonl in the prefix, which scr-log shows"

/* one entry a line, as tests/tools/check_params.sh reads the table */
/* clang-format off */
static const struct scr_config_refused refused[] = {
    {"SCR_LOG_DB_ENABLE", USE_LOGS},
    {"SCR_LOG_DB_DEBUG", USE_LOGS},
    {"SCR_LOG_DB_HOST", USE_LOGS},
    {"SCR_LOG_DB_NAME", USE_LOGS},
    {"SCR_LOG_DB_USER", USE_LOGS},
    {"SCR_LOG_DB_PASS", USE_LOGS},
    {"SCR_COPY_METADATA", NOT_HERE},
    {"SCR_AXL_MKDIR", NOT_HERE},
    {"SCR_FLUSH_POSTSTAGE", NOT_HERE},
    {NULL, NULL},
};
/* clang-format on */

const struct scr_config_refused *scr_config_refused_list(void)
{
    return refused;
}

const struct scr_config_refused *scr_config_refused_find(const char *name)
{
    if (name == NULL) return NULL;
    for (const struct scr_config_refused *r = refused; r->name != NULL; r++)
        if (strcmp(r->name, name) == 0) return r;
    return NULL;
}
