/* spank_site.c — the site's defaults, given as plugin arguments in plugstack.conf. */
#include "spank_site.h"

#include "config_params.h"
#include "scr_err.h"
#include "util_parse.h"
#include "util_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *builtin_default(const char *param)
{
    const struct scr_config_param *p = scr_config_param_find(param);
    return p != NULL && p->default_value != NULL ? p->default_value : "/dev/shm";
}

static int set_path(char *dst, size_t len, const char *key, const char *value, char *why,
                    size_t why_len)
{
    if (value[0] != '/') {
        snprintf(why, why_len, "plugin argument %s=%s: expected an absolute path", key, value);
        return SCR_ERR_ARG;
    }
    if (strlen(value) >= len) {
        snprintf(why, why_len, "plugin argument %s=%s: path too long", key, value);
        return SCR_ERR_ARG;
    }
    snprintf(dst, len, "%s", value);
    return SCR_SUCCESS;
}

int scr_spank_site_parse(int ac, char **av, struct spank_scr_site *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->cntl_base, sizeof(out->cntl_base), "%s", builtin_default("SCR_CNTL_BASE"));
    snprintf(out->cache_base, sizeof(out->cache_base), "%s", builtin_default("SCR_CACHE_BASE"));
    out->epilog_timeout = SPANK_SCR_EPILOG_TIMEOUT_DEFAULT;
    for (int i = 0; i < ac; i++) {
        const char *eq = strchr(av[i], '=');
        if (eq == NULL) {
            snprintf(why, why_len, "plugin argument '%s': expected KEY=VALUE", av[i]);
            return SCR_ERR_ARG;
        }
        size_t klen = (size_t)(eq - av[i]);
        const char *value = eq + 1;
        if (klen == 9 && strncmp(av[i], "cntl_base", klen) == 0) {
            if (set_path(out->cntl_base, sizeof(out->cntl_base), "cntl_base", value, why,
                         why_len) != SCR_SUCCESS)
                return SCR_ERR_ARG;
        } else if (klen == 10 && strncmp(av[i], "cache_base", klen) == 0) {
            if (set_path(out->cache_base, sizeof(out->cache_base), "cache_base", value, why,
                         why_len) != SCR_SUCCESS)
                return SCR_ERR_ARG;
            out->cache_base_given = 1;
        } else if (klen == 6 && strncmp(av[i], "stores", klen) == 0) {
            if (strlen(value) >= sizeof(out->stores)) {
                snprintf(why, why_len, "plugin argument stores=: list too long");
                return SCR_ERR_ARG;
            }
            snprintf(out->stores, sizeof(out->stores), "%s", value);
        } else if (klen == 8 && strncmp(av[i], "min_free", klen) == 0) {
            if (scr_parse_bytes(value, &out->min_free) != SCR_SUCCESS) {
                snprintf(why, why_len, "plugin argument min_free=%s: expected a size such as 512MB",
                         value);
                return SCR_ERR_ARG;
            }
        } else if (klen == 14 && strncmp(av[i], "epilog_timeout", klen) == 0) {
            char *end = NULL;
            errno = 0;
            unsigned long v = strtoul(value, &end, 10);
            if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || v > 86400) {
                snprintf(why, why_len,
                         "plugin argument epilog_timeout=%s: expected seconds from 0 to 86400",
                         value);
                return SCR_ERR_ARG;
            }
            out->epilog_timeout = (unsigned)v;
        } else {
            snprintf(why, why_len,
                     "unknown plugin argument '%s' (known: cntl_base, cache_base, stores, "
                     "min_free, epilog_timeout)",
                     av[i]);
            return SCR_ERR_ARG;
        }
    }
    return SCR_SUCCESS;
}

/* a and b name the same directory, spelled however (lexically). */
static int same_dir(const char *a, const char *b)
{
    char *na = NULL, *nb = NULL;
    int same = scr_path_normalize(a, &na) == SCR_SUCCESS &&
               scr_path_normalize(b, &nb) == SCR_SUCCESS && strcmp(na, nb) == 0;
    free(na);
    free(nb);
    return same;
}

int scr_spank_site_allows_store(const struct spank_scr_site *site, const char *dir)
{
    if (site->stores[0] == '\0') return dir[0] == '/';
    char list[sizeof(site->stores)];
    snprintf(list, sizeof(list), "%s", site->stores);
    char *save = NULL;
    for (char *s = strtok_r(list, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save))
        if (same_dir(s, dir)) return 1;
    return 0;
}
