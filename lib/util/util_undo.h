/* util_undo.h — what one attempt created on disk, so that a failed attempt
 * takes back exactly that.
 *
 * A flush to the prefix writes files beside others it must never touch:
 * the files of datasets flushed before, a directory the user made. The
 * attempt notes each file it created (not one it overwrote) and each
 * directory that was missing before it wrote below it; if it fails,
 * scr_undo_files removes the noted files and scr_undo_dirs the noted
 * directories that are empty again, deepest first. Nothing that was not
 * noted is removed, and a directory that holds anything is left alone.
 * A list belongs to one thread; paths are copied. */
#ifndef SCR_UTIL_UNDO_H
#define SCR_UTIL_UNDO_H

struct scr_undo {
    char **files;
    char **dirs;
    int nfiles, ndirs;
    int files_cap, dirs_cap;
};

/* An empty list (no allocation yet). */
#define SCR_UNDO_INIT          \
    {                          \
        NULL, NULL, 0, 0, 0, 0 \
    }

/* Note path, a file this attempt created. SCR_ERR_NOMEM (logged). */
int scr_undo_note_file(struct scr_undo *u, const char *path);

/* Note dir, and each of its ancestors, that does not exist now: the
 * attempt is about to create them. SCR_ERR_NOMEM (logged). */
int scr_undo_note_missing_dirs(struct scr_undo *u, const char *dir);

/* Remove the noted files; a file already gone is no error, any other
 * failure is logged. *out_removed counts the files removed. */
void scr_undo_files(struct scr_undo *u, int *out_removed);

/* Remove the noted directories that are empty, deepest first; one that
 * is not empty or already gone is left without a word. */
void scr_undo_dirs(struct scr_undo *u);

/* Forget everything noted and free the list (it may be used again). */
void scr_undo_clear(struct scr_undo *u);

#endif
