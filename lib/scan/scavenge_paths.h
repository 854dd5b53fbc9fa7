/* scavenge_paths.h — where a scavenge may read and write: the dataset's
 * directories in cache, and the prefix it was given.
 *
 * A scavenge runs as the job's user (or, on a root-owned control directory,
 * as root) and copies what the control directory's filemaps say: a cache
 * file (the filemap's FILE) to its original path (PATH/NAME of its meta).
 * Those records are files anyone who can write the control directory can
 * change, so none of their paths is taken on trust:
 *   - a filemap the master list names must lie in the control directory;
 *   - a cache file of dataset <id> must lie in <C>/scr.dataset.<id> for one
 *     of the job's cache directories C (job_file.h); when the job file
 *     records none (a run of an older build), in some directory of that
 *     name;
 *   - an original path must lie under the prefix given. One under the
 *     prefix the job's runs used (recorded by SCR_Init in the control
 *     directory, job_file.h) is moved onto the given prefix: the same path
 *     relative to it, PATH and NAME rewritten, so that a scavenge to another
 *     prefix puts the dataset together there, where a restart from that
 *     prefix finds it. Any other is refused.
 * Paths are compared after normalising ".." (util_path.h); symbolic links
 * are not followed. A refusal is logged naming the record (the filemap's
 * file), the rank, the dataset and the path, with SCR_ERR_FORMAT. */
#ifndef SCR_SCAVENGE_PATHS_H
#define SCR_SCAVENGE_PATHS_H

#include "filemap.h"

struct scr_scavenge_paths {
    char *cntl_dir; /* the control directory, normalised (absolute for a filemap to be inside it) */
    char *prefix;   /* the prefix given, normalised */
    char *job_prefix;  /* the prefix the job's runs recorded; NULL when none */
    char **cache_dirs; /* the job's cache directories; NULL when none recorded */
};

/* The bounds of a scavenge of the control directory cntl_dir to prefix
 * (absolute), from the job file there; free with scr_scavenge_paths_free. */
int scr_scavenge_paths_load(const char *cntl_dir, const char *prefix,
                            struct scr_scavenge_paths *out);
void scr_scavenge_paths_free(struct scr_scavenge_paths *p);

/* SCR_SUCCESS when the filemap path that the master list at master names
 * lies in the control directory; SCR_ERR_FORMAT (logged) otherwise. */
int scr_scavenge_paths_check_filemap(const struct scr_scavenge_paths *p, const char *master,
                                     const char *path);

/* Check every file of every entry of map, the filemap read from record, as
 * above, and move original paths under the job's prefix onto the given
 * one (map is changed). SCR_ERR_FORMAT (logged) at the first path refused. */
int scr_scavenge_paths_apply(const struct scr_scavenge_paths *p, const char *record,
                             scr_filemap *map);

#endif
