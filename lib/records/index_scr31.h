/* index_scr31.h — the keys SCR 3.1 keeps in index.scr beside this build's.
 *
 * SCR 3.1 writes an index as
 *
 *   CURRENT <name>
 *   NAME <name> DSET <id>               which dataset has which name
 *   DSET <id>
 *     DSET {dataset descriptor}         FLAG_CKPT / FLAG_OUTPUT, no FLAGS
 *     COMPLETE 0/1   FLUSHED <time>   (FETCHED, FAILED as this build)
 *
 * while this build keeps NAME and DSETDESC inside each entry (index_file.h).
 * Reading brings an SCR 3.1 entry into this build's form (NAME and DSETDESC
 * taken from its descriptor) and keeps SCR 3.1's keys in the tree. While an
 * index holds SCR 3.1's NAME map, every dataset this build adds, renames or
 * removes is also entered in, or taken out of, the map and the entry's
 * SCR 3.1 descriptor, so that SCR 3.1 still finds every dataset by name. An
 * index without the map (one this build started) gets none of it.
 * Used by index_file.c only. Not thread-safe. */
#ifndef SCR_INDEX_SCR31_H
#define SCR_INDEX_SCR31_H

#include "dataset.h"
#include "kvtree.h"

/* The top-level key of SCR 3.1's name map, and the key of its descriptor
 * inside an entry. */
#define SCR_INDEX_SCR31_KEY_NAMES "NAME"
#define SCR_INDEX_SCR31_KEY_DESC "DSET"

/* Give every entry of index (as read from file, VERSION taken out) that
 * holds only SCR 3.1's descriptor this build's NAME and DSETDESC. A
 * descriptor without a name, or one whose ID is not its entry's, is logged
 * naming file and key (SCR_ERR_FORMAT). */
int scr_index_scr31_upgrade(const char *file, scr_kvtree *index);

/* Check the name map of index as read from file: every name maps to one
 * dataset id, whose entry exists and carries that name. A bad one is logged
 * naming file and key (SCR_ERR_FORMAT). */
int scr_index_scr31_validate_names(const char *file, const scr_kvtree *index);

/* Check an entry's SCR 3.1 descriptor (where: "DSET <id> DSET"). */
int scr_index_scr31_validate_desc(const char *file, const char *where, int id,
                                  const scr_dataset *desc);

/* When index holds the name map: enter dataset id under the name in desc
 * (dropping any other name it had) and store a copy of desc with SCR 3.1's
 * flags in its entry. Does nothing for an index without the map. */
int scr_index_scr31_note_dataset(scr_kvtree *index, int id, const scr_dataset *desc);

/* Take dataset id out of the name map (no-op without the map or the id). */
void scr_index_scr31_forget(scr_kvtree *index, int id);

#endif
