/* index_edit.h — the changes a person makes to the index of a prefix.
 *
 * scr-index and the Slurm plugin choose the dataset a restart loads first
 * and drop entries of the index with these calls; the dataset files on the
 * prefix are never touched. Each call is one locked read-modify-write of
 * <prefix>/.scr/index.scr (scr_index_file_update), so it can run while a job
 * flushes: neither side loses the other's entry and no reader sees a torn
 * file. Nothing is written when anything is wrong, and every refusal is
 * logged once, naming what was wrong:
 *   SCR_ERR_NOTFOUND  the prefix has no index (none is created), or no
 *                     dataset has the name given;
 *   SCR_ERR_ARG       the dataset cannot be made current (why is reported);
 *   SCR_ERR_FORMAT    the index is damaged (the file is left as it is).
 * Not thread-safe. */
#ifndef SCR_INDEX_EDIT_H
#define SCR_INDEX_EDIT_H

/* Make name CURRENT: the dataset a restart from the prefix loads first
 * (scr_index_file_restart_candidate). It must be a restartable checkpoint
 * (scr_index_file_restartable), or a restart would pass over it. */
int scr_index_edit_set_current(const char *prefix, const char *name);

/* Remove the entry of dataset name; CURRENT goes with it when it named it. */
int scr_index_edit_drop(const char *prefix, const char *name);

/* Remove the entry of every dataset newer (higher id) than name; name stays.
 * *out_dropped counts them (0 is success). */
int scr_index_edit_drop_after(const char *prefix, const char *name, int *out_dropped);

#endif
