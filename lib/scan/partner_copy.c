/* partner_copy.c — names of PARTNER copies on the prefix. */
#include "partner_copy.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scr_partner_copy_dir(const char *dsdir, int owner, char **out_dir)
{
    char sub[64];
    snprintf(sub, sizeof(sub), "partner.%d", owner);
    return scr_path_join(dsdir, sub, out_dir);
}

int scr_partner_copy_path(const char *pdir, const char *name, char **out_path)
{
    size_t len = strlen(name);
    char *flat = malloc(3 * len + 1), *q = flat;
    if (flat == NULL) {
        scr_err("out of memory for the name of a partner copy of %s", name);
        return SCR_ERR_NOMEM;
    }
    for (const char *p = name; *p; p++) {
        if (*p == '%')
            q += sprintf(q, "%%25");
        else if (*p == '/')
            q += sprintf(q, "%%2F");
        else
            *q++ = *p;
    }
    *q = '\0';
    int rc = scr_path_join(pdir, flat, out_path);
    free(flat);
    return rc;
}
