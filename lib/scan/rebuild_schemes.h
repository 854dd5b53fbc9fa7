/* rebuild_schemes.h — the rebuild of one set (or one rank) per scheme, for
 * rebuild.c, which decides what can be rebuilt. Each returns SCR_SUCCESS
 * once the lost members' files are in place with their rank filemaps, and
 * otherwise leaves nothing of its work behind. buf is bufsize bytes. */
#ifndef SCR_REBUILD_SCHEMES_H
#define SCR_REBUILD_SCHEMES_H

#include "scan.h"

#include <stddef.h>

/* Member lost of an XOR set (every other member has its files). */
int scr_rebuild_xor_set(const struct scr_scan *scan, const struct scr_scan_set *set, int lost,
                        size_t bufsize);

/* The nlost members lost[] of an RS set, nlost <= its FAILURES. */
int scr_rebuild_rs_set(const struct scr_scan *scan, const struct scr_scan_set *set, const int *lost,
                       int nlost, size_t bufsize);

/* Rank's files from its PARTNER copy; SCR_ERR_NOTFOUND (not logged) when
 * the dataset directory holds none. */
int scr_rebuild_partner_rank(const struct scr_scan *scan, int rank, size_t bufsize);

#endif
