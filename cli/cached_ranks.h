/* cached_ranks.h — what a node's cache holds of each rank, and whether a
 * redundancy set survives the ranks that are gone.
 *
 * A node's control directory holds one filemap per local rank
 * (filemap_<n>.scrinfo, filemap.h). A rank holds a dataset whole, as
 * SCR_Init judges it, when its entry is marked complete, lists every file it
 * expects, and each file is complete and of its recorded size on disk. Its
 * redundancy record (reddesc.h: TYPE, FAILURES, HOP, SET_SIZE, MEMBERS by
 * world rank) says which set protects it: a set of SINGLE survives no loss;
 * XOR one lost member; RS at most FAILURES; PARTNER when no lost member's
 * partner (HOP places to its right in the set) is lost as well. scr-drill
 * and scr_inspect judge caches with these, so they agree. */
#ifndef SCR_CACHED_RANKS_H
#define SCR_CACHED_RANKS_H

#include "filemap.h"
#include "kvtree.h"

#include <stddef.h>

/* Every filemap_<n>.scrinfo of control directory dir merged into map; a
 * directory that does not exist holds none (the node never reached
 * SCR_Init). SCR_ERR_IO or SCR_ERR_FORMAT (logged, naming the file) when
 * one cannot be read. */
int scr_cached_read_filemaps(const char *dir, scr_filemap *map);

/* 1 when rank holds dataset id whole in map, as above. */
int scr_cached_rank_is_intact(const scr_filemap *map, int id, int rank);

/* 1 when the set that redundancy record red describes survives with the
 * ranks gone[r] nonzero (r < ranks) missing; 0 also for a record that
 * cannot be judged (no members, a member outside 0..ranks-1). The record's
 * TYPE goes into scheme (len bytes) when scheme is not NULL. */
int scr_cached_set_survives(const scr_kvtree *red, const char *gone, int ranks, char *scheme,
                            size_t len);

#endif
