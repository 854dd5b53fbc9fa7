/* config_refused.h — SCR parameters this version knows of but does not take.
 *
 * SCR 3.1 defines parameters that this library does not implement. Each is
 * refused by name, with a reason, wherever it is set (the environment, a
 * configuration file or SCR_Config), so that a setting carried over from
 * SCR is never accepted and then silently ignored:
 *   SCR_LOG_DB_*          SCR's MySQL event log; the text log
 *                         (SCR_LOG_TXT_ENABLE) and the events file
 *                         .scr/events.jsonl (shown by scr-log) take its place;
 *   SCR_COPY_METADATA, SCR_AXL_MKDIR, SCR_FLUSH_POSTSTAGE
 *                         SCR 3.1 transfer options this version lacks.
 * A name here is never in the catalogue (config_params.h) at the same time.
 * The list is constant; nothing here allocates or logs. */
#ifndef SCR_CONFIG_REFUSED_H
#define SCR_CONFIG_REFUSED_H

struct scr_config_refused {
    const char *name;
    const char *why; /* completes "<where>: <name> is refused: ..." */
};

/* The refused parameter called name (upper case), NULL when it is not one. */
const struct scr_config_refused *scr_config_refused_find(const char *name);

/* All refused parameters, terminated by an entry whose name is NULL. */
const struct scr_config_refused *scr_config_refused_list(void);

#endif
