/* spank_site.h — the site's defaults, given as plugin arguments in plugstack.conf.
 *
 *   optional /usr/local/lib/slurm/spank_scr.so \
 *       cntl_base=/dev/shm cache_base=/dev/shm stores=/dev/shm,/ssd min_free=1GB
 *
 *   cntl_base=DIR   base of the control directories the prolog creates; must
 *                   be the SCR_CNTL_BASE of the site's scr.conf (a system-only
 *                   parameter the plugin cannot hand to the tasks)
 *   cache_base=DIR  default cache base; exported to the tasks as SCR_CACHE_BASE
 *                   when the job does not choose one
 *   stores=A,B,...  the only values --scr-cache-base accepts (default: any
 *                   absolute path)
 *   min_free=BYTES  free space the health check demands in each directory
 *   epilog_timeout=SECONDS  how long the job epilog's scavenge, index and
 *                   purge may take on a node before it is killed (default
 *                   300; 0: no limit)
 * Missing arguments take libscr's built-in defaults. An unknown or malformed
 * argument is an error naming it. */
#ifndef SPANK_SITE_H
#define SPANK_SITE_H

#include <stddef.h>
#include <stdint.h>

#define SPANK_SCR_PATH_MAX 1024

struct spank_scr_site {
    char cntl_base[SPANK_SCR_PATH_MAX];
    char cache_base[SPANK_SCR_PATH_MAX];
    int cache_base_given;                /* 1: cache_base= was in plugstack.conf */
    char stores[4 * SPANK_SCR_PATH_MAX]; /* comma-separated; "" allows any */
    uint64_t min_free;
    unsigned epilog_timeout; /* seconds; 0: no limit */
};

#define SPANK_SCR_EPILOG_TIMEOUT_DEFAULT 300

/* Parse the plugin arguments av[0..ac) into *out; SCR_ERR_ARG with why set
 * when one is unknown or malformed. */
int scr_spank_site_parse(int ac, char **av, struct spank_scr_site *out, char *why, size_t why_len);

/* 1 when dir may be used as a cache base under the site's stores= list. */
int scr_spank_site_allows_store(const struct spank_scr_site *site, const char *dir);

#endif
